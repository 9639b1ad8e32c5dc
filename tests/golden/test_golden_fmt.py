"""Golden tests for `relay fmt`: one file per case in tests/golden/fmt/
(`*.golden`, so that `relay fmt .` leaves them alone).

A case is the input text, a marker line, and the expected output:

    def @f(%x) {%x}
    ----- output -----
    def @f(%x) {
      %x
    }

The marker may carry options: `----- output dialect=tvm line-length=40 -----`.
Each case also checks that the expected output formats to itself.

Set RELAY_UPDATE_GOLDEN=1 to rewrite the expected outputs after reviewing
a deliberate change.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from relay_text.formatter import format

CASES = Path(__file__).parent / "fmt"
MARKER = re.compile(r"^----- output(?P<options>(?: [a-z-]+=[a-z0-9]+)*) -----$", re.MULTILINE)


def load(path: Path) -> tuple[str, dict, str, re.Match]:
    text = path.read_text(encoding="utf-8")
    found = list(MARKER.finditer(text))
    assert len(found) == 1, f"{path.name}: expected exactly one marker line"
    marker = found[0]
    options = {}
    for item in marker.group("options").split():
        key, value = item.split("=")
        options[key.replace("-", "_")] = int(value) if value.isdigit() else value
    source = text[: marker.start()]
    expected = text[marker.end() + 1 :]
    return source, options, expected, marker


@pytest.mark.parametrize("path", sorted(CASES.glob("*.golden")), ids=lambda p: p.stem)
def test_golden(path: Path) -> None:
    source, options, expected, marker = load(path)
    actual = format(source, **options)
    if os.environ.get("RELAY_UPDATE_GOLDEN") and actual != expected:
        text = path.read_text(encoding="utf-8")
        path.write_text(text[: marker.end() + 1] + actual, encoding="utf-8")
        expected = actual
    assert actual == expected
    again = {k: v for k, v in options.items() if k != "dialect"}
    assert format(expected, **again) == expected, "the expected output is not a fixed point"


def test_every_case_is_collected() -> None:
    assert len(list(CASES.glob("*.golden"))) >= 25


@pytest.mark.parametrize("path", sorted((Path(__file__).parents[2] / "samples").glob("*.rly")), ids=lambda p: p.name)
def test_every_sample_is_in_the_normal_form(path: Path) -> None:
    """The project's own programs are what `relay fmt` writes (CI's `relay fmt --check samples/`)."""
    text = path.read_text(encoding="utf-8")
    assert format(text) == text


@pytest.mark.parametrize(
    "path", sorted((Path(__file__).parents[2] / "samples" / "errors").glob("*.rly")), ids=lambda p: p.name
)
def test_every_error_sample_that_parses_is_in_the_normal_form(path: Path) -> None:
    """The documents' mistakes in samples/errors/ are formatted too (fmt needs
    syntax, not names or types); those with syntax errors are refused with
    `syntax-error` diagnostics only."""
    from relay_text.diagnostics import RelayError

    text = path.read_text(encoding="utf-8")
    try:
        formatted = format(text)
    except RelayError as exc:
        assert {d.code for d in exc.diagnostics if d.severity == "error"} == {"syntax-error"}
        return
    assert formatted == text
