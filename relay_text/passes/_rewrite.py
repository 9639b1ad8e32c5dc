"""What a rewrite of one function needs: the types of nodes, old and new.

The evaluator rewrites each function just before compiling it, from the
checker's types (it does not check again); `relay opt` checks the whole
module after each pass. A `Rewrite` serves both: `type_of(node)` is the
checker's type of a node of the program, or the type recorded for a node a
rewrite made (`call`, `scalar` record it; `adopt` gives each node a
mutator rebuilt the type of the node it replaces). `origins` maps a rebuilt
node to the node of the source it stands for (where a runtime error is
reported).
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from ..ir.expr import AttrPairs, Call, Constant, Expr, Op
from ..ir.ty import TensorType
from ..ir.visitor import ExprMutator


class Rewrite:
    def __init__(self, checker_type_of: Callable[[Expr], Any] | None) -> None:
        self.checker_type_of = checker_type_of
        self.types: dict[Expr, Any] = {}  # types of the nodes rewrites made
        self.origins: dict[Expr, Expr] = {}  # a rebuilt node -> the source node it stands for

    def type_of(self, node: Expr) -> Any:
        ty = self.types.get(node)
        if ty is None and self.checker_type_of is not None:
            ty = self.checker_type_of(node)
        return ty

    def adopt(self, mutator: ExprMutator) -> None:
        """Rebuilt nodes have the types of the nodes they replace."""
        for old, new in mutator.memo.items():
            if new is not old:
                if new not in self.origins and type(new) is type(old):
                    self.origins[new] = self.origins.get(old, old)
                if new not in self.types:
                    ty = self.type_of(old)
                    if ty is not None:
                        self.types[new] = ty

    def call(self, name: str, args: tuple[Any, ...], attrs: AttrPairs, ty: Any, span: Any) -> Call:
        node = Call(Op(name), args, attrs, (), span)
        self.types[node] = ty
        return node

    def scalar(self, value: float, dtype: str, span: Any) -> Constant:
        import numpy as np

        node = Constant(float(np.dtype(dtype).type(value)), dtype, (), None, span)
        self.types[node] = TensorType((), dtype)
        return node
