"""Object detection's operators that ONNX expresses exactly: SSD's anchors
(constants of the feature map's shape) and box decoding, YOLO's reorg,
and the compaction of `vision.get_valid_counts`. Rows move to the top
"stably" through `TopK`, which ONNX defines to keep equal keys in the
order of their positions."""

from __future__ import annotations

from typing import Any

from . import OpContext, Unsupported, converter, np, np_dtype, select


@converter("vision.multibox_prior")
def multibox_prior(cx: OpContext, data: str) -> str:
    """The anchors depend only on the data's shape: the numpy kernel's own
    values, as a constant."""
    from ...ops import registry

    shape = cx.shape(0)
    definition = registry.get("vision.multibox_prior")
    assert definition is not None  # (a registered operator)
    kernel = definition.kernel
    return cx.node("Identity", [cx.const(kernel((np.zeros(shape, np_dtype(cx.dtype(0))),), cx.attrs))])


@converter("vision.yolo_reorg")
def yolo_reorg(cx: OpContext, x: str) -> str:
    n, c, h, w = cx.shape(0)
    s = int(cx.attrs["stride"])
    blocks = cx.reshape(x, [n, c // (s * s), h, s, w, s])
    out = cx.node("Transpose", [blocks], perm=[0, 3, 5, 1, 2, 4])
    return cx.reshape(out, [n, c * s * s, h // s, w // s])


def _stable_top(cx: OpContext, valid: str, count: int) -> str:
    """(batch, count) positions putting the valid rows first, in their order."""
    _, order = cx.multi_node("TopK", [cx.cast(valid, "int32"), cx.ints([count])], 2, axis=1, largest=1, sorted=1)
    return order


def _field(cx: OpContext, rows: str, k: int) -> str:
    return cx.node("Gather", [rows, cx.scalar(k, "int64")], axis=2)


@converter("vision.get_valid_counts")
def get_valid_counts(cx: OpContext, data: str, threshold: str) -> tuple[str, str, str]:
    a = cx.attrs
    batch, anchors, _ = cx.shape(0)
    dtype = cx.dtype(0)
    if a["score_threshold"] is not None:
        limit = cx.scalar(np.asarray(a["score_threshold"]).astype(np_dtype(dtype)), np_dtype(dtype))
    else:
        limit = cx.reshape(cx.cast(threshold, dtype), [])
    valid = cx.node("Greater", [_field(cx, data, int(a["score_index"])), limit])
    if int(a["id_index"]) >= 0:
        valid = cx.node(
            "And",
            [valid, cx.node("GreaterOrEqual", [_field(cx, data, int(a["id_index"])), cx.scalar(0, np_dtype(dtype))])],
        )
    count = cx.reduce("ReduceSum", cx.cast(valid, "int64"), [1], False)  # (batch,)
    order = _stable_top(cx, valid, anchors)
    below = cx.node(
        "GreaterOrEqual", [cx.const(np.arange(anchors).reshape(1, anchors), "int64"), cx.unsqueeze(count, [1])]
    )
    rows = cx.node(
        "GatherElements",
        [data, cx.node("Expand", [cx.unsqueeze(order, [2]), cx.ints([batch, anchors, cx.shape(0)[2]])])],
        axis=1,
    )
    rows = select(
        cx, cx.unsqueeze(below, [2]), cx.scalar(np.asarray(-1).astype(np_dtype(dtype)), np_dtype(dtype)), rows, dtype
    )
    indices = cx.node("Where", [below, cx.scalar(-1, "int64"), order])
    return cx.cast(count, "int32"), rows, cx.cast(indices, "int32")


@converter("vision.multibox_transform_loc")
def multibox_transform_loc(cx: OpContext, cls_prob: str, loc_pred: str, anchor: str) -> tuple[str, str]:
    """The kernel's scan for the best class, its box decoding (the same
    arithmetic in the same order), then the valid rows moved to the top."""
    a = cx.attrs
    batch, classes, anchors = cx.shape(0)
    dtype = cx.dtype(0)
    if dtype not in ("float32", "float64"):
        raise Unsupported(f"{dtype} probabilities")
    t = np_dtype(dtype)
    keep = bool(a["keep_background"])
    first = 0 if keep else 1
    scores = cx.node("Slice", [cls_prob, cx.ints([first]), cx.ints([classes]), cx.ints([1])])
    scan = cx.node("Concat", [cx.node("Expand", [cx.scalar(-1, t), cx.ints([batch, 1, anchors])]), scores], axis=1)
    best = cx.node("ArgMax", [scan], axis=1, keepdims=0)  # the first of equal scores
    score = cx.reduce("ReduceMax", scan, [1], False)
    zero = cx.scalar(0, "int64")
    cls_id = cx.node(
        "Where", [cx.node("Greater", [best, zero]), cx.node("Add", [best, cx.scalar(first - 1, "int64")]), zero]
    )
    weak = cx.node(
        "And", [cx.node("Greater", [cls_id, zero]), cx.node("Less", [score, cx.scalar(float(a["threshold"]), t)])]
    )
    cls_id = cx.node("Where", [weak, zero, cls_id])
    valid = (
        cx.node("Expand", [cx.const(np.ones(1, bool)), cx.ints([batch, anchors])])
        if keep
        else cx.node("Greater", [cls_id, zero])
    )
    boxes = _decode(
        cx,
        cx.cast(cx.reshape(anchor, [anchors, 4]), dtype),
        cx.cast(cx.reshape(loc_pred, [batch, anchors, 4]), dtype),
        [float(v) for v in a["variances"]],
        bool(a["clip"]),
        t,
    )
    label = cx.node("Sub", [cx.cast(cls_id, dtype), cx.scalar(0 if keep else 1, t)])
    rows = cx.node("Concat", [cx.unsqueeze(label, [2]), cx.unsqueeze(score, [2]), boxes], axis=2)  # (batch, anchors, 6)
    order = _stable_top(cx, valid, anchors)
    rows = cx.node(
        "GatherElements", [rows, cx.node("Expand", [cx.unsqueeze(order, [2]), cx.ints([batch, anchors, 6])])], axis=1
    )
    count = cx.reduce("ReduceSum", cx.cast(valid, "int64"), [1], False)
    below = cx.node(
        "GreaterOrEqual", [cx.const(np.arange(anchors).reshape(1, anchors), "int64"), cx.unsqueeze(count, [1])]
    )
    rows = cx.node("Where", [cx.unsqueeze(below, [2]), cx.scalar(-1, t), rows])
    return rows, cx.cast(count, "int32")


def _decode(cx: OpContext, anchor: str, loc: str, variances: list[float], clip: bool, t: Any) -> str:
    vx, vy, vw, vh = (cx.scalar(v, t) for v in variances)
    al, at, ar, ab = (cx.node("Gather", [anchor, cx.scalar(k, "int64")], axis=1) for k in range(4))  # (anchors,)
    aw, ah = cx.node("Sub", [ar, al]), cx.node("Sub", [ab, at])
    two = cx.scalar(2, t)
    ax = cx.node("Div", [cx.node("Add", [al, ar]), two])
    ay = cx.node("Div", [cx.node("Add", [at, ab]), two])
    lx, ly, lw, lh = (_field(cx, loc, k) for k in range(4))  # (batch, anchors)
    ox = cx.node("Add", [cx.node("Mul", [cx.node("Mul", [lx, vx]), aw]), ax])
    oy = cx.node("Add", [cx.node("Mul", [cx.node("Mul", [ly, vy]), ah]), ay])
    ow = cx.node("Div", [cx.node("Mul", [cx.node("Exp", [cx.node("Mul", [lw, vw])]), aw]), two])
    oh = cx.node("Div", [cx.node("Mul", [cx.node("Exp", [cx.node("Mul", [lh, vh])]), ah]), two])
    corners = [cx.node("Sub", [ox, ow]), cx.node("Sub", [oy, oh]), cx.node("Add", [ox, ow]), cx.node("Add", [oy, oh])]
    out = cx.node("Concat", [cx.unsqueeze(c, [2]) for c in corners], axis=2)
    if clip:
        out = cx.node("Clip", [out, cx.scalar(0, t), cx.scalar(1, t)])
    return out
