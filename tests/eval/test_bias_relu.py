"""The one-pass `relu(bias_add(x, b))` of the `fast` extra (`eval.bias_relu`)
against numpy's two passes: the same bits (NaN, -0.0, infinities, every
shape and axis the in-place chain sees), split over the kernel threads
without a changed bit, loaded only after numpy has done its warm-up work
(less of it where numba is loaded already), never without numba or when
its check fails, and used by a run's chain after a convolution."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

from relay_text.compiled import Compiled
from relay_text.eval import bias_relu, inplace

from .helpers import run

pytest.importorskip("numba", reason="the one-pass bias and relu needs the `fast` extra (numba)")

SHAPES = [
    # (buffer shape, bias axis)
    ((1, 32, 28, 28), 1),  # a convolution's output
    ((2, 3, 5, 7), 1),  # two images
    ((4, 16, 2, 2), 1),  # planes of MIN_PLANE elements
    ((3, 9, 7), 1),
    ((6, 5), 0),
]


@pytest.fixture(scope="module")
def loop() -> Any:
    found = Compiled(bias_relu._checked).get()
    assert found is not None, "numba is installed, so the loop must pass its check"
    return found


def _values(shape: tuple[int, ...], axis: int, dtype: Any, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    flat = x.reshape(-1)
    specials = np.array([np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf], dtype=dtype)
    flat[: min(flat.size, specials.size)] = specials[: min(flat.size, specials.size)]
    b = rng.standard_normal(shape[axis]).astype(dtype)
    b[0] = -0.0
    return x, b


def _chain(ndim: int, axis: int) -> inplace.Chain:
    """The in-place chain a run builds for `nn.relu(nn.bias_add(x, b, axis))`."""
    chain = inplace.Chain([inplace.bias_add(axis, ndim), inplace.unary(inplace.unary_step("nn.relu"))])
    assert chain.bias_relu_axis == axis
    return chain


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("shape", "axis"), SHAPES)
def test_the_loop_gives_numpys_bits(
    shape: tuple[int, ...], axis: int, dtype: Any, loop: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    x, b = _values(shape, axis, dtype, seed=len(shape) + axis)
    shaped = b.reshape(tuple(-1 if i == axis else 1 for i in range(x.ndim)))
    with np.errstate(all="ignore"):
        want = np.maximum(x + shaped, np.zeros((), dtype=dtype))
    calls = []

    def counted(*args: Any) -> None:
        calls.append(args[2:])
        loop(*args)

    monkeypatch.setattr(bias_relu, "LOOP", Compiled.decided(counted))
    got = x.copy()
    with np.errstate(all="ignore"):
        assert _chain(x.ndim, axis)(got, b) is got
    assert calls, "the compiled loop did the work"
    assert got.dtype == dtype and got.tobytes() == want.tobytes()
    # numpy's two passes give the same
    monkeypatch.setattr(bias_relu, "LOOP", Compiled.decided(None))
    again = x.copy()
    with np.errstate(all="ignore"):
        _chain(x.ndim, axis)(again, b)
    assert again.tobytes() == want.tobytes()


@pytest.mark.parametrize("threads", ["2", "3"])
def test_split_over_the_kernel_threads_without_a_changed_bit(
    threads: str, loop: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    x, b = _values((2, 16, 9, 9), 1, np.float32, seed=3)
    one = x.copy()
    monkeypatch.setattr(bias_relu, "LOOP", Compiled.decided(loop))
    with np.errstate(all="ignore"):
        bias_relu.run(one, b, 1)
    monkeypatch.setenv("RELAY_NUM_THREADS", threads)
    monkeypatch.setattr(bias_relu, "split_count", lambda size: int(threads))
    pieces: list[tuple[int, int]] = []
    real = bias_relu.run_parts

    def recorded(fn: Any, parts: list[tuple[Any, ...]]) -> None:
        pieces.extend((lo, hi) for *_, lo, hi in parts)
        real(fn, parts)

    monkeypatch.setattr(bias_relu, "run_parts", recorded)
    split = x.copy()
    with np.errstate(all="ignore"):
        assert bias_relu.run(split, b, 1)
    assert len(pieces) == int(threads) and pieces[0][0] == 0 and pieces[-1][1] == 32
    assert split.tobytes() == one.tobytes()


def test_buffers_the_loop_does_not_take(loop: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """float16, a buffer that is not contiguous, a bias of another length or
    dtype, planes under MIN_PLANE elements (a dense layer's output, where
    the loop is slower than numpy): numpy's passes (the caller's)."""
    monkeypatch.setattr(bias_relu, "LOOP", Compiled.decided(loop))
    assert bias_relu.MIN_PLANE == 4
    assert not bias_relu.run(np.ones((8, 100), dtype=np.float32), np.ones(100, dtype=np.float32), 1)
    assert not bias_relu.run(np.ones((1, 64, 1, 3), dtype=np.float32), np.ones(64, dtype=np.float32), 1)
    assert bias_relu.run(np.ones((1, 64, 2, 2), dtype=np.float32), np.ones(64, dtype=np.float32), 1)
    b = np.ones(4, dtype=np.float32)
    assert not bias_relu.run(np.ones((1, 4, 3, 3), dtype=np.float16), b.astype(np.float16), 1)
    assert not bias_relu.run(np.ones((1, 4, 6, 3), dtype=np.float32)[:, :, ::2], b, 1)
    assert not bias_relu.run(np.ones((1, 5, 3, 3), dtype=np.float32), b, 1)
    assert not bias_relu.run(np.ones((1, 4, 3, 3), dtype=np.float32), b.astype(np.float64), 1)
    assert bias_relu.run(np.ones((1, 4, 3, 3), dtype=np.float32), b, 1)


def test_numpy_computes_until_enough_work_was_done(monkeypatch: pytest.MonkeyPatch) -> None:
    """With numba loaded (by this test module), `warm_loaded` elements of
    numpy's work come before the loop; without it, `warm`."""
    size = 2 * 4 * 5 * 5
    x, b = _values((2, 4, 5, 5), 1, np.float32, seed=1)
    monkeypatch.setattr(bias_relu, "LOOP", Compiled(bias_relu._checked, warm=100 * size, warm_loaded=2 * size + 1))
    with np.errstate(all="ignore"):
        assert not bias_relu.run(x.copy(), b, 1)
        assert not bias_relu.run(x.copy(), b, 1)
        assert not bias_relu.LOOP.tried
        assert bias_relu.run(x.copy(), b, 1)  # the third passes `warm_loaded`
    assert bias_relu.LOOP.tried
    # numba not loaded: `warm` counts
    absent: Compiled[str] = Compiled(lambda: "loop", warm=3 * size, warm_loaded=1)
    monkeypatch.delitem(sys.modules, "numba")
    assert absent.after(size) is None and absent.after(size) is None and not absent.tried


def test_without_numba_numpy_computes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bias_relu, "LOOP", Compiled(bias_relu._checked))
    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    x, b = _values((1, 4, 5, 5), 1, np.float32, seed=2)
    assert not bias_relu.run(x, b, 1)
    assert bias_relu.LOOP.tried and bias_relu.LOOP.get() is None


def test_a_loop_that_disagrees_with_numpy_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    from relay_text.eval import _bias_relu_loop

    def keeps_negatives(x: Any, bias: Any, lo: int, hi: int) -> None:
        x[...] += bias.reshape(1, -1, 1)

    monkeypatch.setattr(_bias_relu_loop, "bias_relu_planes", keeps_negatives)
    monkeypatch.setattr(bias_relu, "LOOP", Compiled(bias_relu._checked))
    assert bias_relu.LOOP.get() is None


PROGRAM = """
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %b);
  nn.relu(%1)
}
"""


def test_a_run_uses_the_loop_after_a_convolution(loop: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(9)
    x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    monkeypatch.setattr(bias_relu, "LOOP", Compiled.decided(None))
    by_numpy = run(PROGRAM, x, w, b)
    calls = []

    def counted(*args: Any) -> None:
        calls.append(args[2:])
        loop(*args)

    monkeypatch.setattr(bias_relu, "LOOP", Compiled.decided(counted))
    compiled = run(PROGRAM, x, w, b)
    assert calls == [(0, 4)]
    assert compiled.dtype == np.float32 and compiled.shape == (1, 4, 8, 8)
    assert compiled.tobytes() == by_numpy.tobytes()
    assert (compiled >= 0).all() and (compiled > 0).any()
