"""Operator calls: registry lookup, attributes, relations, and names that are no operator.

An operator call becomes a relation constraint over the argument types and
a fresh result. Attributes are validated against the operator's schema
first (`unknown-attribute` with close names, `type-mismatch` at the value,
`missing-attribute`). A name without sigil that is no operator is reported
as `unknown-operator` (or `unknown-constructor` when capitalised), with the
global, local or operator the author probably meant.
"""

from __future__ import annotations

import operator
from typing import Any

from ..diagnostics import Diagnostic, codes
from ..ir.expr import Call, Op
from ..ir.positions import META_ATTRS
from ..ir.ty import FuncType, TupleType, canonical_dtype
from ..ops import registry
from ..ops.legacy.renamed import UNSUPPORTED, legacy_form
from ..text.suggest import KEYWORD, OPERATOR, close_names, near_miss
from . import messages, operator_messages
from .constraint import Constraint, Site
from .relation_memo import frozen_attrs, relation_key
from .solver import UNKNOWN_KEY
from .state import CheckState, TypeOf
from .types import ERROR, Hole, find


def projection(r: Any) -> bool:
    """The relation of `e.i` when the type of `e` is not yet known."""
    t = r.arg(0)
    index = r.attrs["index"]
    if isinstance(t, Hole):
        return False
    if isinstance(t, TupleType):
        if index >= len(t.fields):
            r.fail(codes.TYPE_MISMATCH, messages.tuple_field_missing(len(t.fields), index), arg=0)
        r.set_result(t.fields[index])
        return True
    r.fail(codes.TYPE_MISMATCH, messages.projection_of_non_tuple(index), arg=0, label=messages.THIS_IS_NOT_A_TUPLE)
    return False


class Operators:
    """Types calls of operators and operators used as values.

    Problems that a model dump would repeat at every call (unknown and
    renamed operators, attributes in a missing metadata section) are
    collected here and reported once per operator by `report_per_operator`."""

    def __init__(self, state: CheckState, type_of: TypeOf) -> None:
        self.state = state
        self.type_of = type_of  # the type of one use of an expression
        self.op_types: dict[Op, tuple[list[Any], Any]] = {}  # an operator node: its call's input and result types
        self.unknown_ops: dict[str, list[Any]] = {}  # name -> [diagnostic of its first use, owner, uses]
        self.attrs_not_found: dict[str, list[Call]] = {}  # op name -> calls whose metadata attributes are absent
        self.renamed_ops: dict[str, list[Call]] = {}  # old operator names used: one warning each
        self.old_forms: dict[str, list[Call]] = {}  # calls in an older form of a current name: one warning each
        self._result_texts: dict[str, str] = {}  # see `_result_text`
        self._normalized: dict[tuple[int, Any], tuple[dict[str, Any], list[Any], Any]] = {}  # see `_attributes`
        self._known: dict[tuple[Any, ...], tuple[Any, ...]] = {}  # see `_remembered`

    def call(self, node: Call, op: Op) -> Any:
        st = self.state
        arg_types = [self.type_of(a) for a in node.args]
        opdef = registry.get(op.name)
        if opdef is None:
            self._note_unknown_operator(op, node)
            return ERROR
        form = legacy_form(op.name, len(arg_types), (key for key, _ in node.attrs), st.module.version)
        if form is not None:  # an older TVM form of the name (`nn.pad` with a pad_value attribute)
            opdef, warn = form
            if warn:
                self.old_forms.setdefault(op.name, []).append(node)
        unknown_attrs = node.attrs_ref is not None and st.module.metadata is None
        if unknown_attrs:
            self.attrs_not_found.setdefault(op.name, []).append(node)
        if node.type_args:
            st.error(operator_messages.operator_type_arguments(op.name, node.span))
        if len(arg_types) != opdef.inputs:
            got = len(arg_types)
            st.error(operator_messages.operator_arity(opdef, got, node.span, None))
            return ERROR
        if opdef.renamed_to:
            self.renamed_ops.setdefault(op.name, []).append(node)
        if unknown_attrs:
            # Its attributes are in a metadata section the file lacks: no
            # guess (the defaults would give wrong shapes and errors of their
            # own); the result is whatever its uses make it.
            out = st.fresh(origin=st.origin("meta_attrs", node.span, messages.result_of(messages.quoted(op.name))))
            self.op_types[op] = (arg_types, out)
            return out
        attrs, problems, frozen = self._attributes(opdef, node.attrs)
        for problem in problems:
            self._attribute_error(node, opdef, problem)
        if problems:
            return ERROR
        solver = st.solver
        key: Any = UNKNOWN_KEY
        if not solver.running and not solver.assumptions:
            # A call the memo knows the answer to needs no unknown for its
            # result and no constraint (see relation_memo).
            key, known = self._remembered(opdef, op.name, arg_types, attrs, frozen)
            if known is not None:
                solver.recall(known, arg_types, None)
                self.op_types[op] = (arg_types, known[0])
                if solver.queue:
                    solver.solve()
                return known[0]
        out = st.fresh(origin=st.origin("result", node.span, self._result_text(op.name)))
        self.op_types[op] = (arg_types, out)
        shown = node.infix or op.name
        site = Site(node, node.span, messages.quoted(shown), st.owner, shown)
        solver.add(Constraint(opdef.relation, op.name, arg_types, out, attrs, site, st.level), key)
        return out

    def _remembered(
        self, opdef: Any, name: str, arg_types: list[Any], attrs: dict[str, Any], frozen: tuple[Any, ...] | None
    ) -> tuple[Any, Any]:
        """The call's `relation_key` and the memo's outcome for it (None if it has none).
        A model repeats a call on the very same type objects: those found
        once are looked up by identity after that (the objects are kept, so
        their ids stay theirs; a type that had a key is fully known, and
        stays as it is)."""
        inputs = [find(a) for a in arg_types]
        ident = None
        if frozen is not None and all(type(t) is not Hole for t in inputs):
            ident = (name, id(opdef), id(frozen), *map(id, inputs))
            hit = self._known.get(ident)
            if hit is not None and hit[0] is opdef and hit[1] is frozen and all(map(operator.is_, hit[2], inputs)):
                return hit[3], hit[4]
        key = relation_key(opdef.relation, name, arg_types, attrs, frozen)
        known = self.state.solver.results.get(key) if key is not None else None
        if known is not None and ident is not None:
            self._known[ident] = (opdef, frozen, inputs, key, known)
        return key, known

    def _attributes(self, opdef: Any, given: Any) -> tuple[dict[str, Any], list[Any], tuple[Any, ...] | None]:
        """`opdef.normalize_attrs(given)`, and the result as a memo key
        (`relation_memo.frozen_attrs`); once per operator and attributes
        written alike, when they are valid (a model repeats both). The
        attributes are shared: relations only read them."""
        written = frozen_attrs(given)
        if written is None:
            attrs, problems = opdef.normalize_attrs(given)
            return attrs, problems, frozen_attrs(attrs) if not problems else None
        cache_key = (id(opdef), written)  # (operator definitions live as long as the process)
        hit = self._normalized.get(cache_key)
        if hit is not None:
            return hit
        attrs, problems = opdef.normalize_attrs(given)
        if problems:
            return attrs, problems, None
        entry = (attrs, problems, frozen_attrs(attrs))
        self._normalized[cache_key] = entry
        return entry

    def _result_text(self, name: str) -> str:
        """ "the result of `name`", one string per operator name (a model
        calls the same operators thousands of times)."""
        text = self._result_texts.get(name)
        if text is None:
            text = self._result_texts[name] = messages.result_of(messages.quoted(name))
        return text

    def report_per_operator(self) -> None:
        """Problems reported once per operator name rather than once per call
        (a model dump repeats a call hundreds of times): unknown operators,
        and attributes referred to in a metadata section the file lacks."""
        st = self.state
        for diag, owner, count in self.unknown_ops.values():
            if diag is None:
                continue
            if count > 1:
                diag.label = operator_messages.first_of_uses(diag.label, count)
            st.error_in(owner, diag)
        for name, calls in self.renamed_ops.items():
            opdef = registry.get(name)
            assert opdef is not None
            st.error(
                operator_messages.renamed_operator(
                    name, opdef.renamed_to, len(calls), getattr(calls[0].op, "span", None)
                )
            )
        for name, calls in self.old_forms.items():
            st.error(operator_messages.old_operator_form(name, len(calls), getattr(calls[0].op, "span", None)))
        if self.attrs_not_found:  # said once for the file
            calls = [c for group in self.attrs_not_found.values() for c in group]
            first = min(calls, key=lambda c: c.span.start if c.span is not None else -1)
            st.error(
                operator_messages.attributes_without_metadata(
                    list(self.attrs_not_found), len(calls), first.attrs_ref, st.spans.attr_span(first, META_ATTRS)
                )
            )

    def _attribute_error(self, node: Call, opdef: Any, problem: Any) -> None:
        st = self.state
        if problem.reported:
            return
        if not problem.key:
            st.error(operator_messages.missing_attribute(problem, opdef, node.span))
            return
        span = st.spans.attr_span(node, problem.key)
        if problem.key not in opdef.schema:
            st.error(operator_messages.unknown_attribute(problem, opdef, close_names(problem.key, opdef.schema), span))
            return
        st.error(operator_messages.attribute_type(problem, opdef, dict(node.attrs).get(problem.key), span))

    def _note_unknown_operator(self, op: Op, call: Call | None) -> None:
        """Count a use of a name that is no operator; the first use's
        diagnostic (made now, while its scope is known) is reported at the end."""
        entry = self.unknown_ops.get(op.name)
        if entry is not None and entry[0] is not None:
            entry[2] += 1
            return
        diag = self._unknown_operator(op, call)
        self.unknown_ops[op.name] = [diag, self.state.owner, 1 if entry is None else entry[2] + 1]

    def _unknown_operator(self, op: Op, call: Call | None) -> Diagnostic | None:
        st = self.state
        name = op.name
        span = op.span
        if name in st.typo_names:
            return None  # the pattern that meant to bind it is reported, with the fix
        if name[:1].isupper():
            known = [c.name for c in st.ctor_types]
            return operator_messages.unknown_constructor(
                name, span, near_miss(name, (KEYWORD,)), close_names(name, known)
            )
        if name in UNSUPPORTED:
            return operator_messages.unsupported_operator(name, UNSUPPORTED[name], span)
        diag = operator_messages.unknown_operator(name, span)
        globals_ = {gv.name for gv in st.module.functions} | set(st.prelude_functions)
        hit = near_miss(name, (KEYWORD, OPERATOR), registry.names())
        dtype = canonical_dtype(name)
        named = span if span is not None and span.text == name else None  # where an edit goes
        if hit is not None:
            diag.with_fix(operator_messages.near_miss_help(hit), named, hit[0])
        elif dtype is not None and call is not None:
            diag.with_help(operator_messages.dtype_call_help(dtype))
        elif name in globals_:
            diag.with_fix(operator_messages.global_sigil_help(name), named, f"@{name}")
        elif name in st.locals:
            diag.with_fix(operator_messages.local_sigil_help(name), named, f"%{name}")
        else:
            suggestions = [n for n in registry.names() if n.rsplit(".", 1)[-1] == name and n != name]
            close = close_names(name, registry.names())
            if "." in name:  # `nn.sofmax`: a name of the same family first (not `qnn.softmax`)
                family = name.rsplit(".", 1)[0] + "."
                close = [n for n in close if n.startswith(family)] or close
            suggestions += [n for n in close if n not in suggestions]
            if suggestions:
                diag.with_choices(messages.did_you_mean(suggestions), named, suggestions)
            near_globals = close_names(name, globals_)
            if near_globals:
                diag.with_choices(
                    operator_messages.global_suggestions(near_globals), named, [f"@{g}" for g in near_globals]
                )
        return diag

    def value_type(self, op: Op) -> Any:
        """An operator used as a value (`@foldl(add, 0, %l)`): a function type
        from its relation. Its inputs and result are unknowns related by the
        operator's relation, which runs once the uses of the value tell what
        the inputs are (seed 002, "Operators": operators have function types)."""
        st = self.state
        opdef = registry.get(op.name)
        if opdef is None:
            self._note_unknown_operator(op, None)
            return ERROR
        if opdef.renamed_to:
            self.renamed_ops.setdefault(op.name, []).append(Call(op, ()))
        attrs, problems = opdef.normalize_attrs(())
        if problems:
            st.error(operator_messages.operator_value_needs_attributes(op.name, problems, opdef.signature(), op.span))
            return ERROR
        origin = st.origin("operator", op.span, operator_messages.operator_value_text(op.name))
        origin.help = operator_messages.operator_value_help(op.name)
        inputs = [st.fresh(origin=origin) for _ in range(opdef.inputs)]
        out = st.fresh(origin=st.origin("result", op.span, messages.result_of(messages.quoted(op.name))))
        self.op_types[op] = (inputs, out)
        site = Site(None, op.span, messages.quoted(op.name), st.owner, op.name)
        st.solver.add(Constraint(opdef.relation, op.name, list(inputs), out, attrs, site, st.level))
        return FuncType(tuple(inputs), out)
