"""Patterns of match clauses."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from .expr import Constructor, Var
from .span import Span

if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes, for less at import (see relay_text/record.py)
    from ..record import dataclass, field


@dataclass(eq=False, slots=True)
class PatternWildcard:
    """`_`: matches anything, binds nothing."""

    span: Span | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class PatternVar:
    """`%x`: matches anything and binds it."""

    var: Var
    span: Span | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class PatternConstructor:
    """`C(p1, ..., pn)`: matches values built by `C` whose fields match."""

    constructor: Constructor
    patterns: tuple[Pattern, ...] = ()
    span: Span | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class PatternTuple:
    """`(p1, ..., pn)`: matches tuples whose fields match."""

    patterns: tuple[Pattern, ...]
    span: Span | None = field(default=None, repr=False)


Pattern: TypeAlias = PatternWildcard | PatternVar | PatternConstructor | PatternTuple


def pattern_vars(pattern: Pattern) -> list[Var]:
    """The variables a pattern binds, left to right."""
    out: list[Var] = []
    stack = [pattern]
    while stack:
        p = stack.pop()
        if isinstance(p, PatternVar):
            out.append(p.var)
        elif isinstance(p, (PatternConstructor, PatternTuple)):
            stack.extend(reversed(p.patterns))
    return out
