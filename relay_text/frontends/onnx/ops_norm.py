"""Normalisations and softmaxes: `BatchNormalization`, `InstanceNormalization`,
`LayerNormalization`, `LRN`, `MeanVarianceNormalization`, `Dropout`,
`Softmax`, `LogSoftmax`, `Hardmax`, and the `com.microsoft` layer norms."""

from __future__ import annotations

import numpy as np

from ...ir.expr import Expr
from ..builder import Builder, Unsupported
from ._common import cast, norm_axis, scalar
from .graph import Ctx
from .node import Node
from .table import Converted, converter

MICROSOFT = "com.microsoft"


@converter("BatchNormalization")
def batch_norm(cx: Ctx, n: Node) -> Converted:
    """Inference mode: the running statistics normalise (`nn.batch_norm`).
    Training mode (`training_mode` = 1, opset 14): the batch's own mean and
    variance normalise, and the running statistics move towards them by
    `momentum` (outputs 1 and 2)."""
    b = cx.b
    n.ignore("is_test", "consumed_inputs")
    if n.attr("spatial", 1) != 1:
        raise Unsupported("`spatial` = 0 (statistics per activation) is not supported", attr="spatial")
    x, scale, bias, mean, var = (n.input(i) for i in range(5))
    eps = float(n.attr("epsilon", 1e-5))
    momentum = float(n.attr("momentum", 0.9))
    if n.attr("training_mode", 0):
        return _batch_norm_training(b, x, scale, bias, mean, var, eps, momentum)
    if any(n.wants(i) for i in range(1, 5)):
        raise Unsupported("the statistics outputs of `BatchNormalization` exist in training mode only")
    out = b.call("nn.batch_norm", x, scale, bias, mean, var, axis=1, epsilon=eps)
    return b.item(out, 0)


def _batch_norm_training(
    b: Builder, x: Expr, scale: Expr, bias: Expr, mean: Expr, var: Expr, eps: float, momentum: float
) -> list[Expr]:
    dt = b.dtype(x)
    rank = b.rank(x)
    axes = [0, *list(range(2, rank))]
    batch_mean = b.call("mean", x, axis=axes)
    batch_var = b.call("variance", x, b.call("mean", x, axis=axes, keepdims=True), axis=axes)
    out = b.call("nn.batch_norm", x, scale, bias, batch_mean, batch_var, axis=1, epsilon=eps)
    keep, take = scalar(b, momentum, dt), scalar(b, 1 - momentum, dt)
    running_mean = b.call("add", b.call("multiply", mean, keep), b.call("multiply", batch_mean, take))
    running_var = b.call("add", b.call("multiply", var, keep), b.call("multiply", batch_var, take))
    return [b.item(out, 0), running_mean, running_var]


converter("SpatialBN", domain=MICROSOFT)(batch_norm)
converter("SpatialBN")(batch_norm)  # Caffe2's name, in models converted from it


@converter("InstanceNormalization")
def instance_norm(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    return b.call(
        "nn.instance_norm", n.input(0), n.input(1), n.input(2), axis=1, epsilon=float(n.attr("epsilon", 1e-5))
    )


def _layer_norm(
    b: Builder, x: Expr, gamma: Expr, beta: Expr | None, axis: int, eps: float, stash: int
) -> tuple[Expr, Expr, Expr]:
    """Normalised over the axes from `axis` to the end; (y, mean, 1/stddev)."""
    rank = b.rank(x)
    axis = norm_axis(axis, rank)
    axes = list(range(axis, rank))
    dt = b.dtype(x)
    work = dt
    if stash == 1 and dt in ("float16", "bfloat16"):
        work = "float32"
    xw = cast(b, x, work)
    mean = b.call("mean", xw, axis=axes, keepdims=True)
    var = b.call("variance", xw, mean, axis=axes, keepdims=True)
    inv = b.call("divide", scalar(b, 1, work), b.call("sqrt", b.call("add", var, scalar(b, eps, work))))
    y = cast(b, b.call("multiply", b.call("subtract", xw, mean), inv), dt)
    y = b.call("multiply", y, gamma)
    if beta is not None:
        y = b.call("add", y, beta)
    return y, mean, inv


@converter("LayerNormalization", domain=MICROSOFT)
@converter("LayerNormalization", since=17)
def layer_norm(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    axis = n.attr("axis", -1)
    eps = float(n.attr("epsilon", 1e-5))
    stash = n.attr("stash_type", 1)
    y, mean, inv = _layer_norm(b, x, n.input(1), n.input(2), axis, eps, stash)
    return [y, mean, inv]


@converter("SkipLayerNormalization", domain=MICROSOFT)
def skip_layer_norm(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x = b.call("add", n.input(0), n.input(1))
    if n.has(4):
        x = b.call("add", x, n.input(4))
    eps = float(n.attr("epsilon", 1e-12))
    y, mean, inv = _layer_norm(b, x, n.input(2), n.input(3), -1, eps, 0)
    return [y, mean, inv, x]


@converter("EmbedLayerNormalization", domain=MICROSOFT)
def embed_layer_norm(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    ids, segments, word, pos, seg_emb, gamma, beta = (n.input(i) for i in range(7))
    mask, pos_ids = n.input(7), n.input(8)
    eps = float(n.attr("epsilon", 1e-12))
    batch, seq = b.static_shape(ids, "input_ids")
    if pos_ids is None:
        pos_ids = b.const(np.tile(np.arange(seq, dtype=np.int32), (batch, 1)))
    total = b.call("add", b.call("take", word, ids, axis=0), b.call("take", pos, pos_ids, axis=0))
    if segments is not None:
        total = b.call("add", total, b.call("take", seg_emb, segments, axis=0))
    y, _, _ = _layer_norm(b, total, gamma, beta, -1, eps, 0)
    mask_index = b.call("sum", mask, axis=[1]) if mask is not None else b.const(np.zeros((batch,), dtype=np.int32))
    return [y, mask_index, total]


@converter("LRN")
def lrn(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    size = int(n.require("size"))
    return b.call(
        "nn.lrn",
        n.input(0),
        size=size,
        axis=1,
        alpha=float(n.attr("alpha", 0.0001)),
        beta=float(n.attr("beta", 0.75)),
        bias=float(n.attr("bias", 1.0)),
    )


@converter("MeanVarianceNormalization", since=9)
def mean_variance_norm(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    axes = [norm_axis(a, b.rank(x)) for a in n.attr("axes", [0, 2, 3])]
    dt = b.dtype(x)
    mean = b.call("mean", x, axis=axes, keepdims=True)
    sq_mean = b.call("mean", b.call("multiply", x, x), axis=axes, keepdims=True)
    var = b.call("subtract", sq_mean, b.call("multiply", mean, mean))
    std = b.call("sqrt", var)
    return b.call("divide", b.call("subtract", x, mean), b.call("add", std, scalar(b, 1e-9, dt)))


@converter("Dropout")
def dropout(cx: Ctx, n: Node) -> Converted:
    """Inference: the input unchanged; the mask, if asked for, all True."""
    b = cx.b
    n.ignore("is_test", "consumed_inputs", "ratio", "seed")
    x: Expr = n.input(0)
    if n.opset >= 12 and n.has(2):
        training = b.value(n.input(2))
        ratio = b.value(n.input(1)) if n.has(1) else np.array(0.5)
        drops = ratio is None or float(np.asarray(ratio).reshape(-1)[0]) != 0.0
        if training is None or (bool(np.asarray(training).reshape(-1)[0]) and drops):
            raise Unsupported("`Dropout` in training mode (random) is not supported", attr=None)
    outs = [x]
    if n.wants(1):
        outs.append(
            b.call("ones_like", b.call("cast", x, dtype="bool")) if b.dtype(x) != "bool" else b.call("ones_like", x)
        )
    return outs


def _coerce_2d(b: Builder, x: Expr, axis: int) -> tuple[list[int], list[int]]:
    """The shape (prod(shape[:axis]), prod(shape[axis:])) of opsets before 13."""
    shape = b.static_shape(x)
    rank = len(shape)
    axis = norm_axis(axis, rank)
    return [int(np.prod(shape[:axis], dtype=np.int64)), int(np.prod(shape[axis:], dtype=np.int64))], list(shape)


LOW_PRECISION = ("float16", "bfloat16")


def softmax_in(b: Builder, x: Expr, axis: int) -> Expr:
    """`nn.softmax` along `axis`; on float16 and bfloat16, its steps instead.

    ONNX defines Softmax by a function whose steps (ReduceMax, Sub, Exp,
    ReduceSum, Div) each yield a tensor of the input's type, so the
    exponentials are rounded to float16 before they are summed and divided
    (TVM's float16 softmax also keeps them in float16). One `nn.softmax`
    is computed in float32 and rounded once (the evaluator's rule for
    float16), which can differ from that in the last place; the steps as
    separate calls are rounded as ONNX rounds them."""
    if b.dtype(x) not in LOW_PRECISION:
        return b.call("nn.softmax", x, axis=axis)
    top = b.call("max", x, axis=[axis], keepdims=True)
    e = b.call("exp", b.call("subtract", x, top))
    return b.call("divide", e, b.call("sum", e, axis=[axis], keepdims=True))


def _softmax(cx: Ctx, n: Node, op: str) -> Expr:
    b = cx.b
    x: Expr = n.input(0)
    rank = b.rank(x)

    def call(x: Expr, axis: int) -> Expr:
        return softmax_in(b, x, axis) if op == "nn.softmax" else b.call(op, x, axis=axis)

    if n.opset >= 13:
        return call(x, norm_axis(n.attr("axis", -1), rank))
    axis = norm_axis(n.attr("axis", 1), rank)
    if axis == rank - 1:
        return call(x, axis)
    flat, shape = _coerce_2d(b, x, axis)
    y = call(b.call("reshape", x, newshape=flat), 1)
    return b.call("reshape", y, newshape=shape)


@converter("Softmax")
def softmax(cx: Ctx, n: Node) -> Converted:
    return _softmax(cx, n, "nn.softmax")


@converter("LogSoftmax")
def log_softmax(cx: Ctx, n: Node) -> Converted:
    return _softmax(cx, n, "nn.log_softmax")


@converter("Hardmax")
def hardmax(cx: Ctx, n: Node) -> Converted:
    """One at the first maximum along the axis, zero elsewhere."""
    b = cx.b
    x: Expr = n.input(0)
    dt = b.dtype(x)
    rank = b.rank(x)
    one, zero = scalar(b, 1, dt), scalar(b, 0, dt)
    if n.opset >= 13:
        axis = norm_axis(n.attr("axis", -1), rank)
        depth = b.static_shape(x)[axis]
        arg = b.call("argmax", x, axis=[axis])
        return b.call("one_hot", arg, one, zero, depth=depth, axis=axis, dtype=dt)
    axis = norm_axis(n.attr("axis", 1), rank)
    flat, shape = _coerce_2d(b, x, axis)
    arg = b.call("argmax", b.call("reshape", x, newshape=flat), axis=[1])
    hot = b.call("one_hot", arg, one, zero, depth=flat[1], axis=1, dtype=dt)
    return b.call("reshape", hot, newshape=shape)
