"""`relay check FILE` and `relay fmt --check FILE` on a small file import only
what the file needs: no numpy, no JSON schema, no evaluator, no operator
family the program does not use (benchmarks/latency.py measures the time).

Each command runs in a fresh interpreter, which writes the names in
`sys.modules` when it exits."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# A small program that uses one operator (`add`, through `+`) and an ADT.
SMALL = """\
data Maybe<a> {
  Nothing : () -> Maybe
  Just : (a) -> Maybe
}

def @get(%m : Maybe[Tensor[(), int32]]) -> Tensor[(), int32] {
  match (%m) {
    case Nothing() { 0 }
    case Just(%x) { %x + 1 }
  }
}

def @main() -> Tensor[(), int32] {
  @get(Just(41))
}
"""

# Neither command needs these on a small valid file.
NEVER = [
    # The flags are read by `launch` (relay_text/launch.py), not by click.
    "click",
    "relay_text.cli",
    # Record classes are made by relay_text/record.py (a class without a
    # docstring would load `inspect` to write one).
    "dataclasses",
    "inspect",
    "numpy",
    "rich",
    "jsonschema",
    "json",
    "concurrent.futures",
    "multiprocessing",
    "relay_text.eval",
    "relay_text.lsp",
    "relay_text.passes",
    "relay_text.schemas",
    # Operator families are loaded per operator used (`relay_text.ops._index`).
    "relay_text.ops.nn",
    "relay_text.ops.image",
    "relay_text.ops.vision",
    "relay_text.ops.qnn",
    "relay_text.ops.random",
    "relay_text.ops.algorithm",
    "relay_text.ops.dyn",
    "relay_text.ops.memory",
    "relay_text.ops.annotation",
    "relay_text.ops._vision",
]

_RUN = textwrap.dedent(
    """\
    import atexit, runpy, sys
    out, args = sys.argv[1], sys.argv[2:]
    atexit.register(lambda: open(out, "w").write("\\n".join(sorted(sys.modules))))
    sys.argv = ["relay", *args]
    runpy.run_module("relay_text", run_name="__main__", alter_sys=True)
    """
)


def _imported(tmp_path: Path, *args: str) -> set[str]:
    """The modules loaded when `relay ARGS` exits (it must exit 0)."""
    out = tmp_path / "modules.txt"
    proc = subprocess.run(
        [sys.executable, "-c", _RUN, str(out), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return set(out.read_text().splitlines())


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("startup") / "small.relay"
    path.write_text(SMALL)
    return path


@pytest.mark.parametrize("args", [("check",), ("fmt", "--check")], ids=["check", "fmt-check"])
def test_small_file_imports_nothing_heavy(small: Path, tmp_path: Path, args: tuple[str, ...]) -> None:
    modules = _imported(tmp_path, *args, str(small))
    # The command did run (its own stage is loaded)...
    assert "relay_text.commands" in modules
    assert ("relay_text.check.infer" if args[0] == "check" else "relay_text.printer.render") in modules
    # ...without these (nor any submodule of them).
    heavy = sorted(m for m in modules for never in NEVER if m == never or m.startswith(never + "."))
    assert heavy == []
    # The checker loads `add` from its own module of the tensor family, not
    # the whole family; the formatter loads no operator.
    ops = sorted(m for m in modules if m.startswith("relay_text.ops.tensor"))
    assert ops == (["relay_text.ops.tensor", "relay_text.ops.tensor.elementwise"] if args[0] == "check" else [])


def test_fmt_check_does_not_run_the_type_checker(small: Path, tmp_path: Path) -> None:
    modules = _imported(tmp_path, "fmt", "--check", str(small))
    assert not {m for m in modules if m.startswith(("relay_text.check.infer", "relay_text.check.solver"))}


# A program that names the Prelude (`@length`, `Cons`, `Nil`) without defining it.
USES_PRELUDE = "def @main() {\n  @length(Cons(1, Nil()))\n}\n"


@pytest.mark.parametrize("text", [SMALL, USES_PRELUDE], ids=["own-names", "prelude-names"])
def test_fmt_check_does_not_import_the_checker(tmp_path: Path, text: str) -> None:
    """The formatter reads a program without the checker, whether or not it
    names the Prelude (reading the Prelude needs only the parser); the IR's
    comparison and the standard library's checking stay unloaded too."""
    path = tmp_path / "program.relay"
    path.write_text(text)
    modules = _imported(tmp_path, "fmt", "--check", str(path))
    assert "relay_text.printer.render" in modules
    assert sorted(m for m in modules if m == "relay_text.check" or m.startswith("relay_text.check.")) == []
    assert "relay_text.ir.alpha" not in modules


def test_importing_the_package_loads_no_stage() -> None:
    """`import relay_text` loads none of its stages: each is imported by the
    function or command that uses it."""
    code = "import relay_text, sys; print(sorted(m for m in sys.modules if m.startswith('relay_text')))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert proc.stdout.strip() == "['relay_text']"


def test_the_check_function_survives_the_checker_package() -> None:
    """`relay_text.check` is the function before and after the checker package
    of the same name is imported, and the checker, imported alone, checks a
    module naming the Prelude against it (`check_module`'s default)."""
    code = textwrap.dedent(
        """\
        import relay_text
        before = relay_text.check
        from relay_text.check import check_module
        import relay_text.check as also
        module = relay_text.parse("def @main() { @length(Cons(1, Nil())) }")
        result = check_module(module)
        print(relay_text.check is before, also is before, callable(before), result.ok,
              sorted(str(t) for t in result.global_types.values()))
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True True True True ['fn() -> Tensor[(), int32]']"
