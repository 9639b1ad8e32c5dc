"""samples/detection_head.rly keeps the boxes a detection head should keep."""

from __future__ import annotations

import numpy as np

from relay_text.eval.entry import RunRequest
from relay_text.ir.span import Source
from relay_text.pipeline import run_source
from tests.conftest import SAMPLES


def run_head(scores: list[float], boxes: list[list[float]]) -> tuple:
    text = (SAMPLES / "detection_head.rly").read_text()
    values = (np.array([scores], dtype=np.float32), np.array([boxes], dtype=np.float32))
    ran = run_source(Source("detection_head.rly", text), RunRequest(values=values))
    assert ran.ok, [str(d) for d in ran.diagnostics]
    return ran.value


def test_of_two_overlapping_boxes_the_weaker_is_suppressed() -> None:
    # Boxes 0 and 1 overlap (intersection 9 x 9 = 81, union 119: IoU 0.68 >= 0.5);
    # box 2 overlaps neither; boxes 3..5 score below the 0.3 threshold.
    scores = [0.6, 0.95, 0.8, 0.1, 0.2, 0.0]
    boxes = [[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30], [0, 0, 10, 10], [1, 1, 11, 11], [5, 5, 6, 6]]
    positions, count, kept, kept_scores, rows, above = run_head(scores, boxes)
    assert count.tolist() == [[2]]
    assert positions.tolist() == [[1, 2, -1]]  # best first; 0 is suppressed by 1
    assert kept[:2].tolist() == [[1, 1, 11, 11], [20, 20, 30, 30]]
    assert kept_scores[0, :2].tolist() == [np.float32(0.95), np.float32(0.8)]
    assert rows[0, :2].tolist() == [[0, np.float32(0.95), 1, 1, 11, 11], [0, np.float32(0.8), 20, 20, 30, 30]]
    assert (rows[0, 2:] == -1).all()
    assert above.tolist() == [[0, 0], [0, 1], [0, 2]]  # before suppression


def test_boxes_that_do_not_overlap_enough_are_all_kept() -> None:
    # IoU of [0, 0, 10, 10] and [5, 0, 15, 10] is 50 / 150 = 0.33 < 0.5.
    scores = [0.9, 0.8, 0.7, 0.0, 0.0, 0.0]
    boxes = [[0, 0, 10, 10], [5, 0, 15, 10], [40, 40, 50, 50], [0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 1, 1]]
    positions, count, kept, _, _, _ = run_head(scores, boxes)
    assert count.tolist() == [[3]] and positions.tolist() == [[0, 1, 2]]
    assert kept.tolist() == [[0, 0, 10, 10], [5, 0, 15, 10], [40, 40, 50, 50]]
