"""Where a sub-expression is written, for diagnostics.

A node's own span is where it was built. For most nodes that is also where
it is used, but not for shared ones: a variable's span is its binding site,
a global's its definition, a graph-bound node (`%1 = ...`) the right-hand
side of its binding. The parser records where each use of a shared node is
written (`ir.positions.Positions`); a `Locator` answers "where is this
argument / condition / branch result written" from those records, falling
back to the node's own span.
"""

from __future__ import annotations

from typing import Any

from ..ir.expr import (
    Call,
    Constructor,
    Function,
    GlobalVar,
    If,
    Let,
    Match,
    Tuple,
    TupleGetItem,
    Var,
)
from ..ir.positions import Positions
from ..ir.span import Span
from ..ir.ty import TypeVar

_SHARED = (Var, GlobalVar, Constructor)


def _own(node: Any) -> Span | None:
    """A node's span, if it says where this occurrence is written."""
    return None if isinstance(node, _SHARED) else getattr(node, "span", None)


class Locator:
    def __init__(self, positions: Positions) -> None:
        self.positions = positions

    def _child(self, parent: Any, index: int, child: Any) -> Span | None:
        return self.positions.use(parent, index) or _own(child)

    def _result(self, parent: Any, index: int, child: Any) -> Span | None:
        """Where the value of a child is written: through blocks and let chains."""
        while isinstance(child, Let):
            parent, index, child = child, 2, child.body
        return self.positions.result(parent, index) or self._child(parent, index, child)

    def arg_span(self, call: Call, index: int) -> Span | None:
        """Argument `index` of a call (falls back to the call)."""
        if index >= len(call.args):
            return call.span
        return self._child(call, 1 + index, call.args[index]) or call.span

    def callee_span(self, call: Call) -> Span | None:
        return self._child(call, 0, call.op) or call.span

    def attr_span(self, call: Call, key: str) -> Span | None:
        """The key of `key=value` in a call, or the call."""
        return self.positions.attr_key(call, key) or call.span

    def tuple_field_span(self, node: Tuple, index: int) -> Span | None:
        return self._child(node, index, node.fields[index]) or node.span

    def if_cond_span(self, node: If) -> Span | None:
        return self._child(node, 0, node.cond) or node.span

    def projected_span(self, node: TupleGetItem) -> Span | None:
        """The tuple part of `e.i`."""
        return self._child(node, 0, node.tuple_value) or node.span

    def match_data_span(self, node: Match) -> Span | None:
        return self._child(node, 0, node.data) or node.span

    def let_value_span(self, node: Let) -> Span | None:
        return self._child(node, 1, node.value) or node.span

    def body_result_span(self, func: Function) -> Span | None:
        """Where the value a function returns is written."""
        return self._result(func, len(func.params), func.body) or func.span

    def branch_span(self, node: If, which: int) -> Span | None:
        """The result expression of the then (0) or else (1) branch."""
        branch = node.then_branch if which == 0 else node.else_branch
        return self._result(node, 1 + which, branch) or node.span

    def signature_span(self, func: Function) -> Span | None:
        """`def @f(%x : T, ...)` or `fn (%x, ...)`: a definition's head, up to its parameters' `)`."""
        return self.positions.head(func) or func.span


def annotation_span(var: Var) -> Span | None:
    """A binder with its type annotation: `%x : T`."""
    ann = var.type_annotation
    span = getattr(ann, "span", None)
    if span is not None and not isinstance(ann, TypeVar):
        return var.span.to(span) if var.span is not None else span
    return var.span


def inside(node: Any, span: Span) -> bool:
    s = _own(node)
    return s is not None and span.start <= s.start and s.end <= span.end
