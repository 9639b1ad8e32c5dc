"""Lint and type checks of the code base, run with the suite (and so in CI).

ruff (the rule sets chosen in pyproject.toml: pycodestyle, pyflakes,
bugbear, simplify, pyupgrade and ruff's own) must find nothing, and
`ruff format` must leave every file as it is. mypy runs on `relay_text/` in
strict mode (`strict = true` in pyproject.toml) and must report no error.
No module of `relay_text/` is longer than 600 lines, generated tables aside.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_ERROR = re.compile(r"^(?P<path>[^:\n]+\.py):\d+: error: ", re.M)


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@pytest.mark.skipif(not _installed("ruff"), reason="ruff is not installed (pip install -e '.[test]')")
def test_ruff_finds_nothing() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "relay_text", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.skipif(not _installed("ruff"), reason="ruff is not installed (pip install -e '.[test]')")
def test_ruff_format_changes_nothing() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "relay_text", "tests", "benchmarks", "fuzz"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.slow
@pytest.mark.skipif(not _installed("mypy"), reason="mypy is not installed (pip install -e '.[test]')")
def test_mypy_strict_reports_no_error() -> None:
    """`strict = true` in pyproject.toml: a new bare `list`, an untyped
    function or a call returning `Any` where a type is declared fails here
    with mypy's own message."""
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--cache-dir", str(ROOT / ".mypy_cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode in (0, 1), run.stdout + run.stderr  # 2: mypy itself failed
    assert run.returncode == 0 and not _ERROR.search(run.stdout), run.stdout


GENERATED = {"relay_text/ops/_index.py"}


def test_no_module_is_over_600_lines() -> None:
    """A module that grows past 600 lines is split along its seams (e.g. a
    2,000-line `cli.py` holding every command's body fails here)."""
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted((ROOT / "relay_text").rglob("*.py"))
    }
    assert {name: n for name, n in sizes.items() if n > 600 and name not in GENERATED} == {}
