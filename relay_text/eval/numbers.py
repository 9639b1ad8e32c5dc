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
  `1.5e+20`). The test runs on nine-digit windows in float64, exact where
  the scaling by a power of ten is (values from 1e-3 up); below, with an
  error bound, and an element whose decision falls within the bound (or a
  subnormal, or an integer from 1e6 up) is written by numpy's `str`;
* float64 and anything else: element by element, as before.

`block_text(arr)` is the JSON text of an array (nested lists, no outer
object); `write_tensor(write, arr)` writes that text in pieces of at most
CHUNK elements, so that memory stays a small multiple of the tensor. A
float block is computed in cache-sized pieces, on up to THREADS threads
(numpy releases the GIL inside its loops), and joined in order.
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any
from collections.abc import Callable

import numpy as np

from . import numbers_jit

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
    upper = _POSITIONAL_BELOW.get(x.dtype.itemsize)
    if upper is None:
        text = str(x)
    elif f == 0 or 1e-4 <= abs(f) < upper:
        text = np.format_float_positional(x, unique=True, trim="0")
    else:
        text = np.format_float_scientific(x, unique=True, trim="-")
    if not any(c in text for c in ".eE"):
        text += ".0"
    return text


# The shortest digits that read back as the value, for its own precision;
# positional from 1e-4 up to these bounds, else scientific: numpy 2.3's
# choice for `str` of a scalar, spelled out so that the text does not change
# with the installed numpy (2.2 wrote float32 positional up to 1e16).
_POSITIONAL_BELOW = {2: 1e3, 4: 1e6, 8: 1e16}


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


def block_text(arr: np.ndarray, compiled: bool = False) -> str:
    """The JSON text of a non-empty array of rank >= 1 (nested lists); with
    `compiled`, a float32 array's by the compiled loop (`numbers_jit`, which
    must be available)."""
    kind = arr.dtype.kind
    if kind in "iu":
        return str(arr.tolist())
    if kind == "b":
        return str(arr.tolist()).replace("True", "true").replace("False", "false")
    name = arr.dtype.name
    if name == "float32" and _LITTLE:
        return numbers_jit.block_text(arr) if compiled else _float32_block(arr)
    if name in ("float16", "bfloat16") and _LITTLE:
        table = _table(arr.dtype)
        bits = arr.ravel().view(np.uint16)
        return _matrix_block(arr, lambda i, j: table[bits[i:j]], table.shape[1])
    return _slow_block(arr)


def write_tensor(
    write: Callable[[str], Any], arr: np.ndarray, chunk: int = CHUNK, compiled: bool | None = None
) -> None:
    """Write the JSON text of a non-empty array of rank >= 1 in pieces. A
    float32 tensor of `numbers_jit.MIN_ELEMENTS` and more goes through the
    compiled loop where it is available (`compiled` None: decide so)."""
    if compiled is None:
        compiled = (
            arr.dtype.name == "float32" and _LITTLE and arr.size >= numbers_jit.MIN_ELEMENTS and numbers_jit.available()
        )
    if arr.size <= chunk:
        write(block_text(arr, compiled))
        return
    inner = arr.size // arr.shape[0]
    write("[")
    if inner <= chunk:
        step = max(1, chunk // inner)
        for i in range(0, arr.shape[0], step):
            if i:
                write(", ")
            write(block_text(arr[i : i + step], compiled)[1:-1])
    else:
        for i in range(arr.shape[0]):
            if i:
                write(", ")
            write_tensor(write, arr[i], chunk, compiled)
    write("]")


def _float32_block(arr: np.ndarray) -> str:
    """The nested-list text of a float32 array by numpy's array passes."""
    flat = arr.ravel()
    with np.errstate(all="ignore"):  # signalling NaNs
        # A text's third word holds at most 5 bytes (a digit, `e+05`).
        return _matrix_block(arr, lambda i, j: _float32_texts(flat[i:j])[0], 21)


def _matrix_block(arr: np.ndarray, texts: Callable[[int, int], np.ndarray], width: int) -> str:
    """The nested-list text of `arr` from its elements' texts: `texts(i, j)`
    gives the rows of bytes for flat elements i..j-1 (the first `width`
    bytes of a row, unused bytes 0). Done a cache-sized piece at a time."""
    n = arr.size

    def piece(i: int) -> bytes:
        return _joined(arr.shape, texts(i, min(i + _PIECE, n)), width, i)

    starts = range(0, n, _PIECE)
    # numpy releases the GIL inside its loops: pieces overlap on the cores.
    pieces = list(_pool().map(piece, starts)) if len(starts) > 1 and THREADS > 1 else [piece(i) for i in starts]
    return "[" * arr.ndim + b"".join(pieces).decode("ascii")


THREADS = min(os.cpu_count() or 1, 4)
"""Threads that compute the pieces of a block (1: none)."""
_POOL: list[Any] = []


def _pool() -> Any:
    if not _POOL:
        from concurrent.futures import ThreadPoolExecutor

        _POOL.append(ThreadPoolExecutor(THREADS, thread_name_prefix="relay-json"))
    return _POOL[0]


def _joined(shape: tuple[int, ...], texts: np.ndarray, width: int, start: int) -> bytes:
    """Texts of flat elements start.. of an array of `shape`, each followed by
    "]" for every axis whose block ends there, ", " and "[" as often again
    (the last element only by its "]"s)."""
    rows = texts.shape[0]
    ndim = len(shape)
    matrix = np.zeros((rows, width + 2 * ndim + 2), dtype=np.uint8)
    matrix[:, :width] = texts[:, :width]
    seps = matrix[:, width:]
    seps[:, 0] = ord(",")
    seps[:, 1] = ord(" ")
    if ndim > 1:
        inner = shape[-1]
        ends = np.arange(start + (inner - 1 - start % inner), start + rows, inner)  # last of an innermost row
        closes = np.ones(len(ends), dtype=np.int64)
        block = inner
        for size in reversed(shape[1:-1]):
            block *= size
            closes += (ends + 1) % block == 0
        ends -= start
        for c in range(1, ndim):
            at = ends[closes == c]
            seps[at, :c] = ord("]")
            seps[at, c] = ord(",")
            seps[at, c + 1] = ord(" ")
            seps[at, c + 2 : 2 * c + 2] = ord("[")
    if start + rows == math.prod(shape):
        seps[rows - 1, :] = 0
        seps[rows - 1, :ndim] = ord("]")
    return matrix.tobytes().translate(None, b"\0")


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
_INT_POW10 = np.array([10**j for j in range(0, 19)], dtype=np.int64)
# A mask of the lowest n bytes of a word, n = 0..8.
_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)
# sign + "0." + zeros for a positional value below 1: index 5 * sign + z.
_SMALL = np.array(
    [
        int.from_bytes((("-" if s else "") + "0." + "0" * (z - 1)).encode(), "little") if z else 0
        for s in (0, 1)
        for z in range(5)
    ],
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
    digits: np.ndarray = (q | ((x - q * _U(10)) << _U(8))) + _ASCII0
    return digits


_PIECE = 1 << 15  # elements computed at a time: the temporaries stay in the cache


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
    with np.errstate(invalid="ignore"):  # (signalling NaNs: their rows are decided by `field`)
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


def _integral(
    x: np.ndarray,
    a: np.ndarray,
    field: np.ndarray,
    negative: np.ndarray,
    rest: np.ndarray,
    out: np.ndarray,
    length: np.ndarray,
    slow: np.ndarray,
) -> None:
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


# floor(log10(2**(field - 127))) for an exponent field; powers of ten as
# float64 (correctly rounded), 10**e at index e + 50.
_FIELD_LOG = np.array([math.floor((f - 127) * math.log10(2)) if f else 0 for f in range(256)], dtype=np.int64)
_POW10_AT = np.array([float(10**e) if e >= 0 else 1 / 10 ** (-e) for e in range(-50, 60)])
_P10F = np.array([float(10**m) for m in range(12)])


def _fractional(
    a: np.ndarray,
    field: np.ndarray,
    bits: np.ndarray,
    negative: np.ndarray,
    out: np.ndarray,
    length: np.ndarray,
    slow: np.ndarray,
) -> None:
    """The texts of finite non-integral values (all below 2**23).

    Nine significant digits always identify a float32: with the first digit
    at 10**E, D9 = floor(a * 10**(8 - E)) and the rounding interval (lo, hi)
    scaled the same way hold the answer. The shortest text drops the most
    trailing digits m for which a multiple of 10**m lies strictly inside
    the scaled interval (the test holds for every m below that one)."""
    f = field.astype(np.int64)
    # The interval: half-way to the neighbouring float32s; numpy's Dragon4
    # takes the margin below a power of two (exponent field not 0) as half
    # the one above. Subnormals (field 0) are left to numpy.
    ulp = ((f + (1023 - 150)) << 52).view(np.float64)
    unequal = (bits & np.uint32(0x7FFFFF)) == 0
    lo = a - np.where(unequal, ulp * 0.25, ulp * 0.5)
    hi = a + ulp * 0.5
    e = _FIELD_LOG[f]
    e = e + (a >= _POW10_AT[e + 51])  # the power of ten of the first digit
    scale = _POW10_AT[58 - e]  # 10**(8 - e): exact for e >= -3
    xs = a * scale
    ls = lo * scale
    hs = hi * scale
    d9 = np.floor(xs)
    frac = xs - d9
    margin_low = d9 - ls
    margin_high = hs - d9
    unsure = field == 0
    far = np.flatnonzero(e < -3)
    if len(far):
        # Inexact scaling: unsure where a decision is within the error bound.
        fx, fl, fh = xs[far], ls[far], hs[far]
        tol = fx * 2.0**-46
        near = (
            (np.abs(fx - np.round(fx)) < tol)
            | (np.abs(frac[far] - 0.5) < tol)
            | (np.abs(fl - np.round(fl)) < tol)
            | (np.abs(fh - np.round(fh)) < tol)
        )
        unsure[far[near]] = True
    # In float64, exactly: d9 < 1e9, and (d9 + 0.5) / 10**m is at least
    # 0.5 / 10**m away from an integer.
    q1 = np.floor((d9 + 0.5) * 0.1)
    r1 = d9 - q1 * 10.0
    q2 = np.floor((d9 + 0.5) * 0.01)
    r2 = d9 - q2 * 100.0
    q3 = np.floor((d9 + 0.5) * 0.001)
    r3 = d9 - q3 * 1000.0
    pass1 = (r1 < margin_low) | (10.0 - r1 < margin_high)
    pass2 = pass1 & ((r2 < margin_low) | (100.0 - r2 < margin_high))
    pass3 = pass2 & ((r3 < margin_low) | (1000.0 - r3 < margin_high))
    m = pass1.astype(np.int64) + pass2 + pass3
    q = np.where(pass3, q3, np.where(pass2, q2, np.where(pass1, q1, d9)))
    r = np.where(pass3, r3, np.where(pass2, r2, np.where(pass1, r1, 0.0)))
    more = np.flatnonzero(pass3)
    while len(more):  # m >= 4: rare (short decimals such as 0.5)
        p10 = _P10F[m[more] + 1]
        qq = np.floor((d9[more] + 0.5) / p10)
        rr = d9[more] - qq * p10
        ok = (rr < margin_low[more]) | (p10 - rr < margin_high[more])
        more = more[ok]
        m[more] += 1
        q[more] = qq[ok]
        r[more] = rr[ok]
    p10 = _P10F[m]
    low_in = r < margin_low
    high_in = p10 - r < margin_high
    twice = 2.0 * (r + frac)  # against p10: the nearer of the two
    up = high_in & ~(low_in & (twice < p10))
    tie = np.flatnonzero(low_in & high_in & (twice == p10))
    up[tie] = q[tie] % 2 == 1  # to even
    digits = q + up
    n9 = digits * p10
    carry = n9 >= 1e9
    n9 = np.where(carry, 1e8, n9)  # rounded up to a power of ten: "1"
    e = e + carry
    nd = np.where(carry, 1, 9 - m)
    unsure |= (digits == np.floor((digits + 0.5) * 0.1) * 10.0) & (nd > 1)

    # The nine digits (padded with zeros): w1 the first eight, w2 the ninth.
    first = np.floor((n9 + 0.5) * 1e-8)
    eight = _eight_digits((n9 - first * 1e8).astype(np.uint64))
    w1 = first.astype(np.uint64) + _U(48) | (eight << _U(8))
    w2 = eight >> _U(56)

    # Three parts, each a word: A the sign and what comes before the digits
    # of B, B up to eight digits, C the ninth digit and the exponent.
    positional = (a >= 1e-4) & (a < 1e6)
    small = positional & (e < 0)
    start = np.where(positional, np.maximum(e + 1, 0), 1)  # digits in A
    start_u = start.astype(np.uint64)
    dot = (positional | (nd > 1)).astype(np.uint64) * _U(ord("."))
    part_a = (w1 & _BYTES[start]) | (dot << (start_u * _U(8)))
    len_a = start + (positional | (nd > 1))
    sign = negative.astype(np.uint64)
    part_a = (part_a << (sign * _U(8))) | (sign * _U(ord("-")))
    part_a = np.where(small, _SMALL[5 * negative + np.minimum(-e, 4)], part_a)
    len_a = np.where(small, 1 - e, len_a) + negative
    len_b = np.minimum(nd, 8) - start
    part_b = (w1 >> (start_u * _U(8))) & _BYTES[len_b]
    ninth = (nd == 9).astype(np.uint64)
    ex = np.abs(e).astype(np.uint64)
    tens = ex // _U(10)
    exponent = (
        _U(ord("e"))
        | (np.where(e < 0, _U(ord("-")), _U(ord("+"))) << _U(8))
        | ((tens + _U(48)) << _U(16))
        | ((ex - tens * _U(10) + _U(48)) << _U(24))
    )
    part_c = (w2 & (ninth * _U(0xFF))) | ((~positional).astype(np.uint64) * (exponent << (ninth * _U(8))))
    out[:, 0] = part_a
    out[:, 1] = part_b
    out[:, 2] = part_c
    length[:] = len_a + len_b + ninth + np.where(positional, 0, 4)
    slow |= unsure | (len_a > 8)
