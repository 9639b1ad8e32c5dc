"""`relay run --timeout` holds wherever the run is: inside a kernel that
would take half a minute (numpy's matrix product releases the GIL, so a
signal handler never ran until it ended), in a runaway recursion millions
of calls deep (whose unwinding took 15-30 s), and before the run; and the
message says where the time ran out. docs/limits.md."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from relay_text.cli import main
from tests.conftest import ROOT

# Five 6000x6000 matrix products: half a minute or more on two cores.
DENSE = """\
def @main() {
  %0 = ones(shape=[6000, 6000], dtype="float32");
  %1 = nn.dense(%0, %0);
  %2 = nn.dense(%1, %0);
  %3 = nn.dense(%2, %0);
  %4 = nn.dense(%3, %0);
  %5 = nn.dense(%4, %0);
  sum(%5)
}
"""
RECURSION = """\
def @f(%n: int32) -> int32 {
  if (%n == 0) { 0 } else { @f(%n - 1) + 1 }
}
def @main() { @f(1000000000) }
"""


def relay(*args: str) -> tuple[subprocess.CompletedProcess, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    start = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "relay_text", *args], capture_output=True, text=True, env=env, timeout=120
    )
    return result, time.monotonic() - start


# The deadlines leave time for starting, reading and compiling on a loaded
# machine, so that the time runs out in the run itself.


def test_a_long_kernel_is_stopped_at_the_deadline(tmp_path: Path) -> None:
    prog = tmp_path / "dense.rly"
    prog.write_text(DENSE)
    result, seconds = relay("run", "--timeout", "6", str(prog))
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[0] == "error[resource-limit]: the run took longer than the limit of 6 s (--timeout)"
    assert lines[1].startswith(f" --> {prog}:")
    assert "running here when the time ran out" in result.stderr
    assert "  = note: the time ran out inside the kernel of operator `nn.dense`" in lines
    assert lines[-1] == "The program stopped with an error"
    assert seconds < 30  # (it ran for half a minute and more; benchmarks/deadline.py measures the latency)


def test_a_deep_recursion_is_stopped_at_the_deadline(tmp_path: Path) -> None:
    prog = tmp_path / "rec.rly"
    prog.write_text(RECURSION)
    result, seconds = relay("run", "--timeout", "6", "--max-depth", "100000000", str(prog))
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[0] == "error[resource-limit]: the run took longer than the limit of 6 s (--timeout)"
    assert lines[1].startswith((f" --> {prog}:1:", f" --> {prog}:2:"))  # (a call of @f, or its entry)
    assert "  = note: `@f` was called at " + str(prog) + ":2:29, in `@f`" in lines
    assert "reading and checking" not in result.stderr and "Traceback" not in result.stderr
    assert seconds < 30


def test_the_stage_before_the_run_is_named(tmp_path: Path) -> None:
    """A deadline that passes while the file is parsed or checked says which
    (it said "reading and checking" for everything, even while running)."""
    prog = tmp_path / "p.rly"
    prog.write_text("".join(f"def @f{i}(%x: int32) -> int32 {{ %x + {i} }}\n" for i in range(20000)))
    result = CliRunner().invoke(
        main, ["run", "--timeout", "0.3", "--entry", "f0", "--arg", "x=1", str(prog)], env={"NO_COLOR": "1"}
    )
    assert result.exit_code == 1
    first = result.stderr.splitlines()[0]
    assert first in (
        f"error[resource-limit]: the run took longer than the limit of 0.3 s (--timeout) while parsing {prog}",
        f"error[resource-limit]: the run took longer than the limit of 0.3 s (--timeout) while checking {prog}",
    )
    assert result.stderr.splitlines()[-1] == "Stopped: out of time"


def test_a_max_depth_beyond_the_interpreters_limit_runs(tmp_path: Path) -> None:
    """(An internal error: the recursion limit is a C int.)"""
    prog = tmp_path / "p.rly"
    prog.write_text("def @main() { 1 }\n")
    result = CliRunner().invoke(main, ["run", "--max-depth", "3000000000", str(prog)])
    assert (result.exit_code, result.stdout) == (0, "1\n")
