"""How soon `relay run --timeout` stops a run after its deadline.

    python benchmarks/deadline.py [--timeout 2]

Runs three programs that would go on far past the deadline: five
6000x6000 `nn.dense` (numpy's BLAS, which releases the GIL: a signal
handler waits for each product), a runaway recursion (a billion calls; its
unwinding took 15-30 s), and a 3-D convolution in a loop. For each, the
latency is the time from the deadline to the end of the process, measured
by the command itself (`RELAY_DEADLINE_LOG=FILE` makes the watchdog note
when it fired) and by this script (the process's end). The target is under
0.5 s.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROGRAMS = {
    "nn.dense 6000x6000 x5": """\
def @main() {
  %0 = ones(shape=[6000, 6000], dtype="float32");
  %1 = nn.dense(%0, %0);
  %2 = nn.dense(%1, %0);
  %3 = nn.dense(%2, %0);
  %4 = nn.dense(%3, %0);
  sum(nn.dense(%4, %0))
}
""",
    "recursion 10^9 calls": """\
def @f(%n: int32) -> int32 { if (%n == 0) { 0 } else { @f(%n - 1) + 1 } }
def @main() { @f(1000000000) }
""",
    "conv3d in a loop": """\
def @loop(%i: int32, %x: Tensor[(1, 16, 64, 64, 64), float32], %w: Tensor[(16, 16, 3, 3, 3), float32]) -> float32 {
  if (%i == 0) { sum(%x) } else { @loop(%i - 1, nn.conv3d(%x, %w, padding=[1, 1, 1, 1, 1, 1]), %w) }
}
def @main(%x: Tensor[(1, 16, 64, 64, 64), float32], %w: Tensor[(16, 16, 3, 3, 3), float32]) { @loop(1000, %x, %w) }
""",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timeout", type=float, default=2.0)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; --timeout {args.timeout:g}")
    print(f"{'program':<24} {'fired after s':>14} {'exit after deadline s':>22} {'status':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in PROGRAMS.items():
            prog = Path(tmp) / "p.rly"
            prog.write_text(text)
            log = Path(tmp) / "deadline.log"
            env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "RELAY_DEADLINE_LOG": str(log)}
            cmd = [
                sys.executable,
                "-m",
                "relay_text",
                "run",
                "--random-args",
                "--max-depth",
                "2000000000",
                "--timeout",
                str(args.timeout),
                str(prog),
            ]
            done = subprocess.run(cmd, capture_output=True, text=True, env=env)
            ended = time.time()
            started, fired = (float(v) for v in log.read_text().split())
            deadline = started + args.timeout
            print(f"{name:<24} {fired - started:>14.2f} {ended - deadline:>22.2f} {done.returncode:>7}")
            log.unlink()


if __name__ == "__main__":
    main()
