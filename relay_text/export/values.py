"""What an expression stands for while it is exported.

A tensor is an ONNX value name (`Tensor`); a tuple is a Python tuple of
such values; a function is a `Closure` (a `fn` with the scope it was
written in) or a `GlobalRef`, inlined where it is called. Nothing else
reaches the graph: a closure or a global among the outputs, or passed to
an operator, is a construct ONNX cannot express.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..ir.expr import Function, GlobalVar, Var


@dataclass(frozen=True)
class Tensor:
    name: str
    ty: Any = None  # the checker's TensorType, where known


@dataclass(eq=False)
class Closure:
    fn: Function
    scope: Any  # the Lowerer that evaluated the `fn` (its variables are visible in the body)
    self_var: Var | None = None  # the `let` variable a recursive closure is bound to


@dataclass(frozen=True)
class GlobalRef:
    gv: GlobalVar


@dataclass(frozen=True)
class ConstructorRef:
    constructor: Any  # a Constructor node, as a value (reported where it is called or used)


@dataclass(frozen=True)
class OpRef:
    name: str


def flatten(value: Any) -> list[Any]:
    """The tensors of a value, depth first (a tuple's fields in order)."""
    out: list[Any] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (tuple, list)):
            stack.extend(reversed(v))
        else:
            out.append(v)
    return out


def _tuple_fields(v: Any) -> Any:
    return v if isinstance(v, (tuple, list)) else None


def rebuild(shape: Any, tensors: list[Any], fields: Callable[[Any], Any] = _tuple_fields) -> Any:
    """A value of the structure of `shape` holding `tensors` (as `flatten`
    lists them); `fields` gives the parts of a structured node of `shape`
    (a tuple's fields; a `TupleType`'s, to rebuild a type's structure), None
    for a leaf."""
    it = iter(tensors)
    top = fields(shape)
    if top is None:
        return next(it)
    stack: list[tuple[Any, list[Any]]] = [(top, [])]  # (parts, those built so far), innermost last
    while True:
        parts, built = stack[-1]
        if len(built) == len(parts):
            stack.pop()
            done = tuple(built)
            if not stack:
                return done
            stack[-1][1].append(done)
            continue
        inner = fields(parts[len(built)])
        if inner is None:
            built.append(next(it))
        else:
            stack.append((inner, []))
