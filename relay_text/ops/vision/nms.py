"""Box selection for detection models: `vision.get_valid_counts` and
`vision.non_max_suppression`, as TOPI computes them (topi/vision/nms.py).

Boxes are rows of a `[batch, num_anchors, K]` tensor: a class id at
`id_index` (a negative id_index: no class), a score at `score_index` and
four corners from `coord_start` (two opposite corners in any order).

`get_valid_counts(data, score_threshold, score_threshold=None, id_index=0,
score_index=1)` keeps, per batch, the rows whose score exceeds the threshold
(the `score_threshold` attribute when given, else the scalar input) and
whose class id is not negative, moves them to the top in their order, and
fills the rest with -1. It returns `(valid_count [batch] int32, data,
indices [batch, num_anchors] int32)`, the indices being the rows' original
positions (-1 below the valid ones).

`non_max_suppression(data, valid_count, indices, max_output_size,
iou_threshold, force_suppress=False, top_k=-1, coord_start=2, score_index=1,
id_index=0, return_indices=True, invalid_to_bottom=False)` looks at the
first `valid_count[b]` rows of each batch. When `iou_threshold > 0` it sorts
them by descending score (ties keep their order), keeps the best `top_k`
(all when top_k is not positive), and walks down the list: once
`max_output_size` boxes are kept every later one is dropped; a box with a
positive score is dropped when its overlap (intersection over union) with
an earlier kept box of positive score - of the same class, unless
force_suppress or there is no class - reaches `iou_threshold`; a box whose
score is not positive is left in place but not counted. Dropped rows and
every row from `valid_count[b]` on become -1. When `iou_threshold <= 0` the
valid rows are copied unsorted.

With `return_indices` the result is `(indices [batch, num_anchors] int32,
count [batch, 1] int32)`: the original positions (looked up in `indices`)
of the kept rows, in order, then -1. Without it the result is the data
tensor, whose kept rows move to the top when `invalid_to_bottom` (a row
counts as kept when its column 0 is not negative).
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType, TupleType
from .._np import np
from .._vision import dtype_kind, rank_of, same_dim, scalar_input
from ..registry import Attr, KernelError, register
from ..relations import Relation, known_rank, relation, static
from ..types import Args, Attrs, Value

# ---------------------------------------------------------------- shared by the NMS operators


def field_index(r: Relation, name: str, width: Any, span: int = 1, optional: bool = False) -> None:
    """Attribute `name` indexes `span` consecutive columns of rows `width` wide."""
    index, w = r.attrs[name], static(width)
    if optional and index < 0:
        return
    if index < 0 or (w is not None and index + span > w):
        what = f"columns {index} to {index + span - 1}" if span > 1 else f"column {index}"
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` {name}={index} names {what}, but the boxes have {w} columns", arg=0)


def one_value(x: Any) -> Any:
    """The single value of a scalar-like tensor."""
    flat = np.asarray(x).reshape(-1)
    if flat.size != 1:
        raise KernelError(codes.RUNTIME_ERROR, f"expected a single value, found {flat.size}")
    return flat[0]


# Any: boxes as numpy arrays, numpy being seen as Any (see `types`).
Corners = tuple[Any, Any, Any, Any]  # left, top, right, bottom


def corners(rows: Any, start: int) -> Corners:
    """(left, top, right, bottom) of boxes whose corners start at column `start`."""
    a, b, c, d = (rows[..., start + k] for k in range(4))
    return np.minimum(a, c), np.minimum(b, d), np.maximum(a, c), np.maximum(b, d)


def overlap(box: Corners, others: Corners) -> Any:
    """Intersection over union of one box with many (0 where the union is not positive)."""
    left, top, right, bottom = box
    o_left, o_top, o_right, o_bottom = others
    zero = np.zeros((), dtype=np.result_type(left))
    w = np.maximum(zero, np.minimum(right, o_right) - np.maximum(left, o_left))
    h = np.maximum(zero, np.minimum(bottom, o_bottom) - np.maximum(top, o_top))
    area = w * h
    union = (right - left) * (bottom - top) + (o_right - o_left) * (o_bottom - o_top) - area
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(union <= 0, zero, area / np.where(union <= 0, 1, union))


def descending(scores: Any) -> Any:
    """Positions sorted by descending score, ties in their order."""
    return np.argsort(-scores, kind="stable")


# ---------------------------------------------------------------- get_valid_counts


@relation("GetValidCount")
def get_valid_counts_rel(r: Relation) -> bool:
    data = r.tensor(0)
    if data.dtype == "bool":
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` takes boxes of numbers, not bool", arg=0, label="this is `bool`")
    scalar_input(r, 1, "the score threshold", ("float", "int", "uint"), "a number")
    shape = rank_of(r, 0, 3, "boxes of shape (batch, num_anchors, box_width)")
    if shape is None:
        return False
    field_index(r, "score_index", shape[2])
    field_index(r, "id_index", shape[2], optional=True)
    batch, anchors = shape[0], shape[1]
    r.set_result(
        TupleType((TensorType((batch,), "int32"), TensorType(shape, data.dtype), TensorType((batch, anchors), "int32")))
    )
    return True


@register(
    "vision.get_valid_counts",
    inputs=2,
    relation=get_valid_counts_rel,
    attrs=(Attr("score_threshold", "opt_float", None), Attr("id_index", "int", 0), Attr("score_index", "int", 1)),
    doc="Move the boxes scoring above a threshold to the top; count them and keep their positions.",
)
def get_valid_counts(args: Args, attrs: Attrs) -> Value:
    data, threshold = args
    if attrs["score_threshold"] is not None:
        threshold = np.asarray(attrs["score_threshold"]).astype(data.dtype)
    threshold = one_value(threshold)
    valid = data[:, :, attrs["score_index"]] > threshold
    if attrs["id_index"] >= 0:
        valid &= data[:, :, attrs["id_index"]] >= 0
    count = valid.sum(axis=1)
    order = np.argsort(~valid, axis=1, kind="stable")
    below = np.arange(data.shape[1])[None, :] >= count[:, None]
    out = np.take_along_axis(data, order[:, :, None], axis=1)
    out[below] = np.asarray(-1).astype(data.dtype)
    indices = np.where(below, -1, order).astype(np.int32)
    return count.astype(np.int32), out, indices


# ---------------------------------------------------------------- non_max_suppression


@relation("NMS")
def nms_rel(r: Relation) -> bool:
    dtype_kind(r, 0, "boxes", ("float",), "floats")
    dtype_kind(r, 1, "the valid counts", ("int", "uint"), "integers")
    scalar_input(r, 3, "max_output_size", ("int", "uint"), "an integer")
    scalar_input(r, 4, "iou_threshold", ("float",), "a float")
    data = r.tensor(0)
    shape = rank_of(r, 0, 3, "boxes of shape (batch, num_anchors, box_width)")
    counts = rank_of(r, 1, 1, "the valid counts as a vector (batch)")
    indices = r.tensor(2)
    if r.attrs["return_indices"]:
        dtype_kind(r, 2, "the indices", ("int", "uint"), "integers")
        rank_of(r, 2, 2, "the indices with shape (batch, num_anchors)")
    if shape is None:
        return False
    field_index(r, "coord_start", shape[2], span=4)
    field_index(r, "score_index", shape[2])
    field_index(r, "id_index", shape[2], optional=True)
    if counts is not None:
        same_dim(r, shape[0], counts[0], 1, "`" + r.op + "`: the boxes have batch {}, the valid counts {} entries")
    if r.attrs["return_indices"] and known_rank(indices.shape):
        same_dim(r, shape[1], indices.shape[1], 2, "`" + r.op + "`: the boxes have {} anchors, the indices {}")
    batch, anchors = shape[0], shape[1]
    if r.attrs["return_indices"]:
        r.set_result(TupleType((TensorType((batch, anchors), "int32"), TensorType((batch, 1), "int32"))))
    else:
        r.set_result(TensorType(shape, data.dtype))
    return True


def _nms_one(rows: Any, count: int, limit: int, threshold: Any, attrs: Attrs) -> tuple[Any, Any]:
    """One batch: the output rows and the kept rows' positions in `rows` (-1: dropped)."""
    n, width = rows.shape
    out = np.full((n, width), -1, dtype=rows.dtype)
    kept = np.full(n, -1, dtype=np.int64)
    score, ident, start = attrs["score_index"], attrs["id_index"], attrs["coord_start"]
    if not threshold > 0:
        out[:count] = rows[:count]
        kept[:count] = np.arange(count)
        return out, kept
    if count > 0:
        top_k = attrs["top_k"]
        take = top_k if 0 < top_k < count else count
        order = descending(rows[:count, score])[:take]
        out[:take] = rows[order]
        kept[:take] = order
    boxes = corners(out, start)
    alive = 0
    for j in range(count):
        if alive == limit:
            out[j], kept[j] = -1, -1
            continue
        if not out[j, score] > 0:
            continue
        earlier = out[:j, score] > 0
        if ident >= 0:
            earlier &= out[:j, ident] >= 0
            if not attrs["force_suppress"]:
                earlier &= out[:j, ident] == out[j, ident]
        mine = tuple(c[j] for c in boxes)
        theirs = tuple(c[:j][earlier] for c in boxes)
        if np.any(overlap(mine, theirs) >= threshold):
            out[j], kept[j] = -1, -1  # its score is now -1: later boxes skip it
        else:
            alive += 1
    return out, kept


def _compact(values: Any, n: int) -> tuple[Any, int]:
    """TOPI's packing of returned indices: every index that is not negative
    moves up in order, an index beyond +-n also adds a 0 after it; -1 fills."""
    pairs = np.stack([values, np.zeros_like(values)], axis=1)
    parts = pairs[np.stack([values >= 0, (values > n) | (values < -n)], axis=1)]
    out = np.full(n, -1, dtype=np.int32)
    out[: min(len(parts), n)] = parts[:n]
    return out, len(parts)


@register(
    "vision.non_max_suppression",
    inputs=5,
    relation=nms_rel,
    attrs=(
        Attr("force_suppress", "bool", False),
        Attr("top_k", "int", -1),
        Attr("coord_start", "int", 2),
        Attr("score_index", "int", 1),
        Attr("id_index", "int", 0),
        Attr("return_indices", "bool", True),
        Attr("invalid_to_bottom", "bool", False),
    ),
    doc="Non-maximum suppression: drop boxes overlapping a better-scoring box of their class.",
)
def non_max_suppression(args: Args, attrs: Attrs) -> Value:
    data, valid_count, indices, max_output, threshold = args
    batch, n, _ = data.shape
    if valid_count.shape[0] < batch:
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"`vision.non_max_suppression` needs {batch} valid counts, found {valid_count.shape[0]}",
        )
    limit = int(one_value(max_output))
    threshold = one_value(threshold).astype(data.dtype)
    outs, kept_all = [], []
    for b in range(batch):
        count = int(valid_count[b])
        if not 0 <= count <= n:
            raise KernelError(
                codes.RUNTIME_ERROR, f"`vision.non_max_suppression`: valid count {count} of batch {b} is outside 0..{n}"
            )
        out, kept = _nms_one(data[b], count, limit, threshold, attrs)
        outs.append(out)
        kept_all.append(kept)
    if attrs["return_indices"]:
        if indices.ndim != 2 or indices.shape[0] < batch:
            raise KernelError(
                codes.RUNTIME_ERROR,
                f"`vision.non_max_suppression` needs indices of shape ({batch}, {n}), found {indices.shape}",
            )
        result, counts = np.empty((batch, n), dtype=np.int32), np.empty((batch, 1), dtype=np.int32)
        for b, kept in enumerate(kept_all):
            if np.any(kept >= indices.shape[1]):
                raise KernelError(
                    codes.RUNTIME_ERROR,
                    f"`vision.non_max_suppression`: indices has {indices.shape[1]} columns, fewer than the boxes",
                )
            original = np.where(kept >= 0, indices[b][np.maximum(kept, 0)], kept)
            result[b], counts[b, 0] = _compact(original.astype(np.int64), n)
        return result, counts
    out = np.stack(outs) if outs else data.copy()
    if attrs["invalid_to_bottom"]:
        good = out[:, :, 0] >= 0
        order = np.argsort(~good, axis=1, kind="stable")
        out = np.take_along_axis(out, order[:, :, None], axis=1)
        out[np.arange(n)[None, :] >= good.sum(axis=1)[:, None]] = -1
    return out
