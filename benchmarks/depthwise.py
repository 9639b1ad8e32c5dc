"""The depthwise convolution kernel alone, on MobileNet's layers, against PyTorch at 1 and 2 threads.

    python benchmarks/depthwise.py [--repeat N] [--threads 1,2] [--clock cpu]

Every depthwise layer of the corpus MobileNet (3x3 window, padding 1,
groups equal to the channels; 13 layers, 9 distinct shapes) is run on
seeded random float32 data through the toolchain's numpy kernel
(`ops.nn._depthwise`), its compiled loop where numba is installed (the
`fast` extra; loaded up front, as a long run loads it) and
`torch.nn.functional.conv2d(..., groups=channels)`, interleaved so that
all see the same load. The table gives the best and the median of
`--repeat` runs, the ratio of the toolchain's faster path (the compiled
loop, else numpy) to PyTorch (target <= 1.0), whether it is
met and the load average; the last line sums the 13 layers (a shape that
occurs five times counts five times). Each thread count runs in a
subprocess with the thread variables set before numpy loads its BLAS
(and OPENBLAS_THREAD_TIMEOUT as the `relay` command sets it, unless set).
`--clock cpu` times by the process's CPU time (all threads) instead of
the elapsed time: steadier on a busy machine.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from functools import partial

from _common import ROOT

from relay_text.cli import BLAS_IDLE

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RELAY_NUM_THREADS")
# (channels, input height = width, stride, how many layers of MobileNet have this shape)
LAYERS = [
    (32, 112, 1, 1),
    (64, 112, 2, 1),
    (128, 56, 1, 1),
    (128, 56, 2, 1),
    (256, 28, 1, 1),
    (256, 28, 2, 1),
    (512, 14, 1, 5),
    (512, 14, 2, 1),
    (1024, 7, 1, 1),
]
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def worker(threads: int, repeat: int, clock_name: str) -> None:
    import numpy as np

    from relay_text.ops.nn import _depthwise

    try:
        import torch
    except ImportError:
        torch = None
    else:
        torch.set_num_threads(threads)
    clock = CLOCKS[clock_name]
    loop = _depthwise.LOOP.get()  # (loaded up front, as a long run loads it; None without numba)
    rng = np.random.default_rng(0)
    for c, hw, stride, count in LAYERS:
        x = rng.standard_normal((1, c, hw, hw)).astype(np.float32)
        w = rng.standard_normal((c, 1, 3, 3)).astype(np.float32)
        out_hw = ((hw - 1) // stride + 1,) * 2
        call = (x, (1, 1, 1, 1), w, out_hw, (stride, stride), (1, 1), np.float32)
        runs = {"numpy": partial(_depthwise._depthwise, *call, None)}
        if loop is not None:
            runs["compiled"] = partial(_depthwise._depthwise, *call, loop)
        if torch is not None:
            tx, tw = torch.from_numpy(x), torch.from_numpy(w)
            runs["torch"] = partial(torch.nn.functional.conv2d, tx, tw, stride=stride, padding=1, groups=c)
        record: dict = {"shape": [c, hw, stride, count], "threads": threads, "load": [os.getloadavg()[0]]}
        if torch is not None:
            want = runs["torch"]().numpy()
            record["difference"] = max(float(np.abs(fn() - want).max()) for name, fn in runs.items() if name != "torch")
        times: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(repeat):
            for name, fn in runs.items():
                gc.collect()
                start = clock()
                fn()
                times[name].append(clock() - start)
        for name, ts in times.items():
            record[name] = [min(ts), statistics.median(ts)]
        record["load"].append(os.getloadavg()[0])
        print("RECORD " + json.dumps(record), flush=True)


def _verdict(best: float, median: float) -> str:
    if best <= 1.0 and median <= 1.0:
        return "pass"
    return "best only" if best <= 1.0 else "miss"


def row(r: dict) -> str:
    c, hw, stride, count = r["shape"]
    layer = f"{c}x{hw}x{hw} s{stride}" + (f" (x{count})" if count > 1 else "")
    ours = r.get("compiled", r["numpy"])
    text = f"{layer:<20} {r['threads']:>3}  {r['numpy'][0] * 1e3:8.3f} ({r['numpy'][1] * 1e3:8.3f})"
    if "compiled" in r:
        text += f"  {ours[0] * 1e3:8.3f} ({ours[1] * 1e3:8.3f})"
    else:
        text += f"  {'(no numba)':>19}"
    if "torch" in r:
        ratio, med = ours[0] / r["torch"][0], ours[1] / r["torch"][1]
        text += f"  {r['torch'][0] * 1e3:8.3f} ({r['torch'][1] * 1e3:8.3f})  {ratio:5.2f} ({med:4.2f})"
        text += f"  {_verdict(ratio, med):>9}"
    else:
        text += f"  {'(no PyTorch)':>19}"
    return text + f"  {r['load'][0]:4.2f}-{r['load'][1]:4.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--threads", default="1,2", help="thread counts, comma-separated (default 1,2)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall", help="wall: elapsed time; cpu: CPU time")
    parser.add_argument("--worker", type=int, default=0, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.worker:
        worker(options.worker, options.repeat, options.clock)
        return
    print(f"{os.cpu_count()} cores; best and median of {options.repeat} interleaved runs; {options.clock} time")
    print(
        f"{'layer':<20} {'thr':>3}  {'numpy ms best (median)':>22}  {'compiled':>19}  {'PyTorch ms best (median)':>19}"
        f"  {'ratio':>12}  {'<= 1.0':>9}  {'load':>9}"
    )
    totals: dict[int, dict[str, list[float]]] = {}
    for threads in [int(t) for t in options.threads.split(",") if t.strip()]:
        env = {**os.environ, **dict.fromkeys(THREAD_VARS, str(threads))}
        env.setdefault(*BLAS_IDLE)  # as the `relay` command runs
        cmd = [sys.executable, __file__, "--worker", str(threads), "--repeat", str(options.repeat)]
        proc = subprocess.Popen([*cmd, "--clock", options.clock], env=env, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        assert proc.stdout is not None
        for line in proc.stdout:
            if not line.startswith("RECORD "):
                print(line, end="")
                continue
            r = json.loads(line[len("RECORD ") :])
            print(row(r), flush=True)
            total = totals.setdefault(threads, {})
            for name in ("numpy", "compiled", "torch"):
                if name in r:
                    sums = total.setdefault(name, [0.0, 0.0])
                    sums[0] += r[name][0] * r["shape"][3]
                    sums[1] += r[name][1] * r["shape"][3]
        if proc.wait() != 0:
            print(f"the worker for {threads} threads failed (status {proc.returncode})")
    for threads, total in totals.items():
        best, median = total["numpy"]
        text = f"all 13 layers at {threads} thread(s): numpy {best * 1e3:.2f} ({median * 1e3:.2f}) ms"
        ours = total.get("compiled", total["numpy"])
        if "compiled" in total:
            text += f", compiled {ours[0] * 1e3:.2f} ({ours[1] * 1e3:.2f}) ms"
        if "torch" in total:
            ratio = ours[0] / total["torch"][0]
            med = ours[1] / total["torch"][1]
            text += f", PyTorch {total['torch'][0] * 1e3:.2f} ({total['torch'][1] * 1e3:.2f}) ms, ratio {ratio:.2f}"
            text += f" ({med:.2f}) target <= 1.0: {_verdict(ratio, med)}"
        print(text + f"; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
