"""Written types: annotations, their `_` blanks, and `where` relations.

An annotation is kind-checked (`kinds.py`) and its `_` become fresh
unknowns. A relation named by a `where` clause (`fn (...) where Broadcast`)
or in a function type of an annotation must be one the checker knows,
relating as many inputs as the function has parameters.
"""

from __future__ import annotations

from typing import Any

from ..ir.expr import Function
from ..ir.span import Span
from ..ir.ty import FuncType, IncompleteType, TupleType, TypeCall, TypeRelation, TypeVar
from ..ops import registry
from ..ops import relations as rels
from ..text.suggest import close_names
from . import messages
from .polymorphism import Template
from .constraint import Constraint, Site
from .state import CheckState
from .types import ERROR, Hole, transform, walk


class Annotations:
    """Turns written types into the checker's types, relations included."""

    def __init__(self, state: CheckState) -> None:
        self.state = state
        self._related: set[int] = set()  # annotations whose relations are already constrained

    def annotation(self, ty: Any, span: Span | None = None) -> Any:
        """A written type, kind-checked, with `_` turned into fresh unknowns."""
        st = self.state
        checked, errors = st.kinds.check(ty, span or getattr(ty, "span", None))
        for diag in errors:
            st.error(diag)
        if checked is None:
            return ERROR
        result = self.holes_for_blanks(checked)
        if type(ty) is FuncType or type(ty) is TupleType or type(ty) is TypeCall:
            self.annotated_relations(ty, result)
        return result

    def holes_for_blanks(self, ty: Any) -> Any:
        st = self.state

        def leaf(x: Any) -> Any:
            if isinstance(x, IncompleteType) and not isinstance(x, Hole):
                return st.fresh(
                    x.kind, st.origin("binder", x.span, messages.BLANK_TEXT) if x.span is not None else None
                )
            return x

        return transform(ty, leaf)

    def relation_named(self, name: str, span: Any, inputs: int, what: str) -> Any:
        """The relation a `where` names, or None after reporting why it cannot be used."""
        fn = _named_relation(name)
        if fn is None:
            self.state.error(
                messages.unknown_relation(name, span, close_names(name, _relation_names()), _relation_names())
            )
            return None
        want = getattr(fn, "inputs", inputs)
        if want != inputs:
            self.state.error(messages.relation_arity(name, want, inputs, what, span))
            return None
        return fn

    def annotated_relations(self, written: Any, ty: Any) -> None:
        """`fn(A, B) -> C where R` in an annotation (`written`, checked as
        `ty`): the relation must hold of A, B and C. It is checked here when
        the function type is monomorphic and mentions no type parameter;
        otherwise it is kept in the type (and shown) but not checked."""
        if id(written) in self._related:
            return
        self._related.add(id(written))
        st = self.state
        for part in walk(ty):
            if type(part) is not FuncType or not part.type_constraints:
                continue
            generic = bool(part.type_params) or any(type(x) is TypeVar for x in walk(part))
            for rel in part.type_constraints:
                fn = self.relation_named(rel.name, rel.span, rel.num_inputs, messages.THIS_FUNCTION_TYPE)
                if fn is None or generic:
                    continue
                site = Site(None, rel.span, messages.quoted(rel.name), st.owner, rel.name)
                st.solver.add(Constraint(fn, rel.name, list(rel.args[:-1]), rel.args[-1], {}, site, st.level))

    def where_relations(
        self, node: Function, params: list[Any], ret: Any
    ) -> tuple[tuple[TypeRelation, ...], list[Template]]:
        """The relations of a `where` clause, as printed relations and as templates."""
        out = []
        templates = []
        for ref in node.relations:
            fn = self.relation_named(ref.name, ref.span, len(params), messages.THIS_FUNCTION)
            if fn is None:
                continue
            out.append(TypeRelation(ref.name, (*tuple(params), ret), len(params)))
            templates.append(Template(fn, ref.name, {}, list(params), ret, ref.span))
        return tuple(out), templates


def _named_relation(name: str) -> Any:
    fn = rels.NAMED.get(name)
    if fn is not None:
        return fn
    for opdef in registry.all_ops():
        if getattr(opdef.relation, "relation_name", None) == name and not opdef.attrs:
            return opdef.relation
    return None


def _relation_names() -> list[str]:
    names = set(rels.NAMED)
    for opdef in registry.all_ops():
        rn = getattr(opdef.relation, "relation_name", None)
        if rn and not opdef.attrs:
            names.add(rn)
    return sorted(names)
