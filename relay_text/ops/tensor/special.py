"""`erf`, the Gauss error function, elementwise.

numpy has no erf, so it is computed here: for float16 and float32, with the
Maclaurin series below |x| = 0.5 and a rational approximation of erfc
(relative error below 1.2e-7) above it, both evaluated in float64 and
rounded to the input's dtype, which is as exact as that dtype holds; for
float64, with the C library's `erf` on each element.
"""

from __future__ import annotations

import math
from typing import Any

from .._np import np
from .elementwise import unary_math

_ERFC = (
    -1.26551223,
    1.00002368,
    0.37409196,
    0.09678418,
    -0.18628806,
    0.27886807,
    -1.13520398,
    1.48851587,
    -0.82215223,
    0.17087277,
)


def erf_approx(x: Any) -> Any:
    """erf in float64 to about 1e-7 relative error (see the module docstring)."""
    x = np.asarray(x, dtype=np.float64)
    ax = np.abs(x)
    # series: 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n + 1))
    x2 = x * x
    term = x.copy()
    series = x.copy()
    for n in range(1, 14):
        term = term * (-x2) / n
        series = series + term / (2 * n + 1)
    series = series * (2 / math.sqrt(math.pi))
    t = 1 / (1 + 0.5 * ax)
    poly = np.zeros_like(t)
    for c in reversed(_ERFC):
        poly = poly * t + c
    erfc = t * np.exp(-x2 + poly)
    tail = np.sign(x) * (1 - erfc)
    return np.where(ax < 0.5, series, tail)


_exact = None


def exact_erf(x: Any) -> Any:
    """erf of a float64 array, by math.erf."""
    global _exact
    if _exact is None:
        _exact = np.frompyfunc(math.erf, 1, 1)
    return np.asarray(_exact(x)).astype(np.float64)  # a 0-d input gives a Python float


def _erf(x: Any) -> Any:
    """erf in x's float dtype: exact in float64, else `erf_approx`."""
    return exact_erf(x) if x.dtype == np.float64 else erf_approx(x)


# TVM's relation is `Identity`: integers are accepted as for the other unary math functions.
unary_math("erf", _erf, "The Gauss error function, elementwise.")
