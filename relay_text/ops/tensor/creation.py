"""Creating tensors: `arange`, and `zeros`, `ones`, `full`, `full_like`
(tensors of a given shape filled with one value).

`arange`: evenly spaced values, `start, start + step, ...` below `stop`.

`arange(start, stop, step, dtype="float32")`: the three bounds are scalar
inputs (TVM passes them as expressions), so the length is known only when
the program runs and the result type is `Tensor[(?), dtype]`. The length
is `ceil((stop - start) / step)` (0 when that is negative); element `i` is
`start + i * step`. A zero step is an error when the program runs.

TVM's `ArangeAttrs` also hold the bounds (`start=0f, stop=10f, step=1f`,
as TVM printed them, or `meta[relay.Constant][i]`): when all three are
numbers the length is known, `ceil((stop - start) / step)` as an int32,
and must be positive, as TVM's relation requires.
"""

from __future__ import annotations

import math
from typing import Any

from ... import limits
from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from .._np import np
from ...ir.expr import MetaRef
from ..registry import Attr, KernelError, attr_kind, register
from ..relations import Relation, known_rank, relation, shape_text
from ..types import Args, Attrs, Value


def _bound(value: Any) -> Any:
    """A bound held in the attributes: a number, None, or a reference to a
    constant of the metadata section (kept as it is)."""
    if value is None or isinstance(value, MetaRef):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("not a bound")
    return value


BOUND = attr_kind("arange_bound", "a number, a `meta[relay.Constant][i]` reference or None", _bound)


@relation("Arange")
def arange_rel(r: Relation) -> bool:
    for i, name in enumerate(("start", "stop", "step")):
        t = r.tensor(i)
        if known_rank(t.shape) and t.shape != ():
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`arange` takes a scalar {name}, found a tensor of shape {shape_text(t.shape)}",
                arg=i,
            )
    bounds = [r.attrs[name] for name in ("start", "stop", "step")]
    if all(isinstance(b, (int, float)) for b in bounds):
        start, stop, step = bounds
        n = math.ceil((stop - start) / step) if step else 0
        if n <= 0:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`arange` with start={start}, stop={stop}, step={step} has no elements (TVM requires at least one)",
            )
        r.set_result(TensorType((n,), r.attrs["dtype"]))
        return True
    r.set_result(TensorType((AnyDim(),), r.attrs["dtype"]))
    return True


@register(
    "arange",
    inputs=3,
    relation=arange_rel,
    attrs=(
        Attr("start", BOUND, None),
        Attr("stop", BOUND, None),
        Attr("step", BOUND, None),
        Attr("dtype", "dtype", "float32"),
    ),
    doc="Values from start (inclusive) to stop (exclusive) in steps of step.",
)
def arange(args: Args, attrs: Attrs) -> Value:
    start, stop, step = (a.item() for a in args)
    if step == 0:
        raise KernelError(codes.RUNTIME_ERROR, "`arange` with a step of 0 never reaches its stop")
    n = max(0, math.ceil((stop - start) / step))
    dtype = np.dtype(attrs["dtype"])
    limits.check_allocation(n, max(dtype.itemsize, 8), "the result of `arange`")
    if dtype.kind in "iu":
        return (np.arange(n, dtype=np.int64) * int(step) + int(start)).astype(dtype)
    return (start + np.arange(n, dtype=np.float64) * step).astype(dtype)


# ---------------------------------------------------------------- filled tensors


def init_rel(r: Relation) -> bool:
    shape = tuple(r.attrs["shape"])
    if any(d < 0 for d in shape):
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}`: a shape cannot have negative sizes, found {list(shape)}")
    r.set_result(TensorType(shape, r.attrs["dtype"]))
    return True


_INIT_ATTRS = (Attr("shape", "ints"), Attr("dtype", "dtype", "float32"))


@register("zeros", inputs=0, relation=init_rel, attrs=_INIT_ATTRS, doc="A tensor of zeros.")
def zeros(args: Args, attrs: Attrs) -> Value:
    return np.zeros(tuple(attrs["shape"]), dtype=attrs["dtype"])


@register("ones", inputs=0, relation=init_rel, attrs=_INIT_ATTRS, doc="A tensor of ones.")
def ones(args: Args, attrs: Attrs) -> Value:
    return np.ones(tuple(attrs["shape"]), dtype=attrs["dtype"])


def full_rel(r: Relation) -> bool:
    fill = r.tensor(0)
    if any(d < 0 for d in r.attrs["shape"]):
        r.fail(codes.SHAPE_MISMATCH, f"`full`: a shape cannot have negative sizes, found {list(r.attrs['shape'])}")
    if known_rank(fill.shape) and fill.shape != ():
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`full` takes a scalar fill value, found a tensor of shape {shape_text(fill.shape)}",
            arg=0,
        )
    shape = tuple(r.attrs["shape"])
    dtype = r.attrs["dtype"] or fill.dtype
    r.set_result(TensorType(shape, dtype))
    return True


@register(
    "full",
    inputs=1,
    relation=full_rel,
    attrs=(Attr("shape", "ints"), Attr("dtype", "opt_dtype", "")),
    doc="A tensor filled with one value (dtype: the fill value's unless given).",
)
def full(args: Args, attrs: Attrs) -> Value:
    fill = args[0]
    dtype = attrs["dtype"] or fill.dtype
    return np.full(tuple(attrs["shape"]), fill, dtype=dtype)


def full_like_rel(r: Relation) -> bool:
    x = r.tensor(0)
    fill = r.tensor(1)
    if known_rank(fill.shape) and fill.shape != ():
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`full_like` takes a scalar fill value, found a tensor of shape {shape_text(fill.shape)}",
            arg=1,
        )
    r.set_result(x)
    return True


@register("full_like", inputs=2, relation=full_like_rel, doc="A tensor of the first input's type filled with a scalar.")
def full_like(args: Args, attrs: Attrs) -> Value:
    x, fill = args
    return np.full(x.shape, fill, dtype=x.dtype)
