"""`relay import` on the onnx wheel's nine light model-zoo CNNs, and their run
time against onnxruntime in the same run.

    python benchmarks/onnx.py [--repeat N] [--threads N] [--model NAME]...

Each model (AlexNet, DenseNet-121, Inception v1/v2, ResNet-50, ShuffleNet,
SqueezeNet, VGG-19, ZFNet-512) gets seeded random weights in place of the
constants it ships with (tests/frontends/onnx/light_models.py) and is cut
before its softmax. Per model the table gives

* import: `from_onnx` (conversion, every call typed) and the text in TVM's
  format, then the check `relay import` makes before writing (parse and
  check the text), in seconds;
* run: relay-text's evaluator on the imported module (checked and compiled
  once, the program optimised as `relay run` does it) against an
  onnxruntime session on the same model and input, the two interleaved so
  that both see the same load, best and median of `--repeat` runs, and the
  ratio relay-text / onnxruntime;
* the largest difference of the results, relative to the largest logit.

Both run on `--threads` threads (default 1: numpy's BLAS, relay-text's
kernel pool and onnxruntime's intra-op pool), set before numpy loads. The
machine's load average is printed: timings on a shared machine are noisy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any


def _threads_from_argv() -> int:
    for i, a in enumerate(sys.argv):
        if a == "--threads" and i + 1 < len(sys.argv):
            return int(sys.argv[i + 1])
        if a.startswith("--threads="):
            return int(a.split("=", 1)[1])
    return 1


_THREADS = _threads_from_argv()
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RELAY_NUM_THREADS"):
    os.environ[_var] = str(_THREADS)

from _common import ROOT  # noqa: E402,F401  (puts the repository on sys.path)

# This file is called onnx.py: its folder must not hide the onnx package.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]


def prepare(model: Any) -> tuple[Any, float, float, int]:
    """Import (timed), check the text as `relay import` does (timed), compile."""
    from relay_text.frontends.onnx import from_onnx
    from relay_text.frontends.verify import verify_text

    start = time.perf_counter()
    imported = from_onnx(model, name="model.onnx")
    text = imported.text()
    imported_at = time.perf_counter()
    problems = verify_text(text, imported, False)
    assert not problems, problems
    checked_at = time.perf_counter()
    return imported, imported_at - start, checked_at - imported_at, text.count("\n")


def compiled(imported: Any) -> tuple[Any, Any]:
    from relay_text.check import check_module
    from relay_text.eval.compile import compile_program

    module = imported.module()
    result = check_module(module)
    assert result.ok, result.diagnostics
    gv = module.global_var("main")
    return compile_program(module, globals_=[gv], type_of=result.type_of, optimize=True), gv


def measure(name: str, repeat: int) -> dict[str, Any]:
    import numpy as np
    import onnxruntime as ort

    from relay_text.eval.runtime import DEFAULT_MAX_DEPTH, execute
    from tests.frontends.onnx import light_models

    model = light_models.randomized(name)
    inputs = light_models.random_inputs(model)
    imported, import_s, check_s, lines = prepare(model)
    program, _ = compiled(imported)
    args = tuple(inputs) + tuple(imported.weights().values())

    options = ort.SessionOptions()
    options.intra_op_num_threads = _THREADS
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    feed = {i.name: x for i, x in zip(session.get_inputs(), inputs, strict=False)}

    def relay() -> Any:
        return execute(program, "@main", args, DEFAULT_MAX_DEPTH)

    def onnxruntime() -> Any:
        return session.run(None, feed)[0]

    ours, theirs = relay(), onnxruntime()  # warm-up
    scale = float(np.abs(theirs).max())
    times: dict[str, list[float]] = {"relay": [], "ort": []}
    load_before = os.getloadavg()[0]
    for _ in range(repeat):
        for key, fn in (("relay", relay), ("ort", onnxruntime)):
            start = time.perf_counter()
            fn()
            times[key].append(time.perf_counter() - start)
    return {
        "model": name,
        "nodes": len(model.graph.node),
        "lines": lines,
        "import": import_s,
        "check": check_s,
        "relay": times["relay"],
        "ort": times["ort"],
        "difference": float(np.abs(np.asarray(ours) - theirs).max()) / scale,
        "load": (load_before + os.getloadavg()[0]) / 2,
    }


def main() -> None:
    from tests.frontends.onnx import light_models

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--model", action="append", choices=light_models.NAMES)
    opts = parser.parse_args()
    names = opts.model or list(light_models.NAMES)
    print(
        f"relay import and run, against onnxruntime; {_THREADS} thread(s), best/median of {opts.repeat}; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    header = (
        f"{'model':<14}{'nodes':>6}{'lines':>7}{'import s':>10}{'check s':>9}"
        f"{'relay ms':>18}{'ort ms':>18}{'ratio':>8}{'diff':>10}{'load':>6}"
    )
    print(header)
    print("-" * len(header))
    for name in names:
        r = measure(name, opts.repeat)
        best_r, med_r = min(r["relay"]) * 1e3, statistics.median(r["relay"]) * 1e3
        best_o, med_o = min(r["ort"]) * 1e3, statistics.median(r["ort"]) * 1e3
        print(
            f"{name:<14}{r['nodes']:>6}{r['lines']:>7}{r['import']:>10.2f}{r['check']:>9.2f}"
            f"{best_r:>9.1f}/{med_r:<8.1f}{best_o:>9.1f}/{med_o:<8.1f}"
            f"{best_r / best_o:>8.1f}{r['difference']:>10.1e}{r['load']:>6.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
