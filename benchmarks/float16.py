"""float16 programs against their float32 twins (target: float16 <= 2x float32).

    python benchmarks/float16.py [--repeat N] [--threads N] [--unwidened]

Two workloads, each run as a float32 program and as its float16 twin on the
same values:

* ResNet-50 from the corpus (batch 1, 224x224). The float16 twin is the
  same text with its one `float32` (the types of `%data` and of the result)
  rewritten to `float16`; the checker then infers every weight
  (`meta[relay.Constant][i]`) as float16. The weights and the input are
  invented once for the float32 program, as `relay run --random-args
  --random-consts --seed 0` invents them, and cast to float16 for the twin.
* A GPT-2 style block written here: layer norm, the q/k/v projection
  (`nn.dense`), twelve heads of `nn.batch_matmul` and `nn.softmax`, the
  output projection, a residual add, a second layer norm and the MLP
  (dense, tanh-GELU, dense); sequence 128, width 768. The float16 twin
  rewrites every `float32` of the text. The weights are parameters here,
  passed read-only, as the weights of a dump are (GPT-2's are
  `meta[relay.Constant]`s): the evaluator converts a read-only float16
  input to float32 once, not at every run.

For each it prints the time of one evaluation of `@main` (best and median of
--repeat, the two programs timed interleaved so both see the same load), the
ratio float16 / float32, the same for the CPU time of the process (all its
BLAS threads: steadier than the clock on a busy machine), the largest difference from the float32 result, the
BLAS thread count and the load average. float16 <-> float32 conversions go
through the compiled loops of the `fast` extra where numba is installed
(loaded up front here, as a long run loads them: `relay_text.ops._half`);
the float16 programs are also timed, interleaved, with numpy converting (the
evaluator before those loops; "numpy conversions" rows). `--unwidened` also times the GPT-2
block with float16 kernels run on float16 arrays (how the evaluator ran
them before: numpy has no float16 BLAS), once.
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

RESNET = ROOT.parent / "shared" / "corpus" / "apache-tvm-menangerie-resnet50.rly"


def gpt2_block(dtype: str, seq: int = 128, width: int = 768, heads: int = 12) -> str:
    d = width // heads
    t = lambda *s: f"Tensor[({', '.join(map(str, s))}), {dtype}]"  # noqa: E731
    return f"""#[version = "0.0.5"]
def @main(%x: {t(seq, width)}, %g1: {t(width)}, %b1: {t(width)}, %wqkv: {t(3 * width, width)}, %bqkv: {t(3 * width)},
          %wo: {t(width, width)}, %bo: {t(width)}, %g2: {t(width)}, %b2: {t(width)},
          %w1: {t(4 * width, width)}, %c1: {t(4 * width)}, %w2: {t(width, 4 * width)}, %c2: {t(width)})
          -> {t(seq, width)} {{
  %0 = nn.layer_norm(%x, %g1, %b1);
  %1 = nn.bias_add(nn.dense(%0, %wqkv, units={3 * width}), %bqkv, axis=-1);
  %2 = split(%1, indices_or_sections=3, axis=1);
  %3 = transpose(reshape(%2.0, newshape=[{seq}, {heads}, {d}]), axes=[1, 0, 2]);
  %4 = transpose(reshape(%2.1, newshape=[{seq}, {heads}, {d}]), axes=[1, 0, 2]);
  %5 = transpose(reshape(%2.2, newshape=[{seq}, {heads}, {d}]), axes=[1, 2, 0]);
  %6 = nn.batch_matmul(%3, %4, transpose_b=True);
  %7 = nn.softmax(multiply(%6, {1 / d**0.5}f16));
  %8 = nn.batch_matmul(%7, %5, transpose_b=True);
  %9 = reshape(transpose(%8, axes=[1, 0, 2]), newshape=[{seq}, {width}]);
  %10 = add(%x, nn.bias_add(nn.dense(%9, %wo, units={width}), %bo, axis=-1));
  %11 = nn.layer_norm(%10, %g2, %b2);
  %12 = nn.bias_add(nn.dense(%11, %w1, units={4 * width}), %c1, axis=-1);
  %13 = multiply(multiply(%12, 0.5f16),
                 add(tanh(multiply(add(%12, multiply(power(%12, 3f16), 0.044715f16)), 0.797885f16)), 1f16));
  %14 = nn.bias_add(nn.dense(%13, %w2, units={width}), %c2, axis=-1);
  add(%10, %14)
}}
""".replace("f16", "f16" if dtype == "float16" else "f")


def check(text: str, name: str) -> Any:
    from relay_text.ir.span import Source
    from relay_text.pipeline import check_source

    checked = check_source(Source(name, text), use_prelude=False)
    assert checked.errors == 0, [str(d) for d in checked.diagnostics]
    return checked


def invent(checked: Any) -> tuple[dict, tuple]:
    """Constants and arguments as `--random-args --random-consts --seed 0` makes them."""
    import numpy as np

    from relay_text.eval.args import TypeDefs, random_value
    from relay_text.eval.plausible import roles, shape_role

    module, result = checked.module, checked.result
    found = roles(module, result.type_of)
    defs = TypeDefs(module, None)
    rng = np.random.default_rng([0, 1])
    consts = {
        i: shape_role(random_value(t, rng, defs, f"meta[{i}]"), found.get(("meta", i)))
        for i, t in sorted(result.meta_types.items())
    }
    params = module.functions[module.global_var("main")].params
    rng = np.random.default_rng(0)
    args = tuple(shape_role(random_value(p.type_annotation, rng, defs, p.name), found.get(p)) for p in params)
    return consts, args


def compiled(checked: Any, consts: dict) -> Any:
    from relay_text.eval.compile import compile_program

    module = checked.module
    gv = module.global_var("main")
    return compile_program(module, globals_=[gv], type_of=checked.result.type_of, constants=consts)


def half(value: Any) -> Any:
    import numpy as np

    return value.astype(np.float16) if getattr(value, "dtype", None) == np.float32 else value


def once(program: Any, args: tuple) -> tuple[float, Any, float]:
    """(seconds, result, CPU seconds of this process: every BLAS thread) of one run."""
    from relay_text.eval.runtime import DEFAULT_MAX_DEPTH, execute

    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    out = execute(program, "@main", args, DEFAULT_MAX_DEPTH)
    return time.perf_counter() - start, out, time.process_time() - cpu


def compare(name: str, text32: str, text16: str, repeat: int) -> tuple[Any, dict, tuple]:
    import numpy as np

    c32 = check(text32, name + " (float32)")
    c16 = check(text16, name + " (float16)")
    consts, args = invent(c32)
    p32 = compiled(c32, consts)
    consts16 = {i: half(v) for i, v in consts.items()}
    args16 = tuple(half(a) for a in args)
    for a in args + args16:  # every parameter but the first is a weight: read-only, as a dump's constants are
        if a is not args[0] and a is not args16[0] and hasattr(a, "flags"):
            a.flags.writeable = False
    p16 = compiled(c16, consts16)
    out32 = once(p32, args)[1]  # warm-up
    out16 = once(p16, args16)[1]
    runs = [(once(p32, args), once(p16, args16)) for _ in range(repeat)]
    before = _numpy_conversions(p16, args16, repeat)
    pairs = [(r32[0], r16[0]) for r32, r16 in runs]
    cpu = [(r32[2], r16[2]) for r32, r16 in runs]
    b32, b16 = min(p[0] for p in pairs), min(p[1] for p in pairs)
    m32, m16 = statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
    c32, c16 = min(p[0] for p in cpu), min(p[1] for p in cpu)
    n32, n16 = statistics.median(p[0] for p in cpu), statistics.median(p[1] for p in cpu)
    a, b = np.asarray(out16, dtype=np.float32), np.asarray(out32, dtype=np.float32)
    diff = float(np.max(np.abs(a - b))) / max(float(np.max(np.abs(b))), 1e-30)
    print(f"{name}:")
    print(f"  float32                   {b32 * 1000:9.1f} ms best, {m32 * 1000:9.1f} median")
    print(f"  float16                   {b16 * 1000:9.1f} ms best, {m16 * 1000:9.1f} median")
    print(
        f"  ratio float16 / float32   {b16 / b32:9.2f}    best, {m16 / m32:9.2f} median   "
        f"(target <= 2: {_verdict(b16 / b32 <= 2, m16 / m32 <= 2)}; load {os.getloadavg()[0]:.2f})"
    )
    print(f"  float32 CPU time          {c32 * 1000:9.1f} ms best, {n32 * 1000:9.1f} median")
    print(f"  float16 CPU time          {c16 * 1000:9.1f} ms best, {n16 * 1000:9.1f} median")
    print(
        f"  ratio of CPU times        {c16 / c32:9.2f}    best, {n16 / n32:9.2f} median   "
        f"(target <= 2: {_verdict(c16 / c32 <= 2, n16 / n32 <= 2)}; load {os.getloadavg()[0]:.2f})"
    )
    if before is not None:
        old, old_cpu = [b[0] for b in before], [b[2] for b in before]
        bo, mo = min(old), statistics.median(old)
        print(f"  float16, numpy conversions{bo * 1000:9.1f} ms best, {mo * 1000:9.1f} median   (before; interleaved)")
        print(
            f"  float16 CPU, numpy conv.  {min(old_cpu) * 1000:9.1f} ms best, "
            f"{statistics.median(old_cpu) * 1000:9.1f} median   (ratio to float32: {min(old_cpu) / c32:.2f} best)"
        )
        same = all(b[1].tobytes() == out16.tobytes() for b in before)
        print(f"  same float16 bits either way: {same}")
    print(f"  largest difference        {diff:9.1e}    of the largest float32 output ({out16.dtype} result)")
    return c16, consts16, args16


def _numpy_conversions(p16: Any, args16: tuple, repeat: int) -> list[tuple[float, Any, float]] | None:
    """The float16 program with numpy converting, `repeat` runs each between
    two runs with the compiled loops (None where they are not used)."""
    from relay_text.compiled import Compiled
    from relay_text.ops import _half

    if not _half.available():
        return None
    loops = _half.LOOPS
    out = []
    for _ in range(repeat):
        _half.LOOPS = Compiled.decided(None)
        try:
            out.append(once(p16, args16))
        finally:
            _half.LOOPS = loops
        once(p16, args16)
    return out


def _verdict(best: bool, median: bool) -> str:
    """`pass`, `miss`, or which of best and median passes."""
    if best == median:
        return "pass" if best else "miss"
    return "pass by the best, miss by the median" if best else "miss by the best, pass by the median"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="BLAS threads (default: all cores)")
    parser.add_argument("--unwidened", action="store_true", help="also time the GPT-2 block the old way, once")
    parser.add_argument("--model", type=Path, default=RESNET)
    options = parser.parse_args()
    if options.threads:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(options.threads)
    import numpy as np

    threads = options.threads or os.environ.get("OPENBLAS_NUM_THREADS") or os.cpu_count()
    from relay_text.ops import _half

    print(f"numpy {np.__version__}, BLAS threads: {threads} ({os.cpu_count()} cores)")
    print(f"compiled float16 conversions: {'on' if _half.available() else 'off (numba missing)'}")

    text = options.model.read_text()
    assert text.count("float32") >= 1
    compare(f"ResNet-50 ({options.model.name})", text, text.replace("float32", "float16"), options.repeat)
    c16, consts16, args16 = compare(
        "GPT-2 style block (128 x 768, 12 heads)", gpt2_block("float32"), gpt2_block("float16"), options.repeat
    )

    if options.unwidened:
        from relay_text.eval import call_sites

        keep = call_sites.keeps_low_precision
        call_sites.keeps_low_precision = lambda name: True  # every operator on float16 arrays as they are
        try:
            seconds = once(compiled(c16, consts16), args16)[0]
        finally:
            call_sites.keeps_low_precision = keep
        print(f"  float16 kernels on float16 arrays (before): {seconds * 1000:.1f} ms, once")
    print(f"load average while measuring: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
