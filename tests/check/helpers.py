"""Shared helpers for type checker tests."""

from __future__ import annotations

from relay_text.check import CheckResult, check_module
from relay_text.diagnostics import Diagnostic
from relay_text.ir.span import Source
from relay_text.pipeline import check_source
from relay_text.syntax.parser import parse
from relay_text.text.type_text import type_text


def checked(text: str, name: str = "test.rly") -> CheckResult:
    """Parse (asserting no syntax errors) and type-check."""
    parsed = parse(text, name)
    assert parsed.module is not None, [str(d) for d in parsed.diagnostics]
    assert not [d for d in parsed.diagnostics if d.is_error], [str(d) for d in parsed.diagnostics]
    return check_module(parsed.module)


def global_types(text: str) -> dict[str, str]:
    """`@name` -> type in the documented syntax, asserting the program has no errors."""
    result = checked(text)
    errors = [str(d) for d in result.diagnostics if d.is_error]
    assert not errors, errors
    return {f"@{gv.name}": type_text(t) for gv, t in result.global_types.items()}


def diagnostics(text: str, name: str = "test.rly") -> list[Diagnostic]:
    """Everything `relay check` reports for the text (parse and type diagnostics)."""
    return check_source(Source(name, text)).diagnostics


def located(text: str) -> list[tuple[str, int, int]]:
    """(code, line, column) of each diagnostic, in source order."""
    out = []
    for d in diagnostics(text):
        _, line, col, _, _ = d.location()
        out.append((d.code, line, col))
    return out


def only(text: str) -> Diagnostic:
    """The single diagnostic the text produces."""
    ds = diagnostics(text)
    assert len(ds) == 1, [str(d) for d in ds]
    return ds[0]
