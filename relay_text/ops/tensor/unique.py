"""Operators whose useful output size depends on the values: unique, argwhere.

`unique(x, sorted=True, return_counts=False)` takes a vector of n elements
and returns a tuple of vectors, all of length n as in TVM (only the first
`num_unique` entries of the padded ones mean something):

    unique           the distinct values: ascending with `sorted=True`, else
                     in the order they first appear; padded with 0
    indices          int32, where each distinct value first appears in x;
                     padded with n
    inverse_indices  int32, for each element of x, the position of its value
                     among the distinct values (not padded)
    num_unique       int32 vector of one element: how many distinct values
    counts           int32, how often each distinct value occurs; padded
                     with 0 (only with `return_counts=True`)

`argwhere(x)` lists the coordinates of the nonzero (True) elements of x, in
row-major order: an int32 matrix with one row per such element and one
column per axis of x, so its first axis has the size `?`.
"""

from __future__ import annotations

from typing import Any

from ...ir.ty import AnyDim, TensorType, TupleType
from .._checks import ranked
from .._np import np
from ..registry import Attr, register
from ..relations import Relation, known_rank, relation
from ..types import Args, Attrs, Value


@relation("unique")
def unique_rel(r: Relation) -> bool:
    """A vector in; vectors of its length out (and the count, of shape (1))."""
    x = ranked(r, 0, (1,), "a vector")
    if x is None:
        return False
    fields = [
        TensorType(x.shape, x.dtype),
        TensorType(x.shape, "int32"),
        TensorType(x.shape, "int32"),
        TensorType((1,), "int32"),
    ]
    if r.attrs["return_counts"]:
        fields.append(TensorType(x.shape, "int32"))
    r.set_result(TupleType(tuple(fields)))
    return True


def _padded(head: Any, n: int, fill: Any, dtype: Any) -> Any:
    out = np.full(n, fill, dtype=dtype)
    out[: head.shape[0]] = head
    return out


@register(
    "unique",
    inputs=1,
    relation=unique_rel,
    attrs=(Attr("sorted", "bool", True), Attr("return_counts", "bool", False)),
    doc="The distinct values of a vector, where they first occur, and the inverse map (padded to its length).",
)
def unique(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    n = x.shape[0]
    order = np.argsort(x, kind="stable")
    ordered = x[order]
    starts_new = np.ones(n, dtype=bool)
    starts_new[1:] = ordered[1:] != ordered[:-1]
    group = np.cumsum(starts_new) - 1  # the distinct value each sorted element belongs to
    starts = np.flatnonzero(starts_new)
    values = ordered[starts]
    first = order[starts]  # stable sort: the first of a group came first in x
    counts = np.diff(np.append(starts, n))
    rank = np.arange(starts.shape[0])
    if not attrs["sorted"]:
        by_appearance = np.argsort(first, kind="stable")
        values, first, counts = values[by_appearance], first[by_appearance], counts[by_appearance]
        rank = np.empty_like(by_appearance)
        rank[by_appearance] = np.arange(by_appearance.shape[0])
    inverse = np.empty(n, dtype=np.int32)
    inverse[order] = rank[group]
    out: tuple[Any, ...] = (
        _padded(values, n, 0, x.dtype),
        _padded(first, n, n, np.int32),
        inverse,
        np.array([starts.shape[0]], dtype=np.int32),
    )
    if attrs["return_counts"]:
        out += (_padded(counts, n, 0, np.int32),)
    return out


@relation("ArgWhere")
def argwhere_rel(r: Relation) -> bool:
    """Any tensor in; an int32 matrix of shape (?, rank) out."""
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    r.set_result(TensorType((AnyDim(), len(x.shape)), "int32"))
    return True


@register("argwhere", inputs=1, relation=argwhere_rel, doc="The coordinates of the nonzero elements, one row each.")
def argwhere(args: Args, attrs: Attrs) -> Value:
    return np.argwhere(args[0]).astype(np.int32)
