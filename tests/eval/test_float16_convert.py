"""float16 <-> float32 conversion of arrays (`ops._half`): the compiled loops
give numpy's `astype` bits on every input, and a float16 program's results
do not change by a bit whichever path converts.

docs/commands/run.md, "Semantics": a float16 operator computes in float32
and rounds its result once; `cast` converts every element.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import relay_text
from relay_text.compiled import Compiled
from relay_text.ops import _half

pytest.importorskip("numba", reason="the compiled conversions need the `fast` extra (numba)")


@pytest.fixture(scope="module")
def loops() -> Any:
    assert _half.available(), "the compiled loops failed their check against numpy"
    return _half.LOOPS.get()


@pytest.fixture
def compiled(loops: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Conversions of MIN_ELEMENTS and more by the compiled loops."""
    monkeypatch.setattr(_half, "LOOPS", Compiled.decided(loops))
    yield


@pytest.fixture
def by_numpy(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every conversion by numpy's `astype`."""
    monkeypatch.setattr(_half, "LOOPS", Compiled.decided(None))
    yield


def _halves(bits: np.ndarray, loops: Any) -> np.ndarray:
    out = np.empty(bits.size, dtype=np.uint16)
    loops[0](bits, out)
    return out


def _numpy_halves(bits: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return bits.view(np.float32).astype(np.float16).view(np.uint16)


def test_every_float16_value_converts_to_numpys_float32(loops: Any) -> None:
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    out = np.empty(every.size, dtype=np.float32)
    loops[1](every, _half.table(), out)
    assert out.view(np.uint32).tolist() == every.view(np.float16).astype(np.float32).view(np.uint32).tolist()


def test_edge_values_round_to_numpys_float16(loops: Any) -> None:
    """Ties to even (both parities) in the normal and subnormal ranges, the
    overflow threshold, infinities, NaN payloads, zeros, of both signs."""
    singles = _half.probe()
    bits = singles.view(np.uint32)
    got, want = _halves(bits, loops), _numpy_halves(bits)
    assert np.array_equal(got, want), [hex(b) for b in bits[got != want][:8]]
    named = {  # float32 bits -> float16 bits
        0x33000000: 0x0000,  # 2^-25: a tie between 0 and the smallest subnormal, to even (0)
        0x33000001: 0x0001,  # just above the tie
        0x33C00000: 0x0002,  # 1.5 * 2^-24: a tie, to even (2)
        0x34200000: 0x0002,  # 2.5 * 2^-24: a tie, to even (2)
        0x3F801000: 0x3C00,  # 1 + 2^-11: a tie, to even (1)
        0x3F803000: 0x3C02,  # 1 + 3 * 2^-11: a tie, to even (1 + 2^-9)
        0x477FE000: 0x7BFF,  # 65504, the largest float16
        0x477FEFFF: 0x7BFF,  # just below the overflow threshold
        0x477FF000: 0x7C00,  # 65520: rounds to infinity
        0xFF800000: 0xFC00,  # -inf
        0x7FC00000: 0x7E00,  # the quiet NaN
        0x7F800001: 0x7C01,  # a NaN whose payload's top bits are zero stays a NaN
        0xFFFFFFFF: 0xFFFF,  # a negative NaN keeps its sign and top payload bits
        0x80000000: 0x8000,  # -0
    }
    keys = np.array(list(named), dtype=np.uint32)
    assert [int(h) for h in _halves(keys, loops)] == list(named.values())


def test_random_bit_patterns_round_to_numpys_float16(loops: Any) -> None:
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 1 << 32, size=1 << 20, dtype=np.uint64).astype(np.uint32)
    assert np.array_equal(_halves(bits, loops), _numpy_halves(bits))


@pytest.mark.slow
def test_every_exponent_and_rounding_pattern_rounds_to_numpys_float16(loops: Any) -> None:
    """Each sign and exponent, each of the 2^14 patterns of a significand's
    low bits (those rounding reads in the normal range), under eight high
    parts (zero, all ones, an odd and an even last kept bit, random): 2^26
    patterns, every case of the conversion's decisions (several seconds)."""
    rng = np.random.default_rng(11)
    low = np.arange(1 << 14, dtype=np.uint32)
    highs = np.array([0, 0x1FF, 1, 2, *rng.integers(0, 1 << 9, size=4)], dtype=np.uint32) << np.uint32(14)
    significands = (highs[:, None] | low[None, :]).ravel()
    for top in range(0, 1 << 9, 64):  # sign and exponent fields, 64 at a time
        heads = np.arange(top, top + 64, dtype=np.uint32) << np.uint32(23)
        bits = (heads[:, None] | significands[None, :]).ravel()
        got, want = _halves(bits, loops), _numpy_halves(bits)
        assert np.array_equal(got, want), hex(int(bits[np.argmax(got != want)]))


def _layouts() -> list[tuple[str, np.ndarray]]:
    rng = np.random.default_rng(3)
    base = (rng.standard_normal((96, 80)) * 3000).astype(np.float32)
    base[0, :4] = [np.inf, -np.nan, 1e6, 3e-8]
    return [
        ("C", base),
        ("Fortran", np.asfortranarray(base)),
        ("strided", base[:, ::2]),
        ("3-d transposed", base.reshape(12, 8, 80).transpose(2, 0, 1)),
        ("small", base[:2, :8].copy()),
        ("0-d", np.array(np.float32(1.0009765625))),
        ("big-endian", base.astype(">f4")),
    ]


@pytest.mark.parametrize("name, single", _layouts(), ids=[n for n, _ in _layouts()])
def test_conversions_equal_astype_in_bits_dtype_and_memory_order(name: str, single: np.ndarray, compiled: None) -> None:
    with np.errstate(all="ignore"):
        want16 = single.astype(np.float16)
        got16 = _half.to_float16(single)
    assert got16.dtype == want16.dtype and got16.shape == want16.shape
    assert got16.tobytes(order="A") == want16.tobytes(order="A")
    assert (got16.flags.c_contiguous, got16.flags.f_contiguous) == (
        want16.flags.c_contiguous,
        want16.flags.f_contiguous,
    )
    half = want16 if want16.dtype.isnative else want16.astype(np.float16)
    got32, want32 = _half.to_float32(half), half.astype(np.float32)
    assert got32.dtype == np.float32 and got32.shape == want32.shape
    assert got32.tobytes(order="A") == want32.tobytes(order="A")
    assert got32.flags.f_contiguous == want32.flags.f_contiguous


def test_read_only_arrays_use_the_same_compiled_loops(loops: Any, compiled: None) -> None:
    """A constant's array is read-only: the loops take it through the one
    signature they were compiled for (no second compile in the middle of a run)."""
    x = np.linspace(-60000, 60000, 8192, dtype=np.float32)
    x.flags.writeable = False
    h = x.astype(np.float16)
    h.flags.writeable = False
    assert _half.to_float16(x).tobytes() == h.tobytes()
    assert _half.to_float32(h).tobytes() == h.astype(np.float32).tobytes()
    assert [len(loop.signatures) for loop in loops] == [1, 1]


def test_unaligned_arrays_are_converted_by_numpy(loops: Any, compiled: None) -> None:
    """An array at an odd address (from a buffer) matches no signature of the
    loops: numpy converts it."""
    n = 8192
    values = np.linspace(-60000, 60000, n, dtype=np.float32)
    x = np.frombuffer(b"\0" + values.tobytes(), dtype=np.float32, offset=1)
    assert not x.flags.aligned and x.size >= _half.MIN_ELEMENTS
    assert _half._loops(x) is None
    assert _half.to_float16(x).tobytes() == x.astype(np.float16).tobytes()


def test_numpy_converts_until_enough_elements_were_converted(loops: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The loops are loaded only once numpy has converted WARM_ELEMENTS elements."""
    monkeypatch.setattr(_half, "LOOPS", Compiled(_half._checked, warm=2 * 8192 + 1))
    x = np.linspace(-60000, 60000, 8192, dtype=np.float32)
    for _ in range(2):
        assert _half.to_float16(x).tobytes() == x.astype(np.float16).tobytes()
        assert not _half.LOOPS.tried
    assert _half.to_float16(x).tobytes() == x.astype(np.float16).tobytes()
    assert _half.LOOPS.get() == loops
    assert _half.LOOPS.numpy_work == 3 * 8192


def test_without_numba_numpy_converts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_half, "LOOPS", Compiled(_half._checked))
    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    assert not _half.available()
    x = np.linspace(-60000, 60000, 8192, dtype=np.float32)
    assert _half.to_float16(x).tobytes() == x.astype(np.float16).tobytes()


def test_loops_that_disagree_with_numpy_are_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    from relay_text.ops import _half_loop

    def truncating(src: np.ndarray, dst: np.ndarray) -> None:  # drops the rounding: wrong on half the inputs
        dst[:] = ((src >> 16) & 0x8000) | (((src & 0x7FFFFFFF) - 0x38000000) >> 13).astype(np.uint16)

    monkeypatch.setattr(_half, "LOOPS", Compiled(_half._checked))
    monkeypatch.setattr(_half_loop, "to_half_bits", truncating)
    assert not _half.available()


GELU = """
def @main(%x: Tensor[(64, 128), float16], %w: Tensor[(128, 128), float16], %b: Tensor[(128), float16],
          %g: Tensor[(128), float16], %beta: Tensor[(128), float16]) -> Tensor[(64, 128), float16] {
  %0 = nn.bias_add(nn.dense(%x, %w, units=128), %b);
  %1 = multiply(multiply(%0, 0.5f16), add(tanh(multiply(add(%0, multiply(power(%0, 3f16), 0.044715f16)),
                0.797885f16)), 1f16));
  %2 = nn.softmax(multiply(%1, 300f16));
  nn.layer_norm(add(%2, cast(cast(%1, dtype="float32"), dtype="float16")), %g, %beta)
}
"""


def _gelu_args() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((64, 128)) * 4).astype(np.float16)
    x[0, :6] = [np.inf, -np.inf, np.nan, 6e-8, -65504, 3e-5]  # overflow, NaN, subnormals
    w = (rng.standard_normal((128, 128)) * 0.5).astype(np.float16)
    w.flags.writeable = False  # a weight: converted once
    return x, w, *(rng.standard_normal((3, 128)).astype(np.float16))


def test_a_float16_program_gives_the_same_bits_either_way(
    loops: Any, monkeypatch: pytest.MonkeyPatch, by_numpy: None
) -> None:
    """dense with its folded bias (float32, then `cast`), the tanh-GELU chain,
    softmax, casts and layer norm, on inputs with infinities, a NaN and
    subnormals: the compiled conversions change no bit of the result."""
    args = _gelu_args()
    want = relay_text.run(GELU, *args)
    with np.errstate(all="ignore"):
        assert np.isinf(args[0].astype(np.float32) * 300).any()
    monkeypatch.setattr(_half, "LOOPS", Compiled.decided(loops))
    calls = []
    monkeypatch.setattr(_half, "_loops", lambda value, inner=_half._loops: calls.append(value.size) or inner(value))
    got = relay_text.run(GELU, *args)
    assert got.dtype == want.dtype == np.float16
    assert got.tobytes() == want.tobytes()
    assert np.isnan(want).any() and np.isfinite(want).any()
    assert max(calls) >= _half.MIN_ELEMENTS  # the loops did convert
