"""The corpus models: `relay run` (numpy and onnxruntime engines) against the PyTorch backend, at 1 and 2 threads.

    python benchmarks/models.py [--repeat N] [--threads 1,2] [--model NAME]... [--no-opt] [--kernels] [--profile]
                                [--clock cpu] [--numpy-only]

Every model dump of `../shared/corpus/` (ResNet-50, MobileNet, SqueezeNet,
the LSTM, GPT-2) is checked once and given seeded random weights and inputs
(`--random-args --random-consts --seed 0`). On those same values, each
model is evaluated

* with the toolchain's numpy kernels, the program optimised as `relay run`
  does it (folded constants and batch norms, elementwise steps in place,
  kernels on the thread pool), and
* exported to ONNX (`relay export`, as `relay run --engine onnxruntime`
  does it in memory) and run in an onnxruntime session with as many
  intra-op threads (the export itself is not timed),
* with every operator on PyTorch (the reference backend of
  tests/reference, float32 as PyTorch eager runs it, the program as written:
  eager PyTorch folds nothing),

the three interleaved (numpy, onnxruntime, PyTorch, numpy, ...) so that all see the same
load on a shared machine. The table gives the best and the median of
`--repeat` runs (fewer for models that take over a second), the ratio numpy
/ PyTorch (target <= 1.0, stretch <= 0.8) and the load average around the
measurement. Each thread count runs in a subprocess with
OMP_NUM_THREADS / OPENBLAS_NUM_THREADS / MKL_NUM_THREADS set before numpy
loads its BLAS (PyTorch gets `torch.set_num_threads`, the kernel pool
RELAY_NUM_THREADS), and OPENBLAS_THREAD_TIMEOUT as the `relay` command
sets it unless it is set (OpenBLAS's idle threads sleep soon after a
product; set it to 28 for OpenBLAS's own 0.1 s of spinning). `--clock cpu` times by the CPU time of the process
(every thread's, so an idle-spinning thread pool counts) instead of the
elapsed time: steadier on a busy machine. `--no-opt` adds the unoptimised plan (`relay run
--no-opt`); `--kernels` adds the time spent inside the registry's kernels
and the interpretive overhead of the evaluator over them (target <= 5 %;
the optimised plan's in-place steps are not registry kernels, so they count
as overhead there). `--profile` adds the operators that took the most
time in the numpy runs (the mean of `--repeat` runs by the chosen clock,
with their calls per run), and the time outside every operator's kernel:
the optimised plan's in-place and fused steps, which are not registry
kernels, and the evaluator itself.

Where numba is installed (the `fast` extra), the compiled depthwise loop
and the one-pass bias and relu are loaded before the runs, as a long run
loads them once numpy has done half a second of that work
(`relay_text.ops.nn._depthwise`, `relay_text.eval.bias_relu`); PyTorch is
timed after its warm-up in the same way. `--numpy-only` keeps numpy's
kernels throughout.
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
from pathlib import Path
from typing import Any

from _common import ROOT

from relay_text.cli import BLAS_IDLE

# This folder holds a script named onnx.py: off the path, so that `import onnx` finds the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

CORPUS = ROOT.parent / "shared" / "corpus"
MODELS = {
    "ResNet-50": "apache-tvm-menangerie-resnet50.rly",
    "MobileNet": "glenside-mobilenet.rly",
    "SqueezeNet": "calyx-squeezenet-anf.rly",
    "LSTM": "glenside-lstm-for-pldi.rly",
    "GPT-2": "apache-tvm-menangerie-gpt2.rly",
}
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RELAY_NUM_THREADS")


class Timer:
    """An evaluator resolver that can time the kernels of a run: with `on`,
    every kernel call adds its duration to `seconds` and to its operator's
    entry of `by_op` (seconds, calls)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.calls = 0
        self.on = False
        self.by_op: dict[str, list[float]] = {}

    def __call__(self, name: str) -> Any:
        op = self.inner(name)
        if op is None:
            return None
        timer = self
        clock = CLOCK[0]

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
                spent = clock() - start
                timer.seconds += spent
                timer.calls += 1
                entry = timer.by_op.setdefault(op.name, [0.0, 0])
                entry[0] += spent
                entry[1] += 1
                return out

        return Timed()


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
CLOCK = [time.perf_counter]  # the clock of `timed` (`--clock`)


def timed(fn: Any) -> float:
    gc.collect()
    clock = CLOCK[0]
    start = clock()
    fn()
    return clock() - start


def prepare(
    path: Path, resolver: Any, optimize: bool = True, keep: dict | None = None
) -> tuple[Any, str, tuple, float]:
    """Check the model, invent its values as `relay run --random-args
    --random-consts --seed 0` does, compile it: (program, entry key, args,
    front-end seconds)."""
    import numpy as np

    from relay_text.eval import compile as _compile
    from relay_text.eval.args import TypeDefs, random_value
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
    if keep is not None:
        keep.update(module=module, result=result, constants=consts)
    program = _compile.compile_program(
        module, globals_=[gv], resolver=resolver, type_of=result.type_of, constants=consts, optimize=optimize
    )
    return program, "@main", args, front


def _flat(value: Any) -> list[Any]:
    if isinstance(value, tuple):
        return [x for v in value for x in _flat(v)]
    return [value]


def difference(a: Any, b: Any) -> float:
    """The largest difference between two results, relative to the largest
    magnitude of the reference."""
    import numpy as np

    worst = 0.0
    for x, y in zip(_flat(a), _flat(b), strict=False):
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        scale = float(np.max(np.abs(y))) if y.size else 0.0
        if scale:
            worst = max(worst, float(np.max(np.abs(x - y))) / scale)
    return worst


def measure(name: str, repeat: int, threads: int, no_opt: bool, kernels: bool, profile: bool = False) -> dict:
    """One model at the current thread count (set by the parent)."""
    from relay_text.eval.ops import default_resolver
    from relay_text.eval.runtime import DEFAULT_MAX_DEPTH, execute

    path = CORPUS / MODELS[name]
    timer = Timer(default_resolver)
    kept: dict[str, Any] = {}
    program, key, args, front = prepare(path, timer, keep=kept)
    record: dict[str, Any] = {"model": name, "threads": threads, "front": front}

    def run_numpy() -> Any:
        return execute(program, key, args, DEFAULT_MAX_DEPTH)

    out = run_numpy()  # warm-up
    first = timed(run_numpy)
    if first > 1.0:
        repeat = min(repeat, 3)
    try:
        import torch

        from tests.reference import torch_ops
    except ImportError:
        torch = None
    runners: dict[str, Any] = {"numpy": run_numpy}
    if torch is not None:
        torch_ops.PRECISE = False  # float32, as PyTorch eager computes
        torch.set_num_threads(threads)
        torch_program, _, _, _ = prepare(path, torch_ops.TorchResolver(), optimize=False)

        def run_torch() -> Any:
            return execute(torch_program, key, args, DEFAULT_MAX_DEPTH)

        ref = run_torch()
        runners["torch"] = run_torch
        record["difference"] = difference(out, ref)
        record["torch_version"] = torch.__version__
    session = onnxruntime_session(kept, threads)
    if session is not None:
        from relay_text.export.engine import flat_inputs

        feeds = {i.name: v for i, v in zip(session.get_inputs(), flat_inputs(args), strict=False)}

        def run_ort() -> Any:
            return tuple(session.run(None, feeds))

        ort_out = run_ort()
        runners["onnxruntime"] = run_ort
        record["difference_ort"] = difference(out, ort_out if len(ort_out) > 1 else ort_out[0])
    if no_opt:
        plain, _, _, _ = prepare(path, default_resolver, optimize=False)

        def run_plain() -> Any:
            return execute(plain, key, args, DEFAULT_MAX_DEPTH)

        plain_out = run_plain()
        runners["no_opt"] = run_plain
        record["difference_no_opt"] = difference(out, plain_out)
    load_before = os.getloadavg()[0]
    times: dict[str, list[float]] = {k: [] for k in runners}
    for _ in range(repeat):  # interleaved
        for k, fn in runners.items():
            times[k].append(timed(fn))
    record["load"] = (load_before, os.getloadavg()[0])
    for k, ts in times.items():
        record[k] = (min(ts), statistics.median(ts))
    if kernels:
        timer.on = True
        shares = []
        for _ in range(repeat):
            timer.seconds, timer.calls = 0.0, 0
            total = timed(run_numpy)
            shares.append((total, timer.seconds))
        timer.on = False
        total, inside = min(shares)
        record["kernels"] = (inside, total, timer.calls)
    if profile:
        timer.on, timer.by_op = True, {}
        total = sum(timed(run_numpy) for _ in range(repeat))
        timer.on = False
        top = sorted(timer.by_op.items(), key=lambda kv: -kv[1][0])[:8]
        outside = total - sum(s for s, _ in timer.by_op.values())
        record["profile"] = (
            total / repeat,
            [(op, s / repeat, round(n / repeat)) for op, (s, n) in top],
            outside / repeat,
        )
    return record


def onnxruntime_session(kept: dict, threads: int) -> Any:
    """The model exported to ONNX (`relay export`) in an onnxruntime session
    with `threads` intra-op threads, or None without the onnxruntime extra."""
    try:
        import onnxruntime as ort

        from relay_text.eval.entry import find_entry
        from relay_text.export.model import build_model
    except ImportError:
        return None
    module = kept["module"]
    model, _, _ = build_model(module, kept["result"], find_entry(module, "@main"), kept["constants"])
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def worker(options: argparse.Namespace) -> None:
    from relay_text.eval import bias_relu
    from relay_text.ops.nn import _depthwise

    if not options.numpy_only:
        state = "on" if _depthwise.available() and bias_relu.LOOP.available() else "off (numba missing)"
        print(f"compiled depthwise and bias-relu loops (the `fast` extra, loaded up front as a long run does): {state}")
    else:
        from relay_text.compiled import Compiled

        _depthwise.LOOP = Compiled.decided(None)
        bias_relu.LOOP = Compiled.decided(None)
    for name in options.model:
        record = measure(name, options.repeat, options.worker, options.no_opt, options.kernels, options.profile)
        print("RECORD " + json.dumps(record), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--threads", default="1,2", help="thread counts, comma-separated (default 1,2)")
    parser.add_argument("--model", action="append", choices=sorted(MODELS), help="a model (default: all)")
    parser.add_argument("--no-opt", action="store_true", help="also time the unoptimised plan")
    parser.add_argument("--kernels", action="store_true", help="also time the kernels alone (interpretive overhead)")
    parser.add_argument("--profile", action="store_true", help="also print the operators that took the most time")
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="wall: elapsed time; cpu: CPU time of the process (all its threads; steadier on a busy machine)",
    )
    parser.add_argument(
        "--numpy-only", action="store_true", help="numpy kernels only (no compiled loop of the `fast` extra)"
    )
    parser.add_argument("--worker", type=int, default=0, help=argparse.SUPPRESS)
    options = parser.parse_args()
    CLOCK[0] = CLOCKS[options.clock]
    options.model = options.model or list(MODELS)
    if options.worker:
        worker(options)
        return
    missing = [m for m in options.model if not (CORPUS / MODELS[m]).exists()]
    if missing:
        print(f"the corpus is not at {CORPUS}: {', '.join(missing)} missing")
        return
    counts = [int(t) for t in options.threads.split(",") if t.strip()]
    print(
        f"corpus: {CORPUS}; {os.cpu_count()} cores; best and median of up to {options.repeat} interleaved runs; "
        f"{options.clock} time; {BLAS_IDLE[0]}={os.environ.get(BLAS_IDLE[0], BLAS_IDLE[1])}"
    )
    records: list[dict] = []
    for threads in counts:
        env = dict(os.environ)
        for var in THREAD_VARS:
            env[var] = str(threads)
        env.setdefault(*BLAS_IDLE)  # as the `relay` command runs
        cmd = [sys.executable, __file__, "--worker", str(threads), "--repeat", str(options.repeat)]
        cmd += ["--clock", options.clock]
        for m in options.model:
            cmd += ["--model", m]
        if options.no_opt:
            cmd.append("--no-opt")
        if options.kernels:
            cmd.append("--kernels")
        if options.profile:
            cmd.append("--profile")
        if options.numpy_only:
            cmd.append("--numpy-only")
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True, cwd=str(ROOT))
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("RECORD "):
                record = json.loads(line[len("RECORD ") :])
                records.append(record)
                print(row(record), flush=True)
            else:
                print(line, end="")
        if proc.wait() != 0:
            print(f"the worker for {threads} threads failed (status {proc.returncode})")
    summary(records)


def _ms(pair: Any) -> str:
    return f"{pair[0] * 1000:8.1f} ({pair[1] * 1000:8.1f})"


HEADER = (
    f"{'model':<11} {'thr':>3}  {'numpy ms best (median)':>24}  {'onnxruntime ms best (median)':>28}  "
    f"{'PyTorch ms best (median)':>24}  {'ratio':>12}  {'<= 1.0':>9}  {'load':>10}"
)


def row(r: dict) -> str:
    if not hasattr(row, "printed"):
        row.printed = True  # type: ignore[attr-defined]
        print(HEADER)
    text = f"{r['model']:<11} {r['threads']:>3}  {_ms(r['numpy']):>24}  "
    text += f"{_ms(r['onnxruntime']) if 'onnxruntime' in r else '(no onnxruntime)':>28}  "
    if "torch" in r:
        ratio = r["numpy"][0] / r["torch"][0]
        med = r["numpy"][1] / r["torch"][1]
        text += f"{_ms(r['torch']):>24}  {ratio:5.2f} ({med:4.2f})  {_verdict(ratio, med):>9}"
    else:
        text += f"{'(no PyTorch)':>24}  {'':>12}  {'':>9}"
    text += f"  {r['load'][0]:4.2f}-{r['load'][1]:4.2f}"
    extras = []
    if "no_opt" in r:
        extras.append(f"--no-opt {_ms(r['no_opt'])} ms, optimised/unoptimised {r['numpy'][0] / r['no_opt'][0]:.2f}")
    if "kernels" in r:
        inside, total, calls = r["kernels"]
        extras.append(
            f"kernels {inside * 1000:.1f} ms of {total * 1000:.1f} ({calls} calls), overhead "
            f"{(total - inside) / inside * 100:.1f} %"
        )
    if "difference" in r:
        extras.append(f"difference from PyTorch {r['difference']:.1e}")
    if "difference_ort" in r:
        extras.append(
            f"onnxruntime/numpy {r['numpy'][0] / r['onnxruntime'][0]:.2f}x faster, difference {r['difference_ort']:.1e}"
        )
    if extras:
        text += "\n" + " " * 16 + "; ".join(extras)
    if "profile" in r:
        total, top, outside = r["profile"]
        ops = ", ".join(f"{op} {s * 1000:.1f} ({n})" for op, s, n in top)
        text += "\n" + " " * 16 + f"per run {total * 1000:.1f} ms; ms (calls) by operator: {ops}"
        text += (
            "\n" + " " * 16 + f"outside the operators' kernels {outside * 1000:.1f} ms: the optimised plan's "
            "in-place and fused steps (elementwise chains, the row softmax) and the evaluator"
        )
    return text


def _verdict(best: float, median: float) -> str:
    """Against the target ratio 1.0: `pass` (best and median), `miss`, or `best` (only the best passes)."""
    if best <= 1.0 and median <= 1.0:
        return "pass"
    return "best only" if best <= 1.0 else "miss"


def summary(records: list[dict]) -> None:
    compared = [r for r in records if "torch" in r]
    if not compared:
        print("PyTorch is not installed: pip install -e '.[reference]' for the comparison")
        return
    print(f"PyTorch {compared[0].get('torch_version', '?')}")
    ratios = [r["numpy"][0] / r["torch"][0] for r in compared]
    medians = [r["numpy"][1] / r["torch"][1] for r in compared]
    print(f"target ratio <= 1.0 (median times): met {sum(1 for x in medians if x <= 1.0)} of {len(medians)}")
    worst = max(ratios)
    met = sum(1 for x in ratios if x <= 1.0)
    stretch = sum(1 for x in ratios if x <= 0.8)
    print(
        f"target ratio <= 1.0 (best times): met {met} of {len(ratios)}; stretch <= 0.8: met {stretch} of "
        f"{len(ratios)}; worst {worst:.2f}"
    )
    for r, x in zip(compared, ratios, strict=False):
        if x > 1.0:
            print(f"  not met: {r['model']} at {r['threads']} thread(s): {x:.2f}")


if __name__ == "__main__":
    main()
