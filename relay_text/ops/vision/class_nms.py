"""Non-maximum suppression class by class: `vision.all_class_non_max_suppression`
(ONNX NonMaxSuppression, TensorFlow combined_non_max_suppression) and
`vision.regular_non_max_suppression` (TFLite's regular NMS), as TOPI
computes them (topi/vision/nms.py, nms_util.py).

`all_class_non_max_suppression(boxes, scores, max_output_boxes_per_class,
iou_threshold, score_threshold, output_format="onnx")`: `boxes` is `[batch,
num_boxes, 4]` (two opposite corners in any order), `scores` `[batch,
num_classes, num_boxes]`, the other three inputs single values. For every
batch and class, the boxes scoring above `score_threshold` are sorted by
descending score (ties in their order) and walked greedily: a box still
standing is selected and every later box of positive score whose overlap
(intersection over union) with it reaches `iou_threshold` is dropped, until
`max_output_boxes_per_class` are selected (no limit when it is not
positive). Nothing is selected when `iou_threshold <= 0`.
With output_format "onnx" the result is `(indices [batch * num_classes *
num_boxes, 3] int64, count [1] int64)`: rows `(batch, class, box)` in
batch, class, then score order, the first `count` valid and the rest 0.
With "tensorflow" it is `(indices [batch, num_classes * num_boxes, 2]
int64, scores [batch, num_classes * num_boxes] float32, count [batch]
int64)`: per batch the `(class, box)` pairs and their scores, class by
class, then zeros.

`regular_non_max_suppression(boxes, scores, max_detections_per_class,
max_detections, num_classes, iou_threshold, score_threshold)`: `boxes` is
`[batch, num_boxes, 4]` as `(ymin, xmin, ymax, xmax)`, `scores` `[batch,
num_boxes, C]` whose last `num_classes` columns are the classes (the first
ones background). Per class, the boxes scoring at least `score_threshold`
are sorted by descending score and selected greedily (at most
`max_detections_per_class`), dropping later boxes whose overlap exceeds
`iou_threshold` (0 when either box has no area); the selections of all
classes are merged by descending score and cut to `max_detections`. The
result is `(boxes [batch, max_detections, 4], classes [batch,
max_detections], scores [batch, max_detections]` - all float32, zeros past
the detections - `, count [batch] int32)`.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType, TupleType
from .._np import np
from .._vision import dtype_kind, rank_of, same_dim, scalar_input, times
from .nms import corners, descending, one_value, overlap
from ..registry import Attr, register
from ..relations import Relation, relation, static
from ..types import Args, Attrs, Value

FORMATS = ("onnx", "tensorflow")


@relation("AllClassNMS")
def all_class_nms_rel(r: Relation) -> bool:
    fmt = r.attrs["output_format"]
    if fmt not in FORMATS:
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}` output_format "{fmt}" is not supported',
            notes=['use "onnx" or "tensorflow"'],
        )
    dtype_kind(r, 0, "boxes", ("float",), "floats")
    dtype_kind(r, 1, "scores", ("float",), "floats")
    scalar_input(r, 2, "max_output_boxes_per_class", ("int", "uint"), "an integer")
    scalar_input(r, 3, "iou_threshold", ("float",), "a float")
    scalar_input(r, 4, "score_threshold", ("float",), "a float")
    boxes = rank_of(r, 0, 3, "boxes of shape (batch, num_boxes, 4)")
    scores = rank_of(r, 1, 3, "scores of shape (batch, num_classes, num_boxes)")
    if boxes is None or scores is None:
        return False
    same_dim(r, boxes[2], 4, 0, "`" + r.op + "` takes boxes of 4 coordinates, found {}")
    same_dim(r, boxes[0], scores[0], 1, "`" + r.op + "`: the boxes have batch {}, the scores {}")
    same_dim(r, boxes[1], scores[2], 1, "`" + r.op + "`: there are {} boxes but scores for {}")
    batch, classes, num = boxes[0], scores[1], boxes[1]
    if fmt == "onnx":
        r.set_result(TupleType((TensorType((times(batch, classes, num), 3), "int64"), TensorType((1,), "int64"))))
    else:
        per_batch = times(classes, num)
        r.set_result(
            TupleType(
                (
                    TensorType((batch, per_batch, 2), "int64"),
                    TensorType((batch, per_batch), "float32"),
                    TensorType((batch,), "int64"),
                )
            )
        )
    return True


def _select(boxes: Any, scores: Any, limit: int, iou: Any, threshold: Any) -> tuple[Any, Any]:
    """Greedy selection among one class's boxes: the chosen box numbers and their scores."""
    order = descending(scores)
    current = scores[order]
    count = int(np.sum(current > threshold))
    if not (iou > 0 and count > 0):
        return order[:0], current[:0]
    limit = limit if limit > 0 else count
    box = corners(boxes[order[:count]], 0)
    current = current[:count].copy()
    chosen: list[int] = []
    for j in range(count):
        if len(chosen) >= limit:
            break
        if not current[j] > -1:
            continue
        chosen.append(j)
        later = np.arange(j + 1, count)
        hit = (current[later] > 0) & (overlap(tuple(c[j] for c in box), tuple(c[later] for c in box)) >= iou)
        current[later[hit]] = -1
    picked = np.asarray(chosen, dtype=np.int64)
    return order[picked], current[picked]


@register(
    "vision.all_class_non_max_suppression",
    inputs=5,
    relation=all_class_nms_rel,
    attrs=(Attr("output_format", "str", "onnx"),),
    doc="Non-maximum suppression for every class separately (ONNX and TensorFlow styles).",
)
def all_class_non_max_suppression(args: Args, attrs: Attrs) -> Value:
    boxes, scores, max_out, iou, threshold = args
    batch, classes, num = scores.shape
    limit = int(one_value(max_out))
    iou = one_value(iou).astype(boxes.dtype)
    threshold = one_value(threshold).astype(scores.dtype)
    picks = [[_select(boxes[b], scores[b, c], limit, iou, threshold) for c in range(classes)] for b in range(batch)]
    if attrs["output_format"] == "onnx":
        rows = [
            np.stack([np.full(len(sel), b), np.full(len(sel), c), sel], axis=1)
            for b in range(batch)
            for c, (sel, _) in enumerate(picks[b])
        ]
        found = np.concatenate(rows).astype(np.int64) if rows else np.zeros((0, 3), np.int64)
        out = np.zeros((batch * classes * num, 3), dtype=np.int64)
        out[: len(found)] = found
        return out, np.asarray([len(found)], dtype=np.int64)
    indices = np.zeros((batch, classes * num, 2), dtype=np.int64)
    kept = np.zeros((batch, classes * num), dtype=np.float32)
    counts = np.zeros(batch, dtype=np.int64)
    for b in range(batch):
        at = 0
        for c, (sel, sc) in enumerate(picks[b]):
            indices[b, at : at + len(sel), 0] = c
            indices[b, at : at + len(sel), 1] = sel
            kept[b, at : at + len(sel)] = sc
            at += len(sel)
        counts[b] = at
    return indices, kept, counts


# ---------------------------------------------------------------- regular_non_max_suppression


@relation("RegularNMS")
def regular_nms_rel(r: Relation) -> bool:
    for name in ("max_detections_per_class", "max_detections", "num_classes"):
        if r.attrs[name] is not None and r.attrs[name] < 0:
            r.fail(codes.TYPE_MISMATCH, f"`{r.op}` {name} cannot be negative, found {r.attrs[name]}")
    dtype_kind(r, 0, "boxes", ("float",), "floats")
    dtype_kind(r, 1, "scores", ("float",), "floats")
    boxes = rank_of(r, 0, 3, "boxes of shape (batch, num_boxes, 4)")
    scores = rank_of(r, 1, 3, "scores of shape (batch, num_boxes, num_classes_with_background)")
    if boxes is None or scores is None:
        return False
    same_dim(r, boxes[2], 4, 0, "`" + r.op + "` takes boxes of 4 coordinates, found {}")
    same_dim(r, boxes[0], scores[0], 1, "`" + r.op + "`: the boxes have batch {}, the scores {}")
    same_dim(r, boxes[1], scores[1], 1, "`" + r.op + "`: there are {} boxes but scores for {}")
    width = static(scores[2])
    if width is not None and r.attrs["num_classes"] > width:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}`: num_classes={r.attrs['num_classes']}, but the scores have {width} columns",
            arg=1,
        )
    batch, most = boxes[0], r.attrs["max_detections"]
    r.set_result(
        TupleType(
            (
                TensorType((batch, most, 4), "float32"),
                TensorType((batch, most), "float32"),
                TensorType((batch, most), "float32"),
                TensorType((batch,), "int32"),
            )
        )
    )
    return True


def _tflite_iou(box: Any, others: Any) -> Any:
    """TFLite's overlap of (ymin, xmin, ymax, xmax) boxes: 0 when either has no area."""
    zero = np.zeros((), others.dtype)
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1])
    h = np.maximum(np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0]), zero)
    w = np.maximum(np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1]), zero)
    inter = h * w
    ok = (area > 0) & (areas > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ok, inter / np.where(ok, area + areas - inter, 1), zero)


def _regular_class(boxes: Any, scores: Any, per_class: int, iou: float, threshold: float) -> Any:
    kept = np.nonzero(scores >= threshold)[0]
    order = kept[descending(scores[kept])]
    active = np.ones(len(order), dtype=bool)
    chosen: list[int] = []
    for i in range(len(order)):
        if len(chosen) >= min(len(order), per_class):
            break
        if not active[i]:
            continue
        chosen.append(int(order[i]))
        active[i] = False
        later = np.arange(i + 1, len(order))
        later = later[active[later]]
        active[later[_tflite_iou(boxes[order[i]], boxes[order[later]]) > iou]] = False
    return np.asarray(chosen, dtype=np.int64)


@register(
    "vision.regular_non_max_suppression",
    inputs=2,
    relation=regular_nms_rel,
    attrs=(
        Attr("max_detections_per_class", "int"),
        Attr("max_detections", "int"),
        Attr("num_classes", "int"),
        Attr("iou_threshold", "float"),
        Attr("score_threshold", "float"),
    ),
    doc="TFLite's regular non-maximum suppression: per class, then the best max_detections overall.",
)
def regular_non_max_suppression(args: Args, attrs: Attrs) -> Value:
    boxes, scores = args
    batch, _, width = scores.shape
    most, classes = attrs["max_detections"], attrs["num_classes"]
    offset = width - classes
    iou = np.float32(attrs["iou_threshold"])
    threshold = np.float32(attrs["score_threshold"])
    out_boxes = np.zeros((batch, most, 4), dtype=np.float32)
    out_classes = np.zeros((batch, most), dtype=np.float32)
    out_scores = np.zeros((batch, most), dtype=np.float32)
    counts = np.zeros(batch, dtype=np.int32)
    for b in range(batch):
        picked = np.zeros(0, dtype=np.int64)  # box * width + column, best first
        best = np.zeros(0, dtype=scores.dtype)
        for c in range(classes):
            column = scores[b, :, c + offset]
            sel = _regular_class(boxes[b], column, attrs["max_detections_per_class"], iou, threshold)
            picked = np.concatenate([picked, sel * width + c + offset])
            best = np.concatenate([best, column[sel]])
            order = descending(best)[:most]
            picked, best = picked[order], best[order]
        n = len(picked)
        anchor = picked // width
        out_boxes[b, :n] = boxes[b, anchor]
        out_classes[b, :n] = picked - anchor * width - offset
        out_scores[b, :n] = best
        counts[b] = n
    return out_boxes, out_classes, out_scores, counts
