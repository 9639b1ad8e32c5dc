"""The ATen converter table: operator overload name to converter.

    @aten("conv2d.default", "convolution.default")
    def conv(cx, a): ...        # a: the node's arguments by name

Names are those `torch.export` prints (`aten.conv2d.default`), without the
`aten.` prefix when registered; `getitem` is Python's `operator.getitem`
on a node with several results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from ...ir.expr import Expr

if TYPE_CHECKING:
    from .graph import Ctx
    from .ops_shape import Refused

# A node's arguments by name, as torch.export gives them: expressions for
# tensors, Python numbers, lists, dtypes and devices for the rest (Any: the
# values are whatever the ATen schema of the operator declares).
Args: TypeAlias = dict[str, Any]
# What a converter gives: the node's value (an int for a size computed from
# static sizes), or its results in order (None for one it does not compute,
# Refused for one no inference program should read).
Converted: TypeAlias = "Expr | int | Sequence[Expr | Refused | None]"
# An operand of an elementwise operator: a tensor or a Python scalar.
Operand: TypeAlias = "Expr | bool | int | float"
AtenConverter: TypeAlias = "Callable[[Ctx, Args], Converted]"

_TABLE: dict[str, AtenConverter] = {}


def aten(*names: str) -> Callable[[AtenConverter], AtenConverter]:
    def decorate(fn: AtenConverter) -> AtenConverter:
        for name in names:
            key = name if "." not in name else f"aten.{name}"
            if key in _TABLE:
                raise ValueError(f"{key} registered twice")
            _TABLE[key] = fn
        return fn

    return decorate


def _load() -> None:
    from . import ops_elementwise, ops_nn, ops_rnn, ops_shape  # noqa: F401


def lookup(name: str) -> AtenConverter | None:
    _load()
    return _TABLE.get(name)


def names() -> list[str]:
    _load()
    return sorted(_TABLE)
