"""The compiled loops of `_half` (imported only where numba is installed).

Module-level functions, so that numba's disk cache keeps their machine code
between runs. Each loop is branch-free (every case computed, one chosen),
which lets the compiler run it on whole vector registers.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

U = np.uint32  # every step in 32-bit lanes (numba widens mixed integer arithmetic to 64 bits)


def _vector(dtype: Any, readonly: bool = False) -> Any:
    """A one-dimensional array in C order; a writable array is accepted
    where a read-only one is declared."""
    return numba.types.Array(numba.from_dtype(np.dtype(dtype)), 1, "C", readonly=readonly)


# Each loop has one signature, its inputs read-only: numba would otherwise
# compile it again, in the middle of a run, the first time it is given a
# read-only array (a constant's).
@numba.njit(
    [numba.types.void(_vector(np.uint32, readonly=True), _vector(np.uint16))],
    cache=True,
    nogil=True,
    boundscheck=False,
    error_model="numpy",
)
def to_half_bits(src: Any, dst: Any) -> None:
    """The float16 bit pattern of each float32 (given by its bits), rounded
    to nearest, ties to even; overflow gives infinity of the sign; a NaN
    keeps its sign and the top ten bits of its payload, and stays a NaN
    (numpy's conversion, bit for bit)."""
    for i in range(src.size):
        f = src[i]
        sign = (f >> U(16)) & U(0x8000)
        a = f & U(0x7FFFFFFF)
        # normal results: rebias the exponent; add just under half a unit,
        # plus one where the kept last bit is odd (a tie then rounds up to even)
        t = a - U(0x38000000)
        normal = (t + U(0xFFF) + ((t >> U(13)) & U(1))) >> U(13)
        # subnormal results (and zero): the significand with its leading one,
        # shifted to the 2^-24 grid, rounded the same way; 126 - exponent
        # bits drop out (clamped to 1..31, which covers every such input)
        s = U(0x800000) | (a & U(0x7FFFFF))
        shift = max(min(U(126) - (a >> U(23)), U(31)), U(1))
        sub = (s + ((U(1) << (shift - U(1))) - U(1)) + ((s >> shift) & U(1))) >> shift
        # NaN: the payload's top bits, never the pattern of infinity
        nan = U(0x7C00) + ((a & U(0x7FFFFF)) >> U(13))
        nan = nan + U(nan == U(0x7C00))
        big = nan if a > U(0x7F800000) else U(0x7C00)
        h = sub if a < U(0x38800000) else normal
        h = big if a >= U(0x47800000) else h
        dst[i] = h | sign


@numba.njit(
    [numba.types.void(_vector(np.uint16, readonly=True), _vector(np.float32, readonly=True), _vector(np.float32))],
    cache=True,
    nogil=True,
    boundscheck=False,
    error_model="numpy",
)
def to_single(src: Any, table: Any, dst: Any) -> None:
    """Each float16 (given by its bits) as float32, looked up in `table`
    (the 65,536 float16 values as float32)."""
    for i in range(src.size):
        dst[i] = table[src[i]]
