"""`InferType`: the checker's types written into the program.

TVM's `InferType` fills in the type of every node, which its printer then
shows. Here the types are written where the text has a place for them:
every parameter and `let` variable without an annotation gets its inferred
type, and every function without a written result type gets one. With
`comments=true` every call and projection is followed by its type in a
comment, as TVM printed it (`add(%x, %y) /* ty=Tensor[(3), float32] */`);
`relay fmt` keeps those comments as they are.

A type is written only where the text can say it and saying it keeps the
program's meaning: one with holes (`_`, unknown after checking), one naming
a type variable the program does not declare (a function left generic, whose
inferred parameters may carry constraints a written type cannot state), the
type of a reference, and the generalized type of a `let`-bound function
(used at several types) are left out.
"""

from __future__ import annotations

from typing import Any

from ..ir.expr import Expr, Function, GlobalVar, Let, Var
from ..ir.module import Module
from ..ir.ty import FuncType, IncompleteType, TensorType, TupleType, TypeCall, TypeVar
from ..ir.visitor import ExprMutator, post_order
from ._module import map_functions
from .context import PassContext
from .registry import Option, register


@register(
    "InferType",
    "Write the inferred type of every parameter, let variable and function result into the program",
    Option("comments", "bool", False, "also write `/* ty=... */` after every call and projection, as TVM printed it"),
)
def infer_type(module: Module, ctx: PassContext, comments: bool) -> Module:
    result = ctx.check(module)
    types = result.types
    if comments:
        ctx.type_comments = True

    def annotate(gv: GlobalVar | None, fn: Function) -> Function:
        declared: set[Any] = set()
        for node in post_order(fn):
            if type(node) is Function:
                declared.update(node.type_params)
        mapping: dict[Expr, Expr] = {}
        for node in post_order(fn):
            for var in _binders(node):
                if var.type_annotation is None and var.name and var not in mapping:
                    ty = types.get(var)
                    if ty is not None and _writable(ty, declared):
                        mapping[var] = Var(var.name, ty, var.span, var.attrs)
        rewrite = _Annotate(mapping, types, declared)
        new = rewrite.visit(fn)
        assert type(new) is Function  # a rebuilt function is a function
        return new

    return map_functions(module, annotate)


def _binders(node: Expr) -> list[Var]:
    if type(node) is Let:
        return [node.var]
    if type(node) is Function:
        return list(node.params)
    return []


class _Annotate(ExprMutator):
    """Rebuilds with the annotated variables, and gives every function
    without a written result type its inferred one."""

    def __init__(self, mapping: dict[Expr, Expr], types: dict[Expr, Any], declared: set[Any]) -> None:
        super().__init__()
        self.memo.update(mapping)
        self.types = types
        self.declared = declared

    def visit_function(self, node: Function) -> Expr:
        new = super().visit_function(node)
        assert type(new) is Function
        if new.ret_type is not None:
            return new
        ty = self.types.get(node)
        if not isinstance(ty, FuncType) or not _writable(ty.ret_type, self.declared):
            return new
        return Function(new.params, new.body, ty.ret_type, new.type_params, new.relations, new.attrs, new.span)


def _writable(ty: Any, declared: set[Any]) -> bool:
    """Whether a type can be written in the text (see the module docstring)."""
    stack = [ty]
    while stack:
        t = stack.pop()
        if isinstance(t, TypeVar):
            if t not in declared:
                return False
        elif isinstance(t, TensorType):
            if isinstance(t.shape, (TypeVar, IncompleteType)):
                stack.append(t.shape)
            elif isinstance(t.shape, tuple):
                stack.extend(d for d in t.shape if isinstance(d, (TypeVar, IncompleteType)))
            if not isinstance(t.dtype, str):
                stack.append(t.dtype)
        elif isinstance(t, TupleType):
            stack.extend(t.fields)
        elif isinstance(t, FuncType):
            if t.type_params or t.type_constraints:
                return False
            stack.extend(t.arg_types)
            stack.append(t.ret_type)
        elif isinstance(t, TypeCall):
            stack.extend(t.args)
        elif not isinstance(t, str):  # a hole, a reference type, ...
            return False
    return True
