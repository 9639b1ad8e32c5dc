"""`match`: typing patterns, and coverage (exhaustiveness, unreachable clauses).

A constructor pattern instantiates its constructor's type and unifies the
result with the matched value's type (data types are nominal, so a pattern
of another data type is a `type-mismatch`); a wrong number of fields is
`constructor-arity`. Variables bound by a clause's pattern get their types
before the clause body is visited. Coverage is decided by
`patterns.analyse` (usefulness).
"""

from __future__ import annotations

from typing import Any, Iterator

from ..diagnostics import WARNING, Diagnostic, codes
from ..ir.expr import Clause, Constructor, Expr, GlobalVar, Let, Match, Var
from ..ir.pattern import PatternConstructor, PatternTuple, PatternVar, PatternWildcard
from ..ir.span import Span
from ..ir.ty import TupleType
from . import patterns as pat
from . import spans
from .types import ERROR, find


class MatchMixin:
    """Part of the Checker: match expressions."""

    def visit_match(self, node: Match) -> Iterator[Expr]:
        yield node.data
        data_t = self.use_type(node.data)
        result = None
        first: Clause | None = None
        for clause in node.clauses:
            bound = self._type_pattern(clause.pattern, data_t)
            for name in bound:
                self._bind_name(name)
            yield clause.body
            body_t = self.use_type(clause.body)
            for name in bound:
                self._unbind_name(name)
                self.typo_names.discard(name)
            if result is None:
                result, first = body_t, clause
            else:
                self.expect(
                    body_t,
                    result,
                    _clause_body_span(clause),
                    (_clause_body_span(first), "the first clause has type `{expected}`"),  # type: ignore[arg-type]
                    message="the clauses of this `match` have different types: expected `{expected}`, found `{found}`",
                )
        self._check_coverage(node)
        if result is None:
            return self.fresh(origin=self.origin("result", node.span, "this empty match"))
        return result

    def _type_pattern(self, pattern: Any, ty: Any) -> list[str]:
        names: list[str] = []
        stack = [(pattern, ty)]
        while stack:
            p, t = stack.pop()
            if isinstance(p, PatternWildcard):
                continue
            if isinstance(p, PatternVar):
                var = p.var
                if var.type_annotation is not None:
                    annot = self.annotation(var.type_annotation, var.span)
                    self.expect(t, annot, p.span, (spans.annotation_span(var), "expected because of this annotation"))
                    self.memo[var] = annot
                else:
                    self.memo[var] = t
                names.append(var.name)
                continue
            if isinstance(p, PatternConstructor):
                ctor = p.constructor
                scheme = self.ctor_types.get(ctor)
                if scheme is None:  # unknown constructor, reported already
                    if not p.patterns and ctor.name[:1].islower():
                        names.append(ctor.name)  # meant as a variable: `x` for `%x`
                        self.typo_names.add(ctor.name)
                    for sub in p.patterns:
                        stack.append((sub, ERROR))
                    continue
                inst = self.instantiate(scheme, (), None, ctor)
                self.expect(
                    inst.ret_type,
                    t,
                    p.span,
                    message="this pattern matches values of type `{found}`, but the value matched has type `{expected}`",
                    label=f"`{ctor.name}` builds `{{found}}`",
                )
                want, got = len(inst.arg_types), len(p.patterns)
                if want != got:
                    diag = Diagnostic(
                        codes.CONSTRUCTOR_ARITY,
                        f"`{ctor.name}` has {want} field{'' if want == 1 else 's'}, but this pattern gives {got}",
                        p.span,
                        label=f"expected {want} pattern{'' if want == 1 else 's'} inside",
                    )
                    if ctor.span is not None:
                        diag.with_label(ctor.span, f"`{ctor.name}` is defined here")
                    self.error(diag)
                for i, sub in enumerate(p.patterns):
                    stack.append((sub, inst.arg_types[i] if i < want else ERROR))
                continue
            if isinstance(p, PatternTuple):
                f = find(t)
                if type(f) is TupleType and len(f.fields) == len(p.patterns):
                    fields = f.fields
                else:
                    fields = tuple(self.fresh() for _ in p.patterns)
                    self.expect(
                        TupleType(fields),
                        t,
                        p.span,
                        message="this pattern matches a tuple `{found}`, but the value matched has type `{expected}`",
                    )
                for sub, ft in zip(p.patterns, fields):
                    stack.append((sub, ft))
        return names

    def _check_coverage(self, node: Match) -> None:
        sigs = pat.Signatures(self._siblings)
        report = pat.analyse([c.pattern for c in node.clauses], sigs, self.dialect)
        for index, cover in report.unreachable:
            clause = node.clauses[index]
            diag = Diagnostic(
                codes.UNREACHABLE_CLAUSE,
                "this clause can never be chosen: the clauses above it match every value it matches",
                getattr(clause.pattern, "span", None) or clause.span,
                severity=WARNING,
                label="unreachable",
            )
            if cover is not None:
                covering = node.clauses[cover]
                diag.with_label(getattr(covering.pattern, "span", None) or covering.span, "this clause matches them all")
            diag.with_note("clauses are tried in order and the first that matches is chosen")
            self.error(diag)
        if report.missing is not None and node.complete:
            head_end = self.spans.match_data_span(node)
            span = node.span
            if span is not None and head_end is not None:
                span = Span(span.source, span.start, head_end.end + (1 if span.source.text[head_end.end : head_end.end + 1] == ")" else 0))
            diag = Diagnostic(
                codes.NON_EXHAUSTIVE_MATCH,
                f"this `match` does not cover every value: `{report.missing}` is not matched",
                span,
                label=f"`{report.missing}` not covered",
            )
            diag.with_help(f"add a clause for `{report.missing}`, or a final `_` clause")
            diag.with_note("write `match?` for a match that is allowed to fail at run time")
            self.error(diag)

    def _siblings(self, ctor: Constructor) -> list[Constructor] | None:
        if ctor.belong_to is None:
            return None
        data = self.type_data.get(ctor.belong_to)
        return list(data.constructors) if data is not None else None


def _clause_body_span(clause: Clause) -> Span | None:
    body = clause.body
    while isinstance(body, Let):
        body = body.body
    span = getattr(body, "span", None)
    if span is not None and clause.span is not None and not isinstance(body, (Var, GlobalVar, Constructor)):
        if clause.span.start <= span.start and span.end <= clause.span.end:
            return span
    return clause.span
