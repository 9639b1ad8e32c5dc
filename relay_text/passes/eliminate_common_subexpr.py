"""`EliminateCommonSubexpr`: equal operator calls computed once.

As TVM's pass: two calls of the same operator with equal attributes and the
same arguments (the same node, or equal scalar literals; tuples of such)
become one node, used by everything that used either; so do two
projections `.i` of the same tuple. Calls without arguments and calls of
stateful operators are never merged; neither are, unlike TVM, calls of
operators that are not computational (allocations of storage that other
calls write into). Merging works bottom-up, so whole equal subgraphs
collapse.

TVM's `fskip` (a Python predicate over calls) becomes `skip`: operators
whose calls are never merged (`skip=nn.dropout:random.uniform`).
"""

from __future__ import annotations

from typing import Any

from ..ir.alpha import attrs_equal, constants_equal
from ..ir.expr import Call, Constant, Expr, Function, GlobalVar, Op, Tuple, TupleGetItem
from ..ir.module import Module
from ..ir.visitor import ExprMutator
from ._module import map_functions
from .context import PassContext
from .registry import Option, register


@register(
    "EliminateCommonSubexpr",
    "Compute equal operator calls (same operator, attributes and arguments) once",
    Option("skip", "names", (), "operators whose calls are never merged, separated by `:` (TVM's fskip)"),
)
def eliminate_common_subexpr(module: Module, ctx: PassContext, skip: tuple[str, ...]) -> Module:
    def convert(gv: GlobalVar | None, fn: Function) -> Function:
        new = _Merge(frozenset(skip)).visit(fn)
        assert type(new) is Function  # a rebuilt function is a function
        return new

    return map_functions(module, convert)


class _Merge(ExprMutator):
    def __init__(self, skip: frozenset[str]) -> None:
        super().__init__()
        self.skip = skip
        self.calls: dict[Any, list[Call]] = {}
        self.items: dict[int, list[TupleGetItem]] = {}

    def visit_call(self, node: Call) -> Expr:
        from ..ops import registry

        new = super().visit_call(node)
        if type(new) is not Call or type(new.op) is not Op or not new.args or new.op.name in self.skip:
            return new
        props = registry.properties(new.op.name)
        if props.stateful or not props.computational:
            return new
        seen = self.calls.setdefault(_key(new), [])
        for candidate in seen:
            if (
                len(candidate.args) == len(new.args)
                and attrs_equal(candidate.attrs, new.attrs)
                and all(_equivalent(a, b) for a, b in zip(new.args, candidate.args, strict=False))
            ):
                return candidate
        seen.append(new)
        return new

    def visit_tuple_get_item(self, node: TupleGetItem) -> Expr:
        new = super().visit_tuple_get_item(node)
        if type(new) is not TupleGetItem:
            return new
        seen = self.items.setdefault(id(new.tuple_value), [])
        for candidate in seen:
            if candidate.index == new.index and candidate.tuple_value is new.tuple_value:
                return candidate
        seen.append(new)
        return new


def _key(call: Call) -> Any:
    """A key that equal calls share (candidates are then compared in full):
    the operator and what each argument is, a scalar literal by its value."""
    assert isinstance(call.op, Op)  # operator calls only
    parts: list[Any] = [call.op.name]
    for arg in call.args:
        if type(arg) is Constant and arg.is_scalar:
            parts.append(("literal", arg.dtype, repr(arg.value)))
        elif type(arg) is Tuple:
            parts.append(("tuple", len(arg.fields)))
        else:
            parts.append(id(arg))
    return tuple(parts)


def _equivalent(a: Any, b: Any) -> bool:
    if type(a) is Tuple and type(b) is Tuple:
        return len(a.fields) == len(b.fields) and all(
            x is y or _equal_scalars(x, y) for x, y in zip(a.fields, b.fields, strict=False)
        )
    return a is b or _equal_scalars(a, b)


def _equal_scalars(a: Any, b: Any) -> bool:
    return type(a) is Constant and type(b) is Constant and a.is_scalar and b.is_scalar and constants_equal(a, b)
