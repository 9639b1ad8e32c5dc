"""`nn.relu`'s kernel and the in-place step of a run's fused chains share
`relu_into`: max(x, 0) by rows of zeros for contiguous tensors (`_rows`,
whose own tests, tests/ops/tensor/test_rows.py, cover `maximum` and
`minimum` against any single value). Its result
must have the bits numpy's maximum against a zero scalar gives, whatever
the path: NaN kept (its payload and sign too), -0.0 made 0, integers and
float16 as they are."""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.eval.inplace import unary_step
from relay_text.ops import registry
from relay_text.ops.nn.nn import relu, relu_into
from relay_text.ops.tensor import _rows
from relay_text.ops.tensor._rows import MIN_SIZE, ROW

DTYPES = ["float16", "float32", "float64", "int8", "int32", "int64", "uint8"]
SIZES = [0, 1, MIN_SIZE - 1, MIN_SIZE, MIN_SIZE + 1, MIN_SIZE + 3 * ROW + 5]


def _values(dtype: str, size: int) -> np.ndarray:
    rng = np.random.default_rng(size)
    if np.dtype(dtype).kind == "f":
        x = rng.standard_normal(size).astype(dtype)
        specials = np.array([np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf], dtype=dtype)
        x[: min(size, len(specials))] = specials[: min(size, len(specials))]
        if size > 100:
            x[-3:] = specials[:3]  # in the rest after the whole rows
        return x
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size, dtype=dtype, endpoint=True)


def _bits(x: np.ndarray) -> bytes:
    return np.ascontiguousarray(x).tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", SIZES)
def test_same_bits_as_maximum_against_zero(dtype: str, size: int) -> None:
    x = _values(dtype, size)
    want = np.maximum(x, np.zeros((), dtype=dtype))
    out = np.empty_like(x)
    got = relu_into(x, out)
    assert got is out and got.dtype == np.dtype(dtype)
    assert _bits(got) == _bits(want)
    # spread over two kernel threads, as the operator's kernel may
    assert _bits(relu_into(x, np.empty_like(x), split=True)) == _bits(want)
    # in place, as a fused chain computes it
    y = x.copy()
    assert relu_into(y, y) is y
    assert _bits(y) == _bits(want)


def test_negative_zero_becomes_zero_and_nan_stays() -> None:
    x = np.zeros(2 * MIN_SIZE + 3, dtype=np.float32)
    x[::2] = -0.0
    x[5] = np.nan
    x[-1] = -7.5
    got = relu_into(x, np.empty_like(x))
    assert not np.signbit(got).any()
    assert np.isnan(got[5]) and np.isnan(got).sum() == 1
    assert got[-1] == 0.0


@pytest.mark.parametrize(
    "view",
    [
        lambda a: a.T,  # not contiguous: numpy's own loop
        lambda a: a[:, ::2],
        lambda a: a[3:7],  # a contiguous slice in the middle of a buffer
    ],
)
def test_views(view) -> None:
    base = _values("float32", 64 * 1024).reshape(256, 256)
    x = view(base)
    want = np.maximum(x, np.float32(0))
    out = np.empty(x.shape, dtype=x.dtype)
    assert _bits(relu_into(x, out)) == _bits(want)
    before = base.copy()
    relu_into(x, out)
    assert _bits(base) == _bits(before)  # the input is left alone
    y = x.copy()
    assert _bits(relu_into(y, y)) == _bits(want)


def test_the_rows_of_zeros_are_not_written() -> None:
    x = -np.ones(2 * MIN_SIZE, dtype=np.float32)
    relu_into(x, x)
    zeros = _rows._filled(np.dtype(np.float32), bytes(4))
    assert not zeros.flags.writeable
    assert not zeros.any()


def test_the_registry_kernel_and_the_in_place_step_agree() -> None:
    x = _values("float32", 5 * (MIN_SIZE + 17)).reshape(5, -1)
    got = registry_relu(x)
    step = unary_step("nn.relu")
    assert step is not None
    y = x.copy()
    step(y)
    want = np.maximum(x, np.float32(0))
    assert _bits(got) == _bits(want) and _bits(y) == _bits(want)
    assert got.shape == x.shape and got.dtype == np.float32


def test_a_scalar_stays_an_array() -> None:
    got = registry_relu(np.asarray(np.float32(-2.0)))
    assert isinstance(got, np.ndarray) and got.shape == () and got.dtype == np.float32 and got == 0


def registry_relu(x: np.ndarray) -> np.ndarray:
    """The kernel `nn.relu` is registered with."""
    op = registry.get("nn.relu")
    assert op is not None and op.kernel is relu
    return op.kernel((x,), {})
