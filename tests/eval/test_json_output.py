"""`--output-format json` of large tensors: streamed, fast, and the same text
as the element-by-element writer (`numbers._slow_block`, the reference)."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from relay_text.eval import numbers
from relay_text.eval.show import value_json, write_value_json


def _random_bits(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32).view(np.float32)


def _awkward_float32() -> np.ndarray:
    """Powers of two and ten, their neighbours, integers, halves, subnormals,
    the limits, zeros, infinities and NaN."""
    values = [0.5, 0.25, 2000000.25, 2000000.75, 8388608.5, 999999.94, 1e6, 1e-4, 9.999999e-5, 65504.0, 0.1, 0.3]
    values += [2.0**e for e in range(-149, 128)] + [10.0**e for e in range(-45, 39)]
    values += list(range(-1100, 1100)) + [v + 0.5 for v in range(-300, 300)] + [0.0, -0.0, np.inf, -np.inf, np.nan]
    with np.errstate(all="ignore"):
        base = np.array(values + [-v for v in values], dtype=np.float32)
        return np.concatenate([base, np.nextafter(base, np.float32(np.inf)), np.nextafter(base, np.float32(-np.inf))])


@pytest.mark.parametrize(
    "make",
    [
        lambda rng: _random_bits(rng, 200_000),
        lambda rng: rng.standard_normal(200_000).astype(np.float32),
        lambda rng: (rng.standard_normal(100_000) * 1e-4).astype(np.float32),
        lambda rng: np.round(rng.standard_normal(100_000) * 1e4, 2).astype(np.float32),
        lambda rng: _awkward_float32(),
    ],
    ids=["bits", "normal", "small", "two-decimals", "awkward"],
)
def test_float32_text_is_numpys_shortest_text(make) -> None:
    """Every float32 element is written as numpy 2.3 and later write it with
    `str` (the one-element reference), whatever numpy is installed."""
    x = make(np.random.default_rng(0))
    assert numbers.block_text(x) == numbers._slow_block(x)


def test_the_layout_thresholds_are_compared_exactly() -> None:
    """numpy writes a float32 positionally from 1e-4 up to (not including)
    1e6; the vectorized layout compares in float64, which agrees with the
    exact comparison for every float32 near those thresholds."""
    from fractions import Fraction

    for threshold, exact in ((1e-4, Fraction(1, 10**4)), (1e6, Fraction(10**6))):
        x = np.float32(threshold)
        for _ in range(3):
            x = np.nextafter(x, np.float32(0))
        for _ in range(6):
            assert (float(x) >= threshold) == (Fraction(float(x)) >= exact)
            x = np.nextafter(x, np.float32(np.inf))


@pytest.mark.parametrize("dtype", ["float16", "int8", "uint8", "int32", "int64", "uint64", "bool"])
def test_other_dtypes_match_the_reference(dtype: str) -> None:
    rng = np.random.default_rng(1)
    if dtype == "float16":
        x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    elif dtype == "bool":
        x = rng.random(10_000) < 0.5
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, size=10_000, dtype=dtype, endpoint=True)
    assert numbers.block_text(x) == numbers._slow_block(x)


@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 1, 4), (1, 1, 1), (2, 3, 1, 2), (4, 1)])
def test_nested_lists_for_every_shape(shape: tuple) -> None:
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    assert numbers.block_text(x) == numbers._slow_block(x)
    parts: list[str] = []
    numbers.write_tensor(parts.append, x, chunk=2)
    assert "".join(parts) == numbers._slow_block(x)


def test_a_million_elements_round_trip_through_json_loads() -> None:
    x = np.random.default_rng(3).standard_normal((1000, 1000)).astype(np.float32)
    x.ravel()[::997] = np.float32(0.5)  # a few short ones among the long ones
    out = io.StringIO()
    write_value_json(x, out.write)
    data = json.loads(out.getvalue())
    assert data["dtype"] == "float32" and data["shape"] == [1000, 1000]
    back = np.array(data["tensor"], dtype=np.float32)
    assert back.tobytes() == x.tobytes()


def test_streamed_json_is_the_same_text() -> None:
    x = np.random.default_rng(4).standard_normal((3, 70, 5)).astype(np.float32)
    value = (x, np.int64(3), (np.arange(100, dtype=np.int64).reshape(10, 10),))
    pieces: list[str] = []
    write_value_json(value, pieces.append)
    assert len(pieces) > 1
    assert "".join(pieces) == value_json(value)
    data = json.loads(value_json(value))
    assert np.array(data["tuple"][0]["tensor"], dtype=np.float32).tobytes() == x.tobytes()
