"""Elementwise operators: arithmetic, comparisons, logic, bit operations,
unary math, casts, `Where`, `Clip` and the variadic `Max`/`Min`/`Sum`/`Mean`."""

from __future__ import annotations

import numpy as np

from ...ir.expr import Expr
from ..builder import Builder, Unsupported
from ._common import cast, is_float, legacy_broadcast, scalar
from .graph import Ctx, OptionalNone
from .node import Node, dtype_of
from .table import Converted, Converter, converter

# ---------------------------------------------------------------- unary

_UNARY = {
    "Neg": "negative",
    "Abs": "abs",
    "Floor": "floor",
    "Ceil": "ceil",
    "Sqrt": "sqrt",
    "Relu": "nn.relu",
    "Exp": "exp",
    "Log": "log",
    "Sigmoid": "sigmoid",
    "Tanh": "tanh",
    "Erf": "erf",
    "Sign": "sign",
    "Not": "logical_not",
    "IsNaN": "isnan",
    "Acos": "acos",
    "Acosh": "acosh",
    "Asin": "asin",
    "Asinh": "asinh",
    "Atan": "atan",
    "Atanh": "atanh",
    "Cos": "cos",
    "Cosh": "cosh",
    "Sin": "sin",
    "Sinh": "sinh",
    "Tan": "tan",
    "BitwiseNot": "bitwise_not",
}
# the first opset of each operator (the versions since change types, not meaning)
_UNARY_SINCE = {
    "Erf": 9,
    "Sign": 9,
    "IsNaN": 9,
    "Acosh": 9,
    "Asinh": 9,
    "Atanh": 9,
    "Cosh": 9,
    "Sinh": 9,
    "Acos": 7,
    "Asin": 7,
    "Atan": 7,
    "Cos": 7,
    "Sin": 7,
    "Tan": 7,
    "BitwiseNot": 18,
}


def _unary(op: str) -> Converter:
    def convert(cx: Ctx, n: Node) -> Expr:
        n.ignore("consumed_inputs")
        return cx.b.call(op, n.input(0))

    return convert


for _onnx, _relay in _UNARY.items():
    converter(_onnx, since=_UNARY_SINCE.get(_onnx, 1))(_unary(_relay))


@converter("Identity")
def identity(cx: Ctx, n: Node) -> Converted:
    value: Expr | OptionalNone = n.input(0)  # (a tensor, a sequence or an optional)
    return value


@converter("Reciprocal")
def reciprocal(cx: Ctx, n: Node) -> Converted:
    n.ignore("consumed_inputs")
    x: Expr = n.input(0)
    return cx.b.call("divide", scalar(cx.b, 1, cx.b.dtype(x)), x)


@converter("Round", since=11)
def round_(cx: Ctx, n: Node) -> Converted:
    """Halves to even, as ONNX rounds (the `round` operator sends them away from zero)."""
    b = cx.b
    x: Expr = n.input(0)
    dt = b.dtype(x)
    half, one, two = scalar(b, 0.5, dt), scalar(b, 1, dt), scalar(b, 2, dt)
    rounded = b.call("ceil", b.call("subtract", x, half))
    up = b.call("add", x, half)
    at_half = b.call("subtract", one, b.call("subtract", b.call("ceil", up), b.call("floor", up)))
    odd = b.call("abs", b.call("mod", rounded, two))
    return b.call("add", rounded, b.call("multiply", at_half, odd))


@converter("IsInf", since=10)
def isinf(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    out = b.call("isinf", x)
    zero = scalar(b, 0, b.dtype(x))
    if not n.attr("detect_negative", 1):
        out = b.call("logical_and", out, b.call("greater", x, zero))
    if not n.attr("detect_positive", 1):
        out = b.call("logical_and", out, b.call("less", x, zero))
    return out


# ---------------------------------------------------------------- binary

_BINARY = {
    "Add": "add",
    "Sub": "subtract",
    "Mul": "multiply",
    "Div": "divide",
    "Equal": "equal",
    "Greater": "greater",
    "Less": "less",
    "GreaterOrEqual": "greater_equal",
    "LessOrEqual": "less_equal",
    "And": "logical_and",
    "Or": "logical_or",
    "Xor": "logical_xor",
    "BitwiseAnd": "bitwise_and",
    "BitwiseOr": "bitwise_or",
    "BitwiseXor": "bitwise_xor",
}
_BINARY_SINCE = {"GreaterOrEqual": 12, "LessOrEqual": 12, "BitwiseAnd": 18, "BitwiseOr": 18, "BitwiseXor": 18}


def _binary(op: str) -> Converter:
    def convert(cx: Ctx, n: Node) -> Expr:
        n.ignore("consumed_inputs")
        x, y = legacy_broadcast(cx.b, n, n.input(0), n.input(1))
        return cx.b.call(op, x, y)

    return convert


for _onnx, _relay in _BINARY.items():
    converter(_onnx, since=_BINARY_SINCE.get(_onnx, 1))(_binary(_relay))


@converter("Pow")
def pow_(cx: Ctx, n: Node) -> Converted:
    """The result has the base's dtype; an integer base is raised in float32
    (as TVM did), a float base in its own dtype."""
    b = cx.b
    x, y = legacy_broadcast(b, n, n.input(0), n.input(1))
    out_dtype = b.dtype(x)
    work = (
        out_dtype
        if is_float(out_dtype)
        else "float64"
        if out_dtype in ("int64", "uint64", "int32", "uint32")
        else "float32"
    )
    result = b.call("power", cast(b, x, work), cast(b, y, work))
    if work != out_dtype:
        if out_dtype.startswith(("int", "uint")):
            result = b.call("round", result)
        result = b.call("cast", result, dtype=out_dtype)
    return result


@converter("Mod", since=10)
def mod(cx: Ctx, n: Node) -> Converted:
    """`fmod=0`: the remainder takes the divisor's sign (`floor_mod`); `fmod=1`: the dividend's (`mod`)."""
    op = "mod" if n.attr("fmod", 0) else "floor_mod"
    return cx.b.call(op, n.input(0), n.input(1))


@converter("BitShift", since=11)
def bitshift(cx: Ctx, n: Node) -> Converted:
    direction = n.attr("direction", None, allowed=("LEFT", "RIGHT"))
    if direction is None:
        raise Unsupported("the attribute `direction` is required", attr="direction")
    op = "left_shift" if direction == "LEFT" else "right_shift"
    return cx.b.call(op, n.input(0), n.input(1))


@converter("BitShift", since=28)
def bitshift_v28(cx: Ctx, n: Node) -> Converted:
    """Signed types too, and every shift amount defined: a shift by the
    width or more (or by a negative amount) moves every bit out (a signed
    right shift leaves copies of the sign bit)."""
    b = cx.b
    direction = n.attr("direction", None, allowed=("LEFT", "RIGHT"))
    if direction is None:
        raise Unsupported("the attribute `direction` is required", attr="direction")
    x, s = n.input(0), n.input(1)
    dt = b.dtype(x)
    width = np.dtype(dt).itemsize * 8
    valid = b.call("logical_and", b.call("greater_equal", s, scalar(b, 0, dt)), b.call("less", s, scalar(b, width, dt)))
    safe = b.call("where", valid, s, scalar(b, 0, dt))
    if direction == "LEFT":
        return b.call("where", valid, b.call("left_shift", x, safe), scalar(b, 0, dt))
    fill = b.call("right_shift", x, scalar(b, width - 1, dt)) if dt.startswith("int") else scalar(b, 0, dt)
    return b.call("where", valid, b.call("right_shift", x, safe), fill)


# ---------------------------------------------------------------- variadic


def _fold(cx: Ctx, n: Node, op: str) -> Expr:
    b = cx.b
    xs = [x for x in n.inputs if x is not None]
    out: Expr = xs[0]
    for x in xs[1:]:
        out = b.call(op, out, x)
    return out


@converter("Max")
def max_(cx: Ctx, n: Node) -> Converted:
    n.ignore("consumed_inputs")
    return _fold(cx, n, "maximum")


@converter("Min")
def min_(cx: Ctx, n: Node) -> Converted:
    n.ignore("consumed_inputs")
    return _fold(cx, n, "minimum")


@converter("Sum")
def sum_(cx: Ctx, n: Node) -> Converted:
    n.ignore("consumed_inputs")
    return _fold(cx, n, "add")


@converter("Mean")
def mean(cx: Ctx, n: Node) -> Converted:
    n.ignore("consumed_inputs")
    b = cx.b
    total = _fold(cx, n, "add")
    count = len([x for x in n.inputs if x is not None])
    return total if count == 1 else b.call("divide", total, scalar(b, count, b.dtype(total)))


# ---------------------------------------------------------------- selection, clipping, casts


@converter("Where", since=9)
def where(cx: Ctx, n: Node) -> Converted:
    return cx.b.call("where", n.input(0), n.input(1), n.input(2))


@converter("Clip")
def clip_v1(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    n.ignore("consumed_inputs")
    x: Expr = n.input(0)
    lo = n.attr("min", float("-inf"))
    hi = n.attr("max", float("inf"))
    return b.call("clip", x, a_min=float(lo), a_max=float(hi))


@converter("Clip", since=11)
def clip_v11(cx: Ctx, n: Node) -> Converted:
    """Bounds given as inputs: `clip` when they are known floats, else
    `maximum`/`minimum` (exact for every dtype, and for bounds computed at
    run time)."""
    b = cx.b
    x: Expr = n.input(0)
    lo, hi = n.input(1), n.input(2)
    dt = b.dtype(x)
    lo_v, hi_v = b.value(lo), b.value(hi)
    if is_float(dt) and (lo is None or lo_v is not None) and (hi is None or hi_v is not None):
        a_min = float(np.asarray(lo_v).reshape(-1)[0]) if lo is not None else float("-inf")
        a_max = float(np.asarray(hi_v).reshape(-1)[0]) if hi is not None else float("inf")
        exact = dt == "float64" or (
            (np.float32(a_min) == a_min or np.isinf(a_min)) and (np.float32(a_max) == a_max or np.isinf(a_max))
        )
        if exact and a_min <= a_max:
            return b.call("clip", x, a_min=a_min, a_max=a_max)
    if lo is not None:
        x = b.call("maximum", x, lo)
    if hi is not None:
        x = b.call("minimum", x, hi)
    return x


def onnx_to_dtype(to: str | int, opset: int) -> str:
    if isinstance(to, str):  # opsets 1-5 name the type
        names = {
            "FLOAT": 1,
            "UINT8": 2,
            "INT8": 3,
            "UINT16": 4,
            "INT16": 5,
            "INT32": 6,
            "INT64": 7,
            "BOOL": 9,
            "FLOAT16": 10,
            "DOUBLE": 11,
            "UINT32": 12,
            "UINT64": 13,
        }
        if to.upper() not in names:
            raise Unsupported(f"`to` = {to!r} is not a type Relay has", attr="to")
        to = names[to.upper()]
    try:
        return dtype_of(int(to), "the cast's target")
    except Unsupported as exc:
        raise Unsupported(exc.message, attr="to") from None


@converter("Cast")
def cast_(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    dtype = onnx_to_dtype(n.require("to"), n.opset)
    n.attr("saturate", 1)  # only float8 targets saturate, and Relay has none
    n.ignore("round_mode")
    x: Expr = n.input(0)
    return _cast_exact(b, x, dtype)


@converter("CastLike", since=15)
def cast_like(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    n.attr("saturate", 1)
    n.ignore("round_mode")
    return _cast_exact(b, n.input(0), b.dtype(n.input(1)))


@converter("BitCast", since=26)
def bitcast(cx: Ctx, n: Node) -> Converted:
    """The same bits read as another dtype of the same width (`reinterpret`)."""
    b = cx.b
    dtype = onnx_to_dtype(n.require("to"), n.opset)
    x: Expr = n.input(0)
    if np.dtype(dtype).itemsize != np.dtype(b.dtype(x)).itemsize:
        raise Unsupported(f"`BitCast` between dtypes of different widths ({b.dtype(x)} to {dtype})", attr="to")
    return b.call("reinterpret", x, dtype=dtype)


def _cast_exact(b: Builder, x: Expr, dtype: str) -> Expr:
    src = b.dtype(x)
    if src == dtype:
        return x
    return b.call("cast", x, dtype=dtype)
