"""`DefuseOps`: the inverse of `FuseOps`.

As TVM's pass: a call of a function written in place (`(fn (%p0, %p1,
Primitive=1) { ... })(%x, %y)`, what `FuseOps` makes) is replaced by the
function's body with each parameter replaced by its argument, so the
operators stand in the caller's graph again. Each argument stays one
shared node: it is still computed once.
"""

from __future__ import annotations

from ..ir.expr import Call, Expr, Function, GlobalVar
from ..ir.module import Module
from ..ir.visitor import ExprMutator
from ._module import map_functions, substitute
from .context import PassContext
from .registry import register


@register("DefuseOps", "Inline the calls of functions written in place (undo FuseOps)")
def defuse_ops(module: Module, ctx: PassContext) -> Module:
    def convert(gv: GlobalVar | None, fn: Function) -> Function:
        new = _Defuse().visit(fn)
        assert type(new) is Function  # a rebuilt function is a function
        return new

    return map_functions(module, convert)


class _Defuse(ExprMutator):
    def visit_call(self, node: Call) -> Expr:
        new = super().visit_call(node)
        if type(new) is Call and type(new.op) is Function and len(new.op.params) == len(new.args):
            fn = new.op
            return substitute(fn.body, dict(zip(fn.params, new.args, strict=False)))
        return new
