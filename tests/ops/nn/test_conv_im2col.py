"""The im2col convolution kernel writes its matrix product straight into
the result when one block holds every output row; in blocks of rows (a
tight memory limit) the values agree to rounding (the matrix products have
other widths); and both agree with PyTorch where installed."""

from __future__ import annotations

import numpy as np
import pytest

from relay_text import limits
from relay_text.ops.nn import conv

CASES = [
    # (x shape, weight shape, strides, pads (top, left, bottom, right), groups, dtype)
    ((1, 3, 17, 19), (8, 3, 3, 3), (2, 2), (1, 1, 1, 1), 1, np.float32),
    ((2, 4, 9, 8), (6, 4, 3, 2), (2, 1), (1, 0, 2, 1), 1, np.float32),
    ((1, 6, 7, 7), (4, 3, 3, 3), (1, 1), (1, 1, 1, 1), 2, np.float64),
    ((1, 5, 6, 6), (7, 5, 5, 5), (1, 1), (2, 2, 2, 2), 1, np.float64),
]


def run(case: tuple) -> np.ndarray:
    xs, ws, strides, pads, groups, dtype = case
    rng = np.random.default_rng(sum(xs) + sum(ws))
    x, w = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)
    return conv.conv2d_nchw(x, w, strides, pads, (1, 1), groups, dtype)


@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_one_block_and_row_blocks_agree(case: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = run(case)
    monkeypatch.setattr(limits, "scratch_rows", lambda rows, row_bytes, what: 2)
    blocked = run(case)
    assert whole.dtype == case[-1] and whole.shape == blocked.shape
    tol = 1e-5 if case[-1] == np.float32 else 1e-12
    np.testing.assert_allclose(whole, blocked, rtol=tol, atol=tol)


@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_im2col_equals_pytorch(case: tuple) -> None:
    torch = pytest.importorskip("torch")
    xs, ws, strides, pads, groups, dtype = case
    rng = np.random.default_rng(sum(xs) + sum(ws))
    x, w = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)
    pt, pl, pb, pr = pads
    padded = torch.nn.functional.pad(torch.from_numpy(x), (pl, pr, pt, pb))
    want = torch.nn.functional.conv2d(padded, torch.from_numpy(w), stride=strides, groups=groups).numpy()
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(run(case), want, rtol=tol, atol=tol)
