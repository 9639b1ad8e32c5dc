"""`relay run` results a reader can take in: progress on a terminal,
tensor summaries, long lists and deep data cut short."""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from relay_text.cli import main
from relay_text.eval import progress
from relay_text.eval.display import result_text, tensor_summary
from relay_text.eval.show import value_text
from relay_text.eval.values import Data
from relay_text.ir.span import Source
from relay_text.pipeline import run_source
from relay_text.std import prelude

NIL, CONS, SOME = (prelude().constructors[name] for name in ("Nil", "Cons", "Some"))

# About a second of running on an idle machine, most of it at a depth over
# 1,000: 300,000 nested calls, each adding to a tensor (a counted operator call).
DEEP = """
def @count(%n : int32, %acc : Tensor[(4), float32]) -> Tensor[(4), float32] {
  if (%n == 0) { %acc } else { @count(%n - 1, %acc + 1f) }
}
def @main() { (@count(300000, zeros(shape=[4], dtype="float32")), ones(shape=[50, 40], dtype="float32")) }
"""


def run(args: list[str]):
    return CliRunner().invoke(main, ["run", *args], env={"NO_COLOR": "1"}, catch_exceptions=False)


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "prog.rly"
    path.write_text(text)
    return str(path)


def on_terminal(args: list[str], timeout: float = 120) -> tuple[int, str]:
    """Run `relay` with its standard output and error on a pseudo-terminal;
    its exit status and everything it wrote there."""
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    # The display from the start (not after a second), redrawn often enough
    # to be seen during the run.
    env.update(TERM="xterm-256color", COLUMNS="200", RELAY_PROGRESS_DELAY="0")
    proc = subprocess.Popen(
        [sys.executable, "-m", "relay_text", *args], stdin=slave, stdout=slave, stderr=slave, env=env
    )
    os.close(slave)
    out = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the other end closed (Linux)
                    break
                if not chunk:
                    break
                out += chunk
            elif proc.poll() is not None:
                break
    finally:
        os.close(master)
    return proc.wait(timeout=10), out.decode("utf-8", "replace")


def test_a_long_run_shows_its_progress_and_depth_on_a_terminal(tmp_path: Path) -> None:
    code, out = on_terminal(["run", write(tmp_path, DEEP)])
    assert code == 0, out
    # The live line: stage, operator calls, depth of the recursion, time.
    assert "running @main, " in out
    assert " operator calls, depth " in out
    assert "(limit 2,000,000)" in out
    # Erased at the end; the account of the run stays.
    assert "ran @main in " in out and " s (300,000 operator calls)" in out
    # The result follows; on a terminal the large tensor is summarised.
    assert out.endswith(
        "(\r\n  Tensor[(4), float32]\r\n  [300000. 300000. 300000. 300000.],\r\n"
        "  Tensor[(50, 40), float32]  min=1 max=1 mean=1 std=0 nan=0 inf=0,\r\n)\r\n"
        "\x1b[2m(1 large tensor summarised; --full prints every element, --no-summary numpy's layout)\x1b[0m\r\n"
    ), out[-600:]


def test_no_progress_and_numpys_layout_when_not_on_a_terminal(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(progress, "DELAY", 0.0)
    result = run([write(tmp_path, 'def @main() { ones(shape=[50, 40], dtype="float32") }')])
    assert result.exit_code == 0
    assert result.stderr == ""
    assert result.stdout.startswith("Tensor[(50, 40), float32]\n[[1. 1. 1. ... 1. 1. 1.]\n")


def test_progress_is_never_shown_on_a_pipe_or_a_dumb_terminal(monkeypatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("TERM", "xterm")
    assert progress.wanted(Terminal())
    assert not progress.wanted(io.StringIO())
    monkeypatch.setenv("TERM", "dumb")
    assert not progress.wanted(Terminal())


def test_operator_calls_are_counted_and_the_program_restored() -> None:
    """Calls of kernels count (a fused chain of in-place steps counts each
    of its operators); scalar code takes its fast path and is not counted."""
    text = """
    def @main(%x : Tensor[(3), float32], %n : int32) {
      let %y = negative(%x) * 2f;
      (sum(%y + 1f), %n * 2 + 1)
    }
    """
    with progress.terminal_progress(io.StringIO(), enabled=True) as tracker:
        ran = run_source(Source("t.rly", text), _request(np.ones(3, np.float32), 5))
    assert ran.ok, [str(d) for d in ran.diagnostics]
    assert tracker is not None and tracker.calls == [4]
    assert tracker.entry == "@main" and tracker.account().startswith("ran @main in ")
    assert progress._ACTIVE == []


def _request(*values: object):
    from relay_text.eval.entry import RunRequest

    return RunRequest(values=values)


def test_the_live_line_names_the_stage_the_calls_and_a_deep_recursion() -> None:
    tracker = progress.Tracker()
    tracker.stage = "running @main"
    tracker.calls[0] = 12345
    tracker.namespace, tracker.max_depth = {"DEPTH": 250_000}, 2_000_000
    assert tracker.line().startswith("running @main, 12,345 operator calls, depth 250,000 (limit 2,000,000), ")
    tracker.namespace = {"DEPTH": 12}
    assert ", depth" not in tracker.line()
    tracker.calls[0] = 0
    tracker.stage = "compiling"
    assert tracker.line().startswith("compiling, ") and tracker.line().endswith(" s")


# ---------------------------------------------------------------- tensor summaries


def test_tensor_summaries() -> None:
    values = np.array([1.0, -2.0, np.nan, 4.0, np.inf, -np.inf, 3.0], np.float32)
    assert tensor_summary(values) == "Tensor[(7), float32]  min=-2 max=4 mean=1.5 std=2.2913 finite=4 nan=1 inf=2"
    assert (
        tensor_summary(np.arange(12, dtype=np.int64).reshape(3, 4))
        == "Tensor[(3, 4), int64]  min=0 max=11 mean=5.5 std=3.4521"
    )
    assert tensor_summary(np.array([True, False, True])) == "Tensor[(3), bool]  true=2 false=1"
    assert tensor_summary(np.zeros((0, 3), np.float16)) == "Tensor[(0, 3), float16]  (no elements)"
    assert tensor_summary(np.full(2, np.nan, np.float64)) == "Tensor[(2), float64]  no finite elements: nan=2 inf=0"
    assert (
        tensor_summary(np.array([0.5, 1.5], np.float16))
        == "Tensor[(2), float16]  min=0.5 max=1.5 mean=1 std=0.5 nan=0 inf=0"
    )


def test_summary_rules() -> None:
    small, large = np.ones(3, np.float32), np.zeros((40, 40), np.int32)
    value = (small, large)
    summary = "Tensor[(40, 40), int32]  min=0 max=0 mean=0 std=0"
    layout = value_text(value)
    # Not on a terminal: numpy's layout; --summary: every tensor summarised.
    assert result_text(value) == (layout, 0)
    assert result_text(value, summary=True) == (
        f"(\n  Tensor[(3), float32]  min=1 max=1 mean=1 std=0 nan=0 inf=0,\n  {summary},\n)",
        0,
    )
    # On a terminal: tensors over 1,000 elements, unless --full or --no-summary.
    assert result_text(value, terminal=True) == (f"(\n  Tensor[(3), float32]\n  [1. 1. 1.],\n  {summary},\n)", 1)
    assert result_text(value, terminal=True, full=True) == (value_text(value, full=True), 0)
    assert result_text(value, terminal=True, summary=False) == (layout, 0)


def test_summary_on_the_command_line(tmp_path: Path) -> None:
    prog = write(tmp_path, "def @main() { (Constant(1, (2), int32), 2.5f) }")
    result = run([prog, "--summary"])
    assert (result.exit_code, result.stdout) == (0, "(\n  Tensor[(2), int32]  min=1 max=1 mean=1 std=0,\n  2.5,\n)\n")
    result = run([prog, "--summary", "--output-format", "json"])
    assert result.exit_code == 2
    assert "--summary is for the text output, not --output-format json" in result.stderr


# ---------------------------------------------------------------- long lists, deep data


def lst(n: int) -> Data:
    value = Data(NIL)
    for i in reversed(range(n)):
        value = Data(CONS, (np.int32(i), value))
    return value


def test_a_long_list_shows_its_first_elements_and_how_many_more() -> None:
    assert value_text(lst(20_000)) == (
        "Cons(0, Cons(1, Cons(2, Cons(3, Cons(4, Cons(5, Cons(6, Cons(7, Cons(8, Cons(9, "
        "...19,990 more elements))))))))))"
    )
    assert value_text(lst(100)) == value_text(lst(100), full=True)
    assert value_text(lst(100)).count("Cons(") == 100
    assert value_text(lst(20_000), full=True).count("Cons(") == 20_000
    # Inside other values too, each list counted on its own.
    assert value_text((lst(101), lst(1))).endswith("Cons(9, ...91 more elements)))))))))), Cons(0, Nil()))")


def test_deep_data_is_cut_at_64_levels() -> None:
    value: object = np.int32(7)
    for _ in range(100):
        value = Data(SOME, (value,))
    assert value_text(value) == "Some(" * 64 + "..." + ")" * 64
    assert value_text(value, full=True) == "Some(" * 100 + "7" + ")" * 100
    # A list's cells are one level: its elements are one level below it.
    nested: object = lst(3)
    for _ in range(70):
        nested = Data(CONS, (nested, Data(NIL)))
    assert value_text(nested) == "Cons(" * 64 + "..." + ", Nil())" * 64


def test_a_long_list_of_tensors_prints_cut_short_within_the_output_limit(tmp_path: Path) -> None:
    """The output limit counts what is printed: the first ten elements
    without --full, all of them with it."""
    prog = write(
        tmp_path,
        """def @main() { @map(fn (%i : int32) { cast(%i, "float32") * ones(shape=[10, 10], dtype="float32") },
                                @unfoldr(fn (%n : int32) {
                                  if (%n == 0) { None() } else { Some((%n, %n - 1)) }
                                }, 1000)) }""",
    )
    result = run([prog, "--max-output", "100K"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("Tensor[(10, 10), float32]") == 10
    assert "...990 more elements" in result.stdout
    result = run([prog, "--max-output", "100K", "--full"])
    assert result.exit_code == 1
    assert "more than the output limit of 100 KiB" in result.stderr
