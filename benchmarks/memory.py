"""Peak memory of `relay check`, `relay fmt` and `relay run` on the largest
corpus files and on a generated program of about 5 MB.

    python benchmarks/memory.py [--size-mb 5] [--no-run]

Each command runs in a process of its own; its peak resident memory
(getrusage of that child) and wall time are printed, with the peak per
byte of input. Without the shared corpus only the generated program is
measured.

Target (the generated program of 5 MB, one function of ~70,000 bindings):
`relay check` and `relay fmt --check` each peak below 300 MB (300e6 bytes);
each of those rows prints its target and whether it is met.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import graph_dump

ROOT = Path(__file__).resolve().parents[1]
TARGET_BYTES = 300e6  # peak of `check` and `fmt --check` on the generated program (at 5 MB)
TARGETED = ("check", "fmt-ck")
CORPUS = ROOT.parent / "shared" / "corpus"

_MEASURE = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps([done.returncode, peak, seconds, done.stderr[-300:]]))
"""


def measure(args: list[str]) -> tuple[int, int, float, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, sys.executable, "-m", "relay_text", *args],
        capture_output=True,
        text=True,
        env=env,
    )
    code, peak, seconds, err = json.loads(out.stdout)
    return code, peak, seconds, err


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=float, default=5.0)
    parser.add_argument("--no-run", action="store_true", help="measure check and fmt only")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    head = f"{'file':<40} {'bytes':>10} {'command':<6} {'peak MiB':>9} {'B/input B':>10} {'seconds':>8}"
    print(f"{head} {'status':>6}  target")
    with tempfile.TemporaryDirectory() as tmp:
        files = sorted(CORPUS.glob("*.rly"), key=lambda p: -p.stat().st_size)[:3] if CORPUS.is_dir() else []
        big = Path(tmp) / f"generated-{args.size_mb:g}MB.rly"
        big.write_text(graph_dump(int(args.size_mb * 1e6)))
        for path in [*files, big]:
            copy = Path(tmp) / f"copy-{path.name}"
            shutil.copyfile(path, copy)
            commands = {
                "check": ["check", str(path)],
                "fmt": ["fmt", str(copy)],
                "fmt-ck": ["fmt", "--check", str(path)],
                "run": ["run", "--random-args", "--random-consts", str(path)],
            }
            if args.no_run:
                del commands["run"]
            for name, command in commands.items():
                code, peak, seconds, err = measure(command)
                size = path.stat().st_size
                target = ""
                if path is big and name in TARGETED:
                    met = "pass" if peak < TARGET_BYTES else "MISS"
                    target = f"  < {TARGET_BYTES / 2**20:.0f} MiB (300 MB): {met}"
                print(
                    f"{path.name[:40]:<40} {size:>10,} {name:<6} {peak / 2**20:>9.0f} {peak / size:>10.0f} "
                    f"{seconds:>8.1f} {code:>6}{target}"
                )
                if code not in (0, 1):
                    print(f"    {err.strip().splitlines()[-1] if err.strip() else ''}")


if __name__ == "__main__":
    main()
