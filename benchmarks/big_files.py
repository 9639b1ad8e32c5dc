"""Throughput and peak memory of parsing, `relay check` and `relay fmt` on
a big TVM-format dump.

    python benchmarks/big_files.py [--size-mb 5] [--only parse,check,fmt] [--no-comments-only] [--phases]

The dump is `_common.model_dump`: the corpus models' definitions repeated
and renamed until the file has the size asked for, once with their
comments (`/* ty=... */` annotations, `//` lines) and once without. Each
measurement runs in a process of its own:

- parse: `relay_text.syntax.parser.parse` of the text (read beforehand,
  the grammar's tables loaded beforehand);
- check: `relay check FILE`, as a user runs it;
- fmt: `relay fmt --check FILE` (formats in memory with the safety check:
  the output parsed again, compared with the input as a program and by its
  comments, and formatted again to a fixed point).

These run with the cache off (`RELAY_NO_CACHE=1`, see `_common.py`). One
more line per dump gives `relay check` run again on the unchanged file with
the cache on, as a user's second run is: the file is read and hashed, not
parsed.

Each line gives the wall time and the CPU time of the process (on a
loaded machine the wall time includes waiting for a core; the CPU time
is the work done), MB/s of input by each, the peak resident memory of the
process per input byte, the targets and whether they are met (by CPU
time), and the load average before and after.

Targets: parse >= 3 MB/s, check >= 2 MB/s, fmt with its safety check
>= 1 MB/s, each with a peak of <= 60 bytes of memory per input byte.

`--phases` also times, in one process on the first dump, the
phases `check` and `fmt` are made of (CPU seconds of each, MB/s of input):
parsing, type checking, printing, parsing the printed text, comparing the
two programs, and printing the printed program again (the fixed-point
check). For each command it prints the sum of its phases, the time its
target allows, and how many times faster the phases would have to be.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import ROOT, model_dump

TARGETS = {"parse": 3.0, "check": 2.0, "fmt": 1.0}  # MB/s
MEMORY_TARGET = 60  # peak bytes per input byte

# Runs a command in a child process and prints [status, peak bytes, wall
# seconds, CPU seconds, end of stderr] of that child.
_MEASURE = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps([done.returncode, usage.ru_maxrss * 1024, wall, usage.ru_utime + usage.ru_stime, done.stderr[-400:]]))
"""

# Parsing alone: the text is read and the tables are loaded before the
# clock starts; prints [wall, CPU] seconds of the parse.
_PARSE = """
import json, sys, time
from relay_text.syntax.parser import parse
text = open(sys.argv[1], encoding="utf-8").read()
parse("def @f() { 1 }")
wall, cpu = time.perf_counter(), time.process_time()
result = parse(text, sys.argv[1])
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
assert result.ok, result.diagnostics[:1]
print(json.dumps([wall, cpu]))
"""


# The phases of `check` (parse, typecheck) and of `fmt --check` (parse,
# print, parse the output, compare, print again), timed one after the
# other in one process; prints {phase: CPU seconds}.
_PHASES = """
import gc, json, sys, time
from relay_text.check import check_module
from relay_text.formatter import target_dialect
from relay_text.ir.alpha import alpha_equal_module
from relay_text.ir.span import Source
from relay_text.printer.comments import attach
from relay_text.printer.dialects import header_for
from relay_text.printer.render import render_module
from relay_text.syntax.parser import parse_source
text = open(sys.argv[1], encoding="utf-8").read()
parse_source(Source("warm", "def @f() { 1 }"))
gc.disable()  # (as the commands run these phases)
seconds = {}
def timed(name, fn):
    start = time.process_time()
    value = fn()
    seconds[name] = time.process_time() - start
    return value
module = timed("parse", lambda: parse_source(Source(sys.argv[1], text)).module)
timed("typecheck", lambda: check_module(module, None))
module = parse_source(Source(sys.argv[1], text)).module  # (unchecked, as fmt prints it)
target = target_dialect(module, "keep")
header = header_for(module, target, keep=True)
printed = timed("print", lambda: render_module(module, target, 100, attach(module), header).text)
again = timed("parse output", lambda: parse_source(Source("printed", printed)).module)
same = timed("compare", lambda: alpha_equal_module(module, again))
assert same, "the printed program differs"
second = timed("print again", lambda: render_module(again, target, 100, attach(again)).text)
assert second == printed, "printing is not at a fixed point"
print(json.dumps(seconds))
"""

PHASES_OF = {"check": ("parse", "typecheck"), "fmt": ("parse", "print", "parse output", "compare", "print again")}


def phases(path: Path, label: str) -> None:
    """Prints the CPU time of each phase of `check` and `fmt` on `path`
    and how far their sums are from the targets (see `--phases`)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    load = os.getloadavg()[0]
    done = subprocess.run([sys.executable, "-c", _PHASES, str(path)], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"timing the phases failed:\n{done.stderr[-2000:]}")
    seconds = json.loads(done.stdout)
    mb = path.stat().st_size / 1e6
    loads = f"load {load:.2f} -> {os.getloadavg()[0]:.2f}"
    print(f"phases of check and fmt on the dump {label} ({mb:.2f} MB; CPU seconds; {loads}):")
    for name, s in seconds.items():
        print(f"  {name:<13} {s:>6.2f} s {mb / s:>6.2f} MB/s")
    for command, names in PHASES_OF.items():
        total = sum(seconds[n] for n in names)
        allowed = mb / TARGETS[command]
        print(
            f"  {command}: its phases take {total:.2f} s, its target (>= {TARGETS[command]:g} MB/s) allows "
            f"{allowed:.2f} s: {total / allowed:.1f}x too slow"
            if total > allowed
            else f"  {command}: its phases take {total:.2f} s, within the {allowed:.2f} s its target allows"
        )


def measure(args: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    load = os.getloadavg()[0]
    out = subprocess.run([sys.executable, "-c", _MEASURE, *args], capture_output=True, text=True, env=env)
    code, peak, wall, cpu, err = json.loads(out.stdout)
    return {"code": code, "peak": peak, "wall": wall, "cpu": cpu, "err": err, "load": (load, os.getloadavg()[0])}


def cached_check(path: Path, folder: Path) -> dict:
    """`relay check FILE` a second time with the cache on: the file is
    read and its digest compared, nothing parsed (relay_text/cache.py)."""
    saved = os.environ.pop("RELAY_NO_CACHE", None)
    os.environ["RELAY_CACHE_DIR"] = str(folder)
    try:
        command = [sys.executable, "-m", "relay_text", "check", str(path)]
        subprocess.run(command, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
        return measure(command)
    finally:
        if saved is not None:
            os.environ["RELAY_NO_CACHE"] = saved


def run(what: str, path: Path) -> dict:
    if what == "parse":
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        probe = subprocess.run([sys.executable, "-c", _PARSE, str(path)], capture_output=True, text=True, env=env)
        if probe.returncode != 0:
            raise SystemExit(f"parsing {path} failed:\n{probe.stderr[-2000:]}")
        wall, cpu = json.loads(probe.stdout)
        # the peak of the same process (its start-up and reading included)
        outcome = measure([sys.executable, "-c", _PARSE, str(path)])
        outcome.update(wall=wall, cpu=cpu)
        return outcome
    command = {"check": ["check", str(path)], "fmt": ["fmt", "--check", str(path)]}[what]
    outcome = measure([sys.executable, "-m", "relay_text", *command])
    if outcome["code"] not in (0, 1):
        raise SystemExit(f"relay {' '.join(command)} failed with status {outcome['code']}:\n{outcome['err']}")
    return outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=float, default=5.0, help="size of the generated dump (default 5)")
    parser.add_argument("--only", default="parse,check,fmt", help="comma-separated: parse, check, fmt")
    parser.add_argument("--no-comments-only", action="store_true", help="measure the dump without comments only")
    parser.add_argument("--phases", action="store_true", help="also time the phases of check and fmt (see above)")
    args = parser.parse_args()
    stages = [s for s in args.only.split(",") if s]
    for s in stages:
        if s not in TARGETS:
            parser.error(f"unknown stage {s!r} (parse, check, fmt)")
    print(f"big files: a {args.size_mb:g} MB dump of the corpus models; {os.cpu_count()} cores")
    print(
        f"{'input':<14} {'stage':<6} {'wall s':>7} {'cpu s':>7} {'MB/s wall':>9} {'MB/s cpu':>9} "
        f"{'target':>7} {'':>4} {'peak MiB':>8} {'B/B':>5} {'':>4}  load"
    )
    misses = 0
    with tempfile.TemporaryDirectory() as tmp:
        variants = [("no comments", False)] if args.no_comments_only else [("comments", True), ("no comments", False)]
        for label, comments in variants:
            path = Path(tmp) / f"dump-{'c' if comments else 'n'}.rly"
            path.write_text(model_dump(int(args.size_mb * 1e6), comments=comments), encoding="utf-8")
            size = path.stat().st_size
            mb = size / 1e6
            for stage in stages:
                r = run(stage, path)
                speed_wall, speed_cpu = mb / r["wall"], mb / r["cpu"]
                per_byte = r["peak"] / size
                fast = speed_cpu >= TARGETS[stage]
                lean = per_byte <= MEMORY_TARGET
                misses += (not fast) + (not lean)
                print(
                    f"{label:<14} {stage:<6} {r['wall']:>7.2f} {r['cpu']:>7.2f} {speed_wall:>9.2f} {speed_cpu:>9.2f} "
                    f"{'>=' + format(TARGETS[stage], 'g'):>7} {'ok' if fast else 'MISS':>4} "
                    f"{r['peak'] / 2**20:>8.0f} {per_byte:>5.0f} {'ok' if lean else 'MISS':>4}  "
                    f"{r['load'][0]:.2f} -> {r['load'][1]:.2f}",
                    flush=True,
                )
            if args.phases and label == variants[0][0]:
                phases(path, f"with {label}" if comments else "without comments")
            if "check" in stages:
                r = cached_check(path, Path(tmp) / "cache")
                print(
                    f"{label:<14} {'check, unchanged since a clean run (cache)':<44} "
                    f"{r['wall']:>7.2f} {r['cpu']:>7.2f} s  {r['peak'] / 2**20:.0f} MiB  "
                    f"{r['load'][0]:.2f} -> {r['load'][1]:.2f}",
                    flush=True,
                )
    print(f"memory target: peak <= {MEMORY_TARGET} B per input byte (B/B; the interpreter's own ~40 MiB included)")
    print(f"{misses} target(s) missed" if misses else "every target met")


if __name__ == "__main__":
    main()
