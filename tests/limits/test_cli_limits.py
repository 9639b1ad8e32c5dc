"""`relay run --max-memory` and `--timeout`: a clear resource-limit error
and exit status 1, never a hang or a swapping machine."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from relay_text.cli import main

ROOT = Path(__file__).resolve().parents[2]

# 2^60 calls, never more than 60 deep.
RUNAWAY = """def @tree(%n: int64) -> int64 {
  if (%n == 0i64) { 1i64 } else { @tree(%n - 1i64) + @tree(%n - 1i64) }
}
def @main() { @tree(60i64) }
"""


def _relay(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "relay_text", *args],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def test_max_memory_stops_a_large_allocation(tmp_path: Path) -> None:
    prog = tmp_path / "z.rly"
    prog.write_text('def @main() {\n  zeros(shape=[1000, 1000], dtype="float32")\n}\n')
    result = CliRunner().invoke(main, ["run", "--max-memory", "1M", str(prog)], env={"NO_COLOR": "1"})
    assert result.exit_code == 1
    assert result.stderr.splitlines()[:2] == [
        (
            "error[resource-limit]: the result of `zeros` needs 3.81 MiB (1,000,000 elements), more than the "
            "memory limit of 1 MiB (--max-memory)"
        ),
        f" --> {prog}:2:3",
    ]
    # (1T: far above what the test process holds; on Python 3.10 that includes
    # the stack pages deep runs of earlier tests touched, several GiB)
    ok = CliRunner().invoke(main, ["run", "--max-memory", "1T", str(prog)], env={"NO_COLOR": "1"})
    assert ok.exit_code == 0 and ok.stdout.startswith("Tensor[(1000, 1000), float32]")


def test_a_malformed_max_memory_is_a_usage_error(tmp_path: Path) -> None:
    prog = tmp_path / "one.rly"
    prog.write_text("def @main() { 1 }\n")
    result = CliRunner().invoke(main, ["run", "--max-memory", "12Q", str(prog)])
    assert result.exit_code == 2
    assert "Invalid value for --max-memory: `12Q` is not a size (such as 512M, 2G or 1000000)" in result.stderr


def test_timeout_stops_a_runaway_program(tmp_path: Path) -> None:
    prog = tmp_path / "loop.rly"
    prog.write_text(RUNAWAY)
    start = time.monotonic()
    result = _relay("run", "--timeout", "3", str(prog))
    elapsed = time.monotonic() - start
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[0] == "error[resource-limit]: the run took longer than the limit of 3 s (--timeout)"
    assert lines[1].startswith(f" --> {prog}:")  # wherever it was running
    assert "running here when the time ran out" in result.stderr
    assert lines[-1] == "The program stopped with an error"
    assert "internal error" not in result.stderr
    assert elapsed < 30


def test_a_timeout_stops_the_run_where_it_is_and_the_next_run_works(tmp_path: Path) -> None:
    """In one process: the run is stopped inside the evaluator (on Python
    3.10 a thread of its own), located, and the evaluator is free again."""
    prog = tmp_path / "loop.rly"
    prog.write_text(RUNAWAY)
    start = time.monotonic()
    stopped = CliRunner().invoke(main, ["run", "--timeout", "1", str(prog)], env={"NO_COLOR": "1"})
    assert time.monotonic() - start < 15
    assert stopped.exit_code == 1
    assert (
        stopped.stderr.splitlines()[0] == "error[resource-limit]: the run took longer than the limit of 1 s (--timeout)"
    )
    assert stopped.stderr.splitlines()[1].startswith(f" --> {prog}:")
    one = tmp_path / "one.rly"
    one.write_text("def @main() { 1 + 1 }\n")
    again = CliRunner().invoke(main, ["run", "--timeout", "30", str(one)])
    assert again.exit_code == 0 and again.stdout == "2\n"


def test_a_program_within_its_timeout_runs(tmp_path: Path) -> None:
    prog = tmp_path / "one.rly"
    prog.write_text("def @main() { 1 + 1 }\n")
    result = CliRunner().invoke(main, ["run", "--timeout", "30", str(prog)])
    assert result.exit_code == 0 and result.stdout == "2\n"


def test_a_non_positive_timeout_is_a_usage_error(tmp_path: Path) -> None:
    prog = tmp_path / "one.rly"
    prog.write_text("def @main() { 1 }\n")
    assert CliRunner().invoke(main, ["run", "--timeout", "0", str(prog)]).exit_code == 2
