"""Tensors as JSON text, fast: the numbers of a whole array at once.

`--output-format json` writes every element of a tensor, and writing them
one by one in Python (about a microsecond each) makes a 32 MB float32
tensor take seconds. Here the text of a block of elements is computed with
numpy array operations, and gives exactly the text the element-by-element
writer in `show` gives (the tests compare them):

* integers and booleans: Python's `str` of the block's `tolist()`, which is
  that text already (`[[1, 2], [3, 4]]`; booleans lower-cased);
* float16 and bfloat16: a table of the text of each of the 65,536 values,
  made once, indexed by the elements' bits;
* float32: the shortest digits that read back as the same float32, chosen
  as numpy's `str(np.float32(x))` chooses them (Dragon4 in its unique mode:
  the digits stop at the first position where a number of that many digits
  lies strictly inside the value's rounding interval, the last digit
  rounded to the nearest, ties to even), laid out as numpy lays them out
  (positional from 1e-4 up to 1e6, scientific beyond: `1e-05`,
  `1.5e+20`). The interval test is done in float64, exactly where the
  scaling by a power of ten is exact, and elsewhere with an error bound:
  an element whose test falls within the bound of a tie (or whose text
  would not fit the 16-byte layout) is written by numpy's `str` instead;
* float64 and anything else: element by element, as before.

`block_text(arr)` is the JSON text of an array (nested lists, no outer
object); `write_tensor(write, arr)` writes that text in pieces of at most
CHUNK elements, so that memory stays a small multiple of the tensor.
"""

from __future__ import annotations

import math
import sys
from typing import Any, Callable

import numpy as np

CHUNK = 1 << 18  # elements formatted at a time

_LITTLE = sys.byteorder == "little"


# ---------------------------------------------------------------- one element (the reference)


def float_text(x: Any) -> str:
    """One float element as JSON: numpy's shortest text for its own dtype,
    `.0` added to an integral value, `"nan"` / `"inf"` / `"-inf"` as strings."""
    f = float(x)
    if math.isnan(f):
        return '"nan"'
    if math.isinf(f):
        return '"inf"' if f > 0 else '"-inf"'
    if x.dtype.name == "bfloat16":
        return bfloat16_text(x)
    text = str(x)  # numpy scalar: shortest text for its own precision
    if not any(c in text for c in ".eE"):
        text += ".0"
    return text


def bfloat16_text(x: Any) -> str:
    """A finite bfloat16 value as the shortest decimal that reads back as
    it (`ml_dtypes` prints six digits): `0.1`, `3.14`, `65536.0`, `1e+20`."""
    f = float(x)
    for digits in range(1, 10):
        text = f"{f:.{digits}g}"
        if type(x)(float(text)) == x:
            break
    return repr(float(text))


def _element_text(kind: str) -> Callable[[Any], str]:
    if kind == "b":
        return lambda x: "true" if x else "false"
    if kind in "iu":
        return str
    if kind == "f":
        return float_text
    return lambda x: '"' + str(x) + '"'


def _slow_block(arr: np.ndarray) -> str:
    """Element by element (the reference for every dtype)."""
    kind = arr.dtype.kind
    if arr.dtype.name == "bfloat16":
        kind = "f"
    fmt = _element_text(kind)
    flat = arr.ravel().tolist() if kind in "biu" else list(arr.ravel())
    texts = [fmt(x) for x in flat]
    for size in reversed(arr.shape):
        texts = ["[" + ", ".join(texts[i : i + size]) + "]" for i in range(0, len(texts), size)]
    return texts[0]


# ---------------------------------------------------------------- blocks


def block_text(arr: np.ndarray) -> str:
    """The JSON text of a non-empty array of rank >= 1 (nested lists)."""
    kind = arr.dtype.kind
    if kind in "iu":
        return str(arr.tolist())
    if kind == "b":
        return str(arr.tolist()).replace("True", "true").replace("False", "false")
    name = arr.dtype.name
    if name == "float32" and _LITTLE:
        with np.errstate(all="ignore"):  # signalling NaNs
            return _matrix_block(arr, _float32_texts(arr.ravel())[0])
    if name in ("float16", "bfloat16") and _LITTLE:
        table = _table(arr.dtype)
        return _matrix_block(arr, table[arr.ravel().view(np.uint16)])
    return _slow_block(arr)


def write_tensor(write: Callable[[str], Any], arr: np.ndarray, chunk: int = CHUNK) -> None:
    """Write the JSON text of a non-empty array of rank >= 1 in pieces."""
    if arr.size <= chunk:
        write(block_text(arr))
        return
    inner = arr.size // arr.shape[0]
    write("[")
    if inner <= chunk:
        step = max(1, chunk // inner)
        for i in range(0, arr.shape[0], step):
            if i:
                write(", ")
            write(block_text(arr[i : i + step])[1:-1])
    else:
        for i in range(arr.shape[0]):
            if i:
                write(", ")
            write_tensor(write, arr[i], chunk)
    write("]")


def _matrix_block(arr: np.ndarray, texts: np.ndarray) -> str:
    """Join element texts (rows of bytes, unused bytes 0) into the
    nested-list text of an array of `arr`'s shape."""
    n = texts.shape[0]
    shape = arr.shape
    ndim = len(shape)
    # After element i: "]" for every axis whose block ends there, ", ", and
    # "[" as often again (after the last element only the "]"s).
    seps = np.zeros((n, 2 * ndim + 2), dtype=np.uint8)
    seps[:, 0] = ord(",")
    seps[:, 1] = ord(" ")
    if ndim > 1:
        closes = np.zeros(n, dtype=np.int64)
        index = np.arange(1, n + 1)
        block = 1
        for size in reversed(shape[1:]):
            block *= size
            closes += index % block == 0
        ends = np.flatnonzero(closes)
        counts = closes[ends]
        for c in range(1, ndim):
            rows = ends[counts == c]
            seps[rows, :c] = ord("]")
            seps[rows, c] = ord(",")
            seps[rows, c + 1] = ord(" ")
            seps[rows, c + 2 : 2 * c + 2] = ord("[")
    seps[n - 1, :] = 0
    seps[n - 1, :ndim] = ord("]")
    raw = np.concatenate([texts, seps], axis=1).tobytes()
    return "[" * ndim + raw.translate(None, b"\0").decode("ascii")


# ---------------------------------------------------------------- float16, bfloat16: tables

_TABLES: dict[str, np.ndarray] = {}


def _table(dtype: np.dtype) -> np.ndarray:
    """The text of every 16-bit pattern of `dtype` (rows of bytes, unused bytes 0)."""
    found = _TABLES.get(dtype.name)
    if found is None:
        values = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(dtype)
        texts = [float_text(v).encode("ascii") for v in values]
        width = max(map(len, texts))
        table = np.zeros((1 << 16, width), dtype=np.uint8)
        for i, t in enumerate(texts):
            table[i, : len(t)] = np.frombuffer(t, dtype=np.uint8)
        found = _TABLES[dtype.name] = table
    return found


# ---------------------------------------------------------------- float32: shortest digits

_U = np.uint64
# Powers of ten as float64, 10**-j at index j (exact for j <= 22, and
# x * 10**j is exact in float64 for a float32 x and j <= _EXACT: 24 + 26 bits).
_POW10 = np.array([float(10**j) for j in range(0, 80)])
_EXACT = 11
_TOLERANCE = 2.0**-44  # relative; the float64 scaling errs by less than 2**-51
_INT_POW10 = np.array([10**j for j in range(0, 19)], dtype=np.int64)
# A mask of the lowest n bytes of a word, n = 0..8.
_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)
# floor(log10(2**j)) and floor(log10(0.75 * 2**j)) for j = -160..159.
_LOG_J = np.arange(-160, 160)
_FLOOR_LOG2 = np.array([math.floor(math.log10(2.0**j)) for j in _LOG_J.tolist()], dtype=np.int64)
_FLOOR_LOG3 = np.array([math.floor(math.log10(0.75 * 2.0**j)) for j in _LOG_J.tolist()], dtype=np.int64)
# sign + "0." + zeros for a positional value below 1: index 5 * sign + z.
_SMALL = np.array(
    [int.from_bytes((("-" if s else "") + "0." + "0" * (z - 1)).encode(), "little") if z else 0 for s in (0, 1) for z in range(5)],
    dtype=np.uint64,
)
_ASCII0 = _U(0x3030303030303030)


def _eight_digits(v: np.ndarray) -> np.ndarray:
    """v < 10**8 (uint64) as 8 ASCII digits, the first in the lowest byte."""
    hi = v // _U(10000)
    x = hi | ((v - hi * _U(10000)) << _U(32))  # two 4-digit numbers in 32-bit lanes
    q = ((x * _U(5243)) >> _U(19)) & _U(0x0000007F0000007F)  # lane // 100
    x = q | ((x - q * _U(100)) << _U(16))  # four 2-digit numbers in 16-bit lanes
    q = ((x * _U(103)) >> _U(10)) & _U(0x000F000F000F000F)  # lane // 10
    return (q | ((x - q * _U(10)) << _U(8))) + _ASCII0


_PIECE = 1 << 14  # elements computed at a time: the temporaries stay in the cache


def _float32_texts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each element's text (rows of 24 bytes, unused bytes 0) and its length."""
    if x.size > _PIECE:
        pieces = [_float32_texts(x[i : i + _PIECE]) for i in range(0, x.size, _PIECE)]
        width = max(t.shape[1] for t, _ in pieces)
        if any(t.shape[1] != width for t, _ in pieces):
            pieces = [(np.pad(t, ((0, 0), (0, width - t.shape[1]))), n) for t, n in pieces]
        return np.concatenate([t for t, _ in pieces]), np.concatenate([n for _, n in pieces])
    n = x.size
    bits = x.view(np.uint32)
    negative = bits >= np.uint32(0x80000000)
    field = (bits >> np.uint32(23)) & np.uint32(0xFF)
    a = np.abs(x).astype(np.float64)
    out = np.zeros((n, 3), dtype=np.uint64)
    length = np.zeros(n, dtype=np.int64)
    main = (field != 0xFF) & (a != np.floor(a))  # finite, not an integer
    rows = np.flatnonzero(main) if not main.all() else None
    slow = np.zeros(n, dtype=bool)
    if rows is None:
        _fractional(a, field, bits, negative, out, length, slow)
    elif len(rows):
        sub_out = np.zeros((len(rows), 3), dtype=np.uint64)
        sub_len = np.zeros(len(rows), dtype=np.int64)
        sub_slow = np.zeros(len(rows), dtype=bool)
        _fractional(a[rows], field[rows], bits[rows], negative[rows], sub_out, sub_len, sub_slow)
        out[rows] = sub_out
        length[rows] = sub_len
        slow[rows] = sub_slow
    if rows is not None:
        rest = np.flatnonzero(~main)
        if len(rest):
            _integral(x, a, field, negative, rest, out, length, slow)
    texts = out.view(np.uint8)
    for i in np.flatnonzero(slow):
        t = float_text(x[i]).encode("ascii")
        if len(t) > texts.shape[1]:
            wider = np.zeros((n, len(t)), dtype=np.uint8)
            wider[:, : texts.shape[1]] = texts
            texts = wider
        texts[i, :] = 0
        texts[i, : len(t)] = np.frombuffer(t, dtype=np.uint8)
        length[i] = len(t)
    return texts, length


def _integral(x: np.ndarray, a: np.ndarray, field: np.ndarray, negative: np.ndarray, rest: np.ndarray, out: np.ndarray, length: np.ndarray, slow: np.ndarray) -> None:
    """Zeros, infinities, NaNs, and integers: below 1e6 `123.0`; others by numpy."""
    for mask, text in (
        ((a[rest] == 0) & ~negative[rest], b"0.0"),
        ((a[rest] == 0) & negative[rest], b"-0.0"),
        (np.isnan(a[rest]), b'"nan"'),
        (np.isinf(a[rest]) & ~negative[rest], b'"inf"'),
        (np.isinf(a[rest]) & negative[rest], b'"-inf"'),
    ):
        where = rest[mask]
        out[where, 0] = int.from_bytes(text, "little")
        length[where] = len(text)
    whole = rest[(a[rest] > 0) & (a[rest] < 1e6)]
    if len(whole):
        v = a[whole].astype(np.uint64)
        nd = np.ones(len(v), dtype=np.int64)
        for p in range(1, 6):
            nd += v >= _U(10**p)
        digits = _eight_digits(v * _INT_POW10[8 - nd].astype(np.uint64))
        s = negative[whole]
        word = (digits & _BYTES[nd]) | (_U(ord(".")) << (nd.astype(np.uint64) * _U(8)))
        out[whole, 0] = (word << (s.astype(np.uint64) * _U(8))) | (s.astype(np.uint64) * _U(ord("-")))
        out[whole, 2] = ord("0")
        length[whole] = nd + 2 + s
    big = rest[np.isfinite(a[rest]) & (a[rest] >= 1e6)]
    slow[big] = True


def _fractional(a: np.ndarray, field: np.ndarray, bits: np.ndarray, negative: np.ndarray, out: np.ndarray, length: np.ndarray, slow: np.ndarray) -> None:
    """The texts of finite non-integral values (all below 2**23)."""
    count = len(a)
    # The rounding interval (lo, hi): half-way to the neighbouring float32s;
    # numpy's Dragon4 takes the margin below a power of two (any exponent
    # field but 0) as half the one above.
    f = np.maximum(field, 1).astype(np.int64)
    ulp = ((f + (1023 - 150)) << 52).view(np.float64)
    unequal = ((bits & np.uint32(0x7FFFFF)) == 0) & (field != 0)
    lo = a - np.where(unequal, ulp * 0.25, ulp * 0.5)
    hi = a + ulp * 0.5
    # The last digit's position k: the largest k for which a multiple of
    # 10**k lies strictly inside (lo, hi) (a test that holds for every k
    # below that one). The power of ten below the interval's width passes;
    # for these values k < 0.
    j = f - 150 + 160
    k = np.where(unequal, _FLOOR_LOG3[j], _FLOOR_LOG2[j])
    unsure = np.zeros(count, dtype=bool)

    def test(kk: np.ndarray, aa: np.ndarray, ll: np.ndarray, hh: np.ndarray, at: np.ndarray | None) -> tuple:
        scale = _POW10[np.clip(-kk, 0, 79)]
        xs = aa * scale
        ls = ll * scale
        hs = hh * scale
        d = np.floor(xs)
        low_in = d > ls
        high_in = d + 1.0 < hs
        far = (kk < -_EXACT) | (kk > 0)
        if far.any():
            # Not exact: unsure where a decision is within the error bound.
            tol = xs * _TOLERANCE
            near = far & (
                (np.abs(xs - np.round(xs)) < tol)
                | (np.abs(xs - d - 0.5) < tol)
                | (np.abs(ls - np.round(ls)) < tol)
                | (np.abs(hs - np.round(hs)) < tol)
            )
            unsure[near.nonzero()[0] if at is None else at[near]] = True
        return xs - d, d, low_in, high_in

    frac, d, low_in, high_in = test(k, a, lo, hi, None)
    # k itself always passes; try k + 1, k + 2, ... where the last one passed.
    frac1, d1, low1, high1 = test(k + 1, a, lo, hi, None)
    up = low1 | high1
    k = k + up
    frac = np.where(up, frac1, frac)
    d = np.where(up, d1, d)
    low_in = np.where(up, low1, low_in)
    high_in = np.where(up, high1, high_in)
    active = np.flatnonzero(up)
    while len(active):
        fr, dd, li, hi_ = test(k[active] + 1, a[active], lo[active], hi[active], active)
        passed = li | hi_
        step = active[passed]
        k[step] += 1
        frac[step] = fr[passed]
        d[step] = dd[passed]
        low_in[step] = li[passed]
        high_in[step] = hi_[passed]
        active = step
    # The digits: the multiple below (d) or above (d + 1) inside the
    # interval, the nearer one if both are, the even one on a tie.
    round_up = high_in & ~(low_in & ((frac < 0.5) | ((frac == 0.5) & (d % 2.0 == 0.0))))
    digits = (d + round_up).astype(np.int64)
    nd = np.ones(count, dtype=np.int64)
    for p in range(1, 10):
        nd += digits >= _INT_POW10[p]
    unsure |= (nd > 9) | (digits % 10 == 0)
    nd = np.minimum(nd, 9)
    lead = k + nd - 1  # the power of ten of the first digit
    positional = (a >= 1e-4) & (a < 1e6)

    # The nine digits (padded with zeros): w1 the first eight, w2 the ninth.
    n9 = (digits * _INT_POW10[9 - nd]).astype(np.uint64)
    first = n9 // _U(10**8)
    eight = _eight_digits(n9 - first * _U(10**8))
    w1 = (first + _U(48)) | (eight << _U(8))
    w2 = eight >> _U(56)

    # Three parts, each a word: A the sign and what precedes the digits
    # after the point, B up to eight more digits, C the ninth digit and
    # the exponent.
    e_pos = np.maximum(lead, 0)  # positional, lead >= 0: e_pos + 1 digits before the point
    big = positional & (lead >= 0)
    small = positional & (lead < 0)
    nd_u = nd.astype(np.uint64)
    a_digits = np.where(big, e_pos + 1, 1).astype(np.uint64)  # digits in A
    dot = big | (~positional & (nd > 1))
    a_core = (w1 & _BYTES[a_digits]) | (dot.astype(np.uint64) * (_U(ord(".")) << (a_digits * _U(8))))
    len_a = a_digits + dot
    a_core = np.where(small, _SMALL[5 * negative + np.minimum(-lead, 4)], a_core)
    len_a = np.where(small, 1 - lead + negative, len_a)  # "-0." and -lead - 1 zeros
    b_start = np.where(small, 0, a_digits).astype(np.uint64)
    frac_digits = np.where(big, np.maximum(nd - e_pos - 1, 1), np.where(small, nd, nd - 1))
    len_b = np.minimum(frac_digits, 8 - b_start.astype(np.int64))
    part_b = (w1 >> (b_start * _U(8))) & _BYTES[len_b]
    ninth = nd == 9
    e = np.abs(lead).astype(np.uint64)
    tens = e // _U(10)
    exponent = (
        _U(ord("e"))
        | (np.where(lead < 0, _U(ord("-")), _U(ord("+"))) << _U(8))
        | ((tens + _U(48)) << _U(16))
        | ((e - tens * _U(10) + _U(48)) << _U(24))
    )
    part_c = (w2 & (ninth.astype(np.uint64) * _U(0xFF))) | np.where(positional, _U(0), exponent << (ninth.astype(np.uint64) * _U(8)))
    len_c = ninth + np.where(positional, 0, 4)
    # The sign (a small value's A has it already).
    sign = (negative & ~small).astype(np.uint64)
    a_core = (a_core << (sign * _U(8))) | (sign * _U(ord("-")))
    len_a = len_a + sign
    out[:, 0] = a_core
    out[:, 1] = part_b
    out[:, 2] = part_c
    length[:] = len_a + len_b + len_c
    slow |= unsure | (len_a > 8)
