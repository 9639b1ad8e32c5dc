"""`match`: typing patterns, and coverage (exhaustiveness, unreachable clauses).

A constructor pattern instantiates its constructor's type and unifies the
result with the matched value's type (data types are nominal, so a pattern
of another data type is a `type-mismatch`); a wrong number of fields is
`constructor-arity`. Variables bound by a clause's pattern get their types
before the clause body is visited. Coverage is decided by
`patterns.analyse` (usefulness).
"""

from __future__ import annotations

from typing import Any
from collections.abc import Generator

from ..ir.expr import Clause, Constructor, Expr, GlobalVar, Let, Match, Var
from ..ir.pattern import PatternConstructor, PatternTuple, PatternVar, PatternWildcard
from ..ir.span import Span
from ..ir.ty import TupleType
from . import messages, spans
from . import patterns as pat
from .annotations import Annotations
from .polymorphism import Polymorphism
from .state import CheckState, TypeOf
from .types import ERROR, find


class Matcher:
    """Types `match` expressions: their patterns, clauses and coverage."""

    def __init__(
        self, state: CheckState, annotations: Annotations, polymorphism: Polymorphism, type_of: TypeOf
    ) -> None:
        self.state = state
        self.annotations = annotations
        self.polymorphism = polymorphism
        self.type_of = type_of  # the type of one use of an expression

    def visit_match(self, node: Match) -> Generator[Expr, Any, Any]:
        """The traversal's method for `match`: yields the matched value, then each clause body."""
        st = self.state
        yield node.data
        data_t = self.type_of(node.data)
        result = None
        first: Clause | None = None
        for clause in node.clauses:
            bound = self._type_pattern(clause.pattern, data_t)
            for name in bound:
                st.bind_name(name)
            yield clause.body
            body_t = self.type_of(clause.body)
            for name in bound:
                st.unbind_name(name)
                st.typo_names.discard(name)
            if result is None or first is None:
                result, first = body_t, clause
            else:
                st.expect(
                    body_t,
                    result,
                    _clause_body_span(clause),
                    (_clause_body_span(first), messages.FIRST_CLAUSE_TYPE),
                    message=messages.CLAUSES_DIFFER,
                )
        self._check_coverage(node)
        if result is None:
            return st.fresh(origin=st.origin("result", node.span, messages.EMPTY_MATCH_TEXT))
        return result

    def _type_pattern(self, pattern: Any, ty: Any) -> list[str]:
        st = self.state
        names: list[str] = []
        stack = [(pattern, ty)]
        while stack:
            p, t = stack.pop()
            if isinstance(p, PatternWildcard):
                continue
            if isinstance(p, PatternVar):
                var = p.var
                if var.type_annotation is not None:
                    annot = self.annotations.annotation(var.type_annotation, var.span)
                    st.expect(t, annot, p.span, (spans.annotation_span(var), messages.EXPECTED_BY_ANNOTATION))
                    st.memo[var] = annot
                else:
                    st.memo[var] = t
                names.append(var.name)
                continue
            if isinstance(p, PatternConstructor):
                ctor = p.constructor
                scheme = st.ctor_types.get(ctor)
                if scheme is None:  # unknown constructor, reported already
                    if not p.patterns and ctor.name[:1].islower():
                        names.append(ctor.name)  # meant as a variable: `x` for `%x`
                        st.typo_names.add(ctor.name)
                    for sub in p.patterns:
                        stack.append((sub, ERROR))
                    continue
                inst = self.polymorphism.instantiate(scheme, (), None, ctor)
                st.expect(
                    inst.ret_type,
                    t,
                    p.span,
                    message=messages.CONSTRUCTOR_PATTERN_MISMATCH,
                    label=messages.constructor_builds(ctor.name),
                )
                want, got = len(inst.arg_types), len(p.patterns)
                if want != got:
                    st.error(messages.constructor_arity(ctor.name, want, got, p.span, ctor.span))
                for i, sub in enumerate(p.patterns):
                    stack.append((sub, inst.arg_types[i] if i < want else ERROR))
                continue
            if isinstance(p, PatternTuple):
                f = find(t)
                if type(f) is TupleType and len(f.fields) == len(p.patterns):
                    fields = f.fields
                else:
                    fields = tuple(st.fresh() for _ in p.patterns)
                    st.expect(TupleType(fields), t, p.span, message=messages.TUPLE_PATTERN_MISMATCH)
                for sub, ft in zip(p.patterns, fields, strict=False):
                    stack.append((sub, ft))
        return names

    def _check_coverage(self, node: Match) -> None:
        st = self.state
        sigs = pat.Signatures(self._siblings)
        report = pat.analyse([c.pattern for c in node.clauses], sigs, st.dialect)
        for index, cover in report.unreachable:
            clause = node.clauses[index]
            span = getattr(clause.pattern, "span", None) or clause.span
            if cover is None:
                st.error(messages.unreachable_clause(span))
            else:
                covering = node.clauses[cover]
                st.error(
                    messages.unreachable_clause(
                        span, getattr(covering.pattern, "span", None) or covering.span, covered=True
                    )
                )
        if report.missing is not None and node.complete:
            head_end = st.spans.match_data_span(node)
            span = node.span
            if span is not None and head_end is not None:
                span = Span(
                    span.source,
                    span.start,
                    head_end.end + (1 if span.source.text[head_end.end : head_end.end + 1] == ")" else 0),
                )
            st.error(messages.non_exhaustive_match(report.missing, span))

    def _siblings(self, ctor: Constructor) -> list[Constructor] | None:
        if ctor.belong_to is None:
            return None
        data = self.state.type_data.get(ctor.belong_to)
        return list(data.constructors) if data is not None else None


def _clause_body_span(clause: Clause) -> Span | None:
    body = clause.body
    while isinstance(body, Let):
        body = body.body
    span: Span | None = getattr(body, "span", None)
    if (
        span is not None
        and clause.span is not None
        and not isinstance(body, (Var, GlobalVar, Constructor))
        and clause.span.start <= span.start
        and span.end <= clause.span.end
    ):
        return span
    return clause.span
