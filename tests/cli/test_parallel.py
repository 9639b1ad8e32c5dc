"""Many files are checked and formatted in several processes, with the same
output, in the same order, as one process gives."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from relay_text.batch import PARALLEL_MIN_BYTES, workers
from tests.conftest import ROOT

PROGRAMS = [
    "def @main() {{ {i} }}\n",
    "def @f{i}(%x : int32) {{ %x + %y }}\n",  # an error
    "def @g{i}(%x : int32) {{\n  %0 = add(%x, 1);\n  %x\n}}\n",  # a warning
    "def @h{i}(%x: float32,%y :float32){{%x*%y}}\n",  # needs formatting
    "def @k{i}() {{ (1, 2 }}\n",  # a syntax error
]


def relay(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "relay_text", *args], capture_output=True, text=True, env=env, cwd=cwd)


@pytest.fixture
def twenty(tmp_path: Path) -> Path:
    folder = tmp_path / "src"
    folder.mkdir()
    for i in range(20):
        (folder / f"m{i:02}.rly").write_text(PROGRAMS[i % len(PROGRAMS)].format(i=i))
    return folder


@pytest.mark.parametrize(
    "command",
    [
        ["check"],
        ["check", "--types"],
        ["check", "--output-format", "json"],
        ["check", "-W", "error"],
        ["fmt", "--diff"],
        ["fmt", "--check"],
    ],
    ids=lambda c: " ".join(c),
)
def test_twenty_files_in_processes_give_what_one_process_gives(twenty: Path, command: list[str]) -> None:
    serial = relay([*command, "--jobs", "1", "src"], twenty.parent)
    parallel = relay([*command, "--jobs", "3", "src"], twenty.parent)
    assert serial.returncode in (1, 2), serial.stderr
    assert (parallel.returncode, parallel.stdout, parallel.stderr) == (serial.returncode, serial.stdout, serial.stderr)
    # (the unbound `%y` is `relay check`'s: `relay fmt` formats those files)
    assert serial.stderr.count("error[") + serial.stdout.count('"severity": "error"') >= (
        4 if command[0] == "fmt" else 8
    )


def test_formatting_in_processes_writes_every_file(twenty: Path) -> None:
    result = relay(["fmt", "--jobs", "2", "src"], twenty.parent)
    assert result.returncode == 2  # the four files that do not parse
    assert result.stderr.endswith("16 files reformatted, 4 files failed to reformat\n")
    assert (twenty / "m03.rly").read_text() == "def @h3(%x : float32, %y : float32) {\n  %x * %y\n}\n"
    again = relay(["fmt", "--check", "--jobs", "2", "src"], twenty.parent)
    assert "would reformat" not in again.stderr


def test_how_many_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import relay_text.batch as batch

    small = []
    for i in range(6):
        path = tmp_path / f"s{i}.rly"
        path.write_text("def @main() { 1 }\n")
        small.append(str(path))
    big = tmp_path / "big.rly"
    big.write_text("def @main() { 1 }\n" + "// padding\n" * (PARALLEL_MIN_BYTES // 11 + 1))
    monkeypatch.setattr(batch, "cpu_count", lambda: 4)
    assert workers(None, small) == 1  # too little work to pay for the processes
    assert workers(None, [*small, str(big)]) == 4
    assert workers(None, [str(big)] * 4) == 1  # four files or fewer: one process
    assert workers(2, small[:1]) == 1  # never more processes than files
    assert workers(3, small) == 3
    monkeypatch.setattr(batch, "cpu_count", lambda: 1)
    assert workers(None, [*small, str(big)]) == 1
