"""Diagnostic codes are registry objects (relay_text/diagnostics/codes.py),
never bare strings elsewhere in the package, and every code is documented
well enough for `relay explain`."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import pytest

from relay_text.diagnostics import Diagnostic
from relay_text.diagnostics.codes import REGISTRY, Code

PACKAGE = Path(__file__).resolve().parents[2] / "relay_text"


def test_no_code_is_written_as_a_bare_string() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "codes.py" and path.parent.name == "diagnostics":
            continue
        for tok in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
            if tok.type == tokenize.STRING and tok.string[:1] in "\"'" and tok.string[1:-1] in REGISTRY:
                found.append(f"{path.relative_to(PACKAGE)}:{tok.start[0]}: {tok.string}")
    assert found == []


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_code_is_documented(name: str) -> None:
    code = REGISTRY[name]
    assert isinstance(code, Code) and code == name
    assert code.summary and code.explanation and code.severity in ("error", "warning")


def test_an_unregistered_code_is_refused() -> None:
    with pytest.raises(ValueError, match="unregistered diagnostic code 'type-mismatc'"):
        Diagnostic("type-mismatc", "m", None)
    assert isinstance(Diagnostic("type-mismatch", "m", None).code, Code)
