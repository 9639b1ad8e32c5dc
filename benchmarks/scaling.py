"""How every stage scales with the size of a program, construct by construct.

    python benchmarks/scaling.py [--n N] [--repeat R] [--only NAME,...]
                                 [--stages parse,check,print,fmt,run] [--budget SECONDS]

For each construct below, programs of n, 2n and 4n units (default
n = 25,000, so the largest has 10^5) go through each stage; the script
prints the three times and the exponent of their growth, from 2n to 4n
and (in brackets) fitted over the three sizes: 1.0 is linear, the target
is <= 1.15. The load average is printed on every line, since this machine
is shared.

    defs           n one-line top-level definitions (duplicate detection)
    lets           n nested lets (`let %x1 = add(%x0, 1); ...`)
    fns            n nested `fn`s (level adjustment in the checker)
    ifs            n nested `if`s (each in the `then` branch of the one before)
    matches        n nested `match`es on an Option value
    tuples         n nested tuples `((((%x, 1), 2), 3), ...)`
    calls          n nested calls of a global `@f(@f(@f(...)))`
    operator-chain `1 + 1 + ... + 1`: n operands
    curried-apps   `@id(@id)(@id)...(1)`: n applications of a call's result
    curried-calls  a function of n curried parameters applied n times `%f(0)(1)...`
    wide-data      one data type of n constructors
    else-if-chain  `if (...) {..} else if (...) {..} ...`: n branches
    wide-tuple     a tuple of n fields
    wide-match     a match of n clauses
    prelude-uses   n definitions, each calling the Prelude's `@map`

Stages: parse; check (without the parse); print (IR to text, comments
attached); fmt (parse + print + the safety checks, as `relay fmt` runs);
run (check, compile and evaluate, as `relay run` does). Times are CPU
seconds, best of `--repeat` (default 1), with the garbage collector
enabled as the commands have it. A stage that takes longer than
`--budget` seconds on a size is not timed on the larger ones (`>budget`).

The generators are plain functions of n (`CONSTRUCTS`), so tests can reuse
them.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import time
from pathlib import Path
from collections.abc import Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# ---------------------------------------------------------------- programs


def defs(n: int) -> str:
    lines = [f"def @f{i}(%x : int32) -> int32 {{ add(%x, {i % 7}) }}" for i in range(n)]
    lines.append(f"def @main() -> int32 {{ @f{n - 1}(1) }}")
    return "\n".join(lines) + "\n"


def lets(n: int) -> str:
    body = "".join(f"  let %x{i + 1} = add(%x{i}, 1);\n" for i in range(n))
    return f"def @main() -> int32 {{\n  let %x0 = 1;\n{body}  %x{n}\n}}\n"


def fns(n: int) -> str:
    """`fn (%a1) { fn (%a2) { ... add(%a{n-1}, %a{n}) } }`, the outermost applied once."""
    parts = "".join(f"fn (%a{i} : int32) {{\n" for i in range(1, n + 1))
    inner = f"add(%a{max(n - 1, 1)}, %a{n})\n"
    return "def @main() -> int32 {\n  let %f = " + parts + inner + "}\n" * n + ";\n  let %g = %f(1);\n  0\n}\n"


def ifs(n: int) -> str:
    opens = "".join(f"if (less(%x, {i})) {{\n" for i in range(n))
    closes = "} else {\n  %x\n}\n" * n
    return f"def @main() -> int32 {{\n  let %x = 1;\n{opens}  0\n{closes}}}\n"


def matches(n: int) -> str:
    """n nested matches on an Option, each in the `Some` clause of the one before."""
    opens = "".join(f"match (%o) {{\n  case Some(%v{i}) {{\n" for i in range(n))
    closes = "  }\n  case None { 0 }\n}\n" * n
    return (
        "data Option<a> {\n  None : () -> Option\n  Some : (a) -> Option\n}\n\n"
        f"def @main() -> int32 {{\n  let %o = Some(1);\n{opens}  %v{n - 1}\n{closes}}}\n"
    )


def tuples(n: int) -> str:
    return f"def @main() {{\n  let %x = 1;\n  {'(' * n}%x{''.join(f', {i % 10})' for i in range(n))}\n}}\n"


def calls(n: int) -> str:
    return f"def @f(%x : int32) -> int32 {{ add(%x, 1) }}\n\ndef @main() -> int32 {{\n  {'@f(' * n}1{')' * n}\n}}\n"


def operator_chain(n: int) -> str:
    return " + ".join(["1"] * n) + "\n"


def curried_applications(n: int) -> str:
    return "def @id<a>(%x: a) -> a { %x }\n" + "@id" + "(@id)" * (n - 1) + "(1)\n"


def curried_calls(n: int) -> str:
    """A function of n curried parameters (n nested `fn`s) applied to n arguments."""
    head = "".join(f"fn (%a{i}: int32) {{ " for i in range(n))
    return f"let %f = {head}%a{n - 1}{' }' * n};\n%f" + "".join(f"({i})" for i in range(n)) + "\n"


def wide_data(n: int) -> str:
    constructors = ", ".join(f"C{i}" for i in range(n))
    return f"type T {{ {constructors} }}\nC{n - 1}\n"


def else_if_chain(n: int) -> str:
    branches = " else ".join(f"if (%x == {i}) {{ {i} }}" for i in range(n))
    return f"def @main(%x: int32) -> int32 {{ {branches} else {{ {n} }} }}\n@main({n - 1})\n"


def wide_tuple(n: int) -> str:
    fields = ", ".join(str(i) for i in range(n))
    return f"let %t = ({fields}); %t.{n - 1}\n"


def wide_match(n: int) -> str:
    constructors = ", ".join(f"C{i}" for i in range(n))
    clauses = " ".join(f"case C{i} {{ {i} }}" for i in range(n))
    return f"type T {{ {constructors} }}\ndef @f(%c: T) -> int32 {{ match (%c) {{ {clauses} }} }}\n@f(C{n - 1})\n"


def prelude_uses(n: int) -> str:
    """n definitions, each using the Prelude's `@map` (the near-miss check
    compares uses with the names of definitions never used)."""
    defs = "".join(
        f"def @f{i}(%l: List[int32]) -> List[int32] {{ @map(fn (%x: int32) {{ %x }}, %l) }}\n" for i in range(n)
    )
    return defs + f"def @main() -> List[int32] {{ @f{n - 1}(Cons(1, Nil)) }}\n"


CONSTRUCTS: dict[str, Callable[[int], str]] = {
    "defs": defs,
    "lets": lets,
    "fns": fns,
    "ifs": ifs,
    "matches": matches,
    "tuples": tuples,
    "calls": calls,
    "operator-chain": operator_chain,
    "curried-apps": curried_applications,
    "curried-calls": curried_calls,
    "wide-data": wide_data,
    "else-if-chain": else_if_chain,
    "wide-tuple": wide_tuple,
    "wide-match": wide_match,
    "prelude-uses": prelude_uses,
}

# ---------------------------------------------------------------- stages


def _source(text: str):  # type: ignore[no-untyped-def]
    from relay_text.ir.span import Source

    return Source("<bench>", text)


def stage_parse(text: str) -> float:
    from relay_text.std import prelude
    from relay_text.syntax.parser import parse_source

    env = prelude().env()
    source = _source(text)
    start = time.process_time()
    result = parse_source(source, env)
    spent = time.process_time() - start
    assert result.module is not None and not [d for d in result.diagnostics if d.is_error], result.diagnostics[:1]
    return spent


def stage_check(text: str) -> float:
    from relay_text.check import check_module
    from relay_text.std import prelude
    from relay_text.syntax.parser import parse_source

    std = prelude()
    module = parse_source(_source(text), std.env()).module
    gc.collect()
    start = time.process_time()
    result = check_module(module, std.module)
    spent = time.process_time() - start
    errors = [d for d in result.diagnostics if d.is_error]
    assert not errors, errors[:1]
    return spent


def stage_print(text: str) -> float:
    from relay_text.std import prelude
    from relay_text.printer.comments import attach
    from relay_text.syntax.parser import parse_source
    from relay_text.printer.render import render_module

    module = parse_source(_source(text), prelude().env()).module
    gc.collect()
    start = time.process_time()
    render_module(module, None, 100, attach(module))
    return time.process_time() - start


def stage_fmt(text: str) -> float:
    from relay_text.formatter import format_source

    source = _source(text)
    start = time.process_time()
    formatted = format_source(source, safe=True)
    spent = time.process_time() - start
    assert formatted.text is not None, formatted.diagnostics[:1]
    return spent


def stage_run(text: str) -> float:
    from relay_text.pipeline import run_source

    source = _source(text)
    start = time.process_time()
    ran = run_source(source)
    spent = time.process_time() - start
    assert ran.ok, [str(d) for d in ran.diagnostics[:1]]
    return spent


STAGES: dict[str, Callable[[str], float]] = {
    "parse": stage_parse,
    "check": stage_check,
    "print": stage_print,
    "fmt": stage_fmt,
    "run": stage_run,
}


def timed(stage: Callable[[str], float], text: str, repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        gc.collect()
        best = min(best, stage(text))
    return best


def fit(sizes: list[int], times: list[float]) -> float:
    """The least-squares slope of log(time) on log(size)."""
    xs = [math.log(n) for n in sizes]
    ys = [math.log(max(t, 1e-6)) for t in times]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=False)) / sum((x - mx) ** 2 for x in xs)


def measure(name: str, stage: str, sizes: list[int], repeat: int, budget: float) -> list[float | None]:
    times: list[float | None] = []
    for size in sizes:
        if times and (times[-1] is None or times[-1] > budget):
            times.append(None)
            continue
        times.append(timed(STAGES[stage], CONSTRUCTS[name](size), repeat))
    return times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=25_000, help="the smallest size (then 2n and 4n)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--only", default="", help="constructs to measure, comma-separated (default: all)")
    ap.add_argument("--stages", default="parse,check,print,fmt,run")
    ap.add_argument("--budget", type=float, default=60.0, help="skip larger sizes after a time over this")
    ap.add_argument("--target", type=float, default=1.15)
    options = ap.parse_args(argv)
    names = [s for s in options.only.split(",") if s] or list(CONSTRUCTS)
    unknown = [s for s in names if s not in CONSTRUCTS] + [
        s for s in options.stages.split(",") if s and s not in STAGES
    ]
    if unknown:
        ap.error(f"unknown construct or stage: {', '.join(unknown)}")
    stages = [s for s in options.stages.split(",") if s]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    sizes = [options.n, 2 * options.n, 4 * options.n]
    worst: list[tuple[float, str, str]] = []
    missed: list[str] = []
    print(
        f"CPU seconds, best of {options.repeat}; exponent from {sizes[1]:,} to {sizes[2]:,} (fit over all "
        f"sizes); {os.cpu_count()} cores"
    )
    print(f"{'construct':<15} {'stage':<6} " + " ".join(f"{n:>9,}" for n in sizes) + "  exponent (fit)  load")
    for name in names:
        for stage in stages:
            times = measure(name, stage, sizes, options.repeat, options.budget)
            shown = " ".join(f"{t:9.3f}" if t is not None else f"{'>budget':>9}" for t in times)
            done = [(s, t) for s, t in zip(sizes, times, strict=False) if t is not None]
            if len(done) == 3:
                last = math.log(max(done[2][1], 1e-6) / max(done[1][1], 1e-6)) / math.log(sizes[2] / sizes[1])
                exp = f"{last:5.2f} ({fit(sizes, [t for _, t in done]):4.2f})"
                worst.append((last, name, stage))
                ok = last <= options.target
            else:
                exp, ok = f"{'-':>5} {'':6}", False
            if not ok:
                missed.append(f"{name}/{stage}")
            print(
                f"{name:<15} {stage:<6} {shown}  {exp}  {os.getloadavg()[0]:4.2f}{'' if ok else '  MISSED'}", flush=True
            )
    if worst:
        top = max(worst)
        print(f"\nlargest exponent: {top[0]:.2f} ({top[1]}, {top[2]}); target <= {options.target}: ", end="")
    print(
        ("met" if not missed else f"MISSED by {', '.join(missed)}")
        + f" (load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)"
    )
    return 0 if not missed else 1


if __name__ == "__main__":
    sys.exit(main())
