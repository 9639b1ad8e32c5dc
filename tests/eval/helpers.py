"""Running small programs in tests."""

from __future__ import annotations

from typing import Any

import relay_text
from relay_text.diagnostics import Diagnostic, RelayError
from relay_text.eval.show import value_json, value_text


def run(text: str, *args: Any, entry: str | None = None, max_depth: int | None = None) -> Any:
    return relay_text.run(text, *args, entry=entry, max_depth=max_depth)


def show(text: str, *args: Any, entry: str | None = None) -> str:
    """The text `relay run` prints for a program's result."""
    return value_text(run(text, *args, entry=entry))


def show_json(text: str, *args: Any) -> str:
    return value_json(run(text, *args))


def failure(text: str, *args: Any, entry: str | None = None, max_depth: int | None = None) -> Diagnostic:
    """The one error a program stops with."""
    try:
        value = run(text, *args, entry=entry, max_depth=max_depth)
    except RelayError as exc:
        errors = [d for d in exc.diagnostics if d.is_error]
        assert len(errors) == 1, [str(d) for d in errors]
        return errors[0]
    raise AssertionError(f"the program ran and gave {value_text(value)}")


def located(d: Diagnostic) -> tuple[str, int, int, int, int]:
    """(code, line, column, end line, end column) of a diagnostic."""
    _, line, col, end_line, end_col = d.location()
    return d.code, line, col, end_line, end_col
