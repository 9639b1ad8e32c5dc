"""Quantized elementwise functions: `qnn.abs`, `qnn.erf`, `qnn.exp`,
`qnn.hardswish`, `qnn.log`, `qnn.rsqrt`, `qnn.sigmoid`, `qnn.sqrt`,
`qnn.tanh`, and `qnn.leaky_relu` and `qnn.softmax`.

Each takes `(data, scale, zero_point, output_scale, output_zero_point)`:
int8 or uint8 data (softmax: int8) and four scalar parameters; the result
has the data's type.

The functions are computed as TVM lowers them: the data is dequantized to
float32, the function is applied in float32, and the value quantized again
to the data's dtype with the output parameters (for all but erf, TVM's QNN
legalization does this once for every possible input value and looks the
results up, which gives the same values). `hardswish(x)` is
`x * clip(x + 3, 0, 6) / 6`.

`qnn.leaky_relu(..., alpha=0.25)`, as src/relay/qnn/op/leaky_relu.cc
lowers it: the data is requantized to int32 with the output parameters,
giving `q`; where the data is below its zero point the result is
`fpm(q, alpha) + fpm(output_zero_point, 1 - alpha)`, else `q`, saturated to
the dtype; `fpm` is the per-tensor fixed-point product of `_common` (UPWARD).

`qnn.softmax(..., axis=-1)` is TVM's integer-only softmax (Algorithm 1 of
arXiv 2207.01405, src/relay/qnn/op/softmax.cc), all in int32 with wrapping
arithmetic, shifts arithmetic and divisions truncating:
`x = (q - z) - max(q - z)`, `x0 = round(1 / scale)`,
`xp = x + (x >> 1) - (x >> 4)`, `k = clip(xp / -x0, 0, 20)`,
`r = xp + k * x0`, `e = ((r >> 1) + x0) << (max(k) - k)`, and
`out = ((2**30 / sum(e)) * e) >> 23`, which is requantized from scale 1/128
and zero point 0 to the output parameters as int8. TVM requires the input
scale to be at most 1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...diagnostics import codes
from .._np import np
from ._common import (
    dequantize,
    fixed_point_multiply,
    known_tensor,
    params_default,
    quantize,
    requantize,
    require_dtype,
    round_half_away,
    saturate,
    scalar_param,
    trunc_div,
)
from ..registry import Attr, KernelError, register
from ..relations import Relation, normalize_axis, relation
from ..tensor.special import erf_approx
from ..types import Args, Attrs, Kernel, Value

_UNARY_PARAMS = {1: "float32", 2: "int32", 3: "float32", 4: "int32"}
_ROLES = ("input scale", "input zero point", "output scale", "output zero point")


def _unary_rel(r: Relation, allowed: tuple[str, ...]) -> bool:
    data = known_tensor(r, 0)
    if data is None:
        return False
    require_dtype(r, 0, data, allowed, "quantized data")
    done = True
    for i, role in enumerate(_ROLES, start=1):
        done = scalar_param(r, i, role) and done
    if not done:
        return False
    r.set_result(data)
    return True


@relation("QnnElementwiseUnary", default=params_default(_UNARY_PARAMS))
def qnn_unary_rel(r: Relation) -> bool:
    """int8 or uint8 data and four scalar parameters; the result has the data's type."""
    return _unary_rel(r, ("int8", "uint8"))


def _hardswish(x: Any) -> Any:
    return x * np.clip(x + np.float32(3), np.float32(0), np.float32(6)) / np.float32(6)


def _erf(x: Any) -> Any:
    return erf_approx(x).astype(np.float32)


_FUNCTIONS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "abs": (lambda x: np.abs(x), "|x|"),
    "erf": (_erf, "The Gauss error function"),
    "exp": (lambda x: np.exp(x), "e ** x"),
    "hardswish": (_hardswish, "x * clip(x + 3, 0, 6) / 6"),
    "log": (lambda x: np.log(x), "The natural logarithm"),
    "rsqrt": (lambda x: np.float32(1) / np.sqrt(x), "1 / sqrt(x)"),
    "sigmoid": (lambda x: np.float32(1) / (np.float32(1) + np.exp(-x)), "1 / (1 + e ** -x)"),
    "sqrt": (lambda x: np.sqrt(x), "The square root"),
    "tanh": (lambda x: np.tanh(x), "The hyperbolic tangent"),
}


def _unary_kernel(fn: Callable[[Any], Any]) -> Kernel:
    def kernel(args: Args, attrs: Attrs) -> Value:
        x, scale, zp, s_out, z_out = args
        real = dequantize(x, scale, zp, -1)
        with np.errstate(all="ignore"):
            y = np.asarray(fn(real), dtype=np.float32)
        return quantize(y, s_out, z_out, -1, str(x.dtype))

    return kernel


for _name, (_fn, _what) in _FUNCTIONS.items():
    register(
        f"qnn.{_name}",
        inputs=5,
        relation=qnn_unary_rel,
        doc=f"{_what} of a quantized tensor, elementwise, requantized to the output parameters.",
    )(_unary_kernel(_fn))


# ---------------------------------------------------------------- leaky_relu


@relation("QLeakyRelu", default=params_default(_UNARY_PARAMS))
def qnn_leaky_relu_rel(r: Relation) -> bool:
    """int8 or uint8 data, four scalar parameters, alpha at least 0."""
    if r.attrs["alpha"] < 0:
        r.fail(codes.TYPE_MISMATCH, f"`qnn.leaky_relu` alpha must be at least 0, found {r.attrs['alpha']}")
    return _unary_rel(r, ("int8", "uint8"))


@register(
    "qnn.leaky_relu",
    inputs=5,
    relation=qnn_leaky_relu_rel,
    attrs=(Attr("alpha", "float", 0.25),),
    doc="x where x >= its zero point, else alpha * x, on quantized tensors.",
)
def qnn_leaky_relu(args: Args, attrs: Attrs) -> Value:
    x, s_in, z_in, s_out, z_out = args
    shape = x.shape
    x = x.reshape(-1)
    alpha = attrs["alpha"]
    q = requantize(x, s_in, z_in, s_out, z_out, "int32")
    prod = fixed_point_multiply(q, alpha)
    zero = fixed_point_multiply(np.asarray(z_out, dtype=np.int32).reshape(1), 1.0 - alpha)
    out = np.where(x.astype(np.int32) < np.int32(z_in), prod + zero, q)
    return saturate(out, str(x.dtype)).reshape(shape)


# ---------------------------------------------------------------- softmax


@relation("QSoftmax", default=params_default(_UNARY_PARAMS))
def qnn_softmax_rel(r: Relation) -> bool:
    """int8 data, four scalar parameters; the result has the data's type."""
    if not _unary_rel(r, ("int8",)):
        return False
    normalize_axis(r, r.attrs["axis"], len(r.tensor(0).shape))  # type: ignore[arg-type]  # _unary_rel succeeded: the data has a known rank
    return True


@register(
    "qnn.softmax",
    inputs=5,
    relation=qnn_softmax_rel,
    attrs=(Attr("axis", "int", -1),),
    doc="TVM's integer-only softmax along an axis, on int8 data.",
)
def qnn_softmax(args: Args, attrs: Attrs) -> Value:
    x, scale, zp, s_out, z_out = args
    scale = float(np.asarray(scale, dtype=np.float32))
    if not scale <= 1.0:
        raise KernelError(codes.RUNTIME_ERROR, f"`qnn.softmax` needs an input scale of at most 1, found {scale}")
    axis = attrs["axis"]
    shape = x.shape
    if x.ndim == 0:
        x = x.reshape(1)
        axis = 0
    i32 = np.int32
    with np.errstate(divide="ignore", over="ignore"):
        x0 = np.clip(round_half_away(np.asarray(np.float32(1) / np.float32(scale))), -(2**31), 2**31 - 1)
    x0 = i32(x0)
    data = x.astype(i32) - i32(np.asarray(zp))
    d = data - np.max(data, axis=axis, keepdims=True)
    xp = d + (d >> 1) - (d >> 4)
    k = np.clip(trunc_div(xp, np.full_like(xp, -x0)), 0, 20).astype(i32)
    r = xp - k * -x0
    xb = (r >> 1) + x0
    e = np.left_shift(xb, np.max(k, axis=axis, keepdims=True) - k)
    sums = np.sum(e, axis=axis, keepdims=True, dtype=i32)
    if np.any(sums == 0):
        raise KernelError(
            codes.DIVISION_BY_ZERO, "`qnn.softmax`: a sum of exponentials is 0 (integer division by zero)"
        )
    out = (trunc_div(np.full_like(sums, 1 << 30), sums) * e) >> 23
    result = requantize(out, np.float32(1.0 / 128), 0, s_out, z_out, "int8", 0)
    return result.reshape(shape)
