"""vision.get_valid_counts, vision.non_max_suppression,
vision.all_class_non_max_suppression and vision.regular_non_max_suppression:
result types from TVM's tests, rejected calls, and the kernels against TVM's
expected values (tests/python/relay/test_op_level5.py, test_any.py,
tests/python/topi/test_topi_vision.py) and plain-Python greedy references
written here.

Types: src/relay/op/vision/nms.cc; numerics: python/tvm/topi/vision/nms.py
and nms_util.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.ops import KernelError, get
from tests.ops.family import Family, T, same

FAMILY = Family(
    "vision.get_valid_counts",
    "vision.non_max_suppression",
    "vision.all_class_non_max_suppression",
    "vision.regular_non_max_suppression",
)

I32 = "int32"


def i32(v: object) -> np.ndarray:
    return np.array(v, dtype=np.int32)


def f32(v: object) -> np.ndarray:
    return np.array(v, dtype=np.float32)


# ---------------------------------------------------------------- types


@pytest.mark.parametrize(
    "call, types, expected",
    [
        # test_get_valid_counts: (valid_count, data, indices)
        (
            "vision.get_valid_counts(%a, 0f)",
            [T("(1, 2500, 6)")],
            f"({T('(1)', I32)}, {T('(1, 2500, 6)')}, {T('(1, 2500)', I32)})",
        ),
        (
            "vision.get_valid_counts(%a, %b, id_index=-1, score_index=0)",
            [T("(16, 500, 5)", "int32"), T("()")],
            f"({T('(16)', I32)}, {T('(16, 500, 5)', I32)}, {T('(16, 500)', I32)})",
        ),
        # test_non_max_suppression: the data's type, or (indices, count) with return_indices
        (
            "vision.non_max_suppression(%a, %b, %c, %d, 0.5f, return_indices=False)",
            [T("(?, 5, 6)"), T("(?)", I32), T("(?, 5)", I32), T("()", I32)],
            T("(?, 5, 6)"),
        ),
        (
            "vision.non_max_suppression(%a, %b, %c, %d, 0.5f)",
            [T("(1, 5, 6)"), T("(1)", I32), T("(1, 5)", I32), T("()", I32)],
            f"({T('(1, 5)', I32)}, {T('(1, 1)', I32)})",
        ),
        # test_multibox_transform_loc passes the 3-D boxes as indices when return_indices is off
        (
            "vision.non_max_suppression(%a, %b, %a, -1, 0.5f, return_indices=False)",
            [T("(1, 3, 6)"), T("(1)", I32)],
            T("(1, 3, 6)"),
        ),
        # test_all_class_non_max_suppression (relay/test_any.py): a dynamic number of boxes
        (
            "vision.all_class_non_max_suppression(%a, %b, 2, 0.8f, 0.4f)",
            [T("(1, 5, 4)"), T("(1, 2, 5)")],
            f"({T('(10, 3)', 'int64')}, {T('(1)', 'int64')})",
        ),
        (
            "vision.all_class_non_max_suppression(%a, %b, 2, 0.8f, 0.4f)",
            [T("(1, ?, 4)"), T("(1, 2, ?)")],
            f"({T('(?, 3)', 'int64')}, {T('(1)', 'int64')})",
        ),
        (
            'vision.all_class_non_max_suppression(%a, %b, 2, 0.8f, 0.4f, output_format="tensorflow")',
            [T("(1, 5, 4)"), T("(1, 2, 5)")],
            f"({T('(1, 10, 2)', 'int64')}, {T('(1, 10)')}, {T('(1)', 'int64')})",
        ),
        (
            'vision.all_class_non_max_suppression(%a, %b, 2, 0.8f, 0.4f, output_format="tensorflow")',
            [T("(3, ?, 4)"), T("(3, 2, ?)")],
            f"({T('(3, ?, 2)', 'int64')}, {T('(3, ?)')}, {T('(3)', 'int64')})",
        ),
        # the TFLite frontend's call: boxes (batch, anchors, 4), scores with a background column
        (
            (
                "vision.regular_non_max_suppression(%a, %b, max_detections_per_class=1, max_detections=10, "
                "num_classes=90, iou_threshold=0.6f, score_threshold=0.3f)"
            ),
            [T("(1, 1917, 4)"), T("(1, 1917, 91)")],
            f"({T('(1, 10, 4)')}, {T('(1, 10)')}, {T('(1, 10)')}, {T('(1)', I32)})",
        ),
    ],
)
def test_result_type(call: str, types: list[str], expected: str) -> None:
    """GetValidCountRel, NMSRel, AllClassNMSRel and RegularNMSRel (nms.cc)."""
    assert FAMILY.result_type(call, types) == expected


def test_all_class_sizes_follow_shape_variables() -> None:
    """AllClassNMSRel multiplies batch, classes and boxes (nms.cc)."""
    from relay_text.ir.span import Source
    from relay_text.pipeline import check_source
    from relay_text.text.type_text import type_text

    text = (
        "def @main<n : ShapeVar>(%b: Tensor[(1, n, 4), float32], %s: Tensor[(1, 2, n), float32]) {\n"
        "  (vision.all_class_non_max_suppression(%b, %s, 2, 0.5f, 0.1f), "
        'vision.all_class_non_max_suppression(%b, %s, 2, 0.5f, 0.1f, output_format="tensorflow"))\n'
        "}\n"
    )
    checked = check_source(Source("t.rly", text))
    assert [str(d) for d in checked.diagnostics] == []
    onnx = f"({T('(n * 2, 3)', 'int64')}, {T('(1)', 'int64')})"
    tensorflow = f"({T('(1, n * 2, 2)', 'int64')}, {T('(1, n * 2)')}, {T('(1)', 'int64')})"
    assert type_text(checked.result.global_type("main").ret_type) == f"({onnx}, {tensorflow})"


@pytest.mark.parametrize(
    "call, types, code, message, at",
    [
        (
            "vision.get_valid_counts(%a, 0f)",
            [T("(2, 6)")],
            "shape-mismatch",
            "`vision.get_valid_counts` takes boxes of shape (batch, num_anchors, box_width), found (2, 6)",
            "%a",
        ),
        (
            "vision.get_valid_counts(%a, 0f, score_index=6)",
            [T("(1, 4, 6)")],
            "shape-mismatch",
            "`vision.get_valid_counts` score_index=6 names column 6, but the boxes have 6 columns",
            "%a",
        ),
        (
            "vision.get_valid_counts(%a, %b)",
            [T("(1, 4, 6)"), T("(2)")],
            "shape-mismatch",
            "`vision.get_valid_counts` takes the score threshold as a single value, found a tensor of shape (2)",
            "%b",
        ),
        (
            "vision.non_max_suppression(%a, %b, %c, -1, 0.5f)",
            [T("(1, 4, 5)"), T("(1)", I32), T("(1, 4)", I32)],
            "shape-mismatch",
            "`vision.non_max_suppression` coord_start=2 names columns 2 to 5, but the boxes have 5 columns",
            "%a",
        ),
        (
            "vision.non_max_suppression(%a, %b, %c, -1, 0.5f)",
            [T("(2, 4, 6)"), T("(3)", I32), T("(2, 4)", I32)],
            "shape-mismatch",
            "`vision.non_max_suppression`: the boxes have batch 2, the valid counts 3 entries",
            "%b",
        ),
        (
            "vision.non_max_suppression(%a, %b, %c, 1f, 0.5f)",
            [T("(1, 4, 6)"), T("(1)", I32), T("(1, 4)", I32)],
            "type-mismatch",
            "`vision.non_max_suppression` takes max_output_size as an integer, not `float32`",
            "1f",
        ),
        (
            "vision.non_max_suppression(%a, %b, %c, -1, 0.5f)",
            [T("(1, 4, 6)", I32), T("(1)", I32), T("(1, 4)", I32)],
            "type-mismatch",
            "`vision.non_max_suppression` takes boxes as floats, not `int32`",
            "%a",
        ),
        (
            'vision.all_class_non_max_suppression(%a, %b, 2, 0.8f, 0.4f, output_format="coco")',
            [T("(1, 5, 4)"), T("(1, 2, 5)")],
            "type-mismatch",
            '`vision.all_class_non_max_suppression` output_format "coco" is not supported',
            'vision.all_class_non_max_suppression(%a, %b, 2, 0.8f, 0.4f, output_format="coco")',
        ),
        (
            "vision.all_class_non_max_suppression(%a, %b, 2, 0.8f, 0.4f)",
            [T("(1, 5, 4)"), T("(1, 2, 6)")],
            "shape-mismatch",
            "`vision.all_class_non_max_suppression`: there are 5 boxes but scores for 6",
            "%b",
        ),
        (
            (
                "vision.regular_non_max_suppression(%a, %b, max_detections_per_class=1, max_detections=10, "
                "num_classes=5, iou_threshold=0.6f, score_threshold=0.3f)"
            ),
            [T("(1, 8, 4)"), T("(1, 8, 4)")],
            "shape-mismatch",
            "`vision.regular_non_max_suppression`: num_classes=5, but the scores have 4 columns",
            "%b",
        ),
    ],
)
def test_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


def test_defaults_are_tvms() -> None:
    """include/tvm/relay/attrs/vision.h."""
    assert get("vision.non_max_suppression").normalize_attrs([])[0] == {
        "force_suppress": False,
        "top_k": -1,
        "coord_start": 2,
        "score_index": 1,
        "id_index": 0,
        "return_indices": True,
        "invalid_to_bottom": False,
    }
    assert get("vision.get_valid_counts").normalize_attrs([])[0] == {
        "score_threshold": None,
        "id_index": 0,
        "score_index": 1,
    }
    assert get("vision.all_class_non_max_suppression").normalize_attrs([])[0] == {"output_format": "onnx"}


# ---------------------------------------------------------------- get_valid_counts


def valid_counts_reference(data: np.ndarray, threshold: float, id_index: int, score_index: int) -> tuple:
    batch, n, _ = data.shape
    counts = np.zeros(batch, np.int32)
    out = np.full(data.shape, -1, data.dtype)
    idx = np.full((batch, n), -1, np.int32)
    for b in range(batch):
        for j in range(n):
            if data[b, j, score_index] > threshold and (id_index < 0 or data[b, j, id_index] >= 0):
                out[b, counts[b]] = data[b, j]
                idx[b, counts[b]] = j
                counts[b] += 1
    return counts, out, idx


@pytest.mark.parametrize(
    "shape, threshold, id_index, score_index",
    [((1, 50, 6), 0.0, 0, 1), ((1, 50, 5), -1.0, -1, 0), ((3, 40, 6), 0.55, 1, 0)],
)
def test_get_valid_counts_against_loops(shape: tuple, threshold: float, id_index: int, score_index: int) -> None:
    """test_get_valid_counts's cases, smaller."""
    data = np.random.default_rng(0).uniform(-2, 2, shape).astype(np.float32)
    got = FAMILY.run("vision.get_valid_counts", data, f32(threshold), id_index=id_index, score_index=score_index)
    for g, e in zip(got, valid_counts_reference(data, threshold, id_index, score_index), strict=False):
        same(g, e)


def test_get_valid_counts_attribute_threshold_and_integers() -> None:
    """A score_threshold attribute overrides the input (strategy/generic.py);
    integer boxes are compared exactly and padded with -1."""
    data = i32([[[0, 5, 1, 1], [-1, 9, 2, 2], [3, 2, 3, 3], [1, 7, 4, 4]]])
    count, out, idx = FAMILY.run("vision.get_valid_counts", data, i32(100), score_threshold=4.0)
    same(count, i32([2]))
    same(out, i32([[[0, 5, 1, 1], [1, 7, 4, 4], [-1, -1, -1, -1], [-1, -1, -1, -1]]]))
    same(idx, i32([[0, 3, -1, -1]]))


# ---------------------------------------------------------------- non_max_suppression


DATA = f32(
    [
        [
            [0, 0.8, 1, 20, 25, 45],
            [1, 0.7, 30, 60, 50, 80],
            [0, 0.4, 4, 21, 19, 40],
            [2, 0.9, 35, 61, 52, 79],
            [1, 0.5, 100, 60, 70, 110],
        ]
    ]
)
INVALID = [-1] * 6


@pytest.mark.parametrize(
    "attrs, max_output, iou, indices, expected_indices",
    [
        # test_op_level5.py: force_suppress, top_k=2, indices from get_valid_counts
        ({"force_suppress": True, "top_k": 2}, -1, 0.5, [[0, 1, 3, 4, -1]], [4, 0, -1, -1, -1]),
        ({"top_k": 2}, 2, 0.5, [[0, 1, 3, 4, -1]], [4, 0, -1, -1, -1]),
        ({}, 2, 0.5, [[0, 1, 3, 4, -1]], [4, 0, -1, -1, -1]),
        # test_topi_vision.py: iou 0.7, force_suppress, top_k 2
        ({"force_suppress": True, "top_k": 2}, -1, 0.7, [[0, 1, 2, 3, 4]], [3, 0, -1, -1, -1]),
    ],
)
def test_nms_tvm_cases(attrs: dict, max_output: int, iou: float, indices: list, expected_indices: list) -> None:
    """Every case keeps rows 3 and 0 (scores 0.9 and 0.8), in that order."""
    expected = f32([[DATA[0, 3], DATA[0, 0]] + [INVALID] * 3])
    out = FAMILY.run(
        "vision.non_max_suppression",
        DATA,
        i32([4]),
        i32(indices),
        i32(max_output),
        f32(iou),
        return_indices=False,
        **attrs,
    )
    same(out, expected)
    idx, count = FAMILY.run(
        "vision.non_max_suppression", DATA, i32([4]), i32(indices), i32(max_output), f32(iou), **attrs
    )
    same(idx, i32([expected_indices]))
    same(count, i32([[2]]))


def test_nms_without_class_ids() -> None:
    """test_topi_vision.py's second case: rows [score, box], id_index=-1, at most 2 boxes."""
    data = DATA[:, :, 1:].copy()
    out = FAMILY.run(
        "vision.non_max_suppression",
        data,
        i32([4]),
        i32([[0, 1, 2, 3, 4]]),
        i32(2),
        f32(0.7),
        coord_start=1,
        score_index=0,
        id_index=-1,
        return_indices=False,
    )
    same(out, f32([[data[0, 3], data[0, 0]] + [[-1] * 5] * 3]))


def nms_reference(data: np.ndarray, valid: np.ndarray, limit: int, iou: float, attrs: dict) -> tuple:
    """The greedy walk of hybrid_nms, on Python lists."""
    score, ident, start = attrs["score_index"], attrs["id_index"], attrs["coord_start"]

    def box(row: list) -> tuple:
        x1, y1, x2, y2 = row[start : start + 4]
        return min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)

    def iou_of(a: tuple, b: tuple) -> float:
        w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
        h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
        inter = w * h
        union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
        return 0.0 if union <= 0 else inter / union

    outs, positions = [], []
    for b in range(data.shape[0]):
        rows = [list(map(float, r)) for r in data[b]]
        n, count = len(rows), int(valid[b])
        order = sorted(range(count), key=lambda j: -rows[j][score])
        if attrs["top_k"] > 0:
            order = order[: attrs["top_k"]]
        out = [rows[j] for j in order] + [[-1.0] * len(rows[0])] * (n - len(order))
        pos = order + [-1] * (n - len(order))
        kept = 0
        for j in range(count):
            if kept == limit:
                out[j], pos[j] = [-1.0] * len(rows[0]), -1
                continue
            if out[j][score] <= 0:
                continue
            clash = any(
                out[k][score] > 0
                and (ident < 0 or out[k][ident] >= 0)
                and (attrs["force_suppress"] or ident < 0 or out[k][ident] == out[j][ident])
                and iou_of(box(out[j]), box(out[k])) >= iou
                for k in range(j)
            )
            if clash:
                out[j], pos[j] = [-1.0] * len(rows[0]), -1
            else:
                kept += 1
        outs.append(out)
        positions.append(pos)
    return np.array(outs, dtype=data.dtype), positions


@pytest.mark.parametrize("seed", range(4))
def test_nms_against_a_python_reference(seed: int) -> None:
    g = np.random.default_rng(seed)
    batch, n = 2, 30
    data = np.concatenate(
        [
            g.integers(-1, 3, (batch, n, 1)).astype(np.float32),
            g.uniform(-0.2, 1.0, (batch, n, 1)).astype(np.float32),
            g.uniform(0, 10, (batch, n, 4)).astype(np.float32),
        ],
        axis=2,
    )
    valid = i32(g.integers(n // 2, n + 1, batch))
    attrs = {
        "force_suppress": bool(seed % 2),
        "top_k": [-1, 10, 0, 25][seed],
        "coord_start": 2,
        "score_index": 1,
        "id_index": [0, 0, -1, 0][seed],
    }
    limit = [-1, 5, 3, -1][seed]
    expected, positions = nms_reference(data, valid, limit, 0.3, attrs)
    out = FAMILY.run(
        "vision.non_max_suppression",
        data,
        valid,
        i32(np.tile(np.arange(n), (batch, 1))),
        i32(limit),
        f32(0.3),
        return_indices=False,
        **attrs,
    )
    same(out, expected)
    # the indices result: the original positions (here looked up in reversed indices) of kept rows, packed
    reverse = i32(np.tile(np.arange(n)[::-1], (batch, 1)))
    idx, count = FAMILY.run("vision.non_max_suppression", data, valid, reverse, i32(limit), f32(0.3), **attrs)
    for b in range(batch):
        kept = [n - 1 - p for p in positions[b] if p >= 0]
        same(idx[b], i32(kept + [-1] * (n - len(kept))))
        assert count[b, 0] == len(kept)


def test_nms_invalid_to_bottom_and_no_threshold() -> None:
    """A row of class -1 is never compared with (nms.py: hybrid_nms), so it
    suppresses nothing; invalid_to_bottom then keeps only rows whose column 0 is
    not negative, moved up. With iou_threshold <= 0 the valid rows are copied unsorted."""
    data = f32([[[-1, 0.9, 0, 0, 1, 1], [0, 0.8, 0, 0, 1, 1], [1, 0.7, 5, 5, 6, 6]]])
    out = FAMILY.run(
        "vision.non_max_suppression", data, i32([3]), i32([[0, 1, 2]]), i32(-1), f32(0.5), return_indices=False
    )
    same(out, data)
    out = FAMILY.run(
        "vision.non_max_suppression",
        data,
        i32([3]),
        i32([[0, 1, 2]]),
        i32(-1),
        f32(0.5),
        return_indices=False,
        invalid_to_bottom=True,
    )
    same(out, f32([data[0, 1], data[0, 2], [-1] * 6])[None])
    out = FAMILY.run(
        "vision.non_max_suppression",
        data[:, ::-1].copy(),
        i32([2]),
        i32([[0, 1, 2]]),
        i32(-1),
        f32(0.0),
        return_indices=False,
    )
    same(out, f32([data[0, 2], data[0, 1], [-1] * 6])[None])


def test_nms_checks_valid_counts() -> None:
    with pytest.raises(KernelError) as err:
        FAMILY.run("vision.non_max_suppression", DATA, i32([6]), i32([[0, 1, 2, 3, 4]]), i32(-1), f32(0.5))
    assert err.value.message == "`vision.non_max_suppression`: valid count 6 of batch 0 is outside 0..5"


# ---------------------------------------------------------------- all_class_non_max_suppression


def all_class_reference(boxes: np.ndarray, scores: np.ndarray, limit: int, iou: float, threshold: float) -> list:
    """[(batch, class, box, score)] selected in order, by a plain greedy walk."""

    def area_iou(a: np.ndarray, b: np.ndarray) -> float:
        a = (min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3]))
        b = (min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3]))
        w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
        h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
        union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
        return 0.0 if union <= 0 else w * h / union

    found = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            ranked = [
                j for j in sorted(range(scores.shape[2]), key=lambda j: -scores[b, c, j]) if scores[b, c, j] > threshold
            ]
            chosen: list[int] = []
            for j in ranked:
                if limit > 0 and len(chosen) == limit:
                    break
                if all(area_iou(boxes[b, j], boxes[b, k]) < iou or scores[b, c, j] <= 0 for k in chosen):
                    chosen.append(j)
            found += [(b, c, j, float(scores[b, c, j])) for j in chosen]
    return found


BOXES = f32(
    [
        [[0.0, 0.0, 0.3, 0.3], [0.0, 0.0, 0.4, 0.4], [0.0, 0.0, 0.5, 0.5], [0.5, 0.5, 0.9, 0.9], [0.5, 0.5, 1.0, 1.0]],
        [
            [0.0, 0.0, 0.3, 0.3],
            [0.0, 0.0, 0.4, 0.4],
            [0.5, 0.5, 0.95, 0.95],
            [0.5, 0.5, 0.96, 0.96],
            [0.5, 0.5, 1.0, 1.0],
        ],
    ]
)
SCORES = f32([[[0.1, 0.2, 0.6, 0.3, 0.9], [0.1, 0.2, 0.6, 0.3, 0.9]]] * 2)


def test_all_class_nms_tvm_cases() -> None:
    """Expected selections from test_op_level5.py and test_any.py."""
    idx, count = FAMILY.run(
        "vision.all_class_non_max_suppression", BOXES, SCORES, np.array(2, np.int64), f32(0.8), f32(0.0)
    )
    assert count.tolist() == [8]
    assert idx[:8].tolist() == [[0, 0, 4], [0, 0, 2], [0, 1, 4], [0, 1, 2], [1, 0, 4], [1, 0, 1], [1, 1, 4], [1, 1, 1]]
    same(idx[8:], np.zeros((12, 3), np.int64))  # the padding rows
    boxes = f32(
        [
            [
                [0.0, 0.0, 1.0, 1.0],
                [0.0, 0.1, 1.0, 1.1],
                [0.0, -0.1, 1.0, 0.9],
                [0.0, 10.0, 1.0, 11.0],
                [0.0, 10.1, 1.0, 11.1],
                [0.0, 100.0, 1.0, 101.0],
            ]
        ]
    )
    scores = f32([[[0.9, 0.75, 0.6, 0.95, 0.5, 0.3]]])
    idx, count = FAMILY.run(
        "vision.all_class_non_max_suppression", boxes, scores, np.array(3, np.int64), f32(0.5), f32(0.4)
    )
    assert idx[: count[0]].tolist() == [[0, 0, 3], [0, 0, 0]]
    # test_any.py: reversed corners, and the tensorflow format
    boxes = f32(
        [[[0.0, 0.0, 0.3, 0.3], [0.5, 0.5, 0.4, 0.4], [0.0, 0.0, 0.5, 0.5], [0.5, 0.5, 0.9, 0.9], [0.5, 0.5, 1.0, 1.0]]]
    )
    scores = f32([[[0.1, 0.2, 0.6, 0.3, 0.9], [0.8, 0.2, 0.6, 0.3, 0.9]]])
    idx, count = FAMILY.run(
        "vision.all_class_non_max_suppression", boxes, scores, np.array(2, np.int64), f32(0.8), f32(0.4)
    )
    assert idx[: count[0]].tolist() == [[0, 0, 4], [0, 0, 2], [0, 1, 4], [0, 1, 0]]
    pairs, kept, counts = FAMILY.run(
        "vision.all_class_non_max_suppression",
        boxes,
        scores,
        np.array(2, np.int64),
        f32(0.8),
        f32(0.4),
        output_format="tensorflow",
    )
    same(pairs, np.array([[[0, 4], [0, 2], [1, 4], [1, 0]] + [[0, 0]] * 6], np.int64))
    same(kept, f32([[0.9, 0.6, 0.9, 0.8] + [0.0] * 6]))
    same(counts, np.array([4], np.int64))


@pytest.mark.parametrize("seed", range(3))
def test_all_class_nms_against_a_python_reference(seed: int) -> None:
    g = np.random.default_rng(seed)
    corners = g.uniform(0, 1, (2, 12, 2, 2)).astype(np.float32)
    boxes = np.concatenate([corners.min(axis=2), corners.max(axis=2)], axis=2)
    scores = g.uniform(-0.1, 1, (2, 3, 12)).astype(np.float32)
    limit, iou, threshold = [-1, 3, 0][seed], 0.25, 0.2
    expected = all_class_reference(boxes, scores, limit, iou, threshold)
    idx, count = FAMILY.run(
        "vision.all_class_non_max_suppression", boxes, scores, np.array(limit, np.int64), f32(iou), f32(threshold)
    )
    assert count.tolist() == [len(expected)]
    assert idx[: len(expected)].tolist() == [[b, c, j] for b, c, j, _ in expected]
    pairs, kept, counts = FAMILY.run(
        "vision.all_class_non_max_suppression",
        boxes,
        scores,
        np.array(limit, np.int64),
        f32(iou),
        f32(threshold),
        output_format="tensorflow",
    )
    for b in range(2):
        mine = [(c, j, s) for bb, c, j, s in expected if bb == b]
        assert counts[b] == len(mine)
        assert pairs[b, : len(mine)].tolist() == [[c, j] for c, j, _ in mine]
        same(kept[b, : len(mine)], f32([s for _, _, s in mine]))


def test_all_class_nms_selects_nothing_without_an_iou_threshold() -> None:
    """_nms_loop runs only when iou_threshold > 0 (nms.py)."""
    _, count = FAMILY.run(
        "vision.all_class_non_max_suppression", BOXES, SCORES, np.array(2, np.int64), f32(0.0), f32(0.0)
    )
    assert count.tolist() == [0]


# ---------------------------------------------------------------- regular_non_max_suppression


def regular_reference(
    boxes: np.ndarray, scores: np.ndarray, per_class: int, most: int, classes: int, iou: float, threshold: float
) -> list:
    """TFLite's regular NMS on Python lists: per batch [(box, class, score)] best first."""

    def overlap(a: np.ndarray, b: np.ndarray) -> float:
        area_a = (a[2] - a[0]) * (a[3] - a[1])
        area_b = (b[2] - b[0]) * (b[3] - b[1])
        if area_a <= 0 or area_b <= 0:
            return 0.0
        inter = max(min(a[2], b[2]) - max(a[0], b[0]), 0.0) * max(min(a[3], b[3]) - max(a[1], b[1]), 0.0)
        return inter / (area_a + area_b - inter)

    results = []
    offset = scores.shape[2] - classes
    for b in range(boxes.shape[0]):
        picked: list[tuple] = []
        for c in range(classes):
            column = scores[b, :, c + offset]
            ranked = sorted((j for j in range(len(column)) if column[j] >= threshold), key=lambda j: -column[j])
            chosen: list[int] = []
            for j in ranked:
                if len(chosen) < per_class and all(overlap(boxes[b, k], boxes[b, j]) <= iou for k in chosen):
                    chosen.append(j)
            picked = sorted(picked + [(j, c, float(column[j])) for j in chosen], key=lambda t: -t[2])[:most]
        results.append(picked)
    return results


@pytest.mark.parametrize("seed", range(3))
def test_regular_nms_against_a_python_reference(seed: int) -> None:
    g = np.random.default_rng(seed)
    corners = g.uniform(0, 1, (2, 15, 2, 2)).astype(np.float32)
    boxes = np.concatenate([corners.min(axis=2), corners.max(axis=2)], axis=2)
    scores = g.uniform(0, 1, (2, 15, 4)).astype(np.float32)
    per_class, most, classes = [2, 5, 1][seed], [4, 10, 3][seed], [3, 3, 2][seed]
    expected = regular_reference(boxes, scores, per_class, most, classes, 0.3, 0.25)
    out_boxes, out_classes, out_scores, counts = FAMILY.run(
        "vision.regular_non_max_suppression",
        boxes,
        scores,
        max_detections_per_class=per_class,
        max_detections=most,
        num_classes=classes,
        iou_threshold=0.3,
        score_threshold=0.25,
    )
    for b in range(2):
        n = len(expected[b])
        assert counts[b] == n
        same(out_boxes[b, :n], f32([boxes[b, j] for j, _, _ in expected[b]]).reshape(n, 4))
        same(out_classes[b], f32([c for _, c, _ in expected[b]] + [0] * (most - n)))
        same(out_scores[b], f32([s for _, _, s in expected[b]] + [0] * (most - n)))
        same(out_boxes[b, n:], np.zeros((most - n, 4), np.float32))


def test_regular_nms_by_hand() -> None:
    """Two classes after a background column. Class 0 (column 1) ranks boxes 0 and 1,
    which overlap by 0.81 > 0.5: box 0 only. Class 1 keeps boxes 2 and 1 (no
    overlap). Merged by score and cut to max_detections."""
    boxes = f32([[[0, 0, 1, 1], [0, 0, 0.9, 0.9], [2, 2, 3, 3]]])
    scores = f32([[[0.9, 0.8, 0.1], [0.9, 0.7, 0.2], [0.9, 0.1, 0.95]]])
    args = {"max_detections_per_class": 2, "num_classes": 2, "iou_threshold": 0.5, "score_threshold": 0.15}
    out_boxes, out_classes, out_scores, counts = FAMILY.run(
        "vision.regular_non_max_suppression", boxes, scores, max_detections=4, **args
    )
    same(counts, i32([3]))
    same(out_boxes, f32([[[2, 2, 3, 3], [0, 0, 1, 1], [0, 0, 0.9, 0.9], [0, 0, 0, 0]]]))
    same(out_classes, f32([[1, 0, 1, 0]]))
    same(out_scores, f32([[0.95, 0.8, 0.2, 0.0]]))
    out_boxes, out_classes, out_scores, counts = FAMILY.run(
        "vision.regular_non_max_suppression", boxes, scores, max_detections=2, **args
    )
    same(counts, i32([2]))
    same(out_classes, f32([[1, 0]]))


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
