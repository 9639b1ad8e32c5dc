"""Pooling over regions of interest: `vision.roi_align` and `vision.roi_pool`
(Mask R-CNN's and Fast R-CNN's), as TOPI computes them
(topi/vision/rcnn/roi_align.py, roi_pool.py).

Both take `data` (`[batch, C, H, W]`, or `[batch, H, W, C]` with layout
"NHWC") and `rois`, `[num_rois, 5]` rows of `[batch_index, x1, y1, x2, y2]`
in input-image coordinates, which `spatial_scale` maps onto the feature
map. Each region is divided into `pooled_size` `[PH, PW]` bins, giving
`[num_rois, C, PH, PW]` (`[num_rois, PH, PW, C]`) of the data's dtype.

`roi_align(..., pooled_size, spatial_scale, sample_ratio=-1, layout="NCHW",
mode="avg")`: the scaled region, at least 1x1, is split into equal bins;
each bin is sampled on a regular grid of `sample_ratio` x `sample_ratio`
points (when sample_ratio is not positive: `ceil(region / pooled)` points
per axis) at the centres of the grid cells, without the half-pixel shift of
torchvision's `aligned=True`. A sample is read bilinearly: 0 when it lies
beyond one pixel outside the image (y < -1 or y > H, likewise x), otherwise
its position is clamped into the image and neighbours past the last pixel
weigh nothing. `mode` "avg" averages the samples, "max" takes the largest.

`roi_pool(..., pooled_size, spatial_scale, layout="NCHW")`: the region's
corners are scaled and rounded (halves away from zero), the region
`(x2 - x1 + 1) x (y2 - y1 + 1)` pixels (at least 1x1) is cut into bins
`[floor(i * h), ceil((i + 1) * h))` (h = region / pooled, with a 1e-5 slack),
clipped to the image, and each bin gives its maximum (0 for an empty bin).
Integer data is allowed here.
"""

from __future__ import annotations

import math
from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType
from .._np import np, wrap
from .._vision import dtype_kind, rank_of
from ..registry import Attr, KernelError, register
from ..relations import Relation, relation, static
from ..types import Args, Attrs, Value

LAYOUTS = ("NCHW", "NHWC")


def _roi_rel(r: Relation, float_data: bool) -> bool:
    layout = r.attrs["layout"]
    if layout not in LAYOUTS:
        r.fail(codes.TYPE_MISMATCH, f'`{r.op}`: layout "{layout}" is not supported', notes=['use "NCHW" or "NHWC"'])
    pooled = r.attrs["pooled_size"]
    if len(pooled) != 2 or min(pooled) <= 0:
        r.fail(
            codes.TYPE_MISMATCH, f"`{r.op}` pooled_size takes 2 positive values (height, width), found {list(pooled)}"
        )
    if r.attrs.get("mode", "avg") not in ("avg", "max"):
        r.fail(codes.TYPE_MISMATCH, f'`{r.op}` mode "{r.attrs["mode"]}" is not supported', notes=['use "avg" or "max"'])
    if float_data:
        dtype_kind(r, 0, "data", ("float",), "floats")
    elif r.tensor(0).dtype == "bool":
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` takes numbers, not bool", arg=0, label="this is `bool`")
    dtype_kind(r, 1, "regions", ("float",), "floats")
    data = rank_of(r, 0, 4, f"4-D data ({layout})")
    rois = rank_of(r, 1, 2, "regions of shape (num_rois, 5)")
    if rois is not None and static(rois[1]) not in (5, None):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` takes regions as rows of 5 values (batch index, x1, y1, x2, y2), found rows of {rois[1]}",
            arg=1,
        )
    if data is None or rois is None:
        return False
    shape = (rois[0], data[1], pooled[0], pooled[1]) if layout == "NCHW" else (rois[0], pooled[0], pooled[1], data[3])
    r.set_result(TensorType(shape, r.tensor(0).dtype))
    return True


@relation("ROIAlign")
def roi_align_rel(r: Relation) -> bool:
    return _roi_rel(r, True)


@relation("ROIPool")
def roi_pool_rel(r: Relation) -> bool:
    return _roi_rel(r, False)


def _image(data: Any, rois: Any, k: int, name: str) -> int:
    if not np.all(np.isfinite(rois[k])):
        raise KernelError(codes.RUNTIME_ERROR, f"`{name}`: region {k} has a coordinate that is not a finite number")
    b = int(rois[k, 0])
    if not 0 <= b < data.shape[0]:
        raise KernelError(codes.RUNTIME_ERROR, f"`{name}`: region {k} names image {b}, but there are {data.shape[0]}")
    return b


def _bilinear(img: Any, y: Any, x: Any) -> Any:
    """img (C, H, W) read at every (y[i], x[j]): (C, len(y), len(x))."""
    _, h, w = img.shape
    outside = ((y < -1) | (y > h))[:, None] | ((x < -1) | (x > w))[None, :]
    y = np.clip(y, 0, h - 1)
    x = np.clip(x, 0, w - 1)
    y0, x0 = np.floor(y).astype(np.int64), np.floor(x).astype(np.int64)
    fy, fx = (y - y0)[:, None], (x - x0)[None, :]
    out = 0
    for dy, wy in ((0, 1 - fy), (1, fy)):
        for dx, wx in ((0, 1 - fx), (1, fx)):
            rows, cols = y0 + dy, x0 + dx
            ok = (rows <= h - 1)[:, None] & (cols <= w - 1)[None, :]
            pix = img[:, np.minimum(rows, h - 1)][:, :, np.minimum(cols, w - 1)]
            out = out + np.where(ok, wy * wx, 0) * pix
    return np.where(outside, 0, out)


@register(
    "vision.roi_align",
    inputs=2,
    relation=roi_align_rel,
    attrs=(
        Attr("pooled_size", "ints"),
        Attr("spatial_scale", "float"),
        Attr("sample_ratio", "int", -1),
        Attr("layout", "str", "NCHW"),
        Attr("mode", "str", "avg"),
    ),
    doc="Bilinearly sampled average (or max) of each region's bins (Mask R-CNN's RoIAlign).",
)
def roi_align(args: Args, attrs: Attrs) -> Value:
    data, rois = args
    nhwc = attrs["layout"] == "NHWC"
    x = np.transpose(data, (0, 3, 1, 2)) if nhwc else data
    ph, pw = attrs["pooled_size"]
    scale, ratio = attrs["spatial_scale"], attrs["sample_ratio"]
    work = rois.dtype
    out = np.zeros((len(rois), x.shape[1], ph, pw), dtype=data.dtype)
    for k in range(len(rois)):
        img = x[_image(x, rois, k, "vision.roi_align")].astype(np.result_type(work, data.dtype), copy=False)
        x1, y1, x2, y2 = (rois[k, i] * work.type(scale) for i in (1, 2, 3, 4))
        if not all(np.isfinite(v) for v in (x1, y1, x2, y2)):
            raise KernelError(codes.RUNTIME_ERROR, f"`vision.roi_align`: region {k} overflows when scaled")
        rh, rw = max(y2 - y1, work.type(1)), max(x2 - x1, work.type(1))
        bh, bw = rh / work.type(ph), rw / work.type(pw)
        gh = ratio if ratio > 0 else math.ceil(rh / ph)
        gw = ratio if ratio > 0 else math.ceil(rw / pw)
        if gh <= 0 or gw <= 0:
            continue  # no samples: TOPI's empty reduction
        if gh * gw * ph * pw > 1 << 24:
            raise KernelError(
                codes.RUNTIME_ERROR,
                f"`vision.roi_align`: region {k} needs {gh * gw * ph * pw} samples; set sample_ratio",
            )
        # sample coordinates of every bin: (PH * gh,) rows and (PW * gw,) columns
        ys = (
            y1
            + np.repeat(np.arange(ph), gh).astype(work) * bh
            + (np.tile(np.arange(gh), ph).astype(work) + work.type(0.5)) * bh / work.type(gh)
        ).astype(work)
        xs = (
            x1
            + np.repeat(np.arange(pw), gw).astype(work) * bw
            + (np.tile(np.arange(gw), pw).astype(work) + work.type(0.5)) * bw / work.type(gw)
        ).astype(work)
        samples = _bilinear(img, ys, xs).reshape(img.shape[0], ph, gh, pw, gw)
        if attrs["mode"] == "avg":
            out[k] = (samples / work.type(gh * gw)).sum(axis=(2, 4))
        else:
            out[k] = samples.max(axis=(2, 4))
    return wrap(np.transpose(out, (0, 2, 3, 1)) if nhwc else out, data.dtype)


def _round(v: Any) -> int:
    return int(math.copysign(math.floor(abs(v) + 0.5), v))


@register(
    "vision.roi_pool",
    inputs=2,
    relation=roi_pool_rel,
    attrs=(Attr("pooled_size", "ints"), Attr("spatial_scale", "float"), Attr("layout", "str", "NCHW")),
    doc="The maximum of each bin of each region (Fast R-CNN's RoIPool).",
)
def roi_pool(args: Args, attrs: Attrs) -> Value:
    data, rois = args
    nhwc = attrs["layout"] == "NHWC"
    x = np.transpose(data, (0, 3, 1, 2)) if nhwc else data
    _, channels, height, width = x.shape
    ph, pw = attrs["pooled_size"]
    work = rois.dtype
    scale, eps = work.type(attrs["spatial_scale"]), work.type(1e-5)
    out = np.zeros((len(rois), channels, ph, pw), dtype=data.dtype)
    for k in range(len(rois)):
        img = x[_image(x, rois, k, "vision.roi_pool")]
        if not np.all(np.isfinite(rois[k, 1:] * scale)):
            raise KernelError(codes.RUNTIME_ERROR, f"`vision.roi_pool`: region {k} overflows when scaled")
        x1, y1, x2, y2 = (_round(rois[k, i] * scale) for i in (1, 2, 3, 4))
        bh = work.type(max(y2 - y1 + 1, 1)) / work.type(ph)
        bw = work.type(max(x2 - x1 + 1, 1)) / work.type(pw)
        for i in range(ph):
            top = min(max(int(np.floor(work.type(i) * bh + eps)) + y1, 0), height)
            bottom = min(max(int(np.ceil(work.type(i + 1) * bh - eps)) + y1, 0), height)
            for j in range(pw):
                left = min(max(int(np.floor(work.type(j) * bw + eps)) + x1, 0), width)
                right = min(max(int(np.ceil(work.type(j + 1) * bw - eps)) + x1, 0), width)
                if top < bottom and left < right:
                    out[k, :, i, j] = img[:, top:bottom, left:right].max(axis=(1, 2))
    return wrap(np.transpose(out, (0, 2, 3, 1)) if nhwc else out, data.dtype)
