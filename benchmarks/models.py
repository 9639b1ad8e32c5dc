"""ResNet-50 from the corpus: `relay run` against PyTorch, and the interpreter's overhead.

    python benchmarks/models.py [--repeat N] [--model FILE]

The corpus dump of ResNet-50 (batch 1, 224x224, weights as
`meta[relay.Constant][i]` without metadata) is checked once and given seeded
random weights and input (`--random-args --random-consts --seed 0`). Then,
on those same values, it prints:

* the time of one evaluation of `@main` with the toolchain's numpy kernels;
* the same program evaluated with every operator on PyTorch (the reference
  backend of tests/reference, float32 as PyTorch eager runs it), and the
  ratio of the two (target <= 1.0);
* the kernels alone: the time spent inside the kernels during a run, and
  the interpretive overhead of the evaluator over them (target <= 5 %);
* the front end (parse + type check + inventing the values) for reference.

Times are the best of `--repeat` runs (default 5); the two backends are
timed interleaved, so that both see the same load on a shared machine, and
the medians are printed too. PyTorch runs with as many threads as numpy's
BLAS gets (all cores, or `--threads N`).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
from pathlib import Path
from typing import Any

from _common import ROOT

DEFAULT_MODEL = ROOT.parent / "shared" / "corpus" / "apache-tvm-menangerie-resnet50.rly"


class Timer:
    """An evaluator resolver that can time the kernels of a run: with `on`,
    every kernel call adds its duration to `seconds`."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.calls = 0
        self.on = False

    def __call__(self, name: str) -> Any:
        op = self.inner(name)
        if op is None:
            return None
        timer = self
        clock = time.perf_counter

        class Timed:
            def __init__(self) -> None:
                self.name = op.name

            def normalize_attrs(self, given: Any) -> Any:
                return op.normalize_attrs(given)

            def kernel(self, args: tuple, attrs: dict) -> Any:
                if not timer.on:
                    return op.kernel(args, attrs)
                start = clock()
                out = op.kernel(args, attrs)
                timer.seconds += clock() - start
                timer.calls += 1
                return out

        return Timed()


def best(fn: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def prepare(path: Path, resolver: Any) -> tuple[Any, str, tuple, float]:
    """Check the model, invent its values as `relay run --random-args
    --random-consts --seed 0` does, compile it: (program, entry key, args,
    front-end seconds)."""
    import numpy as np

    from relay_text.eval.args import TypeDefs, random_value
    from relay_text.eval.compile import compile_program
    from relay_text.eval.plausible import roles, shape_role
    from relay_text.ir.span import Source
    from relay_text.pipeline import check_source

    start = time.perf_counter()
    checked = check_source(Source(str(path), path.read_text()), use_prelude=False)
    assert checked.errors == 0, [str(d) for d in checked.diagnostics]
    module, result = checked.module, checked.result
    found = roles(module, result.type_of)
    defs = TypeDefs(module, None)
    rng = np.random.default_rng([0, 1])
    consts = {
        i: shape_role(random_value(t, rng, defs, f"meta[{i}]"), found.get(("meta", i)))
        for i, t in sorted(result.meta_types.items())
    }
    gv = module.global_var("main")
    params = module.functions[gv].params
    rng = np.random.default_rng(0)
    args = tuple(shape_role(random_value(p.type_annotation, rng, defs, p.name), found.get(p)) for p in params)
    front = time.perf_counter() - start
    program = compile_program(module, globals_=[gv], resolver=resolver, type_of=result.type_of, constants=consts)
    return program, "@main", args, front


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--threads", type=int, default=0, help="BLAS / PyTorch threads (default: all cores)")
    options = parser.parse_args()
    if options.threads:
        # before numpy loads its BLAS
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(options.threads)

    import numpy as np

    from relay_text.eval.ops import default_resolver
    from relay_text.eval.runtime import DEFAULT_MAX_DEPTH, execute

    try:
        from tests.reference import torch_ops
    except ImportError:
        torch_ops = None

    path = options.model
    repeat = options.repeat
    print(f"model: {path.name}")

    timer = Timer(default_resolver)
    program, key, args, front = prepare(path, timer)
    print(f"front end (parse, check, random values): {front:.2f} s")

    def run_numpy() -> Any:
        return execute(program, key, args, DEFAULT_MAX_DEPTH)

    out = run_numpy()  # warm-up
    t_relay = best(run_numpy, repeat)
    print(f"relay run, numpy kernels:      {t_relay * 1000:8.1f} ms")

    # Kernels alone: the time spent inside kernels during timed runs (the
    # clock reads around each call cost well under a microsecond).
    timer.on = True
    shares = []
    for _ in range(repeat):
        timer.seconds, timer.calls = 0.0, 0
        gc.collect()
        start = time.perf_counter()
        run_numpy()
        total = time.perf_counter() - start
        shares.append((total, timer.seconds))
    timer.on = False
    total, t_kernels = min(shares)
    overhead = (total - t_kernels) / t_kernels
    print(f"kernels alone ({timer.calls} calls):     {t_kernels * 1000:8.1f} ms  (in the fastest timed run, {total * 1000:.1f} ms)")
    print(f"interpretive overhead:         {overhead * 100:8.1f} %   (target <= 5 %)")

    if torch_ops is None:
        print("PyTorch is not installed: pip install -e '.[reference]' for the comparison")
        return
    import torch

    torch_ops.PRECISE = False  # float32, as PyTorch eager computes
    if options.threads:
        torch.set_num_threads(options.threads)
    print(f"PyTorch {torch.__version__}, {torch.get_num_threads()} threads")
    torch_program, _, _, _ = prepare(path, torch_ops.TorchResolver())

    def run_torch() -> Any:
        return execute(torch_program, key, args, DEFAULT_MAX_DEPTH)

    ref = run_torch()
    # Interleaved, so that both backends see the same machine load.
    pairs = []
    for _ in range(repeat):
        pairs.append((best(run_numpy, 1), best(run_torch, 1)))
    t_np = min(p[0] for p in pairs)
    t_torch = min(p[1] for p in pairs)
    med_np = statistics.median(p[0] for p in pairs)
    med_torch = statistics.median(p[1] for p in pairs)
    print(f"relay run, PyTorch kernels:    {t_torch * 1000:8.1f} ms")
    print(f"interleaved, best (median):    numpy {t_np * 1000:.1f} ({med_np * 1000:.1f}) ms, PyTorch {t_torch * 1000:.1f} ({med_torch * 1000:.1f}) ms")
    print(f"ratio numpy / PyTorch:         {t_np / t_torch:8.2f}     (target <= 1.0; medians {med_np / med_torch:.2f})")
    print(f"load average while measuring:  {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    a, b = np.asarray(out), np.asarray(ref)
    scale = float(np.max(np.abs(b)))
    print(f"largest difference:            {float(np.max(np.abs(a - b))) / scale:.1e} of the largest output")


if __name__ == "__main__":
    main()
