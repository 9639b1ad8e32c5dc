"""float32 tensors as JSON text, compiled: the optional fast path of `numbers`.

With the `fast` extra (`pip install "relay-text[fast]"`, which adds numba)
the text of a large float32 block is written by one compiled loop instead
of numpy's array passes: each element's digits are decided exactly as
`numbers._fractional` decides them (the same float64 operations, one
element at a time, so the same decisions and the same elements left to
numpy's `str`), and written with its separators straight into a byte
buffer. Without numba, `available()` is False and `numbers` keeps its numpy
path; the tests compare the two texts on every class of float32.

The loop is compiled on first use (a few seconds, once: numba caches the
machine code on disk where it can write, and loading it takes about 0.2 s
with numba's import), so tensors below `MIN_ELEMENTS` keep the numpy path.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compiled import Compiled, plain

MIN_ELEMENTS = 1 << 21
"""Tensors smaller than this keep the numpy path: below, it takes less time
(a fraction of a second) than loading the compiled loop does."""

# Bytes an element's text takes at most: "-1.23456789e-45" (15) or
# "-0.000123456789" (15), rounded up.
TEXT_BYTES = 16


def _checked() -> Any:
    """The compiled loop, if it writes a small block as the numpy path does."""
    from .numbers import _float32_block

    probe = np.array([[0.1, -2.5e-7, 3.0, 1e30], [-0.0, 65504.0, np.inf, 1e-45]], dtype=np.float32)
    kernel = _compile()
    return kernel if _text(kernel, probe) == _float32_block(probe) else None


KERNEL: Compiled[Any] = Compiled(_checked)
"""The compiled loop of the process (numba's dispatcher carries no static types)."""


def available() -> bool:
    """Whether the compiled path can be used: numba imports, and the loop
    compiles (or loads from numba's cache) and writes a small block as the
    numpy path does. Decided once per process."""
    return KERNEL.available()


def block_text(arr: np.ndarray) -> str:
    """The nested-list text of a float32 array (`available()` must be True)."""
    return _text(KERNEL.get(), arr)


def _text(kernel: Any, arr: np.ndarray) -> str:
    """The text by `kernel`, in as many pieces as `numbers` has threads; the
    few elements the loop leaves to numpy are written by `float_text` in
    their places."""
    from .numbers import THREADS, _pool, float_text

    flat = plain(np.ascontiguousarray(arr).ravel())
    bits = flat.view(np.uint32)
    n = flat.size
    width = TEXT_BYTES + 2 * arr.ndim + 2
    blocks = np.cumprod(np.array(arr.shape[::-1], dtype=np.int64))[:-1]  # inner block sizes, innermost first
    step = -(-n // max(1, THREADS))

    def piece(i: int) -> bytes:
        j = min(i + step, n)
        out = np.empty((j - i) * width, dtype=np.uint8)
        slow = np.empty((j - i, 2), dtype=np.int64)
        used, count = kernel(bits, flat, i, j, n, arr.ndim, blocks, out, slow)
        if not count:
            return out[:used].tobytes()
        parts = []
        at = 0
        for index, position in slow[:count].tolist():
            parts.append(out[at:position].tobytes())
            with np.errstate(all="ignore"):  # (signalling NaNs)
                parts.append(float_text(flat[index]).encode("ascii"))
            at = position
        parts.append(out[at:used].tobytes())
        return b"".join(parts)

    starts = range(0, n, step)
    pieces = list(_pool().map(piece, starts)) if len(starts) > 1 else [piece(0)]
    return "[" * arr.ndim + b"".join(pieces).decode("ascii")


def _compile() -> Any:
    from .numbers_loop import piece

    return piece
