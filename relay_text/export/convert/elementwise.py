"""Elementwise operators: arithmetic, comparisons, logic, unary math, casts."""

from __future__ import annotations

from ..graph import onnx_dtype
from . import OpContext, Unsupported, converter, float_like, np_dtype, select

BINARY = {
    "add": "Add",
    "subtract": "Sub",
    "multiply": "Mul",
    "power": "Pow",
    "maximum": "Max",
    "minimum": "Min",
    "equal": "Equal",
    "greater": "Greater",
    "greater_equal": "GreaterOrEqual",
    "less": "Less",
    "less_equal": "LessOrEqual",
    "logical_and": "And",
    "logical_or": "Or",
    "logical_xor": "Xor",
    "bitwise_and": "BitwiseAnd",
    "bitwise_or": "BitwiseOr",
    "bitwise_xor": "BitwiseXor",
}


@converter(*BINARY)
def binary(cx: OpContext, a: str, b: str) -> str:
    return cx.node(BINARY[cx.name], [a, b])


@converter("not_equal")
def not_equal(cx: OpContext, a: str, b: str) -> str:
    return cx.node("Not", [cx.node("Equal", [a, b])])


@converter("divide", "trunc_divide")
def divide(cx: OpContext, a: str, b: str) -> str:
    q = cx.node("Div", [a, b])  # integers: truncated toward zero, as ours
    if cx.name == "trunc_divide" and float_like(cx.dtype(0)):
        return _trunc(cx, q)
    return q


@converter("floor_divide")
def floor_divide(cx: OpContext, a: str, b: str) -> str:
    if float_like(cx.dtype(0)):
        return cx.node("Floor", [cx.node("Div", [a, b])])
    # truncated quotient, one less where the remainder is not zero and the signs differ
    q = cx.node("Div", [a, b])
    r = cx.node("Mod", [a, b], fmod=1)
    zero = cx.like(0)
    inexact = cx.node("Not", [cx.node("Equal", [r, zero])])
    signs = cx.node("Xor", [cx.node("Less", [r, zero]), cx.node("Less", [b, zero])])
    fix = cx.cast(cx.node("And", [inexact, signs]), cx.dtype(0))
    return cx.node("Sub", [q, fix])


@converter("mod", "trunc_mod")
def mod(cx: OpContext, a: str, b: str) -> str:
    if float_like(cx.dtype(0)) and cx.name == "trunc_mod":
        q = _trunc(cx, cx.node("Div", [a, b]))
        return cx.node("Sub", [a, cx.node("Mul", [q, b])])
    return cx.node("Mod", [a, b], fmod=1)


@converter("floor_mod")
def floor_mod(cx: OpContext, a: str, b: str) -> str:
    if float_like(cx.dtype(0)):
        # numpy's floor remainder: C's fmod (exact), moved by the divisor
        # where it is not zero and its sign differs from the divisor's. So
        # x mod ±inf is x or ±inf, as numpy has it (x - floor(x / y) * y
        # would be NaN) and large quotients lose nothing.
        m = cx.node("Mod", [a, b], fmod=1)
        zero = cx.like(0)
        signs_differ = cx.node("Xor", [cx.node("Less", [m, zero]), cx.node("Less", [b, zero])])
        moved = cx.node("And", [cx.node("Not", [cx.node("Equal", [m, zero])]), signs_differ])
        return select(cx, moved, cx.node("Add", [m, b]), m, cx.dtype(0))
    return cx.node("Mod", [a, b], fmod=0)


def _trunc(cx: OpContext, x: str) -> str:
    return cx.node("Mul", [cx.node("Sign", [x]), cx.node("Floor", [cx.node("Abs", [x])])])


UNARY_FLOAT = {
    "exp": "Exp",
    "fast_exp": "Exp",
    "log": "Log",
    "sqrt": "Sqrt",
    "tanh": "Tanh",
    "fast_tanh": "Tanh",
    "sigmoid": "Sigmoid",
    "sin": "Sin",
    "cos": "Cos",
    "tan": "Tan",
    "asin": "Asin",
    "acos": "Acos",
    "atan": "Atan",
    "sinh": "Sinh",
    "cosh": "Cosh",
    "asinh": "Asinh",
    "acosh": "Acosh",
    "atanh": "Atanh",
    "erf": "Erf",
    "fast_erf": "Erf",
}


@converter(*UNARY_FLOAT)
def unary_float(cx: OpContext, x: str) -> str:
    _needs_float(cx)
    return cx.node(UNARY_FLOAT[cx.name], [x])


def _needs_float(cx: OpContext) -> None:
    if not float_like(cx.dtype(0)):
        raise Unsupported(f"ONNX computes it on floating-point tensors only, and this one is {cx.dtype(0)}")


@converter("log2", "log10")
def log_base(cx: OpContext, x: str) -> str:
    _needs_float(cx)
    import math

    scale = 1 / math.log(2.0 if cx.name == "log2" else 10.0)
    return cx.node("Mul", [cx.node("Log", [x]), cx.like(scale)])


@converter("rsqrt")
def rsqrt(cx: OpContext, x: str) -> str:
    _needs_float(cx)
    return cx.node("Reciprocal", [cx.node("Sqrt", [x])])


@converter("floor", "ceil", "trunc", "round")
def rounding(cx: OpContext, x: str) -> str:
    if not float_like(cx.dtype(0)):
        return cx.node("Identity", [x])  # integers are unchanged
    if cx.name == "floor":
        return cx.node("Floor", [x])
    if cx.name == "ceil":
        return cx.node("Ceil", [x])
    whole = _trunc(cx, x)
    if cx.name == "trunc":
        return whole
    # halves away from zero (C's round), not ONNX Round's halves to even
    frac = cx.node("Abs", [cx.node("Sub", [x, whole])])
    up = cx.cast(cx.node("GreaterOrEqual", [frac, cx.like(0.5)]), cx.dtype(0))
    return cx.node("Add", [whole, cx.node("Mul", [up, cx.node("Sign", [x])])])


@converter("negative")
def negative(cx: OpContext, x: str) -> str:
    if cx.dtype(0).startswith("uint"):
        return cx.node("Sub", [cx.like(0), x])
    return cx.node("Neg", [x])


@converter("abs")
def absolute(cx: OpContext, x: str) -> str:
    return cx.node("Abs", [x])


@converter("sign")
def sign(cx: OpContext, x: str) -> str:
    return cx.node("Sign", [x])


@converter("logical_not")
def logical_not(cx: OpContext, x: str) -> str:
    return cx.node("Not", [x])


@converter("bitwise_not")
def bitwise_not(cx: OpContext, x: str) -> str:
    if cx.dtype(0) == "bool":
        return cx.node("Not", [x])
    return cx.node("BitwiseNot", [x])


@converter(
    "copy",
    "annotation.stop_fusion",
    "annotation.checkpoint",
    "annotation.cast_hint",
    "on_device",
    "device_copy",
    "annotation.compiler_begin",
    "annotation.compiler_end",
    "annotation.bitpack_start",
    "annotation.bitpack_end",
    "annotation.with_funcid",
    "debug",
)
def identity(cx: OpContext, x: str) -> str:
    return cx.node("Identity", [x])


@converter("zeros_like", "ones_like")
def filled_like(cx: OpContext, x: str) -> str:
    value = cx.like(0 if cx.name == "zeros_like" else 1)
    return cx.node("Expand", [value, cx.node("Shape", [x])])


@converter("isnan")
def isnan(cx: OpContext, x: str) -> str:
    if not float_like(cx.dtype(0)):
        return cx.node("Expand", [cx.scalar(False, "bool"), cx.node("Shape", [x])])
    return cx.node("IsNaN", [x])


def _is_inf(cx: OpContext, x: str) -> str:
    """IsInf, which takes 16-bit floats only from opset 20 (and onnxruntime
    not at all): those are widened to float32 first, exactly."""
    if cx.dtype(0) in ("float16", "bfloat16"):
        x = cx.cast(x, "float32")
    return cx.node("IsInf", [x])


@converter("isinf")
def isinf(cx: OpContext, x: str) -> str:
    if not float_like(cx.dtype(0)):
        return cx.node("Expand", [cx.scalar(False, "bool"), cx.node("Shape", [x])])
    return _is_inf(cx, x)


@converter("isfinite")
def isfinite(cx: OpContext, x: str) -> str:
    if not float_like(cx.dtype(0)):
        return cx.node("Expand", [cx.scalar(True, "bool"), cx.node("Shape", [x])])
    return cx.node("Not", [cx.node("Or", [cx.node("IsNaN", [x]), _is_inf(cx, x)])])


@converter("where")
def where(cx: OpContext, cond: str, x: str, y: str) -> str:
    return select(cx, cond, x, y, cx.out_dtype)


@converter("clip")
def clip(cx: OpContext, x: str) -> str:
    import numpy as np

    lo, hi = float(cx.attrs["a_min"]), float(cx.attrs["a_max"])
    dtype = np_dtype(cx.dtype(0))
    if not float_like(cx.dtype(0)):
        info = np.iinfo(dtype)
        lo_i = info.min if lo == float("-inf") else max(int(np.ceil(lo)), int(info.min))
        hi_i = info.max if hi == float("inf") else min(int(np.floor(hi)), int(info.max))
        return cx.node("Clip", [x, cx.scalar(lo_i, dtype), cx.scalar(hi_i, dtype)])
    return cx.node("Clip", [x, cx.scalar(lo, dtype), cx.scalar(hi, dtype)])


@converter("cast")
def cast(cx: OpContext, x: str) -> str:
    return cx.node("Cast", [x], to=onnx_dtype(cx.out_dtype))


@converter("cast_like")
def cast_like(cx: OpContext, x: str, like: str) -> str:
    return cx.node("Cast", [x], to=onnx_dtype(cx.dtype(1)))


@converter("left_shift", "right_shift")
def shift(cx: OpContext, a: str, b: str) -> str:
    dtype = cx.dtype(0)
    if not dtype.startswith("uint"):
        raise Unsupported(f"ONNX's BitShift takes unsigned integers, and these are {dtype}")
    return cx.node("BitShift", [a, b], direction="LEFT" if cx.name == "left_shift" else "RIGHT")


@converter("reinterpret", opset=26)
def reinterpret(cx: OpContext, x: str) -> str:
    """ONNX's BitCast (opset 26): the same bits read as another dtype of the same width."""
    return cx.node("BitCast", [x], to=onnx_dtype(cx.out_dtype))
