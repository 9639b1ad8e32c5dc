"""Image operators: resizing, upsampling, grid sampling."""

from __future__ import annotations

from . import OpContext, Unsupported, converter

METHODS = {"nearest_neighbor": "nearest", "linear": "linear", "cubic": "cubic", "bilinear": "linear", "bicubic": "cubic"}
ROUNDING = {
    "round": "round_prefer_ceil",
    "round_prefer_ceil": "round_prefer_ceil",
    "round_prefer_floor": "round_prefer_floor",
    "floor": "floor",
    "ceil": "ceil",
}
MODES = {"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn"}


def _resize(cx: OpContext, x: str, method: str, mode: str, rounding: str, alpha: float = -0.75, exclude: int = 0) -> str:
    if method not in METHODS:
        raise Unsupported(f"method {method!r}")
    if mode not in MODES:
        raise Unsupported(f"coordinate_transformation_mode {mode!r}")
    onnx_method = METHODS[method]
    extra = {}
    if onnx_method == "nearest":
        rounding = rounding or ("round" if mode == "align_corners" else "floor")
        if rounding not in ROUNDING:
            raise Unsupported(f"rounding_method {rounding!r}")
        extra["nearest_mode"] = ROUNDING[rounding]
    if onnx_method == "cubic":
        extra["cubic_coeff_a"] = float(alpha)
        extra["exclude_outside"] = int(exclude)
    sizes = cx.ints(cx.out_shape)
    return cx.node("Resize", [x, "", "", sizes], mode=onnx_method, coordinate_transformation_mode=mode, **extra)


@converter("image.resize1d", "image.resize2d", "image.resize3d")
def resize(cx: OpContext, x: str, *rest: str) -> str:
    a = cx.attrs
    if any(float(r) != 0.0 for r in a.get("roi", ())):
        raise Unsupported("a region of interest (roi)")
    if (a.get("out_dtype") or cx.dtype(0)) != cx.dtype(0):
        raise Unsupported("out_dtype other than the input's")
    return _resize(cx, x, a["method"], a["coordinate_transformation_mode"], a["rounding_method"], a["cubic_alpha"], a["cubic_exclude"])


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
    methods = {"bilinear": "linear", "nearest": "nearest", "bicubic": "cubic"} if cx.opset >= 20 else {"bilinear": "bilinear", "nearest": "nearest", "bicubic": "bicubic"}
    method = methods.get(a["method"])
    if method is None:
        raise Unsupported(f"method {a['method']!r}")
    # ours takes the grid as (N, 2, H, W); ONNX as (N, H, W, 2)
    g = cx.node("Transpose", [grid], perm=[0, 2, 3, 1])
    return cx.node("GridSample", [data, g], mode=method, padding_mode=a["padding_mode"], align_corners=int(bool(a["align_corners"])))
