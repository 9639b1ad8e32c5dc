"""Operators that move data around or make it: shapes, reshapes, transposes,
concatenation and splitting, padding, tiling, constants, ranges.

Where ONNX takes a shape, axes or repeat counts as an input tensor, the
value is used as an attribute when it is known at import time (a constant,
an initializer, or a static shape computed from them); otherwise the
`dyn.*` operator takes it at run time, as TVM's importer did.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...ir.expr import Expr
from ..builder import Builder, Unsupported, numpy_dtype
from ._common import known_dims, norm_axes, norm_axis, scalar
from .graph import Ctx
from .node import Node
from .table import Converted, converter


def _known(b: Builder, x: Expr) -> list[int] | None:
    v = b.value(x)
    return None if v is None else [int(i) for i in np.asarray(v).reshape(-1)]


@converter("Reshape")
def reshape_v1(cx: Ctx, n: Node) -> Converted:
    n.ignore("consumed_inputs")
    return cx.b.call("reshape", n.input(0), newshape=list(n.require("shape")))


@converter("Reshape", since=5)
def reshape(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, shape = n.input(0), n.input(1)
    allowzero = bool(n.attr("allowzero", 0))
    known = _known(b, shape)
    if known is not None:
        if not allowzero and 0 in known:
            src = b.shape(x)
            filled = []
            for i, d in enumerate(known):
                s = src[i] if i < len(src) else None
                filled.append(s if d == 0 and s is not None else d)
            known = filled
        return b.call("reshape", x, newshape=known, allowzero=allowzero)
    return b.call("dyn.reshape", x, shape, allowzero=allowzero)


@converter("Flatten")
def flatten(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    shape = b.shape(x)
    rank = len(shape)
    axis = n.attr("axis", 1)
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis <= rank:
        raise Unsupported(
            f"`axis` = {n.attr('axis', 1)} is out of range for a tensor of {rank} dimensions", attr="axis"
        )
    if axis == 1 and rank >= 2:
        return b.call("nn.batch_flatten", x)
    head, tail = shape[:axis], shape[axis:]
    known_head, known_tail = known_dims(head), known_dims(tail)
    if known_head is None:
        if known_tail is None:
            raise Unsupported("`Flatten` with unknown dimensions on both sides of the axis is not supported")
        return b.call("reshape", x, newshape=[-1, int(np.prod(known_tail, dtype=np.int64))])
    return b.call("reshape", x, newshape=[int(np.prod(known_head, dtype=np.int64)), -1])


@converter("Squeeze")
def squeeze_v1(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    axes = n.attr("axes", None)
    if axes is None:
        shape = b.shape(x)
        if any(d is None for d in shape):
            raise Unsupported("`Squeeze` without axes needs a static shape")
        return b.call("squeeze", x, axis=[i for i, d in enumerate(shape) if d == 1])
    return b.call("squeeze", x, axis=norm_axes(axes, b.rank(x)))


@converter("Squeeze", since=13)
def squeeze(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, axes = n.input(0), n.input(1)
    if axes is None:
        shape = b.shape(x)
        if any(d is None for d in shape):
            raise Unsupported("`Squeeze` without axes needs a static shape")
        return b.call("squeeze", x, axis=[i for i, d in enumerate(shape) if d == 1])
    known = _known(b, axes)
    if known is not None:
        return b.call("squeeze", x, axis=norm_axes(known, b.rank(x)))
    rank = scalar(b, b.rank(x), b.dtype(axes))
    zero = scalar(b, 0, b.dtype(axes))
    axes = b.call("where", b.call("less", axes, zero), b.call("add", axes, rank), axes)
    return b.call("dyn.squeeze", x, axes)


def _unsqueeze(b: Builder, x: Expr, axes: Sequence[int]) -> Expr:
    rank = b.rank(x) + len(axes)
    for axis in sorted(norm_axes(axes, rank)):
        x = b.call("expand_dims", x, axis=axis, num_newaxis=1)
    return x


@converter("Unsqueeze")
def unsqueeze_v1(cx: Ctx, n: Node) -> Converted:
    return _unsqueeze(cx.b, n.input(0), list(n.require("axes")))


@converter("Unsqueeze", since=13)
def unsqueeze(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    axes: Expr = n.input(1)
    known = _known(b, axes)
    if known is not None:
        return _unsqueeze(b, x, known)
    count = b.static_shape(axes, "the axes")[0]
    out_rank = b.rank(x) + count
    dt = b.dtype(axes)
    ordered = b.call("sort", axes)
    for i in range(count):
        axis = b.call("reshape", b.call("strided_slice", ordered, begin=[i], end=[i + 1], strides=[1]), newshape=[])
        axis = b.call(
            "where", b.call("less", axis, scalar(b, 0, dt)), b.call("add", axis, scalar(b, out_rank, dt)), axis
        )
        x = b.call("dyn.expand_dims", x, axis, num_newaxis=1)
    return x


@converter("Transpose")
def transpose(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    perm = n.attr("perm", None)
    if perm is None:
        perm = list(reversed(range(b.rank(x))))
    return b.call("transpose", x, axes=list(perm))


@converter("Concat")
def concat(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    xs = [x for x in n.inputs if x is not None]
    axis = n.attr("axis", 1 if n.opset < 4 else None)
    if axis is None:
        raise Unsupported("the attribute `axis` is required", attr="axis")
    rank = b.rank(xs[0])
    return b.call("concatenate", b.tuple(xs), axis=norm_axis(axis, rank))


def _split(b: Builder, x: Expr, axis: int, sizes: list[int] | None, count: int) -> list[Expr]:
    axis = norm_axis(axis, b.rank(x))
    if sizes is None:
        if b.rank(x) == 0:
            raise Unsupported("cannot split a scalar")
        dim = b.shape(x)[axis]
        if dim is not None and dim % count:
            # opset 18: the last part is smaller
            part = -(-dim // count)
            sizes = [part] * (dim // part) + ([dim % part] if dim % part else [])
            if len(sizes) != count:
                raise Unsupported(f"axis {axis} of length {dim} cannot be split in {count} parts")
        else:
            out = b.call("split", x, indices_or_sections=count, axis=axis)
            return b.items(out)
    points, total = [], 0
    for s in sizes[:-1]:
        total += s
        points.append(total)
    out = b.call("split", x, indices_or_sections=points, axis=axis)
    return b.items(out)


@converter("Split")
def split_v1(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    sizes = n.attr("split", None)
    if sizes is None and n.has(1):
        sizes = b.int_list(n.input(1), "the split sizes")
    return _split(b, n.input(0), n.attr("axis", 0), sizes, n.num_outputs())


@converter("Split", since=13)
def split(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    sizes = b.int_list(n.input(1), "the split sizes") if n.has(1) else None
    count = n.attr("num_outputs", n.num_outputs()) if n.opset >= 18 else n.num_outputs()
    return _split(b, n.input(0), n.attr("axis", 0), sizes, count)


@converter("Expand", since=8)
def expand(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, shape = n.input(0), n.input(1)
    known = _known(b, shape)
    src = b.shape(x)
    src_known = known_dims(src)
    if known is not None and src_known is not None:
        try:
            target = list(np.broadcast_shapes(tuple(src_known), tuple(known)))
        except ValueError:
            raise Unsupported(f"shape {tuple(src_known)} cannot be expanded to {tuple(known)}") from None
        return x if target == src_known else b.call("broadcast_to", x, shape=target)
    dt = b.dtype(shape)
    count = b.static_shape(shape, "the shape")[0]
    have = b.call("shape_of", x, dtype=dt)
    rank = len(src)
    if rank < count:
        have = b.call("concatenate", b.tuple([b.const(np.ones(count - rank, dtype=numpy_dtype(dt))), have]), axis=0)
    elif count < rank:
        shape = b.call("concatenate", b.tuple([b.const(np.ones(rank - count, dtype=numpy_dtype(dt))), shape]), axis=0)
    return b.call("dyn.broadcast_to", x, b.call("maximum", have, shape))


@converter("Tile", since=6)
def tile(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, reps = n.input(0), n.input(1)
    known = _known(b, reps)
    if known is not None:
        return b.call("tile", x, reps=known)
    return b.call("dyn.tile", x, reps)


@converter("Shape")
def shape(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    rank = b.rank(x)
    start, end = n.attr("start", 0), n.attr("end", None)
    out = b.call("shape_of", x, dtype="int64")
    if start == 0 and end is None:
        return out
    start = max(0, min(rank, start + rank if start < 0 else start))
    stop = rank if end is None else max(0, min(rank, end + rank if end < 0 else end))
    return b.call("strided_slice", out, begin=[start], end=[max(start, stop)], strides=[1])


@converter("Size")
def size(cx: Ctx, n: Node) -> Converted:
    return cx.b.call("ndarray_size", n.input(0), dtype="int64")


@converter("Constant")
def constant(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    for key in ("value", "value_float", "value_floats", "value_int", "value_ints"):
        if n.has_attr(key):
            v = n.attr(key)
            if key == "value":
                return b.const(v)
            dtype = "float32" if "float" in key else "int64"
            return b.const(np.array(v, dtype=dtype))
    if n.has_attr("sparse_value"):
        return b.const(n.attr("sparse_value"))
    for key in ("value_string", "value_strings"):
        if n.has_attr(key):
            raise Unsupported("string constants have no Relay dtype", attr=key)
    raise Unsupported("`Constant` has no value")


@converter("ConstantOfShape", since=9)
def constant_of_shape(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    value = n.attr("value", None)
    if value is None:
        value = np.zeros((1,), dtype=np.float32)
    value = np.asarray(value).reshape(-1)
    fill = b.const(value[0], str(value.dtype))
    shape = n.input(0)
    known = _known(b, shape)
    dtype = str(value.dtype)
    if known is not None:
        if not known:
            return fill
        return b.call("full", fill, shape=known, dtype=dtype)
    return b.call("dyn.full", fill, shape, dtype=dtype)


@converter("Range", since=11)
def range_(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    start, limit, delta = (n.input(i) for i in range(3))
    return b.call("arange", start, limit, delta, dtype=b.dtype(start))


@converter("EyeLike", since=9)
def eye_like(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    rows, cols = b.static_shape(x)
    dtype = b.dtype(x)
    if n.attr("dtype", None) is not None:
        from .ops_elementwise import onnx_to_dtype

        dtype = onnx_to_dtype(n.attr("dtype"), n.opset)
    k = n.attr("k", 0)
    return b.const(np.eye(rows, cols, k, dtype=numpy_dtype(dtype)))


@converter("Pad")
def pad_v1(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    key = "paddings" if n.opset < 2 else "pads"
    pads = list(n.require(key))
    mode = n.attr("mode", "constant", allowed=("constant", "edge", "reflect"))
    value = float(n.attr("value", 0.0))
    x: Expr = n.input(0)
    dims = len(pads) // 2
    width = [[pads[i], pads[i + dims]] for i in range(dims)]
    return b.call("nn.pad", x, scalar(b, value, b.dtype(x)), pad_width=width, pad_mode=mode)


@converter("Pad", since=2)
def pad_v2(cx: Ctx, n: Node) -> Converted:
    return pad_v1(cx, n)


@converter("Pad", since=11)
def pad(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    rank = b.rank(x)
    mode = n.attr(
        "mode",
        "constant",
        allowed=("constant", "edge", "reflect") if n.opset < 19 else ("constant", "edge", "reflect", "wrap"),
    )
    value = n.input(2)
    dt = b.dtype(x)
    if value is None:
        value = scalar(b, 0, dt)
    elif b.rank(value) != 0:
        value = b.call("reshape", value, newshape=[])
    axes = _known(b, n.input(3)) if n.has(3) else None
    if n.has(3) and axes is None:
        raise Unsupported("the padded axes must be known when the model is imported")
    pads = _known(b, n.input(1))
    if axes is not None:
        axes = norm_axes(axes, rank)
    if pads is None:
        if axes is not None:
            raise Unsupported("pads computed at run time together with `axes` are not supported")
        widths = b.call("transpose", b.call("reshape", n.input(1), newshape=[2, -1]), axes=[1, 0])
        return b.call("dyn.nn.pad", x, widths, value, pad_mode=mode)
    which = axes if axes is not None else list(range(rank))
    count = len(which)
    if len(pads) != 2 * count:
        raise Unsupported(f"`pads` holds {len(pads)} values, {2 * count} expected")
    width = [[0, 0] for _ in range(rank)]
    for j, a in enumerate(which):
        width[a] = [pads[j], pads[j + count]]
    if any(w < 0 for pair in width for w in pair):
        return _negative_pad(b, x, width, value, mode)
    if mode == "wrap":
        return _wrap_pad(b, x, width)
    return b.call("nn.pad", x, value, pad_width=width, pad_mode=mode)


def _negative_pad(b: Builder, x: Expr, width: Sequence[Sequence[int]], value: Expr, mode: str) -> Expr:
    """Negative pads crop: pad the positive parts, then slice off the negative ones."""
    pos = [[max(0, w0), max(0, w1)] for w0, w1 in width]
    if any(w for pair in pos for w in pair):
        x = b.call("nn.pad", x, value, pad_width=pos, pad_mode=mode)
    shape = b.static_shape(x)
    begin = [-min(0, w0) for w0, _ in width]
    end = [shape[i] + min(0, w1) for i, (_, w1) in enumerate(width)]
    return b.call("strided_slice", x, begin=begin, end=end, strides=[1] * len(shape))


def _wrap_pad(b: Builder, x: Expr, width: Sequence[Sequence[int]]) -> Expr:
    """Wrap: copies of the far end on each side (concatenated slices)."""
    for axis, (before, after) in enumerate(width):
        if not before and not after:
            continue
        size = b.static_shape(x)[axis]
        parts = []
        if before:
            parts.append(b.call("strided_slice", x, begin=[size - before], end=[size], strides=[1], axes=[axis]))
        parts.append(x)
        if after:
            parts.append(b.call("strided_slice", x, begin=[0], end=[after], strides=[1], axes=[axis]))
        x = b.call("concatenate", b.tuple(parts), axis=axis)
    return x


@converter("DepthToSpace")
def depth_to_space(cx: Ctx, n: Node) -> Converted:
    mode = n.attr("mode", "DCR", allowed=("DCR", "CRD"))
    # ONNX's CRD (column, row, depth) is the order Relay calls CDR
    return cx.b.call(
        "nn.depth_to_space", n.input(0), block_size=int(n.require("blocksize")), mode="CDR" if mode == "CRD" else mode
    )


@converter("SpaceToDepth")
def space_to_depth(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    mode = n.attr("mode", "DCR", allowed=("DCR", "CRD"))
    block = int(n.require("blocksize"))
    x: Expr = n.input(0)
    if mode == "DCR":
        return b.call("nn.space_to_depth", x, block_size=block)
    # CRD: output channel c * b * b + i * b + j, by reshapes around a transpose
    batch, channels, height, width = b.static_shape(x)
    blocks = b.call("reshape", x, newshape=[batch, channels, height // block, block, width // block, block])
    moved = b.call("transpose", blocks, axes=[0, 1, 3, 5, 2, 4])
    return b.call("reshape", moved, newshape=[batch, channels * block * block, height // block, width // block])


@converter("OneHot", since=9)
def one_hot(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    indices, depth, values = n.input(0), n.input(1), n.input(2)
    rank = b.rank(indices)
    axis = n.attr("axis", -1)
    axis = axis + rank + 1 if axis < 0 else axis
    dt = b.dtype(values)
    off = b.call("reshape", b.call("strided_slice", values, begin=[0], end=[1], strides=[1]), newshape=[])
    on = b.call("reshape", b.call("strided_slice", values, begin=[1], end=[2], strides=[1]), newshape=[])
    ind_dt = b.dtype(indices)
    if not ind_dt.startswith(("int", "uint")):
        indices = b.call("cast", indices, dtype="int64")
        ind_dt = "int64"
    dv = b.value(depth)
    if dv is None:
        raise Unsupported("the depth of `OneHot` must be known when the model is imported")
    d = int(np.asarray(dv).reshape(-1)[0])
    if ind_dt.startswith("int"):
        indices = b.call(
            "where",
            b.call("less", indices, scalar(b, 0, ind_dt)),
            b.call("add", indices, scalar(b, d, ind_dt)),
            indices,
        )
    return b.call("one_hot", indices, on, off, depth=d, axis=axis, dtype=dt)


@converter("CumSum", since=11)
def cumsum(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    axis = b.int_list(n.input(1), "the axis")[0]
    axis = norm_axis(axis, b.rank(x))
    exclusive = bool(n.attr("exclusive", 0))
    if n.attr("reverse", 0):
        out = b.call("cumsum", b.call("reverse", x, axis=axis), axis=axis, exclusive=exclusive)
        return b.call("reverse", out, axis=axis)
    return b.call("cumsum", x, axis=axis, exclusive=exclusive)


@converter("ReverseSequence", since=10)
def reverse_sequence(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    return b.call(
        "reverse_sequence", n.input(0), n.input(1), seq_axis=n.attr("time_axis", 0), batch_axis=n.attr("batch_axis", 1)
    )


@converter("NonZero", since=9)
def non_zero(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    where = b.call("argwhere", n.input(0))
    return b.call("transpose", b.call("cast", where, dtype="int64"), axes=[1, 0])


@converter("Compress", since=9)
def compress(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, cond = n.input(0), n.input(1)
    picked = b.call("reshape", b.call("argwhere", cond), newshape=[-1])
    axis = n.attr("axis", None)
    if axis is None:
        return b.call("take", b.call("reshape", x, newshape=[-1]), picked, axis=0)
    return b.call("take", x, picked, axis=norm_axis(axis, b.rank(x)))
