"""The compiled loop of `bias_relu` (imported only where numba is installed).

A module-level function, so that numba's disk cache keeps its machine code
between runs. It releases the interpreter lock, so the kernel threads can
run parts of one tensor at the same time.
"""

from __future__ import annotations

from typing import Any

import numba

jit = numba.njit(cache=True, nogil=True, boundscheck=False, error_model="numpy")


@jit
def bias_relu_planes(x: Any, bias: Any, lo: int, hi: int) -> None:
    """Planes `lo` to `hi` of `x` (outer, C, inner), counted over outer then
    channel, given their channel's bias and then max(., 0), in place: one
    pass where numpy makes two. The sum is the one numpy's add makes (no
    reassociation); a sum that is 0 or less (-0.0 too) becomes 0 and NaN
    stays itself, as with numpy's maximum against 0."""
    channels = x.shape[1]
    for plane in range(lo, hi):
        outer = plane // channels
        channel = plane - outer * channels
        b = bias[channel]
        row = x[outer, channel]
        for i in range(row.shape[0]):
            v = row[i] + b
            row[i] = v if not v <= 0 else 0
