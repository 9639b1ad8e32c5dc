"""Helpers shared by the benchmark scripts: program generators and timing."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def graph_program(n: int) -> str:
    """A TVM-style dump: one function, `n` graph bindings, each used later."""
    lines = [
        '#[version = "0.0.5"]',
        "def @main(%a: Tensor[(10, 10), float32], %b: Tensor[(10, 10), float32]) -> Tensor[(10, 10), float32] {",
        "  %0 = add(%a, %b);",
    ]
    for i in range(1, n):
        op = ("multiply", "add", "subtract", "maximum")[i % 4]
        lines.append(f"  %{i} = {op}(%{i - 1}, %{'a' if i % 2 else 'b'}) /* ty=Tensor[(10, 10), float32] */;")
    lines.append(f"  %{n - 1}\n}}\n")
    return "\n".join(lines)


def let_program(n: int) -> str:
    """The documented style: a chain of `n` lets with annotations."""
    lines = ["def @main(%x0 : Tensor[(), int32]) -> Tensor[(), int32] {"]
    for i in range(n):
        lines.append(f"  let %x{i + 1} : Tensor[(), int32] = %x{i} * 2 + 1;  // step {i}")
    lines.append(f"  %x{n}\n}}\n")
    return "\n".join(lines)


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


TWENTY_LINES = """\
// A 20-line program: a list, a fold, and a main that uses them.
data List<a> {
  Nil : () -> List
  Cons : (a, List[a]) -> List
}

def @foldl<a, b>(%f : fn(b, a) -> b, %z : b, %l : List[a]) -> b {
  match (%l) {
    case Nil() { %z }
    case Cons(%h, %t) { @foldl(%f, %f(%z, %h), %t) }
  }
}

def @main() -> Tensor[(), int32] {
  let %l = Cons(1, Cons(2, Cons(3, Nil())));
  let %add = fn (%acc : Tensor[(), int32], %x : Tensor[(), int32]) { %acc + %x };
  @foldl(%add, 0, %l)
}

// 6
"""


def wall_time(cmd: list[str], repeat: int = 9) -> tuple[float, float]:
    """(best, median) wall seconds of a command, as a user would see it.

    Bytecode caches are allowed (some sandboxes set PYTHONDONTWRITEBYTECODE,
    which would make every run recompile the package), and one warm-up run
    writes them before timing.
    """
    import os

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(cmd, capture_output=True, check=False, env=env)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=False, env=env)
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def relay_command() -> str:
    exe = Path(sys.executable).parent / "relay"
    return str(exe) if exe.exists() else "relay"


def exponent(sizes: list[int], seconds: list[float]) -> float:
    """Slope of log(time) against log(size) between the two largest sizes."""
    import math

    return math.log(seconds[-1] / seconds[-2]) / math.log(sizes[-1] / sizes[-2])
