"""`fast_exp`, `fast_tanh`, `fast_erf`: TOPI's approximations of exp, tanh and erf.

TVM's `FastMath` pass puts these in place of `exp`, `tanh` and `erf`; they
have the `Identity` relation (any dtype). Each evaluates, in the input's
own dtype, the same formula TOPI compiles, so results match TVM's to the
rounding of the operations (within about 1e-5 of the exact function):

* `fast_exp` on float32: x is clamped to [-88.376, 88.376]; with
  n = floor(x log2(e) + 1/2) and f = x - n ln 2, e ** f is a degree-7
  polynomial in f (Cephes' coefficients) and 2 ** n is built from the bits
  of n + 127 placed in the float's exponent field; the result is the larger
  of that product and x (so a NaN comes out as NaN).
* `fast_tanh` on float32: x is clamped to [-9, 9] and tanh is the quotient
  of an odd degree-13 and an even degree-6 polynomial (Eigen's).
* `fast_erf` on float32 and float16: x is clamped to [-4, 4] and erf is the
  quotient of an odd degree-13 and an even degree-8 polynomial (Eigen's).

Clamping follows the code TVM generates: `min(a, b)` is `a if a < b else b`
and `max(a, b)` is `a if a > b else b`, so where a NaN lands depends on the
order (fast_erf of NaN is erf(4), about 1). Other dtypes fall back to the
exact function (`exp`, `tanh`, `erf`), as TOPI does.
"""

from __future__ import annotations

from typing import Any

from .._np import np, wrap
from .elementwise import float_math, from_float64
from ..registry import register
from ..relations import identity
from .special import exact_erf
from ..types import Args, Attrs, Value

# Cephes' polynomial for e ** f on [-ln2/2, ln2/2], highest degree first.
_EXP_P = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1)
_EXP_HI, _EXP_LO = 88.3762626647950, -88.3762626647949
_LOG2E, _LN2 = 1.44269504088896341, 0.6931471805599453

# Eigen's rational approximations: odd numerator, even denominator, by
# increasing degree.
_TANH_ALPHA = (
    4.89352455891786e-03,
    6.37261928875436e-04,
    1.48572235717979e-05,
    5.12229709037114e-08,
    -8.60467152213735e-11,
    2.00018790482477e-13,
    -2.76076847742355e-16,
)
_TANH_BETA = (4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04, 1.19825839466702e-06)
_ERF_ALPHA = (
    -1.60960333262415e-02,
    -2.95459980854025e-03,
    -7.34990630326855e-04,
    -5.69250639462346e-05,
    -2.10102402082508e-06,
    2.77068142495902e-08,
    -2.72614225801306e-10,
)
_ERF_BETA = (
    -1.42647390514189e-02,
    -7.37332916720468e-03,
    -1.68282697438203e-03,
    -2.13374055278905e-04,
    -1.45660718464996e-05,
)


def _min(a: Any, b: Any) -> Any:
    return np.where(a < b, a, b)


def _max(a: Any, b: Any) -> Any:
    return np.where(a > b, a, b)


def _horner(x2: Any, coefficients: tuple[float, ...], dtype: Any) -> Any:
    """sum c[k] * x2 ** k by Horner's rule, every step rounded to `dtype`."""
    c = [dtype.type(np.float32(v)) for v in coefficients]
    acc = x2 * c[-1] + c[-2]
    for k in range(len(c) - 3, -1, -1):
        acc = x2 * acc + c[k]
    return acc


def _rational(x: Any, alpha: tuple[float, ...], beta: tuple[float, ...]) -> Any:
    x2 = x * x
    return x * _horner(x2, alpha, x.dtype) / _horner(x2, beta, x.dtype)


def fast_exp_float32(x: Any) -> Any:
    f32 = np.float32
    c = _max(_min(x, f32(_EXP_HI)), f32(_EXP_LO))
    n = np.floor(c * f32(_LOG2E) + f32(0.5))
    f = c - n * f32(_LN2)
    p = f32(_EXP_P[0])
    for coefficient in _EXP_P[1:]:
        p = p * f + f32(coefficient)
    y = p * f * f + f + f32(1)
    scale = np.left_shift((n + f32(127)).astype(np.int32), 23).view(np.float32)
    return _max(scale * y, x)


def fast_tanh_float32(x: Any) -> Any:
    c = _max(np.float32(-9), _min(np.float32(9), x))
    return _rational(c, _TANH_ALPHA, _TANH_BETA)


def fast_erf_float(x: Any) -> Any:
    t = x.dtype.type
    c = _max(_min(x, t(4)), t(-4))
    return _rational(c, _ERF_ALPHA, _ERF_BETA)


_exp = float_math(lambda x: np.exp(x))
_tanh = float_math(lambda x: np.tanh(x))


@register("fast_exp", inputs=1, relation=identity, doc="Elementwise e ** x by TOPI's fast approximation (float32).")
def fast_exp(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    if x.dtype == np.float32:
        with np.errstate(all="ignore"):
            return wrap(fast_exp_float32(x.reshape(-1)).reshape(x.shape), x.dtype)
    return _exp(args, attrs)


@register(
    "fast_tanh", inputs=1, relation=identity, doc="Elementwise tanh by TOPI's fast rational approximation (float32)."
)
def fast_tanh(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    if x.dtype == np.float32:
        with np.errstate(all="ignore"):
            return wrap(fast_tanh_float32(x.reshape(-1)).reshape(x.shape), x.dtype)
    return _tanh(args, attrs)


@register(
    "fast_erf",
    inputs=1,
    relation=identity,
    doc="Elementwise erf by TOPI's fast rational approximation (float32, float16).",
)
def fast_erf(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    if x.dtype in (np.float32, np.float16):
        with np.errstate(all="ignore"):
            return wrap(fast_erf_float(x.reshape(-1)).reshape(x.shape), x.dtype)
    exact = exact_erf(x.astype(np.float64))
    return wrap(exact, x.dtype) if x.dtype == np.float64 else from_float64(exact, x.dtype)
