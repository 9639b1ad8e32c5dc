"""The stages chained together for one file: parse, resolve names, type-check.

Commands and the Python API call these; each returns diagnostics as data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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
    result: Any = None  # the type checker's CheckResult, when the file parsed

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.is_error)

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if not d.is_error)


def check_source(source: Source, prelude: Any = None) -> Checked:
    """Parse, resolve names and type-check one file.

    `prelude` is an optional `relay_text.check.CheckResult` whose definitions
    the file may use. `global_types` maps `@name` to the global's type in the
    documented syntax (None when the file did not parse).
    """
    from .check import check_module
    from .diagnostics import has_errors
    from .syntax.parser import parse_source
    from .syntax.type_text import type_text

    result = parse_source(source)
    diags = list(result.diagnostics)
    module = result.module
    global_types: dict[str, str | None] = {}
    checked = None
    if module is not None:
        checked = check_module(module, prelude)
        type_diags = checked.diagnostics
        if has_errors(diags):
            # Unknown names already explain what follows from them.
            type_diags = [d for d in type_diags if d.code != "unresolved-type"]
        diags.extend(type_diags)
        for gv in module.functions:
            ty = checked.global_types.get(gv)
            global_types[f"@{gv.name}"] = type_text(ty) if ty is not None else None
    out = Checked(source, module, sorted(diags, key=sort_key), global_types)
    out.result = checked
    return out
