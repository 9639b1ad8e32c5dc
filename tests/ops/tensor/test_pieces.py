"""Binary ufuncs over large float tensors in pieces on the kernel threads
(relay_text.ops.tensor._pieces): the same bits as numpy's single call,
broadcasting included, and numpy's call where splitting does not apply."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from relay_text.ops import get
from relay_text.ops import _threads
from relay_text.ops._threads import PARALLEL_MIN
from relay_text.ops.tensor._pieces import binary


@pytest.fixture
def two_threads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Two kernel threads; the list collects the number of pieces of every split call."""
    monkeypatch.setenv("RELAY_NUM_THREADS", "2")
    seen: list[int] = []
    run_parts = _threads.run_parts

    def counting(fn: Any, parts: list[tuple[Any, ...]]) -> None:
        seen.append(len(parts))
        run_parts(fn, parts)

    monkeypatch.setattr(_threads, "run_parts", counting)
    return seen


ROWS = 2 * PARALLEL_MIN // 256 + 8  # (ROWS, 256) is cut in two pieces


@pytest.mark.parametrize(
    ("ashape", "bshape"),
    [
        ((ROWS, 256), (ROWS, 256)),
        ((ROWS, 256), (256,)),  # a bias along the last axis
        ((ROWS, 256), (ROWS, 1)),  # a per-row statistic (x - mean)
        ((1, 256), (ROWS, 256)),  # broadcast along the cut axis
        ((2, ROWS // 2, 256), (2, ROWS // 2, 1)),
    ],
)
@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.true_divide])
def test_same_bits_as_numpy(two_threads: list[int], ashape: tuple, bshape: tuple, ufunc: Any) -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal(ashape, dtype=np.float32)
    b = rng.standard_normal(bshape, dtype=np.float32)
    a.flat[:3] = [np.nan, np.inf, -0.0]
    with np.errstate(all="ignore"):
        out = binary(ufunc, a, b)
        expected = ufunc(a, b)
    assert two_threads == [2]
    assert out.dtype == np.float32 and out.shape == expected.shape and out.flags.c_contiguous
    np.testing.assert_array_equal(out.view(np.uint32), expected.view(np.uint32))


def test_numpy_call_where_splitting_does_not_apply(two_threads: list[int]) -> None:
    small = np.ones((4, 4), dtype=np.float32)
    ints = np.ones((ROWS, 256), dtype=np.int32)
    mixed = np.ones((ROWS, 256), dtype=np.float64)
    np.testing.assert_array_equal(binary(np.add, small, small), np.full((4, 4), 2, dtype=np.float32))
    assert binary(np.add, ints, ints).dtype == np.int32
    assert binary(np.add, mixed, np.ones((ROWS, 256), dtype=np.float32)).dtype == np.float64
    assert two_threads == []


def test_one_thread_is_numpy(monkeypatch: pytest.MonkeyPatch, two_threads: list[int]) -> None:
    monkeypatch.setenv("RELAY_NUM_THREADS", "1")
    a = np.ones((ROWS, 256), dtype=np.float32)
    np.testing.assert_array_equal(binary(np.multiply, a, a), a)
    assert two_threads == []


def test_power_kernel_squares_in_pieces(two_threads: list[int]) -> None:
    """`power(x, 2f)` and `power(x, 3f)` of a layer norm and a GELU: x * x and x * x * x, split."""
    op = get("power")
    assert op is not None
    attrs, _ = op.normalize_attrs(())
    x = np.random.default_rng(2).standard_normal((ROWS, 256), dtype=np.float32)
    square = op.kernel((x, np.array(2.0, dtype=np.float32)), attrs)
    cube = op.kernel((x, np.array(3.0, dtype=np.float32)), attrs)
    np.testing.assert_array_equal(square, x * x)
    np.testing.assert_array_equal(cube, x * x * x)
    assert two_threads == [2, 2, 2]
