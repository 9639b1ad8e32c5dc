"""The row-blocked (log) softmax of large tensors (`softmax_rows`): the same
values, bit for bit, as the whole-tensor formula, a few rows at a time and
with a last, shorter block; and against PyTorch where installed."""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.ops.nn.nn import softmax_rows


def whole(x: np.ndarray, log: bool) -> np.ndarray:
    shifted = x - np.max(x, axis=-1, keepdims=True)
    if log:
        return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    e = np.exp(shifted)
    return e / np.sum(e, axis=-1, keepdims=True)


# 7 rows of 40,000: blocks of three rows, then one
SHAPES = [(7, 40000), (2, 3, 50000)]


@pytest.mark.parametrize("log", [True, False], ids=["log_softmax", "softmax"])
@pytest.mark.parametrize("shape", SHAPES, ids=["rows", "rank3"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_blocks_give_the_whole_tensor_values(shape: tuple, dtype: type, log: bool) -> None:
    x = (np.random.default_rng(3).standard_normal(shape) * 8).astype(dtype)
    want = whole(x, log)
    got = softmax_rows(x, -1, None, log)
    assert got is not None and got.dtype == dtype and got.shape == shape
    assert np.array_equal(got, want)
    inplace = x.copy()
    assert softmax_rows(inplace, -1, inplace, log) is inplace
    assert np.array_equal(inplace, want)


def test_small_tensors_and_other_axes_are_left_to_the_kernel() -> None:
    assert softmax_rows(np.zeros((4, 5), np.float32), -1, None, True) is None
    assert softmax_rows(np.zeros((40000, 7), np.float32), 0, None, True) is None


@pytest.mark.parametrize("log", [True, False], ids=["log_softmax", "softmax"])
def test_blocks_equal_pytorch(log: bool) -> None:
    torch = pytest.importorskip("torch")
    x = (np.random.default_rng(4).standard_normal((7, 40000)) * 8).astype(np.float32)
    fn = torch.log_softmax if log else torch.softmax
    want = fn(torch.from_numpy(x), dim=1).numpy()
    got = softmax_rows(x, -1, None, log)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6 if log else 1e-9)
