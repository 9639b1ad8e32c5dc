"""Computing operator calls at compile time, as `relay run` computes them.

`FoldConstant` (run by `relay opt`) calls an operator's kernel from the
registry with the call's attributes, its defaults filled in. float16 and
bfloat16 follow the evaluator's rule: an operator computes in float32 and
rounds each low-precision result once, unless its `keeps_low_precision`
property says it runs on such tensors as they are. A call that fails (a
value-dependent error, a dtype numpy has no counterpart of) is not
computed: it fails, located, when the program runs.
"""

from __future__ import annotations

from typing import Any

from ..ir.expr import AttrPairs
from ..ir.ty import TensorType, TupleType

LOW_PRECISION = ("float16", "bfloat16")


def numpy_dtype(name: str) -> Any:
    """numpy's dtype for a Relay dtype, or None where numpy has none."""
    from ..ops.registry import KernelError
    from ..ops.tensor.shapes import numpy_dtype as dtype_of

    try:
        return dtype_of("constant", name)
    except KernelError:
        return None


def evaluate(name: str, attrs: AttrPairs, args: list[Any], result_type: Any) -> Any:
    """The value of `name(*args, **attrs)`, or None when it cannot be computed
    here; `result_type` is the call's type (for rounding float16 results)."""
    import numpy as np

    from ..ops import registry

    op = registry.get(name)
    if op is None:
        return None
    filled, errors = op.normalize_attrs(attrs)
    if errors:
        return None
    widen = not registry.properties(name).keeps_low_precision and any(_low(a) for a in args)
    if widen:
        args = [_float32(a) for a in args]
    try:
        with np.errstate(all="ignore"):
            out = op.kernel(tuple(args), filled)
    except Exception:
        return None
    if widen:
        out = _round(out, result_type)
    return out if _plain(out) else None


def _low(value: Any) -> bool:
    if type(value) is tuple:
        return any(_low(v) for v in value)
    dtype = getattr(value, "dtype", None)
    return dtype is not None and dtype.name in LOW_PRECISION


def _float32(value: Any) -> Any:
    import numpy as np

    if type(value) is tuple:
        return tuple(_float32(v) for v in value)
    if getattr(value, "dtype", None) is not None and value.dtype.name in LOW_PRECISION:
        return np.asarray(value).astype(np.float32)
    return value


def _round(value: Any, ty: Any) -> Any:
    if isinstance(ty, TupleType) and type(value) is tuple:
        return tuple(_round(v, t) for v, t in zip(value, ty.fields, strict=False))
    if isinstance(ty, TensorType) and ty.dtype in LOW_PRECISION and getattr(value, "dtype", None) is not None:
        dtype = numpy_dtype(str(ty.dtype))
        if dtype is not None and value.dtype != dtype:
            return value.astype(dtype)
    return value


def _plain(value: Any) -> bool:
    import numpy as np

    if type(value) is tuple:
        return all(_plain(v) for v in value)
    return isinstance(value, (np.ndarray, np.generic))
