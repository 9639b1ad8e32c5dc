"""How fast `relay run` evaluates programs, against Python doing the same.

    python benchmarks/run.py [--quick]

Prints, in one run:

(a) scalar and list programs, compiled once and then timed, against the
    same algorithm written by hand in CPython (plain ints, tuples as list
    cells): the sum of a 10^5-element list (the documents' recursive
    `@list_sum`), fib(20), ackermann(2, 3). Target: each within 10x.
(b) a tensor program (a 6-layer MLP, 512 wide, batch 64) against calling
    the same registry kernels directly from Python in the same order.
    Target: at most 5 % overhead.
(c) depth: counting a 10^6-element list built by recursion, in a fresh
    process, with its time and peak resident memory.
(d) compile time (IR to Python functions, after parsing and checking) of
    programs of 10^3, 10^4 and 10^5 let bindings, and its growth exponent.
(e) loops written as recursion (a function calling itself last, which
    runs as a loop), each in a fresh process: 300 iterations on a 1 MiB
    tensor (target: a peak of at most 16 MiB above the interpreter with
    numpy, where a frame held per iteration would take 300 MiB and more),
    and a counter to 10^6, with their times.

Each figure is the best CPU time of several repeats, the two sides of a
comparison measured alternately (the machine may be busy); BLAS runs on one
thread, so CPU time is the work done.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from collections.abc import Callable

# One BLAS thread: on a shared 2-core machine, multi-threaded matrix
# products make the tensor comparison measure the neighbours' load.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from relay_text.eval.compile import CompiledProgram, compile_program  # noqa: E402
from relay_text.eval.runtime import execute  # noqa: E402
from relay_text.eval.values import Data  # noqa: E402
from relay_text.ir.span import Source  # noqa: E402
from relay_text.pipeline import _type_lookup, check_source  # noqa: E402


def compiled(text: str, entry: str = "main") -> CompiledProgram:
    checked = check_source(Source(f"<{entry}>", text))
    errors = [str(d) for d in checked.diagnostics if d.is_error]
    assert not errors, errors
    module = checked.module
    assert module is not None
    std = checked.prelude  # (None for a program that uses nothing of the Prelude)
    return compile_program(
        module,
        globals_=[module.global_var(entry)],
        prelude=std.module if std is not None else None,
        type_of=_type_lookup(checked.result, std.checked() if std is not None else None),
    )


def race(first: Callable[[], Any], second: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """Best CPU times of two functions, measured alternately. CPU time (this
    process's, not the wall clock) because the machine is shared: other
    processes' load then changes the figures little."""
    a, b = [], []
    for _ in range(repeat):
        for fn, times in ((first, a), (second, b)):
            start = time.process_time()
            fn()
            times.append(time.process_time() - start)
    return min(a), min(b)


def deep_python(fn: Callable[[], Any]) -> Callable[[], Any]:
    """Run a recursive Python function with room to recurse (the same
    allowance the evaluator gives itself)."""

    def run() -> Any:
        out: list = []
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(1_000_000)
        old_stack = threading.stack_size(512 * 1024 * 1024)  # CPython 3.10 recurses in C
        worker = threading.Thread(target=lambda: out.append(fn()))
        worker.start()
        threading.stack_size(old_stack)
        worker.join()
        sys.setrecursionlimit(old)
        return out[0]

    return run


# ---------------------------------------------------------------- (a) scalars and lists

LIST_SUM = """
def @list_sum(%l : List[Tensor[(), int32]]) -> Tensor[(), int32] {
  match (%l) {
    case Nil() { 0 }
    case Cons(%h, %t) { %h + @list_sum(%t) }
  }
}
def @main(%l : List[Tensor[(), int32]]) -> Tensor[(), int32] { @list_sum(%l) }
"""

FIB = """
def @fib(%n : int32) -> int32 {
  if (%n < 2) { %n } else { @fib(%n - 1) + @fib(%n - 2) }
}
def @main() -> int32 { @fib(20) }
"""

ACKERMANN = """
def @ackermann(%m : Tensor[(), int32], %n : Tensor[(), int32]) -> Tensor[(), int32] {
  if (%m == 0) {
    %n + 1
  } else if (%m > 0 && %n == 0) {
    @ackermann(%m - 1, 1)
  } else {
    @ackermann(%m - 1, @ackermann(%m, %n - 1))
  }
}
def @main() -> int32 { @ackermann(2, 3) }
"""


def py_list_sum(cell: Any) -> int:
    if cell is None:
        return 0
    head, tail = cell
    return head + py_list_sum(tail)


def py_fib(n: int) -> int:
    if n < 2:
        return n
    return py_fib(n - 1) + py_fib(n - 2)


def py_ackermann(m: int, n: int) -> int:
    if m == 0:
        return n + 1
    if m > 0 and n == 0:
        return py_ackermann(m - 1, 1)
    return py_ackermann(m - 1, py_ackermann(m, n - 1))


def scalar_programs(quick: bool) -> list[tuple[str, float, float]]:
    from relay_text.std import prelude

    rows = []
    n = 100_000
    ctors = prelude().constructors
    relay_list: Any = Data(ctors["Nil"])
    py_list: Any = None
    for i in reversed(range(n)):
        relay_list = Data(ctors["Cons"], (np.int32(i % 100), relay_list))
        py_list = (i % 100, py_list)
    program = compiled(LIST_SUM)
    expected = sum(i % 100 for i in range(n))
    assert int(execute(program, "@main", (relay_list,))) == expected
    assert deep_python(lambda: py_list_sum(py_list))() == expected
    rows.append(
        (
            "list sum, 10^5 elements",
            *race(
                lambda: execute(program, "@main", (relay_list,)),
                deep_python(lambda: py_list_sum(py_list)),
                3 if quick else 7,
            ),
        )
    )
    program = compiled(FIB)
    assert int(execute(program, "@main")) == py_fib(20) == 6765
    rows.append(("fib(20)", *race(lambda: execute(program, "@main"), lambda: py_fib(20), 5 if quick else 15)))
    program = compiled(ACKERMANN)
    assert int(execute(program, "@main")) == py_ackermann(2, 3) == 9
    reps = 20 if quick else 100

    def relay_ack() -> None:
        for _ in range(reps):
            execute(program, "@main")

    def python_ack() -> None:
        for _ in range(reps):
            py_ackermann(2, 3)

    relay_t, py_t = race(relay_ack, python_ack, 5 if quick else 15)
    rows.append(("ackermann(2, 3)", relay_t / reps, py_t / reps))
    return rows


# ---------------------------------------------------------------- (b) tensors

LAYERS, WIDTH, BATCH = 6, 512, 256


def mlp_source() -> str:
    params = ", ".join(
        f"%w{i} : Tensor[({WIDTH}, {WIDTH}), float32], %b{i} : Tensor[({WIDTH}), float32]" for i in range(LAYERS)
    )
    lines = ['#[version = "0.0.5"]', f"def @main(%x : Tensor[({BATCH}, {WIDTH}), float32], {params}) {{"]
    prev = "%x"
    k = 0
    for i in range(LAYERS):
        lines.append(f"  %{k} = nn.dense({prev}, %w{i}, units={WIDTH});")
        lines.append(f"  %{k + 1} = nn.bias_add(%{k}, %b{i});")
        lines.append(f"  %{k + 2} = nn.relu(%{k + 1});")
        prev = f"%{k + 2}"
        k += 3
    lines.append(f"  nn.softmax({prev})")
    lines.append("}")
    return "\n".join(lines)


def tensor_program(quick: bool) -> tuple[float, float, float]:
    from relay_text.ops import registry

    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, WIDTH)).astype(np.float32)
    weights = []
    for _ in range(LAYERS):
        weights.append(
            (
                rng.standard_normal((WIDTH, WIDTH)).astype(np.float32) * 0.05,
                rng.standard_normal(WIDTH).astype(np.float32),
            )
        )
    args = (x, *[a for pair in weights for a in pair])
    program = compiled(mlp_source())

    dense, bias_add, relu, softmax = (registry.get(n) for n in ("nn.dense", "nn.bias_add", "nn.relu", "nn.softmax"))
    dense_attrs = dense.normalize_attrs([("units", WIDTH)])[0]
    bias_attrs = bias_add.normalize_attrs([])[0]
    relu_attrs = relu.normalize_attrs([])[0]
    softmax_attrs = softmax.normalize_attrs([])[0]

    def direct() -> Any:
        h = x
        for w, b in weights:
            h = relu.kernel((bias_add.kernel((dense.kernel((h, w), dense_attrs), b), bias_attrs),), relu_attrs)
        return softmax.kernel((h,), softmax_attrs)

    assert np.allclose(execute(program, "@main", args), direct())
    reps = 10 if quick else 40
    relay_time, direct_time = race(lambda: execute(program, "@main", args), direct, reps)
    # The fixed cost of one evaluation (limits, error state), measured alone.
    empty = compiled("def @main() { () }")
    fixed = race(lambda: execute(empty, "@main"), lambda: None, reps)[0]
    return relay_time, direct_time, fixed


# ---------------------------------------------------------------- (c) depth

DEPTH_PROGRAM = """
def @build(%n : int32) -> List[int32] {
  if (%n == 0) { Nil() } else { Cons(%n, @build(%n - 1)) }
}
def @main() -> int32 { @length(@build(1000000)) }
"""

# The peak resident memory of the process itself: VmHWM (ru_maxrss would
# include the parent's at the fork, which a benchmark that has run for a
# while makes larger than the child's).
PEAK = """
def peak_kb():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
"""

BASELINE_CHILD = """
import sys
sys.path.insert(0, {root!r})
import relay_text.pipeline, numpy
print(peak_kb())
"""

DEPTH_CHILD = (
    PEAK
    + """
import sys, time
sys.path.insert(0, {root!r})
from relay_text.ir.span import Source
from relay_text.pipeline import run_source
start = time.perf_counter()
ran = run_source(Source("depth.rly", {program!r}))
elapsed = time.perf_counter() - start
assert ran.ok, [str(d) for d in ran.diagnostics]
print(float(ran.value), elapsed, peak_kb())
"""
)


def depth_run(program: str = DEPTH_PROGRAM) -> tuple[float, float, float, float]:
    """(the value, seconds, peak RSS MiB) of a program run in a fresh
    process, and the peak RSS MiB of an interpreter that imported the
    evaluator and numpy."""
    baseline = subprocess.run(
        [
            sys.executable,
            "-c",
            PEAK + BASELINE_CHILD.format(root=str(ROOT)),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    out = subprocess.run(
        [sys.executable, "-c", DEPTH_CHILD.format(root=str(ROOT), program=program)],
        capture_output=True,
        text=True,
        check=True,
    )
    value, elapsed, rss_kb = out.stdout.split()
    return float(value), float(elapsed), int(rss_kb) / 1024, int(baseline.stdout) / 1024


# ---------------------------------------------------------------- (e) loops

TENSOR_LOOP = """
def @main() -> float32 {
  let %loop = fn (%i: int32, %a: Tensor[(512, 512), float32]) -> Tensor[(512, 512), float32] {
    if (%i >= 300) { %a } else { %loop(%i + 1, tanh(multiply(%a, 0.5f) + %a)) }
  };
  sum(%loop(0, ones(shape=[512, 512], dtype="float32")))
}
"""

COUNTER_LOOP = """
def @count(%i: int32, %n: int32, %acc: float32) -> float32 {
  if (%i >= %n) { %acc } else { @count(%i + 1, %n, %acc + 0.5f) }
}
def @main() -> float32 { @count(0, 1000000, 0f) }
"""
LOOP_MEMORY_TARGET = 16  # MiB above the interpreter with numpy


# ---------------------------------------------------------------- (d) compile time


def let_chain(n: int) -> str:
    lines = ["def @main(%x : Tensor[(4), float32]) {", "  let %x0 = %x;"]
    lines += [f"  let %x{i} = %x{i - 1} + %x;" for i in range(1, n)]
    lines += [f"  %x{n - 1}", "}"]
    return "\n".join(lines)


def compile_times(quick: bool) -> list[tuple[int, float]]:
    from relay_text.eval.runtime import relaxed_gc

    rows = []
    for n in (1_000, 10_000) if quick else (1_000, 10_000, 100_000):
        checked = check_source(Source("chain.rly", let_chain(n)))
        module = checked.module
        assert module is not None and not checked.errors
        std = checked.prelude
        type_of = _type_lookup(checked.result, std.checked() if std is not None else None)
        with relaxed_gc():
            start = time.process_time()
            prelude = std.module if std is not None else None
            compile_program(module, globals_=[module.global_var("main")], prelude=prelude, type_of=type_of)
            rows.append((n, time.process_time() - start))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    opts = parser.parse_args()

    print(f"Python {sys.version.split()[0]}, numpy {np.__version__}")
    print("\n(a) scalar and list programs vs hand-written CPython (target: <= 10x)")
    print(f"  {'program':<26}{'relay run':>12}{'CPython':>12}{'ratio':>8}")
    for name, relay_t, py_t in scalar_programs(opts.quick):
        print(f"  {name:<26}{relay_t * 1e3:>10.2f}ms{py_t * 1e3:>10.3f}ms{relay_t / py_t:>7.1f}x")

    relay_t, direct_t, fixed = tensor_program(opts.quick)
    print(f"\n(b) {LAYERS}-layer MLP ({BATCH}x{WIDTH}, float32) vs the same kernels called directly (target: <= 5 %)")
    print(
        f"  relay run {relay_t * 1e3:.2f} ms, kernels alone {direct_t * 1e3:.2f} ms: overhead "
        f"{100 * (relay_t - direct_t) / direct_t:+.1f} %"
    )
    print(f"  (of which {fixed * 1e6:.0f} us is the fixed cost of starting an evaluation)")

    value, elapsed, rss, base = depth_run()
    print("\n(c) depth: @length(@build(1000000)), 10^6 nested calls each, in a fresh process")
    print(
        f"  result {value:.0f}, {elapsed:.2f} s including parse and check; peak RSS {rss:.0f} MiB (interpreter "
        f"with numpy: {base:.0f} MiB)"
    )

    import math

    rows = compile_times(opts.quick)
    print("\n(d) compile time of a chain of n let bindings (after parse and check)")
    for n, t in rows:
        print(f"  n = {n:>7,}: {t:.3f} s ({t / n * 1e6:.1f} us per binding)")
    (n0, t0), (n1, t1) = rows[0], rows[-1]
    print(f"  growth exponent {math.log(t1 / t0) / math.log(n1 / n0):.2f} (1.00 is linear)")

    print("\n(e) loops written as recursion, each in a fresh process (times include parse and check)")
    value, elapsed, rss, base = depth_run(TENSOR_LOOP)
    verdict = "pass" if rss - base <= LOOP_MEMORY_TARGET else "MISS"
    print(
        f"  300 iterations on a 1 MiB tensor: {elapsed:.2f} s, peak RSS {rss:.0f} MiB, {rss - base:.0f} MiB above "
        f"the interpreter with numpy (target <= {LOOP_MEMORY_TARGET}: {verdict})"
    )
    value, elapsed, rss, base = depth_run(COUNTER_LOOP)
    print(f"  a counter to 10^6: result {value:.0f}, {elapsed:.2f} s, peak RSS {rss:.0f} MiB")


if __name__ == "__main__":
    main()
