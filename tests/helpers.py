"""Small helpers for tests: parse and look at the result."""

from __future__ import annotations

from relay_text.diagnostics import Diagnostic
from relay_text.ir.expr import Function
from relay_text.ir.module import Module
from relay_text.syntax.parser import parse


def parse_ok(text: str) -> Module:
    """Parse text that must have no diagnostics at all."""
    result = parse(text, "test.rly")
    assert result.module is not None, [str(d) for d in result.diagnostics]
    assert result.diagnostics == [], [str(d) for d in result.diagnostics]
    return result.module


def diagnostics(text: str) -> list[Diagnostic]:
    return parse(text, "test.rly").diagnostics


def only_diagnostic(text: str) -> Diagnostic:
    diags = diagnostics(text)
    assert len(diags) == 1, [str(d) for d in diags]
    return diags[0]


def where(d: Diagnostic) -> tuple[str, int, int]:
    """(code, line, column) of a diagnostic."""
    _, line, col, _, _ = d.location()
    return d.code, line, col


def func(module: Module, name: str = "main") -> Function:
    gv = module.global_var(name)
    assert gv is not None, f"@{name} is not defined"
    return module.functions[gv]


def body(text: str):
    """The trailing expression of a program."""
    module = parse_ok(text)
    assert module.expr is not None
    return module.expr
