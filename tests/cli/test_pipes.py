"""A reader that stops early (`relay ... | head -1`) ends the command
quietly: status 0, no `internal error`, no traceback, as black does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

MANY_GLOBALS = "".join(f"def @f{i}(%x : int32) {{ %x }}\n" for i in range(3000))
MESSY = "".join(f"def @f{i}(%x:int32){{%x}}\n" for i in range(3000))
LONG_LIST = """\
def @build(%n : int32, %acc : List[int32]) -> List[int32] {
  if (%n == 0) { %acc } else { @build(%n - 1, Cons(%n, %acc)) }
}
def @main() { @build(50000, Nil()) }
"""


def first_line_then_close(args: list[str]) -> tuple[str, int, str]:
    """Run `python -m relay_text ARGS | head -1`: read one line, close the pipe."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "relay_text", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    line = proc.stdout.readline().decode()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    return line, proc.wait(timeout=120), err


@pytest.mark.parametrize(
    "command, text, first, expected",
    [
        (["check", "--types"], MANY_GLOBALS, "@f0 : fn(Tensor[(), int32]) -> Tensor[(), int32]\n", 0),
        # (a diff means a file would change: `relay fmt --diff | head` still fails CI)
        (["fmt", "--diff"], MESSY, "--- {path}\n", 1),
        (["run"], LONG_LIST, "Cons(1, Cons(2, ", 0),
    ],
    ids=["check-types", "fmt-diff", "run"],
)
def test_a_closed_pipe_ends_the_command_quietly(
    tmp_path: Path, command: list[str], text: str, first: str, expected: int
) -> None:
    path = tmp_path / "big.rly"
    path.write_text(text)
    line, status, err = first_line_then_close([*command, str(path)])
    assert line.startswith(first.format(path=path))
    assert status == expected, err
    assert "internal error" not in err and "Traceback" not in err and "Exception ignored" not in err


def test_a_closed_pipe_with_several_processes(tmp_path: Path) -> None:
    for i in range(8):
        (tmp_path / f"m{i}.rly").write_text(MANY_GLOBALS)
    line, status, err = first_line_then_close(["check", "--types", "--jobs", "2", str(tmp_path)])
    assert line == f"{tmp_path / 'm0.rly'}: @f0 : fn(Tensor[(), int32]) -> Tensor[(), int32]\n"
    assert status == 0, err
    assert "internal error" not in err and "Traceback" not in err


def test_python_dash_m_runs_the_cli() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    out = subprocess.run([sys.executable, "-m", "relay_text", "--help"], capture_output=True, text=True, env=env)
    assert out.returncode == 0
    assert out.stdout.startswith("Usage: relay [OPTIONS] COMMAND [ARGS]...")
    assert "explain" in out.stdout
