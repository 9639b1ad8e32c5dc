"""Images and boxes: `Resize`, `Upsample`, `GridSample`, `RoiAlign`,
`MaxRoiPool`, `NonMaxSuppression`.

`Resize` maps to `image.resize1d/2d/3d` (the spatial axes of NC...
tensors). Relay's resize maps output index to source coordinate with the
ratio of the sizes; ONNX uses the given scale when the node gives scales.
The two agree when the input size times the scale is a whole number (2x
upsampling, halving); other scales are refused rather than imported
approximately.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...ir.expr import Expr
from ..builder import Builder, Unsupported
from ._common import norm_axes, scalar
from .graph import Ctx
from .node import Node
from .table import Converted, converter

_RESIZE_LAYOUT = {3: "NCW", 4: "NCHW", 5: "NCDHW"}
# A resize of the axes between the first and the last (the channels last)
_CHANNELS_LAST = {3: "NWC", 4: "NHWC", 5: "NDHWC"}
_MODES = (
    "half_pixel",
    "align_corners",
    "asymmetric",
    "pytorch_half_pixel",
    "tf_half_pixel_for_nn",
    "tf_crop_and_resize",
)


def _resize(
    b: Builder,
    x: Expr,
    sizes: Sequence[int],
    method: str,
    mode: str,
    rounding: str,
    alpha: float,
    exclude: int,
    extrapolation: float,
    roi: Sequence[float] | None,
    channels_last: bool = False,
) -> Expr:
    rank = b.rank(x)
    if rank not in _RESIZE_LAYOUT:
        raise Unsupported(
            f"only 3-, 4- and 5-dimensional tensors (NCW, NCHW, NCDHW) can be resized, found {rank} dimensions"
        )
    dims = rank - 2
    attrs = dict(
        size=[int(s) for s in sizes],
        layout=(_CHANNELS_LAST if channels_last else _RESIZE_LAYOUT)[rank],
        method=method,
        coordinate_transformation_mode=mode,
        rounding_method=rounding,
        cubic_alpha=float(alpha),
        cubic_exclude=int(exclude),
        extrapolation_value=float(extrapolation),
    )
    if roi is not None:
        attrs["roi"] = [float(v) for v in roi]
    if dims == 2 and mode == "tf_crop_and_resize":
        # image.resize2d has no region of interest; its dynamic twin has
        size = b.const(np.array(attrs.pop("size"), dtype=np.int64))
        box = b.const(np.array(attrs.pop("roi"), dtype=np.float32))
        return b.call("dyn.image.resize2d", x, size, box, **attrs)
    return b.call(f"image.resize{dims}d", x, **attrs)


def _method(mode: str) -> str:
    return {"nearest": "nearest_neighbor", "linear": "linear", "cubic": "cubic"}[mode]


def _out_sizes(
    b: Builder, x: Expr, scales: Sequence[float], what: str = "scales", exact_only: bool = True
) -> list[int]:
    shape = b.static_shape(x)
    if len(scales) != len(shape):
        raise Unsupported(f"{what} has {len(scales)} values for a tensor of {len(shape)} dimensions")
    if scales[0] != 1 or scales[1] != 1:
        raise Unsupported("resizing the batch or channel axis is not supported")
    sizes = []
    for size, s in zip(shape[2:], scales[2:], strict=False):
        exact = size * s
        out = int(np.floor(exact + 1e-9))
        if exact_only and not _whole(size, s):
            raise Unsupported(
                f"a scale of {s} makes {size} * {s} = {exact:g}, not a whole number of pixels: ONNX then maps "
                "coordinates by the scale, which Relay's resize does not"
            )
        sizes.append(out)
    return sizes


def _whole(size: int, scale: float) -> bool:
    exact = size * scale
    return abs(exact - round(exact)) <= 1e-6


# Edge pixels added on each side when a resize is emulated (enough for cubic's taps)
_EMULATION_PAD = 2


def _by_scale(
    b: Builder,
    x: Expr,
    sizes: list[int],
    scales: Sequence[float],
    method: str,
    coord: str,
    alpha: float,
    roi: Sequence[float] | None = None,
    extrapolation: float = 0.0,
) -> Expr:
    """A resize whose coordinates follow the scale (ONNX, for a scale that
    does not give a whole number of pixels): the input padded with copies of
    its edge pixels, resized by "tf_crop_and_resize" over the region of
    interest that maps output index o to ONNX's source coordinate, exactly
    (every source coordinate then falls inside the padded image, where the
    copies stand in for the clamping at the border)."""
    shape = b.static_shape(x)
    pad = 0 if coord == "tf_crop_and_resize" else _EMULATION_PAD  # its own extrapolation stays
    starts, ends = [], []
    for k, (length, size, s) in enumerate(zip(shape[2:], sizes, scales[2:], strict=False)):
        c = 1.0 / s
        wide = length * s  # ONNX's (fractional) output length
        if coord == "align_corners":
            a, c = 0.0, (0.0 if wide == 1 else (length - 1) / (wide - 1))
        elif coord == "tf_crop_and_resize":
            assert roi is not None  # (given with this mode)
            r0, r1 = roi[k], roi[len(sizes) + k]
            a = r0 * (length - 1)
            c = 0.0 if wide == 1 else (r1 - r0) * (length - 1) / (wide - 1)
        elif coord == "asymmetric":
            a = 0.0
        elif coord == "half_pixel_symmetric":
            a = (length / 2) * (1 - size / (length * s)) + 0.5 * c - 0.5
        elif coord == "pytorch_half_pixel" and size == 1:
            a, c = 0.0, 0.0
        else:  # half_pixel, pytorch_half_pixel
            a = 0.5 * c - 0.5
        span = length + 2 * pad - 1
        start = (a + pad) / span
        starts.append(start)
        ends.append(start + c * (size - 1) / span if size > 1 else start)
    if pad:
        widths = [[0, 0], [0, 0]] + [[pad, pad]] * (len(shape) - 2)
        x = b.call("nn.pad", x, scalar(b, 0, b.dtype(x)), pad_width=widths, pad_mode="edge")
    return _resize(b, x, sizes, method, "tf_crop_and_resize", "", alpha, 0, extrapolation, starts + ends)


@converter("Resize", since=10)
def resize_v10(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    mode = n.attr("mode", "nearest", allowed=("nearest", "linear"))
    scales = [float(s) for s in np.asarray(_need(b, n.input(1), "the scales")).reshape(-1)]
    sizes = _out_sizes(b, x, scales)
    return _resize(b, x, sizes, _method(mode), "asymmetric", "floor", -0.75, 0, 0.0, None)


def _need(b: Builder, x: Expr, what: str) -> np.ndarray:
    v = b.value(x)
    if v is None:
        raise Unsupported(f"{what} must be known when the model is imported")
    return v


@converter("Resize", since=11)
def resize(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    rank = b.rank(x)
    mode = n.attr("mode", "nearest", allowed=("nearest", "linear", "cubic"))
    coord = n.attr(
        "coordinate_transformation_mode",
        "half_pixel",
        allowed=_MODES + (("half_pixel_symmetric",) if n.opset >= 19 else ()),
    )
    nearest = n.attr(
        "nearest_mode", "round_prefer_floor", allowed=("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
    )
    alpha = n.attr("cubic_coeff_a", -0.75)
    exclude = n.attr("exclude_outside", 0)
    extrapolation = n.attr("extrapolation_value", 0.0)
    if n.attr("antialias", 0):
        raise Unsupported("`antialias` = 1 is not supported", attr="antialias")
    policy = n.attr("keep_aspect_ratio_policy", "stretch", allowed=("stretch", "not_larger", "not_smaller"))
    axes = n.attr("axes", None)
    axes = norm_axes(axes, rank) if axes is not None else list(range(rank))
    shape = b.static_shape(x)
    scales_in, sizes_in = n.input(2), n.input(3)
    sizes = None
    if sizes_in is not None and b.shape(sizes_in) != (0,):
        given = [int(v) for v in np.asarray(_need(b, sizes_in, "the output sizes")).reshape(-1)]
        if len(given) != len(axes):
            raise Unsupported(f"`sizes` has {len(given)} values for {len(axes)} axes")
        full = list(shape)
        if policy != "stretch":
            ratios = [given[i] / shape[a] for i, a in enumerate(axes)]
            r = min(ratios) if policy == "not_larger" else max(ratios)
            for a in axes:
                full[a] = int(np.floor(shape[a] * r + 0.5))
        else:
            for i, a in enumerate(axes):
                full[a] = given[i]
        sizes = full
    elif scales_in is not None and b.shape(scales_in) != (0,):
        given_s = [float(v) for v in np.asarray(_need(b, scales_in, "the scales")).reshape(-1)]
        if len(given_s) != len(axes):
            raise Unsupported(f"`scales` has {len(given_s)} values for {len(axes)} axes")
        full_s = [1.0] * rank
        for i, a in enumerate(axes):
            full_s[a] = given_s[i]
        whole = all(_whole(d, s) for d, s in zip(shape, full_s, strict=False))
        if whole and rank in _CHANNELS_LAST and full_s[0] == 1 and full_s[-1] == 1 and full_s[1] != 1:
            sizes = [round(d * sc) for d, sc in zip(shape, full_s, strict=False)]  # channels last: below
        else:
            sizes = [shape[0], shape[1], *_out_sizes(b, x, full_s, exact_only=mode == "nearest")]
        if not whole:
            if mode == "cubic" and exclude:
                raise Unsupported(
                    "`exclude_outside` with a scale that does not give a whole number of pixels is not supported",
                    attr="exclude_outside",
                )
            if coord == "tf_half_pixel_for_nn":
                raise Unsupported(
                    "`tf_half_pixel_for_nn` with a scale that does not give a whole number of pixels is not supported"
                )
            roi = None
            if coord == "tf_crop_and_resize":
                r = [float(v) for v in np.asarray(_need(b, n.input(1), "the region of interest")).reshape(-1)]
                roi = r[2:rank] + r[rank + 2 :]
            return _by_scale(b, x, sizes[2:], full_s, _method(mode), coord, alpha, roi, extrapolation)
    else:
        raise Unsupported("`Resize` needs scales or sizes")
    # The axes resized are the last ones (channels first), or all but the
    # first and the last (channels last, as a model written for NHWC data).
    channels_last = rank in _CHANNELS_LAST and sizes[0] == shape[0] and sizes[-1] == shape[-1] and sizes[1] != shape[1]
    if not channels_last and (sizes[0] != shape[0] or sizes[1] != shape[1]):
        raise Unsupported("resizing the batch or channel axis is not supported")
    if coord == "half_pixel_symmetric":
        coord = "half_pixel"  # the same mapping when the output size is the scaled size
    roi = None
    if coord == "tf_crop_and_resize":
        r = [float(v) for v in np.asarray(_need(b, n.input(1), "the region of interest")).reshape(-1)]
        if len(r) == 2 * len(axes) and len(axes) != rank:
            full_r = [0.0] * rank + [1.0] * rank
            for i, a in enumerate(axes):
                full_r[a], full_r[rank + a] = r[i], r[len(axes) + i]
            r = full_r
        roi = r[1 : rank - 1] + r[rank + 1 : 2 * rank - 1] if channels_last else r[2:rank] + r[rank + 2 :]
    rounding = nearest if mode == "nearest" else ""
    spatial = sizes[1:-1] if channels_last else sizes[2:]
    return _resize(b, x, spatial, _method(mode), coord, rounding, alpha, exclude, extrapolation, roi, channels_last)


@converter("Upsample", since=7)
def upsample(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    mode = n.attr("mode", "nearest", allowed=("nearest", "linear", "bilinear"))
    scales = n.attr("scales", None)
    if scales is None:
        scales = [float(s) for s in np.asarray(_need(b, n.input(1), "the scales")).reshape(-1)]
    sizes = _out_sizes(b, x, list(scales))
    method = "nearest_neighbor" if mode == "nearest" else "linear"
    return _resize(b, x, sizes, method, "asymmetric", "floor", -0.75, 0, 0.0, None)


@converter("GridSample", since=16)
def grid_sample(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, grid = n.input(0), n.input(1)
    rank = b.rank(x)
    modes = {
        "bilinear": "bilinear",
        "nearest": "nearest",
        "bicubic": "bicubic",
        "linear": "bilinear",
        "cubic": "bicubic",
    }
    mode = n.attr("mode", "bilinear" if n.opset < 20 else "linear", allowed=tuple(modes))
    padding = n.attr("padding_mode", "zeros", allowed=("zeros", "border", "reflection"))
    align = bool(n.attr("align_corners", 0))
    if rank == 4:
        moved = b.call("transpose", grid, axes=[0, 3, 1, 2])
        return b.call(
            "image.grid_sample", x, moved, method=modes[mode], layout="NCHW", padding_mode=padding, align_corners=align
        )
    if rank == 5:
        if modes[mode] == "bicubic":
            raise Unsupported("cubic sampling of volumes is not supported", attr="mode")
        moved = b.call("transpose", grid, axes=[0, 4, 1, 2, 3])
        return b.call(
            "image.grid_sample", x, moved, method=modes[mode], layout="NCDHW", padding_mode=padding, align_corners=align
        )
    raise Unsupported(f"`GridSample` of a tensor of {rank} dimensions is not supported")


@converter("RoiAlign", since=10)
def roi_align(cx: Ctx, n: Node) -> Converted:
    """`vision.roi_align` takes `[batch index, x1, y1, x2, y2]` rows; ONNX's
    half-pixel coordinates (the default from opset 16) shift each box by
    half a pixel of the feature map, i.e. 0.5 / spatial_scale. Mode "max" is
    refused: ONNX takes, in each sample, the largest of the four weighted
    corners, where `vision.roi_align` takes the largest interpolated sample."""
    b = cx.b
    x, rois, batch = n.input(0), n.input(1), n.input(2)
    mode = n.attr("mode", "avg", allowed=("avg",))
    height, width = int(n.attr("output_height", 1)), int(n.attr("output_width", 1))
    ratio = int(n.attr("sampling_ratio", 0))
    scale = float(n.attr("spatial_scale", 1.0))
    default = "half_pixel" if n.opset >= 16 else "output_half_pixel"
    coord = n.attr("coordinate_transformation_mode", default, allowed=("half_pixel", "output_half_pixel"))
    dt = b.dtype(rois)
    if coord == "half_pixel":
        rois = b.call("subtract", rois, scalar(b, 0.5 / scale, dt))
    index = b.call("cast", b.call("expand_dims", batch, axis=1), dtype=dt)
    boxes = b.call("concatenate", b.tuple([index, rois]), axis=1)
    return b.call(
        "vision.roi_align", x, boxes, pooled_size=[height, width], spatial_scale=scale, sample_ratio=ratio, mode=mode
    )


@converter("MaxRoiPool")
def max_roi_pool(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    shape = list(n.require("pooled_shape"))
    return b.call(
        "vision.roi_pool", n.input(0), n.input(1), pooled_size=shape, spatial_scale=float(n.attr("spatial_scale", 1.0))
    )


@converter("NonMaxSuppression", since=10)
def non_max_suppression(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    boxes, scores = n.input(0), n.input(1)
    dt = b.dtype(boxes)
    if n.attr("center_point_box", 0):
        parts = b.items(b.call("split", boxes, indices_or_sections=4, axis=2))
        xc, yc, w, h = parts
        two = scalar(b, 2.0, dt)
        hw, hh = b.call("divide", w, two), b.call("divide", h, two)
        boxes = b.call(
            "concatenate",
            b.tuple(
                [b.call("subtract", yc, hh), b.call("subtract", xc, hw), b.call("add", yc, hh), b.call("add", xc, hw)]
            ),
            axis=2,
        )

    def scalar_input(i: int, default: float, dtype: str) -> Expr:
        v = n.input(i)
        if v is None:
            return scalar(b, default, dtype)
        return b.call("reshape", v, newshape=[]) if b.rank(v) else v

    max_out = scalar_input(2, 0, "int64")
    iou = scalar_input(3, 0.0, "float32")
    known = b.value(iou)
    if known is not None:
        # ONNX drops a box whose overlap is above the threshold; the operator
        # drops it at the threshold already: the next float up is the same test
        t = np.asarray(known).astype(np.float32).reshape(())
        iou = scalar(b, np.nextafter(t, np.float32(np.inf)), "float32")
    score = scalar_input(4, float("-inf"), "float32")
    out = b.call("vision.all_class_non_max_suppression", boxes, scores, max_out, iou, score, output_format="onnx")
    selected, count = b.item(out, 0), b.item(out, 1)
    zero = b.const(np.array([0], dtype=np.int64))
    return b.call("dyn.strided_slice", selected, zero, count, b.const(np.array([1], dtype=np.int64)))
