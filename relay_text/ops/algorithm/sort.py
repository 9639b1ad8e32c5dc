"""Ordering: sort, argsort, topk, dyn.topk and searchsorted, as TVM defines them.

`sort` and `argsort` order every line of a tensor along `axis` (default the
last), ascending unless `is_ascend=False`; `argsort` gives the positions the
values came from, in the dtype `dtype` (int32 when it is `""`, the value TVM
prints for an unset dtype; `sort` ignores it). Equal values keep their original
order in both directions: the one that came first stays first, also when
sorting in descending order (TVM sorts stably on the values alone).

`topk` keeps the first `k` entries of that order (descending by default;
`k < 1` keeps the whole axis) and returns, by `ret_type`, the values and the
positions as a pair (`"both"`), or only one of them. `dyn.topk` takes `k` as
a tensor (a scalar or a vector of one element), so its axis has the size `?`.

`searchsorted(sorted_sequence, values)` gives, for every value, the position
where it would be inserted into the sequence's last axis to keep it in
order: before equal entries, or after them with `right=True`. A sequence of
rank 1 serves every value; a sequence of higher rank has one row per line of
`values` (the leading axes must agree). The search is a binary search, so
for a sequence that is not sorted the answer is that of the bisection.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType, TupleType
from .._checks import check_index_dtype, is_int_dtype, ranked, require_int
from .._np import np
from ..registry import Attr, KernelError, register
from ..relations import RankedTensor, Relation, has_rank, known_rank, normalize_axis, relation, shape_text
from ..types import Args, Attrs, Value

# ---------------------------------------------------------------- kernels' helpers


def stable_order(x: Any, axis: int, ascending: bool) -> Any:
    """The positions that sort `x` along `axis`, ties in their original order."""
    if ascending:
        return np.argsort(x, axis=axis, kind="stable")
    # Sorting the reversed line ascending and reading that order backwards puts
    # the largest first while equal values keep their original order.
    n = x.shape[axis]
    order = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return (n - 1) - np.flip(order, axis)


def _axis_of(x: Any, axis: int) -> int:
    ndim: int = x.ndim
    return axis % ndim


# ---------------------------------------------------------------- sort, argsort

SORT_ATTRS = (Attr("axis", "int", -1), Attr("is_ascend", "bool", True), Attr("dtype", "opt_dtype", "int32"))


def index_dtype(attrs: Attrs) -> str:
    """The dtype of the positions: `dtype`, or int32 when it is TVM's unset `""`."""
    return attrs["dtype"] or "int32"


def _sorted_shape(r: Relation) -> RankedTensor | None:
    x = r.tensor(0)
    if not has_rank(x):
        return None
    normalize_axis(r, r.attrs["axis"], len(x.shape))
    return x


@relation("Sort")
def sort_rel(r: Relation) -> bool:
    """The result has the input's type."""
    x = _sorted_shape(r)
    if x is None:
        return False
    r.set_result(x)
    return True


@register("sort", inputs=1, relation=sort_rel, attrs=SORT_ATTRS, doc="The values sorted along an axis.")
def sort(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    axis = _axis_of(x, attrs["axis"])
    return np.take_along_axis(x, stable_order(x, axis, attrs["is_ascend"]), axis)


@relation("Argsort")
def argsort_rel(r: Relation) -> bool:
    """The input's shape, in the index dtype `dtype`."""
    dtype = check_index_dtype(r, "dtype")
    x = _sorted_shape(r)
    if x is None:
        return False
    r.set_result(TensorType(x.shape, dtype))
    return True


@register(
    "argsort", inputs=1, relation=argsort_rel, attrs=SORT_ATTRS, doc="The positions that sort the values along an axis."
)
def argsort(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    return stable_order(x, _axis_of(x, attrs["axis"]), attrs["is_ascend"]).astype(index_dtype(attrs))


# ---------------------------------------------------------------- topk

RET_TYPES = ("both", "values", "indices")


def _topk_result(r: Relation, x: RankedTensor, axis: int, size: Any) -> None:
    shape = (*x.shape[:axis], size, *x.shape[axis + 1 :])
    values = TensorType(shape, x.dtype)
    indices = TensorType(shape, index_dtype(r.attrs))
    kind = r.attrs["ret_type"]
    r.set_result(TupleType((values, indices)) if kind == "both" else values if kind == "values" else indices)


def _topk_checks(r: Relation) -> None:
    check_index_dtype(r, "dtype")
    kind = r.attrs["ret_type"]
    if kind not in RET_TYPES:
        r.fail(codes.TYPE_MISMATCH, f'`{r.op}` ret_type must be "both", "values" or "indices", found "{kind}"')


@relation("TopK")
def topk_rel(r: Relation) -> bool:
    """The axis keeps k entries (all of them when k < 1)."""
    _topk_checks(r)
    x = r.tensor(0)
    if not has_rank(x):
        return False
    axis = normalize_axis(r, r.attrs["axis"], len(x.shape))
    k = r.attrs["k"]
    size = x.shape[axis]
    if k >= 1:
        if type(size) is int and k > size:
            r.fail(codes.SHAPE_MISMATCH, f"`topk`: k={k} is larger than axis {axis}, of size {size}", arg=0)
        size = k
    _topk_result(r, x, axis, size)
    return True


def _top(x: Any, k: int, attrs: Attrs) -> Any:
    axis = _axis_of(x, attrs["axis"])
    n = x.shape[axis]
    if k < 1:
        k = n
    if k > n:
        raise KernelError(codes.RUNTIME_ERROR, f"topk: k={k} is larger than axis {axis}, of size {n}")
    order = np.take(stable_order(x, axis, attrs["is_ascend"]), np.arange(k), axis=axis)
    kind = attrs["ret_type"]
    indices = order.astype(index_dtype(attrs))
    if kind == "indices":
        return indices
    values = np.take_along_axis(x, order, axis)
    return (values, indices) if kind == "both" else values


@register(
    "topk",
    inputs=1,
    relation=topk_rel,
    attrs=(
        Attr("k", "int"),
        Attr("axis", "int", -1),
        Attr("ret_type", "str", "both"),
        Attr("is_ascend", "bool", False),
        Attr("dtype", "opt_dtype", "int32"),
    ),
    doc="The k largest (or smallest) values along an axis and their positions.",
)
def topk(args: Args, attrs: Attrs) -> Value:
    return _top(args[0], attrs["k"], attrs)


@relation("DynTopK")
def dyn_topk_rel(r: Relation) -> bool:
    """Like `TopK`, with `k` a run-time integer: the axis becomes `?`."""
    _topk_checks(r)
    require_int(r, 1, "k")
    k = ranked(r, 1, (0, 1), "k")
    if k is not None and len(k.shape) == 1 and type(k.shape[0]) is int and k.shape[0] != 1:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`dyn.topk` takes k as a scalar or a vector of one element, found shape {shape_text(k.shape)}",
            arg=1,
        )
    x = r.tensor(0)
    if not has_rank(x):
        return False
    axis = normalize_axis(r, r.attrs["axis"], len(x.shape))
    _topk_result(r, x, axis, AnyDim())
    return True


@register(
    "dyn.topk",
    inputs=2,
    relation=dyn_topk_rel,
    attrs=(
        Attr("k", "opt_int", None),
        Attr("axis", "int", -1),
        Attr("ret_type", "str", "both"),
        Attr("is_ascend", "bool", False),
        Attr("dtype", "opt_dtype", "int32"),
    ),
    doc="`topk` with k given as a tensor (the `k` attribute is ignored).",
)
def dyn_topk(args: Args, attrs: Attrs) -> Value:
    k = np.asarray(args[1]).reshape(-1)
    if k.size != 1:
        raise KernelError(codes.RUNTIME_ERROR, f"dyn.topk: k must hold one value, found {k.size}")
    return _top(args[0], int(k[0]), attrs)


# ---------------------------------------------------------------- searchsorted


@relation("SearchSorted")
def searchsorted_rel(r: Relation) -> bool:
    """The shape of `values`, in the integer dtype `dtype`."""
    dtype = r.attrs["dtype"]
    if not is_int_dtype(dtype):
        r.fail(codes.TYPE_MISMATCH, f"`searchsorted` returns positions: dtype must be an integer type, found `{dtype}`")
    r.unify_dtypes(0, 1)
    seq, values = r.tensor(0), r.tensor(1)
    if known_rank(seq.shape) and not seq.shape:
        r.fail(codes.SHAPE_MISMATCH, "`searchsorted` needs a sorted sequence of rank 1 or more, found a scalar", arg=0)
    if known_rank(values.shape) and not values.shape:
        r.fail(codes.SHAPE_MISMATCH, "`searchsorted` needs values of rank 1 or more, found a scalar", arg=1)
    if not (known_rank(seq.shape) and known_rank(values.shape)):
        return False
    if len(seq.shape) > 1:
        if len(seq.shape) != len(values.shape):
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`searchsorted`: a sequence of rank {len(seq.shape)} needs values of the same rank, found shape "
                f"{shape_text(values.shape)}",
                arg=1,
            )
        for ax, (a, b) in enumerate(zip(seq.shape[:-1], values.shape[:-1], strict=False)):
            if type(a) is int and type(b) is int and a != b:
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`searchsorted`: the sequence and the values must agree on every axis but the last; at axis {ax} "
                    f"they have sizes {a} and {b}",
                    arg=1,
                )
    r.set_result(TensorType(values.shape, dtype))
    return True


def bisect(rows: Any, row_of: Any, values: Any, right: bool) -> Any:
    """For each value, its insertion position in `rows[row_of]` by binary search
    (all values at once; about log2(n) vectorised steps)."""
    n = rows.shape[1]
    lo = np.zeros(values.shape, dtype=np.int64)
    hi = np.full(values.shape, n, dtype=np.int64)
    if n == 0:
        return lo
    while True:
        active = lo < hi
        if not active.any():
            return lo
        mid = lo + ((hi - lo) >> 1)
        probe = rows[row_of, np.minimum(mid, n - 1)]
        go_right = (probe <= values) if right else (probe < values)
        lo = np.where(active & go_right, mid + 1, lo)
        hi = np.where(active & ~go_right, mid, hi)


@register(
    "searchsorted",
    inputs=2,
    relation=searchsorted_rel,
    attrs=(Attr("right", "bool", False), Attr("dtype", "dtype", "int32")),
    doc="Where each value would be inserted into the sorted last axis of a sequence.",
)
def searchsorted(args: Args, attrs: Attrs) -> Value:
    seq, values = args
    if seq.ndim > 1 and seq.shape[:-1] != values.shape[:-1]:
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"searchsorted: sequence of shape {seq.shape} and values of shape {values.shape} differ before the last "
            "axis",
        )
    n = seq.shape[-1]
    if n == 0:
        return np.zeros(values.shape, dtype=attrs["dtype"])
    rows = seq.reshape(-1, n)
    flat = values.reshape(-1)
    if seq.ndim == 1:
        row_of = np.zeros(flat.shape, dtype=np.int64)
    else:
        line = values.shape[-1]
        row_of = np.arange(flat.size, dtype=np.int64) // max(line, 1)
    found = bisect(rows, row_of, flat, attrs["right"])
    return found.reshape(values.shape).astype(attrs["dtype"])
