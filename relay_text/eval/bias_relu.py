"""`relu(bias_add(x, b))` in one pass: the in-place chain after almost every
convolution of a network (`FoldAffine` leaves `conv -> bias_add -> relu`).

numpy computes the chain as two passes over each block (an add against a
per-channel vector, then a maximum against zero); the compiled loop of the
`fast` extra (`_bias_relu_loop`) adds and clamps each element once, in
registers: on MobileNet's layers about 3x faster than numpy's two passes,
with the same bits (see `_checked`). It is loaded as the other compiled
loops are (`compiled.Compiled`), once numpy has done WARM_ELEMENTS of this
work, or WARM_LOADED where numba is loaded already (its cached machine code
then loads in milliseconds).
"""

from __future__ import annotations

import math
from typing import Any

from ..compiled import Compiled, plain
from ..ops._np import np
from ..ops._threads import ranges, run_parts, split_count

WARM_ELEMENTS = 1 << 31
"""Elements numpy gives a bias and relu before numba is imported for this
loop alone (about half a second of numpy's two passes, about what
importing numba takes)."""

WARM_LOADED = 1 << 25
"""The same where numba is imported already (by another loop): about 10 ms
of numpy's work, what loading this loop from numba's cache takes."""

MIN_PLANE = 4
"""Elements per channel and image below which numpy's passes stay: the
loop's work per plane outweighs a short one (a dense layer's output, one
element per channel and row, took the loop 2x to 6x longer; 2x2 planes
already take it 20 % less)."""


def run(x: Any, bias: Any, axis: int) -> bool:
    """relu(x + bias along `axis`) into x by the compiled loop, if it is
    loaded and x suits it (float32 or float64, C-contiguous, one bias per
    channel, MIN_PLANE elements per channel and image at least); False
    where numpy must do it."""
    if x.dtype not in (np.float32, np.float64) or not x.flags.c_contiguous or not x.flags.writeable:
        return False
    channels = x.shape[axis]
    if bias.dtype != x.dtype or bias.size != channels or x.size == 0:
        return False
    outer = math.prod(x.shape[:axis])
    if x.size < MIN_PLANE * outer * channels:
        return False
    loop = LOOP.after(x.size)
    if loop is None:
        return False
    planes = x.reshape(outer, channels, -1)
    vector = plain(np.ascontiguousarray(bias.reshape(-1)))
    count = outer * channels
    pieces = min(split_count(x.size), count)
    run_parts(loop, [(planes, vector, lo, hi) for lo, hi in ranges(count, pieces)])
    return True


def _checked() -> Any:
    """The compiled loop, if it gives the bits numpy's add and maximum give:
    values of every sign and size, -0.0, infinities and NaN, in float32 and
    float64, with an outer axis and without."""
    from ._bias_relu_loop import bias_relu_planes

    rng = np.random.default_rng(5)
    for dtype in (np.float32, np.float64):
        for shape, axis in (((2, 3, 5, 7), 1), ((4, 6), 1), ((3, 1, 9), 1), ((6, 5), 0)):
            x = (rng.standard_normal(shape) * 4).astype(dtype)
            flat = x.reshape(-1)
            specials = np.array([np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-45, -1e-45], dtype=dtype)
            flat[: min(flat.size, specials.size)] = specials[: min(flat.size, specials.size)]
            b = (rng.standard_normal(shape[axis]) * 2).astype(dtype)
            b[0] = -0.0
            shaped = b.reshape(tuple(-1 if i == axis else 1 for i in range(x.ndim)))
            with np.errstate(all="ignore"):
                want = np.maximum(x + shaped, np.zeros((), dtype=dtype))
            outer = math.prod(shape[:axis])
            got = x.copy()
            bias_relu_planes(got.reshape(outer, shape[axis], -1), b, 0, outer * shape[axis])
            if got.tobytes() != want.tobytes():
                return None
    return bias_relu_planes


LOOP: Compiled[Any] = Compiled(_checked, warm=WARM_ELEMENTS, warm_loaded=WARM_LOADED)
"""The compiled loop of the process (numba's dispatcher carries no static types)."""
