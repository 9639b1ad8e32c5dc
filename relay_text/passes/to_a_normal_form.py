"""`ToANormalForm`: every compound expression bound by a `let`.

As TVM's pass: each call, tuple, projection, constant, reference
operation, `if`, `match` and nested function gets a `let` of its own (a
`let` of the source keeps its variable), in evaluation order, placed in the
innermost scope that holds all of its uses: a value shared by both
branches of an `if` is bound before the `if`, one used by a single branch
inside that branch. A graph (`%1 = ...` shared nodes) thus becomes a chain
of `let`s, each shared value computed once. Functions marked `Primitive=1`
(fused by `FuseOps`) are kept whole. New variables are called `%x0`,
`%x1`, ... in each function.
"""

from __future__ import annotations

from ..ir.expr import Function, GlobalVar
from ..ir.module import Module
from ._module import map_functions
from ._scopes import bind_lets
from .context import PassContext
from .registry import register


@register("ToANormalForm", "Bind every compound expression with a let, at the innermost scope of its uses")
def to_a_normal_form(module: Module, ctx: PassContext) -> Module:
    def convert(gv: GlobalVar | None, fn: Function) -> Function:
        return bind_lets(fn, everything=True)

    return map_functions(module, convert)
