"""The compiled loop of `numbers_jit` (imported only where numba is installed).

Its functions are module-level so that numba's disk cache can keep their
machine code between runs; the tables are module-level arrays, which numba
compiles in as constants.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

from .numbers import _P10F, _POW10_AT, _eight_digits

pow10_at = _POW10_AT  # (names the loop reads)
p10f = _P10F
ulps = np.ldexp(1.0, np.arange(256) - 150)  # a float32's unit in the last place, by exponent field
u = np.uint64
jit = numba.njit(cache=True, nogil=True, boundscheck=False, error_model="numpy")
# The helpers are inlined where they are called (numba's own inlining): one loop, no calls.
inline = numba.njit(cache=True, nogil=True, boundscheck=False, error_model="numpy", inline="always")


@inline
def put_word(out: Any, pos: int, word: Any) -> None:
    """The eight bytes of `word` at pos.. (the lowest first); the buffer
    always has room: what lies past an element's text is written over."""
    for k in range(8):
        out[pos + k] = (word >> u(8 * k)) & u(0xFF)


# v < 10**8 as eight ASCII digits, the first in the lowest byte: the numpy
# path's function, compiled for one number.
eight_digits = inline(_eight_digits)


@inline
def element(out: Any, pos: int, b: int, x: Any) -> int:
    """One element's text at `pos`; returns the new position, or -1
    where the text is left to numpy (the cases `numbers` leaves)."""
    negative = b >= 0x80000000
    field = (b >> 23) & 0xFF
    mantissa = b & 0x7FFFFF
    if field == 0xFF:
        if mantissa != 0:
            put_word(out, pos, u(0x226E616E22))  # "nan"
            return pos + 5
        if negative:
            put_word(out, pos, u(0x22666E692D22))  # "-inf"
            return pos + 6
        put_word(out, pos, u(0x22666E6922))  # "inf"
        return pos + 5
    if field == 0:
        if mantissa != 0:
            return -1  # subnormal
        put_word(out, pos, u(0x302E302D) if negative else u(0x302E30))  # -0.0, 0.0
        return pos + 4 if negative else pos + 3
    out[pos] = 45  # "-", kept by a negative value (no branch: the sign is random in most data)
    pos += int(negative)
    a = abs(np.float64(x))
    if a == math.floor(a):  # integral: below 1e6 `123.0`, else numpy
        if a >= 1e6:
            return -1
        v = u(int(a))
        nd = 1
        while nd < 6 and v >= u(10**nd):
            nd += 1
        digits = eight_digits(v * u(10 ** (8 - nd)))
        put_word(out, pos, digits)
        put_word(out, pos + nd, u(0x302E))  # .0
        return pos + nd + 2
    # Non-integral: `numbers._fractional` for one element.
    ulp = ulps[field]
    lo = a - (ulp * 0.25 if mantissa == 0 else ulp * 0.5)
    hi = a + ulp * 0.5
    e = ((field - 127) * 78913) >> 18  # floor(log10(2 ** (field - 127))), as numbers._FIELD_LOG
    if a >= pow10_at[e + 51]:
        e += 1
    scale = pow10_at[58 - e]
    xs = a * scale
    ls = lo * scale
    hs = hi * scale
    d9 = np.floor(xs)
    frac = xs - d9
    margin_low = d9 - ls
    margin_high = hs - d9
    if e < -3:
        tol = xs * 2.0**-46
        if (
            abs(xs - math.floor(xs + 0.5)) < tol
            or abs(frac - 0.5) < tol
            or abs(ls - math.floor(ls + 0.5)) < tol
            or abs(hs - math.floor(hs + 0.5)) < tol
        ):
            return -1
    # Drop trailing digits while a multiple of 10**m lies inside the interval.
    q1 = np.floor((d9 + 0.5) * 0.1)
    r1 = d9 - q1 * 10.0
    q2 = np.floor((d9 + 0.5) * 0.01)
    r2 = d9 - q2 * 100.0
    q3 = np.floor((d9 + 0.5) * 0.001)
    r3 = d9 - q3 * 1000.0
    pass1 = (r1 < margin_low) | (10.0 - r1 < margin_high)
    pass2 = pass1 & ((r2 < margin_low) | (100.0 - r2 < margin_high))
    pass3 = pass2 & ((r3 < margin_low) | (1000.0 - r3 < margin_high))
    # (selected by arithmetic, exact on these integers: no branch to mispredict)
    f1, f2, f3 = float(int(pass1)), float(int(pass2)), float(int(pass3))
    m = int(pass1) + int(pass2) + int(pass3)
    q = d9 + f1 * (q1 - d9)
    q += f2 * (q2 - q)
    q += f3 * (q3 - q)
    r = f1 * r1
    r += f2 * (r2 - r)
    r += f3 * (r3 - r)
    while pass3 and m < 11:  # m >= 4: rare (short decimals such as 0.5)
        p10 = p10f[m + 1]
        qq = np.floor((d9 + 0.5) / p10)
        rr = d9 - qq * p10
        if not ((rr < margin_low) | (p10 - rr < margin_high)):
            break
        m += 1
        q = qq
        r = rr
    p10 = p10f[m]
    low_in = r < margin_low
    high_in = p10 - r < margin_high
    twice = 2.0 * (r + frac)
    up = high_in & ~(low_in & (twice < p10))
    if low_in & high_in & (twice == p10):
        up = q % 2.0 == 1.0  # a tie: to even
    digits = q + (1.0 if up else 0.0)
    n9 = digits * p10
    nd = 9 - m
    if n9 >= 1e9:  # rounded up to a power of ten: "1"
        n9 = 1e8
        e += 1
        nd = 1
    if (nd > 1) & (digits == np.floor((digits + 0.5) * 0.1) * 10.0):
        return -1
    value = u(int(n9))
    first = value // u(100000000)
    rest = eight_digits(value - first * u(100000000))  # the second to ninth digits
    lead = first + u(48)
    if 1e-4 <= a < 1e6:
        if e < 0:
            put_word(out, pos, u(0x3030302E30))  # 0.000
            pos += 1 - e
            out[pos] = lead
            put_word(out, pos + 1, rest)
            return pos + nd
        # e + 1 digits, ".", the others (at least one: the value is no integer)
        out[pos] = lead
        put_word(out, pos + 1, rest)
        put_word(out, pos + e + 2, rest >> u(8 * e))
        out[pos + e + 1] = 46
        return pos + nd + 1
    out[pos] = lead
    if nd > 1:
        out[pos + 1] = 46
        put_word(out, pos + 2, rest)
        pos += nd + 1
    else:
        pos += 1
    ex = -e if e < 0 else e
    out[pos] = 101
    out[pos + 1] = 45 if e < 0 else 43
    out[pos + 2] = 48 + ex // 10
    out[pos + 3] = 48 + ex % 10
    return pos + 4


@jit
def piece(
    bits: Any, values: Any, start: int, stop: int, total: int, ndim: int, blocks: Any, out: Any, slow: Any
) -> tuple[int, int]:
    pos = 0
    count = 0
    inner = blocks[0] if ndim > 1 else total
    left = inner - start % inner  # elements to the end of the innermost row
    for i in range(start, stop):
        end = element(out, pos, bits[i], values[i])
        if end < 0:
            slow[count, 0] = i
            slow[count, 1] = pos
            count += 1
        else:
            pos = end
        if i == total - 1:
            for _ in range(ndim):
                out[pos] = 93
                pos += 1
            continue
        left -= 1
        if left:
            out[pos] = 44
            out[pos + 1] = 32
            pos += 2
            continue
        left = inner
        closes = 1
        for k in range(1, ndim - 1):
            if (i + 1) % blocks[k] == 0:
                closes += 1
        for _ in range(closes):
            out[pos] = 93
            pos += 1
        out[pos] = 44
        out[pos + 1] = 32
        pos += 2
        for _ in range(closes):
            out[pos] = 91
            pos += 1
    return pos, count
