"""What an expression stands for while it is exported.

A tensor is an ONNX value name (`Tensor`); a tuple is a Python tuple of
such values; a function is a `Closure` (a `fn` with the scope it was
written in) or a `GlobalRef`, inlined where it is called. Nothing else
reaches the graph: a closure or a global among the outputs, or passed to
an operator, is a construct ONNX cannot express.
"""

from __future__ import annotations

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


def flatten(value: Any) -> list[Tensor]:
    """The tensors of a value, depth first (a tuple's fields in order)."""
    out: list[Tensor] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, tuple):
            stack.extend(reversed(v))
        else:
            out.append(v)
    return out


def rebuild(shape: Any, tensors: list[Tensor]) -> Any:
    """A value of the structure of `shape` holding `tensors` (as `flatten` lists them)."""
    it = iter(tensors)

    def build(v: Any) -> Any:
        if isinstance(v, tuple):
            return tuple(build(f) for f in v)
        return next(it)

    return build(shape)
