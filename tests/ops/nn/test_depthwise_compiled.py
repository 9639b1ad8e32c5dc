"""The compiled depthwise loop of the `fast` extra (`ops.nn._depthwise_loop`)
against the numpy depthwise kernel and PyTorch: the same values (to the
rounding of a sum taken in another order), the same bits wherever the
sums are exact, NaN and infinity where numpy has them; loaded only after
numpy has done `WARM_TAPS` of work (`Compiled.after`), never without
numba or when its check fails; split over the kernel threads without a
changed bit."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

from relay_text.compiled import Compiled
from relay_text.ops.nn import _depthwise, conv

from .test_depthwise import assert_equals_pytorch

pytest.importorskip("numba", reason="the compiled depthwise loop needs the `fast` extra (numba)")

CASES = [
    # (channels, multiplier, H, W, KH, KW, strides, pads (top, left, bottom, right), dilation)
    (3, 1, 9, 8, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1)),
    (4, 1, 11, 10, 3, 3, (2, 2), (1, 1, 1, 1), (1, 1)),
    (4, 1, 12, 12, 3, 3, (2, 2), (0, 1, 1, 0), (1, 1)),  # MobileNet's stride-2 padding in TF exports
    (2, 2, 12, 9, 3, 2, (2, 3), (0, 2, 1, 0), (1, 1)),
    (3, 1, 10, 13, 5, 3, (3, 2), (4, 0, 2, 3), (1, 2)),
    (2, 1, 7, 7, 3, 3, (2, 1), (3, 3, 3, 3), (2, 1)),
    (5, 2, 6, 5, 1, 1, (2, 2), (0, 0, 0, 0), (1, 1)),
    (1, 1, 4, 4, 3, 3, (4, 4), (2, 1, 0, 3), (1, 1)),
    (3, 3, 8, 9, 3, 3, (1, 1), (0, 2, 1, 0), (2, 1)),
    (2, 1, 5, 6, 3, 3, (1, 1), (2, 0, 0, 1), (1, 1)),
    (2, 1, 3, 3, 7, 7, (1, 1), (3, 3, 3, 3), (1, 1)),  # a window wider than the image
    (2, 1, 8, 8, 1, 7, (1, 1), (0, 3, 0, 3), (1, 1)),
    (4, 1, 30, 17, 5, 5, (2, 2), (2, 2, 2, 2), (1, 1)),  # EfficientNet's 5x5
]
IDS = [f"case{i}" for i in range(len(CASES))]


@pytest.fixture(scope="module")
def loop() -> Any:
    assert _depthwise.available(), "the compiled loop failed its check against numpy"
    return _depthwise.LOOP.get()


def _out_hw(h: int, wd: int, kh: int, kw: int, strides: tuple, pads: tuple, dilation: tuple) -> tuple[int, int]:
    pt, pl, pb, pr = pads
    return (
        (h + pt + pb - dilation[0] * (kh - 1) - 1) // strides[0] + 1,
        (wd + pl + pr - dilation[1] * (kw - 1) - 1) // strides[1] + 1,
    )


def _both(case: tuple, loop: Any, x: np.ndarray, w: np.ndarray, dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """(the compiled loop's result, numpy's) for one case."""
    _, _, h, wd, kh, kw, strides, pads, dilation = case
    call = (x, pads, w, _out_hw(h, wd, kh, kw, strides, pads, dilation), strides, dilation, dtype)
    return _depthwise._depthwise(*call, loop), _depthwise._depthwise(*call, None)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_exact_sums_give_numpys_bits(case: tuple, dtype: Any, loop: Any) -> None:
    """Small integers: every sum is exact in any order, so both kernels give the same bits."""
    c, m, h, wd, kh, kw = case[:6]
    rng = np.random.default_rng(len(IDS) + h * wd)
    x = rng.integers(-9, 10, size=(2, c, h, wd)).astype(dtype)
    w = rng.integers(-5, 6, size=(c * m, 1, kh, kw)).astype(dtype)
    got, want = _both(case, loop, x, w, dtype)
    assert got.dtype == dtype and got.shape == want.shape and got.flags.c_contiguous
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_random_values_agree_with_numpy_to_rounding(case: tuple, dtype: Any, loop: Any) -> None:
    c, m, h, wd, kh, kw = case[:6]
    rng = np.random.default_rng(h * 31 + wd)
    x = rng.standard_normal((2, c, h, wd)).astype(dtype)
    w = rng.standard_normal((c * m, 1, kh, kw)).astype(dtype)
    got, want = _both(case, loop, x, w, dtype)
    tolerance = 2e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_loop_agrees_with_pytorch(case: tuple, loop: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through `conv.conv2d_nchw`, as `nn.conv2d` calls it, once the loop is loaded."""
    monkeypatch.setattr(_depthwise, "LOOP", Compiled.decided(loop))
    assert_equals_pytorch(case)


def test_nan_and_infinity_where_numpy_has_them(loop: Any) -> None:
    """A NaN spreads to every output whose window holds it; an infinity
    gives infinity, or NaN where a zero weight or an opposite infinity
    meets it, as numpy's products and sums do."""
    case = (2, 1, 6, 7, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1))
    x = np.ones((1, 2, 6, 7), dtype=np.float32)
    x[0, 0, 2, 3] = np.nan
    x[0, 1, 0, 0] = np.inf
    x[0, 1, 5, 6] = -np.inf
    w = np.ones((2, 1, 3, 3), dtype=np.float32)
    w[1, 0, 1, 1] = 0  # the centre tap of channel 1: inf * 0
    with np.errstate(invalid="ignore"):  # (numpy's product warns of inf * 0 unless told, as a run tells it)
        got, want = _both(case, loop, x, w, np.float32)
    assert np.array_equal(np.isnan(got), np.isnan(want)) and np.isnan(got).sum() == 9 + 1 + 1
    assert np.array_equal(got, want, equal_nan=True)


def test_empty_batches_and_channels(loop: Any) -> None:
    for shape, out_channels in (((0, 3, 5, 5), 3), ((2, 0, 5, 5), 0)):
        x = np.zeros(shape, dtype=np.float32)
        w = np.zeros((out_channels, 1, 3, 3), dtype=np.float32)
        got = _depthwise._depthwise(x, (1, 1, 1, 1), w, (5, 5), (1, 1), (1, 1), np.float32, loop)
        assert got.shape == (shape[0], out_channels, 5, 5) and got.dtype == np.float32


def test_a_non_contiguous_input_is_read_as_its_values(loop: Any) -> None:
    case = (3, 1, 8, 8, 3, 3, (2, 2), (1, 1, 1, 1), (1, 1))
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 8, 8, 3)).astype(np.float32).transpose(0, 3, 1, 2)  # NHWC memory
    w = rng.standard_normal((3, 3, 3, 1)).astype(np.float32).transpose(0, 3, 1, 2)
    got, want = _both(case, loop, x, w, np.float32)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)


def test_read_only_operands_need_no_second_compile(loop: Any) -> None:
    """Constants are read-only arrays: numba would compile the loop again
    for them (seconds, in the middle of a run); they are copied instead."""
    compiled = len(loop.signatures)
    case = (3, 1, 8, 8, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1))
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
    w = rng.standard_normal((3, 1, 3, 3)).astype(np.float32)
    x.flags.writeable = w.flags.writeable = False
    got, want = _both(case, loop, x, w, np.float32)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)
    assert len(loop.signatures) == compiled == 2  # (float32 and float64, compiled by the check)


def test_an_unaligned_input_needs_no_second_compile(loop: Any) -> None:
    compiled = len(loop.signatures)
    case = (2, 1, 6, 6, 3, 3, (2, 2), (1, 1, 1, 1), (1, 1))
    values = np.random.default_rng(8).standard_normal(72).astype(np.float32)
    x = np.frombuffer(b"\0" + values.tobytes(), dtype=np.float32, offset=1).reshape(1, 2, 6, 6)
    assert not x.flags.aligned
    w = np.ones((2, 1, 3, 3), dtype=np.float32)
    got, want = _both(case, loop, x, w, np.float32)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)
    assert len(loop.signatures) == compiled


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_planes_split_over_the_threads_keep_their_bits(
    threads: str, loop: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each output plane is computed alone: the thread count changes no bit."""
    case = (5, 2, 20, 19, 3, 3, (2, 1), (1, 0, 2, 1), (1, 2))
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 5, 20, 19)).astype(np.float32)
    w = rng.standard_normal((10, 1, 3, 3)).astype(np.float32)
    whole = _both(case, loop, x, w, np.float32)[0]
    monkeypatch.setenv("RELAY_NUM_THREADS", threads)
    monkeypatch.setattr(_depthwise, "LOOP_PIECE", 1)  # as many pieces as threads
    pieces: list[tuple[int, int]] = []

    def run_parts(fn: Any, parts: list[tuple[Any, ...]]) -> None:
        pieces.extend(part[-2:] for part in parts)
        real_run_parts(fn, parts)

    real_run_parts = _depthwise.run_parts
    monkeypatch.setattr(_depthwise, "run_parts", run_parts)
    assert _both(case, loop, x, w, np.float32)[0].tobytes() == whole.tobytes()
    # 3 images of 10 channels: 30 planes in near-equal consecutive pieces
    assert pieces == {"1": [(0, 30)], "2": [(0, 15), (15, 30)], "3": [(0, 10), (10, 20), (20, 30)]}[threads]


def test_numpy_computes_until_enough_work_was_done(loop: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop is loaded only once numpy has done WARM_TAPS multiply-adds;
    integers and float16 stay with numpy and do not count."""
    work = 2 * 4 * 8 * 8 * 9  # images, channels, output pixels, taps
    monkeypatch.setattr(_depthwise, "LOOP", Compiled(_depthwise._checked, warm=2 * work + 1))
    x = np.ones((2, 4, 8, 8), dtype=np.float32)
    w = np.ones((4, 1, 3, 3), dtype=np.float32)
    for dtype in (np.int32, np.float16):
        conv.conv2d_nchw(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 4, dtype)
    assert _depthwise.LOOP.numpy_work == 0
    for _ in range(2):
        assert conv.conv2d_nchw(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 4, np.float32)[0, 0, 3, 3] == 9
        assert not _depthwise.LOOP.tried
    assert conv.conv2d_nchw(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 4, np.float32)[0, 0, 0, 0] == 4
    assert _depthwise.LOOP.get() is loop
    assert _depthwise.LOOP.numpy_work == 3 * work


def test_without_numba_numpy_computes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_depthwise, "LOOP", Compiled(_depthwise._checked))
    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    x = np.arange(2 * 3 * 5 * 5, dtype=np.float32).reshape(2, 3, 5, 5)
    w = np.ones((3, 1, 3, 3), dtype=np.float32)
    got = conv.conv2d_nchw(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 3, np.float32)
    assert not _depthwise.available()
    assert got[0, 0, 2, 2] == sum(range(6, 9)) + sum(range(11, 14)) + sum(range(16, 19))


def test_a_loop_that_disagrees_with_numpy_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    from relay_text.ops.nn import _depthwise_loop

    real = _depthwise_loop.depthwise_planes

    def last_row_dropped(x: Any, weights: Any, out: Any, geometry: Any, lo: int, hi: int) -> None:
        real(x, weights, out, geometry, lo, hi)
        out[:, :, -1] = 0  # wrong wherever the last row is not zero

    monkeypatch.setattr(_depthwise, "LOOP", Compiled(_depthwise._checked))
    monkeypatch.setattr(_depthwise_loop, "depthwise_planes", last_row_dropped)
    assert not _depthwise.available()
