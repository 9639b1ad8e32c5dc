"""`LambdaLift`: every nested function becomes a global function.

As TVM's pass (run by its VM compiler): a function written inside another
becomes a global `@lifted_name<n>`. One that uses no variable of its
surroundings is that global itself; one that does (a closure) becomes a
global taking the captured variables and returning the function, marked
`Closure=1`, and where the closure was made, that global is called on the
captured values:

    let %k = 3;  fn (%x) { %x + %k }
    ==>
    def @lifted_name0(%k : int32, Closure=1) { fn (%x : int32) { %x + %k } }
    ...  let %k = 3;  @lifted_name0(%k)

A function bound by `let` that calls itself refers to its global (applied
to its captured values) instead; a `let` of a function that captures
nothing goes, its uses naming the global. Functions marked `Primitive=1` stay where
they are. Unlike TVM, which names a lifted function by a hash of its
structure, names are numbered in the order functions are lifted.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ..ir.expr import Call, Expr, Function, GlobalVar, Let, Var
from ..ir.module import Module
from ..ir.visitor import ExprMutator
from ._module import free_vars, replace, substitute, written
from ._scopes import is_primitive
from .context import PassContext
from .registry import register


@register("LambdaLift", "Lift nested functions to global functions (closures take their captured variables)")
def lambda_lift(module: Module, ctx: PassContext) -> Module:
    types = ctx.types(module)
    taken = {gv.name for gv in module.functions}
    lifter = _Lifter(types, taken)
    functions: dict[GlobalVar, Function] = {}
    order: list[Any] = []
    for item in module.order:
        if isinstance(item, GlobalVar) and item in module.functions:
            lifter.lifted = []
            new = lifter.lift(module.functions[item])
            for gv, fn in lifter.lifted:
                functions[gv] = fn
                order.append(gv)
            functions[item] = new
        order.append(item)
    expr = module.expr
    if expr is not None:
        lifter.lifted = []
        expr = lifter.lift(expr) if type(expr) is Function else lifter.lift(Function(module.free_vars, expr)).body
        for gv, fn in lifter.lifted:
            functions[gv] = fn
            order.append(gv)
    if len(functions) == len(module.functions) and all(functions[g] is module.functions[g] for g in module.functions):
        return module
    return replace(module, functions=functions, order=order, expr=expr)


def _free_type_vars(fn: Function) -> list[Any]:
    """Type variables written inside `fn` (annotations, result types, type
    arguments) that no function inside it declares, in order of first use."""
    from ..ir.ty import FuncType, TensorType, TupleType, TypeCall, TypeVar
    from ._scopes import walk

    declared: set[Any] = set()
    found: list[Any] = []
    types: list[Any] = []
    for node in walk(fn, lambda n: True):
        if type(node) is Function:
            declared.update(node.type_params)
            types.extend(p.type_annotation for p in node.params)
            types.append(node.ret_type)
        elif type(node) is Let:
            types.append(node.var.type_annotation)
        elif type(node) is Call:
            types.extend(node.type_args)
    stack = [t for t in reversed(types) if t is not None]
    while stack:
        t = stack.pop()
        if isinstance(t, TypeVar):
            if t not in declared and t not in found:
                found.append(t)
        elif isinstance(t, TensorType):
            stack.extend(x for x in (t.dtype, t.shape) if isinstance(x, TypeVar))
            if isinstance(t.shape, tuple):
                stack.extend(d for d in t.shape if isinstance(d, TypeVar))
        elif isinstance(t, TupleType):
            stack.extend(reversed(t.fields))
        elif isinstance(t, FuncType):
            declared.update(t.type_params)
            stack.extend([t.ret_type, *reversed(t.arg_types)])
        elif isinstance(t, TypeCall):
            stack.extend(reversed(t.args))
    return found


class _Lifter(ExprMutator):
    pre_order = frozenset({Function, Let})

    def __init__(self, types: dict[Expr, Any], taken: set[str]) -> None:
        super().__init__()
        self.types = types
        self.taken = taken
        self.count = 0
        self.depth = 0
        self.letrec: list[Var] = []
        self.lifted: list[tuple[GlobalVar, Function]] = []

    def lift(self, fn: Function) -> Function:
        self.memo = {}
        self.depth = 0
        new = self.visit(fn)
        assert type(new) is Function  # a rebuilt function is a function
        return new

    def fresh_global(self) -> GlobalVar:
        while f"lifted_name{self.count}" in self.taken:
            self.count += 1
        name = f"lifted_name{self.count}"
        self.taken.add(name)
        return GlobalVar(name)

    def visit_let(self, node: Let) -> Generator[Expr, Expr, Expr]:  # type: ignore[override]  # a generator method (see ExprFunctor)
        lambda_ = type(node.value) is Function and not is_primitive(node.value)
        if lambda_:
            self.letrec.append(node.var)
        value = yield node.value
        if lambda_:
            self.letrec.pop()
        if type(value) is GlobalVar:
            # a function that captures nothing is its global: the variable
            # goes (it may be generic, which a `let` of a global is not)
            self.memo[node.var] = value
            body = yield node.body
            return body
        self.memo[node.var] = node.var
        body = yield node.body
        if value is node.value and body is node.body:
            return node
        return Let(node.var, value, body, node.span)

    def visit_function(self, node: Function) -> Generator[Expr, Expr, Expr]:  # type: ignore[override]
        if is_primitive(node):
            return node
        self.depth += 1
        try:
            for p in node.params:
                self.memo[p] = p
            if self.depth == 1:
                body = yield node.body
                if body is node.body:
                    return node
                return Function(
                    node.params, body, node.ret_type, node.type_params, node.relations, node.attrs, node.span
                )
            own = self.letrec[-1] if self.letrec else None
            captured = [v for v in free_vars(node) if v is not own]
            recursive = own is not None and any(v is own for v in free_vars(node))
            gv = self.fresh_global()
            site: Expr = Call(gv, tuple(captured)) if captured else gv
            if recursive:
                assert own is not None
                self.memo[own] = site
            body = yield node.body
            if recursive:
                assert own is not None
                self.memo[own] = own
            inner = Function(node.params, body, node.ret_type, node.type_params, node.relations, node.attrs, node.span)
            # type variables of the surrounding generic function become its own
            free_types = tuple(_free_type_vars(inner))
            if not captured:
                lifted = Function(
                    inner.params,
                    inner.body,
                    inner.ret_type,
                    free_types + inner.type_params,
                    inner.relations,
                    inner.attrs,
                    inner.span,
                )
            else:
                declared = set(free_types)
                typed = [Var(v.name, written(self.types.get(v), declared), v.span) for v in captured]
                rebound = substitute(inner, dict(zip(captured, typed, strict=False)))
                assert type(rebound) is Function  # a substituted function is a function
                fn_type = written(self.types.get(node), declared)
                lifted = Function(tuple(typed), rebound, fn_type, free_types, (), (("Closure", 1),), node.span)
            self.lifted.append((gv, lifted))
            return site
        finally:
            self.depth -= 1
