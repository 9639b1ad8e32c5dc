"""float16 arrays to float32 and back, for the operators that compute in float32.

A float16 operator computes in float32 and rounds its result to float16
(`ops.widen`): each call converts its float16 inputs and its result. numpy
converts float32 to float16 one element at a time in portable code (about
5 ns an element here), so in a float16 model the conversions can take as
long as the operators. With the `fast` extra (`pip install
"relay-text[fast]"`, which adds numba) both directions run as compiled loops
on whole vector registers, three to four times faster, with numpy's bits:

* `to_float16` rounds to nearest, ties to even, overflows to infinity of
  the sign and keeps a NaN's sign and the top ten bits of its payload (a
  NaN whose top bits are zero becomes the NaN with payload 1), as numpy's
  `astype` does;
* `to_float32` looks each element up in the table of the 65,536 float16
  values that numpy's `astype` made (float32 holds each exactly).

The loops are loaded, and checked against numpy on the edge cases of both
directions, once per process, and only after numpy has converted
`WARM_ELEMENTS` elements: loading numba takes a fraction of a second (a few
seconds where its cache cannot be written), which a short run does not win
back. Without numba, or if the check fails, numpy converts, as before.
Arrays of fewer than `MIN_ELEMENTS` elements, and those neither C- nor
Fortran-contiguous in native byte order and aligned, are always
converted by numpy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..compiled import Compiled

MIN_ELEMENTS = 1 << 12
"""Smaller arrays are converted by numpy (the loop's call costs about as
much as numpy's conversion of so few elements)."""

WARM_ELEMENTS = 1 << 27
"""Elements numpy converts before the compiled loops are loaded (see
`compiled`): about half a second of numpy's conversions, about what
loading numba takes."""

_TABLE: list[np.ndarray] = []  # the 65,536 float16 values as float32, once made


def table() -> np.ndarray:
    """float32 values of the 65,536 float16 bit patterns (numpy's conversion)."""
    if not _TABLE:
        bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
        _TABLE.append(bits.view(np.float16).astype(np.float32))
    return _TABLE[0]


def to_float32(value: np.ndarray) -> np.ndarray:
    """A float16 array as float32 (exact), in the same memory order:
    `value.astype(np.float32)`."""
    return _convert(value, np.float32, lambda loops, flat, out: loops[1](flat.view(np.uint16), table(), out))


def to_float16(value: np.ndarray) -> np.ndarray:
    """A float32 array as float16 (rounded to nearest, ties to even), in
    the same memory order: `value.astype(np.float16)`."""
    return _convert(value, np.float16, lambda loops, flat, out: loops[0](flat.view(np.uint32), out.view(np.uint16)))


def _convert(
    value: np.ndarray, dtype: type[np.floating[Any]], run: Callable[[Any, np.ndarray, np.ndarray], None]
) -> np.ndarray:
    """`value.astype(dtype)`, by the compiled loops where they apply:
    `run(loops, value's elements, the result's elements)` (both flat, in C
    order; `loops` are numba's dispatchers, which carry no static types)."""
    loops = _loops(value)
    if loops is None:
        return value.astype(dtype)
    if not value.flags.c_contiguous:
        flipped: np.ndarray = _convert(value.T, dtype, run).transpose()  # (Fortran order: its transpose is in C order)
        return flipped
    out = np.empty(value.shape, dtype=dtype)
    run(loops, value.reshape(-1), out.reshape(-1))
    return out


def _checked() -> Any:
    """The loops (to_half_bits, to_single), if they convert the edge cases
    of both directions as numpy does; None otherwise."""
    from ._half_loop import to_half_bits, to_single

    singles = probe()
    halves = np.empty(singles.size, dtype=np.uint16)
    to_half_bits(singles.view(np.uint32), halves)
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    back = np.empty(every.size, dtype=np.float32)
    to_single(every, table(), back)
    with np.errstate(all="ignore"):
        expected = singles.astype(np.float16)
    same = np.array_equal(halves, expected.view(np.uint16)) and np.array_equal(
        back.view(np.uint32), every.view(np.float16).astype(np.float32).view(np.uint32)
    )
    return (to_half_bits, to_single) if same else None


LOOPS: Compiled[Any] = Compiled(_checked, warm=WARM_ELEMENTS)
"""The compiled loops of the process (numba's dispatchers carry no static types)."""


def available() -> bool:
    """Whether the compiled loops are used (loading and checking them now,
    once per process, if that was not done yet)."""
    return LOOPS.available()


def _loops(value: np.ndarray) -> Any:
    """The compiled loops for converting `value`, or None where numpy converts it."""
    if value.size < MIN_ELEMENTS or not value.dtype.isnative or not value.flags.aligned:
        return None
    if not (value.flags.c_contiguous or value.flags.f_contiguous):
        return None
    return LOOPS.after(value.size)


def probe() -> np.ndarray:
    """float32 values on every edge of the conversion to float16: zeros, the
    subnormal range and its ties, the normal range's ties (to even and odd
    last bits), the largest float16 and the overflow threshold, infinities,
    NaNs with various payloads, each of both signs, and random bit patterns."""
    edges = [
        0x00000000, 0x00000001, 0x007FFFFF, 0x00800000,  # zero, float32 subnormals
        0x33000000, 0x33000001, 0x337FFFFF, 0x33800000,  # 2^-25 (a tie to zero), just above, 2^-24
        0x33C00000, 0x34200000, 0x34600000,  # 1.5, 2.5 and 3.5 times 2^-24: ties
        0x387FC000, 0x387FE000, 0x387FFFFF, 0x38800000,  # the subnormal/normal boundary
        0x3F800000, 0x3F801000, 0x3F803000, 0x3F801001, 0x3F802FFF,  # 1 and ties after it
        0x477FE000, 0x477FEFFF, 0x477FF000, 0x47800000, 0x7F7FFFFF,  # 65504, overflow to infinity
        0x7F800000, 0x7F800001, 0x7F801FFF, 0x7F802000, 0x7FC00000, 0x7FFFFFFF, 0x7FA00000,  # inf, NaNs
    ]  # fmt: skip
    rng = np.random.default_rng(16)
    bits = np.concatenate(
        [
            np.array(edges, dtype=np.uint32),
            rng.integers(0, 1 << 32, size=1 << 14, dtype=np.uint64).astype(np.uint32),
            # the range where float16 results are, densely
            rng.integers(0x33000000, 0x47800000, size=1 << 14, dtype=np.uint64).astype(np.uint32),
        ]
    )
    return np.concatenate([bits, bits | np.uint32(0x80000000)]).view(np.float32)
