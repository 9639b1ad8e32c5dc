"""Shape and data movement: reshapes, transposes, joins and splits, slices,
gathers and scatters, fills, tiling.

Where the checker knows the result's shape, reshaping operators become one
`Reshape` to that shape (TVM's special values 0, -1, -2, -3, -4 are
resolved already).
"""

from __future__ import annotations

from typing import Any

from ..graph import onnx_dtype, static_shape
from . import OpContext, Unsupported, converter, norm_axis, select

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


@converter("reshape", "reshape_like", "contrib_reverse_reshape", "squeeze", "expand_dims")
def reshape(cx: OpContext, x: str, *rest: str) -> str:
    if static_shape(cx.out_type) is not None:
        return cx.to_out_shape(x)
    # A dimension known only at run time: the operators whose meaning does
    # not need the shape.
    if cx.name == "expand_dims":
        axis = norm_axis(int(cx.attrs["axis"]), cx.rank(0) + 1)
        return cx.unsqueeze(x, range(axis, axis + int(cx.attrs["num_newaxis"])))
    if cx.name == "squeeze" and cx.attrs["axis"] is not None:
        return cx.squeeze(x, sorted(norm_axis(int(a), cx.rank(0)) for a in cx.attrs["axis"]))
    if cx.name == "reshape" and not cx.attrs["allowzero"]:
        newshape = [int(d) for d in cx.attrs["newshape"]]
        # 0 (copy the input's dimension) and -1 (the rest) mean in ONNX's
        # Reshape what they mean in Relay's; -2, -3 and -4 have no equivalent.
        if all(d >= -1 for d in newshape) and newshape.count(-1) <= 1:
            return cx.node("Reshape", [x, cx.ints(newshape)])
    raise Unsupported(f"the shape of the result is not static ({cx.out_type})")


@converter("dyn.reshape")
def dyn_reshape(cx: OpContext, x: str, shape: str) -> str:
    if static_shape(cx.out_type) is not None:
        return cx.to_out_shape(x)
    if cx.attrs["allowzero"]:  # a 0 in the shape is a dimension of size 0 (Reshape's allowzero, opset 14)
        if cx.opset < 14:
            raise Unsupported("a reshape with allowzero needs opset 14")
        return cx.node("Reshape", [x, cx.cast(shape, "int64")], allowzero=1)
    return cx.node("Reshape", [x, cx.cast(shape, "int64")])


@converter("transpose")
def transpose(cx: OpContext, x: str) -> str:
    rank = cx.rank(0)
    axes = cx.attrs["axes"]
    perm = list(reversed(range(rank))) if not axes else [norm_axis(int(a), rank) for a in axes]
    return cx.node("Transpose", [x], perm=perm)


@converter("concatenate")
def concatenate(cx: OpContext, xs: tuple[str, ...]) -> str:
    rank = cx.rank_of(cx.field_types(0)[0])
    return cx.node("Concat", list(xs), axis=norm_axis(int(cx.attrs["axis"]), rank))


@converter("stack")
def stack(cx: OpContext, xs: tuple[str, ...]) -> str:
    rank = cx.rank_of(cx.field_types(0)[0]) + 1
    axis = norm_axis(int(cx.attrs["axis"]), rank)
    return cx.node("Concat", [cx.unsqueeze(x, [axis]) for x in xs], axis=axis)


@converter("split")
def split(cx: OpContext, x: str) -> tuple[str, ...]:
    axis = norm_axis(int(cx.attrs["axis"]), cx.rank(0))
    shapes = [f.shape for f in cx.out_fields()]
    sizes = [s[axis] if isinstance(s, tuple) else None for s in shapes]
    static = [s for s in sizes if isinstance(s, int)]
    if len(static) != len(sizes):
        raise Unsupported("the sizes of the parts are not static")
    if len(static) == 1:
        return (cx.node("Identity", [x]),)
    out = cx.multi_node("Split", [x, cx.ints(static)], len(static), axis=axis)
    return tuple(out)


@converter("take")
def take(cx: OpContext, x: str, indices: str) -> str:
    if int(cx.attrs["batch_dims"]) != 0:
        raise Unsupported("batch_dims other than 0")
    axis = cx.attrs["axis"]
    if axis is None:
        x = cx.reshape(x, [-1])
        axis = 0
        extent = 1
        for d in cx.shape(0):
            extent *= d
    else:
        axis = norm_axis(int(axis), cx.rank(0))
        extent = cx.shape(0)[axis]
    idx = cx.cast(indices, "int64")
    mode = cx.attrs["mode"]
    if mode == "clip":
        idx = cx.node("Clip", [idx, cx.scalar(0, "int64"), cx.scalar(max(extent - 1, 0), "int64")])
    elif mode == "wrap":
        idx = cx.node("Mod", [idx, cx.scalar(extent, "int64")], fmod=0)
    return cx.node("Gather", [x, idx], axis=axis)


@converter("gather")
def gather(cx: OpContext, x: str, indices: str) -> str:
    axis = norm_axis(int(cx.attrs["axis"] or 0), cx.rank(0))
    return cx.node("GatherElements", [x, cx.cast(indices, "int64")], axis=axis)


@converter("gather_nd")
def gather_nd(cx: OpContext, x: str, indices: str) -> str:
    rank = cx.rank(1)
    idx = cx.node("Transpose", [cx.cast(indices, "int64")], perm=[*list(range(1, rank)), 0])
    return cx.node("GatherND", [x, idx], batch_dims=int(cx.attrs["batch_dims"]))


@converter("strided_slice")
def strided_slice(cx: OpContext, x: str) -> str:
    from ...ops.tensor.slicing import _canonical, slice_plan

    shape = cx.shape(0)
    plan = slice_plan(shape, cx.attrs)
    if isinstance(plan, str):
        raise Unsupported(plan)
    starts, ends, axes, steps = [], [], [], []
    for axis, b, e, s in plan:
        extent = shape[axis]
        cb, ce = _canonical(b, extent, s), _canonical(e, extent, s)
        starts.append(cb)
        ends.append(ce if ce >= 0 else INT64_MIN)
        axes.append(axis)
        steps.append(s)
    if not axes:
        return cx.node("Identity", [x])
    return cx.node("Slice", [x, cx.ints(starts), cx.ints(ends), cx.ints(axes), cx.ints(steps)])


@converter("slice_like")
def slice_like(cx: OpContext, x: str, like: str) -> str:
    out = cx.out_shape
    axes = list(range(len(out)))
    return cx.node("Slice", [x, cx.ints([0] * len(out)), cx.ints(out), cx.ints(axes)])


@converter("broadcast_to", "broadcast_to_like", "collapse_sum_like", "collapse_sum_to")
def broadcast_to(cx: OpContext, x: str, *rest: str) -> str:
    if cx.name.startswith("collapse_sum"):
        return _collapse_sum(cx, x)
    return cx.node("Expand", [x, cx.ints(cx.out_shape)])


def _collapse_sum(cx: OpContext, x: str) -> str:
    shape, out = cx.shape(0), cx.out_shape
    lead = len(shape) - len(out)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(out) if d == 1 and shape[lead + i] != 1]
    y = cx.reduce("ReduceSum", x, axes, True) if axes else x
    return cx.reshape(y, out)


@converter("full")
def full(cx: OpContext, value: str, *rest: str) -> str:
    return cx.node("Expand", [cx.cast(value, cx.out_dtype), cx.ints(cx.out_shape)])


@converter("zeros", "ones")
def zeros(cx: OpContext, *rest: str) -> str:
    value = cx.scalar(0 if "zeros" in cx.name else 1, _np(cx.out_dtype))
    return cx.node("Expand", [value, cx.ints(cx.out_shape)])


@converter("full_like")
def full_like(cx: OpContext, x: str, value: str) -> str:
    return cx.node("Expand", [cx.cast(value, cx.out_dtype), cx.node("Shape", [x])])


@converter("tile")
def tile(cx: OpContext, x: str, *rest: str) -> str:
    shape, out = cx.shape(0), cx.out_shape
    rank = len(out)
    x = cx.reshape(x, [1] * (rank - len(shape)) + list(shape)) if rank > len(shape) else x
    full_shape = [1] * (rank - len(shape)) + list(shape)
    reps = [o // s if s else 0 for o, s in zip(out, full_shape, strict=False)]
    return cx.node("Tile", [x, cx.ints(reps)])


@converter("repeat")
def repeat(cx: OpContext, x: str) -> str:
    shape = cx.shape(0)
    axis = norm_axis(int(cx.attrs["axis"]), len(shape))
    n = int(cx.attrs["repeats"])
    y = cx.unsqueeze(x, [axis + 1])
    expanded = [*list(shape[: axis + 1]), n, *list(shape[axis + 1 :])]
    y = cx.node("Expand", [y, cx.ints(expanded)])
    return cx.to_out_shape(y)


@converter("reverse")
def reverse(cx: OpContext, x: str) -> str:
    axis = norm_axis(int(cx.attrs["axis"] or 0), cx.rank(0))
    return cx.node("Slice", [x, cx.ints([-1]), cx.ints([INT64_MIN]), cx.ints([axis]), cx.ints([-1])])


@converter("one_hot")
def one_hot(cx: OpContext, indices: str, on: str, off: str) -> str:
    return one_hot_of(cx, indices, on, off, cx.ints(range(int(cx.attrs["depth"]))))


def one_hot_of(cx: OpContext, indices: str, on: str, off: str, positions: str) -> str:
    """`on` where an index equals its position along the new axis, `off`
    elsewhere (so indices outside [0, depth), negative ones included, give
    a row of `off`; ONNX's OneHot counts negative ones from the end, and
    onnxruntime has it for few dtypes); `positions` is 0 ... depth - 1."""
    rank = cx.rank(0)
    axis = int(cx.attrs["axis"])
    axis = rank if axis < 0 else axis
    shape = [1] * (rank + 1)
    shape[axis] = -1
    hit = cx.node("Equal", [cx.unsqueeze(cx.cast(indices, "int64"), [axis]), cx.reshape(positions, shape)])
    dtype = cx.out_dtype
    return select(cx, hit, cx.cast(on, dtype), cx.cast(off, dtype), dtype)


# The element types ONNX's Range takes; the others count in a wider type
# (start + i * step, as the numpy kernel computes it) and are cast.
_RANGE_TYPES = {"float32", "float64", "int16", "int32", "int64"}


@converter("arange")
def arange(cx: OpContext, start: str, stop: str, step: str) -> str:
    dtype = cx.out_dtype
    work = dtype if dtype in _RANGE_TYPES else ("float64" if dtype.startswith(("float", "bfloat")) else "int64")
    r = cx.node("Range", [cx.cast(start, work), cx.cast(stop, work), cx.cast(step, work)])
    return r if work == dtype else cx.cast(r, dtype)


@converter("einsum")
def einsum(cx: OpContext, xs: tuple[str, ...]) -> str:
    return cx.node("Einsum", list(xs), equation=str(cx.attrs["equation"]))


@converter("shape_of", "vm.shape_of")
def shape_of(cx: OpContext, x: str) -> str:
    return cx.node("Cast", [cx.node("Shape", [x])], to=onnx_dtype(cx.out_dtype))


@converter("ndarray_size")
def ndarray_size(cx: OpContext, x: str) -> str:
    return cx.node("Cast", [cx.node("Size", [x])], to=onnx_dtype(cx.out_dtype))


SCATTER_REDUCTIONS = {"update": "none", "add": "add", "mul": "mul", "min": "min", "max": "max"}


@converter("scatter_elements")
def scatter_elements(cx: OpContext, x: str, indices: str, updates: str) -> str:
    reduction = SCATTER_REDUCTIONS.get(cx.attrs["reduction"])
    if reduction is None:
        raise Unsupported(f"ONNX's ScatterElements has no reduction {cx.attrs['reduction']!r}")
    axis = norm_axis(int(cx.attrs["axis"]), cx.rank(0))
    return cx.node("ScatterElements", [x, cx.cast(indices, "int64"), updates], axis=axis, reduction=reduction)


@converter("scatter_nd")
def scatter_nd(cx: OpContext, x: str, indices: str, updates: str) -> str:
    reduction = SCATTER_REDUCTIONS.get(cx.attrs["mode"])
    if reduction is None:
        raise Unsupported(f"ONNX's ScatterND has no mode {cx.attrs['mode']!r}")
    rank = cx.rank(1)
    idx = cx.node("Transpose", [cx.cast(indices, "int64")], perm=[*list(range(1, rank)), 0])
    return cx.node("ScatterND", [x, idx, updates], reduction=reduction)


@converter("trilu")
def trilu(cx: OpContext, x: str, k: str) -> str:
    return cx.node("Trilu", [x, cx.cast(k, "int64")], upper=int(bool(cx.attrs["upper"])))


@converter("meshgrid")
def meshgrid(cx: OpContext, xs: tuple[str, ...]) -> tuple[str, ...]:
    fields = cx.field_types(0)
    sizes = [static_shape(f) for f in fields]
    if any(s is None for s in sizes):
        raise Unsupported("the inputs' shapes are not static")
    n = [int(s[0]) if s else 1 for s in sizes]  # checked above
    ij = cx.attrs["indexing"] == "ij"
    out_shape = list(n)
    if not ij and len(n) >= 2:
        out_shape[0], out_shape[1] = out_shape[1], out_shape[0]
    outs = []
    for i, x in enumerate(xs):
        pos = i
        if not ij and len(n) >= 2 and i < 2:
            pos = 1 - i
        shape = [1] * len(n)
        shape[pos] = n[i]
        outs.append(cx.node("Expand", [cx.reshape(x, shape), cx.ints(out_shape)]))
    return tuple(outs)


@converter("reverse_sequence")
def reverse_sequence(cx: OpContext, x: str, lengths: str) -> str:
    rank = cx.rank(0)
    batch = norm_axis(int(cx.attrs["batch_axis"]), rank)
    seq = norm_axis(int(cx.attrs["seq_axis"]), rank)
    if {batch, seq} != {0, 1}:
        raise Unsupported("ONNX's ReverseSequence takes the batch and time axes among the first two")
    return cx.node("ReverseSequence", [x, cx.cast(lengths, "int64")], batch_axis=batch, time_axis=seq)


@converter("sequence_mask")
def sequence_mask(cx: OpContext, x: str, lengths: str) -> str:
    shape = cx.shape(0)
    axis = norm_axis(int(cx.attrs["axis"]), len(shape))
    batch_axis = 1 - axis
    positions = cx.const(_arange(shape[axis]))
    pos_shape = [1] * len(shape)
    pos_shape[axis] = shape[axis]
    len_shape = [1] * len(shape)
    len_shape[batch_axis] = shape[batch_axis]
    keep = cx.node("Less", [cx.reshape(positions, pos_shape), cx.reshape(cx.cast(lengths, "int64"), len_shape)])
    return select(cx, keep, x, cx.like(float(cx.attrs["mask_value"])), cx.dtype(0))


@converter("unravel_index")
def unravel_index(cx: OpContext, indices: str, shape: str) -> str:
    dims = static_shape(cx.in_types[1])
    if dims is None or len(dims) != 1:
        raise Unsupported("the shape argument's length is not static")
    n = dims[0]
    dtype = cx.dtype(0)
    rows = []
    rest = indices
    strides_total = shape
    for i in range(n - 1, -1, -1):
        dim = cx.node("Gather", [strides_total, cx.scalar(i, "int64")], axis=0)
        rows.append(cx.node("Mod", [rest, dim], fmod=1))
        rest = cx.node("Div", [rest, dim])
    rows.reverse()
    del dtype
    return cx.node("Concat", [cx.unsqueeze(r, [0]) for r in rows], axis=0)


def _arange(n: int) -> Any:
    import numpy as np

    return np.arange(n, dtype=np.int64)


def _np(dtype: str) -> Any:
    from . import np_dtype

    return np_dtype(dtype)
