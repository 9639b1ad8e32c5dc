"""Binders: `let` and `fn`, where variables get their types.

Both are visited as generators (the traversal's `pre_order`): a variable
gets its type after its value is typed and before its scope is, without
recursion. A chain of `let`s is one visit. Generalization follows the
value restriction: a `let` whose value is a syntactic `fn` (and which has
no annotation) gets the most general type left once its constraints are
solved (`polymorphism.py`).
"""

from __future__ import annotations

import os
from typing import Any
from collections.abc import Generator

from ..ir.expr import Expr, Function, Let
from ..ir.ty import FuncType, TupleType, TypeCall
from . import messages, spans
from .annotations import Annotations
from .polymorphism import Polymorphism
from .constraint import Constraint, Site
from .state import CheckState, TypeOf
from .types import Hole, RefType, find


class Binders:
    """Types `let` chains and function literals."""

    def __init__(
        self, state: CheckState, annotations: Annotations, polymorphism: Polymorphism, type_of: TypeOf
    ) -> None:
        self.state = state
        self.annotations = annotations
        self.polymorphism = polymorphism
        self.type_of = type_of  # the type of one use of an expression

    def visit_let(self, node: Let) -> Generator[Expr, Any, Any]:
        st = self.state
        memo = st.memo
        type_of = self.type_of
        chain: list[Let] = []
        cur: Expr = node
        while type(cur) is Let and cur not in memo:
            let: Let = cur
            chain.append(let)
            var = let.var
            value = let.value
            if var.name == "":  # `e1; e2`
                yield value
                memo[var] = type_of(value)
                cur = let.body
                continue
            annot = None
            if var.type_annotation is not None:
                annot = self.annotations.annotation(var.type_annotation, var.span)
            elif type(value) is not Function:
                # Not recursive and not generalized: the variable has the value's type.
                yield value
                memo[var] = type_of(value)
                st.bind_name(var.name)
                cur = let.body
                continue
            generalize = annot is None and type(value) is Function
            if generalize:
                st.level += 1
            var_t = (
                annot
                if annot is not None
                else st.fresh(origin=st.origin("binder", var.span, messages.var_text(var.name)))
            )
            memo[var] = var_t
            if type(value) is Function:
                st.fn_defs[var] = value
            yield value
            vt = own = type_of(value)
            if generalize and isinstance(vt, FuncType) and vt.type_params:
                # Inside its own body the function is used monomorphically; its
                # declared parameters come back when it is generalized.
                vt = FuncType(vt.arg_types, vt.ret_type)
            origin = (spans.annotation_span(var), messages.EXPECTED_BY_ANNOTATION) if annot is not None else None
            st.expect(vt, var_t, lambda let=let: st.spans.let_value_span(let), origin)
            if generalize and type(value) is Function:
                st.solver.solve()
                st.level -= 1
                memo[var] = self.polymorphism.generalize(var_t, value.type_params, own)
            st.bind_name(var.name)
            cur = let.body
        yield cur
        t = type_of(cur)
        for let in chain:
            if let.var.name:
                st.unbind_name(let.var.name)
        for let in chain[1:]:
            memo[let] = t
        return t

    def visit_function(self, node: Function) -> Generator[Expr, Any, Any]:
        st = self.state
        annotation = self.annotations.annotation
        sig = st.signatures.get(node)
        if sig is not None:
            params, ret, relations, templates = sig
        else:
            params = []
            for p in node.params:
                if p.type_annotation is not None:
                    params.append(annotation(p.type_annotation, p.span))
                else:
                    params.append(st.fresh(origin=st.origin("param", p.span, messages.parameter_text(p.name))))
            ret = (
                annotation(node.ret_type)
                if node.ret_type is not None
                else st.fresh(origin=st.origin("return", node.span, messages.FUNCTION_RESULT_TEXT))
            )
            relations, templates = self.annotations.where_relations(node, params, ret)
        for p, t in zip(node.params, params, strict=False):
            st.memo[p] = t
            st.bind_name(p.name)
        assumed = 0
        if not node.type_params:
            # Without type parameters the relations constrain this very function.
            for tm in templates:
                site = Site(None, tm.span, messages.quoted(tm.name), st.owner)
                st.solver.add(Constraint(tm.fn, tm.name, list(tm.args), tm.out, {}, site, st.level))
        else:
            # Over its type parameters they hold at each call; its body may
            # rely on them (seed 001: `add : fn<t1, t2, t3>(t1, t2) -> t3 where Broadcast`).
            for tm in templates:
                st.solver.assumptions.append((getattr(tm.fn, "relation_name", tm.name), list(tm.args), tm.out))
                assumed += 1
        yield node.body
        if assumed:
            del st.solver.assumptions[-assumed:]
        body_t = self.type_of(node.body)
        origin = (
            (getattr(node.ret_type, "span", None), messages.EXPECTED_BY_RETURN_TYPE)
            if node.ret_type is not None
            else None
        )
        solved = _unseen_result(ret, body_t) if sig is None and node.ret_type is None and not templates else None
        if solved is not None:
            # Nothing has seen the result's own unknown: the result is the
            # body's type as it stands, with no unification (which would walk
            # the whole type, again at each of n nested `fn`s: quadratic).
            ret = solved
        else:
            st.expect(body_t, ret, lambda: st.spans.body_result_span(node), origin)
        for p in node.params:
            st.unbind_name(p.name)
        ft = FuncType(tuple(params), ret, node.type_params, relations)
        if templates and node.type_params:
            st.schemes[id(ft)] = (ft, templates, ())
        return ft


_COMPOUND_RESULTS = (FuncType, TupleType, TypeCall, RefType)
# RELAY_VERIFY_LEVELS=1 checks the premise of `_unseen_result` on every use.
_VERIFY_LEVELS = bool(os.environ.get("RELAY_VERIFY_LEVELS"))


def _unseen_result(ret: Any, body_t: Any) -> Any:
    """The type a function's result can take directly, without unifying its
    fresh unknown `ret` with the body's type `body_t`, or None.

    This is the delayed level adjustment of ML checkers, for the case that
    makes nested `fn`s quadratic: `ret` was made before the body was checked
    and nothing refers to it (no signature, annotation or `where` relation
    mentions it, so it has no relations waiting on it and cannot occur in the
    body's type), so binding it to the body's type would only walk that type
    to lower levels that are already low enough: every unknown of the body's
    type was created at this function's level or reached it through a
    unification, which lowers levels as it goes. The result of an `fn` whose
    body is an `fn` then costs O(1) instead of the size of the inner type."""
    if type(ret) is not Hole or ret.link is not None or ret.triggers:
        return None
    t = find(body_t) if type(body_t) is Hole else body_t
    if type(t) not in _COMPOUND_RESULTS:
        return None
    if _VERIFY_LEVELS:
        from .types import walk

        for x in walk(t):
            if type(x) is Hole:
                assert x is not ret and x.level <= ret.level, (x, x.level, ret.level)
    return t
