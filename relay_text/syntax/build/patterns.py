"""The builder's pattern layer: `match` clauses and their patterns, each
clause's variables bound in a scope of its own.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.expr import (
    Clause,
    Constructor,
    Match,
    Var,
)
from ...ir.pattern import (
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    pattern_vars,
)
from ...text.suggest import or_list
from .literals import LiteralRules
from .raw import (
    Children,
    unwrap,
)


class PatternRules(LiteralRules):
    __slots__ = ()

    def pat_wild(self, c: Children) -> PatternWildcard:
        tok = c[0]
        return PatternWildcard(self.span(tok.start_pos, tok.end_pos))

    def pat_var(self, c: Children) -> PatternVar:
        tok, ty = c
        span = self.span(tok.start_pos, tok.end_pos)
        var = Var(tok.value[1:], self.as_type(ty) if ty is not None else None, span)
        self._binder(var, tok.start_pos, tok.end_pos, ty)
        return PatternVar(var, span)

    def pat_ctor(self, c: Children) -> Any:
        tok, fields = c
        name = tok.value
        end = fields[1] if fields is not None else tok.end_pos
        span = self.span(tok.start_pos, end)
        ctor = self.constructors.get(name)
        if ctor is None:
            diag = self.error(
                codes.UNKNOWN_CONSTRUCTOR,
                f"unknown constructor `{name}`",
                self.span(tok.start_pos, tok.end_pos),
                "not a constructor",
            )
            if name[:1].islower() and fields is None:
                diag.with_fix(f"to bind a variable, write `%{name}`", diag.span, f"%{name}")
            else:
                suggestions = self.suggest(name, self.constructors)
                if suggestions:
                    diag.with_choices(
                        f"did you mean {or_list([f'`{s}`' for s in suggestions])}?", diag.span, suggestions
                    )
            ctor = Constructor(name)
        return PatternConstructor(ctor, tuple(fields[0]) if fields is not None else (), span)

    def pat_fields(self, c: Children) -> tuple[Any, ...]:
        return [p for p in c[:-1] if p is not None], c[-1].end_pos

    def pat_tuple(self, c: Children) -> PatternTuple:
        open_, close = c[0], c[-1]
        pats = [p for p in c[1:-1] if p is not None]
        return PatternTuple(tuple(pats), self.span(open_.start_pos, close.end_pos))

    def _bind_pattern(self, pattern: Any) -> None:
        self.values.push()
        seen: dict[str, Var] = {}
        for var in pattern_vars(pattern):
            if var.name in seen:
                diag = self.error(codes.DUPLICATE_DEFINITION, f"`%{var.name}` is bound twice in one pattern", var.span)
                first = seen[var.name].span
                if first is not None:
                    diag.with_label(first, "first bound here")
            seen[var.name] = var
            self.values.bind(var.name, var)

    def case_head(self, c: Children) -> tuple[Any, ...]:
        kw, pattern = c
        self._bind_pattern(pattern)
        return kw, pattern

    def case_clause(self, c: Children) -> Clause:
        (kw, pattern), body = c
        self.values.pop()
        clause = Clause(pattern, unwrap(body), self.span(kw.start_pos, self._end(body)))
        self._note(clause, (body,))  # moved to the match when it is built
        return clause

    def arm_head(self, c: Children) -> Any:
        pattern = c[0]
        self._bind_pattern(pattern)
        return pattern

    def arm(self, c: Children) -> Clause:
        pattern, body = c
        self.values.pop()
        start = pattern.span.start if pattern.span is not None else 0
        clause = Clause(pattern, unwrap(body), self.span(start, self._end(body)))
        self._note(clause, (body,))  # moved to the match when it is built
        return clause

    def match_expr(self, c: Children) -> Match:
        kw, data = c[0], c[1]
        clauses = tuple(x for x in c[2:-1] if isinstance(x, Clause))
        node = Match(unwrap(data), clauses, kw.value == "match", self.span(kw.start_pos, c[-1].end_pos))
        self._note(node, (data,))
        for table in (self.positions.uses, self.positions.results, self.positions.names, self.positions.brackets):
            for i, clause in enumerate(clauses, 1):
                at = table.pop((id(clause), 0), None)
                if at is not None:
                    table[(id(node), i)] = at
        return node
