"""`maximum` and `minimum` against a single value (`_rows.against_one`):
numpy's scalar loop for these two skips its vector code, so a contiguous
tensor is compared with a row filled with the value instead. Whatever the
path (rows or numpy's own call, one thread or two), the result must have
the bits numpy's call gives, with the operands in their order: NaN
payloads, signed zeros and infinities included."""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.eval.inplace import binary as in_place
from relay_text.ops import registry
from relay_text.ops.tensor import _rows
from relay_text.ops.tensor._rows import MIN_SIZE, NUMPY_FAST, ROW, against_one

UFUNCS = {"maximum": np.maximum, "minimum": np.minimum}
DTYPES = ["float16", "float32", "float64", "int8", "int64", "uint16", "bool"]
SIZES = [MIN_SIZE - 1, MIN_SIZE, MIN_SIZE + 1, MIN_SIZE + 3 * ROW + 5]


def _values(dtype: str, size: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed + size)
    kind = np.dtype(dtype).kind
    if kind == "f":
        x = rng.standard_normal(size).astype(dtype)
        specials = np.array([np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf], dtype=dtype)
        x[: len(specials)] = specials
        x[-len(specials) :] = specials  # in the rest after the whole rows too
        return x
    if kind == "b":
        return rng.integers(0, 2, size).astype(bool)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size, dtype=dtype, endpoint=True)


def _single_values(dtype: str) -> list[np.ndarray]:
    kind = np.dtype(dtype).kind
    if kind == "f":
        raw = [0.0, -0.0, 1.5, -2.25, np.nan, np.inf, -np.inf]
    elif kind == "b":
        raw = [False, True]
    else:
        info = np.iinfo(dtype)
        raw = [0, info.min, info.max, 7]
    return [np.array(v, dtype=dtype) for v in raw]


def _bits(x: np.ndarray) -> bytes:
    return np.ascontiguousarray(x).tobytes()


@pytest.mark.parametrize("name", sorted(UFUNCS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_same_bits_as_numpy_both_orders(name: str, dtype: str) -> None:
    ufunc = UFUNCS[name]
    for size in SIZES:
        x = _values(dtype, size)
        for value in _single_values(dtype):
            for one, big in ((value, x), (value.reshape(1), x), (value.reshape(1, 1), x.reshape(1, -1))):
                for a, b in ((big, one), (one, big)):
                    want = ufunc(a, b)
                    got = against_one(ufunc, a, b)
                    if size < MIN_SIZE or np.dtype(dtype).char in NUMPY_FAST:
                        assert got is None  # numpy's own call
                        continue
                    assert got is not None and got.shape == want.shape and got.dtype == want.dtype
                    assert _bits(got) == _bits(want), (size, value, a.shape, b.shape)


@pytest.mark.parametrize("name", sorted(UFUNCS))
def test_a_nan_value_keeps_its_payload(name: str) -> None:
    """numpy returns the NaN operand itself: the value's payload and sign
    (or the tensor's, where it holds the NaN) must survive the rows."""
    ufunc = UFUNCS[name]
    payload = np.array([0x7FC01234], dtype=np.uint32).view(np.float32).reshape(())
    x = _values("float32", MIN_SIZE + 2 * ROW + 9)
    x[10] = -x[10] if np.isnan(x[10]) else x[10]
    for a, b in ((x, payload), (payload, x)):
        assert _bits(against_one(ufunc, a, b)) == _bits(ufunc(a, b))


@pytest.mark.parametrize("threads", ["1", "2", "3"])
@pytest.mark.parametrize("name", sorted(UFUNCS))
def test_split_over_threads_gives_the_same_bits(monkeypatch, threads: str, name: str) -> None:
    monkeypatch.setenv("RELAY_NUM_THREADS", threads)
    ufunc = UFUNCS[name]
    x = _values("float32", 7 * ((1 << 16) + 11)).reshape(-1, 7)
    value = np.array(0.25, np.float32)
    out = np.empty_like(x)
    assert against_one(ufunc, x, value, out, split=True) is out
    assert _bits(out) == _bits(ufunc(x, value))
    y = x.copy()
    assert against_one(ufunc, value, y, y, split=True) is y  # in place, the value first
    assert _bits(y) == _bits(ufunc(value, x))


N = 2 * MIN_SIZE


@pytest.mark.parametrize(
    ("a", "b", "out"),
    [
        (np.zeros(MIN_SIZE - 1, np.float32), np.array(1, np.float32), None),  # too small
        (np.zeros(N), np.array(1.0), None),  # float64: numpy is as fast
        (np.zeros(N, np.float16), np.array(1, np.float16), None),  # float16 too
        (np.zeros(N, np.float32), np.zeros(N, np.float32), None),  # no single value
        (np.zeros(N, np.float32), np.array(1.0), None),  # dtypes differ
        (np.zeros((2, N), np.float32).T, np.array(1, np.float32), None),  # not contiguous
        (np.zeros(N, np.float32), np.ones((1, 1), np.float32), None),  # the result has more dimensions
        (np.zeros(N, np.float32), np.array(1, np.float32), np.empty(N, np.float64)),  # out's dtype
        (np.zeros(N, np.float32), np.array(1, np.float32), np.empty((2, N // 2), np.float32).T),  # out's layout
        (np.zeros(N, np.float32), np.array(1, np.float32), np.empty(N - 1, np.float32)),  # out's shape
        (np.zeros(N, np.float32), 1.0, None),  # not an array
    ],
)
def test_what_it_leaves_to_numpy(a, b, out) -> None:
    assert against_one(np.maximum, a, b, out) is None


def test_the_filled_rows_are_read_only_and_unchanged() -> None:
    x = _values("float32", N)
    value = np.array(-3.5, np.float32)
    assert against_one(np.minimum, x, value, x.copy()) is not None
    row = _rows._filled(np.dtype(np.float32), value.tobytes())
    assert not row.flags.writeable
    assert row.shape == (ROW,) and (row == -3.5).all()
    with pytest.raises(ValueError):
        row[0] = 1.0


@pytest.mark.parametrize("name", sorted(UFUNCS))
def test_the_operator_kernels(name: str) -> None:
    """`maximum` and `minimum` as `relay run` calls them, the value a
    one-element tensor of the operand's rank as a clamp's bound is."""
    op = registry.get(name)
    assert op is not None
    x = _values("float32", 4 * (MIN_SIZE + 3)).reshape(1, 4, -1)
    bound = np.full((1, 1, 1), 0.5, dtype=np.float32)
    for args in ((x, bound), (bound, x)):
        got = op.kernel(args, {})
        want = UFUNCS[name](*args)
        assert isinstance(got, np.ndarray) and got.dtype == np.float32 and got.shape == (1, 4, MIN_SIZE + 3)
        assert _bits(got) == _bits(want)


@pytest.mark.parametrize("name", sorted(UFUNCS))
@pytest.mark.parametrize("into", [0, 1])
@pytest.mark.parametrize(
    ("dtype", "size"),
    [("float32", MIN_SIZE + 3 * ROW + 1), ("float32", 100), ("float64", MIN_SIZE + 1)],  # rows; numpy's call twice
)
def test_the_in_place_steps(name: str, into: int, dtype: str, size: int) -> None:
    """The fused chains' step writes into the buffer argument `into`; the
    single value is the other one (a NaN: which NaN comes out shows the
    operands' order)."""
    ufunc = UFUNCS[name]
    x = _values(dtype, size)
    value = np.array(-np.nan, dtype)
    step = in_place(ufunc, into)
    args = (x.copy(), value) if into == 0 else (value, x.copy())
    want = ufunc(*args)
    got = step(*args)
    assert got is args[into]
    assert _bits(got) == _bits(want)
