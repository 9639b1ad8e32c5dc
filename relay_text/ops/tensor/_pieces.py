"""A binary ufunc over large float tensors, computed in pieces on the kernel
thread pool.

numpy runs an elementwise operation on one thread; PyTorch spreads it over
its intra-op threads. For a float tensor of at least `PARALLEL_MIN`
elements with more than one kernel thread, `binary` cuts the result along
its first axis long enough for the pieces, and each thread computes its
piece into one output tensor (numpy releases the GIL in its loops). Each
element is computed by the same ufunc from the same operands, so the result
is the one numpy gives (the layer norms and GELUs of a transformer:
`x - mean`, `power(x, 2)`, `0.5 * x`). Smaller tensors, other dtypes and
a single thread take numpy's call directly.
"""

from __future__ import annotations

import math
from typing import Any

from .. import _threads
from .._np import np
from ._rows import against_one, handles


def _cut(x: Any, ndim: int, axis: int, a: int, b: int) -> Any:
    """The piece [a, b) along the result's `axis` of an operand broadcast
    against a result of `ndim` dimensions (all of it where it is broadcast
    along that axis)."""
    ax = axis - (ndim - x.ndim)
    if ax < 0 or x.shape[ax] == 1:
        return x
    return x[(slice(None),) * ax + (slice(a, b),)]


def binary(ufunc: Any, a: Any, b: Any) -> Any:
    """ufunc(a, b) for two arrays of one dtype, in pieces on the pool when
    large and float; `maximum` and `minimum` against a single value by rows
    (`_rows`)."""
    if handles(ufunc):
        rows = against_one(ufunc, a, b, split=True)
        if rows is not None:
            return rows
    if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.dtype != b.dtype or a.dtype.kind != "f":
        return ufunc(a, b)
    if a.shape == b.shape:
        shape = a.shape
    elif a.size * b.size < _threads.PARALLEL_MIN:
        # (the result has at most a.size * b.size elements: too few to split,
        # known without `broadcast_shapes`, which costs more than a small call)
        return ufunc(a, b)
    else:
        shape = np.broadcast_shapes(a.shape, b.shape)
    pieces = _threads.split_count(math.prod(shape))
    axis = _threads.split_axis(shape, pieces) if pieces > 1 else None
    if axis is None:
        return ufunc(a, b)
    out = np.empty(shape, dtype=a.dtype)
    nd = len(shape)

    def part(lo: int, hi: int) -> None:
        ufunc(_cut(a, nd, axis, lo, hi), _cut(b, nd, axis, lo, hi), out=_cut(out, nd, axis, lo, hi))

    _threads.run_parts(part, _threads.ranges(shape[axis], pieces))
    return out
