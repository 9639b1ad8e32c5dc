"""`ToBasicBlockNormalForm`: values shared by several scopes bound before them.

A graph may share a node between the branches of an `if` (or the clauses
of a `match`, or a function and its caller); written out, such a value
belongs to no one branch. This pass binds exactly those values with a
`let` in the innermost scope that holds all of their uses (TVM's basic
block normal form: every other expression stays where it is, and the
program's `let`s are kept).
"""

from __future__ import annotations

from ..ir.expr import Function, GlobalVar
from ..ir.module import Module
from ._module import map_functions
from ._scopes import bind_lets
from .context import PassContext
from .registry import register


@register(
    "ToBasicBlockNormalForm", "Bind the values shared by several scopes with a let in the scope holding all their uses"
)
def to_basic_block_normal_form(module: Module, ctx: PassContext) -> Module:
    def convert(gv: GlobalVar | None, fn: Function) -> Function:
        return bind_lets(fn, everything=False)

    return map_functions(module, convert)
