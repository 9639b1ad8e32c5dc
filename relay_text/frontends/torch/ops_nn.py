"""Layers: convolutions, linear layers and matrix products, normalisation,
pooling, resizing, padding, embeddings and scaled dot-product attention.

PyTorch pads symmetrically (`padding=[ph, pw]`); Relay lists the starts then
the ends (`[ph, pw, ph, pw]`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...ir.expr import Expr
from ..builder import Builder, Unsupported, numpy_dtype
from ..onnx._common import cast, norm_axis, scalar
from ..onnx.ops_linalg import matmul
from ..onnx.ops_nn import _LAYOUT, onnx_ceil_mode
from .graph import Ctx
from .table import Args, Converted, aten


def _pair(v: int | Sequence[int], dims: int) -> list[int]:
    if isinstance(v, int):
        return [v] * dims
    v = list(v)
    return v * dims if len(v) == 1 else v


def _conv(
    cx: Ctx,
    x: Expr,
    w: Expr,
    bias: Expr | None,
    stride: int | Sequence[int],
    padding: int | Sequence[int],
    dilation: int | Sequence[int],
    groups: int,
    transposed: bool = False,
    output_padding: int | Sequence[int] | None = None,
) -> Expr:
    b = cx.b
    dims = b.rank(x) - 2
    if dims not in (1, 2, 3):
        raise Unsupported(f"only 1-, 2- and 3-dimensional convolutions are supported, found {dims + 2} dimensions")
    wshape = b.static_shape(w, "the weight")
    strides, dilations = _pair(stride, dims), _pair(dilation, dims)
    if isinstance(padding, str):
        if padding == "valid":
            pads = [0] * (2 * dims)
        else:  # "same" (stride 1): the extra padding goes at the end
            from ..onnx.ops_nn import same_pads

            pads = same_pads(b.shape(x)[2:], wshape[2:], strides, dilations, "SAME_UPPER")
    else:
        p = _pair(padding, dims)
        pads = p + p
    data_layout, kernel_layout = _LAYOUT[dims]
    attrs = dict(
        strides=strides,
        padding=pads,
        dilation=dilations,
        groups=int(groups),
        kernel_size=list(wshape[2:]),
        data_layout=data_layout,
    )
    if transposed:
        attrs["kernel_layout"] = "IO" + data_layout[2:]
        attrs["output_padding"] = _pair(output_padding or 0, dims)
        attrs["channels"] = wshape[1] * int(groups)
        out = b.call(f"nn.conv{dims}d_transpose", x, w, **attrs)
    else:
        attrs["kernel_layout"] = kernel_layout
        attrs["channels"] = wshape[0]
        out = b.call(f"nn.conv{dims}d", x, w, **attrs)
    if bias is not None:
        out = b.call("nn.bias_add", out, bias, axis=1)
    return out


@aten("conv1d.default", "conv2d.default", "conv3d.default", "conv1d.padding", "conv2d.padding", "conv3d.padding")
def conv(cx: Ctx, a: Args) -> Converted:
    return _conv(
        cx,
        a["input"],
        a["weight"],
        a.get("bias"),
        a.get("stride", 1),
        a.get("padding", 0),
        a.get("dilation", 1),
        a.get("groups", 1),
    )


@aten("convolution.default")
def convolution(cx: Ctx, a: Args) -> Converted:
    return _conv(
        cx,
        a["input"],
        a["weight"],
        a.get("bias"),
        a["stride"],
        a["padding"],
        a["dilation"],
        a["groups"],
        bool(a["transposed"]),
        a.get("output_padding"),
    )


@aten("conv_transpose1d.default", "conv_transpose2d.input", "conv_transpose3d.input")
def conv_transpose(cx: Ctx, a: Args) -> Converted:
    return _conv(
        cx,
        a["input"],
        a["weight"],
        a.get("bias"),
        a.get("stride", 1),
        a.get("padding", 0),
        a.get("dilation", 1),
        a.get("groups", 1),
        True,
        a.get("output_padding", 0),
    )


@aten("linear.default")
def linear(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    units = b.static_shape(a["weight"], "the weight")[0]
    out = b.call("nn.dense", a["input"], a["weight"], units=units)
    if a.get("bias") is not None:
        out = b.call("add", out, a["bias"])
    return out


@aten("addmm.default")
def addmm(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    dt = cx.out_dtype()
    prod = b.call("nn.matmul", a["mat1"], a["mat2"])
    if a.get("alpha", 1) != 1:
        prod = b.call("multiply", prod, scalar(b, a["alpha"], dt))
    bias = a["self"]
    if a.get("beta", 1) != 1:
        bias = b.call("multiply", bias, scalar(b, a["beta"], dt))
    return b.call("add", bias, prod)


@aten("mm.default")
def mm(cx: Ctx, a: Args) -> Converted:
    return cx.b.call("nn.matmul", a["self"], a["mat2"])


@aten("bmm.default")
def bmm(cx: Ctx, a: Args) -> Converted:
    return cx.b.call("nn.batch_matmul", a["self"], a["mat2"], transpose_b=False)


@aten("matmul.default")
def matmul_(cx: Ctx, a: Args) -> Converted:
    return matmul(cx.b, a["self"], a["other"])


def _ones_like_channels(b: Builder, x: Expr, value: float, dtype: str) -> Expr:
    c = b.static_shape(x)[1]
    return b.const(np.full((c,), value, dtype=numpy_dtype(dtype)))


@aten("batch_norm.default", "_native_batch_norm_legit_no_training.default")
def batch_norm(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["input"]
    if a.get("training"):
        raise Unsupported("`batch_norm` in training mode is not supported (export the model in eval mode)")
    dt = b.dtype(x)
    w: Expr = a["weight"] if a.get("weight") is not None else _ones_like_channels(b, x, 1, dt)
    bias: Expr = a["bias"] if a.get("bias") is not None else _ones_like_channels(b, x, 0, dt)
    out = b.call("nn.batch_norm", x, w, bias, a["running_mean"], a["running_var"], axis=1, epsilon=float(a["eps"]))
    y = b.item(out, 0)
    if "_native" in str(cx.node.target):
        from .ops_shape import Refused

        return [y, Refused("the saved mean of a batch norm"), Refused("the saved variance of a batch norm")]
    return y


def _layer_norm(cx: Ctx, a: Args) -> tuple[Expr, Expr | None, Expr | None]:
    from ..onnx.ops_norm import _layer_norm as onnx_layer_norm

    b = cx.b
    x: Expr = a["input"]
    shape = list(a["normalized_shape"])
    dt = b.dtype(x)
    w = a.get("weight")
    bias = a.get("bias")
    eps = float(a.get("eps", 1e-5))
    if len(shape) == 1 and w is not None and bias is not None:
        return b.call("nn.layer_norm", x, w, bias, axis=-1, epsilon=eps), None, None
    if w is None:
        w = b.const(np.ones(shape, dtype=numpy_dtype(dt)))
    return onnx_layer_norm(b, x, w, bias, -len(shape), eps, 0)


@aten("layer_norm.default")
def layer_norm(cx: Ctx, a: Args) -> Converted:
    return _layer_norm(cx, a)[0]


@aten("native_layer_norm.default")
def native_layer_norm(cx: Ctx, a: Args) -> Converted:
    from ..onnx.ops_norm import _layer_norm as onnx_layer_norm

    b = cx.b
    x: Expr = a["input"]
    shape = list(a["normalized_shape"])
    w = a.get("weight")
    if w is None:
        w = b.const(np.ones(shape, dtype=numpy_dtype(b.dtype(x))))
    y, mean, inv = onnx_layer_norm(b, x, w, a.get("bias"), -len(shape), float(a["eps"]), 0)
    return b.tuple([y, mean, inv])


@aten("group_norm.default")
def group_norm(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["input"]
    dt = b.dtype(x)
    w: Expr = a["weight"] if a.get("weight") is not None else _ones_like_channels(b, x, 1, dt)
    bias: Expr = a["bias"] if a.get("bias") is not None else _ones_like_channels(b, x, 0, dt)
    return b.call(
        "nn.group_norm", x, w, bias, num_groups=int(a["num_groups"]), axis=1, epsilon=float(a.get("eps", 1e-5))
    )


def _pool(cx: Ctx, a: Args, kind: str) -> Expr:
    b = cx.b
    x: Expr = a["self"]
    dims = b.rank(x) - 2
    kernel = _pair(a["kernel_size"], dims)
    stride = a.get("stride") or kernel
    strides = _pair(stride, dims)
    p = _pair(a.get("padding", 0), dims)
    pads = p + p
    dilations = _pair(a.get("dilation", 1), dims) if kind == "max" else [1] * dims
    ceil = onnx_ceil_mode(b, x, bool(a.get("ceil_mode", False)), kernel, strides, dilations, pads)
    attrs = dict(
        pool_size=kernel, strides=strides, dilation=dilations, padding=pads, layout=_LAYOUT[dims][0], ceil_mode=ceil
    )
    if kind == "max":
        return b.call(f"nn.max_pool{dims}d", x, **attrs)
    if a.get("divisor_override") is not None:
        raise Unsupported("`avg_pool` with `divisor_override` is not supported")
    return b.call(f"nn.avg_pool{dims}d", x, count_include_pad=bool(a.get("count_include_pad", True)), **attrs)


@aten("max_pool1d.default", "max_pool2d.default", "max_pool3d.default")
def max_pool(cx: Ctx, a: Args) -> Converted:
    return _pool(cx, a, "max")


@aten("max_pool2d_with_indices.default")
def max_pool_with_indices(cx: Ctx, a: Args) -> Converted:
    from .ops_shape import Refused

    return [_pool(cx, a, "max"), Refused("the indices of a max pool")]


@aten("avg_pool1d.default", "avg_pool2d.default", "avg_pool3d.default")
def avg_pool(cx: Ctx, a: Args) -> Converted:
    return _pool(cx, a, "avg")


def _adaptive(cx: Ctx, a: Args, kind: str) -> Expr:
    b = cx.b
    x: Expr = a["self"]
    dims = b.rank(x) - 2
    size = _pair(a["output_size"], dims)
    return b.call(f"nn.adaptive_{kind}_pool{dims}d", x, output_size=size, layout=_LAYOUT[dims][0])


@aten(
    "adaptive_avg_pool1d.default",
    "adaptive_avg_pool2d.default",
    "_adaptive_avg_pool2d.default",
    "adaptive_avg_pool3d.default",
)
def adaptive_avg_pool(cx: Ctx, a: Args) -> Converted:
    return _adaptive(cx, a, "avg")


@aten("adaptive_max_pool2d.default")
def adaptive_max_pool(cx: Ctx, a: Args) -> Converted:
    from .ops_shape import Refused

    return [_adaptive(cx, a, "max"), Refused("the indices of a max pool")]


def _resize(cx: Ctx, a: Args, method: str, coord: str, rounding: str) -> Expr:
    b = cx.b
    x: Expr = a["input"]
    shape = b.static_shape(x)
    dims = len(shape) - 2
    size = a.get("output_size")
    if size is None:
        scales = _pair(a["scale_factors"], dims)
        size = [math.floor(s * f) for s, f in zip(shape[2:], scales, strict=False)]
    from ..onnx.ops_image import _resize as resize

    return resize(b, x, list(size), method, coord, rounding, -0.75, 0, 0.0, None)


@aten("upsample_nearest2d.vec", "upsample_nearest1d.vec", "upsample_nearest3d.vec")
def upsample_nearest(cx: Ctx, a: Args) -> Converted:
    return _resize(cx, a, "nearest_neighbor", "asymmetric", "floor")


@aten("upsample_bilinear2d.vec", "upsample_linear1d.vec", "upsample_trilinear3d.vec")
def upsample_linear(cx: Ctx, a: Args) -> Converted:
    return _resize(cx, a, "linear", "align_corners" if a.get("align_corners") else "pytorch_half_pixel", "")


@aten("constant_pad_nd.default", "pad.default")
def pad(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x = a["self"] if "self" in a else a["input"]
    mode = a.get("mode", "constant")
    modes = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}
    if mode not in modes:
        raise Unsupported(f"padding mode {mode!r} is not supported")
    p = list(a["pad"])
    rank = b.rank(x)
    width = [[0, 0] for _ in range(rank)]
    for i in range(len(p) // 2):  # pairs from the last dimension backwards
        width[rank - 1 - i] = [p[2 * i], p[2 * i + 1]]
    value = a.get("value") or 0
    if any(w < 0 for pair in width for w in pair):
        from ..onnx.ops_shape import _negative_pad

        return _negative_pad(b, x, width, scalar(b, value, b.dtype(x)), modes[mode])
    return b.call("nn.pad", x, scalar(b, value, b.dtype(x)), pad_width=width, pad_mode=modes[mode])


@aten("embedding.default")
def embedding(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    return b.call("take", a["weight"], cast(b, a["indices"], "int64"), axis=0)


@aten("scaled_dot_product_attention.default")
def sdpa(cx: Ctx, a: Args) -> Converted:
    """softmax(q k^T * scale + mask) v; a causal mask lets query i see keys 0..i."""
    b = cx.b
    q, k, v = a["query"], a["key"], a["value"]
    if a.get("dropout_p", 0.0):
        raise Unsupported("attention with dropout is not supported (export the model in eval mode)")
    dt = b.dtype(q)
    head = b.shape(q)[-1]
    if head is None:
        raise Unsupported("attention needs the size of a head to be known")
    s = a.get("scale")
    s = 1 / math.sqrt(head) if s is None else float(s)
    if a.get("enable_gqa"):
        hq, hk = b.static_shape(q)[-3], b.static_shape(k)[-3]
        if hq != hk:
            k = b.call("repeat", k, repeats=hq // hk, axis=b.rank(k) - 3)
            v = b.call("repeat", v, repeats=hq // hk, axis=b.rank(v) - 3)
    rank = b.rank(k)
    perm = [*list(range(rank - 2)), rank - 1, rank - 2]
    scores = b.call("multiply", matmul(b, q, b.call("transpose", k, axes=perm)), scalar(b, s, dt))
    mask = a.get("attn_mask")
    if mask is not None:
        if b.dtype(mask) == "bool":
            mask = b.call("where", mask, scalar(b, 0, dt), scalar(b, float("-inf"), dt))
        scores = b.call("add", scores, mask)
    if a.get("is_causal"):
        lq, lk = b.static_shape(q)[-2], b.static_shape(k)[-2]
        causal = np.where(np.tril(np.ones((lq, lk), bool)), 0, -np.inf).astype(numpy_dtype(dt))
        scores = b.call("add", scores, b.const(causal))
    probs = b.call("nn.softmax", scores, axis=norm_axis(-1, b.rank(scores)))
    return matmul(b, probs, v)
