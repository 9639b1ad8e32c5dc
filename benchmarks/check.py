"""How long type checking takes, and how it scales.

    python benchmarks/check.py [--corpus DIR] [--repeat N]

Prints, for generated programs of 10^3, 10^4 and 10^5 bindings in two
styles (graph bindings `%n = add(%n-1, %x)` and nested `let`s), the time to
type-check (parsing excluded, CPU time, best of N) and the scaling exponent
fitted on the three sizes (1.0 is linear; the target is <= 1.1); then the
time to check each file of the corpus; then the wall time of `relay check`
on a 20-line file as a user runs it (target <= 0.15 s).
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

os.environ["RELAY_NO_CACHE"] = "1"  # (every run does its work: relay_text/cache.py)

from relay_text.check import check_module  # noqa: E402
from relay_text.syntax.parser import parse  # noqa: E402

SIZES = (1_000, 10_000, 100_000)


def graph_program(n: int) -> str:
    body = "".join(f"  %{i + 1} = add(%{i}, %x);\n" for i in range(1, n))
    return f"def @main(%x: Tensor[(4), float32]) {{\n  %1 = nn.relu(%x);\n{body}  %{n}\n}}\n"


def let_program(n: int) -> str:
    body = "".join(f"  let %v{i + 1} = multiply(%v{i}, 2f);\n" for i in range(n))
    return f"def @main(%v0: Tensor[(2, 2), float32]) {{\n{body}  %v{n}\n}}\n"


def time_check(text: str, repeat: int) -> float:
    parsed = parse(text)
    assert parsed.ok, parsed.diagnostics[:1]
    best = math.inf
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        result = check_module(parsed.module)
        best = min(best, time.process_time() - start)
        assert not [d for d in result.diagnostics if d.is_error], result.diagnostics[:1]
    return best


def exponent(sizes: tuple[int, ...], times: list[float]) -> float:
    xs = [math.log(n) for n in sizes]
    ys = [math.log(t) for t in times]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=False)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    print(f"type checking generated programs (CPU seconds, best of {args.repeat}; parsing excluded)")
    for style, make in (("graph bindings", graph_program), ("nested lets", let_program)):
        times = []
        for n in SIZES:
            t = time_check(make(n), args.repeat)
            times.append(t)
            print(f"  {style:15} {n:>7} bindings  {t:8.3f} s  {t / n * 1e6:7.1f} us/binding")
        k = exponent(SIZES, times)
        print(f"  {style:15} scaling exponent {k:.2f} (target <= 1.1: {'ok' if k <= 1.1 else 'MISSED'})")

    corpus = Path(args.corpus)
    files = sorted(corpus.glob("*.rly")) if corpus.is_dir() else []
    if files:
        print(f"\ncorpus ({corpus})")
        for path in files:
            text = path.read_text()
            parsed = parse(text, path.name)
            start = time.process_time()
            result = check_module(parsed.module)
            t = time.process_time() - start
            errors = sum(1 for d in result.diagnostics if d.is_error)
            lines = text.count("\n")
            print(f"  {path.name:48} {lines:5} lines  {t:7.3f} s  {errors} error(s)")
    else:
        print(f"\ncorpus: {corpus} not found (pass --corpus DIR)")

    small = "\n".join(
        ["def @main(%x : Tensor[(4, 4), float32], %w : Tensor[(8, 4), float32]) {"]
        + [f"  %{i} = add(%{i - 1}, 1f);" if i else "  %0 = nn.dense(%x, %w);" for i in range(18)]
        + ["  %17", "}"]
    )
    with tempfile.NamedTemporaryFile("w", suffix=".rly", delete=False) as f:
        f.write(small + "\n")
    relay = Path(sys.executable).with_name("relay")
    cmd = [str(relay), "check", f.name] if relay.exists() else [sys.executable, "-m", "relay_text.cli", "check", f.name]
    subprocess.run(cmd, capture_output=True)  # warm the grammar cache
    walls, cpus = [], []
    for _ in range(5):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    best = min(walls)
    print(
        f"\n`relay check` on a 20-line file: {best:.3f} s wall, {min(cpus):.3f} s CPU "
        f"(best of 5; target <= 0.15 s wall: {'ok' if best <= 0.15 else 'MISSED'}; "
        f"{os.getloadavg()[0]:.1f} load on {os.cpu_count()} CPUs)"
    )


if __name__ == "__main__":
    main()
