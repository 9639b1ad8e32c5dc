"""`maximum` and `minimum` against a single value, by rows.

numpy's maximum and minimum use their vector loops only when both operands
are walked element by element. Against a value broadcast over a tensor (a
0-d or one-element array: `relu`'s zero, a clamp's bound) they fall back to
a scalar loop, about three times slower (float32, (1, 32, 112, 112): 189 us
against 60; int8 and bool eight to twelve times, int32 twice). `add` and
the comparisons have no such gap, nor have float16 and float64.

`against_one` takes the large operand, contiguous, as rows of `ROW`
elements (and what is left after the whole rows) and compares each with
one row filled with the value: the same ufunc on the same pairs of
elements, so the bits are numpy's (a NaN keeps its payload and sign,
`maximum(-0.0, 0.0)` is what numpy makes it), with the operands in their
order. With `split`, large float tensors are spread over the kernel
threads, as `_pieces.binary` spreads them (not from a step that already
runs on those threads: a fused chain's).
"""

from __future__ import annotations

import functools
from typing import Any

from .. import _threads
from .._np import np

ROW = 1 << 13
"""Elements per row (32 KB of float32: one row of each operand stays in the
first-level cache)."""

MIN_SIZE = 1 << 15
"""Elements below which numpy's own call is as fast (the rows cost 3 to 4
us more per call: float32 and int32 gain from about 32,768 elements)."""

NUMPY_FAST = frozenset("edg")
"""dtype characters whose scalar loop is already as fast as the rows
(float16, float64, long double: measured the same, within 8 %, from 20,000
to 2,000,000 elements)."""


def handles(ufunc: Any) -> bool:
    """Whether `ufunc` is one whose scalar loop `against_one` works around."""
    return ufunc is np.maximum or ufunc is np.minimum


def compute(ufunc: Any, a: Any, b: Any, out: Any = None, split: bool = False) -> Any:
    """`ufunc(a, b, out=out)`: by rows where `against_one` applies, else numpy's call."""
    done = against_one(ufunc, a, b, out, split)
    return done if done is not None else ufunc(a, b, out=out)


@functools.lru_cache(maxsize=64)
def _filled(dtype: Any, value: bytes) -> Any:
    """A read-only row of ROW copies of the value whose bytes are `value`."""
    row = np.full(ROW, np.frombuffer(value, dtype=dtype)[0], dtype=dtype)
    row.flags.writeable = False
    return row


def against_one(ufunc: Any, a: Any, b: Any, out: Any = None, split: bool = False) -> Any:
    """`ufunc(a, b, out=out)` by rows, for `ufunc` np.maximum or np.minimum.

    It applies when one operand is a single value and the other a
    C-contiguous tensor of the same dtype, not one of NUMPY_FAST, with
    MIN_SIZE elements or more; and `out`, if given, is a C-contiguous
    tensor of that one's shape and dtype (it may be that operand). Where it
    does not apply it returns None, and the caller calls the ufunc as usual.
    `split`: the rows of a large float tensor are spread over the kernel
    threads (never from one of those threads: the pool would wait for
    itself)."""
    if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.dtype != b.dtype:
        return None
    if b.size == 1 and a.size >= MIN_SIZE:
        big, one, first = a, b, True
    elif a.size == 1 and b.size >= MIN_SIZE:
        big, one, first = b, a, False
    else:
        return None
    if big.ndim < one.ndim or not big.flags.c_contiguous or big.dtype.hasobject or big.dtype.char in NUMPY_FAST:
        return None
    if out is None:
        out = np.empty_like(big, order="C")
    elif out.shape != big.shape or out.dtype != big.dtype or not out.flags.c_contiguous:
        return None
    row = _filled(big.dtype, one.reshape(()).tobytes())
    n = big.size
    whole = n - n % ROW
    src, dst = big.reshape(-1), out.reshape(-1)
    rows_in, rows_out = src[:whole].reshape(-1, ROW), dst[:whole].reshape(-1, ROW)

    def part(lo: int, hi: int) -> None:
        if first:
            ufunc(rows_in[lo:hi], row, out=rows_out[lo:hi])
        else:
            ufunc(row, rows_in[lo:hi], out=rows_out[lo:hi])

    count = whole // ROW
    pieces = min(_threads.split_count(n), count) if split and big.dtype.kind == "f" else 1
    _threads.run_parts(part, _threads.ranges(count, pieces) if pieces > 1 else [(0, count)])
    if whole < n:
        rest = n - whole
        if first:
            ufunc(src[whole:], row[:rest], out=dst[whole:])
        else:
            ufunc(row[:rest], src[whole:], out=dst[whole:])
    return out
