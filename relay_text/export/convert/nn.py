"""Neural-network operators: convolutions, dense layers, activations, softmax, dropout, padding."""

from __future__ import annotations

from typing import Any

from . import OpContext, Unsupported, converter, float_like, matrix_product, norm_axis, np_dtype


def spatial_pads(padding: Any, n: int) -> list[int]:
    """TVM's padding (one value, one per spatial axis, or begins then ends) as ONNX pads."""
    pads = [int(p) for p in (padding if isinstance(padding, (tuple, list)) else (padding,))]
    if len(pads) == 1:
        return pads * (2 * n)
    if len(pads) == n:
        return pads + pads
    if len(pads) == 2 * n:
        return pads
    raise Unsupported(f"padding {pads} has {len(pads)} values for {n} spatial axes")


def spatial(values: Any, n: int) -> list[int]:
    ints = [int(v) for v in (values if isinstance(values, (tuple, list)) else (values,))]
    return ints * n if len(ints) == 1 else ints


def layout_perm(src: str, dst: str) -> list[int]:
    """The permutation taking layout `src` (such as NHWC) to `dst` (NCHW)."""
    if sorted(src) != sorted(dst) or not src.isalpha() or not src.isupper():
        raise Unsupported(f"layout {src} is not a permutation of {dst}")
    return [src.index(c) for c in dst]


def to_layout(cx: OpContext, x: str, src: str, dst: str) -> str:
    if src == dst:
        return x
    return cx.node("Transpose", [x], perm=layout_perm(src, dst))


def _float_only(cx: OpContext) -> None:
    if not float_like(cx.dtype(0)):
        raise Unsupported(
            f"ONNX's convolutions and matrix products take floating-point tensors, and this one is {cx.dtype(0)}"
        )
    out_dtype = cx.attrs.get("out_dtype") or cx.dtype(0)
    if out_dtype != cx.dtype(0):
        raise Unsupported(f"out_dtype {out_dtype} differs from the input's {cx.dtype(0)}")


CONV_LAYOUTS = {1: ("NCW", "OIW", "IOW"), 2: ("NCHW", "OIHW", "IOHW"), 3: ("NCDHW", "OIDHW", "IODHW")}


@converter("nn.conv1d", "nn.conv2d", "nn.conv3d")
def conv(cx: OpContext, x: str, w: str) -> str:
    n = cx.rank(0) - 2
    data, kernel, _ = CONV_LAYOUTS[n]
    layout = cx.attrs["data_layout"]
    out_layout = cx.attrs["out_layout"] or layout
    x = to_layout(cx, x, layout, data)
    w = to_layout(cx, w, cx.attrs["kernel_layout"], kernel)
    dtype = cx.attrs["out_dtype"] or cx.dtype(0)
    xshape: tuple[int, ...] = ()
    wshape: tuple[int, ...] = ()
    if dtype != "float32":  # by matrix products, which need the shapes
        xshape = tuple(cx.shape(0)[i] for i in layout_perm(layout, data))
        wshape = tuple(cx.shape(1)[i] for i in layout_perm(cx.attrs["kernel_layout"], kernel))
    y = convolve(cx, x, w, n, dtype, xshape, wshape)
    return to_layout(cx, y, data, out_layout)


def convolve(
    cx: OpContext, x: str, w: str, n: int, dtype: str, xshape: tuple[int, ...] = (), wshape: tuple[int, ...] = ()
) -> str:
    """The call's convolution of N C ... data with an O I ... weight, both
    converted to `dtype` first, accumulating in `dtype` (as the kernels do):
    ONNX's Conv for float32, else windows and matrix products."""
    strides, pads, dilations = (
        spatial(cx.attrs["strides"], n),
        spatial_pads(cx.attrs["padding"], n),
        spatial(cx.attrs["dilation"], n),
    )
    groups = int(cx.attrs["groups"])
    if dtype == "float32":
        return cx.node(
            "Conv",
            [cx.cast(x, dtype), cx.cast(w, dtype)],
            strides=strides,
            pads=pads,
            dilations=dilations,
            group=groups,
        )
    return conv_by_matmul(cx, x, w, xshape, wshape, strides, pads, dilations, groups, dtype)


def conv_by_matmul(
    cx: OpContext,
    x: str,
    w: str,
    shape: tuple[int, ...],
    wshape: tuple[int, ...],
    strides: list[int],
    pads: list[int],
    dilations: list[int],
    groups: int,
    dtype: str,
) -> str:
    """A convolution as one matrix product per group over the window's taps
    (im2col), for the element types onnxruntime's Conv lacks."""
    import itertools
    import math

    n = len(shape) - 2
    batch, sizes = shape[0], list(shape[2:])
    out_ch, per_group, window = wshape[0], wshape[1], list(wshape[2:])
    outs = [(sizes[i] + pads[i] + pads[n + i] - dilations[i] * (window[i] - 1) - 1) // strides[i] + 1 for i in range(n)]
    x, w = cx.cast(x, dtype), cx.cast(w, dtype)
    if any(pads):
        x = cx.node(
            "Pad", [x, cx.ints([0, 0, *pads[:n], 0, 0, *pads[n:]]), cx.scalar(0, np_dtype(dtype))], mode="constant"
        )
    axes = list(range(2, 2 + n))
    taps = []
    for pos in itertools.product(*(range(k) for k in window)):
        starts = [p * d for p, d in zip(pos, dilations, strict=False)]
        ends = [s + st * (o - 1) + 1 for s, st, o in zip(starts, strides, outs, strict=False)]
        taps.append(
            cx.unsqueeze(cx.node("Slice", [x, cx.ints(starts), cx.ints(ends), cx.ints(axes), cx.ints(strides)]), [2])
        )
    cols = cx.node("Concat", taps, axis=2) if len(taps) > 1 else taps[0]  # (N, C, taps, *outs)
    count = math.prod(window)
    cols = cx.reshape(cols, [batch, groups, per_group * count, math.prod(outs)])
    kernel = cx.reshape(w, [groups, out_ch // groups, per_group * count])
    y = matrix_product(cx, kernel, cols, dtype)  # (N, groups, out_ch / groups, pixels)
    return cx.reshape(y, [batch, out_ch, *outs])


@converter("nn.conv1d_transpose", "nn.conv2d_transpose", "nn.conv3d_transpose")
def conv_transpose(cx: OpContext, x: str, w: str) -> str:
    _float_only(cx)
    n = cx.rank(0) - 2
    data, _, kernel = CONV_LAYOUTS[n]
    layout = cx.attrs["data_layout"]
    out_layout = cx.attrs["out_layout"] or layout
    x = to_layout(cx, x, layout, data)
    w = to_layout(cx, w, cx.attrs["kernel_layout"], kernel)
    y = cx.node(
        "ConvTranspose",
        [x, w],
        strides=spatial(cx.attrs["strides"], n),
        pads=spatial_pads(cx.attrs["padding"], n),
        dilations=spatial(cx.attrs["dilation"], n),
        output_padding=spatial(cx.attrs["output_padding"], n),
        group=int(cx.attrs["groups"]),
    )
    return to_layout(cx, y, data, out_layout)


@converter("nn.dense")
def dense(cx: OpContext, x: str, w: str) -> str:
    _float_only(cx)
    return cx.node("MatMul", [x, cx.node("Transpose", [w], perm=[1, 0])])


@converter("nn.matmul")
def matmul(cx: OpContext, a: str, b: str) -> str:
    _float_only(cx)
    if cx.attrs["transpose_a"]:
        a = cx.node("Transpose", [a], perm=_swap_last(cx.rank(0)))
    if cx.attrs["transpose_b"]:
        b = cx.node("Transpose", [b], perm=_swap_last(cx.rank(1)))
    return cx.node("MatMul", [a, b])


@converter("nn.batch_matmul")
def batch_matmul(cx: OpContext, a: str, b: str) -> str:
    return matmul(cx, a, b)


def _swap_last(rank: int) -> list[int]:
    perm = list(range(rank))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return perm


def along(cx: OpContext, v: str, axis: int, rank: int) -> str:
    """A vector `v` shaped to broadcast along `axis` of a tensor of `rank` dimensions."""
    axis = norm_axis(axis, rank)
    return cx.unsqueeze(v, range(1, rank - axis))


@converter("nn.bias_add")
def bias_add(cx: OpContext, x: str, b: str) -> str:
    return cx.node("Add", [x, along(cx, b, cx.attrs["axis"], cx.rank(0))])


@converter("nn.relu")
def relu(cx: OpContext, x: str) -> str:
    if not float_like(cx.dtype(0)):
        return cx.node("Max", [x, cx.like(0)])
    return cx.node("Relu", [x])


@converter("nn.leaky_relu")
def leaky_relu(cx: OpContext, x: str) -> str:
    return cx.node("LeakyRelu", [x], alpha=float(cx.attrs["alpha"]))


@converter("nn.prelu")
def prelu(cx: OpContext, x: str, alpha: str) -> str:
    return cx.node("PRelu", [x, along(cx, alpha, cx.attrs["axis"], cx.rank(0))])


@converter("nn.softmax", "nn.fast_softmax", "nn.log_softmax")
def softmax(cx: OpContext, x: str) -> str:
    return cx.node("LogSoftmax" if cx.name == "nn.log_softmax" else "Softmax", [x], axis=int(cx.attrs["axis"]))


@converter("nn.batch_flatten")
def batch_flatten(cx: OpContext, x: str) -> str:
    return cx.node("Flatten", [x], axis=1)


@converter("nn.dropout")
def dropout(cx: OpContext, x: str) -> tuple[str, str]:
    ones = cx.node("Expand", [cx.like(1), cx.node("Shape", [x])])
    return cx.node("Identity", [x]), ones


@converter("nn.pad")
def pad(cx: OpContext, x: str, value: str) -> str:
    widths = [tuple(int(v) for v in pair) for pair in cx.attrs["pad_width"]]
    pads = [b for b, _ in widths] + [a for _, a in widths]
    mode = cx.attrs["pad_mode"]
    if mode not in ("constant", "edge", "reflect"):
        raise Unsupported(f"pad_mode {mode!r}")
    if any(p < 0 for p in pads):
        raise Unsupported("negative pad widths")
    inputs = [x, cx.ints(pads)] + ([value] if mode == "constant" else [])
    return cx.node("Pad", inputs, mode=mode)


@converter("nn.mirror_pad")
def mirror_pad(cx: OpContext, x: str) -> str:
    widths = [tuple(int(v) for v in pair) for pair in cx.attrs["pad_width"]]
    if cx.attrs["mode"] == "REFLECT":
        pads = [b for b, _ in widths] + [a for _, a in widths]
        return cx.node("Pad", [x, cx.ints(pads)], mode="reflect")
    # SYMMETRIC: the edge repeated, then the mirror image; axis by axis
    shape = list(cx.shape(0))
    for axis, (before, after) in enumerate(widths):
        parts = []
        if before:
            parts.append(_reversed_slice(cx, x, axis, 0, before))
        parts.append(x)
        if after:
            parts.append(_reversed_slice(cx, x, axis, shape[axis] - after, shape[axis]))
        if len(parts) > 1:
            x = cx.node("Concat", parts, axis=axis)
        shape[axis] += before + after
    return x


def _reversed_slice(cx: OpContext, x: str, axis: int, start: int, stop: int) -> str:
    s = cx.node("Slice", [x, cx.ints([start]), cx.ints([stop]), cx.ints([axis])])
    return cx.node("Slice", [s, cx.ints([-1]), cx.ints([-(2**63)]), cx.ints([axis]), cx.ints([-1])])


@converter("nn.depth_to_space")
def depth_to_space(cx: OpContext, x: str) -> str:
    x = to_layout(cx, x, cx.attrs["layout"], "NCHW")
    mode = {"DCR": "DCR", "CDR": "CRD"}.get(cx.attrs["mode"])  # TVM calls ONNX's CRD order CDR
    if mode is None:
        raise Unsupported(f"mode {cx.attrs['mode']!r}")
    y = cx.node("DepthToSpace", [x], blocksize=int(cx.attrs["block_size"]), mode=mode)
    return to_layout(cx, y, "NCHW", cx.attrs["layout"])


@converter("nn.space_to_depth")
def space_to_depth(cx: OpContext, x: str) -> str:
    if cx.attrs["mode"] != "DCR":
        raise Unsupported(f"ONNX's SpaceToDepth has only the DCR order, not {cx.attrs['mode']}")
    x = to_layout(cx, x, cx.attrs["layout"], "NCHW")
    y = cx.node("SpaceToDepth", [x], blocksize=int(cx.attrs["block_size"]))
    return to_layout(cx, y, "NCHW", cx.attrs["layout"])


@converter("nn.cross_entropy")
def cross_entropy(cx: OpContext, p: str, t: str) -> str:
    total = cx.reduce("ReduceSum", cx.node("Mul", [cx.node("Log", [p]), t]), None, False)
    batch = cx.like(cx.shape(0)[0])
    return cx.node("Neg", [cx.node("Div", [total, batch])])


@converter("nn.cross_entropy_with_logits")
def cross_entropy_with_logits(cx: OpContext, p: str, t: str) -> str:
    total = cx.reduce("ReduceSum", cx.node("Mul", [p, t]), None, False)
    batch = cx.like(cx.shape(0)[0])
    return cx.node("Neg", [cx.node("Div", [total, batch])])


@converter("nn.nll_loss")
def nll_loss(cx: OpContext, p: str, t: str, w: str) -> str:
    t = cx.cast(t, "int64")
    return cx.node(
        "NegativeLogLikelihoodLoss",
        [p, t, w],
        reduction=cx.attrs["reduction"],
        ignore_index=int(cx.attrs["ignore_index"]),
    )


def _np(dtype: str) -> Any:
    return np_dtype(dtype)
