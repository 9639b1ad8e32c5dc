"""Lint and type checks of the code base, run with the suite (and so in CI).

ruff (the rules chosen in pyproject.toml: errors such as undefined or
unused names, not style) must pass everywhere. mypy runs on `relay_text/`
against a baseline, `mypy_baseline.json`: the number of errors per file,
taken with the pinned mypy and the numpy version it records (numpy's type
stubs change what mypy reports). A file may only lose errors: a new error
fails the test with its text. After fixing some, write the new counts with

    RELAY_UPDATE_MYPY_BASELINE=1 python -m pytest tests/architecture/test_lint.py
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BASELINE = Path(__file__).with_name("mypy_baseline.json")
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


def mypy_errors() -> tuple[Counter, str]:
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--cache-dir", str(ROOT / ".mypy_cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode in (0, 1), run.stdout + run.stderr  # 2: mypy itself failed
    return Counter(m.group("path") for m in _ERROR.finditer(run.stdout)), run.stdout


def versions() -> dict[str, str]:
    import mypy.version
    import numpy

    return {"mypy": mypy.version.__version__, "numpy": numpy.__version__}


@pytest.mark.slow
@pytest.mark.skipif(not _installed("mypy"), reason="mypy is not installed (pip install -e '.[test]')")
def test_mypy_reports_no_error_beyond_the_baseline() -> None:
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    if os.environ.get("RELAY_UPDATE_MYPY_BASELINE"):
        counts, _ = mypy_errors()
        BASELINE.write_text(
            json.dumps({**versions(), "errors": dict(sorted(counts.items()))}, indent=1) + "\n", encoding="utf-8"
        )
        return
    if versions() != {"mypy": baseline["mypy"], "numpy": baseline["numpy"]}:
        pytest.skip(
            f"the baseline was taken with mypy {baseline['mypy']} and numpy {baseline['numpy']}, not {versions()}"
        )
    counts, output = mypy_errors()
    worse = {
        path: (n, baseline["errors"].get(path, 0)) for path, n in counts.items() if n > baseline["errors"].get(path, 0)
    }
    new = "\n".join(line for line in output.splitlines() if line.split(":", 1)[0] in worse)
    assert not worse, f"mypy errors beyond the baseline (now, before) {worse}:\n{new}"
