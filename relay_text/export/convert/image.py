"""Image operators: resizing, upsampling, grid sampling."""

from __future__ import annotations

from typing import Any

from . import OpContext, Unsupported, converter

METHODS = {
    "nearest_neighbor": "nearest",
    "linear": "linear",
    "cubic": "cubic",
    "bilinear": "linear",
    "bicubic": "cubic",
}
ROUNDING = {
    "round": "round_prefer_ceil",
    "round_prefer_ceil": "round_prefer_ceil",
    "round_prefer_floor": "round_prefer_floor",
    "floor": "floor",
    "ceil": "ceil",
}
MODES = {"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn"}


def _resize(
    cx: OpContext,
    x: str,
    method: str,
    mode: str,
    rounding: str,
    alpha: float = -0.75,
    exclude: int = 0,
    roi: Any = None,
    extrapolation: float = 0.0,
) -> str:
    return resize_to(cx, x, cx.ints(cx.out_shape), method, mode, rounding, alpha, exclude, roi, extrapolation)


def resize_to(
    cx: OpContext,
    x: str,
    sizes: str,
    method: str,
    mode: str,
    rounding: str,
    alpha: float = -0.75,
    exclude: int = 0,
    roi: str | None = None,
    extrapolation: float = 0.0,
) -> str:
    """`Resize` to `sizes` (an int64 vector, one size per axis)."""
    if method not in METHODS:
        raise Unsupported(f"method {method!r}")
    if mode not in MODES and not (mode == "tf_crop_and_resize" and roi is not None):
        raise Unsupported(f"coordinate_transformation_mode {mode!r}")
    onnx_method = METHODS[method]
    extra: dict[str, Any] = {}
    if onnx_method == "nearest":
        rounding = rounding or ("round" if mode == "align_corners" else "floor")
        if rounding not in ROUNDING:
            raise Unsupported(f"rounding_method {rounding!r}")
        extra["nearest_mode"] = ROUNDING[rounding]
    if onnx_method == "cubic":
        extra["cubic_coeff_a"] = float(alpha)
        extra["exclude_outside"] = int(exclude)
    if mode == "tf_crop_and_resize":
        extra["extrapolation_value"] = float(extrapolation)
    return cx.node("Resize", [x, roi or "", "", sizes], mode=onnx_method, coordinate_transformation_mode=mode, **extra)


@converter("image.resize1d", "image.resize2d", "image.resize3d", "image.resize")
def resize(cx: OpContext, x: str, *rest: str) -> str:
    a = cx.attrs
    if cx.name == "image.resize":  # TVM's older name and attributes of image.resize2d
        from ...ops.legacy.renamed import _resize as current

        a = current(a)
    layout = a.get("layout") or ""
    roi = None
    if a["coordinate_transformation_mode"] == "tf_crop_and_resize":
        box = [float(r) for r in a.get("roi", ())]
        spatial = [c for c in layout if c in "DHW"]
        if len(box) != 2 * len(spatial):
            raise Unsupported(f"a roi of {len(box)} values for {len(spatial)} spatial axes")
        starts = [box[spatial.index(c)] if c in spatial else 0.0 for c in layout]
        ends = [box[len(spatial) + spatial.index(c)] if c in spatial else 1.0 for c in layout]
        roi = cx.const(starts + ends, "float32")
    elif any(float(r) != 0.0 for r in a.get("roi", ())):
        raise Unsupported("a region of interest (roi) outside the tf_crop_and_resize mode")
    if (a.get("out_dtype") or cx.dtype(0)) != cx.dtype(0):
        raise Unsupported("out_dtype other than the input's")
    return _resize(
        cx,
        x,
        a["method"],
        a["coordinate_transformation_mode"],
        a["rounding_method"],
        a["cubic_alpha"],
        a["cubic_exclude"],
        roi,
        a.get("extrapolation_value", 0.0),
    )


@converter("nn.upsampling", "nn.upsampling3d")
def upsampling(cx: OpContext, x: str) -> str:
    a = cx.attrs
    if cx.name == "nn.upsampling3d":
        mode = a["coordinate_transformation_mode"]
    else:
        mode = "align_corners" if a["align_corners"] else "asymmetric"
    return _resize(cx, x, a["method"], mode, "", -0.5, 0)


@converter("image.grid_sample")
def grid_sample(cx: OpContext, data: str, grid: str) -> str:
    a = cx.attrs
    if a["layout"] != "NCHW" or cx.rank(0) != 4:
        raise Unsupported("grid_sample is exported for 4-D NCHW data")
    if cx.opset < 16:
        raise Unsupported("GridSample needs opset 16")
    methods = (
        {"bilinear": "linear", "nearest": "nearest", "bicubic": "cubic"}
        if cx.opset >= 20
        else {"bilinear": "bilinear", "nearest": "nearest", "bicubic": "bicubic"}
    )
    method = methods.get(a["method"])
    if method is None:
        raise Unsupported(f"method {a['method']!r}")
    # ours takes the grid as (N, 2, H, W); ONNX as (N, H, W, 2)
    g = cx.node("Transpose", [grid], perm=[0, 2, 3, 1])
    return cx.node(
        "GridSample",
        [data, g],
        mode=method,
        padding_mode=a["padding_mode"],
        align_corners=int(bool(a["align_corners"])),
    )
