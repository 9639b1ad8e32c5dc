"""`strided_slice`: a box of a tensor, with steps, as TVM defines it.

`strided_slice(data, begin=[...], end=[...], strides=[...], axes=None,
slice_mode="end")`. Without `axes`, `begin`, `end` and `strides` apply to
the first axes in order (missing strides are 1; a missing begin is the
first element, or the last when the stride is negative; a missing end is
past the last element, or - TVM's choice - element 0 when the stride is
negative). With `axes`, they apply to the listed axes and the others are
kept whole.

Indices are normalized like Python's slices: a negative index counts from
the end, and after that every index is clamped into the axis (to -1 ...
size - 1 for a negative stride), so out-of-range ends are allowed. The
length of an axis is `ceil((end - begin) / stride)`, or 0.

With `slice_mode="size"`, `end` holds sizes instead (-1: to the end of the
axis) and strides are ignored.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from ..registry import Attr, register
from ..relations import Relation, known_rank, normalize_axis, relation
from ..types import Args, Attrs, Shape, Value

BIG = 2**63 - 1


def _canonical(index: int, extent: int, stride: int) -> int:
    lo, hi = (-1, extent - 1) if stride < 0 else (0, extent)
    if index < 0:
        index += extent
    return min(max(index, lo), hi)


def slice_plan(shape: Shape, attrs: Attrs) -> list[tuple[int, int, int, int]] | str:
    """(axis, begin, end, stride) for every sliced axis, canonical; or an error message.

    Dimensions that are not ints must not be sliced (the caller checks)."""
    begin, end = list(attrs["begin"]), list(attrs["end"])
    strides = list(attrs["strides"] or (1,))
    axes = attrs["axes"]
    mode = attrs["slice_mode"]
    if mode not in ("end", "size"):
        return f'slice_mode must be "end" or "size", found "{mode}"'
    rank = len(shape)
    if axes is None:
        if len(begin) > rank or len(end) > rank or len(strides) > rank:
            return f"begin, end and strides may have at most {rank} values for a tensor of rank {rank}"
        axes = list(range(rank))
    else:
        if len(begin) != len(axes) or len(end) != len(axes):
            return f"with axes {list(axes)}, begin and end need {len(axes)} values each"
        if not all(-rank <= a < rank for a in axes):
            return f"axes {list(axes)} are out of range for a tensor of rank {rank}"
        axes = [a % rank for a in axes]
        if len(set(axes)) != len(axes):
            return f"axes {list(attrs['axes'])} name an axis twice"
    plan = []
    for k, axis in enumerate(axes):
        s = 1 if mode == "size" else (strides[k] if k < len(strides) else 1)
        if s == 0:
            return "a stride cannot be 0"
        b = begin[k] if k < len(begin) else (0 if s > 0 else BIG)
        if mode == "size":
            size = end[k] if k < len(end) else -1
            e = BIG if size < 0 else b + size if b >= 0 or b + size < 0 else BIG
        else:
            e = end[k] if k < len(end) else (BIG if s > 0 else 0)
        plan.append((axis, b, e, s))
    return plan


def _length(begin: int, end: int, stride: int) -> int:
    if stride > 0:
        return max(0, -((begin - end) // stride))
    return max(0, -((end - begin) // -stride))


@relation("StridedSlice")
def strided_slice_rel(r: Relation) -> bool:
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    plan = slice_plan(x.shape, r.attrs)
    if isinstance(plan, str):
        r.fail(codes.SHAPE_MISMATCH, f"`strided_slice`: {plan}", arg=0)
    shape = list(x.shape)
    for axis, b, e, s in plan:
        extent = x.shape[axis]
        if type(extent) is not int:
            shape[axis] = AnyDim()
            continue
        shape[axis] = _length(_canonical(b, extent, s), _canonical(e, extent, s), s)
    r.set_result(TensorType(tuple(shape), x.dtype))
    return True


@register(
    "strided_slice",
    inputs=1,
    relation=strided_slice_rel,
    attrs=(
        Attr("begin", "ints"),
        Attr("end", "ints"),
        Attr("strides", "opt_ints", (1,)),
        Attr("axes", "opt_ints", None),
        Attr("slice_mode", "str", "end"),
    ),
    doc="Elements from begin up to (not including) end with the given strides, per axis.",
)
def strided_slice(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    plan = slice_plan(x.shape, attrs)
    assert not isinstance(plan, str), plan  # the type checker reported it before anything ran
    index: list[Any] = [slice(None)] * x.ndim
    for axis, b, e, s in plan:
        extent = x.shape[axis]
        cb, ce = _canonical(b, extent, s), _canonical(e, extent, s)
        if cb < 0:  # a negative stride from before the first element: nothing (Python would read -1 as the last)
            index[axis] = slice(0, 0)
        else:
            index[axis] = slice(cb, ce if ce >= 0 else None, s)
    return x[tuple(index)].copy()


__all__ = ["normalize_axis", "slice_plan"]
