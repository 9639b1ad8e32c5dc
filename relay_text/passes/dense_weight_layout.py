"""`DenseWeightLayout`: constant `nn.dense` weights laid out for the product.

`nn.dense(x, W)` multiplies by `W` transposed. Where `W` is a constant
float matrix, the evaluator lays it out column-major once, so that the
product reads it as a row-major matrix, the layout BLAS is fastest on. It
is one of the rewrites `relay run` applies before compiling (after
`FoldConstant`, which may have made the weight a constant). The layout of a
tensor in memory is not part of the text, so over a module (`relay opt`)
this pass changes nothing.
"""

from __future__ import annotations

from typing import Any

from ..ir.expr import Call, Constant, Expr, Function, Op
from ..ir.module import Module
from ..ir.visitor import ExprMutator
from ._rewrite import Rewrite
from .context import PassContext
from .registry import register

FLOATS = frozenset({"float32", "float64"})

LARGEST = 256 << 20
"""Bytes of a weight above which it keeps its layout: its copy would hold
its memory twice (a 2 GiB weight: 2 GiB more, and seconds of copying) for
a few percent of its product's time."""


def lay_out_for_evaluator(fn: Function, rw: Rewrite, values: Any) -> Function:
    """Each `nn.dense` of a constant 2-d float weight (at least 2x2, at most
    `LARGEST` bytes) reads a column-major copy of it, made once per weight."""
    import numpy as np

    from .fold_constant import MISSING

    transposed: dict[int, tuple[Any, Expr]] = {}  # id(value) -> (value, kept alive so that ids stay unique; its copy)

    class Layout(ExprMutator):
        def visit_call(self, node: Call) -> Expr:
            new = super().visit_call(node)
            if type(new) is not Call or type(new.op) is not Op or new.op.name != "nn.dense" or len(new.args) != 2:
                return new
            weight = new.args[1]
            if type(weight) is not Constant:
                return new
            value = values.constant_value(weight)
            if value is MISSING or not isinstance(value, np.ndarray) or value.ndim != 2:
                return new
            if (
                value.dtype.name not in FLOATS
                or not value.flags.c_contiguous
                or value.nbytes > LARGEST
                or value.shape[0] < 2
                or value.shape[1] < 2
            ):
                return new
            found = transposed.get(id(value))
            if found is None or found[0] is not value:
                found = transposed[id(value)] = (value, values.constant(weight, np.asfortranarray(value)))
            return Call(new.op, (new.args[0], found[1]), new.attrs, new.type_args, new.span, new.infix)

    layout = Layout()
    out = layout.visit(fn)
    rw.adopt(layout)
    assert type(out) is Function  # a rebuilt function is a function
    return out


@register(
    "DenseWeightLayout",
    "Lay constant nn.dense weights out column-major for the evaluator (relay run's; the text does not change)",
    evaluator=lay_out_for_evaluator,
)
def dense_weight_layout(module: Module, ctx: PassContext) -> Module:
    return module
