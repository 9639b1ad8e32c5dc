"""`relay opt` on the corpus: the time of each pipeline on each model.

    python benchmarks/opt.py [--repeat N] [--model NAME]... [--pipeline A,B]...

For every model of `../shared/corpus/`, each pipeline runs as `relay opt`
runs it (read, check, the passes with a check after each, print, read the
output back), in this process; the table gives the best of `--repeat`
runs, the time of each pass of that run, and the size of the output, with
the load average (the machine is shared: figures move with it).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPUS = ROOT.parent / "shared" / "corpus"

PIPELINES = [
    "InferType,SimplifyInference,FoldConstant,FuseOps",
    "ToANormalForm,ToGraphNormalForm",
    "InferType,SimplifyInference,SimplifyExpr,FoldScaleAxis,FoldConstant,EliminateCommonSubexpr,DeadCodeElimination,FuseOps",
    "ToMixedPrecision{keep_orig_output_dtype=true}",
]


def main() -> int:
    from relay_text.ir.span import Source
    from relay_text.passes.pipeline import optimize_source

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--model", action="append", default=[])
    parser.add_argument("--pipeline", action="append", default=[])
    options = parser.parse_args()
    models = sorted(p for p in CORPUS.glob("*.rly") if not options.model or p.stem in options.model)
    pipelines = options.pipeline or PIPELINES
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    longest = (0.0, "", "")
    for path in models:
        text = path.read_text(encoding="utf-8")
        for spec in pipelines:
            best = None
            for _ in range(options.repeat):
                start = time.perf_counter()
                result = optimize_source(Source(str(path), text), spec)
                elapsed = time.perf_counter() - start
                if best is None or elapsed < best[0]:
                    best = (elapsed, result)
            assert best is not None
            elapsed, result = best
            status = (
                f"{len(result.text or ''):>9,} chars"
                if result.ok
                else "failed: " + "; ".join(d.message for d in result.diagnostics if d.is_error)[:60]
            )
            passes = ", ".join(f"{n} {s:.2f}" for n, s in result.timings)
            print(f"{path.stem:<44} {elapsed:7.2f} s  {status}  [{spec}]  ({passes})")
            if elapsed > longest[0]:
                longest = (elapsed, path.stem, spec)
    print(f"longest: {longest[0]:.2f} s, {longest[2]} on {longest[1]}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
