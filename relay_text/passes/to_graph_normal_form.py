"""`ToGraphNormalForm`: `let`s replaced by sharing.

Every `let %x = v; body` becomes `body` with each use of `%x` being the
node `v` itself, so the program is a dataflow graph (printed with graph
bindings `%n = ...` for the shared nodes). A `let` whose value refers to
its own variable (a recursive function) cannot be dissolved: each use of
the variable becomes `let %x = v; %x`, as TVM writes it.

Evaluation is strict either way and each shared node is computed once, so
the values are the same; what moves is only *when* a value is computed.
So, unlike TVM's pass, two kinds of `let` stay: one whose value acts on
the world where it stands (a reference created, read or written, a call of
a stateful operator such as `vm.invoke_tvm_op`), whose place in the order
of evaluation matters; and one binding a function used at several types
(`let` generalizes, a shared node does not).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ..ir.expr import Call, Constant, Expr, Function, GlobalVar, Let, Op, RefCreate, RefRead, RefWrite, Var
from ..ir.ty import FuncType
from ..ir.module import Module
from ..ir.visitor import ExprMutator
from ._module import map_functions
from ._scopes import walk
from .context import PassContext, roots
from .registry import register


@register("ToGraphNormalForm", "Replace let bindings by shared nodes (a dataflow graph)")
def to_graph_normal_form(module: Module, ctx: PassContext) -> Module:
    # Types are needed only to tell a function used at several types.
    binds_functions = any(
        type(n) is Let and type(n.value) is Function for r in roots(module) for n in walk(r, lambda n: True)
    )
    types = ctx.types(module) if binds_functions else {}

    def convert(gv: GlobalVar | None, fn: Function) -> Function:
        new = _Dissolve(types).visit(fn)
        assert type(new) is Function  # a rebuilt function is a function
        return new

    return map_functions(module, convert)


class _Dissolve(ExprMutator):
    pre_order = frozenset({Let})

    def __init__(self, types: dict[Expr, Any]) -> None:
        super().__init__()
        self.types = types

    def visit_let(self, node: Let) -> Generator[Expr, Any, Expr]:  # type: ignore[override]  # a generator method (see ExprFunctor)
        value = yield node.value
        if _acts(node.value) or _generic(self.types.get(node.var)):
            self.memo[node.var] = node.var
            body: Expr = yield node.body
            if value is node.value and body is node.body:
                return node
            return Let(node.var, value, body, node.span)
        if _uses(node.var, node.value):
            self.memo[node.var] = node.var
            self.memo[node.var] = Let(node.var, value, node.var, node.span)
        else:
            self.memo[node.var] = value
        body = yield node.body
        return body


def _acts(value: Expr) -> bool:
    """Whether evaluating `value` acts on the world (see the module docstring);
    the bodies of functions it creates do not count until they are called."""
    from ..ops import registry

    if (
        isinstance(value, Call) and isinstance(value.op, Op) and all(type(a) in _ATOMS for a in value.args)
    ):  # the common case, without a walk
        return registry.properties(value.op.name).stateful
    for node in walk(value, lambda n: type(n) is not Function):
        t = type(node)
        if t in (RefCreate, RefRead, RefWrite):
            return True
        if t is Call and type(node.op) is Op and registry.properties(node.op.name).stateful:
            return True
    return False


def _generic(ty: Any) -> bool:
    return isinstance(ty, FuncType) and bool(ty.type_params)


_ATOMS = frozenset({Var, Constant, GlobalVar, Op})


def _uses(var: Var, value: Expr) -> bool:
    if type(value) in _ATOMS or (type(value) is Call and all(type(a) in _ATOMS for a in value.args)):
        return value is var or (type(value) is Call and var in value.args)
    return any(n is var for n in walk(value, lambda n: True) if type(n) is Var)
