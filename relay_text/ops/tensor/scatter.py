"""Writing elements at given positions: `scatter_elements`, `scatter_nd`,
`strided_set`. Each returns a copy of `data` with some elements replaced or
combined with new values; the result has the type of `data`.

`scatter_elements(data, indices, updates, axis=0, reduction="update")` is
the inverse of `gather`: `updates[p]` goes to the element of the copy
found by replacing coordinate `axis` of position `p` with `indices[p]`.
`indices` and `updates` have one shape, of the data's rank, no larger than
the data on any axis but `axis`. Negative indices count from the end. The
`reduction` combines the element with the update: "update" (replace),
"add", "mul", "min", "max", or "mean" (the average of the two, floating
point only). Updates aimed at one element are applied one after another,
in the order of their positions along `axis`; with "update" the last wins.

`scatter_nd(data, indices, updates, mode="update")` writes whole index
tuples, the inverse of `gather_nd`: with indices of shape
(M, Y_0, ..., Y_{K-1}) and data of rank N, `updates` has shape
(Y_0, ..., Y_{K-1}, X_M, ..., X_{N-1}) and `updates[y]` goes to the
element (or slice) `data[indices[0, y], ..., indices[M-1, y]]`. `mode`
is "update", "add", "mul", "min" or "max"; repeated tuples are applied in
order (the last "update" wins). Indices are not counted from the end.

`strided_set(data, v, begin, end, strides)` writes `v` into the strided
box of `data` that `strided_slice` with the same begin, end and strides
would read; the three are int32 vectors given as tensors (missing entries:
begin 0, end past the axis, stride 1). This follows TOPI's formula, which
for a negative stride `s` selects the positions `p` with
`(p - end + end mod |s| + 1) mod |s| == 0` and writes to them
`v[(begin - p) // |s|]`.

Indices or boxes that reach outside `data` or `v`, which TVM does not
check, stop the evaluator with a `runtime-error`.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from ._indexing import (
    assume,
    check_bounds,
    last_wins,
    occurrence_rank,
    require_int,
    require_rank,
    same_dim,
    settled,
)
from .._np import np
from ..registry import Attr, KernelError, register
from ..relations import (
    Relation,
    is_unknown,
    known_rank,
    normalize_axis,
    relation,
    shape_text,
)
from ..types import Args, Attrs, Value

_ELEMENT_REDUCTIONS = ("update", "add", "mul", "mean", "min", "max")
_ND_MODES = ("update", "add", "mul", "min", "max")


def _check_combine(r: Relation, name: str, value: str, allowed: tuple[str, ...]) -> None:
    """The combining mode is known, and fits the data's dtype."""
    if value not in allowed:
        choices = ", ".join(f'"{m}"' for m in allowed[:-1]) + f' or "{allowed[-1]}"'
        r.fail(codes.TYPE_MISMATCH, f'`{r.op}` {name} must be {choices}, found "{value}"')
    dtype = r.tensor(0).dtype
    if type(dtype) is not str:
        return
    if dtype == "bool" and value in ("add", "mul", "mean"):
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}` {name}="{value}" takes numbers, not bool',
            arg=0,
            notes=['bool data takes "update", "min" or "max"'],
        )
    if value == "mean" and not dtype.startswith(("float", "bfloat")):
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}` {name}="mean" takes floating-point data, found `{dtype}`',
            arg=0,
            notes=["TVM's mean divides with `/`, which it does not define for integers"],
        )


def _same_dtype(r: Relation, i: int, what: str) -> None:
    a, b = r.tensor(0), r.tensor(i)
    r.unify(
        a.dtype,
        b.dtype,
        arg=i,
        message=f"`{r.op}` needs {what} of the data's dtype: the data is `{{expected}}`, {what} `{{found}}`",
    )


# ---------------------------------------------------------------- scatter_elements


@relation("ScatterElements", inputs=3)
def scatter_elements_rel(r: Relation) -> bool:
    require_int(r, 1, "indices")
    _same_dtype(r, 2, "updates")
    _check_combine(r, "reduction", r.attrs["reduction"], _ELEMENT_REDUCTIONS)
    data, idx, upd = r.tensor(0), r.tensor(1), r.tensor(2)
    if not (known_rank(data.shape) and known_rank(idx.shape) and known_rank(upd.shape)):
        if known_rank(data.shape):
            r.set_result(data)
        return False
    rank = len(data.shape)
    if rank == 0:
        r.fail(codes.SHAPE_MISMATCH, "`scatter_elements` cannot scatter into a scalar", arg=0)
    if len(idx.shape) != rank:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`scatter_elements` needs indices of the data's rank: the data is {shape_text(data.shape)}, the indices "
            f"{shape_text(idx.shape)}",
            arg=1,
        )
    if len(upd.shape) != len(idx.shape):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`scatter_elements` needs updates of the shape of the indices, {shape_text(idx.shape)}, found "
            f"{shape_text(upd.shape)}",
            arg=2,
        )
    axis = normalize_axis(r, r.attrs["axis"], rank)
    for i, (k, u) in enumerate(zip(idx.shape, upd.shape, strict=False)):
        same_dim(
            r,
            k,
            u,
            2,
            f"`scatter_elements` needs updates of the shape of the indices, {shape_text(idx.shape)}, found "
            f"{shape_text(upd.shape)}",
            notes=[f"they differ at axis {i}"],
        )
    for i, (d, k) in enumerate(zip(data.shape, idx.shape, strict=False)):
        if i != axis and type(d) is int and type(k) is int and k > d:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`scatter_elements` along axis {axis}: the indices have size {k} at axis {i}, larger than the data's "
                f"{d}",
                arg=1,
            )
    r.set_result(data)
    return True


def _apply(out_flat: Any, targets: Any, values: Any, how: str) -> None:
    """Combine `values` into `out_flat[targets]` one write after another."""
    if how == "update":
        where, last = last_wins(targets)
        out_flat[where] = values[last]
    elif how == "add":
        np.add.at(out_flat, targets, values)
    elif how == "mul":
        np.multiply.at(out_flat, targets, values)
    elif how == "min":
        np.minimum.at(out_flat, targets, values)
    elif how == "max":
        np.maximum.at(out_flat, targets, values)
    else:  # mean, in rounds: the k-th write to each target in round k
        rank = occurrence_rank(targets)
        for k in range(int(rank.max()) + 1 if len(rank) else 0):
            sel = rank == k
            t = targets[sel]
            out_flat[t] = (out_flat[t] + values[sel]) / out_flat.dtype.type(2)


@register(
    "scatter_elements",
    inputs=3,
    relation=scatter_elements_rel,
    attrs=(Attr("axis", "int", 0), Attr("reduction", "str", "update")),
    doc="A copy of the data with updates written (or combined) along an axis at the given indices.",
)
def scatter_elements(args: Args, attrs: Attrs) -> Value:
    data, indices, updates = args
    axis = attrs["axis"] % data.ndim
    idx = check_bounds("scatter_elements", indices, data.shape[axis], axis, wrap_negative=True)
    coords = list(np.indices(indices.shape, sparse=True))
    coords[axis] = idx
    targets = np.ravel_multi_index(np.broadcast_arrays(*coords), data.shape).reshape(-1)
    out = data.copy()
    _apply(out.reshape(-1), targets, updates.reshape(-1), attrs["reduction"])
    return out


# ---------------------------------------------------------------- scatter_nd


@relation("ScatterND", inputs=3)
def scatter_nd_rel(r: Relation) -> bool:
    require_int(r, 1, "indices")
    _same_dtype(r, 2, "updates")
    _check_combine(r, "mode", r.attrs["mode"], _ND_MODES)
    data, idx, upd = r.tensor(0), r.tensor(1), r.tensor(2)
    if known_rank(data.shape):
        r.set_result(data)
    if known_rank(idx.shape) and len(idx.shape) == 0:
        r.fail(codes.SHAPE_MISMATCH, "`scatter_nd` needs indices of rank 1 or more, found a scalar", arg=1)
    if not (known_rank(data.shape) and known_rank(idx.shape) and known_rank(upd.shape)):
        return False
    m = idx.shape[0]
    if is_unknown(m):
        return False
    if type(m) is not int:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`scatter_nd` needs a static size for the first axis of the indices, found {shape_text(idx.shape)}",
            arg=1,
        )
    n = len(data.shape)
    if m > n:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`scatter_nd`: index tuples of {m} coordinates need data of rank {m} or more, found "
            f"{shape_text(data.shape)}",
            arg=1,
        )
    expected = tuple(idx.shape[1:]) + tuple(data.shape[m:])
    message = (
        f"`scatter_nd` needs updates of shape {shape_text(expected)} (the indices' axes after the first, "
        f"then the data's after the first {m}), found {shape_text(upd.shape)}"
    )
    if len(upd.shape) != len(expected):
        r.fail(codes.SHAPE_MISMATCH, message, arg=2)
    for i, (want, got) in enumerate(zip(expected, upd.shape, strict=False)):
        same_dim(
            r,
            want,
            got,
            2,
            message,
            notes=[f"they differ at axis {i}"] if type(want) is int and type(got) is int else (),
        )
    r.set_result(data)
    return True


@register(
    "scatter_nd",
    inputs=3,
    relation=scatter_nd_rel,
    attrs=(Attr("mode", "str", "update"),),
    doc=(
        "A copy of the data with updates written (or combined) at index tuples stored along the first axis of the "
        "indices."
    ),
)
def scatter_nd(args: Args, attrs: Attrs) -> Value:
    data, indices, updates = args
    m = indices.shape[0]
    lead = data.shape[:m]
    rest = data.shape[m:]
    tuples = indices.reshape(m, int(np.prod(indices.shape[1:], dtype=np.int64)))
    if m:
        coords = [check_bounds("scatter_nd", tuples[j], lead[j], j) for j in range(m)]
        targets = np.ravel_multi_index(coords, lead)
    else:
        targets = np.zeros(tuples.shape[1], dtype=np.int64)
    out = data.copy()
    rows = out.reshape((int(np.prod(lead, dtype=np.int64)), *rest))
    _apply(rows, targets, updates.reshape((len(targets), *rest)), attrs["mode"])
    return out


# ---------------------------------------------------------------- strided_set


def _strided_set_default(r: Relation) -> bool:
    """begin, end and strides from constants without metadata: int32 vectors."""
    done = False
    for i in (2, 3, 4):
        done = assume(r, i, TensorType((AnyDim(),), "int32")) or done
    return done


@relation("StridedSet", inputs=5, default=_strided_set_default)
def strided_set_rel(r: Relation) -> bool:
    _same_dtype(r, 1, "the values")
    for i, what in ((2, "begin"), (3, "end"), (4, "strides")):
        t = r.tensor(i)
        if type(t.dtype) is str and t.dtype != "int32":
            r.fail(
                codes.TYPE_MISMATCH,
                f"`strided_set` takes {what} as an int32 vector, found `{t.dtype}`",
                arg=i,
                label=f"this is `{t.dtype}`",
            )
        require_rank(r, i, (1,), what)
    data, v = r.tensor(0), r.tensor(1)
    if known_rank(data.shape) and known_rank(v.shape) and len(data.shape) != len(v.shape):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`strided_set` needs values of the data's rank: the data is {shape_text(data.shape)}, the values "
            f"{shape_text(v.shape)}",
            arg=1,
        )
    r.set_result(data)
    return settled(r, 2, 3, 4)


def _selection(extent: int, b: int, e: int, s: int) -> tuple[Any, Any]:
    """TOPI's strided_set along one axis: the positions written and the
    index into the values for each."""
    if s == 0:
        raise KernelError(codes.DIVISION_BY_ZERO, "strided_set: a stride of 0")
    b = b + extent if b < 0 else b
    e = e + extent if e < 0 else e
    p = np.arange(extent, dtype=np.int64)
    a = abs(s)
    if s < 0:
        inside = (p > e) & (p <= b)
        aligned = ((p - e) + (e % a) + 1) % a == 0
    else:
        inside = (p >= b) & (p < e)
        aligned = (p - b) % s == 0
    start = extent - 1 if extent < b else b
    vidx = (start - p) // a if s < 0 else (p - start) // s
    sel = inside & aligned
    return p[sel], vidx[sel]


@register(
    "strided_set",
    inputs=5,
    relation=strided_set_rel,
    doc="A copy of the data with the strided box begin:end:strides replaced by the values.",
)
def strided_set(args: Args, attrs: Attrs) -> Value:
    data, v, begin, end, strides = args
    out = data.copy()
    if data.ndim == 0:
        return np.array(v, dtype=data.dtype)
    where, take = [], []
    for axis, extent in enumerate(data.shape):
        s = int(strides[axis]) if axis < strides.shape[0] else 1
        b = int(begin[axis]) if axis < begin.shape[0] else (0 if s > 0 else extent)
        e = int(end[axis]) if axis < end.shape[0] else (extent + 1 if s > 0 else -(extent + 1))
        pos, vidx = _selection(extent, b, e, s)
        if vidx.size and (vidx.min() < 0 or vidx.max() >= v.shape[axis]):
            raise KernelError(
                codes.RUNTIME_ERROR,
                f"strided_set: the box needs values up to index {int(vidx.max())} along axis {axis}, but the values "
                f"have size {v.shape[axis]}",
            )
        where.append(pos)
        take.append(vidx)
    out[np.ix_(*where)] = v[np.ix_(*take)]
    return out
