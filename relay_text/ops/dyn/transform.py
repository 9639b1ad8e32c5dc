"""The `dyn.*` operators: shape operators whose shape, axes or bounds are tensors.

Each takes as an input tensor what its static twin takes as an attribute,
so that a program can compute it (typically from `shape_of`):

    dyn.reshape(data, newshape, allowzero=False)
    dyn.broadcast_to(data, shape)
    dyn.tile(data, reps)
    dyn.zeros(shape, dtype="float32"), dyn.ones(shape, dtype="float32")
    dyn.full(fill_value, shape, dtype="")
    dyn.expand_dims(data, axis, num_newaxis=1)
    dyn.squeeze(data, axes)
    dyn.strided_slice(data, begin, end, strides, slice_mode="end")

Shapes, reps, axes and bounds are vectors (`axis` is a scalar) of any dtype,
as TVM's relations do not look at it (its tests pass `reps` as float32):
the values, known only when the program runs, are converted to integers
(floats truncated). So the result's sizes are `?`. Its rank, though, must be known when the types are checked, as TVM
requires (src/relay/op/dyn/tensor/transform.cc): it is the length of the
shape vector (`dyn.reshape`, `dyn.broadcast_to`, `dyn.zeros`, ...), the
larger of the data's rank and the length of `reps` (`dyn.tile`), the data's
rank plus `num_newaxis` (`dyn.expand_dims`) or minus the number of axes
(`dyn.squeeze`); `dyn.strided_slice` slices the leading `len(begin)` axes
and keeps the sizes of the others.

When the program runs, the values mean what the static operators' attributes
mean (the static kernels do the work), with TVM's limits: `dyn.reshape`
takes the special values 0, -1 and -3 but not -2 nor -4 (they would change
the rank); sizes may not be negative, `reps` must be positive, axes must
be in range and distinct, and squeezed axes must have size 1. A value
breaking these is an error when the program runs. The attributes TVM's
structures also carry (`newshape`, `shape`, `reps`, `axis`, `begin`, ...)
are accepted and ignored, as TVM ignores them.
"""

from __future__ import annotations

import math
from typing import Any

from ... import limits
from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from .._checks import result_rank_within_limit
from .._np import np
from ..tensor.layout import tile
from ..registry import Attr, KernelError, register
from ..relations import Relation, is_unknown, known_rank, relation, shape_text
from ..tensor.shapes import numpy_dtype
from ..tensor.slicing import slice_plan, strided_slice
from ..tensor.creation import full
from ..tensor.transform import expand_dims, reshape, squeeze
from ..types import Args, Attrs, Dims, Value

MAX_ELEMENTS = 2**31

# ---------------------------------------------------------------- relations


def vector_length(r: Relation, i: int, what: str) -> int | None:
    """The length of input i, a vector; None while it is unknown."""
    t = r.tensor(i)
    if not known_rank(t.shape):
        return None
    if len(t.shape) != 1:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` takes {what} as a vector, found a tensor of shape {shape_text(t.shape)}",
            arg=i,
        )
    n = t.shape[0]
    if is_unknown(n):
        return None
    if type(n) is not int:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` needs the length of {what} before the program runs, found a vector of shape "
            f"{shape_text(t.shape)}",
            arg=i,
            notes=["it gives the rank of the result, which TVM requires to be known"],
        )
    return n


def _count(n: int) -> str:
    return f"{n} value" if n == 1 else f"{n} values"


def _unknown(n: int) -> Dims:
    return (AnyDim(),) * n


@relation("DynamicReshape", inputs=2)
def reshape_rel(r: Relation) -> bool:
    x = r.tensor(0)
    n = vector_length(r, 1, "the new shape")
    if n is None:
        return False
    r.set_result(TensorType(_unknown(n), x.dtype))
    return True


@relation("DynamicBroadCastTo", inputs=2)
def broadcast_to_rel(r: Relation) -> bool:
    x = r.tensor(0)
    n = vector_length(r, 1, "the shape")
    if n is None:
        return False
    if known_rank(x.shape) and len(x.shape) > n:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` cannot broadcast a tensor of rank {len(x.shape)} to a shape of {n} dimensions",
            arg=0,
        )
    r.set_result(TensorType(_unknown(n), x.dtype))
    return True


@relation("DynamicTile", inputs=2)
def tile_rel(r: Relation) -> bool:
    x = r.tensor(0)
    n = vector_length(r, 1, "reps")
    if n is None or not known_rank(x.shape):
        return False
    r.set_result(TensorType(_unknown(max(n, len(x.shape))), x.dtype))
    return True


@relation("DynamicInitOp", inputs=1)
def init_rel(r: Relation) -> bool:
    n = vector_length(r, 0, "the shape")
    if n is None:
        return False
    r.set_result(TensorType(_unknown(n), r.attrs["dtype"]))
    return True


@relation("DynamicFull", inputs=2)
def full_rel(r: Relation) -> bool:
    fill = r.tensor(0)
    if known_rank(fill.shape) and fill.shape != ():
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` takes a scalar fill value, found a tensor of shape {shape_text(fill.shape)}",
            arg=0,
        )
    n = vector_length(r, 1, "the shape")
    if n is None:
        return False
    r.set_result(TensorType(_unknown(n), r.attrs["dtype"] or fill.dtype))
    return True


@relation("DynamicExpandDims", inputs=2)
def expand_dims_rel(r: Relation) -> bool:
    x = r.tensor(0)
    axis = r.tensor(1)
    if known_rank(axis.shape) and axis.shape != ():
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` takes the axis as a scalar, found a tensor of shape {shape_text(axis.shape)}",
            arg=1,
        )
    k = r.attrs["num_newaxis"]
    if k < 0:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}`: num_newaxis must not be negative, found {k}")
    if not known_rank(x.shape):
        return False
    result_rank_within_limit(r, len(x.shape) + k)
    r.set_result(TensorType(_unknown(len(x.shape) + k), x.dtype))
    return True


@relation("DynSqueeze", inputs=2)
def squeeze_rel(r: Relation) -> bool:
    x = r.tensor(0)
    n = vector_length(r, 1, "the axes")
    if n is None or not known_rank(x.shape):
        return False
    if n > len(x.shape):
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` cannot remove {n} axes from a tensor of rank {len(x.shape)}", arg=1)
    r.set_result(TensorType(_unknown(len(x.shape) - n), x.dtype))
    return True


@relation("DynStridedSlice", inputs=4)
def strided_slice_rel(r: Relation) -> bool:
    x = r.tensor(0)
    mode = r.attrs["slice_mode"]
    if mode not in ("end", "size"):
        r.fail(codes.TYPE_MISMATCH, f'`{r.op}`: slice_mode must be "end" or "size", found "{mode}"')
    lengths = [vector_length(r, i, what) for i, what in ((1, "begin"), (2, "end"), (3, "strides"))]
    n = lengths[0]
    if n is None or not known_rank(x.shape):
        return False
    rank = len(x.shape)
    if n > rank:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}`: begin has {_count(n)}, more than the data's rank {rank}", arg=1)
    for i, (what, m) in enumerate((("end", lengths[1]), ("strides", lengths[2])), 2):
        if m is not None and m != n:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`{r.op}`: {what} has {_count(m)} but begin has {_count(n)}; they need one per sliced axis each",
                arg=i,
            )
    r.set_result(TensorType(_unknown(n) + tuple(x.shape[n:]), x.dtype))
    return None not in lengths


# ---------------------------------------------------------------- kernels


def _values(v: Any) -> list[int]:
    """The elements of a shape, axes or bounds tensor as ints (floats truncated)."""
    flat = np.asarray(v).reshape(-1)
    if flat.dtype.kind == "f" and not np.isfinite(flat).all():
        raise KernelError(
            codes.RUNTIME_ERROR, f"{flat.tolist()} holds a value that is not a finite number, where integers are needed"
        )
    return [int(a) for a in flat.tolist()]


def _sizes(name: str, v: Any, itemsize: int | None = None) -> tuple[int, ...]:
    """A shape given as a tensor; with `itemsize`, the shape of a tensor
    about to be allocated, checked against the run's memory limit."""
    shape = tuple(_values(v))
    if any(d < 0 for d in shape):
        raise KernelError(codes.RUNTIME_ERROR, f"`{name}`: a shape cannot have negative sizes, found {list(shape)}")
    if itemsize is not None:
        limits.check_allocation(math.prod(shape), itemsize, f"the result of `{name}` (shape {list(shape)})")
    if math.prod(shape) > MAX_ELEMENTS:
        raise KernelError(codes.RUNTIME_ERROR, f"`{name}`: shape {list(shape)} has more than {MAX_ELEMENTS} elements")
    return shape


_SHAPE_ATTRS = (Attr("shape", "opt_ints", None),)


@register(
    "dyn.reshape",
    inputs=2,
    relation=reshape_rel,
    attrs=(Attr("newshape", "opt_ints", None), Attr("allowzero", "bool", False)),
    doc="reshape with the new shape given as a tensor (special values 0, -1, -3).",
)
def dyn_reshape(args: Args, attrs: Attrs) -> Value:
    x, newshape = args
    values = _values(newshape)
    bad = [v for v in values if v < -3 or v == -2]
    if bad:
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"`dyn.reshape`: {bad[0]} is not a valid value in newshape {values}; only sizes, 0, -1 and -3 are",
        )
    return reshape((x,), {"newshape": tuple(values), "allowzero": attrs["allowzero"]})


@register(
    "dyn.broadcast_to",
    inputs=2,
    relation=broadcast_to_rel,
    attrs=(*_SHAPE_ATTRS, Attr("dtype", "opt_dtype", "")),
    doc="broadcast_to with the target shape given as a tensor.",
)
def dyn_broadcast_to(args: Args, attrs: Attrs) -> Value:
    x, shape = args
    target = _sizes("dyn.broadcast_to", shape, x.dtype.itemsize)
    try:
        return np.array(np.broadcast_to(x, target))
    except ValueError:
        raise KernelError(
            codes.RUNTIME_ERROR, f"`dyn.broadcast_to` cannot broadcast {list(x.shape)} to {list(target)}"
        ) from None


@register(
    "dyn.tile",
    inputs=2,
    relation=tile_rel,
    attrs=(Attr("reps", "opt_ints", None),),
    doc="tile with the repetitions given as a tensor.",
)
def dyn_tile(args: Args, attrs: Attrs) -> Value:
    x, reps = args
    values = tuple(_values(reps))
    if any(v < 1 for v in values):
        raise KernelError(codes.RUNTIME_ERROR, f"`dyn.tile`: reps must be positive, found {list(values)}")
    limits.check_allocation(x.size * math.prod(values), x.dtype.itemsize, "the result of `dyn.tile`")
    if x.size * math.prod(values) > MAX_ELEMENTS:
        raise KernelError(codes.RUNTIME_ERROR, f"`dyn.tile`: the result would have more than {MAX_ELEMENTS} elements")
    return tile((x,), {"reps": values})


_INIT_ATTRS = (*_SHAPE_ATTRS, Attr("dtype", "dtype", "float32"))


@register("dyn.zeros", inputs=1, relation=init_rel, attrs=_INIT_ATTRS, doc="zeros with the shape given as a tensor.")
def dyn_zeros(args: Args, attrs: Attrs) -> Value:
    dtype = numpy_dtype("dyn.zeros", attrs["dtype"])
    return np.zeros(_sizes("dyn.zeros", args[0], np.dtype(dtype).itemsize), dtype=dtype)


@register("dyn.ones", inputs=1, relation=init_rel, attrs=_INIT_ATTRS, doc="ones with the shape given as a tensor.")
def dyn_ones(args: Args, attrs: Attrs) -> Value:
    dtype = numpy_dtype("dyn.ones", attrs["dtype"])
    return np.ones(_sizes("dyn.ones", args[0], np.dtype(dtype).itemsize), dtype=dtype)


@register(
    "dyn.full",
    inputs=2,
    relation=full_rel,
    attrs=(*_SHAPE_ATTRS, Attr("dtype", "opt_dtype", "")),
    doc="full with the shape given as a tensor (dtype: the fill value's unless given).",
)
def dyn_full(args: Args, attrs: Attrs) -> Value:
    fill, shape = args
    itemsize = fill.dtype.itemsize
    if attrs["dtype"]:
        itemsize = np.dtype(numpy_dtype("dyn.full", attrs["dtype"])).itemsize
    return full((fill,), {"shape": _sizes("dyn.full", shape, itemsize), "dtype": attrs["dtype"]})


@register(
    "dyn.expand_dims",
    inputs=2,
    relation=expand_dims_rel,
    attrs=(Attr("num_newaxis", "int", 1),),
    doc="expand_dims with the axis given as a scalar tensor.",
)
def dyn_expand_dims(args: Args, attrs: Attrs) -> Value:
    x, axis_value = args
    axis = _values(axis_value)[0]
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise KernelError(
            codes.RUNTIME_ERROR, f"`dyn.expand_dims`: axis {axis} is out of range for a tensor of rank {x.ndim}"
        )
    return expand_dims((x,), {"axis": axis, "num_newaxis": attrs["num_newaxis"]})


@register(
    "dyn.squeeze",
    inputs=2,
    relation=squeeze_rel,
    attrs=(Attr("axis", "opt_ints", None),),
    doc="squeeze with the axes given as a tensor.",
)
def dyn_squeeze(args: Args, attrs: Attrs) -> Value:
    x, axes = args
    values = _values(axes)
    if not all(-x.ndim <= a < x.ndim for a in values):
        raise KernelError(
            codes.RUNTIME_ERROR, f"`dyn.squeeze`: axes {values} are out of range for a tensor of rank {x.ndim}"
        )
    normal = [a % x.ndim for a in values]
    if len(set(normal)) != len(normal):
        raise KernelError(codes.RUNTIME_ERROR, f"`dyn.squeeze`: axes {values} name an axis twice")
    wide = [a for a in values if x.shape[a] != 1]
    if wide:
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"`dyn.squeeze` can only remove axes of size 1, but axis {wide[0]} has size {x.shape[wide[0]]}",
        )
    return squeeze((x,), {"axis": tuple(values)})


@register(
    "dyn.strided_slice",
    inputs=4,
    relation=strided_slice_rel,
    attrs=(
        Attr("begin", "opt_ints", None),
        Attr("end", "opt_ints", None),
        Attr("strides", "opt_ints", None),
        Attr("slice_mode", "str", "end"),
        Attr("axes", "opt_ints", None),
    ),
    doc="strided_slice of the leading axes with begin, end and strides given as tensors.",
)
def dyn_strided_slice(args: Args, attrs: Attrs) -> Value:
    x, begin, end, strides = args
    plan_attrs = {
        "begin": tuple(_values(begin)),
        "end": tuple(_values(end)),
        "strides": tuple(_values(strides)),
        "axes": None,
        "slice_mode": attrs["slice_mode"],
    }
    problem = slice_plan(x.shape, plan_attrs)
    if isinstance(problem, str):
        raise KernelError(codes.RUNTIME_ERROR, f"`dyn.strided_slice`: {problem}")
    return strided_slice((x,), plan_attrs)
