"""`relay run --output-format json` of large tensors: MB/s and memory.

    python benchmarks/json_output.py [--repeat N]

Writes, through `write_value_json` (what the CLI streams to standard
output), a 32 MB float32 tensor (8,388,608 standard-normal elements, shape
(8, 1024, 1024)) and a 1M-element int64 tensor (values in [-10**6, 10**6)),
to a writer that only counts characters. Prints MB/s of tensor data (target
>= 50 MB/s), best and median of --repeat runs, MB per CPU-second, the largest memory the
writer allocated at once (tracemalloc, in one extra run) against the
tensor's size, the element-by-element rate it replaces (on a slice), the
thread count (float32 blocks are computed in pieces on up to
`numbers.THREADS` threads: all cores, at most 4; `--threads N` sets it)
and the load average. Where numba is installed (the `fast` extra) the
float32 tensor is written by the compiled loop (`relay_text/eval/numbers_jit.py`);
`--numpy` measures the numpy path instead.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import tracemalloc

from _common import ROOT  # noqa: F401  (puts the repository on sys.path)


class Count:
    def __init__(self) -> None:
        self.chars = 0

    def write(self, text: str) -> None:
        self.chars += len(text)


def measure(name: str, value, repeat: int) -> None:
    from relay_text.eval.show import write_value_json

    mb = value.nbytes / 1e6
    times = []
    cpu = []
    for _ in range(repeat):
        out = Count()
        start, start_cpu = time.perf_counter(), time.process_time()
        write_value_json(value, out.write)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    tracemalloc.start()
    write_value_json(value, Count().write)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    best, median = min(times), statistics.median(times)
    print(
        f"{name:28s} {mb:6.1f} MB -> {out.chars / 1e6:6.1f} M chars: {mb / best:6.1f} MB/s best, "
        f"{mb / median:6.1f} median  (target >= 50: {'pass' if mb / best >= 50 else 'miss'}, "
        f"load {os.getloadavg()[0]:.2f}); peak memory {peak / 1e6:.1f} MB = {peak / value.nbytes:.2f}x the tensor"
    )
    print(
        f"{'':28s} {mb / min(cpu):6.1f} MB per CPU-second (all threads; what a shared machine's load does not change)"
    )


def _float32_path(numpy_only: bool) -> str:
    """Which float32 writer runs (and, for the compiled one, its load time)."""
    from relay_text.compiled import Compiled
    from relay_text.eval import numbers_jit

    if numpy_only:
        numbers_jit.KERNEL = Compiled.decided(None)
        return "numpy (--numpy)"
    start = time.perf_counter()
    if not numbers_jit.available():
        return "numpy (the compiled loop needs the `fast` extra: pip install numba)"
    import numba

    return (
        f"compiled (numba {numba.__version__}; import and load {time.perf_counter() - start:.2f} s, "
        "a first compile takes seconds more)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="threads for float32 blocks (default: numbers.THREADS)")
    parser.add_argument(
        "--numpy", action="store_true", help="the numpy path for float32 even where the compiled one is available"
    )
    options = parser.parse_args()

    import numpy as np

    from relay_text.eval import numbers

    rng = np.random.default_rng(0)
    floats = rng.standard_normal((8, 1024, 1024), dtype=np.float32)
    ints = rng.integers(-(10**6), 10**6, size=1_000_000, dtype=np.int64)
    if options.threads:
        numbers.THREADS = options.threads
    print(f"threads: {numbers.THREADS} for float32 pieces (integers: 1); {os.cpu_count()} cores")
    print(f"float32 path: {_float32_path(options.numpy)}")
    measure("float32 (8, 1024, 1024)", floats, options.repeat)
    measure("int64 (1000000,)", ints, options.repeat)
    piece = floats.ravel()[:200_000]
    start = time.perf_counter()
    numbers._slow_block(piece)
    slow = time.perf_counter() - start
    print(f"element by element (before):  {piece.nbytes / 1e6 / slow:6.1f} MB/s of float32")
    print(f"load average while measuring:  {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
