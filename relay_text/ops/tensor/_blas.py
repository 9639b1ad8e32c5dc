"""Matrix products for small operands: `x @ w.T` (a dense layer) tuned for
the shapes of batch-1 models, an LSTM step for instance.

Two things make numpy's BLAS (OpenBLAS in numpy's wheels) slow on a small
product such as (10, 256) @ (256, 512):

* it spreads every product above a quarter of a million multiply-adds over
  all its threads; for a product of a few dozen microseconds the threads'
  hand-over costs more than they save, and on a busy machine a thread that
  must wait for a core stalls the whole product (measured on 2 cores: the
  35 dense steps of the corpus LSTM took over 100 ms with two BLAS threads
  against 4 ms with one). So a product below `SMALL` multiply-adds runs with
  one BLAS thread, as PyTorch runs its small products;
* its kernels work on blocks of 16 rows of the left operand, so a left
  operand of a few rows wastes most of each block. With fewer than `FEW`
  rows and a wide right operand the product is computed transposed,
  `(w @ x.T).T`, which gives each result element the same sum in the same
  order (the rows of `w` meet the columns of `x.T` along the same axis);
  measured 1.3-1.4x faster for (10, 256) @ (256, 512).

A single row (a matrix-vector product) is left to numpy as it is: there
OpenBLAS's threads split each sum, so one thread would change its rounding.

The thread count is set through OpenBLAS's own functions, found among the
libraries loaded in the process (Linux); elsewhere, or with another BLAS,
the products simply run as numpy runs them.
"""

from __future__ import annotations

import threading
from typing import Any

from .._np import np

SMALL = 1 << 22
"""Multiply-adds below which a product runs on one BLAS thread."""

FEW = 16
"""Rows of the left operand below which a product is computed transposed."""

_BLAS: list[Any] = []  # [(set_num_threads, get_num_threads) or None], once looked up
_LOCK = threading.Lock()


def _find_openblas() -> tuple[Any, Any] | None:
    """OpenBLAS's set/get_num_threads in a library this process has loaded, or None."""
    import ctypes

    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower() and ".so" in line}
    except OSError:
        return None
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", ""):
                setter = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                getter = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                if setter is not None and getter is not None:
                    setter.argtypes, setter.restype = [ctypes.c_int], None
                    getter.argtypes, getter.restype = [], ctypes.c_int
                    return setter, getter
    return None


def _blas() -> tuple[Any, Any] | None:
    if not _BLAS:
        with _LOCK:
            if not _BLAS:
                np.matmul  # noqa: B018 - numpy (and its BLAS) must be loaded before the lookup
                _BLAS.append(_find_openblas())
    found: tuple[Any, Any] | None = _BLAS[0]
    return found


def _row_major(x: Any, w: Any) -> bool:
    return bool(x.flags.c_contiguous and w.flags.c_contiguous)


def _product(x: Any, w: Any) -> Any:
    # both row-major, as a dense layer's data and a weight made at run time
    # are: the transposed product then reads them as the plain one does (a
    # weight laid out column-major, see `DenseWeightLayout`, keeps numpy's order)
    if x.ndim == 2 and x.shape[0] < FEW <= w.shape[0] and x.dtype.char in "fd" and _row_major(x, w):
        return np.ascontiguousarray(np.matmul(w, x.T).T)
    return np.matmul(x, w.T)


def matmul_nt(x: Any, w: Any) -> Any:
    """x @ w.T for x (..., k) and w (n, k) of one dtype, as a new array."""
    if x.size * w.shape[0] >= SMALL or w.ndim != 2 or x.size == w.shape[1]:
        # a single row is a matrix-vector product, whose threaded kernel splits
        # the sums themselves: its thread count would change the last bits
        return np.matmul(x, w.T)
    blas = _blas()
    if blas is None:
        return _product(x, w)
    setter, getter = blas
    threads = getter()
    if threads <= 1:
        return _product(x, w)
    setter(1)
    try:
        return _product(x, w)
    finally:
        setter(threads)
