"""Convolutions and pooling: `Conv`, `ConvTranspose`, `MaxPool`,
`AveragePool`, `LpPool`, the global pools and `MaxUnpool`.

ONNX lists padding as all the starts then all the ends
(`[x1_begin, x2_begin, ..., x1_end, x2_end]`), the order Relay's `padding`
takes too. `auto_pad` SAME_UPPER / SAME_LOWER is worked out from the static
input shape (TVM padded at run time; a static padding is the same result
and keeps the text readable), putting the odd element at the end (UPPER)
or the start (LOWER).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...ir.expr import Expr
from ..builder import Builder, Unsupported
from ._common import known_dims, scalar
from .graph import Ctx
from .node import Node
from .table import Converted, converter

_LAYOUT = {1: ("NCW", "OIW"), 2: ("NCHW", "OIHW"), 3: ("NCDHW", "OIDHW")}


def _spatial(b: Builder, x: Expr, what: str = "input") -> int:
    rank = b.rank(x)
    dims = rank - 2
    if dims not in (1, 2, 3):
        raise Unsupported(f"only 1-, 2- and 3-dimensional windows are supported; the {what} has {rank} dimensions")
    return dims


def same_pads(
    in_sizes: Sequence[int | None], kernel: Sequence[int], strides: Sequence[int], dilations: Sequence[int], mode: str
) -> list[int]:
    """Static SAME padding: the output is ceil(in / stride) long."""
    begins, ends = [], []
    for size, k, s, d in zip(in_sizes, kernel, strides, dilations, strict=False):
        if size is None:
            raise Unsupported("`auto_pad` SAME needs the spatial dimensions of the input to be known", attr="auto_pad")
        out = -(-size // s)
        total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
        small, big = total // 2, total - total // 2
        if mode == "SAME_LOWER":
            begins.append(big)
            ends.append(small)
        else:
            begins.append(small)
            ends.append(big)
    return begins + ends


def window_attrs(
    b: Builder, n: Node, x: Expr, kernel: Sequence[int], dims: int, default_dilation: bool = True
) -> tuple[list[int], list[int], list[int]]:
    """strides, dilations and padding (Relay order) of a windowed node."""
    strides = list(n.attr("strides", [1] * dims))
    dilations = list(n.attr("dilations", [1] * dims)) if default_dilation else [1] * dims
    pads = list(n.attr("pads", [0] * (2 * dims)))
    auto_pad = n.attr("auto_pad", "NOTSET", allowed=("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"))
    if len(strides) != dims or len(dilations) != dims or len(pads) != 2 * dims:
        raise Unsupported(
            f"`strides`, `dilations` and `pads` must have {dims}, {dims} and {2 * dims} values for a "
            f"{dims}-dimensional window"
        )
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        pads = same_pads(b.shape(x)[2:], kernel, strides, dilations, auto_pad)
    elif auto_pad == "VALID":
        pads = [0] * (2 * dims)
    return strides, dilations, pads


@converter("Conv")
def conv(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, w = n.input(0), n.input(1)
    dims = _spatial(b, x)
    wshape = b.shape(w)
    kernel = list(n.attr("kernel_shape", wshape[2:]))
    if any(k is None for k in kernel):
        raise Unsupported("the kernel's spatial size must be known (give `kernel_shape`, or a weight of static shape)")
    strides, dilations, pads = window_attrs(b, n, x, kernel, dims)
    group = int(n.attr("group", 1))
    data_layout, kernel_layout = _LAYOUT[dims]
    attrs = dict(
        strides=strides,
        padding=pads,
        dilation=dilations,
        groups=group,
        kernel_size=kernel,
        data_layout=data_layout,
        kernel_layout=kernel_layout,
    )
    if wshape[0] is not None:
        attrs["channels"] = wshape[0]
    out = b.call(f"nn.conv{dims}d", x, w, **attrs)
    if n.has(2):
        out = b.call("nn.bias_add", out, n.input(2), axis=1)
    return out


@converter("ConvTranspose")
def conv_transpose(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, w = n.input(0), n.input(1)
    dims = _spatial(b, x)
    wshape = b.shape(w)
    group = int(n.attr("group", 1))
    kernel = list(n.attr("kernel_shape", wshape[2:]))
    strides = list(n.attr("strides", [1] * dims))
    dilations = list(n.attr("dilations", [1] * dims))
    output_padding = list(n.attr("output_padding", [0] * dims))
    pads = list(n.attr("pads", [0] * (2 * dims)))
    auto_pad = n.attr("auto_pad", "NOTSET", allowed=("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"))
    output_shape = n.attr("output_shape", None)
    in_sizes = b.shape(x)[2:]
    if output_shape is not None or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        known_sizes = known_dims(in_sizes)
        if known_sizes is None:
            raise Unsupported("`output_shape` and `auto_pad` need the spatial dimensions of the input to be known")
        if output_shape is not None:
            target = list(output_shape)[-dims:]
        else:
            target = [s * st for s, st in zip(known_sizes, strides, strict=False)]
        begins, ends = [], []
        for i in range(dims):
            total = (
                strides[i] * (known_sizes[i] - 1) + output_padding[i] + (kernel[i] - 1) * dilations[i] + 1 - target[i]
            )
            if total < 0:  # the output is longer than the kernel reaches: output padding makes it up
                output_padding[i] += -total
                total = 0
            if auto_pad == "SAME_UPPER":
                begins.append(total // 2)
                ends.append(total - total // 2)
            else:
                begins.append(total - total // 2)
                ends.append(total // 2)
        pads = begins + ends
    elif auto_pad == "VALID":
        pads = [0] * (2 * dims)
    channels = wshape[1] * group if wshape[1] is not None else None
    data_layout = _LAYOUT[dims][0]
    attrs = dict(
        strides=strides,
        padding=pads,
        output_padding=output_padding,
        dilation=dilations,
        groups=group,
        kernel_size=kernel,
        data_layout=data_layout,
        kernel_layout="IO" + data_layout[2:],
    )
    if channels is not None:
        attrs["channels"] = channels
    out = b.call(f"nn.conv{dims}d_transpose", x, w, **attrs)
    if n.has(2):
        out = b.call("nn.bias_add", out, n.input(2), axis=1)
    return out


def onnx_ceil_mode(
    b: Builder,
    x: Expr,
    ceil: bool,
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
) -> bool:
    """ONNX's ceil mode drops a last window that would start in the end
    padding; when that leaves the floor mode's output size on every axis,
    floor mode is what the node computes."""
    if not ceil:
        return False
    dims = len(kernel)
    sizes = known_dims(b.shape(x)[2:])
    if sizes is None:
        return True
    same_as_floor = True
    for i in range(dims):
        span = sizes[i] + pads[i] + pads[dims + i] - ((kernel[i] - 1) * dilations[i] + 1)
        out_ceil = -(-span // strides[i]) + 1
        out_floor = span // strides[i] + 1
        out = out_ceil - 1 if (out_ceil - 1) * strides[i] >= sizes[i] + pads[i] else out_ceil
        if out != out_floor:
            same_as_floor = False
    return not same_as_floor


def _pool(cx: Ctx, n: Node, kind: str) -> Expr:
    b = cx.b
    x: Expr = n.input(0)
    dims = _spatial(b, x)
    kernel = list(n.require("kernel_shape"))
    if len(kernel) != dims:
        raise Unsupported(
            f"`kernel_shape` has {len(kernel)} values for a {dims}-dimensional input", attr="kernel_shape"
        )
    dilation_ok = kind == "max" or n.opset >= 19
    strides, dilations, pads = window_attrs(b, n, x, kernel, dims, default_dilation=dilation_ok)
    ceil_mode = onnx_ceil_mode(b, x, bool(n.attr("ceil_mode", 0)), kernel, strides, dilations, pads)
    layout = _LAYOUT[dims][0]
    attrs = dict(
        pool_size=kernel, strides=strides, dilation=dilations, padding=pads, layout=layout, ceil_mode=ceil_mode
    )
    if kind == "max":
        if n.attr("storage_order", 0) != 0:
            raise Unsupported("`storage_order` = 1 (column-major indices) is not supported", attr="storage_order")
        if n.wants(1):
            raise Unsupported("the second output of `MaxPool` (the indices of the maxima) is not supported")
        return b.call(f"nn.max_pool{dims}d", x, **attrs)
    attrs["count_include_pad"] = bool(n.attr("count_include_pad", 0))
    return b.call(f"nn.avg_pool{dims}d", x, **attrs)


@converter("MaxPool")
def max_pool(cx: Ctx, n: Node) -> Converted:
    return _pool(cx, n, "max")


@converter("AveragePool")
def average_pool(cx: Ctx, n: Node) -> Converted:
    return _pool(cx, n, "avg")


@converter("LpPool")
def lp_pool(cx: Ctx, n: Node) -> Converted:
    """(sum over the window of |x|^p)^(1/p): an average pool of |x|^p that
    counts the padding, times the window size (TVM's formula)."""
    b = cx.b
    x: Expr = n.input(0)
    dims = _spatial(b, x)
    dt = b.dtype(x)
    kernel = list(n.require("kernel_shape"))
    p = n.attr("p", 2.0)
    strides, dilations, pads = window_attrs(b, n, x, kernel, dims, default_dilation=n.opset >= 18)
    ceil_mode = bool(n.attr("ceil_mode", 0))
    powered = b.call("power", b.call("abs", x), scalar(b, p, dt))
    pooled = b.call(
        f"nn.avg_pool{dims}d",
        powered,
        pool_size=kernel,
        strides=strides,
        dilation=dilations,
        padding=pads,
        layout=_LAYOUT[dims][0],
        ceil_mode=ceil_mode,
        count_include_pad=True,
    )
    summed = b.call("multiply", pooled, scalar(b, float(np.prod(kernel)), dt))
    return b.call("power", summed, scalar(b, 1.0 / p, dt))


@converter("GlobalLpPool", since=2)
def global_lp_pool(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    _spatial(b, x)
    dt = b.dtype(x)
    p = n.attr("p", 2.0)
    axes = list(range(2, b.rank(x)))
    s = b.call("sum", b.call("power", b.call("abs", x), scalar(b, float(p), dt)), axis=axes, keepdims=True)
    return b.call("power", s, scalar(b, 1.0 / p, dt))


def _global(cx: Ctx, n: Node, kind: str) -> Expr:
    b = cx.b
    x: Expr = n.input(0)
    dims = _spatial(b, x)
    if dims == 2:
        return b.call(f"nn.global_{kind}_pool2d", x)
    return b.call(f"nn.adaptive_{kind}_pool{dims}d", x, output_size=[1] * dims, layout=_LAYOUT[dims][0])


@converter("GlobalAveragePool")
def global_average_pool(cx: Ctx, n: Node) -> Converted:
    return _global(cx, n, "avg")


@converter("GlobalMaxPool")
def global_max_pool(cx: Ctx, n: Node) -> Converted:
    return _global(cx, n, "max")


@converter("MaxUnpool", since=9)
def max_unpool(cx: Ctx, n: Node) -> Converted:
    """Zeros of the unpooled shape with the values scattered to their indices."""
    b = cx.b
    x, indices = n.input(0), n.input(1)
    dims = _spatial(b, x)
    kernel = list(n.require("kernel_shape"))
    strides = list(n.attr("strides", [1] * dims))
    pads = list(n.attr("pads", [0] * (2 * dims)))
    shape = b.static_shape(x)
    inferred = list(shape[:2]) + [
        (shape[2 + i] - 1) * strides[i] + kernel[i] - pads[i] - pads[dims + i] for i in range(dims)
    ]
    dt = b.dtype(x)
    zeros = b.call("zeros", shape=inferred, dtype=dt)
    flat = b.call(
        "scatter_elements",
        b.call("reshape", zeros, newshape=[-1]),
        b.call("reshape", indices, newshape=[-1]),
        b.call("reshape", x, newshape=[-1]),
        axis=0,
        reduction="update",
    )
    out = b.call("reshape", flat, newshape=inferred)
    if n.has(2):  # a larger output: the unpooled values at its start, zeros after
        target = b.int_list(n.input(2), "the output shape")
        if len(target) != len(inferred) or any(t < i for t, i in zip(target, inferred, strict=False)):
            raise Unsupported(f"the output shape {target} is smaller than the unpooled shape {inferred}")
        if target != inferred:
            out = b.call(
                "nn.pad", out, scalar(b, 0, dt), pad_width=[[0, t - i] for t, i in zip(target, inferred, strict=False)]
            )
    return out
