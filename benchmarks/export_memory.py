"""Peak memory of `relay export` against the size of the weights it writes.

    python benchmarks/export_memory.py [--model NAME]...

Each corpus model that carries weights (ResNet-50, the GPT-2 block) is
exported with `--random-consts`, once with its weights in the model and
once with `--external-data` (weights in `OUT.onnx.data`), each in a
process of its own. The line gives the wall time, the peak resident
memory of the process (its `VmHWM`, read by the child at exit), the peak
above a bare interpreter that imports the exporter, the bytes of weights
written, and their ratio.

Targets, for the peak above the interpreter per byte of weights: <= 4 with
the weights in the model (they exist as arrays, as the model, as its
serialized bytes and as the checker's copy, not all at once), <= 1.5 with
`--external-data` (the arrays, written to the file one at a time).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
MODELS = {"ResNet-50": "apache-tvm-menangerie-resnet50.rly", "GPT-2": "apache-tvm-menangerie-gpt2.rly"}
TARGETS = {"in the model": 4.0, "--external-data": 1.5}

# Runs `relay export` (or only its imports, with no arguments) in this
# process and prints [status, VmHWM bytes] at exit.
_CHILD = """
import atexit, json, sys
CODE = [0]
def report(code=CODE):
    peak = 0
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                peak = int(line.split()[1]) * 1024
    print(json.dumps([code[0], peak]), file=sys.__stderr__)
atexit.register(report)
import onnx, numpy
from relay_text.export import command
if len(sys.argv) > 1:
    from relay_text.cli import main
    try:
        CODE[0] = main(sys.argv[1:], standalone_mode=False) or 0
    except SystemExit as exc:
        CODE[0] = exc.code or 0
    except Exception:
        CODE[0] = 2
"""


def child(args: list[str]) -> tuple[int, float, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _CHILD, *args], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    code, peak = json.loads(done.stderr.strip().splitlines()[-1])
    return code, peak, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", action="append", choices=sorted(MODELS), help="a model (default: both)")
    options = parser.parse_args()
    names = options.model or list(MODELS)
    if not CORPUS.exists():
        print(f"the corpus is not at {CORPUS}")
        return
    _, base, _ = child([])
    print(f"relay export: peak memory per byte of weights; interpreter with the exporter: {base / 2**20:.0f} MiB")
    print(
        f"{'model':<10} {'weights':<16} {'wall s':>7} {'peak MiB':>9} {'above MiB':>10} {'weights MiB':>12} "
        f"{'ratio':>6}  target"
    )
    misses = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            for label, extra in (("in the model", []), ("--external-data", ["--external-data"])):
                out = Path(tmp) / f"{name}.onnx"
                args = ["export", str(CORPUS / MODELS[name]), "--random-consts", "-o", str(out), *extra]
                code, peak, wall = child(args)
                data = Path(str(out) + ".data")
                if code != 0 or not (data if extra else out).exists():
                    print(f"{name:<10} {label:<16} relay export failed (status {code})")
                    misses += 1
                    continue
                written = data.stat().st_size if extra else out.stat().st_size
                ratio = (peak - base) / written
                met = ratio <= TARGETS[label]
                misses += not met
                print(
                    f"{name:<10} {label:<16} {wall:>7.2f} {peak / 2**20:>9.0f} {(peak - base) / 2**20:>10.0f} "
                    f"{written / 2**20:>12.0f} {ratio:>6.2f}  <= {TARGETS[label]:g}: {'pass' if met else 'MISS'}",
                    flush=True,
                )
                out.unlink()
                if data.exists():
                    data.unlink()
    print(f"{misses} target(s) missed" if misses else "every target met")


if __name__ == "__main__":
    main()
