"""The numpy depthwise convolution kernel (one input channel per group, each
output channel a sum of shifted views of its input channel) against the
grouped im2col kernel and, where installed, PyTorch: every stride, padding
and dilation combination below, with channel multipliers 1 and 2."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from relay_text.compiled import Compiled
from relay_text.ops.nn import _depthwise, conv


@pytest.fixture(autouse=True)
def numpy_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """numpy's kernel throughout, even in a process where the compiled loop
    of the `fast` extra was loaded (tests/ops/nn/test_depthwise_compiled.py
    compares the two)."""
    monkeypatch.setattr(_depthwise, "LOOP", Compiled.decided(None))


CASES = [
    # (channels, multiplier, H, W, KH, KW, strides, pads (top, left, bottom, right), dilation)
    (3, 1, 9, 8, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1)),
    (4, 1, 11, 10, 3, 3, (2, 2), (1, 1, 1, 1), (1, 1)),
    (2, 2, 12, 9, 3, 2, (2, 3), (0, 2, 1, 0), (1, 1)),
    (3, 1, 10, 13, 5, 3, (3, 2), (4, 0, 2, 3), (1, 2)),
    (2, 1, 7, 7, 3, 3, (2, 1), (3, 3, 3, 3), (2, 1)),
    (5, 2, 6, 5, 1, 1, (2, 2), (0, 0, 0, 0), (1, 1)),
    (1, 1, 4, 4, 3, 3, (4, 4), (2, 1, 0, 3), (1, 1)),
    # stride 1 with uneven borders (only the border of the padded grid is zeroed)
    (3, 2, 8, 9, 3, 3, (1, 1), (0, 2, 1, 0), (2, 1)),
    (2, 1, 5, 6, 3, 3, (1, 1), (2, 0, 0, 1), (1, 1)),
    # channels in blocks of two and a last block of one
    (3, 1, 72, 72, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1)),
]


def _by_im2col(x: np.ndarray, w: np.ndarray, strides: tuple, pads: tuple, dilation: tuple) -> np.ndarray:
    """The same convolution through the general grouped kernel: the
    depthwise branch is taken only when `groups` equals the channels, so
    one image per channel, convolved as a single-group call, gives the
    im2col result."""
    c = x.shape[1]
    m = w.shape[0] // c
    parts = [
        conv.conv2d_nchw(x[:, g : g + 1], w[g * m : (g + 1) * m], strides, pads, dilation, 1, np.float64)
        for g in range(c)
    ]
    return np.concatenate(parts, axis=1)


@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_depthwise_equals_the_im2col_kernel(case: tuple) -> None:
    c, m, h, wd, kh, kw, strides, pads, dilation = case
    rng = np.random.default_rng(sum(itertools.chain(strides, pads, dilation)))
    x = rng.standard_normal((2, c, h, wd))
    w = rng.standard_normal((c * m, 1, kh, kw))
    got = conv.conv2d_nchw(x, w, strides, pads, dilation, c, np.float64)
    want = _by_im2col(x, w, strides, pads, dilation)
    assert got.shape == want.shape and got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def assert_equals_pytorch(case: tuple) -> None:
    """`conv.conv2d_nchw` on one case, float64, against PyTorch's grouped convolution."""
    torch = pytest.importorskip("torch")
    c, m, h, wd, kh, kw, strides, pads, dilation = case
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, c, h, wd))
    w = rng.standard_normal((c * m, 1, kh, kw))
    pt, pl, pb, pr = pads
    padded = torch.nn.functional.pad(torch.from_numpy(x), (pl, pr, pt, pb))
    want = torch.nn.functional.conv2d(padded, torch.from_numpy(w), stride=strides, dilation=dilation, groups=c)
    got = conv.conv2d_nchw(x, w, strides, pads, dilation, c, np.float64)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_depthwise_equals_pytorch(case: tuple) -> None:
    assert_equals_pytorch(case)


@pytest.mark.parametrize("case", [CASES[1], CASES[3], CASES[7], CASES[9]], ids=["s2", "s3x2-dil", "s1-m2", "s1"])
@pytest.mark.parametrize("budget", [1, 40, 200])
def test_blocks_of_output_rows_give_the_same_values(case: tuple, budget: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A channel whose taps exceed the block budget is done a few output
    rows at a time (one row at the least): the values are the whole-channel
    ones, whatever the cut (one row, rows that do not divide the output
    height, several rows). Up to float32 rounding, not bit for bit: the
    product of a block is OpenBLAS's, which computes the last elements of a
    row apart from the others (without fused multiply-adds in some builds,
    OpenBLAS 0.3.31 among them), so a cut can move the last bit of a sum."""
    c, m, h, wd, kh, kw, strides, pads, dilation = case
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, c, h, wd)).astype(np.float32)
    w = rng.standard_normal((c * m, 1, kh, kw)).astype(np.float32)
    whole = conv.conv2d_nchw(x, w, strides, pads, dilation, c, np.float32)
    monkeypatch.setattr(_depthwise, "TAP_BLOCK", budget)
    got = conv.conv2d_nchw(x, w, strides, pads, dilation, c, np.float32)
    assert got.dtype == np.float32 and got.flags.c_contiguous
    np.testing.assert_allclose(got, whole, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(
        got, _by_im2col(x.astype(np.float64), w.astype(np.float64), strides, pads, dilation), rtol=1e-5, atol=1e-5
    )


def test_the_copied_taps_stay_within_the_block_for_a_large_image() -> None:
    """One 3x3 channel of 600x600 float32: the taps of the whole channel
    would take 13 MB; the kernel's peak is its padded input and its result
    (1.4 MB each) and one block of taps and sums (TAP_BLOCK elements)."""
    tracemalloc = pytest.importorskip("tracemalloc")
    x = np.ones((1, 1, 600, 600), dtype=np.float32)
    w = np.ones((1, 1, 3, 3), dtype=np.float32)
    tracemalloc.start()
    try:
        got = conv.conv2d_nchw(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1, np.float32)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    grid = 603 * 602 * 4
    block = _depthwise.TAP_BLOCK * 4 * 10 // 9  # taps and their sums
    assert peak < grid + got.nbytes + block + (256 << 10)
    assert got[0, 0, 0, 0] == 4 and got[0, 0, 1, 1] == 9 and got[0, 0, 599, 300] == 6
