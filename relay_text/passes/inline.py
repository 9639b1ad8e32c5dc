"""`Inline`: global functions marked `Inline=1` inlined where they are called.

As TVM's pass (its `InlineGlobals`): a global function whose attributes
say `Inline=1` (`def @f(%x, Inline=1) { ... }`), that is not recursive
and, once the functions it calls are inlined, calls no other global, is
replaced at each call `@f(a, b)` by its body with its parameters bound to
the arguments (each argument still computed once), and where it is named
without being called, by the function itself. A function so inlined
everywhere leaves the module; one that nothing called stays.
"""

from __future__ import annotations


from ..ir.expr import Call, Expr, Function, GlobalVar
from ..ir.module import Module
from ..ir.visitor import ExprMutator
from ._module import copy_fresh, replace
from ._scopes import walk
from .context import PassContext
from .registry import register


def _marked(fn: Function) -> bool:
    return any(k == "Inline" and v not in (0, False, None) for k, v in fn.attrs)


@register("Inline", "Inline the global functions marked Inline=1 where they are called")
def inline(module: Module, ctx: PassContext) -> Module:
    by_name = {gv.name: gv for gv in module.functions}
    calls = {
        gv: {n.name for n in walk(fn, lambda n: True) if type(n) is GlobalVar and n.name in by_name}
        for gv, fn in module.functions.items()
    }
    called = set().union(*calls.values()) if calls else set()
    functions = dict(module.functions)
    order = _callees_first(module, calls)
    done: set[str] = set()  # inlinable functions, already inlined into themselves
    for gv in order:
        fn = functions[gv]
        if any(name in done for name in calls[gv]):
            fn = _Inliner({n: functions[by_name[n]] for n in done}).visit(fn)  # type: ignore[assignment]
            functions[gv] = fn
        remaining = {n.name for n in walk(fn, lambda n: True) if type(n) is GlobalVar and n.name in by_name}
        if _marked(fn) and gv.name not in calls[gv] and not remaining:
            done.add(gv.name)
    kept = {gv: fn for gv, fn in functions.items() if gv.name not in done or gv.name not in called}
    if kept.keys() == module.functions.keys() and all(kept[g] is module.functions[g] for g in kept):
        return module
    order_out = [d for d in module.order if not isinstance(d, GlobalVar) or d in kept]
    return replace(module, functions=kept, order=order_out)


def _callees_first(module: Module, calls: dict[GlobalVar, set[str]]) -> list[GlobalVar]:
    by_name = {gv.name: gv for gv in module.functions}
    order: list[GlobalVar] = []
    state: dict[str, int] = {}
    for root in module.functions:
        stack = [(root, False)]
        while stack:
            gv, done = stack.pop()
            if done:
                if state.get(gv.name) != 2:
                    state[gv.name] = 2
                    order.append(gv)
                continue
            if state.get(gv.name):
                continue
            state[gv.name] = 1
            stack.append((gv, True))
            for name in sorted(calls[gv]):
                if not state.get(name):
                    stack.append((by_name[name], False))
    return order


class _Inliner(ExprMutator):
    def __init__(self, bodies: dict[str, Function]) -> None:
        super().__init__()
        self.bodies = bodies

    def visit_call(self, node: Call) -> Expr:
        if type(node.op) is GlobalVar and node.op.name in self.bodies:
            fn = self.bodies[node.op.name]
            if len(fn.params) == len(node.args):
                args = [self.memo[a] for a in node.args]
                return copy_fresh(fn.body, dict(zip(fn.params, args, strict=False)))
        return super().visit_call(node)

    def visit_global_var(self, node: Expr) -> Expr:
        assert type(node) is GlobalVar  # the functor dispatches on the node's class
        fn = self.bodies.get(node.name)
        if fn is None:
            return node
        copy = copy_fresh(fn)
        assert type(copy) is Function  # a copy of a function is a function
        attrs = tuple((k, v) for k, v in copy.attrs if k != "Inline")
        return Function(copy.params, copy.body, copy.ret_type, copy.type_params, copy.relations, attrs, copy.span)
