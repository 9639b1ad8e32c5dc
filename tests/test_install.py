"""A regular (non-editable) install into a fresh virtualenv works on its own.

This is what the README's first command does; it proves the grammar ships
inside the wheel and nothing is read from the source tree.
"""

from __future__ import annotations

import os
import subprocess
import venv
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES


@pytest.mark.slow
def test_non_editable_install(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    pip = subprocess.run(
        [str(bindir / "python"), "-m", "pip", "install", "--quiet", str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert pip.returncode == 0, pip.stderr[-2000:]
    # Run from an unrelated directory so the checkout cannot be imported.
    result = subprocess.run(
        [str(bindir / "relay"), "check", str(SAMPLES / "adt_numbers.rly")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"NO_COLOR": "1"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == "No errors in 1 file\n"
    where = subprocess.run(
        [str(bindir / "python"), "-c", "import relay_text, sys; sys.stdout.write(relay_text.__file__)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    installed = Path(where.stdout).parent
    assert installed.is_relative_to(env_dir), where.stdout
    assert (installed / "grammar" / "relay.lark").is_file()
    assert (installed / "std" / "prelude.rly").is_file()
    assert (installed / "py.typed").is_file()
    assert sorted(p.name for p in (installed / "schemas").iterdir()) == [
        "check.schema.json",
        "run.schema.json",
        "summary.schema.json",
    ]
    assert all((installed / "viz" / name).is_file() for name in ("place.js", "viewer.js", "viewer.css", "viewer.html"))
    (dist_info,) = installed.parent.glob("relay_text-*.dist-info")
    assert (dist_info / "licenses" / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    assert "License-Expression: Apache-2.0" in (dist_info / "METADATA").read_text()
    # The README's first command: run the tour sample with the installed tool.
    tour = subprocess.run(
        [str(bindir / "relay"), "run", str(SAMPLES / "tour.rly")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"NO_COLOR": "1"},
    )
    assert (tour.returncode, tour.stderr) == (0, "")
    assert tour.stdout.endswith("Cons(50, Cons(40, Nil())))\n")
