"""`image.crop_and_resize`: boxes cut out of a batch of images, each resized
to one crop size (TensorFlow's crop_and_resize, as TOPI computes it).

`crop_and_resize(data, boxes, box_indices, crop_size=[CH, CW],
layout="NCHW", method="bilinear", extrapolation_value=0.0, out_dtype="")`.
Box `n` is `[y1, x1, y2, x2]` in fractions of the image (0 is the first
row or column, 1 the last) and is cut from image `box_indices[n]`. For an
image of height `H`, crop row `y` reads source row
`y1 * (H - 1) + y * (y2 - y1) * (H - 1) / (CH - 1)` (TensorFlow's choice
for a crop of one row: the box's middle, `(y1 + y2) / 2 * (H - 1)`), and
columns likewise. "bilinear" blends the neighbouring pixels (indices
clamped to the image); "nearest_neighbor" rounds halves away from zero. A
crop pixel whose source row or column lies outside the image takes
`extrapolation_value`.

The result is `[num_boxes, C, CH, CW]` in the data's layout, of `out_dtype`
(default: the data's dtype); integer results truncate toward zero. Source
coordinates are computed in the boxes' dtype, the blend in float32 (float64
for float64 data), as TOPI does.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType
from .._np import np, wrap
from .._vision import dtype_kind
from ..registry import Attr, KernelError, register
from ..relations import Relation, known_rank, relation, shape_text, static
from ..types import Args, Attrs, Value

METHODS = ("bilinear", "nearest_neighbor")


@relation("CropAndResize")
def crop_and_resize_rel(r: Relation) -> bool:
    layout = r.attrs["layout"]
    if sorted(layout) != sorted("NCHW"):
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}`: layout "{layout}" is not supported',
            notes=['use an order of the letters NCHW, e.g. "NHWC"'],
        )
    if r.attrs["method"] not in METHODS:
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}` method "{r.attrs["method"]}" is not supported',
            notes=['use one of "bilinear", "nearest_neighbor"'],
        )
    crop = r.attrs["crop_size"]
    if len(crop) != 2 or min(crop) <= 0:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` crop_size takes 2 positive values (height, width), found {list(crop)}")
    dtype_kind(r, 1, "the boxes", ("float",), "floats")
    dtype_kind(r, 2, "the box indices", ("int", "uint"), "integers")
    data, boxes, indices = r.tensor(0), r.tensor(1), r.tensor(2)
    if known_rank(data.shape) and len(data.shape) != 4:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs 4-D data ({layout}), found {shape_text(data.shape)}", arg=0)
    if known_rank(boxes.shape) and (len(boxes.shape) != 2 or static(boxes.shape[1]) not in (4, None)):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` takes boxes of shape (num_boxes, 4), found {shape_text(boxes.shape)}",
            arg=1,
        )
    if known_rank(indices.shape) and len(indices.shape) != 1:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` takes box indices of shape (num_boxes), found {shape_text(indices.shape)}",
            arg=2,
        )
    if not (known_rank(data.shape) and known_rank(boxes.shape)):
        return False
    num = boxes.shape[0]
    if known_rank(indices.shape):
        a, b = static(num), static(indices.shape[0])
        if a is not None and b is not None and a != b:
            r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` has {a} boxes but {b} box indices", arg=2)
    dims = dict(zip(layout, data.shape, strict=False))
    dims["N"], dims["H"], dims["W"] = num, crop[0], crop[1]
    r.set_result(TensorType(tuple(dims[x] for x in layout), r.attrs["out_dtype"] or data.dtype))
    return True


def _sources(lo: Any, hi: Any, length: int, size: int, work: Any) -> Any:
    """Source coordinates of the `size` crop positions between box edges lo and hi."""
    one = np.asarray(length - 1, dtype=work)
    if size == 1:
        return np.asarray([(lo + hi) * np.asarray(0.5, dtype=work) * one], dtype=work)
    scale = (one * (hi - lo)) / np.asarray(size - 1, dtype=work)
    return lo * one + scale * np.arange(size, dtype=work)


def _round(v: Any) -> Any:
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


@register(
    "image.crop_and_resize",
    inputs=3,
    relation=crop_and_resize_rel,
    attrs=(
        Attr("crop_size", "ints"),
        Attr("layout", "str", "NCHW"),
        Attr("method", "str", "bilinear"),
        Attr("extrapolation_value", "float", 0.0),
        Attr("out_dtype", "opt_dtype", ""),
    ),
    doc="Cut boxes out of images and resize each to crop_size (bilinear or nearest).",
)
def crop_and_resize(args: Args, attrs: Attrs) -> Value:
    data, boxes, box_indices = args
    layout = attrs["layout"]
    dtype = np.dtype(attrs["out_dtype"] or data.dtype)
    x = np.transpose(data, [layout.index(c) for c in "NCHW"])
    batch, channels, height, width = x.shape
    ch, cw = attrs["crop_size"]
    work = np.float64 if data.dtype == np.float64 else np.float32
    img = x.astype(work, copy=False)
    out = np.empty((len(boxes), channels, ch, cw), dtype=work)
    fill = np.asarray(attrs["extrapolation_value"], dtype=work)
    for n in range(len(boxes)):
        b = int(box_indices[n])
        if not 0 <= b < batch:
            raise KernelError(
                codes.RUNTIME_ERROR, f"`image.crop_and_resize`: box {n} names image {b}, but there are {batch}"
            )
        y1, x1, y2, x2 = boxes[n]
        ys = _sources(y1, y2, height, ch, boxes.dtype)
        xs = _sources(x1, x2, width, cw, boxes.dtype)
        if attrs["method"] == "nearest_neighbor":
            yi = np.clip(_round(ys), 0, height - 1).astype(np.int64)
            xi = np.clip(_round(xs), 0, width - 1).astype(np.int64)
            value = img[b][:, yi][:, :, xi]
        else:
            y0, x0 = np.floor(ys), np.floor(xs)
            fy = (ys - y0).astype(work)[:, None]
            fx = (xs - x0).astype(work)[None, :]
            r0, r1 = (np.clip(y0 + k, 0, height - 1).astype(np.int64) for k in (0, 1))
            c0, c1 = (np.clip(x0 + k, 0, width - 1).astype(np.int64) for k in (0, 1))
            rows0, rows1 = img[b][:, r0], img[b][:, r1]
            top = rows0[:, :, c0] * (1 - fx) + rows0[:, :, c1] * fx
            bottom = rows1[:, :, c0] * (1 - fx) + rows1[:, :, c1] * fx
            value = top * (1 - fy) + bottom * fy
        outside = ((ys < 0) | (ys > height - 1))[:, None] | ((xs < 0) | (xs > width - 1))[None, :]
        out[n] = np.where(outside, fill, value)
    if dtype.kind in "iu":
        out = np.trunc(out)
    return wrap(np.transpose(out.astype(dtype), ["NCHW".index(c) for c in layout]), dtype)
