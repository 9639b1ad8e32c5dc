"""The stages chained together for one file: parse, resolve, check.

Commands and the Python API call these; each returns diagnostics as data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .diagnostics import Diagnostic, sort_key
from .ir.module import Module
from .ir.span import Source


@dataclass
class Checked:
    """The outcome of `relay check` on one file."""

    source: Source
    module: Module | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    global_types: dict[str, str | None] = field(default_factory=dict)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.is_error)

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if not d.is_error)


def check_source(source: Source) -> Checked:
    """Parse and resolve names (type checking plugs in here)."""
    from .syntax.parser import parse_source

    result = parse_source(source)
    diags = sorted(result.diagnostics, key=sort_key)
    module = result.module
    global_types: dict[str, str | None] = {}
    if module is not None:
        global_types = {f"@{gv.name}": None for gv in module.functions}
    return Checked(source, module, diags, global_types)
