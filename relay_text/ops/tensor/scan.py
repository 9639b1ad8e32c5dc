"""Running sums and products: cumsum and cumprod, as TVM defines them.

`cumsum(x, axis=None, dtype="", exclusive=False)`: element j along `axis`
is the sum of elements 0 ... j (with `exclusive=True`, of elements
0 ... j - 1, so the first is 0). Without an axis the tensor is read flat, in
row-major order, and the result is a vector of all its elements. `dtype`
names the result's type, which is also the type the additions are made in
(the input is converted first); empty means the input's own. `cumprod` is
the same with products (the exclusive first element is 1).

Integer results wrap around on overflow. A bool result behaves as an
unsigned integer of one bit: the running sum is the parity of the number of
True values seen, the running product is True while every value seen is.
"""

from __future__ import annotations

from typing import Any

from ...ir.ty import TensorType
from .._checks import dim_times
from .._np import np
from ..registry import Attr, register
from ..relations import Relation, known_rank, normalize_axis, relation
from ..types import Args, Attrs, Value

SCAN_ATTRS = (Attr("axis", "opt_int", None), Attr("dtype", "opt_dtype", ""), Attr("exclusive", "bool", False))


def _scan(r: Relation) -> bool:
    x = r.tensor(0)
    dtype = r.attrs["dtype"] or x.dtype
    axis = r.attrs["axis"]
    if not known_rank(x.shape):
        if axis is not None:
            r.set_result(TensorType(x.shape, dtype))
        return False
    if axis is not None:
        normalize_axis(r, axis, len(x.shape))
        r.set_result(TensorType(x.shape, dtype))
        return True
    count: Any = 1
    for d in x.shape:
        count = dim_times(count, d)
        if count is None:
            return False
    r.set_result(TensorType((count,), dtype))
    return True


@relation("Cumsum")
def cumsum_rel(r: Relation) -> bool:
    """The input's shape (a vector of all its elements without an axis), in `dtype`."""
    return _scan(r)


@relation("Cumprod")
def cumprod_rel(r: Relation) -> bool:
    """As `Cumsum`."""
    return _scan(r)


def _run(x: Any, attrs: Attrs, product: bool) -> Any:
    dtype = np.dtype(attrs["dtype"] or x.dtype)
    axis = attrs["axis"]
    if axis is None:
        x = x.reshape(-1)
        axis = 0
    axis %= x.ndim
    if x.dtype != dtype:
        with np.errstate(invalid="ignore", over="ignore"):
            x = x.astype(dtype)
    if dtype == np.bool_:
        ufunc = np.logical_and if product else np.logical_xor
        out = ufunc.accumulate(x, axis=axis) if x.shape[axis] else x.copy()
    elif product:
        out = np.cumprod(x, axis=axis, dtype=dtype)
    else:
        out = np.cumsum(x, axis=axis, dtype=dtype)
    if attrs["exclusive"] and x.shape[axis]:
        first = np.full_like(np.take(out, [0], axis=axis), 1 if product else 0)
        out = np.concatenate([first, np.take(out, np.arange(x.shape[axis] - 1), axis=axis)], axis=axis)
    return out


@register(
    "cumsum",
    inputs=1,
    relation=cumsum_rel,
    attrs=SCAN_ATTRS,
    doc="Running sums along an axis (or over the flattened tensor).",
)
def cumsum(args: Args, attrs: Attrs) -> Value:
    with np.errstate(over="ignore"):
        return _run(args[0], attrs, product=False)


@register(
    "cumprod",
    inputs=1,
    relation=cumprod_rel,
    attrs=SCAN_ATTRS,
    doc="Running products along an axis (or over the flattened tensor).",
)
def cumprod(args: Args, attrs: Attrs) -> Value:
    with np.errstate(over="ignore"):
        return _run(args[0], attrs, product=True)
