"""Inverse trigonometric and hyperbolic functions, elementwise.

`acos`, `asin`, `atan`, `acosh`, `asinh`, `atanh`, `cosh`, `sinh`: one
tensor in, a tensor of the same type out (TVM's `Identity` relation, which
takes any dtype). Floating-point tensors are computed in their own dtype;
outside a function's domain (`acos(2)`, `acosh(0)`, `atanh(2)`) the result
is NaN, and `atanh(±1)` is ±inf, as in C's libm that TVM calls. Integer and
bool tensors go through float64 and back, as for `exp` (see
`elementwise.float_math`): TVM accepts them but cannot run them.
"""

from __future__ import annotations

from .._np import np
from .elementwise import unary_math

unary_math("acos", lambda x: np.arccos(x), "Elementwise inverse cosine, in [0, pi].")
unary_math("asin", lambda x: np.arcsin(x), "Elementwise inverse sine, in [-pi/2, pi/2].")
unary_math("atan", lambda x: np.arctan(x), "Elementwise inverse tangent, in (-pi/2, pi/2).")
unary_math("acosh", lambda x: np.arccosh(x), "Elementwise inverse hyperbolic cosine (x >= 1).")
unary_math("asinh", lambda x: np.arcsinh(x), "Elementwise inverse hyperbolic sine.")
unary_math("atanh", lambda x: np.arctanh(x), "Elementwise inverse hyperbolic tangent (-1 < x < 1).")
unary_math("cosh", lambda x: np.cosh(x), "Elementwise hyperbolic cosine.")
unary_math("sinh", lambda x: np.sinh(x), "Elementwise hyperbolic sine.")
