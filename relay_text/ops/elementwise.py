"""Elementwise operators: arithmetic, comparison, logic, unary math, selection, casts.

Binary operators broadcast like numpy (the `Broadcast` relation) and need
operands of one dtype; comparisons give bool. Integer division truncates
toward zero and `mod` takes the sign of the dividend, as in C (and TVM);
`floor_divide` and `floor_mod` round toward negative infinity, as numpy.
"""

from __future__ import annotations

import operator
from typing import Any

from ..ir.ty import TensorType
from ._np import is_float, is_int, np, wrap
from .registry import Attr, KernelError, register
from .relations import arithmetic, broadcast, broadcast_bool, broadcast_dims, broadcast_logical, identity, known_rank, numeric_identity, OUT, relation, RelationCall

# ---------------------------------------------------------------- relations


def _float_dtype(r: RelationCall, i: int) -> None:
    t = r.tensor(i)
    d = t.dtype
    if isinstance(d, str) and not (d.startswith("float") or d.startswith("bfloat")):
        r.fail(
            "type-mismatch",
            f"`{r.op}` takes a floating-point tensor, found `{d}`",
            arg=i,
            label=f"this is `{d}`",
            notes=['convert it first: `cast(x, dtype="float32")`'],
        )


@relation("Identity", inputs=1)
def float_identity(r: RelationCall) -> bool:
    """A floating-point tensor; the result has its type."""
    _float_dtype(r, 0)
    return identity(r)


@relation("Identity")
def bool_identity(r: RelationCall) -> bool:
    """A bool tensor; the result has its type."""
    x = r.tensor(0)
    r.refine(0, TensorType(x.shape, "bool"))
    return identity(r)


def where_rel(r: RelationCall) -> bool:
    """`where(cond, x, y)`: cond is bool; x and y share a dtype; shapes broadcast together."""
    c = r.tensor(0)
    r.refine(0, TensorType(c.shape, "bool"))
    r.unify_dtypes(1, 2)
    cond, x, y = r.tensor(0), r.tensor(1), r.tensor(2)
    if not (known_rank(cond.shape) and known_rank(x.shape) and known_rank(y.shape)):
        out = r.tensor(OUT)
        r.set_result(TensorType(out.shape, x.dtype))
        return False
    xy = broadcast_dims(r, x.shape, y.shape)
    if xy is None:
        return False
    shape = broadcast_dims(r, cond.shape, xy)
    if shape is None:
        return False
    r.set_result(TensorType(shape, x.dtype))
    return True


def cast_rel(r: RelationCall) -> bool:
    x = r.tensor(0)
    r.set_result(TensorType(x.shape, r.attrs["dtype"]))
    return True


def cast_like_rel(r: RelationCall) -> bool:
    x = r.tensor(0)
    like = r.tensor(1)
    r.set_result(TensorType(x.shape, like.dtype))
    return True


def clip_rel(r: RelationCall) -> bool:
    if r.attrs["a_min"] > r.attrs["a_max"]:
        r.fail("type-mismatch", f"`clip` needs a_min <= a_max, found {r.attrs['a_min']} > {r.attrs['a_max']}")
    return identity(r)


# ---------------------------------------------------------------- kernels: arithmetic


# Scalar fast paths (see `registry`): numpy's scalar arithmetic already
# keeps the dtype and wraps integers around.


def _scalar_divide(a: Any, b: Any) -> Any:
    if a.dtype.kind in "iu":
        if b == 0:
            raise KernelError("division-by-zero", "integer division by zero")
        q = a // b
        if a % b != 0 and (a < 0) != (b < 0):
            q = q + 1  # round toward zero, not down
        return q
    return a / b


@register("add", inputs=2, relation=arithmetic, doc="Elementwise sum, broadcasting like numpy.", scalar=operator.add)
def add(args: tuple, attrs: dict) -> Any:
    a, b = args
    return wrap(np.add(a, b), a.dtype)


@register("subtract", inputs=2, relation=arithmetic, doc="Elementwise difference, broadcasting like numpy.", scalar=operator.sub)
def subtract(args: tuple, attrs: dict) -> Any:
    a, b = args
    return wrap(np.subtract(a, b), a.dtype)


@register("multiply", inputs=2, relation=arithmetic, doc="Elementwise product, broadcasting like numpy.", scalar=operator.mul)
def multiply(args: tuple, attrs: dict) -> Any:
    a, b = args
    return wrap(np.multiply(a, b), a.dtype)


def _check_zero(b: Any) -> None:
    if np.any(b == 0):
        raise KernelError("division-by-zero", "integer division by zero")


@register(
    "divide",
    inputs=2,
    relation=arithmetic,
    doc="Elementwise quotient; integer division truncates toward zero.",
    scalar=_scalar_divide,
)
def divide(args: tuple, attrs: dict) -> Any:
    a, b = args
    if is_int(a.dtype):
        _check_zero(b)
        with np.errstate(over="ignore"):
            q = np.floor_divide(np.subtract(a, np.fmod(a, b)), b)
        return wrap(q, a.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        return wrap(np.true_divide(a, b), a.dtype)


@register("floor_divide", inputs=2, relation=arithmetic, doc="Elementwise quotient rounded toward negative infinity.")
def floor_divide(args: tuple, attrs: dict) -> Any:
    a, b = args
    if is_int(a.dtype):
        _check_zero(b)
        with np.errstate(over="ignore"):
            return wrap(np.floor_divide(a, b), a.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        return wrap(np.floor(np.true_divide(a, b)), a.dtype)


@register("mod", inputs=2, relation=arithmetic, doc="Elementwise remainder with the sign of the dividend (C's %).")
def mod(args: tuple, attrs: dict) -> Any:
    a, b = args
    if is_int(a.dtype):
        _check_zero(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return wrap(np.fmod(a, b), a.dtype)


@register("floor_mod", inputs=2, relation=arithmetic, doc="Elementwise remainder with the sign of the divisor (numpy's %).")
def floor_mod(args: tuple, attrs: dict) -> Any:
    a, b = args
    if is_int(a.dtype):
        _check_zero(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return wrap(np.mod(a, b), a.dtype)


@register("power", inputs=2, relation=arithmetic, doc="Elementwise power a ** b.")
def power(args: tuple, attrs: dict) -> Any:
    a, b = args
    if is_int(a.dtype) and np.any(b < 0):
        raise KernelError("runtime-error", "integer power with a negative exponent")
    with np.errstate(all="ignore"):
        if np.ndim(b) == 0 and np.shape(a) and is_float(a.dtype):
            # squares and cubes (layer norms, GELU) by multiplication: numpy's
            # general pow is about 100 times slower on float32
            e = float(b)
            if e == 2.0:
                return wrap(np.multiply(a, a), a.dtype)
            if e == 3.0:
                return wrap(np.multiply(np.multiply(a, a), a), a.dtype)
        return wrap(np.power(a, b), a.dtype)


@register("maximum", inputs=2, relation=broadcast, doc="Elementwise maximum.")
def maximum(args: tuple, attrs: dict) -> Any:
    a, b = args
    return wrap(np.maximum(a, b), a.dtype)


@register("minimum", inputs=2, relation=broadcast, doc="Elementwise minimum.")
def minimum(args: tuple, attrs: dict) -> Any:
    a, b = args
    return wrap(np.minimum(a, b), a.dtype)


# ---------------------------------------------------------------- comparison and logic


def _comparison(fn_name: str) -> Any:
    def kernel(args: tuple, attrs: dict) -> Any:
        return wrap(getattr(np, fn_name)(args[0], args[1]), "bool")

    kernel.__name__ = fn_name
    return kernel


for _name, _fn_name, _doc, _scalar in (
    ("equal", "equal", "Elementwise a == b, as bool.", operator.eq),
    ("not_equal", "not_equal", "Elementwise a != b, as bool.", operator.ne),
    ("less", "less", "Elementwise a < b, as bool.", operator.lt),
    ("less_equal", "less_equal", "Elementwise a <= b, as bool.", operator.le),
    ("greater", "greater", "Elementwise a > b, as bool.", operator.gt),
    ("greater_equal", "greater_equal", "Elementwise a >= b, as bool.", operator.ge),
):
    register(_name, inputs=2, relation=broadcast_bool, doc=_doc, scalar=_scalar)(_comparison(_fn_name))


@register("logical_and", inputs=2, relation=broadcast_logical, doc="Elementwise and of two bool tensors.", scalar=operator.and_)
def logical_and(args: tuple, attrs: dict) -> Any:
    return wrap(np.logical_and(args[0], args[1]), "bool")


@register("logical_or", inputs=2, relation=broadcast_logical, doc="Elementwise or of two bool tensors.", scalar=operator.or_)
def logical_or(args: tuple, attrs: dict) -> Any:
    return wrap(np.logical_or(args[0], args[1]), "bool")


@register("logical_xor", inputs=2, relation=broadcast_logical, doc="Elementwise exclusive or of two bool tensors.")
def logical_xor(args: tuple, attrs: dict) -> Any:
    return wrap(np.logical_xor(args[0], args[1]), "bool")


@register("logical_not", inputs=1, relation=bool_identity, doc="Elementwise not of a bool tensor.", scalar=operator.invert)
def logical_not(args: tuple, attrs: dict) -> Any:
    return wrap(np.logical_not(args[0]), "bool")


# ---------------------------------------------------------------- unary


@register("negative", inputs=1, relation=numeric_identity, doc="Elementwise negation (integers wrap around).", scalar=operator.neg)
def negative(args: tuple, attrs: dict) -> Any:
    x = args[0]
    return wrap(np.negative(x), x.dtype)


@register("abs", inputs=1, relation=numeric_identity, doc="Elementwise absolute value.")
def abs_(args: tuple, attrs: dict) -> Any:
    x = args[0]
    return wrap(np.abs(x), x.dtype)


@register("sign", inputs=1, relation=numeric_identity, doc="Elementwise sign: -1, 0 or 1.")
def sign(args: tuple, attrs: dict) -> Any:
    x = args[0]
    return wrap(np.sign(x), x.dtype)


@register("copy", inputs=1, relation=identity, doc="A copy of the tensor.")
def copy(args: tuple, attrs: dict) -> Any:
    return np.array(args[0], copy=True)


@register("zeros_like", inputs=1, relation=identity, doc="Zeros of the input's shape and dtype.")
def zeros_like(args: tuple, attrs: dict) -> Any:
    return np.zeros_like(args[0])


@register("ones_like", inputs=1, relation=identity, doc="Ones of the input's shape and dtype.")
def ones_like(args: tuple, attrs: dict) -> Any:
    return np.ones_like(args[0])


def _float_unary(name: str, fn: Any, doc: str) -> None:
    def kernel(args: tuple, attrs: dict) -> Any:
        x = args[0]
        with np.errstate(all="ignore"):
            return wrap(fn(x), x.dtype)

    kernel.__name__ = name
    register(name, inputs=1, relation=float_identity, doc=doc)(kernel)


def _sigmoid(x: Any) -> Any:
    # 1 / (1 + exp(-x)) without overflow for large |x|
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


_float_unary("exp", lambda x: np.exp(x), "Elementwise e ** x.")
_float_unary("log", lambda x: np.log(x), "Elementwise natural logarithm.")
_float_unary("log2", lambda x: np.log2(x), "Elementwise base-2 logarithm.")
_float_unary("log10", lambda x: np.log10(x), "Elementwise base-10 logarithm.")
_float_unary("sqrt", lambda x: np.sqrt(x), "Elementwise square root.")
_float_unary("rsqrt", lambda x: 1 / np.sqrt(x), "Elementwise 1 / sqrt(x).")
_float_unary("tanh", lambda x: np.tanh(x), "Elementwise hyperbolic tangent.")
_float_unary("sigmoid", _sigmoid, "Elementwise logistic function 1 / (1 + e ** -x).")
_float_unary("sin", lambda x: np.sin(x), "Elementwise sine.")
_float_unary("cos", lambda x: np.cos(x), "Elementwise cosine.")
_float_unary("tan", lambda x: np.tan(x), "Elementwise tangent.")
_float_unary("floor", lambda x: np.floor(x), "Elementwise rounding toward negative infinity.")
_float_unary("ceil", lambda x: np.ceil(x), "Elementwise rounding toward positive infinity.")
# TVM lowers `round` to C's round(): halves go away from zero (numpy's round goes to even).
def _round_half_away(x: Any) -> Any:
    whole = np.trunc(x)
    frac = x - whole  # exact: no rounding error, unlike floor(x + 0.5)
    return whole + np.where(np.abs(frac) >= 0.5, np.sign(x), 0).astype(x.dtype)


# TVM lowers `round` to C's round(): halves go away from zero (numpy's round goes to even).
_float_unary("round", _round_half_away, "Elementwise rounding to nearest, halves away from zero.")
_float_unary("trunc", lambda x: np.trunc(x), "Elementwise rounding toward zero.")


# ---------------------------------------------------------------- selection, clipping, casts


@register("where", inputs=3, relation=where_rel, doc="Elementwise choice: x where cond is True, else y (all broadcast).")
def where(args: tuple, attrs: dict) -> Any:
    cond, x, y = args
    return wrap(np.where(cond, x, y), x.dtype)


@register(
    "clip",
    inputs=1,
    relation=clip_rel,
    attrs=(Attr("a_min", "float"), Attr("a_max", "float")),
    doc="Limit every element to [a_min, a_max].",
)
def clip(args: tuple, attrs: dict) -> Any:
    x = args[0]
    lo, hi = attrs["a_min"], attrs["a_max"]
    if is_int(x.dtype):
        info = np.iinfo(x.dtype)
        lo, hi = max(int(np.ceil(lo)), info.min), min(int(np.floor(hi)), info.max)
    return wrap(np.clip(x, lo, hi), x.dtype)


@register("cast", inputs=1, relation=cast_rel, attrs=(Attr("dtype", "dtype"),), doc="Convert every element to another dtype.")
def cast(args: tuple, attrs: dict) -> Any:
    x = args[0]
    dtype = attrs["dtype"]
    if is_int(dtype) and is_float(x.dtype):
        with np.errstate(invalid="ignore"):
            return wrap(np.trunc(x), x.dtype).astype(dtype)
    return wrap(x.astype(dtype), dtype)


@register("cast_like", inputs=2, relation=cast_like_rel, doc="Convert every element to the dtype of the second input.")
def cast_like(args: tuple, attrs: dict) -> Any:
    x, like = args
    return cast((x,), {"dtype": str(like.dtype)})
