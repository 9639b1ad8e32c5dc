"""Checker tests written as programs, mypy style.

Each file under `data/` is checked as `relay check` would; every diagnostic
must be announced by a comment on the line it points at, and every
announcement must be met:

    %x + 1.0f   // E@5: type-mismatch        error at column 5 of this line
    match (%l) { // E: non-exhaustive-match  error anywhere on this line
    case _ { 0 } // W@10: unreachable-clause  a warning

Several announcements may share a line.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from relay_text.ir.span import Source
from relay_text.pipeline import check_source

DATA = Path(__file__).parent / "data"
_EXPECT = re.compile(r"//\s*([EW])(?:@(\d+))?:\s*([a-z][a-z-]*)")


def _expected(text: str) -> list[tuple[str, int, int | None, str]]:
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        for m in _EXPECT.finditer(line):
            severity = "error" if m.group(1) == "E" else "warning"
            out.append((m.group(3), lineno, int(m.group(2)) if m.group(2) else None, severity))
    return out


FILES = sorted(DATA.glob("*.rly"))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_data_file(path: Path) -> None:
    text = path.read_text()
    expected = _expected(text)
    result = check_source(Source(path.name, text))
    actual = []
    for d in result.diagnostics:
        _, line, col, _, _ = d.location()
        actual.append((d.code, line, col, d.severity, d))
    unmatched = list(actual)
    missing = []
    for code, line, col, severity in expected:
        for a in unmatched:
            if a[0] == code and a[1] == line and a[3] == severity and (col is None or a[2] == col):
                unmatched.remove(a)
                break
        else:
            missing.append(f"{path.name}:{line}:{col or '*'}: {severity} {code}")
    extra = [f"{path.name}:{a[1]}:{a[2]}: {a[3]} {a[0]}: {a[4].message}" for a in unmatched]
    assert not missing and not extra, "\nmissing:\n  " + "\n  ".join(missing) + "\nunexpected:\n  " + "\n  ".join(extra)


def test_there_are_data_files() -> None:
    assert len(FILES) >= 8
