"""A match clause's pattern as Python code: the tests that select the clause
and the bindings of its variables, for the evaluator's emitted functions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ir.pattern import PatternConstructor, PatternTuple, PatternVar, PatternWildcard

if TYPE_CHECKING:
    from .compile import Compiler


def pattern_code(pattern: Any, access: str, c: Compiler) -> tuple[list[str], list[tuple[str, str]]]:
    """Tests (outermost first) and bindings that match `pattern` against the
    value at `access`."""
    conds: list[str] = []
    binds: list[tuple[str, str]] = []
    stack = [(pattern, access)]
    while stack:
        p, acc = stack.pop()
        t = type(p)
        if t is PatternWildcard:
            continue
        if t is PatternVar:
            binds.append((c.names[p.var], acc))
        elif t is PatternConstructor:
            conds.append(f"{acc}.con is {c.constructor_name(p.constructor)}")
            subs = [(sub, f"{acc}.fields[{i}]") for i, sub in enumerate(p.patterns)]
            stack.extend(reversed(subs))
        elif t is PatternTuple:
            subs = [(sub, f"{acc}[{i}]") for i, sub in enumerate(p.patterns)]
            stack.extend(reversed(subs))
    return conds, binds
