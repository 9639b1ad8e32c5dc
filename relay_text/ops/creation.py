"""`arange`: evenly spaced values, `start, start + step, ...` below `stop`.

`arange(start, stop, step, dtype="float32")`: the three bounds are scalar
inputs (TVM passes them as expressions), so the length is known only when
the program runs and the result type is `Tensor[(?), dtype]`. The length
is `ceil((stop - start) / step)` (0 when that is negative); element `i` is
`start + i * step`. A zero step is an error when the program runs.
"""

from __future__ import annotations

import math
from typing import Any

from .. import limits
from ..diagnostics import codes
from ..ir.ty import AnyDim, TensorType
from ._np import np
from .registry import Attr, KernelError, register
from .relations import Relation, known_rank, relation, shape_text


@relation("Arange")
def arange_rel(r: Relation) -> bool:
    for i, name in enumerate(("start", "stop", "step")):
        t = r.tensor(i)
        if known_rank(t.shape) and t.shape != ():
            r.fail(codes.SHAPE_MISMATCH, f"`arange` takes a scalar {name}, found a tensor of shape {shape_text(t.shape)}", arg=i)
    r.set_result(TensorType((AnyDim(),), r.attrs["dtype"]))
    return True


@register(
    "arange",
    inputs=3,
    relation=arange_rel,
    attrs=(Attr("dtype", "dtype", "float32"),),
    doc="Values from start (inclusive) to stop (exclusive) in steps of step.",
)
def arange(args: tuple, attrs: dict) -> Any:
    start, stop, step = (a.item() for a in args)
    if step == 0:
        raise KernelError(codes.RUNTIME_ERROR, "`arange` with a step of 0 never reaches its stop")
    n = max(0, math.ceil((stop - start) / step))
    dtype = np.dtype(attrs["dtype"])
    limits.check_allocation(n, max(dtype.itemsize, 8), "the result of `arange`")
    if dtype.kind in "iu":
        return (np.arange(n, dtype=np.int64) * int(step) + int(start)).astype(dtype)
    return (start + np.arange(n, dtype=np.float64) * step).astype(dtype)
