"""Elementwise operators: arithmetic, comparison, logic, unary math, selection, casts.

Binary operators broadcast like numpy (the `Broadcast` relation) and need
operands of one dtype; comparisons give bool. Integer division truncates
toward zero and `mod` takes the sign of the dividend, as in C (and TVM);
`floor_divide` and `floor_mod` round toward negative infinity, as numpy.
`trunc_divide` and `trunc_mod` are `divide` and `mod` on integers; on
floats they round the quotient toward zero (`a - trunc(a / b) * b`, as
TOPI computes it, which may differ from C's fmod in the last bit).

Unary math (`exp`, `log`, `sqrt`, `tanh`, `sin`, ...) has TVM's `Identity`
relation, which takes a tensor of any dtype. On integer and bool tensors
the rounding functions (`floor`, `ceil`, `round`, `trunc`) return the input
unchanged, as TVM does; the others are computed in float64 and converted
back (truncated toward zero, NaN to 0, saturating at the dtype's range):
TVM type-checks such calls but cannot lower them (its LLVM code generator
is given a float intrinsic on an integer), so this is our definition.
"""

from __future__ import annotations

import operator
from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType
from .._np import is_float, is_int, np, wrap
from ..registry import Attr, KernelError, register
from ..relations import (
    OUT,
    Relation,
    arithmetic,
    broadcast,
    broadcast_bool,
    broadcast_dims,
    broadcast_logical,
    identity,
    known_rank,
    numeric_identity,
    relation,
)
from ..types import Args, Attrs, Value

# ---------------------------------------------------------------- relations


def _float_dtype(r: Relation, i: int) -> None:
    t = r.tensor(i)
    d = t.dtype
    if isinstance(d, str) and not d.startswith(("float", "bfloat")):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` takes a floating-point tensor, found `{d}`",
            arg=i,
            label=f"this is `{d}`",
            notes=['convert it first: `cast(x, dtype="float32")`'],
        )


@relation("Identity", inputs=1)
def float_identity(r: Relation) -> bool:
    """A floating-point tensor; the result has its type."""
    _float_dtype(r, 0)
    return identity(r)


@relation("Identity")
def bool_identity(r: Relation) -> bool:
    """A bool tensor; the result has its type."""
    x = r.tensor(0)
    r.refine(0, TensorType(x.shape, "bool"))
    return identity(r)


def where_rel(r: Relation) -> bool:
    """`where(cond, x, y)`: x and y share a dtype; shapes broadcast together.
    The condition may have any dtype (TVM's WhereRel does not check it): a
    non-zero element chooses x."""
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


def cast_rel(r: Relation) -> bool:
    x = r.tensor(0)
    r.set_result(TensorType(x.shape, r.attrs["dtype"]))
    return True


def cast_like_rel(r: Relation) -> bool:
    x = r.tensor(0)
    like = r.tensor(1)
    r.set_result(TensorType(x.shape, like.dtype))
    return True


def clip_rel(r: Relation) -> bool:
    if r.attrs["a_min"] > r.attrs["a_max"]:
        r.fail(codes.TYPE_MISMATCH, f"`clip` needs a_min <= a_max, found {r.attrs['a_min']} > {r.attrs['a_max']}")
    return identity(r)


# ---------------------------------------------------------------- kernels: arithmetic


# Scalar fast paths (see `registry`): numpy's scalar arithmetic already
# keeps the dtype and wraps integers around.


def binary(ufunc: Any, a: Any, b: Any) -> Any:
    """ufunc(a, b), large float tensors in pieces on the kernel threads (`_pieces`, loaded when a kernel runs)."""
    from ._pieces import binary as in_pieces

    return in_pieces(ufunc, a, b)


def _scalar_divide(a: Any, b: Any) -> Any:
    if a.dtype.kind in "iu":
        if b == 0:
            raise KernelError(codes.DIVISION_BY_ZERO, "integer division by zero")
        q = a // b
        if a % b != 0 and (a < 0) != (b < 0):
            q = q + 1  # round toward zero, not down
        return q
    return a / b


@register("add", inputs=2, relation=arithmetic, doc="Elementwise sum, broadcasting like numpy.", scalar=operator.add)
def add(args: Args, attrs: Attrs) -> Value:
    a, b = args
    return wrap(binary(np.add, a, b), a.dtype)


@register(
    "subtract",
    inputs=2,
    relation=arithmetic,
    doc="Elementwise difference, broadcasting like numpy.",
    scalar=operator.sub,
)
def subtract(args: Args, attrs: Attrs) -> Value:
    a, b = args
    return wrap(binary(np.subtract, a, b), a.dtype)


@register(
    "multiply", inputs=2, relation=arithmetic, doc="Elementwise product, broadcasting like numpy.", scalar=operator.mul
)
def multiply(args: Args, attrs: Attrs) -> Value:
    a, b = args
    return wrap(binary(np.multiply, a, b), a.dtype)


def _check_zero(b: Any) -> None:
    if np.any(b == 0):
        raise KernelError(codes.DIVISION_BY_ZERO, "integer division by zero")


@register(
    "divide",
    inputs=2,
    relation=arithmetic,
    doc="Elementwise quotient; integer division truncates toward zero.",
    scalar=_scalar_divide,
)
def divide(args: Args, attrs: Attrs) -> Value:
    a, b = args
    if is_int(a.dtype):
        _check_zero(b)
        with np.errstate(over="ignore"):
            q = np.floor_divide(np.subtract(a, np.fmod(a, b)), b)
        return wrap(q, a.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        return wrap(binary(np.true_divide, a, b), a.dtype)


@register("floor_divide", inputs=2, relation=arithmetic, doc="Elementwise quotient rounded toward negative infinity.")
def floor_divide(args: Args, attrs: Attrs) -> Value:
    a, b = args
    if is_int(a.dtype):
        _check_zero(b)
        with np.errstate(over="ignore"):
            return wrap(np.floor_divide(a, b), a.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        return wrap(np.floor(np.true_divide(a, b)), a.dtype)


@register("mod", inputs=2, relation=arithmetic, doc="Elementwise remainder with the sign of the dividend (C's %).")
def mod(args: Args, attrs: Attrs) -> Value:
    a, b = args
    if is_int(a.dtype):
        _check_zero(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return wrap(np.fmod(a, b), a.dtype)


@register(
    "floor_mod", inputs=2, relation=arithmetic, doc="Elementwise remainder with the sign of the divisor (numpy's %)."
)
def floor_mod(args: Args, attrs: Attrs) -> Value:
    a, b = args
    if is_int(a.dtype):
        _check_zero(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return wrap(np.mod(a, b), a.dtype)


@register(
    "trunc_divide", inputs=2, relation=arithmetic, doc="Elementwise quotient rounded toward zero, for floats too."
)
def trunc_divide(args: Args, attrs: Attrs) -> Value:
    a, b = args
    if is_int(a.dtype):
        return divide(args, attrs)
    with np.errstate(divide="ignore", invalid="ignore"):
        return wrap(np.trunc(np.true_divide(a, b)), a.dtype)


@register(
    "trunc_mod",
    inputs=2,
    relation=arithmetic,
    doc="Elementwise remainder a - trunc(a / b) * b, with the sign of the dividend.",
)
def trunc_mod(args: Args, attrs: Attrs) -> Value:
    a, b = args
    if is_int(a.dtype):
        return mod(args, attrs)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.trunc(np.true_divide(a, b))
        return wrap(np.subtract(a, np.multiply(q, b)), a.dtype)


@register("power", inputs=2, relation=arithmetic, doc="Elementwise power a ** b.")
def power(args: Args, attrs: Attrs) -> Value:
    a, b = args
    if is_int(a.dtype) and np.any(b < 0):
        raise KernelError(codes.RUNTIME_ERROR, "integer power with a negative exponent")
    with np.errstate(all="ignore"):
        if np.ndim(b) == 0 and np.shape(a) and is_float(a.dtype):
            # squares and cubes (layer norms, GELU) by multiplication: numpy's
            # general pow is about 100 times slower on float32
            e = float(b)
            if e == 2.0:
                return wrap(binary(np.multiply, a, a), a.dtype)
            if e == 3.0:
                return wrap(binary(np.multiply, binary(np.multiply, a, a), a), a.dtype)
        return wrap(np.power(a, b), a.dtype)


@register("maximum", inputs=2, relation=broadcast, doc="Elementwise maximum.")
def maximum(args: Args, attrs: Attrs) -> Value:
    a, b = args
    return wrap(binary(np.maximum, a, b), a.dtype)


@register("minimum", inputs=2, relation=broadcast, doc="Elementwise minimum.")
def minimum(args: Args, attrs: Attrs) -> Value:
    a, b = args
    return wrap(binary(np.minimum, a, b), a.dtype)


# ---------------------------------------------------------------- comparison and logic


def _comparison(fn_name: str) -> Any:
    def kernel(args: Args, attrs: Attrs) -> Value:
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


@register(
    "logical_and",
    inputs=2,
    relation=broadcast_logical,
    doc="Elementwise and of two bool tensors.",
    scalar=operator.and_,
)
def logical_and(args: Args, attrs: Attrs) -> Value:
    return wrap(np.logical_and(args[0], args[1]), "bool")


@register(
    "logical_or", inputs=2, relation=broadcast_logical, doc="Elementwise or of two bool tensors.", scalar=operator.or_
)
def logical_or(args: Args, attrs: Attrs) -> Value:
    return wrap(np.logical_or(args[0], args[1]), "bool")


@register("logical_xor", inputs=2, relation=broadcast_logical, doc="Elementwise exclusive or of two bool tensors.")
def logical_xor(args: Args, attrs: Attrs) -> Value:
    return wrap(np.logical_xor(args[0], args[1]), "bool")


@register(
    "logical_not", inputs=1, relation=bool_identity, doc="Elementwise not of a bool tensor.", scalar=operator.invert
)
def logical_not(args: Args, attrs: Attrs) -> Value:
    return wrap(np.logical_not(args[0]), "bool")


# ---------------------------------------------------------------- unary


@register(
    "negative",
    inputs=1,
    relation=numeric_identity,
    doc="Elementwise negation (integers wrap around).",
    scalar=operator.neg,
)
def negative(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    return wrap(np.negative(x), x.dtype)


@register("abs", inputs=1, relation=numeric_identity, doc="Elementwise absolute value.")
def abs_(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    return wrap(np.abs(x), x.dtype)


@register("sign", inputs=1, relation=numeric_identity, doc="Elementwise sign: -1, 0 or 1.")
def sign(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    return wrap(np.sign(x), x.dtype)


@register("copy", inputs=1, relation=identity, doc="A copy of the tensor.")
def copy(args: Args, attrs: Attrs) -> Value:
    return np.array(args[0], copy=True)


@register("zeros_like", inputs=1, relation=identity, doc="Zeros of the input's shape and dtype.")
def zeros_like(args: Args, attrs: Attrs) -> Value:
    return np.zeros_like(args[0])


@register("ones_like", inputs=1, relation=identity, doc="Ones of the input's shape and dtype.")
def ones_like(args: Args, attrs: Attrs) -> Value:
    return np.ones_like(args[0])


def from_float64(values: Any, dtype: Any) -> Any:
    """float64 results back in an integer or bool `dtype`: bool is `!= 0`;
    integers are truncated toward zero (C's conversion), with NaN giving 0 and
    values beyond the dtype saturating at its least or greatest value."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return wrap(values != 0, dtype)
    info = np.iinfo(dtype)
    t = np.trunc(values)
    lo, hi = float(info.min), float(info.max) + 1  # both exact in float64
    inside = (t >= lo) & (t < hi)
    out = np.where(inside, t, 0).astype(dtype)
    out = np.where(t >= hi, np.array(info.max, dtype), out)
    return wrap(np.where(t < lo, np.array(info.min, dtype), out), dtype)


def float_math(fn: Any, integers_unchanged: bool = False) -> Any:
    """The kernel of a unary math function `fn` (numpy in, numpy out).

    A floating-point tensor is computed in its own dtype. TVM's relation
    (`Identity`) also accepts integer and bool tensors; for the rounding
    functions TVM returns those unchanged (`integers_unchanged`), for the
    others it emits the float intrinsic on an integer, which its code
    generators cannot lower, so TVM itself cannot run them: here they are
    computed in float64 and converted back by `from_float64`."""

    def kernel(args: Args, attrs: Attrs) -> Value:
        x = args[0]
        if is_float(x.dtype):
            with np.errstate(all="ignore"):
                return wrap(fn(x), x.dtype)
        if integers_unchanged:
            return np.array(x, copy=True)
        with np.errstate(all="ignore"):
            return from_float64(fn(x.astype(np.float64)), x.dtype)

    return kernel


def unary_math(name: str, fn: Any, doc: str, integers_unchanged: bool = False) -> None:
    """Register a unary math operator: TVM's `Identity` relation (any tensor)
    and the `float_math` kernel of `fn`."""
    kernel = float_math(fn, integers_unchanged)
    kernel.__name__ = name
    register(name, inputs=1, relation=identity, doc=doc)(kernel)


def _sigmoid(x: Any) -> Any:
    # 1 / (1 + exp(-x)) without overflow for large |x|
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _round_half_away(x: Any) -> Any:
    whole = np.trunc(x)
    frac = x - whole  # exact: no rounding error, unlike floor(x + 0.5)
    return whole + np.where(np.abs(frac) >= 0.5, np.sign(x), 0).astype(x.dtype)


unary_math("exp", lambda x: np.exp(x), "Elementwise e ** x.")
unary_math("log", lambda x: np.log(x), "Elementwise natural logarithm.")
unary_math("log2", lambda x: np.log2(x), "Elementwise base-2 logarithm.")
unary_math("log10", lambda x: np.log10(x), "Elementwise base-10 logarithm.")
unary_math("sqrt", lambda x: np.sqrt(x), "Elementwise square root.")
unary_math("rsqrt", lambda x: 1 / np.sqrt(x), "Elementwise 1 / sqrt(x).")
unary_math("tanh", lambda x: np.tanh(x), "Elementwise hyperbolic tangent.")
unary_math("sigmoid", _sigmoid, "Elementwise logistic function 1 / (1 + e ** -x).")
unary_math("sin", lambda x: np.sin(x), "Elementwise sine.")
unary_math("cos", lambda x: np.cos(x), "Elementwise cosine.")
unary_math("tan", lambda x: np.tan(x), "Elementwise tangent.")
unary_math("floor", lambda x: np.floor(x), "Elementwise rounding toward negative infinity.", integers_unchanged=True)
unary_math("ceil", lambda x: np.ceil(x), "Elementwise rounding toward positive infinity.", integers_unchanged=True)
# TVM lowers `round` to C's round(): halves go away from zero (numpy's round goes to even).
unary_math(
    "round", _round_half_away, "Elementwise rounding to nearest, halves away from zero.", integers_unchanged=True
)
unary_math("trunc", lambda x: np.trunc(x), "Elementwise rounding toward zero.", integers_unchanged=True)


# ---------------------------------------------------------------- selection, clipping, casts


@register(
    "where", inputs=3, relation=where_rel, doc="Elementwise choice: x where cond is True, else y (all broadcast)."
)
def where(args: Args, attrs: Attrs) -> Value:
    cond, x, y = args
    return wrap(np.where(cond, x, y), x.dtype)


@register(
    "clip",
    inputs=1,
    relation=clip_rel,
    attrs=(Attr("a_min", "float"), Attr("a_max", "float")),
    doc="Limit every element to [a_min, a_max].",
)
def clip(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    lo, hi = attrs["a_min"], attrs["a_max"]
    if is_int(x.dtype):
        info = np.iinfo(x.dtype)
        lo, hi = max(int(np.ceil(lo)), info.min), min(int(np.floor(hi)), info.max)
    return wrap(np.clip(x, lo, hi), x.dtype)


@register(
    "cast", inputs=1, relation=cast_rel, attrs=(Attr("dtype", "dtype"),), doc="Convert every element to another dtype."
)
def cast(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    dtype = attrs["dtype"]
    if is_int(dtype) and is_float(x.dtype):
        with np.errstate(invalid="ignore"):
            return wrap(np.trunc(x), x.dtype).astype(dtype)
    if x.ndim and (x.dtype.name, dtype) in _HALF_CASTS:
        from .. import _half  # (numpy's conversion, faster where compiled)

        return _half.to_float16(x) if dtype == "float16" else _half.to_float32(x)
    return wrap(x.astype(dtype), dtype)


_HALF_CASTS = frozenset({("float32", "float16"), ("float16", "float32")})


@register("cast_like", inputs=2, relation=cast_like_rel, doc="Convert every element to the dtype of the second input.")
def cast_like(args: Args, attrs: Attrs) -> Value:
    x, like = args
    return cast((x,), {"dtype": str(like.dtype)})
