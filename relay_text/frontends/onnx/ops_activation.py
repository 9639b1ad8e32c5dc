"""Activation functions, written with the registered elementwise operators
where Relay has no operator of their own (TVM's formulas)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...ir.expr import Expr
from ..builder import Builder
from ._common import scalar
from .graph import Ctx
from .node import Node
from .table import Converted, converter

MICROSOFT = "com.microsoft"


@converter("LeakyRelu")
def leaky_relu(cx: Ctx, n: Node) -> Converted:
    n.ignore("consumed_inputs")
    return cx.b.call("nn.leaky_relu", n.input(0), alpha=float(n.attr("alpha", 0.01)))


def _elu(b: Builder, x: Expr, alpha: float) -> Expr:
    dt = b.dtype(x)
    neg = b.call(
        "multiply", scalar(b, -alpha, dt), b.call("nn.relu", b.call("subtract", scalar(b, 1, dt), b.call("exp", x)))
    )
    return b.call("add", neg, b.call("nn.relu", x))


@converter("Elu")
def elu(cx: Ctx, n: Node) -> Converted:
    n.ignore("consumed_inputs")
    return _elu(cx.b, n.input(0), float(n.attr("alpha", 1.0)))


@converter("Selu")
def selu(cx: Ctx, n: Node) -> Converted:
    n.ignore("consumed_inputs")
    b = cx.b
    x: Expr = n.input(0)
    alpha = float(n.attr("alpha", 1.67326319217681884765625))
    gamma = float(n.attr("gamma", 1.05070102214813232421875))
    return b.call("multiply", scalar(b, gamma, b.dtype(x)), _elu(b, x, alpha))


@converter("Celu", since=12)
def celu(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    dt = b.dtype(x)
    alpha = float(n.attr("alpha", 1.0))
    zero, one, a = scalar(b, 0, dt), scalar(b, 1, dt), scalar(b, alpha, dt)
    inner = b.call("multiply", a, b.call("subtract", b.call("exp", b.call("divide", x, a)), one))
    return b.call("add", b.call("maximum", zero, x), b.call("minimum", zero, inner))


def _gelu_erf(b: Builder, x: Expr) -> Expr:
    dt = b.dtype(x)
    half, one, root2 = scalar(b, 0.5, dt), scalar(b, 1, dt), scalar(b, math.sqrt(2), dt)
    return b.call(
        "multiply", b.call("multiply", half, x), b.call("add", one, b.call("erf", b.call("divide", x, root2)))
    )


def _gelu_tanh(b: Builder, x: Expr) -> Expr:
    dt = b.dtype(x)
    half, one = scalar(b, 0.5, dt), scalar(b, 1, dt)
    c1 = scalar(b, math.sqrt(2 / math.pi), dt)
    c2 = scalar(b, 0.044715 * math.sqrt(2 / math.pi), dt)
    inner = b.call("add", b.call("multiply", c1, x), b.call("multiply", c2, b.call("power", x, scalar(b, 3, dt))))
    return b.call("multiply", b.call("multiply", half, x), b.call("add", one, b.call("tanh", inner)))


@converter("Gelu", since=20)
def gelu(cx: Ctx, n: Node) -> Converted:
    approximate = n.attr("approximate", "none", allowed=("none", "tanh"))
    x: Expr = n.input(0)
    return _gelu_tanh(cx.b, x) if approximate == "tanh" else _gelu_erf(cx.b, x)


@converter("Gelu", domain=MICROSOFT)
def gelu_ms(cx: Ctx, n: Node) -> Converted:
    return _gelu_erf(cx.b, n.input(0))


@converter("BiasGelu", domain=MICROSOFT)
def bias_gelu(cx: Ctx, n: Node) -> Converted:
    return _gelu_erf(cx.b, cx.b.call("add", n.input(0), n.input(1)))


@converter("FastGelu", domain=MICROSOFT)
def fast_gelu(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    if n.has(1):
        x = b.call("add", x, n.input(1))
    return _gelu_tanh(b, x)


def _softplus(b: Builder, x: Expr) -> Expr:
    return b.call("log", b.call("add", b.call("exp", x), scalar(b, 1, b.dtype(x))))


@converter("Softplus")
def softplus(cx: Ctx, n: Node) -> Converted:
    return _softplus(cx.b, n.input(0))


@converter("Mish", since=18)
def mish(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    return b.call("multiply", x, b.call("tanh", _softplus(b, x)))


@converter("Softsign")
def softsign(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    return b.call("divide", x, b.call("add", scalar(b, 1, b.dtype(x)), b.call("abs", x)))


def _hard_sigmoid(b: Builder, x: Expr, alpha: float, beta: float) -> Expr:
    dt = b.dtype(x)
    t = b.call("add", b.call("multiply", x, scalar(b, alpha, dt)), scalar(b, beta, dt))
    return b.call("clip", t, a_min=0.0, a_max=1.0)


@converter("HardSigmoid")
def hard_sigmoid(cx: Ctx, n: Node) -> Converted:
    n.ignore("consumed_inputs")
    return _hard_sigmoid(cx.b, n.input(0), float(n.attr("alpha", 0.2)), float(n.attr("beta", 0.5)))


@converter("HardSwish", since=14)
def hard_swish(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    return b.call("multiply", x, _hard_sigmoid(b, x, 1 / 6, 0.5))


@converter("ThresholdedRelu")
def thresholded_relu(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    dt = b.dtype(x)
    mask = b.call("cast", b.call("greater", x, scalar(b, float(n.attr("alpha", 1.0)), dt)), dtype=dt)
    return b.call("multiply", x, mask)


@converter("ScaledTanh")
def scaled_tanh(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    dt = b.dtype(x)
    alpha, beta = float(n.attr("alpha", 1.0)), float(n.attr("beta", 1.0))
    return b.call("multiply", b.call("tanh", b.call("multiply", scalar(b, beta, dt), x)), scalar(b, alpha, dt))


@converter("ParametricSoftplus")
def parametric_softplus(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    dt = b.dtype(x)
    alpha, beta = float(n.attr("alpha", 1.0)), float(n.attr("beta", 1.0))
    return b.call("multiply", _softplus(b, b.call("multiply", scalar(b, beta, dt), x)), scalar(b, alpha, dt))


@converter("Affine")
def affine(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    dt = b.dtype(x)
    return b.call(
        "add",
        b.call("multiply", scalar(b, float(n.attr("alpha", 1.0)), dt), x),
        scalar(b, float(n.attr("beta", 0.0)), dt),
    )


@converter("Scale")
def scale(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    return b.call("multiply", x, scalar(b, float(n.attr("scale", 1.0)), b.dtype(x)))


@converter("Shrink", since=9)
def shrink(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    dt = b.dtype(x)
    lambd = scalar(b, float(n.attr("lambd", 0.5)), dt)
    bias = scalar(b, float(n.attr("bias", 0.0)), dt)
    zeros = b.call("zeros_like", x)
    low = b.call("where", b.call("less", x, b.call("negative", lambd)), b.call("add", x, bias), zeros)
    high = b.call("where", b.call("greater", x, lambd), b.call("subtract", x, bias), zeros)
    return b.call("add", low, high)


def _broadcasts(small: Sequence[int | None], big: Sequence[int | None]) -> bool:
    return all(a == 1 or a == c for a, c in zip(reversed(small), reversed(big), strict=False)) and len(small) <= len(
        big
    )


@converter("PRelu")
def prelu(cx: Ctx, n: Node) -> Converted:
    """`nn.prelu` when the slope is one value per channel (axis 1), else
    `x < 0 ? slope * x : x` with the slope broadcast."""
    n.ignore("consumed_inputs")
    b = cx.b
    x, slope = n.input(0), n.input(1)
    xs, ss = b.shape(x), b.shape(slope)
    if len(xs) >= 2 and xs[1] is not None and len(ss) == 1 and ss[0] == xs[1] and not _broadcasts(ss, xs):
        # a vector of one slope per channel, before opset 7's numpy broadcasting
        return b.call("nn.prelu", x, slope, axis=1)
    if len(xs) >= 2 and xs[1] is not None:
        channels = xs[1]
        trailing = len(xs) - 2
        per_channel = (len(ss) == 1 and ss[0] == channels and trailing == 0) or (
            len(ss) == trailing + 1 and ss[0] == channels and all(d == 1 for d in ss[1:])
        )
        if per_channel and ss[0] is not None:
            flat = b.call("reshape", slope, newshape=[channels])
            return b.call("nn.prelu", x, flat, axis=1)
    zero = scalar(b, 0, b.dtype(x))
    return b.call("where", b.call("less", x, zero), b.call("multiply", x, slope), x)
