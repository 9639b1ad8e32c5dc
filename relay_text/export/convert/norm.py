"""Normalisations and pooling."""

from __future__ import annotations

from typing import Any

from . import Attrs, OpContext, Unsupported, converter, norm_axis
from .nn import along, spatial, spatial_pads, to_layout


def _normalize(cx: OpContext, x: str, axes: list[int], eps: float) -> str:
    """(x - mean) / sqrt(var + eps) over `axes`."""
    mean = cx.reduce("ReduceMean", x, axes, True)
    centred = cx.node("Sub", [x, mean])
    var = cx.reduce("ReduceMean", cx.node("Mul", [centred, centred]), axes, True)
    return cx.node("Div", [centred, cx.node("Sqrt", [cx.node("Add", [var, cx.like(eps)])])])


def _affine(cx: OpContext, y: str, gamma: str, beta: str, axis: int, rank: int) -> str:
    if cx.attrs.get("scale", True):
        y = cx.node("Mul", [y, along(cx, gamma, axis, rank)])
    if cx.attrs.get("center", True):
        y = cx.node("Add", [y, along(cx, beta, axis, rank)])
    return y


@converter("nn.batch_norm")
def batch_norm(cx: OpContext, x: str, gamma: str, beta: str, mean: str, var: str) -> tuple[str, str, str]:
    rank = cx.rank(0)
    axis = norm_axis(int(cx.attrs["axis"]), rank)
    eps = float(cx.attrs["epsilon"])
    m = along(cx, mean, axis, rank)
    v = along(cx, var, axis, rank)
    y = cx.node("Div", [cx.node("Sub", [x, m]), cx.node("Sqrt", [cx.node("Add", [v, cx.like(eps)])])])
    y = _affine(cx, y, gamma, beta, axis, rank)
    return y, cx.node("Identity", [mean]), cx.node("Identity", [var])


@converter("nn.layer_norm")
def layer_norm(cx: OpContext, x: str, gamma: str, beta: str) -> str:
    rank = cx.rank(0)
    axis = norm_axis(int(cx.attrs["axis"]), rank)
    y = _normalize(cx, x, [axis], float(cx.attrs["epsilon"]))
    return _affine(cx, y, gamma, beta, axis, rank)


@converter("nn.instance_norm")
def instance_norm(cx: OpContext, x: str, gamma: str, beta: str) -> str:
    rank = cx.rank(0)
    axis = norm_axis(int(cx.attrs["axis"]), rank)
    axes = [a for a in range(1, rank) if a != axis]
    y = _normalize(cx, x, axes, float(cx.attrs["epsilon"]))
    return _affine(cx, y, gamma, beta, axis, rank)


@converter("nn.group_norm")
def group_norm(cx: OpContext, x: str, gamma: str, beta: str) -> str:
    shape = cx.shape(0)
    rank = len(shape)
    axis = norm_axis(int(cx.attrs["axis"]), rank)
    groups = int(cx.attrs["num_groups"])
    if axis != 1 or groups <= 0 or shape[1] % groups:
        raise Unsupported("group_norm is exported for channels on axis 1 divided evenly into groups")
    grouped = cx.reshape(x, [shape[0], groups, -1])
    y = _normalize(cx, grouped, [2], float(cx.attrs["epsilon"]))
    y = cx.reshape(y, shape)
    return _affine(cx, y, gamma, beta, axis, rank)


@converter("nn.l2_normalize")
def l2_normalize(cx: OpContext, x: str) -> str:
    axes = [norm_axis(int(a), cx.rank(0)) for a in cx.attrs["axis"]]
    total = cx.reduce("ReduceSum", cx.node("Mul", [x, x]), axes, True)
    return cx.node("Div", [x, cx.node("Sqrt", [cx.node("Max", [total, cx.like(float(cx.attrs["eps"]))])])])


@converter("nn.lrn")
def lrn(cx: OpContext, x: str) -> str:
    if norm_axis(int(cx.attrs["axis"]), cx.rank(0)) != 1:
        raise Unsupported("ONNX's LRN normalises over axis 1 only")
    a = cx.attrs
    return cx.node(
        "LRN", [x], size=int(a["size"]), alpha=float(a["alpha"]), beta=float(a["beta"]), bias=float(a["bias"])
    )


POOL_LAYOUTS = {1: "NCW", 2: "NCHW", 3: "NCDHW"}


def _avg_pool_opset(attrs: Attrs) -> int:
    """AveragePool takes dilations from opset 19."""
    return 19 if any(int(d) != 1 for d in attrs["dilation"]) else 0


@converter("nn.avg_pool1d", "nn.avg_pool2d", "nn.avg_pool3d", call_opset=_avg_pool_opset)
@converter("nn.max_pool1d", "nn.max_pool2d", "nn.max_pool3d")
def pool(cx: OpContext, x: str) -> str:
    n = cx.rank(0) - 2
    layout = cx.attrs["layout"]
    out_layout = cx.attrs["out_layout"] or layout
    x = to_layout(cx, x, layout, POOL_LAYOUTS[n])
    common: dict[str, Any] = dict(
        kernel_shape=spatial(cx.attrs["pool_size"], n),
        strides=spatial(cx.attrs["strides"], n),
        pads=spatial_pads(cx.attrs["padding"], n),
        ceil_mode=int(bool(cx.attrs["ceil_mode"])),
    )
    dilations = spatial(cx.attrs["dilation"], n)
    if "max" in cx.name:
        y = cx.node("MaxPool", [x], dilations=dilations, **common)
    else:
        if any(d != 1 for d in dilations) and cx.opset < 19:
            raise Unsupported("a dilated average pool needs opset 19")
        extra: dict[str, Any] = {"dilations": dilations} if cx.opset >= 19 else {}
        y = cx.node("AveragePool", [x], count_include_pad=int(bool(cx.attrs["count_include_pad"])), **common, **extra)
    return to_layout(cx, y, POOL_LAYOUTS[n], out_layout)


@converter("nn.global_avg_pool2d", "nn.global_max_pool2d")
def global_pool(cx: OpContext, x: str) -> str:
    layout = cx.attrs["layout"]
    out_layout = cx.attrs["out_layout"] or layout
    x = to_layout(cx, x, layout, "NCHW")
    y = cx.node("GlobalAveragePool" if "avg" in cx.name else "GlobalMaxPool", [x])
    return to_layout(cx, y, "NCHW", out_layout)


ADAPTIVE = {
    "nn.adaptive_avg_pool1d": (1, "NCW"),
    "nn.adaptive_avg_pool2d": (2, "NCHW"),
    "nn.adaptive_avg_pool3d": (3, "NCDHW"),
    "nn.adaptive_max_pool1d": (1, "NCW"),
    "nn.adaptive_max_pool2d": (2, "NCHW"),
    "nn.adaptive_max_pool3d": (3, "NCDHW"),
}


@converter(*ADAPTIVE)
def adaptive_pool(cx: OpContext, x: str) -> str:
    _n, base = ADAPTIVE[cx.name]
    layout = cx.attrs["layout"]
    out_layout = cx.attrs["out_layout"] or layout
    x = to_layout(cx, x, layout, base)
    perm = [layout.index(c) for c in base]
    in_shape = [cx.shape(0)[p] for p in perm][2:]
    out_shape = [cx.out_shape[p] for p in perm][2:]
    if any(i % o for i, o in zip(in_shape, out_shape, strict=False)):
        raise Unsupported(
            f"ONNX pools with one window size: the input's {in_shape} is not a multiple of the output's {out_shape}"
        )
    kernel = [i // o for i, o in zip(in_shape, out_shape, strict=False)]
    op = "AveragePool" if "avg" in cx.name else "MaxPool"
    y = cx.node(op, [x], kernel_shape=kernel, strides=kernel)
    return to_layout(cx, y, base, out_layout)
