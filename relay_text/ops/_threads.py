"""The kernel threads: a small pool on which large kernel steps run in pieces.

numpy releases the GIL inside copies, ufunc loops and BLAS calls, so large
serial steps (padding, im2col, depthwise taps, softmax rows, elementwise
steps and their in-place chains) can be split across a few threads, as
PyTorch spreads its kernels over its intra-op threads. The pool has as many
threads as BLAS may use (RELAY_NUM_THREADS, else OMP_NUM_THREADS /
OPENBLAS_NUM_THREADS / MKL_NUM_THREADS when set, else the usable cores, at
most 4); the calling thread is one of them, so with one thread everything
runs on the caller and no pool is made.

Every user of the pool splits a step the same way: `split_count` pieces
(one per `PARALLEL_MIN` elements, at most one per thread), cut along the
first axis long enough (`split_axis`) into near-equal `ranges`, and
`run_parts` computes them. Each element is computed by the same numpy call
on the same operands as without the split, so the results keep their bits.
"""

from __future__ import annotations

import os
import threading
from typing import Any
from collections.abc import Callable

from ._np import np
from .types import Shape

PARALLEL_MIN = 1 << 18
"""Elements per piece below which splitting costs more than it saves (a task must wait for a core)."""

THREAD_VARIABLES = ("RELAY_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
"""The environment variables that set the thread count, the first one set winning."""

_POOLS: dict[int, Any] = {}  # thread count -> ThreadPoolExecutor of count - 1 threads
_POOL_LOCK = threading.Lock()


def thread_count() -> int:
    """The kernel threads a step may use, the calling thread included (1 to 64)."""
    for var in THREAD_VARIABLES:
        value = os.environ.get(var, "").strip()
        if value.isdigit() and int(value) > 0:
            return min(int(value), 64)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, 4))


def _pool() -> Any:
    n = thread_count()
    if n <= 1:
        return None
    pool = _POOLS.get(n)
    if pool is None:
        with _POOL_LOCK:
            pool = _POOLS.get(n)
            if pool is None:
                from concurrent.futures import ThreadPoolExecutor

                pool = _POOLS[n] = ThreadPoolExecutor(n - 1, thread_name_prefix="relay-kernel")
    return pool


def run_parts(fn: Callable[..., Any], parts: list[tuple[Any, ...]]) -> None:
    """Call `fn(*part)` for every part, the parts spread over the pool (the
    calling thread takes the last); exceptions are re-raised."""
    pool = _pool() if len(parts) > 1 else None
    if pool is None:
        for part in parts:
            fn(*part)
        return
    # numpy's floating-point error handling is per thread: the pool's
    # threads take the caller's (a run ignores overflow in `exp`; a warning
    # from another thread would reach the user with numpy's file and line)
    state = np.geterr()
    futures = [pool.submit(_with_errstate, state, fn, part) for part in parts[:-1]]
    try:
        fn(*parts[-1])
    finally:
        for f in futures:
            f.result()


def _with_errstate(state: dict[str, str], fn: Callable[..., Any], part: tuple[Any, ...]) -> Any:
    with np.errstate(**state):
        return fn(*part)


def split_count(size: int) -> int:
    """How many pieces a step over `size` elements is split into."""
    if size < PARALLEL_MIN:
        return 1
    return min(thread_count(), max(1, size // PARALLEL_MIN))


def split_axis(shape: Shape, pieces: int) -> int | None:
    """The first axis long enough to cut into `pieces`, or None."""
    for axis, d in enumerate(shape):
        if d >= pieces:
            return axis
    return None


def ranges(n: int, pieces: int) -> list[tuple[int, int]]:
    """[0, n) cut into `pieces` consecutive ranges whose lengths differ by at most one (empty ones left out)."""
    step, extra = divmod(n, pieces)
    out = []
    start = 0
    for i in range(pieces):
        stop = start + step + (1 if i < extra else 0)
        if stop > start:
            out.append((start, stop))
        start = stop
    return out


def parallel_copy(dst: Any, src: Any) -> None:
    """`dst[...] = src` (same shapes), split across the pool when large."""
    pieces = split_count(dst.size)
    axis = split_axis(dst.shape, pieces) if pieces > 1 else None
    if axis is None:
        np.copyto(dst, src)
        return
    index = (slice(None),) * axis
    windows = [(*index, slice(a, b)) for a, b in ranges(dst.shape[axis], pieces)]
    run_parts(np.copyto, [(dst[w], src[w]) for w in windows])
