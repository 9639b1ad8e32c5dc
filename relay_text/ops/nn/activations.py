"""Activations beyond `nn.relu` and `nn.softmax`: `nn.prelu` and `nn.fast_softmax`.

* `nn.prelu(data, alpha, axis=1)`: `x` where `x > 0`, else `alpha[c] * x`,
  with one slope per element of the channel axis; `alpha` is a vector as
  long as that axis (inferred from the data). Integer tensors multiply in
  their own dtype, wrapping around.
* `nn.fast_softmax(data, axis=-1)`: softmax along `axis` (floating-point
  data), with TOPI's fast exponential for float32: the argument (`x -
  max`) is clamped to about [-88.38, 88.38], split as `n * ln 2 + f` with
  `n = floor(x * log2(e) + 1/2)`, `exp(f)` taken from a degree-7
  polynomial and `2 ** n` built from the float's exponent bits, all in
  float32; the result is never smaller than `x` itself. Other float types
  use the exact exponential.
"""

from __future__ import annotations

from typing import Any

from ...ir.ty import TensorType
from .._np import np, wrap
from .nn import softmax_rel
from ..registry import Attr, register
from ..relations import (
    Relation,
    known_rank,
    normalize_axis,
    relation,
    require_numeric,
)
from ..types import Args, Attrs, Value


@relation("PRelu")
def prelu_rel(r: Relation) -> bool:
    """(data, alpha) -> data's type; alpha is (C,), C the size of the channel axis."""
    require_numeric(r, 0)
    data = r.tensor(0)
    if not known_rank(data.shape):
        return False
    axis = normalize_axis(r, r.attrs["axis"], len(data.shape))
    r.refine(1, TensorType((data.shape[axis],), data.dtype))
    r.set_result(data)
    return True


@register(
    "nn.prelu",
    inputs=2,
    relation=prelu_rel,
    attrs=(Attr("axis", "int", 1),),
    doc="x where x > 0, else alpha[c] * x with one slope per channel.",
)
def prelu(args: Args, attrs: Attrs) -> Value:
    x, alpha = args
    shape = [1] * x.ndim
    axis = attrs["axis"] % x.ndim
    shape[axis] = x.shape[axis]
    return wrap(np.where(x > 0, x, x * alpha.reshape(shape)), x.dtype)


# float32 constants of TOPI's fast exponential
_HI, _LO = 88.3762626647950, -88.3762626647949
_LOG2E, _LN2 = 1.44269504088896341, 0.6931471805599453
_POLY = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1)


def fast_exp_f32(x: Any) -> Any:
    """TOPI's fast exp of a float32 array, in float32 arithmetic."""
    f32 = np.float32
    c = np.minimum(np.maximum(x, f32(_LO)), f32(_HI))
    n = np.floor(c * f32(_LOG2E) + f32(0.5))
    f = c - n * f32(_LN2)
    p = np.full_like(f, f32(_POLY[0]))
    for coef in _POLY[1:]:
        p = p * f + f32(coef)
    y = p * f * f + f + f32(1.0)
    bits = ((n.astype(np.int32) + np.int32(127)) << np.int32(23)).view(np.float32)
    return np.maximum(bits * y, x)


@register(
    "nn.fast_softmax",
    inputs=1,
    relation=softmax_rel,
    attrs=(Attr("axis", "int", -1),),
    doc="Softmax along axis, with TOPI's fast approximate exponential for float32.",
)
def fast_softmax(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    axis = attrs["axis"]
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = fast_exp_f32(shifted) if x.dtype == np.float32 else np.exp(shifted)
    return wrap(e / np.sum(e, axis=axis, keepdims=True, dtype=x.dtype), x.dtype)
