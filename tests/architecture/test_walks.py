"""The four walks of docs/architecture.md ("Four walks, file by file") name
files that exist: a file moved or renamed without the walk following fails
here, naming it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"


def walk_paths() -> list[str]:
    """The repository paths (`relay_text/...`, `tests/...`, `docs/...`, ...) the walks name."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Four walks, file by file", 1)[1].split("\n## ", 1)[0]
    found = re.findall(r"`((?:relay_text|tests|docs|grammar|editors)/[^`\s]+)`", section)
    return sorted(set(found))


def test_the_walks_name_files() -> None:
    assert len(walk_paths()) > 25


def test_every_file_a_walk_names_exists() -> None:
    """Catches a walk gone stale: e.g. the printer moving from
    relay_text/syntax/printer.py to relay_text/printer/ leaves step 3 of
    "Add a syntax form" naming a file that is gone. A `<group>/<module>`
    placeholder must name an existing directory above it."""
    missing = []
    for path in walk_paths():
        concrete = path.split("<", 1)[0].rpartition("/")[0] if "<" in path else path
        if not (ROOT / concrete).exists():
            missing.append(path)
    assert missing == []
