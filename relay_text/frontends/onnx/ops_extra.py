"""Operators of later ONNX releases that TVM's importer did not convert, where
the registered operators express them directly: `RMSNormalization`,
`RotaryEmbedding`, `GroupNormalization`, `LpNormalization`, `SwiGLU`,
`Swish`, `CumProd`, `CenterCropPad` and the window functions."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...ir.expr import Expr
from ..builder import Builder, Unsupported, numpy_dtype
from ._common import cast, norm_axes, norm_axis, scalar
from .graph import Ctx
from .node import Node
from .ops_elementwise import onnx_to_dtype
from .table import Converted, converter


@converter("RMSNormalization", since=23)
def rms_norm(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, w = n.input(0), n.input(1)
    rank = b.rank(x)
    axes = list(range(norm_axis(n.attr("axis", -1), rank), rank))
    dt = b.dtype(x)
    work = "float32" if n.attr("stash_type", 1) == 1 and dt in ("float16", "bfloat16") else dt
    xw = cast(b, x, work)
    ms = b.call("mean", b.call("multiply", xw, xw), axis=axes, keepdims=True)
    inv = b.call(
        "divide", scalar(b, 1, work), b.call("sqrt", b.call("add", ms, scalar(b, float(n.attr("epsilon", 1e-5)), work)))
    )
    return b.call("multiply", cast(b, b.call("multiply", xw, inv), dt), w)


@converter("GroupNormalization", since=18)
def group_norm(cx: Ctx, n: Node) -> Converted:
    """Opset 18 scales per group; 21 per channel (as nn.group_norm)."""
    b = cx.b
    x, scale, bias = n.input(0), n.input(1), n.input(2)
    groups = int(n.require("num_groups"))
    eps = float(n.attr("epsilon", 1e-5))
    n.attr("stash_type", 1)
    channels = b.static_shape(x)[1]
    if n.opset < 21:
        scale = b.call("repeat", scale, repeats=channels // groups, axis=0)
        bias = b.call("repeat", bias, repeats=channels // groups, axis=0)
    return b.call("nn.group_norm", x, scale, bias, num_groups=groups, axis=1, epsilon=eps)


@converter("LpNormalization")
def lp_norm(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    axis = norm_axis(n.attr("axis", -1), b.rank(x))
    p = n.attr("p", 2)
    if p not in (1, 2):
        raise Unsupported(f"`p` = {p} is not supported (1 and 2 are)", attr="p")
    dt = b.dtype(x)
    norm = (
        b.call("sum", b.call("abs", x), axis=[axis], keepdims=True)
        if p == 1
        else b.call("sqrt", b.call("sum", b.call("multiply", x, x), axis=[axis], keepdims=True))
    )
    zero = scalar(b, 0, dt)
    safe = b.call("where", b.call("equal", norm, zero), scalar(b, 1, dt), norm)
    return b.call("where", b.call("equal", norm, zero), zero, b.call("divide", x, safe))


def _swish(b: Builder, x: Expr, alpha: float) -> Expr:
    dt = b.dtype(x)
    return b.call("multiply", x, b.call("sigmoid", b.call("multiply", scalar(b, alpha, dt), x)))


@converter("Swish", since=24)
def swish(cx: Ctx, n: Node) -> Converted:
    return _swish(cx.b, n.input(0), float(n.attr("alpha", 1.0)))


@converter("SwiGLU", since=28)
def swiglu(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    return b.call("multiply", _swish(b, n.input(0), float(n.attr("alpha", 1.0))), n.input(1))


@converter("CumProd", since=26)
def cumprod(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    axis = norm_axis(b.int_list(n.input(1), "the axis")[0], b.rank(x))
    exclusive = bool(n.attr("exclusive", 0))
    if n.attr("reverse", 0):
        out = b.call("cumprod", b.call("reverse", x, axis=axis), axis=axis, exclusive=exclusive)
        return b.call("reverse", out, axis=axis)
    return b.call("cumprod", x, axis=axis, exclusive=exclusive)


@converter("CenterCropPad", since=18)
def center_crop_pad(cx: Ctx, n: Node) -> Converted:
    """Each named axis cropped (or zero-padded) around its centre to the size asked for."""
    b = cx.b
    x: Expr = n.input(0)
    rank = b.rank(x)
    sizes = b.int_list(n.input(1), "the output shape")
    axes = norm_axes(n.attr("axes", list(range(rank))), rank)
    shape = b.static_shape(x)
    for a, want in zip(axes, sizes, strict=False):
        have = shape[a]
        if want < have:
            start = (have - want) // 2
            x = b.call("strided_slice", x, begin=[start], end=[start + want], strides=[1], axes=[a])
        elif want > have:
            before = (want - have) // 2
            widths = [[0, 0] for _ in range(rank)]
            widths[a] = [before, want - have - before]
            x = b.call("nn.pad", x, scalar(b, 0, b.dtype(x)), pad_width=widths)
    return x


def _window(n: Node, b: Builder, fn: Callable[[np.ndarray, int], np.ndarray]) -> Expr:
    size = b.int_list(n.input(0), "the window length")[0]
    periodic = n.attr("periodic", 1)
    dtype = onnx_to_dtype(n.attr("output_datatype", 1), n.opset)
    span = size if periodic else size - 1
    k = np.arange(size, dtype=np.float64)
    return b.const(fn(k, span).astype(numpy_dtype(dtype)))


@converter("HannWindow", since=17)
def hann(cx: Ctx, n: Node) -> Converted:
    return _window(n, cx.b, lambda k, s: np.sin(k * np.pi / s) ** 2)


@converter("HammingWindow", since=17)
def hamming(cx: Ctx, n: Node) -> Converted:
    return _window(n, cx.b, lambda k, s: 25 / 46 - np.cos(k * np.pi * 2 / s) * (21 / 46))


@converter("BlackmanWindow", since=17)
def blackman(cx: Ctx, n: Node) -> Converted:
    return _window(n, cx.b, lambda k, s: 0.42 - 0.5 * np.cos(k * np.pi * 2 / s) + 0.08 * np.cos(k * np.pi * 4 / s))


@converter("RotaryEmbedding", since=23)
def rotary(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, cos, sin, pos = n.input(0), n.input(1), n.input(2), n.input(3)
    rank = b.rank(x)
    if rank == 4:
        x4 = b.call("transpose", x, axes=[0, 2, 1, 3])
    else:
        batch, seq, hidden = b.static_shape(x)
        heads = int(n.attr("num_heads", 0))
        if not heads:
            raise Unsupported("3-dimensional input needs `num_heads`", attr="num_heads")
        x4 = b.call("reshape", x, newshape=[batch, seq, heads, hidden // heads])
    head = b.static_shape(x4)[3]
    dim = int(n.attr("rotary_embedding_dim", 0)) or head
    half = dim // 2
    if pos is not None:
        cos = b.call("take", cos, pos, axis=0)
        sin = b.call("take", sin, pos, axis=0)
    cos = b.call("expand_dims", cos, axis=b.rank(cos) - 1)
    sin = b.call("expand_dims", sin, axis=b.rank(sin) - 1)
    rot = b.call("strided_slice", x4, begin=[0], end=[dim], strides=[1], axes=[3])
    if n.attr("interleaved", 0):
        x1 = b.call("strided_slice", rot, begin=[0], end=[dim], strides=[2], axes=[3])
        x2 = b.call("strided_slice", rot, begin=[1], end=[dim], strides=[2], axes=[3])
    else:
        x1 = b.call("strided_slice", rot, begin=[0], end=[half], strides=[1], axes=[3])
        x2 = b.call("strided_slice", rot, begin=[half], end=[dim], strides=[1], axes=[3])
    real = b.call("subtract", b.call("multiply", cos, x1), b.call("multiply", sin, x2))
    imag = b.call("add", b.call("multiply", sin, x1), b.call("multiply", cos, x2))
    if n.attr("interleaved", 0):
        pairs = b.call("stack", b.tuple([real, imag]), axis=4)
        rotated = b.call("reshape", pairs, newshape=[d if d is not None else -1 for d in b.shape(rot)])
    else:
        rotated = b.call("concatenate", b.tuple([real, imag]), axis=3)
    if dim < head:
        rest = b.call("strided_slice", x4, begin=[dim], end=[head], strides=[1], axes=[3])
        rotated = b.call("concatenate", b.tuple([rotated, rest]), axis=3)
    if rank == 4:
        return b.call("transpose", rotated, axes=[0, 2, 1, 3])
    return b.call("reshape", rotated, newshape=list(b.static_shape(x)))
