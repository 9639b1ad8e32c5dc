"""Helpers shared by the benchmark scripts: program generators and timing."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from collections.abc import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# The figures measure the work: `relay check` and `relay fmt` do not skip the
# files an earlier run found clean (relay_text/cache.py) in these scripts or
# the commands they start. big_files.py measures the cache on its own line.
os.environ["RELAY_NO_CACHE"] = "1"


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


CORPUS = ROOT.parent / "shared" / "corpus"
# The model dumps a big file is built from: each is one `def @main`.
MODELS = (
    "apache-tvm-menangerie-resnet50.rly",
    "apache-tvm-menangerie-gpt2.rly",
    "glenside-lstm-for-pldi.rly",
    "glenside-mobilenet.rly",
    "calyx-squeezenet-anf.rly",
)


def _model_bodies(comments: bool) -> list[tuple[str, str]]:
    """(name, text from `def @main` to its closing brace) of each corpus model."""
    import re

    bodies = []
    for name in MODELS:
        path = CORPUS / name
        if not path.is_file():
            continue
        text = path.read_text()
        text = text[text.index("def @main") :].rstrip() + "\n"
        if not comments:
            text = re.sub(r"\s*/\*.*?\*/", "", text)
            text = re.sub(r"\s*//[^\n]*", "", text)
        stem = re.sub(r"\W", "_", name.rsplit(".", 1)[0].split("-")[-1])
        bodies.append((stem, text))
    return bodies


def model_dump(size: int, comments: bool = True) -> str:
    """A TVM-format dump of about `size` bytes made of the corpus models:
    their definitions repeated, each copy renamed (`@resnet50_3`), its
    graph bindings renumbered so that numbers are unique in the file, as
    TVM's parser needs, and its `meta[relay.Constant][i]` indices moved past
    those of the copies before. With `comments`, the models keep theirs (`/* ty=...
    */` annotations, `//` lines) and every copy gets a leading comment and a
    trailing comment every 20 lines; without, every comment is removed.
    Without the corpus the synthetic `graph_dump` is returned."""
    import re

    bodies = _model_bodies(comments)
    if not bodies:
        return graph_dump(size)
    parts = ['#[version = "0.0.5"]\n']
    total = len(parts[0])
    offset = constants = 0
    copy = 0
    number = re.compile(r"%(\d+)\b")
    meta = re.compile(r"(meta\[relay\.Constant\]\[)(\d+)\]")
    while total < size:
        stem, body = bodies[copy % len(bodies)]
        used = [int(n) for n in number.findall(body)]
        indices = [int(n) for _, n in meta.findall(body)]
        text = number.sub(lambda m, offset=offset: f"%{int(m.group(1)) + offset}", body)
        text = meta.sub(lambda m, constants=constants: f"{m.group(1)}{int(m.group(2)) + constants}]", text)
        constants += max(indices, default=-1) + 1
        text = text.replace("def @main", f"def @{stem}_{copy}", 1)
        if comments:
            lines = text.split("\n")
            for i in range(20, len(lines) - 2, 20):
                if lines[i].endswith(";"):
                    lines[i] += f"  // line {i} of copy {copy}"
            text = f"// {stem}, copy {copy}\n" + "\n".join(lines)
        parts.append(text)
        total += len(text)
        offset += max(used, default=0) + 1
        copy += 1
    return "".join(parts)


def graph_dump(size: int) -> str:
    """A synthetic TVM-format dump of about `size` bytes: one function, a
    long chain of graph bindings over small tensors with `/* ty=... */`
    annotations (already in the formatter's normal form)."""
    lines = [
        '#[version = "0.0.5"]',
        "def @main(%x: Tensor[(1, 64), float32], %w: Tensor[(64, 64), float32]) -> Tensor[(1, 64), float32] {",
    ]
    ops = [
        "add(%{p}, 1f /* ty=float32 */) /* ty=Tensor[(1, 64), float32] */",
        "nn.dense(%{p}, %w, units=None) /* ty=Tensor[(1, 64), float32] */",
        "multiply(%{p}, 0.5f /* ty=float32 */) /* ty=Tensor[(1, 64), float32] */",
        "tanh(%{p}) /* ty=Tensor[(1, 64), float32] */",
    ]
    total = sum(len(line) + 1 for line in lines)
    i = 0
    prev = "x"
    while total < size:
        line = f"  %{i} = {ops[i % len(ops)].format(p=prev)};"
        lines.append(line)
        total += len(line) + 1
        prev = str(i)
        i += 1
    lines.append(f"  %{prev}")
    lines.append("}")
    return "\n".join(lines) + "\n"
