"""Resizing images: `image.resize2d` and `nn.upsampling`.

Both compute each output pixel from a source coordinate on each spatial
axis. With input length `L`, output length `S`, scale `L / S` and output
index `o`, `coordinate_transformation_mode` chooses the source coordinate:

    half_pixel            (o + 0.5) * scale - 0.5     (the default)
    align_corners         o * (L - 1) / (S - 1)
    asymmetric            o * scale
    pytorch_half_pixel    like half_pixel, but 0 when S is 1
    tf_half_pixel_for_nn  (o + 0.5) * scale

`method` "nearest_neighbor" takes the pixel at the rounded coordinate
(`rounding_method`; by default "round" with align_corners, else "floor"),
"linear" blends the two neighbours on each axis, and "cubic" blends four
with Keys' cubic kernel (`cubic_alpha`, default -0.5; `cubic_exclude=1`
drops taps outside the image and renormalizes). Indices outside the image
are clamped to its border.

Resizing is separable: each axis is one matrix of interpolation weights, so
the kernel is two matrix products, whatever the method.

`nn.upsampling(data, scale_h, scale_w, method="nearest_neighbor",
align_corners=False)` resizes to `round(H * scale_h)` by `round(W * scale_w)`
with the asymmetric mapping (align_corners when asked); its methods are
"nearest_neighbor", "bilinear" and "bicubic".
"""

from __future__ import annotations

import math
from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from .._np import np, wrap
from ..registry import Attr, register
from ..relations import Relation, known_rank, relation, shape_text
from ..types import Args, Attrs, Shape, Value

MODES = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn")
METHODS = ("nearest_neighbor", "linear", "cubic")
ROUNDING = ("", "round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


# ---------------------------------------------------------------- interpolation weights


def source_coords(length: int, size: int, mode: str, start: float = 0.0, end: float = 0.0) -> Any:
    """The source coordinate of every output index (float64); `start` and `end`
    are the axis's region of interest, read only by "tf_crop_and_resize"."""
    o = np.arange(size, dtype=np.float64)
    if mode == "tf_crop_and_resize":
        if size > 1:
            return start * (length - 1) + o * ((end - start) * (length - 1) / (size - 1))
        return np.full(size, 0.5 * (start + end) * (length - 1))
    scale = length / size
    if mode == "half_pixel":
        return (o + 0.5) * scale - 0.5
    if mode == "align_corners":
        return o * ((length - 1) / (size - 1)) if size > 1 else np.zeros(size)
    if mode == "asymmetric":
        return o * scale
    if mode == "pytorch_half_pixel":
        return (o + 0.5) * scale - 0.5 if size > 1 else np.zeros(size)
    return (o + 0.5) * scale  # tf_half_pixel_for_nn


def _nearest_index(v: Any, rounding: str) -> Any:
    if rounding == "round":  # halves away from zero
        return np.sign(v) * np.floor(np.abs(v) + 0.5)
    if rounding == "round_prefer_floor":
        return np.ceil(v - 0.5)
    if rounding == "round_prefer_ceil":
        return np.floor(v + 0.5)
    if rounding == "floor":
        return np.floor(v + 1e-5)
    return np.ceil(v - 1e-5)


def _cubic(t: Any, alpha: float) -> Any:
    """Keys' cubic convolution kernel at distances t."""
    t = np.abs(t)
    near = ((alpha + 2) * t - (alpha + 3)) * t * t + 1
    far = ((alpha * t - 5 * alpha) * t + 8 * alpha) * t - 4 * alpha
    return np.where(t <= 1, near, np.where(t < 2, far, 0.0))


def weight_matrix(
    length: int,
    size: int,
    method: str,
    mode: str,
    rounding: str = "",
    alpha: float = -0.5,
    exclude: bool = False,
    roi: tuple[float, float] = (0.0, 0.0),
) -> Any:
    """The (size, length) matrix W with output = W @ input along one axis."""
    src = source_coords(length, size, mode, *roi)
    w = np.zeros((size, length), dtype=np.float64)
    rows = np.arange(size)
    if method == "nearest_neighbor":
        rounding = rounding or ("round" if mode == "align_corners" else "floor")
        idx = np.clip(_nearest_index(src, rounding), 0, length - 1).astype(np.int64)
        w[rows, idx] = 1.0
        return w
    base = np.floor(src)
    frac = src - base
    taps = [(0, 1 - frac), (1, frac)] if method == "linear" else [(k, _cubic(frac - k, alpha)) for k in (-1, 0, 1, 2)]
    for offset, weight in taps:
        pos = base.astype(np.int64) + offset
        if method == "cubic" and exclude:
            weight = np.where((pos < 0) | (pos >= length), 0.0, weight)
        np.add.at(w, (rows, np.clip(pos, 0, length - 1)), weight)
    if method == "cubic" and exclude:
        w /= w.sum(axis=1, keepdims=True)
    return w


def resize_spatial(
    x: Any,
    sizes: Shape,
    method: str,
    mode: str,
    rounding: str,
    alpha: float,
    exclude: bool,
    dtype: Any,
    rois: tuple[tuple[float, float], ...] = (),
    extrapolation: float = 0.0,
) -> Any:
    """Resize the trailing axes of `x` (N, C, *spatial) to `sizes`, one weight
    matrix per axis. `rois` holds a (start, end) pair per axis for
    "tf_crop_and_resize", where output pixels whose source coordinate falls
    outside the image on any axis take `extrapolation`."""
    work = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    out = x.astype(work, copy=False)
    lead = x.ndim - len(sizes)
    outside = None
    for k, size in enumerate(sizes):
        axis = lead + k
        length = x.shape[axis]
        roi = rois[k] if rois else (0.0, 0.0)
        w = weight_matrix(length, size, method, mode, rounding, alpha, exclude, roi).astype(work)
        out = np.moveaxis(np.matmul(w, np.moveaxis(out, axis, -2)), -2, axis)
        if mode == "tf_crop_and_resize":
            src = source_coords(length, size, mode, *roi)
            bad = ((src < 0) | (src > length - 1)).reshape((size,) + (1,) * (len(sizes) - k - 1))
            outside = bad if outside is None else outside | bad
    if outside is not None:
        out = np.where(outside, np.asarray(extrapolation, dtype=work), out)
    if np.dtype(dtype).kind in "iu":
        out = np.trunc(out)
    return out.astype(dtype)


def resize_nchw(
    x: Any, out_h: int, out_w: int, method: str, mode: str, rounding: str, alpha: float, exclude: bool, dtype: Any
) -> Any:
    return resize_spatial(x, (out_h, out_w), method, mode, rounding, alpha, exclude, dtype)


# ---------------------------------------------------------------- relations


def _check_layout(r: Relation, name: str = "layout") -> str:
    layout: str = r.attrs[name]
    if sorted(layout) != sorted("NCHW"):
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}`: {name} "{layout}" is not supported',
            notes=['use an order of the letters NCHW, e.g. "NHWC"'],
        )
    return layout


def _choice(r: Relation, name: str, allowed: tuple[str, ...]) -> str:
    value: str = r.attrs[name]
    if value not in allowed:
        shown = ", ".join(f'"{a}"' for a in allowed if a)
        r.fail(codes.TYPE_MISMATCH, f'`{r.op}` {name} "{value}" is not supported', notes=[f"use one of {shown}"])
    return value


@relation("Resize2D")
def resize2d_rel(r: Relation) -> bool:
    layout = _check_layout(r)
    _choice(r, "method", METHODS)
    _choice(r, "coordinate_transformation_mode", MODES)
    _choice(r, "rounding_method", ROUNDING)
    size = r.attrs["size"]
    if len(size) not in (1, 2) or any(v <= 0 for v in size):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`image.resize2d` size takes 1 or 2 positive values (height, width), found {list(size)}",
        )
    data = r.tensor(0)
    if not known_rank(data.shape):
        return False
    if len(data.shape) != 4:
        r.fail(
            codes.SHAPE_MISMATCH, f"`image.resize2d` needs 4-D data ({layout}), found {shape_text(data.shape)}", arg=0
        )
    dims = {x: data.shape[layout.index(x)] for x in "NCHW"}
    dims["H"], dims["W"] = (size[0], size[0]) if len(size) == 1 else size
    r.set_result(TensorType(tuple(dims[x] for x in layout), r.attrs["out_dtype"] or data.dtype))
    return True


@register(
    "image.resize2d",
    inputs=1,
    relation=resize2d_rel,
    attrs=(
        Attr("size", "ints"),
        Attr("roi", "floats", (0.0, 0.0, 0.0, 0.0)),
        Attr("layout", "str", "NCHW"),
        Attr("method", "str", "linear"),
        Attr("coordinate_transformation_mode", "str", "half_pixel"),
        Attr("rounding_method", "str", "round"),  # the C++ default, which text without the attribute gets
        Attr("cubic_alpha", "float", -0.5),
        Attr("cubic_exclude", "int", 0),
        Attr("extrapolation_value", "float", 0.0),
        Attr("out_dtype", "opt_dtype", ""),
    ),
    doc="Resize the height and width to `size` (nearest, linear or cubic interpolation).",
)
def resize2d(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    layout = attrs["layout"]
    dtype = np.dtype(attrs["out_dtype"] or x.dtype)
    size = attrs["size"]
    out_h, out_w = (size[0], size[0]) if len(size) == 1 else size
    t = np.transpose(x, [layout.index(c) for c in "NCHW"])
    out = resize_nchw(
        t,
        out_h,
        out_w,
        attrs["method"],
        attrs["coordinate_transformation_mode"],
        attrs["rounding_method"],
        attrs["cubic_alpha"],
        bool(attrs["cubic_exclude"]),
        dtype,
    )
    return wrap(np.transpose(out, ["NCHW".index(c) for c in layout]), dtype)


UPSAMPLING_METHODS = {"nearest_neighbor": "nearest_neighbor", "bilinear": "linear", "bicubic": "cubic"}


def _scaled(d: Any, scale: float) -> Any:
    if type(d) is not int:
        return AnyDim()
    return math.floor(d * scale + 0.5)


@relation("UpSampling")
def upsampling_rel(r: Relation) -> bool:
    layout = _check_layout(r)
    _choice(r, "method", tuple(UPSAMPLING_METHODS))
    for name in ("scale_h", "scale_w"):
        if r.attrs[name] <= 0:
            r.fail(codes.TYPE_MISMATCH, f"`nn.upsampling` {name} must be positive, found {r.attrs[name]}")
    data = r.tensor(0)
    if not known_rank(data.shape):
        return False
    if len(data.shape) != 4:
        r.fail(
            codes.SHAPE_MISMATCH, f"`nn.upsampling` needs 4-D data ({layout}), found {shape_text(data.shape)}", arg=0
        )
    dims = {x: data.shape[layout.index(x)] for x in "NCHW"}
    dims["H"] = _scaled(dims["H"], r.attrs["scale_h"])
    dims["W"] = _scaled(dims["W"], r.attrs["scale_w"])
    for name in ("H", "W"):
        if dims[name] == 0:
            r.fail(codes.SHAPE_MISMATCH, "`nn.upsampling`: the scale leaves an empty image", arg=0)
    r.set_result(TensorType(tuple(dims[x] for x in layout), data.dtype))
    return True


@register(
    "nn.upsampling",
    inputs=1,
    relation=upsampling_rel,
    attrs=(
        Attr("scale_h", "float", 1.0),
        Attr("scale_w", "float", 1.0),
        Attr("layout", "str", "NCHW"),
        Attr("method", "str", "nearest_neighbor"),
        Attr("align_corners", "bool", False),
    ),
    doc="Scale the height and width by scale_h and scale_w (nearest, bilinear or bicubic).",
)
def upsampling(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    layout = attrs["layout"]
    t = np.transpose(x, [layout.index(c) for c in "NCHW"])
    out_h, out_w = _scaled(t.shape[2], attrs["scale_h"]), _scaled(t.shape[3], attrs["scale_w"])
    mode = "align_corners" if attrs["align_corners"] else "asymmetric"
    out = resize_nchw(t, out_h, out_w, UPSAMPLING_METHODS[attrs["method"]], mode, "", -0.5, False, x.dtype)
    return wrap(np.transpose(out, ["NCHW".index(c) for c in layout]), x.dtype)
