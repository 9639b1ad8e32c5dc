"""Shapes taken from another tensor or read from the right: `slice_like`,
`reshape_like`, `collapse_sum_like`, `collapse_sum_to`,
`contrib_reverse_reshape`. Each keeps the dtype of its data.

`slice_like(data, shape_like, axes=None)` keeps the first
`shape_like.shape[a]` elements of `data` along each axis `a` in `axes`
(negative axes count from the end of the data's axes), or along each axis
both tensors have when `axes` is None; the sizes taken must not exceed the
data's.

`reshape_like(data, shape_like, lhs_begin=0, lhs_end=None, rhs_begin=0,
rhs_end=None)` reshapes `data` replacing its axes lhs_begin ... lhs_end - 1
with the axes rhs_begin ... rhs_end - 1 of `shape_like` (None: to the last
axis; negative values count from the end); the element count must stay.

`collapse_sum_like(data, collapse_type)` sums `data` down to the shape of
`collapse_type`, which broadcasts to the data's shape: the data's leading
axes that the target lacks are summed away, and so are the axes where the
target has size 1 (kept, with size 1). The result has the type of the
second input. `collapse_sum_to(data, shape)` does the same with the target
shape given as a vector of integers (a tensor); its attribute `shape`,
set by TVM when that vector is a constant, gives the result's dimensions,
which are `?` without it. Sums keep the dtype: integers wrap around, and
for bool the sum is a logical or.

`contrib_reverse_reshape(data, newshape)` is `reshape` with the special
values of `newshape` (0, -1, -2, -3, -4) applied from the right: both the
input shape and `newshape` are read last axis first, so `(10, 5, 4)` with
newshape `[-1, 0]` gives `(50, 4)` where `reshape` gives `(40, 5)`.
"""

from __future__ import annotations

from typing import Any, NoReturn

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from ._indexing import assume, require_int, require_rank
from .._np import np
from ..registry import Attr, KernelError, register
from ..relation import CanFail, Notes
from ..relations import Relation, is_unknown, known_rank, relation, shape_text
from .transform import reshape_dims
from ..types import Args, Attrs, Dims, Shape, Value

# ---------------------------------------------------------------- slice_like


def slice_like_shape(r: CanFail, dshape: Dims, tshape: Dims, axes: Shape | None) -> Dims:
    """The result shape of `slice_like`; `r.fail` on bad axes or sizes."""
    out = list(dshape)
    if axes is None:
        chosen = list(range(min(len(dshape), len(tshape))))
    else:
        if not axes:
            r.fail(
                codes.TYPE_MISMATCH,
                "`slice_like` axes cannot be empty",
                notes=["leave `axes` out to slice every axis both tensors have"],
            )
        chosen = []
        for a in axes:
            axis = a + len(dshape) if a < 0 else a
            if not 0 <= axis < len(dshape):
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`slice_like`: axis {a} is out of range for data of rank {len(dshape)}",
                    arg=0,
                )
            if axis >= len(tshape):
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`slice_like`: axis {a} is out of range for shape_like of rank {len(tshape)}",
                    arg=1,
                )
            chosen.append(axis)
    for axis in chosen:
        want, have = tshape[axis], dshape[axis]
        if type(want) is int and type(have) is int and want > have:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`slice_like` cannot take {want} elements along axis {axis}, where the data has {have}",
                arg=1,
                notes=[f"the data is {shape_text(dshape)}, shape_like is {shape_text(tshape)}"],
            )
        out[axis] = want
    return tuple(out)


class _Raise:
    """A relation's `fail` for the shape helpers a kernel shares: a failure is a KernelError."""

    def __init__(self, op: str) -> None:
        self.op = op

    def fail(self, code: str, message: str, arg: int | None = None, notes: Notes = (), label: str = "") -> NoReturn:
        raise KernelError(codes.RUNTIME_ERROR, "; ".join([f"{self.op}: {message}", *notes]))


@relation("SliceLike", inputs=2)
def slice_like_rel(r: Relation) -> bool:
    x, like = r.tensor(0), r.tensor(1)
    if not (known_rank(x.shape) and known_rank(like.shape)):
        return False
    r.set_result(TensorType(slice_like_shape(r, x.shape, like.shape, r.attrs["axes"]), x.dtype))
    return True


@register(
    "slice_like",
    inputs=2,
    relation=slice_like_rel,
    attrs=(Attr("axes", "opt_ints", None),),
    doc="The leading part of the data with the sizes of the second input along the given axes.",
)
def slice_like(args: Args, attrs: Attrs) -> Value:
    x, like = args
    shape = slice_like_shape(_Raise("slice_like"), x.shape, like.shape, attrs["axes"])
    return np.array(x[tuple(slice(0, n) for n in shape)])


# ---------------------------------------------------------------- reshape_like


def _span(r: CanFail, begin: int, end: int | None, rank: int, names: tuple[str, str], arg: int) -> tuple[int, int]:
    b = begin + rank if begin < 0 else begin
    e = rank if end is None else (end + rank if end < 0 else end)
    if not 0 <= b <= e <= rank:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`reshape_like`: {names[0]}={begin} and {names[1]}={end} do not give a range of axes of a tensor of rank "
            f"{rank}",
            arg=arg,
        )
    return b, e


def reshape_like_shape(r: CanFail, dshape: Dims, tshape: Dims, attrs: Attrs) -> Dims:
    lb, le = _span(r, attrs["lhs_begin"], attrs["lhs_end"], len(dshape), ("lhs_begin", "lhs_end"), 0)
    rb, re = _span(r, attrs["rhs_begin"], attrs["rhs_end"], len(tshape), ("rhs_begin", "rhs_end"), 1)
    return tuple(dshape[:lb]) + tuple(tshape[rb:re]) + tuple(dshape[le:])


def _count(shape: Shape) -> int | None:
    n = 1
    for d in shape:
        if type(d) is not int:
            return None
        n *= d
    return n


@relation("ReshapeLike", inputs=2)
def reshape_like_rel(r: Relation) -> bool:
    x, like = r.tensor(0), r.tensor(1)
    if not (known_rank(x.shape) and known_rank(like.shape)):
        return False
    shape = reshape_like_shape(r, x.shape, like.shape, r.attrs)
    have, get = _count(x.shape), _count(shape)
    if have is not None and get is not None and have != get:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`reshape_like` cannot reshape {shape_text(x.shape)} ({have} elements) into {shape_text(shape)} ({get} "
            "elements)",
            arg=1,
            notes=["reshape keeps the number of elements"],
        )
    r.set_result(TensorType(shape, x.dtype))
    return True


@register(
    "reshape_like",
    inputs=2,
    relation=reshape_like_rel,
    attrs=(
        Attr("lhs_begin", "int", 0),
        Attr("lhs_end", "opt_int", None),
        Attr("rhs_begin", "int", 0),
        Attr("rhs_end", "opt_int", None),
    ),
    doc="Reshape the data, taking a range of its axes' sizes from the second input.",
)
def reshape_like(args: Args, attrs: Attrs) -> Value:
    x, like = args
    shape = reshape_like_shape(_Raise("reshape_like"), x.shape, like.shape, attrs)
    if _count(shape) != x.size:
        raise KernelError(codes.RUNTIME_ERROR, f"reshape_like: cannot reshape {x.shape} into {shape}")
    return np.reshape(x, shape).copy()


# ---------------------------------------------------------------- collapse_sum


def check_collapse(r: Relation, dshape: Dims, tshape: Dims, arg: int) -> None:
    """`tshape` broadcasts to `dshape` (TVM: Broadcast(data, target) = data)."""
    if len(tshape) > len(dshape):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` cannot collapse {shape_text(dshape)} to {shape_text(tshape)}, which has more axes",
            arg=arg,
        )
    offset = len(dshape) - len(tshape)
    for k, t in enumerate(tshape):
        d = dshape[offset + k]
        if type(t) is int and type(d) is int and t != d and t != 1:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`{r.op}` cannot collapse {shape_text(dshape)} to {shape_text(tshape)}",
                arg=arg,
                notes=[
                    f"axis {k} of the target has size {t}, the data's axis {offset + k} has {d}; a target axis must "
                    "be 1 or match the data (aligned from the right)"
                ],
            )


@relation("CollapseSumLike", inputs=2)
def collapse_sum_like_rel(r: Relation) -> bool:
    x, like = r.tensor(0), r.tensor(1)
    r.unify(
        x.dtype,
        like.dtype,
        arg=1,
        message="`collapse_sum_like` needs tensors of one dtype: the data is `{expected}`, the target `{found}`",
    )
    r.set_result(r.tensor(1))
    if not (known_rank(x.shape) and known_rank(like.shape)):
        return False
    check_collapse(r, x.shape, like.shape, 1)
    return True


def collapse_sum(x: Any, target: Shape) -> Any:
    """TOPI's collapse_sum: sum away the axes that the target lacks or has as 1."""
    if len(target) > x.ndim:
        raise KernelError(codes.RUNTIME_ERROR, f"collapse_sum: cannot collapse {x.shape} to {target}")
    reduce, drop = [], []
    o = len(target) - 1
    for i in range(x.ndim - 1, -1, -1):
        if o >= 0 and x.shape[i] == target[o]:
            o -= 1
            continue
        reduce.append(i)
        if o < 0:
            drop.append(i)
        elif target[o] == 1:
            o -= 1
    out = np.sum(x, axis=tuple(reduce), keepdims=True, dtype=x.dtype) if reduce else x.copy()
    out = np.squeeze(out, axis=tuple(drop)) if drop else out
    if out.shape != tuple(target):
        raise KernelError(codes.RUNTIME_ERROR, f"collapse_sum: cannot collapse {x.shape} to {tuple(target)}")
    return np.asarray(out)


@register(
    "collapse_sum_like",
    inputs=2,
    relation=collapse_sum_like_rel,
    doc="Sum the data down to the shape of the second input (the inverse of broadcasting).",
)
def collapse_sum_like(args: Args, attrs: Attrs) -> Value:
    x, like = args
    return collapse_sum(x, like.shape)


def _collapse_sum_to_default(r: Relation) -> bool:
    """The target shape from a constant without metadata, with the shape attribute
    TVM sets from it: an int32 vector of that length (relay.collapse_sum_to's constant)."""
    shape = r.attrs["shape"]
    return shape is not None and assume(r, 1, TensorType((len(shape),), "int32"))


@relation("CollapseSumTo", inputs=2, default=_collapse_sum_to_default)
def collapse_sum_to_rel(r: Relation) -> bool:
    require_int(r, 1, "the target shape")
    require_rank(r, 1, (1,), "the target shape")
    x, target = r.tensor(0), r.tensor(1)
    if not known_rank(target.shape):
        return False
    n = target.shape[0]
    if is_unknown(n):
        return False
    if type(n) is not int:
        r.fail(
            codes.SHAPE_MISMATCH,
            "`collapse_sum_to` needs a target shape of static length, found a vector of size "
            f"{shape_text(target.shape)}",
            arg=1,
        )
    given = r.attrs["shape"]
    if given is not None and len(given) != n:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`collapse_sum_to`: the shape attribute {list(given)} has {len(given)} sizes, the target shape vector {n}",
            arg=1,
        )
    shape = tuple(given) if given is not None else (AnyDim(),) * n
    r.set_result(TensorType(shape, x.dtype))
    if not known_rank(x.shape):
        return False
    check_collapse(r, x.shape, shape, 1)
    return True


@register(
    "collapse_sum_to",
    inputs=2,
    relation=collapse_sum_to_rel,
    attrs=(Attr("shape", "opt_ints", None), Attr("dtype", "opt_dtype", "")),
    doc="Sum the data down to a target shape given as a vector (the inverse of broadcasting).",
)
def collapse_sum_to(args: Args, attrs: Attrs) -> Value:
    x, target = args
    shape = tuple(int(v) for v in target.astype(np.int64))
    if attrs["shape"] is not None and tuple(attrs["shape"]) != shape:
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"collapse_sum_to: the target vector {list(shape)} differs from the shape attribute {list(attrs['shape'])}",
        )
    return collapse_sum(x, shape)


# ---------------------------------------------------------------- contrib_reverse_reshape


class _FromTheRight:
    """A Relation for `reshape_dims` run on reversed shapes: its failures
    are reported on the shapes as written."""

    def __init__(self, r: CanFail, ishape: Dims, newshape: Shape) -> None:
        self.r, self.ishape, self.newshape = r, ishape, newshape

    def fail(self, code: str, message: str, arg: int | None = None, notes: Notes = (), label: str = "") -> NoReturn:
        self.r.fail(
            codes.SHAPE_MISMATCH,
            f"`contrib_reverse_reshape` cannot reshape {shape_text(self.ishape)} with newshape {list(self.newshape)}",
            arg=0,
            notes=[
                f"read from the right, the input is {shape_text(self.ishape[::-1])} and newshape "
                f"{list(self.newshape[::-1])}: {message}",
                *notes,
            ],
        )


def reverse_reshape_dims(r: CanFail, ishape: Dims, newshape: Dims, allowzero: bool) -> Dims:
    out = reshape_dims(_FromTheRight(r, ishape, newshape), tuple(ishape)[::-1], tuple(newshape)[::-1], allowzero)
    return tuple(out)[::-1]


@relation("ReverseReshape", inputs=1)
def reverse_reshape_rel(r: Relation) -> bool:
    x = r.tensor(0)
    newshape = tuple(r.attrs["newshape"])
    if not known_rank(x.shape) or any(is_unknown(d) for d in x.shape):
        if all(v > 0 for v in newshape):
            r.set_result(TensorType(newshape, x.dtype))
        return False
    r.set_result(TensorType(reverse_reshape_dims(r, x.shape, newshape, r.attrs["allowzero"]), x.dtype))
    return True


@register(
    "contrib_reverse_reshape",
    inputs=1,
    relation=reverse_reshape_rel,
    attrs=(Attr("newshape", "ints"), Attr("allowzero", "bool", False)),
    doc="`reshape` with newshape's special values applied from the right.",
)
def contrib_reverse_reshape(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    return np.reshape(
        x,
        reverse_reshape_dims(_Raise("contrib_reverse_reshape"), x.shape, tuple(attrs["newshape"]), attrs["allowzero"]),
    ).copy()
