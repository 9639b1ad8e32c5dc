"""Elementwise ATen operators, reductions and softmaxes.

Operands take the dtype PyTorch computes the result in (its type
promotion, read from the node's result): a Python number becomes a
literal of that dtype, a tensor of another dtype is cast.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...ir.expr import Expr
from ..builder import Unsupported
from ..onnx._common import cast, norm_axes, norm_axis, scalar
from .graph import Ctx
from .table import Args, AtenConverter, Converted, Operand, aten


def operand(cx: Ctx, v: Operand | None, dtype: str) -> Expr:
    b = cx.b
    if isinstance(v, Expr):
        return cast(b, v, dtype)
    if isinstance(v, (bool, int, float)):
        return scalar(b, v, dtype)
    raise Unsupported(f"an operand of type {type(v).__name__} is not supported")


def _common(cx: Ctx, x: Operand, y: Operand) -> str:
    """The dtype two operands are compared in."""
    b = cx.b
    from ..onnx._common import is_float

    tx = b.dtype(x) if isinstance(x, Expr) else None
    ty = b.dtype(y) if isinstance(y, Expr) else None
    if tx and ty:
        if tx == ty:
            return tx
        import numpy as np

        return str(np.promote_types(np.dtype(tx), np.dtype(ty)))
    t = tx or ty
    assert t is not None  # (one operand of a comparison is a tensor)
    other = y if tx else x
    if isinstance(other, float) and not is_float(t):
        return "float32"
    return t


def _binary(op: str, alpha_on_second: bool = False) -> AtenConverter:
    def convert(cx: Ctx, a: Args) -> Expr:
        b = cx.b
        dt = cx.out_dtype()
        x, y = a.get("self"), a.get("other")
        y_e = operand(cx, y, dt)
        alpha = a.get("alpha", 1)
        if alpha_on_second and alpha not in (None, 1):
            y_e = b.call("multiply", y_e, scalar(b, alpha, dt))
        return b.call(op, operand(cx, x, dt), y_e)

    return convert


aten("add.Tensor", "add.Scalar", "add_.Tensor")(_binary("add", True))
aten("sub.Tensor", "sub.Scalar", "sub_.Tensor")(_binary("subtract", True))
aten("mul.Tensor", "mul.Scalar", "mul_.Tensor")(_binary("multiply"))
aten("maximum.default")(_binary("maximum"))
aten("minimum.default")(_binary("minimum"))
aten("pow.Tensor_Tensor")(_binary("power"))
aten("logical_and.default")(_binary("logical_and"))
aten("logical_or.default")(_binary("logical_or"))
aten("bitwise_and.Tensor")(_binary("bitwise_and"))


@aten("rsub.Scalar", "rsub.Tensor")
def rsub(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    dt = cx.out_dtype()
    x = operand(cx, a["self"], dt)
    y = operand(cx, a["other"], dt)
    alpha = a.get("alpha", 1)
    if alpha not in (None, 1):
        x = b.call("multiply", x, scalar(b, alpha, dt))
    return b.call("subtract", y, x)


@aten("div.Tensor", "div.Scalar", "div.Tensor_mode", "div.Scalar_mode")
def div(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    dt = cx.out_dtype()
    mode = a.get("rounding_mode")
    x, y = a["self"], a["other"]
    if mode is None:
        return b.call("divide", operand(cx, x, dt), operand(cx, y, dt))
    op = "floor_divide" if mode == "floor" else "trunc_divide"
    return b.call(op, operand(cx, x, dt), operand(cx, y, dt))


@aten("pow.Tensor_Scalar")
def pow_scalar(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    dt = cx.out_dtype()
    e = a["exponent"]
    x = operand(cx, a["self"], dt)
    if e == 2:
        return b.call("multiply", x, x)
    if e == 0.5:
        return b.call("sqrt", x)
    return b.call("power", x, scalar(b, e, dt))


def _compare(op: str) -> AtenConverter:
    def convert(cx: Ctx, a: Args) -> Expr:
        b = cx.b
        x, y = a["self"], a["other"]
        dt = _common(cx, x, y)
        return b.call(op, operand(cx, x, dt), operand(cx, y, dt))

    return convert


for _names, _op in (
    (("eq.Tensor", "eq.Scalar"), "equal"),
    (("ne.Tensor", "ne.Scalar"), "not_equal"),
    (("lt.Tensor", "lt.Scalar"), "less"),
    (("le.Tensor", "le.Scalar"), "less_equal"),
    (("gt.Tensor", "gt.Scalar"), "greater"),
    (("ge.Tensor", "ge.Scalar"), "greater_equal"),
):
    aten(*_names)(_compare(_op))


def _unary(op: str) -> AtenConverter:
    def convert(cx: Ctx, a: Args) -> Expr:
        return cx.b.call(op, a["self"])

    return convert


for _name, _op in (
    ("relu", "nn.relu"),
    ("relu_", "nn.relu"),
    ("sigmoid", "sigmoid"),
    ("tanh", "tanh"),
    ("exp", "exp"),
    ("log", "log"),
    ("sqrt", "sqrt"),
    ("rsqrt", "rsqrt"),
    ("abs", "abs"),
    ("neg", "negative"),
    ("erf", "erf"),
    ("sin", "sin"),
    ("cos", "cos"),
    ("floor", "floor"),
    ("ceil", "ceil"),
    ("logical_not", "logical_not"),
    ("sign", "sign"),
    ("isnan", "isnan"),
):
    aten(f"{_name}.default")(_unary(_op))


@aten("gelu.default")
def gelu(cx: Ctx, a: Args) -> Converted:
    from ..onnx.ops_activation import _gelu_erf, _gelu_tanh

    x: Expr = a["self"]
    return _gelu_tanh(cx.b, x) if a.get("approximate") == "tanh" else _gelu_erf(cx.b, x)


@aten("silu.default", "silu_.default")
def silu(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    return b.call("multiply", a["self"], b.call("sigmoid", a["self"]))


@aten("hardswish.default", "hardswish_.default")
def hardswish(cx: Ctx, a: Args) -> Converted:
    from ..onnx.ops_activation import _hard_sigmoid

    b = cx.b
    x: Expr = a["self"]
    return b.call("multiply", x, _hard_sigmoid(b, x, 1 / 6, 0.5))


@aten("hardsigmoid.default", "hardsigmoid_.default")
def hardsigmoid(cx: Ctx, a: Args) -> Converted:
    from ..onnx.ops_activation import _hard_sigmoid

    return _hard_sigmoid(cx.b, a["self"], 1 / 6, 0.5)


@aten("hardtanh.default", "hardtanh_.default")
def hardtanh(cx: Ctx, a: Args) -> Converted:
    return cx.b.call("clip", a["self"], a_min=float(a.get("min_val", -1.0)), a_max=float(a.get("max_val", 1.0)))


@aten("clamp.default", "clamp_min.default", "clamp_max.default", "clamp.Tensor")
def clamp(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    dt = b.dtype(x)
    lo, hi = a.get("min"), a.get("max")
    if isinstance(lo, Expr) or isinstance(hi, Expr) or not dt.startswith("float"):
        if lo is not None:
            x = b.call("maximum", x, operand(cx, lo, dt))
        if hi is not None:
            x = b.call("minimum", x, operand(cx, hi, dt))
        return x
    return b.call(
        "clip", x, a_min=float("-inf") if lo is None else float(lo), a_max=float("inf") if hi is None else float(hi)
    )


@aten("leaky_relu.default", "leaky_relu_.default")
def leaky_relu(cx: Ctx, a: Args) -> Converted:
    return cx.b.call("nn.leaky_relu", a["self"], alpha=float(a.get("negative_slope", 0.01)))


@aten("elu.default")
def elu(cx: Ctx, a: Args) -> Converted:
    from ..onnx.ops_activation import _elu

    if a.get("scale", 1) != 1 or a.get("input_scale", 1) != 1:
        raise Unsupported("`elu` with a scale is not supported")
    return _elu(cx.b, a["self"], float(a.get("alpha", 1.0)))


@aten("softplus.default")
def softplus(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    dt = b.dtype(x)
    beta, threshold = float(a.get("beta", 1)), float(a.get("threshold", 20))
    bx = b.call("multiply", x, scalar(b, beta, dt))
    soft = b.call("divide", b.call("log", b.call("add", b.call("exp", bx), scalar(b, 1, dt))), scalar(b, beta, dt))
    return b.call("where", b.call("greater", bx, scalar(b, threshold, dt)), x, soft)


@aten("where.self", "where.ScalarOther", "where.ScalarSelf", "where.Scalar")
def where(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    dt = cx.out_dtype()
    return b.call("where", a["condition"], operand(cx, a["self"], dt), operand(cx, a["other"], dt))


@aten("masked_fill.Scalar", "masked_fill.Tensor")
def masked_fill(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    return b.call("where", a["mask"], operand(cx, a["value"], b.dtype(x)), x)


def _dims(cx: Ctx, x: Expr, dim: int | Sequence[int] | None) -> list[int]:
    rank = cx.b.rank(x)
    if dim is None or dim == []:
        return list(range(rank))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return sorted(norm_axes(dims, rank))


def _reduce(op: str) -> AtenConverter:
    def convert(cx: Ctx, a: Args) -> Expr:
        b = cx.b
        x: Expr = a["self"]
        if a.get("dtype") is not None:
            x = cast(b, x, cx.out_dtype())
        return b.call(op, x, axis=_dims(cx, x, a.get("dim")), keepdims=bool(a.get("keepdim", False)))

    return convert


aten("mean.dim", "mean.default")(_reduce("mean"))
aten("sum.dim_IntList", "sum.default")(_reduce("sum"))
aten("amax.default")(_reduce("max"))
aten("amin.default")(_reduce("min"))
aten("prod.dim_int")(_reduce("prod"))


@aten("var.correction", "var.dim")
def var(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    axes = _dims(cx, x, a.get("dim"))
    correction = a.get("correction")
    unbiased = a.get("unbiased", True) if correction is None else bool(correction)
    mean = b.call("mean", x, axis=axes, keepdims=True)
    return b.call("variance", x, mean, axis=axes, keepdims=bool(a.get("keepdim", False)), unbiased=unbiased)


@aten("argmax.default", "argmin.default")
def argmax(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    op = "argmax" if "argmax" in str(cx.node.target) else "argmin"
    dim = a.get("dim")
    out = b.call(
        op, x, axis=None if dim is None else [norm_axis(dim, b.rank(x))], keepdims=bool(a.get("keepdim", False))
    )
    return cast(b, out, "int64")


@aten("softmax.int", "_softmax.default")
def softmax(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    if a.get("dtype") is not None:
        x = cast(b, x, cx.out_dtype())
    return b.call("nn.softmax", x, axis=norm_axis(a["dim"], b.rank(x)))


@aten("log_softmax.int", "_log_softmax.default")
def log_softmax(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    if a.get("dtype") is not None:
        x = cast(b, x, cx.out_dtype())
    return b.call("nn.log_softmax", x, axis=norm_axis(a["dim"], b.rank(x)))


@aten("to.dtype", "_to_copy.default", "to.dtype_layout", "type_as.default")
def to_dtype(cx: Ctx, a: Args) -> Converted:
    return cast(cx.b, a["self"], cx.out_dtype())


@aten("detach.default", "alias.default", "clone.default", "contiguous.default", "lift_fresh_copy.default")
def identity(cx: Ctx, a: Args) -> Converted:
    value: Expr = a["self"] if "self" in a else a["input"]
    return value


@aten("dropout.default", "dropout_.default")
def dropout(cx: Ctx, a: Args) -> Converted:
    """Inference (`train` False, or nothing dropped): the input unchanged."""
    if a.get("train") and a.get("p"):
        raise Unsupported("dropout in training mode (random) is not supported (export the model in eval mode)")
    x: Expr = a["input"]
    return x
