"""`x @ w.T` for dense layers (relay_text.ops.tensor._blas): the transposed
product for a left operand of few rows, one BLAS thread for small products,
and the same values, dtype and layout as numpy's product everywhere."""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.ops import get
from relay_text.ops.tensor import _blas as blas
from relay_text.ops.tensor._blas import FEW, SMALL, matmul_nt


def _reference(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.matmul(x.astype(np.float64), w.astype(np.float64).T)


@pytest.mark.parametrize(
    ("xshape", "n", "dtype"),
    [
        ((10, 256), 512, "float32"),  # few rows: the transposed product, one thread
        ((1, 128), 64, "float64"),
        ((FEW, 64), 96, "float32"),  # enough rows: numpy's product, one thread
        ((3, 5, 32), 48, "float32"),  # batched rows
        ((7,), 20, "float32"),  # a vector
        ((4, 8), 3, "float32"),  # a narrow weight: not transposed
        ((2, 5), 40, "float16"),  # numpy's own loop, no BLAS
    ],
)
def test_values_dtype_and_layout(xshape: tuple[int, ...], n: int, dtype: str) -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal(xshape).astype(dtype)
    w = rng.standard_normal((n, xshape[-1])).astype(dtype)
    out = matmul_nt(x, w)
    assert out.dtype == np.dtype(dtype)
    assert out.shape == (*xshape[:-1], n)
    assert out.flags.c_contiguous
    assert not np.shares_memory(out, x) and not np.shares_memory(out, w)
    tolerance = {"float16": 2e-2, "float32": 2e-5, "float64": 1e-12}[dtype]
    np.testing.assert_allclose(out, _reference(x, w), rtol=tolerance, atol=tolerance * xshape[-1] ** 0.5)


def test_few_rows_match_numpy_product() -> None:
    """Each element of the transposed product is the same dot product, up to
    float32 rounding: numpy's own product of a few rows is OpenBLAS's
    threaded one, whose sums are split by its thread count (the kernel's
    are not: see `matmul_nt`)."""
    rng = np.random.default_rng(4)
    w = rng.standard_normal((512, 256), dtype=np.float32)
    for rows in (1, 2, 10, FEW - 1):
        x = rng.standard_normal((rows, 256), dtype=np.float32)
        np.testing.assert_allclose(matmul_nt(x, w), np.matmul(x, w.T), rtol=2e-5, atol=2e-5 * 256**0.5)


def test_integers_are_exact() -> None:
    x = np.arange(30, dtype=np.int32).reshape(3, 10)
    w = np.arange(200, dtype=np.int32).reshape(20, 10) - 100
    out = matmul_nt(x, w)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.matmul(x.astype(np.int64), w.T.astype(np.int64)).astype(np.int32))


def test_large_products_are_numpy_products() -> None:
    rng = np.random.default_rng(5)
    x = rng.standard_normal((64, 256), dtype=np.float32)
    w = rng.standard_normal((SMALL // (64 * 256) + 1, 256), dtype=np.float32)
    np.testing.assert_array_equal(matmul_nt(x, w), np.matmul(x, w.T))


def test_thread_count_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    """A small product runs on one OpenBLAS thread and gives the count back, even when it fails."""
    found = blas._blas()
    if found is None:
        pytest.skip("numpy's BLAS is not an OpenBLAS this process can find")
    setter, getter = found
    before = getter()
    seen: list[int] = []
    product = blas._product

    def watched(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        seen.append(getter())
        return product(x, w)

    try:
        setter(2)
        x = np.ones((4, 8), dtype=np.float32)
        with monkeypatch.context() as m:
            m.setattr(blas, "_product", watched)
            matmul_nt(x, np.ones((32, 8), dtype=np.float32))
        assert seen == [1]
        assert getter() == 2
        with pytest.raises(ValueError):
            matmul_nt(x, np.ones((32, 9), dtype=np.float32))
        assert getter() == 2
    finally:
        setter(before)


def test_dense_kernel_uses_it() -> None:
    """`nn.dense` of a few rows: x @ w.T, a contiguous float32 tensor."""
    op = get("nn.dense")
    assert op is not None
    attrs, problems = op.normalize_attrs({}.items())
    assert not problems
    x = np.array([[1.0, 2.0, 3.0]], dtype=np.float32)
    w = np.tile(np.array([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]], dtype=np.float32), (16, 1))
    out = op.kernel((x, w), attrs)
    assert out.dtype == np.float32 and out.shape == (1, 32) and out.flags.c_contiguous
    np.testing.assert_array_equal(out[0, :4], np.array([-2.0, 3.0, -2.0, 3.0], dtype=np.float32))


@pytest.mark.parametrize("order", ["C", "F"])
def test_single_row_is_numpy_product(order: str) -> None:
    """A matrix-vector product (one row; a classifier's last layer, weights column-major) keeps numpy's bits."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 2048), dtype=np.float32)
    w = np.asarray(rng.standard_normal((1000, 2048), dtype=np.float32), order=order)
    np.testing.assert_array_equal(matmul_nt(x, w), np.matmul(x, w.T))
