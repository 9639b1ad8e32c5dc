"""Reductions: `Reduce*`, `ArgMax`, `ArgMin`.

The reduced axes come from the `axes` attribute, or (`ReduceSum` from
opset 13, every reduction from opset 18) from an input, which must be
known at import time. No axes means every axis, unless
`noop_with_empty_axes` asks for the input unchanged. A scalar is reduced
as a one-element vector (as TVM did). Reducing an empty axis gives the
reduction's identity (0 for sums, 1 for products, -inf for maxima, ...),
which numpy's kernels would refuse.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...ir.expr import Expr
from ..builder import Builder, numpy_dtype
from ._common import cast, norm_axes, norm_axis, scalar
from .graph import Ctx
from .node import Node
from .table import Converted, Converter, converter

# name -> (how, the value of an empty reduction)
_REDUCES = {
    "ReduceMax": "max",
    "ReduceMin": "min",
    "ReduceSum": "sum",
    "ReduceMean": "mean",
    "ReduceProd": "prod",
    "ReduceLogSumExp": "logsumexp",
    "ReduceLogSum": "logsum",
    "ReduceSumSquare": "sumsquare",
    "ReduceL1": "l1",
    "ReduceL2": "l2",
}


def _empty_value(how: str, dtype: str) -> float:
    if how in ("sum", "sumsquare", "l1", "l2"):
        return 0
    if how == "prod":
        return 1
    if how == "mean":
        return np.nan
    if how in ("logsum", "logsumexp"):
        return -np.inf
    floating = dtype.startswith(("float", "bfloat"))
    if dtype == "bool":
        return how == "min"
    if how == "max":
        return -np.inf if floating else np.iinfo(numpy_dtype(dtype)).min
    return np.inf if floating else np.iinfo(numpy_dtype(dtype)).max


def reduce(b: Builder, x: Expr, how: str, axes: Sequence[int], keepdims: bool) -> Expr:
    dt = b.dtype(x)
    shape = b.shape(x)
    if any(shape[a] == 0 for a in axes):
        out_shape = (
            [1 if i in axes else d for i, d in enumerate(shape)]
            if keepdims
            else [d for i, d in enumerate(shape) if i not in axes]
        )
        if any(d is None for d in out_shape):
            from ..builder import Unsupported

            raise Unsupported("reducing an empty axis of a tensor with unknown dimensions is not supported")
        return b.call("full", scalar(b, _empty_value(how, dt), dt), shape=out_shape, dtype=dt)
    kw = dict(axis=axes, keepdims=keepdims)
    if how in ("max", "min", "sum", "mean", "prod"):
        return b.call(how, x, **kw)
    if how == "sumsquare":
        return b.call("sum", b.call("multiply", x, x), **kw)
    if how == "l1":
        return b.call("sum", b.call("abs", x), **kw)
    if how == "l2":
        return b.call("sqrt", b.call("sum", b.call("multiply", x, x), **kw))
    if how == "logsum":
        return b.call("log", b.call("sum", x, **kw))
    # log(sum(exp(x - max))) + max, the max kept finite
    m = b.call("max", x, axis=axes, keepdims=True)
    m = b.call("where", b.call("isinf", m), b.call("zeros_like", m), m)
    s = b.call("log", b.call("sum", b.call("exp", b.call("subtract", x, m)), axis=axes, keepdims=True))
    out = b.call("add", s, m)
    if not keepdims:
        out = b.call("squeeze", out, axis=axes)
    return out


def _make(how: str, axes_input_since: int) -> Converter:
    def convert(cx: Ctx, n: Node) -> Converted:
        b = cx.b
        x: Expr = n.input(0)
        keepdims = bool(n.attr("keepdims", 1))
        if b.rank(x) == 0:
            x = b.call("expand_dims", x, axis=0)
        rank = b.rank(x)
        if n.opset >= axes_input_since:
            noop = n.attr("noop_with_empty_axes", 0)
            axes = b.int_list(n.input(1), "the axes") if n.has(1) else None
            if not axes:
                if noop:
                    return x
                axes = list(range(rank))
        else:
            axes = n.attr("axes", None)
            if axes is None:
                axes = list(range(rank))
        return reduce(b, x, how, sorted(norm_axes(axes, rank)), keepdims)

    return convert


for _name, _how in _REDUCES.items():
    converter(_name)(_make(_how, 10**9))
    if _name == "ReduceSum":
        converter(_name, since=13)(_make(_how, 13))
    else:
        converter(_name, since=18)(_make(_how, 18))


def _arg(cx: Ctx, n: Node, op: str) -> Expr:
    b = cx.b
    x: Expr = n.input(0)
    axis = norm_axis(n.attr("axis", 0), b.rank(x))
    keepdims = bool(n.attr("keepdims", 1))
    last = bool(n.attr("select_last_index", 0)) if n.opset >= 12 else False
    out = b.call(op, x, axis=[axis], keepdims=keepdims, select_last_index=last)
    return cast(b, out, "int64")


@converter("ArgMax")
def argmax(cx: Ctx, n: Node) -> Converted:
    return _arg(cx, n, "argmax")


@converter("ArgMin")
def argmin(cx: Ctx, n: Node) -> Converted:
    return _arg(cx, n, "argmin")
