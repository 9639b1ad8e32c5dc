"""Bitwise operators and reinterpretation of bits.

`bitwise_and`, `bitwise_or`, `bitwise_xor` (two tensors, broadcasting like
numpy, one dtype), `bitwise_not` (one tensor), `left_shift`, `right_shift`
(two tensors, broadcasting). TVM's relations (`Broadcast`, `Identity`)
accept any dtype, but its lowering (src/tir/op/op.cc) refuses anything but
integers and bool (a 1-bit unsigned integer); this checker reports that
when the types are checked instead of when the program is compiled.

Shifts work in the operands' dtype: `left_shift` drops the bits shifted
out (a signed value wraps around), `right_shift` copies the sign bit into
a signed value (arithmetic shift) and shifts zeros into an unsigned one. A
shift amount must be at least 0 and less than the width of the dtype (TVM
checks this of constant amounts, and leaves others undefined, as C does):
here any other amount is an error when the program runs. On bool, whose
width is 1, only a shift by 0 (False) is allowed.

`reinterpret(x, dtype=...)` keeps the bits of every element and reads them
as `dtype`, which must have the same width (TVM: a bitcast needs equal
sizes; bool counts as 1 bit, as in TVM).
"""

from __future__ import annotations

import re
from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType, split_lanes
from .._np import np, wrap
from ..registry import Attr, KernelError, register
from ..relations import Relation, broadcast, identity, relation
from .shapes import numpy_dtype
from ..types import Args, Attrs, Value


def _require_integer(r: Relation, i: int) -> None:
    d = r.tensor(i).dtype
    if isinstance(d, str) and not (d == "bool" or d.startswith(("int", "uint"))):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` takes integer or bool tensors, found `{d}`",
            arg=i,
            label=f"this is `{d}`",
            notes=[
                "TVM lowers bitwise operations on integers only; for a float's bits use `reinterpret(x, "
                'dtype="int32")`'
            ],
        )


@relation("Broadcast", inputs=2)
def integer_broadcast(r: Relation) -> bool:
    """`Broadcast` for bitwise operators: two integer (or bool) tensors of one dtype."""
    _require_integer(r, 0)
    _require_integer(r, 1)
    return broadcast(r)


@relation("Identity", inputs=1)
def integer_identity(r: Relation) -> bool:
    """An integer (or bool) tensor; the result has its type."""
    _require_integer(r, 0)
    return identity(r)


def _binary(name: str, fn_name: str, doc: str) -> None:
    def kernel(args: Args, attrs: Attrs) -> Value:
        a, b = args
        return wrap(getattr(np, fn_name)(a, b), a.dtype)

    kernel.__name__ = name
    register(name, inputs=2, relation=integer_broadcast, doc=doc)(kernel)


_binary("bitwise_and", "bitwise_and", "Elementwise bitwise and of two integer tensors.")
_binary("bitwise_or", "bitwise_or", "Elementwise bitwise or of two integer tensors.")
_binary("bitwise_xor", "bitwise_xor", "Elementwise bitwise exclusive or of two integer tensors.")


@register(
    "bitwise_not", inputs=1, relation=integer_identity, doc="Elementwise bitwise complement of an integer tensor."
)
def bitwise_not(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    return wrap(np.invert(x), x.dtype)


def _width(dtype: Any) -> int:
    return 1 if dtype == np.bool_ else dtype.itemsize * 8


def _shift_amounts(name: str, a: Any, b: Any) -> None:
    width = _width(a.dtype)
    bad = (b < 0) | (b >= width) if b.dtype != np.bool_ else b
    if np.any(bad):
        amount = b[bad].flat[0]
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"`{name}` by {int(amount)}: a shift amount must be at least 0 and less than {width}, the width of "
            f"{a.dtype}",
        )


def _shift(name: str, fn_name: str, doc: str) -> None:
    def kernel(args: Args, attrs: Attrs) -> Value:
        a, b = args
        _shift_amounts(name, a, b)
        if a.dtype == np.bool_:  # shifted by 0
            return np.array(np.broadcast_arrays(a, b)[0], copy=True)
        return wrap(getattr(np, fn_name)(a, b), a.dtype)

    kernel.__name__ = name
    register(name, inputs=2, relation=integer_broadcast, doc=doc)(kernel)


_shift("left_shift", "left_shift", "Elementwise a << b; bits shifted out are dropped.")
_shift("right_shift", "right_shift", "Elementwise a >> b; arithmetic for signed dtypes, logical for unsigned.")


# ---------------------------------------------------------------- reinterpret


def _bits(dtype: str) -> int:
    base, lanes = split_lanes(dtype)
    if base == "bool":
        return lanes
    width = re.search(r"[0-9]+$", base)
    assert width is not None, dtype  # every dtype name but bool ends in its width
    return int(width.group()) * lanes


@relation("Reinterpret")
def reinterpret_rel(r: Relation) -> bool:
    x = r.tensor(0)
    dtype = r.attrs["dtype"]
    if isinstance(x.dtype, str) and _bits(x.dtype) != _bits(dtype):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`reinterpret` keeps the bits of each element: `{x.dtype}` has {_bits(x.dtype)}, `{dtype}` has "
            f"{_bits(dtype)}",
            arg=0,
            label=f"this is `{x.dtype}`",
            notes=["reinterpret between dtypes of one width, or convert the values with `cast`"],
        )
    r.set_result(TensorType(x.shape, dtype))
    return True


@register(
    "reinterpret",
    inputs=1,
    relation=reinterpret_rel,
    attrs=(Attr("dtype", "dtype"),),
    doc="The bits of every element read as another dtype of the same width.",
)
def reinterpret(args: Args, attrs: Attrs) -> Value:
    return np.array(args[0], copy=True).view(numpy_dtype("reinterpret", attrs["dtype"]))
