"""SSD's anchor boxes: `vision.multibox_prior` makes them,
`vision.multibox_transform_loc` decodes predictions against them, as TOPI
computes them (topi/vision/ssd/multibox.py).

`multibox_prior(data, sizes=[1.0], ratios=[1.0], steps=[-1.0, -1.0],
offsets=[0.5, 0.5], clip=False)` reads only the shape of `data` (`[batch, C,
H, W]`). Every pixel `(i, j)` gets `len(sizes) + len(ratios) - 1` boxes
centred at `((j + offset_w) * step_w, (i + offset_h) * step_h)`, the steps
defaulting (when not positive) to `1 / W` and `1 / H`: first one box per
size `s`, of half-width `s * H / W / 2` and half-height `s / 2`, then one
per further ratio `r` (ratios[1:]), of half-width
`sizes[0] * H / W * sqrt(r) / 2` and half-height `sizes[0] / sqrt(r) / 2`.
The result is `[1, H * W * boxes_per_pixel, 4]` rows `(xmin, ymin, xmax,
ymax)`, pixel by pixel, clipped to [0, 1] when `clip`.

`multibox_transform_loc(cls_prob, loc_pred, anchor, clip=True,
threshold=0.01, variances=[0.1, 0.1, 0.2, 0.2], keep_background=False)`:
`cls_prob` is `[batch, num_classes, num_anchors]`, `loc_pred` `[batch,
num_anchors * 4]` and `anchor` `[1, num_anchors, 4]`. Each anchor takes the
class of highest probability (class 0, the background, is skipped unless
`keep_background`; ties keep the lower class; a class scoring below
`threshold` becomes 0) and its box is decoded from the anchor: centre moved
by `(dx * vx * width, dy * vy * height)`, size scaled by `(exp(dw * vw),
exp(dh * vh))`, clipped to [0, 1] when `clip`. Anchors of class 0 are
dropped unless `keep_background`; the others become rows `[class, score,
xmin, ymin, xmax, ymax]` at the top of the first result, `[batch,
num_anchors, 6]` (the class counted from the first non-background class
unless keep_background; rows below the valid ones are -1, where TOPI leaves
them unwritten), and the second result, `[batch]` int32, counts them.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType, TupleType
from .._np import np, wrap
from .._vision import dtype_kind, rank_of, same_dim, times
from ..registry import Attr, register
from ..relations import Relation, relation, static
from ..types import Args, Attrs, Value


@relation("MultiBoxPrior")
def multibox_prior_rel(r: Relation) -> bool:
    for name, count in (("sizes", 0), ("ratios", 0), ("steps", 2), ("offsets", 2)):
        n = len(r.attrs[name])
        if (count and n != count) or n == 0:
            r.fail(
                codes.TYPE_MISMATCH,
                f"`{r.op}` {name} takes {count or 'at least one'} value{'s' if count else ''}, found {n}",
            )
    dtype_kind(r, 0, "data", ("float",), "floats")
    data = rank_of(r, 0, 4, "4-D data (batch, channels, height, width)")
    if data is None:
        return False
    per_pixel = len(r.attrs["sizes"]) + len(r.attrs["ratios"]) - 1
    r.set_result(TensorType((1, times(data[2], data[3], per_pixel), 4), r.tensor(0).dtype))
    return True


@register(
    "vision.multibox_prior",
    inputs=1,
    relation=multibox_prior_rel,
    attrs=(
        Attr("sizes", "floats", (1.0,)),
        Attr("ratios", "floats", (1.0,)),
        Attr("steps", "floats", (-1.0, -1.0)),
        Attr("offsets", "floats", (0.5, 0.5)),
        Attr("clip", "bool", False),
    ),
    doc="SSD's prior (anchor) boxes for every pixel of a feature map.",
)
def multibox_prior(args: Args, attrs: Attrs) -> Value:
    (data,) = args
    h, w = data.shape[2], data.shape[3]
    sizes, ratios = attrs["sizes"], attrs["ratios"]
    step_h = attrs["steps"][0] if attrs["steps"][0] > 0 else 1.0 / h
    step_w = attrs["steps"][1] if attrs["steps"][1] > 0 else 1.0 / w
    with np.errstate(divide="ignore", invalid="ignore"):  # a ratio that is not positive gives inf or nan, as in TOPI
        root = np.sqrt(np.asarray(ratios[1:], dtype=np.float64))
        half_w = np.concatenate([np.asarray(sizes) * h / w / 2.0, sizes[0] * h / w * root / 2.0])
        half_h = np.concatenate([np.asarray(sizes) / 2.0, sizes[0] / root / 2.0])
    cy = ((np.arange(h) + attrs["offsets"][0]) * step_h)[:, None, None]
    cx = ((np.arange(w) + attrs["offsets"][1]) * step_w)[None, :, None]
    hw, hh = np.asarray(half_w)[None, None, :], np.asarray(half_h)[None, None, :]
    k = len(half_w)
    full = (h, w, k)
    boxes = np.stack([np.broadcast_to(v, full) for v in (cx - hw, cy - hh, cx + hw, cy + hh)], axis=-1)
    out = boxes.reshape(1, h * w * k, 4)
    if attrs["clip"]:
        out = np.clip(out, 0, 1)
    return wrap(out, data.dtype)


@relation("MultiBoxTransformLoc")
def multibox_transform_loc_rel(r: Relation) -> bool:
    if len(r.attrs["variances"]) != 4:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` variances takes 4 values, found {len(r.attrs['variances'])}")
    dtype_kind(r, 0, "class probabilities", ("float",), "floats")
    r.unify_dtypes(0, 1)
    dtype_kind(r, 2, "anchors", ("float",), "floats")
    cls = rank_of(r, 0, 3, "class probabilities of shape (batch, num_classes, num_anchors)")
    loc = rank_of(r, 1, 2, "location predictions of shape (batch, num_anchors * 4)")
    anchor = rank_of(r, 2, 3, "anchors of shape (1, num_anchors, 4)")
    if cls is None or loc is None or anchor is None:
        return False
    op = f"`{r.op}`"
    same_dim(r, anchor[2], 4, 2, op + " takes anchors of 4 coordinates, found {}")
    same_dim(r, cls[2], anchor[1], 2, op + ": the class probabilities cover {} anchors, the anchor tensor {}")
    n = static(cls[2])
    if n == 0:
        r.fail(codes.SHAPE_MISMATCH, f"{op} needs at least one anchor", arg=0)
    same_dim(r, n * 4 if n is not None else None, loc[1], 1, op + ": the anchors need {} location values, found {}")
    same_dim(r, cls[0], loc[0], 1, op + ": the class probabilities have batch {}, the location predictions {}")
    dtype = r.tensor(0).dtype
    r.set_result(TupleType((TensorType((cls[0], cls[2], 6), dtype), TensorType((cls[0],), "int32"))))
    return True


def decode(anchor: Any, loc: Any, variances: tuple[float, ...], clip: bool) -> Any:
    """Boxes (…, 4) from anchors (A, 4) and predictions (…, A, 4), in their dtype."""
    dtype = loc.dtype
    vx, vy, vw, vh = (dtype.type(v) for v in variances)
    al, at, ar, ab = (anchor[:, i] for i in range(4))
    aw, ah = ar - al, ab - at
    ax, ay = (al + ar) / dtype.type(2), (at + ab) / dtype.type(2)
    ox = loc[..., 0] * vx * aw + ax
    oy = loc[..., 1] * vy * ah + ay
    with np.errstate(over="ignore"):
        ow = np.exp(loc[..., 2] * vw) * aw / dtype.type(2)
        oh = np.exp(loc[..., 3] * vh) * ah / dtype.type(2)
    out = np.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1)
    return np.clip(out, 0, 1) if clip else out


@register(
    "vision.multibox_transform_loc",
    inputs=3,
    relation=multibox_transform_loc_rel,
    attrs=(
        Attr("clip", "bool", True),
        Attr("threshold", "float", 0.01),
        Attr("variances", "floats", (0.1, 0.1, 0.2, 0.2)),
        Attr("keep_background", "bool", False),
    ),
    doc="Decode SSD location predictions against anchors; pick each anchor's best class.",
)
def multibox_transform_loc(args: Args, attrs: Attrs) -> Value:
    cls_prob, loc_pred, anchor = args
    batch, _, anchors = cls_prob.shape
    keep = attrs["keep_background"]
    first = 0 if keep else 1
    dtype = cls_prob.dtype
    # the best class after `first`, as TOPI scans: from score -1 and class 0, a
    # class replaces the current one only when it scores strictly higher
    scan = np.concatenate([np.full((batch, 1, anchors), -1, dtype=dtype), cls_prob[:, first:, :]], axis=1)
    best = np.argmax(scan, axis=1)
    score = np.max(scan, axis=1)
    cls_id = np.where(best > 0, best - 1 + first, 0)
    cls_id = np.where((cls_id > 0) & (score < dtype.type(attrs["threshold"])), 0, cls_id)
    valid = np.ones_like(cls_id, dtype=bool) if keep else cls_id > 0
    boxes = decode(
        anchor[0].astype(dtype), loc_pred.reshape(batch, anchors, 4).astype(dtype), attrs["variances"], attrs["clip"]
    )
    label = cls_id.astype(dtype) - (0 if keep else 1)
    rows = np.concatenate([label[..., None], score[..., None], boxes], axis=-1)
    order = np.argsort(~valid, axis=1, kind="stable")
    out = np.take_along_axis(rows, order[:, :, None], axis=1)
    count = valid.sum(axis=1)
    out[np.arange(anchors)[None, :] >= count[:, None]] = -1
    return wrap(out, dtype), count.astype(np.int32)
