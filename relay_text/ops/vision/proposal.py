"""`vision.proposal`: Faster R-CNN's region proposal layer, as TOPI computes
it (topi/vision/rcnn/proposal.py).

`proposal(cls_prob, bbox_pred, im_info, scales=[4, 8, 16, 32], ratios=[0.5,
1, 2], feature_stride=16, threshold=0.7, rpn_pre_nms_top_n=6000,
rpn_post_nms_top_n=300, rpn_min_size=16, iou_loss=False)`. With `A =
len(scales) * len(ratios)` anchors per pixel, `cls_prob` is `[batch, 2A, H,
W]` (background then foreground scores), `bbox_pred` `[batch, 4A, H, W]`
and `im_info` `[batch, 3]` rows `(image height, image width, scale)`.

Anchor `k` (ratio `ratios[k // len(scales)]`, scale `scales[k %
len(scales)]`) is built around the centre of a `feature_stride` square:
its area `stride^2 / ratio` rounded down gives the width `round(sqrt(area))
* scale` and height `round(width / scale * ratio) * scale` (rounding halves
up), and it is shifted by `feature_stride` per pixel. The anchor is moved by
the four deltas of `bbox_pred` (centre offsets in box sizes and log size
ratios; with `iou_loss`, plain offsets of the corners), clipped to the
image, and scored by the foreground probability, or -1 for pixels beyond
`im_height / stride` rows or `im_width / stride` columns. A box narrower or
lower than `rpn_min_size * scale` is widened by half that on every side and
scored -1.

Per batch, boxes are ordered by descending score (ties in order: pixel by
pixel, anchor by anchor), the first `rpn_pre_nms_top_n` kept (all when not
positive), and a box is dropped when it overlaps (intersection over union,
with the +1 pixel convention) an earlier box that was not dropped by more
than `threshold`. The result, `[batch * rpn_post_nms_top_n, 5]` rows
`[batch index, x1, y1, x2, y2]`, repeats the surviving boxes in order until
`rpn_post_nms_top_n` rows are filled (zeros when none survive).
"""

from __future__ import annotations

import math
from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType
from .._np import np, wrap
from .._vision import dtype_kind, rank_of, same_dim, times
from ..registry import Attr, KernelError, register
from ..relations import Relation, relation
from ..types import Args, Attrs, Value


@relation("Proposal")
def proposal_rel(r: Relation) -> bool:
    a = r.attrs
    if not a["scales"] or not a["ratios"]:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` needs at least one scale and one ratio")
    if a["feature_stride"] <= 0 or a["rpn_post_nms_top_n"] <= 0:
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` feature_stride and rpn_post_nms_top_n must be positive, found {a['feature_stride']} and "
            f"{a['rpn_post_nms_top_n']}",
        )
    if min(a["ratios"]) <= 0:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` ratios must be positive, found {list(a['ratios'])}")
    dtype_kind(r, 0, "class probabilities", ("float",), "floats")
    r.unify_dtypes(0, 1)
    r.unify_dtypes(0, 2)
    cls = rank_of(r, 0, 4, "class probabilities of shape (batch, 2 * num_anchors, height, width)")
    box = rank_of(r, 1, 4, "box predictions of shape (batch, 4 * num_anchors, height, width)")
    info = rank_of(r, 2, 2, "image information of shape (batch, 3)")
    if cls is None or box is None or info is None:
        return False
    op = f"`{r.op}`"
    anchors = len(a["scales"]) * len(a["ratios"])
    same_dim(r, info[1], 3, 2, op + " takes image information as rows of 3 values, found {}")
    same_dim(
        r,
        cls[1],
        2 * anchors,
        0,
        op + ": the class probabilities have {} channels, but " + f"{anchors} anchors need " + "{}",
    )
    same_dim(
        r,
        box[1],
        4 * anchors,
        1,
        op + ": the box predictions have {} channels, but " + f"{anchors} anchors need " + "{}",
    )
    for axis, name in ((0, "batch"), (2, "height"), (3, "width")):
        same_dim(
            r, cls[axis], box[axis], 1, op + f": the class probabilities have {name} " + "{}, the box predictions {}"
        )
    same_dim(r, cls[0], info[0], 2, op + ": the class probabilities have batch {}, the image information {}")
    r.set_result(TensorType((times(cls[0], a["rpn_post_nms_top_n"]), 5), r.tensor(0).dtype))
    return True


def _anchor(ratio: float, scale: float, base: int) -> tuple[float, float, float, float]:
    size = float(base)
    centre = 0.5 * (size - 1.0)
    width = math.floor(math.sqrt(math.floor(size * size / ratio)) + 0.5) * scale
    height = math.floor(width / scale * ratio + 0.5) * scale
    return (
        centre - 0.5 * (width - 1.0),
        centre - 0.5 * (height - 1.0),
        centre + 0.5 * (width - 1.0),
        centre + 0.5 * (height - 1.0),
    )


def _predict(cls_prob: Any, bbox_pred: Any, im_info: Any, attrs: Attrs) -> Any:
    """[batch, H * W * A, 5] boxes (x1, y1, x2, y2, score), pixel-major."""
    dtype = bbox_pred.dtype
    f = dtype.type
    batch, _, h, w = cls_prob.shape
    scales, ratios, stride = attrs["scales"], attrs["ratios"], attrs["feature_stride"]
    a = len(scales) * len(ratios)
    base = np.asarray([_anchor(ratios[k // len(scales)], scales[k % len(scales)], stride) for k in range(a)])
    shift_x = (np.arange(w) * stride)[None, :, None]
    shift_y = (np.arange(h) * stride)[:, None, None]
    x1 = (base[:, 0] + shift_x).astype(dtype)  # (H, W, A)
    y1 = (base[:, 1] + shift_y).astype(dtype)
    x2 = (base[:, 2] + shift_x).astype(dtype)
    y2 = (base[:, 3] + shift_y).astype(dtype)
    delta = bbox_pred.reshape(batch, a, 4, h, w).transpose(0, 3, 4, 1, 2)  # (B, H, W, A, 4)
    dx, dy, dw, dh = (delta[..., i] for i in range(4))
    one, half = f(1), f(0.5)
    if attrs["iou_loss"]:
        px1, py1, px2, py2 = x1 + dx, y1 + dy, x2 + dw, y2 + dh
    else:
        bw, bh = x2 - x1 + one, y2 - y1 + one
        cx, cy = x1 + half * (bw - one), y1 + half * (bh - one)
        pcx, pcy = dx * bw + cx, dy * bh + cy
        with np.errstate(over="ignore"):
            pw, ph = np.exp(dw) * bw, np.exp(dh) * bh
        px1, py1 = pcx - half * (pw - one), pcy - half * (ph - one)
        px2, py2 = pcx + half * (pw - one), pcy + half * (ph - one)
    im_h = im_info[:, 0].astype(dtype)[:, None, None, None]
    im_w = im_info[:, 1].astype(dtype)[:, None, None, None]
    zero = f(0)
    px1 = np.maximum(np.minimum(px1, im_w - one), zero)
    py1 = np.maximum(np.minimum(py1, im_h - one), zero)
    px2 = np.maximum(np.minimum(px2, im_w - one), zero)
    py2 = np.maximum(np.minimum(py2, im_h - one), zero)
    with np.errstate(invalid="ignore"):
        real_h = np.trunc(im_h / f(stride))
        real_w = np.trunc(im_w / f(stride))
    score = cls_prob[:, a:, :, :].transpose(0, 2, 3, 1).astype(dtype)  # (B, H, W, A)
    rows = np.arange(h)[None, :, None, None]
    cols = np.arange(w)[None, None, :, None]
    score = np.where((rows >= real_h) | (cols >= real_w), f(-1), score)
    min_size = (im_info[:, 2].astype(dtype) * f(attrs["rpn_min_size"]))[:, None, None, None]
    small = (px2 - px1 + one < min_size) | (py2 - py1 + one < min_size)
    grow = np.where(small, min_size / f(2), zero)
    out = np.stack([px1 - grow, py1 - grow, px2 + grow, py2 + grow, np.where(small, f(-1), score)], axis=-1)
    return out.reshape(batch, h * w * a, 5)


def _suppressed(boxes: Any, threshold: float) -> Any:
    """The removal mask of the proposal layer's NMS over boxes sorted best first."""
    n = len(boxes)
    removed = np.zeros(n, dtype=bool)
    one = boxes.dtype.type(1)
    x1, y1, x2, y2 = (boxes[:, i] for i in range(4))
    areas = (x2 - x1 + one) * (y2 - y1 + one)
    for lead in range(n - 1):
        if removed[lead]:
            continue
        rest = slice(lead + 1, n)
        w = np.maximum(0, np.minimum(x2[lead], x2[rest]) - np.maximum(x1[lead], x1[rest]) + one)
        h = np.maximum(0, np.minimum(y2[lead], y2[rest]) - np.maximum(y1[lead], y1[rest]) + one)
        inter = w * h
        with np.errstate(divide="ignore", invalid="ignore"):
            iou = inter / (areas[lead] + areas[rest] - inter)
        removed[rest] |= iou > threshold
    return removed


@register(
    "vision.proposal",
    inputs=3,
    relation=proposal_rel,
    attrs=(
        Attr("scales", "floats", (4.0, 8.0, 16.0, 32.0)),
        Attr("ratios", "floats", (0.5, 1.0, 2.0)),
        Attr("feature_stride", "int", 16),
        Attr("threshold", "float", 0.7),
        Attr("rpn_pre_nms_top_n", "int", 6000),
        Attr("rpn_post_nms_top_n", "int", 300),
        Attr("rpn_min_size", "int", 16),
        Attr("iou_loss", "bool", False),
    ),
    doc="Region proposals: anchors moved by predicted deltas, best first, after non-maximum suppression.",
)
def proposal(args: Args, attrs: Attrs) -> Value:
    cls_prob, bbox_pred, im_info = args
    if im_info.shape[0] < cls_prob.shape[0]:
        raise KernelError(codes.RUNTIME_ERROR, "`vision.proposal` needs a row of image information per batch")
    boxes = _predict(cls_prob, bbox_pred, im_info, attrs)
    batch, total, _ = boxes.shape
    pre = attrs["rpn_pre_nms_top_n"]
    pre = min(pre, total) if pre > 0 else total
    post = attrs["rpn_post_nms_top_n"]
    out = np.zeros((batch * post, 5), dtype=bbox_pred.dtype)
    for b in range(batch):
        order = np.argsort(-boxes[b, :, 4], kind="stable")[:pre]
        ranked = boxes[b, order]
        kept = ranked[~_suppressed(ranked, attrs["threshold"])]
        if len(kept):
            picks = np.resize(np.arange(len(kept)), post)
            out[b * post : (b + 1) * post, 0] = b
            out[b * post : (b + 1) * post, 1:] = kept[picks, :4]
    return wrap(out, bbox_pred.dtype)
