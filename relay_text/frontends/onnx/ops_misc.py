"""Losses, training steps, random numbers and the rest:
`NegativeLogLikelihoodLoss`, `SoftmaxCrossEntropyLoss`, `Adagrad`, `Adam`,
`Momentum`, `Bernoulli`, `RandomNormal(Like)`, `RandomUniform(Like)`,
`Multinomial`, `LinearRegressor`, `ATen`.

Random numbers use the `random.*` operators (Threefry, as TVM's
importer); a node without a `seed` gets one derived from its output's name,
so that importing a model twice gives the same program.
"""

from __future__ import annotations

import sys
import zlib
from collections.abc import Sequence

import numpy as np

from ...ir.expr import Expr
from ..builder import Builder, Unsupported
from ._common import cast, scalar
from .graph import Ctx
from .node import Node
from .ops_elementwise import onnx_to_dtype
from .table import Converted, converter

TRAINING = "ai.onnx.preview.training"
ML = "ai.onnx.ml"


# ---------------------------------------------------------------- losses


def nll(b: Builder, x: Expr, target: Expr, weight: Expr | None, ignore_index: int | None, reduction: str) -> Expr:
    """Negative log likelihood of the class `target` in each row of `x`
    (classes on axis 1); ignored targets weigh 0."""
    dt = b.dtype(x)
    t = target
    mask = None
    if ignore_index is not None:
        mask = b.call("not_equal", t, scalar(b, ignore_index, b.dtype(t)))
        t = b.call("where", mask, t, scalar(b, 0, b.dtype(t)))
    picked = b.call("squeeze", b.call("gather", x, b.call("expand_dims", t, axis=1), axis=1), axis=[1])
    w = b.call("take", weight, t, axis=0) if weight is not None else b.call("ones_like", picked)
    if mask is not None:
        w = b.call("where", mask, w, scalar(b, 0, dt))
    loss = b.call("multiply", b.call("negative", picked), w)
    if reduction == "none":
        return loss
    total = b.call("sum", loss)
    if reduction == "sum":
        return total
    return b.call("divide", total, b.call("sum", w))


@converter("NegativeLogLikelihoodLoss", since=12)
def nll_loss(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    reduction = n.attr("reduction", "mean", allowed=("mean", "sum", "none"))
    return nll(b, n.input(0), n.input(1), n.input(2), n.attr("ignore_index", None), reduction)


@converter("SoftmaxCrossEntropyLoss", since=12)
def softmax_cross_entropy(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    reduction = n.attr("reduction", "mean", allowed=("mean", "sum", "none"))
    x: Expr = n.input(0)
    log_prob = b.call("nn.log_softmax", x, axis=1)
    loss = nll(b, log_prob, n.input(1), n.input(2), n.attr("ignore_index", None), reduction)
    return [loss, log_prob]


# ---------------------------------------------------------------- training steps


@converter("Adagrad", domain=TRAINING)
def adagrad(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    r, t = n.input(0), n.input(1)
    rest = n.inputs[2:]
    if len(rest) % 3:
        raise Unsupported(
            "`Adagrad` takes tensors, their gradients and accumulated squared gradients, in equal numbers"
        )
    k = len(rest) // 3
    dt = b.dtype(rest[0])
    decay, eps, norm = (scalar(b, float(n.attr(a, 0.0)), dt) for a in ("decay_factor", "epsilon", "norm_coefficient"))
    t = cast(b, t, dt)
    rate = b.call("divide", cast(b, r, dt), b.call("add", scalar(b, 1.0, dt), b.call("multiply", t, decay)))
    xs, hs = [], []
    for i in range(k):
        x, g, h = rest[i], rest[k + i], rest[2 * k + i]
        g = b.call("add", b.call("multiply", norm, x), g)
        h = b.call("add", h, b.call("multiply", g, g))
        step = b.call("divide", b.call("multiply", rate, g), b.call("add", b.call("sqrt", h), eps))
        xs.append(b.call("subtract", x, step))
        hs.append(h)
    return xs + hs


@converter("Adam", domain=TRAINING)
def adam(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    r, t = n.input(0), n.input(1)
    rest = n.inputs[2:]
    if len(rest) % 4:
        raise Unsupported("`Adam` takes tensors, gradients and two accumulators, in equal numbers")
    k = len(rest) // 4
    dt = b.dtype(rest[0])
    alpha, beta = float(n.attr("alpha", 0.9)), float(n.attr("beta", 0.999))
    eps = scalar(b, float(n.attr("epsilon", 0.0)), dt)
    norm = scalar(b, float(n.attr("norm_coefficient", 0.0)), dt)
    post = scalar(b, float(n.attr("norm_coefficient_post", 0.0)), dt)
    one = scalar(b, 1.0, dt)
    a, bt = scalar(b, alpha, dt), scalar(b, beta, dt)
    t = cast(b, t, dt)
    r = cast(b, r, dt)
    corrected = b.call(
        "divide",
        b.call("multiply", r, b.call("sqrt", b.call("subtract", one, b.call("power", bt, t)))),
        b.call("subtract", one, b.call("power", a, t)),
    )
    rate = b.call("where", b.call("greater", t, scalar(b, 0, dt)), corrected, r)
    xs, vs, hs = [], [], []
    for i in range(k):
        x, g, v, h = rest[i], rest[k + i], rest[2 * k + i], rest[3 * k + i]
        g = b.call("add", b.call("multiply", norm, x), g)
        v = b.call("add", b.call("multiply", a, v), b.call("multiply", scalar(b, 1 - alpha, dt), g))
        h = b.call(
            "add", b.call("multiply", bt, h), b.call("multiply", scalar(b, 1 - beta, dt), b.call("multiply", g, g))
        )
        step = b.call("multiply", rate, b.call("divide", v, b.call("add", b.call("sqrt", h), eps)))
        xs.append(b.call("multiply", b.call("subtract", one, post), b.call("subtract", x, step)))
        vs.append(v)
        hs.append(h)
    return xs + vs + hs


@converter("Momentum", domain=TRAINING)
def momentum(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    r, t = n.input(0), n.input(1)
    rest = n.inputs[2:]
    if len(rest) % 3:
        raise Unsupported("`Momentum` takes tensors, gradients and momenta, in equal numbers")
    k = len(rest) // 3
    dt = b.dtype(rest[0])
    alpha, beta = scalar(b, float(n.require("alpha")), dt), scalar(b, float(n.require("beta")), dt)
    norm = scalar(b, float(n.require("norm_coefficient")), dt)
    mode = n.attr("mode", "standard", allowed=("standard", "nesterov"))
    beta_t = b.call("where", b.call("greater", t, scalar(b, 0, b.dtype(t))), beta, scalar(b, 1.0, dt))
    r = cast(b, r, dt)
    xs, ms = [], []
    for i in range(k):
        x, g, v = rest[i], rest[k + i], rest[2 * k + i]
        g = b.call("add", b.call("multiply", norm, x), g)
        v = b.call("add", b.call("multiply", alpha, v), b.call("multiply", beta_t, g))
        if mode == "standard":
            xs.append(b.call("subtract", x, b.call("multiply", r, v)))
        else:
            xs.append(b.call("subtract", x, b.call("multiply", r, b.call("add", g, b.call("multiply", alpha, v)))))
        ms.append(v)
    return xs + ms


# ---------------------------------------------------------------- random


def _key(b: Builder, n: Node) -> Expr:
    seed = n.attr("seed", None)
    if seed is None:
        seed = zlib.crc32((n.outputs[0] if n.outputs else n.name).encode("utf-8"))
    seed = int(seed) & (2**256 - 1)
    words = np.frombuffer(seed.to_bytes(32, sys.byteorder), dtype="uint64")
    return b.const(np.concatenate((words, np.array([0, 0, 0, 0, 1 << 63, 0], dtype="uint64"))))


def _float_dtype(n: Node, default: str) -> str:
    dtype = onnx_to_dtype(n.attr("dtype"), n.opset) if n.attr("dtype", None) is not None else default
    if dtype not in ("float32", "float64"):
        raise Unsupported(f"random values of `{dtype}` are not supported (float32 and float64 are)", attr="dtype")
    return dtype


def _uniform(b: Builder, n: Node, shape: Sequence[int], dtype: str, low: float, high: float) -> Expr:
    out = b.call(
        "random.uniform",
        _key(b, n),
        scalar(b, low, dtype),
        scalar(b, high, dtype),
        out_shape=list(shape),
        out_dtype=dtype,
    )
    return b.item(out, 1)


def _normal(b: Builder, n: Node, shape: Sequence[int], dtype: str, mean: float, scale: float) -> Expr:
    out = b.call(
        "random.normal",
        _key(b, n),
        scalar(b, mean, dtype),
        scalar(b, scale, dtype),
        out_shape=list(shape),
        out_dtype=dtype,
    )
    return b.item(out, 1)


@converter("RandomUniform")
def random_uniform(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    dtype = _float_dtype(n, "float32")
    return _uniform(b, n, n.require("shape"), dtype, float(n.attr("low", 0.0)), float(n.attr("high", 1.0)))


@converter("RandomUniformLike")
def random_uniform_like(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    dtype = _float_dtype(n, b.dtype(x))
    return _uniform(b, n, b.static_shape(x), dtype, float(n.attr("low", 0.0)), float(n.attr("high", 1.0)))


@converter("RandomNormal")
def random_normal(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    dtype = _float_dtype(n, "float32")
    return _normal(b, n, n.require("shape"), dtype, float(n.attr("mean", 0.0)), float(n.attr("scale", 1.0)))


@converter("RandomNormalLike")
def random_normal_like(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    dtype = _float_dtype(n, b.dtype(x))
    return _normal(b, n, b.static_shape(x), dtype, float(n.attr("mean", 0.0)), float(n.attr("scale", 1.0)))


@converter("Bernoulli", since=15)
def bernoulli(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    p = n.input(0)
    dt = b.dtype(p)
    if dt not in ("float32", "float64"):
        raise Unsupported(f"`Bernoulli` of `{dt}` probabilities is not supported")
    out_dtype = onnx_to_dtype(n.attr("dtype"), n.opset) if n.attr("dtype", None) is not None else dt
    u = _uniform(b, n, b.static_shape(p), dt, 0.0, 1.0)
    return b.call("cast", b.call("less", u, p), dtype=out_dtype)


@converter("Multinomial", since=7)
def multinomial(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    out_dtype = onnx_to_dtype(n.attr("dtype", 6), n.opset)
    probs = b.call("exp", n.input(0))  # ONNX gives unnormalised log-probabilities
    out = b.call("random.multinomial", _key(b, n), cast(b, probs, "float32"), num_samples=int(n.attr("sample_size", 1)))
    return b.call("cast", b.item(out, 1), dtype=out_dtype)


# ---------------------------------------------------------------- the rest


@converter("LinearRegressor", domain=ML)
def linear_regressor(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    n.attr("post_transform", "NONE", allowed=("NONE",))
    coefficients = np.asarray(n.attr("coefficients", [0.0]), dtype=np.float32)
    targets = int(n.attr("targets", 1))
    w = b.const(coefficients.reshape(targets, -1))
    features = coefficients.size // targets
    last = b.shape(x)[-1]
    if last is not None and features < last:
        x = b.call("strided_slice", x, begin=[0], end=[features], strides=[1], axes=[b.rank(x) - 1])
    out = b.call("nn.dense", cast(b, x, "float32"), w)
    intercepts = n.attr("intercepts", None)
    if intercepts is not None:
        out = b.call("add", out, b.const(np.asarray(intercepts, dtype=np.float32)))
    return out


def _aten(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    op = n.require("operator")
    n.ignore("overload_name")
    if op == "size":
        return b.call(
            "take",
            b.call("shape_of", n.input(0), dtype="int64"),
            b.const(np.array(-1, dtype=np.int64)),
            axis=0,
            mode="wrap",
        )
    if op == "arange":
        start, stop, step = n.input(0), n.input(1), n.input(2)
        return b.call("arange", start, stop, step, dtype="int64")
    if op == "reshape":
        shape = b.int_list(n.input(1), "the shape")
        return b.call("reshape", n.input(0), newshape=shape)
    if op == "embedding_bag":
        weights, indices, offsets = n.input(0), n.input(1), n.input(2)
        mode = int(n.attr("mode", 1))
        reducer = {0: "sum", 1: "mean", 2: "max"}.get(mode)
        if reducer is None:
            raise Unsupported(f"`embedding_bag` mode {mode} is not supported", attr="mode")
        bags = b.static_shape(offsets, "the offsets")[0]
        rows = b.call("reshape", indices, newshape=[bags, -1])
        picked = b.call("take", weights, cast(b, rows, "int64"), axis=0)
        zero = b.const(np.array(0, dtype=np.float32))
        return [b.call(reducer, picked, axis=[1]), zero, zero, zero]
    if op == "index_put":
        raise Unsupported("`ATen` operator `index_put` is not supported")
    raise Unsupported(
        f"`ATen` operator `{op}` is not supported (size, arange, reshape and embedding_bag are)", attr="operator"
    )


converter("ATen")(_aten)
converter("ATen", domain="org.pytorch.aten")(_aten)
