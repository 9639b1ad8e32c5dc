"""How every stage scales with the size of a program, construct by construct.

    python benchmarks/stages.py [--sizes N,2N,4N] [--repeat R] [--only NAME,...] [--stages S,...]

For each construct below, programs of n, 2n and 4n units (default n =
25,000, so up to 10^5) go through each stage, and the exponent of the
time's growth is printed per stage, from 2n to 4n and fitted over the three
sizes (1.0 is linear; target <= 1.15):

    defs     n one-line top-level definitions (duplicate detection)
    lets     n nested lets (`let %x1 = f(%x0); let %x2 = ...`)
    fns      n nested `fn`s, the innermost one using every parameter's
             neighbour (level adjustment in the checker)
    ifs      n nested `if`s (each in the `then` branch of the one before)
    matches  n nested `match`es on an Option value
    tuples   n nested tuples `((((%x, 1), 2), 3), ...)`
    calls    n nested calls of a global `@f(@f(@f(...)))`

Stages: parse, check (without the parse), print (IR to text, comments
attached), fmt (parse + print + the safety checks, as `relay fmt` runs)
and run (compile to Python and evaluate `@main`; constructs whose run is
trivially proportional are run too). Times are CPU seconds, best of
`--repeat` (default 3), with the collector enabled as the commands have it;
the load average is printed with every table, since this machine is shared.

Long operator chains, curried applications, wide `data` definitions, long
`else if` chains, wide tuples and matches are measured by
benchmarks/scaling.py.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import time
from typing import Callable

from _common import ROOT  # noqa: F401  (puts the repository on sys.path)

# ---------------------------------------------------------------- programs


def defs(n: int) -> str:
    lines = [f"def @f{i}(%x : int32) -> int32 {{ add(%x, {i % 7}) }}" for i in range(n)]
    lines.append(f"def @main() -> int32 {{ @f{n - 1}(1) }}")
    return "\n".join(lines) + "\n"


def lets(n: int) -> str:
    body = "".join(f"  let %x{i + 1} = add(%x{i}, 1);\n" for i in range(n))
    return f"def @main(%x0 : int32) -> int32 {{\n{body}  %x{n}\n}}\n"


def fns(n: int) -> str:
    """`fn (%a1) { fn (%a2) { ... add(%a{n-1}, %a{n}) } }`, then applied
    one argument at a time from the outside in."""
    parts = []
    for i in range(1, n + 1):
        parts.append(f"fn (%a{i} : int32) {{\n")
    inner = f"add(%a{max(n - 1, 1)}, %a{n})\n"
    text = "def @main() -> int32 {\n  let %f = " + "".join(parts) + inner + "}\n" * n + ";\n"
    # Calling it n times would nest n calls; apply the outermost only and
    # keep the closure's result unused (the body still checks and compiles).
    text += "  let %g = %f(1);\n  0\n}\n"
    return text


def ifs(n: int) -> str:
    opens = "".join(f"if (less(%x, {i})) {{\n" for i in range(n))
    closes = "} else {\n  %x\n}\n" * n
    return f"def @main(%x : int32) -> int32 {{\n{opens}  0\n{closes}}}\n"


def matches(n: int) -> str:
    """n nested matches on an Option, each in the `Some` clause of the one before."""
    opens = "".join(f"match (%o) {{\n  case Some(%v{i}) {{\n" for i in range(n))
    closes = "  }\n  case None { 0 }\n}\n" * n
    return (
        "data Option<a> {\n  None : () -> Option\n  Some : (a) -> Option\n}\n\n"
        f"def @main(%o : Option[int32]) -> int32 {{\n{opens}  %v{n - 1}\n{closes}}}\n"
    )


def tuples(n: int) -> str:
    return f"def @main(%x : int32) {{\n  {'(' * n}%x{''.join(f', {i % 10})' for i in range(n))}\n}}\n"


def calls(n: int) -> str:
    return "def @f(%x : int32) -> int32 { add(%x, 1) }\n\n" f"def @main(%x : int32) -> int32 {{\n  {'@f(' * n}%x{')' * n}\n}}\n"


CONSTRUCTS: dict[str, Callable[[int], str]] = {
    "defs": defs,
    "lets": lets,
    "fns": fns,
    "ifs": ifs,
    "matches": matches,
    "tuples": tuples,
    "calls": calls,
}

# ---------------------------------------------------------------- stages


def stage_functions() -> dict[str, Callable[[str, dict], Callable[[], object]]]:
    """For each stage, a function that prepares a program's inputs (outside
    the timing) and returns the call to time."""
    from relay_text.check import check_module
    from relay_text.formatter import format_source
    from relay_text.ir.span import Source
    from relay_text.std import prelude
    from relay_text.syntax.comments import attach
    from relay_text.syntax.parser import parse_source
    from relay_text.syntax.printer import render_module

    env = prelude().env()

    def parsed(text: str, cache: dict) -> object:
        if "module" not in cache:
            result = parse_source(Source("bench", text), env)
            assert result.module is not None and not [d for d in result.diagnostics if d.is_error], result.diagnostics[:1]
            cache["module"] = result.module
        return cache["module"]

    def parse(text: str, cache: dict) -> Callable[[], object]:
        return lambda: parse_source(Source("bench", text), env)

    def check(text: str, cache: dict) -> Callable[[], object]:
        def go() -> object:
            module = parse_source(Source("bench", text), env).module
            gc.collect()
            start = time.process_time()
            result = check_module(module, prelude().module)
            cache["inner"] = time.process_time() - start
            errors = [d for d in result.diagnostics if d.is_error]
            assert not errors, errors[:1]
            return result

        return go

    def print_(text: str, cache: dict) -> Callable[[], object]:
        module = parsed(text, cache)
        return lambda: render_module(module, None, 100, attach(module))

    def fmt(text: str, cache: dict) -> Callable[[], object]:
        return lambda: format_source(Source("bench", text), safe=True)

    def run(text: str, cache: dict) -> Callable[[], object]:
        from relay_text.pipeline import check_source

        def go() -> object:
            checked = check_source(Source("bench", text))
            assert checked.ok, [str(d) for d in checked.diagnostics[:1]]
            from relay_text.eval.compile import compile_program
            from relay_text.eval.runtime import execute

            gc.collect()
            start = time.process_time()
            module = checked.module
            gv = module.global_var("main")
            program = compile_program(module, globals_=[gv], prelude=checked.prelude.module, type_of=checked.result.type_of)
            params = module.functions[gv].params
            import numpy as np

            args = tuple(np.int32(1) if "int32" in str(p.type_annotation) else None for p in params)
            if params and "Option" in str(params[0].type_annotation):
                args = (_some(module),)
            execute(program, "@main", args)
            cache["inner"] = time.process_time() - start
            return program

        return go

    return {"parse": parse, "check": check, "print": print_, "fmt": fmt, "run": run}


def _some(module: object) -> object:
    import numpy as np

    from relay_text.eval.values import Data

    ctors = module.constructors()  # type: ignore[attr-defined]
    return Data(ctors["Some"], (np.int32(1),))


def timed(make: Callable[[], object], cache: dict, repeat: int) -> float:
    """Best CPU time of `repeat` calls; a stage that times an inner part
    itself (check, run) reports it through cache["inner"]."""
    best = math.inf
    for _ in range(repeat):
        cache.pop("inner", None)
        gc.collect()
        start = time.process_time()
        make()
        t = time.process_time() - start
        best = min(best, cache.get("inner", t))
    return best


def fit(sizes: list[int], times: list[float]) -> float:
    xs = [math.log(n) for n in sizes]
    ys = [math.log(max(t, 1e-9)) for t in times]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="25000,50000,100000", help="three sizes, each twice the one before")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="", help="constructs to measure (default: all)")
    ap.add_argument("--stages", default="parse,check,print,fmt,run")
    ap.add_argument("--target", type=float, default=1.15)
    options = ap.parse_args()
    sizes = [int(s) for s in options.sizes.split(",")]
    names = [n for n in options.only.split(",") if n] or list(CONSTRUCTS)
    stages = [s for s in options.stages.split(",") if s]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 50_000))
    makers = stage_functions()
    worst: list[tuple[float, str, str]] = []
    print(f"CPU seconds, best of {options.repeat}; exponent from {sizes[-2]:,} to {sizes[-1]:,} (fit over all sizes)")
    print(f"{'construct':9} {'stage':6} " + " ".join(f"{n:>9,}" for n in sizes) + "   exponent (fit)  load")
    for name in names:
        texts = {n: CONSTRUCTS[name](n) for n in sizes}
        for stage in stages:
            times = []
            for n in sizes:
                cache: dict = {}
                make = makers[stage](texts[n], cache)
                times.append(timed(make, cache, options.repeat))
            last = math.log(times[-1] / times[-2]) / math.log(sizes[-1] / sizes[-2])
            k = fit(sizes, times)
            worst.append((last, name, stage))
            mark = "" if last <= options.target else "  MISSED"
            print(
                f"{name:9} {stage:6} " + " ".join(f"{t:9.3f}" for t in times)
                + f"   {last:5.2f} ({k:4.2f})  {os.getloadavg()[0]:4.1f}{mark}",
                flush=True,
            )
    top = max(worst)
    print(
        f"\nlargest exponent: {top[0]:.2f} ({top[1]}, {top[2]}); target <= {options.target}: "
        f"{'met' if top[0] <= options.target else 'MISSED'} "
        f"(load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)"
    )


if __name__ == "__main__":
    main()
