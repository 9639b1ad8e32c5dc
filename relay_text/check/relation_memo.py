"""Remembered results of operator relations over known tensor types.

A model dump calls the same operators on the same shapes thousands of
times (a ResNet's hundred `nn.conv2d` of a few kinds, repeated per copy):
once a relation has given a result for known input tensors and attributes
without an error, another constraint of the same relation, inputs and
attributes whose result is still unknown gets that result at once.

Only what the relation can see takes part in the key: the relation, the
operator's name, the input types (tensors of known shape and dtype, without
a source span) and the attribute values with their Python types (`1`,
`1.0` and `True` differ). The result is kept only when it is as known as
the inputs (tensors or a tuple of them, no span), so that it carries
nothing of the call it came from.
"""

from __future__ import annotations

from typing import Any

from ..ir.ty import TensorType, TupleType
from .constraint import Constraint
from .types import Hole, find, resolve

_ATOMS = (int, float, str, bool, type(None))


def relation_key(c: Constraint) -> tuple[Any, ...] | None:
    """The key of `c` in the memo, or None when `c` cannot be remembered
    (an input not yet known, a result already partly known, an attribute
    value that is not plain data)."""
    if type(find(c.out)) is not Hole:
        return None
    args = []
    for a in c.args:
        t = resolve(a)
        if not known_tensor(t):
            return None
        args.append(t)
    attrs = []
    for name, value in c.attrs.items():
        frozen = _frozen(value)
        if frozen is None:
            return None
        attrs.append((name, frozen))
    return (c.fn, c.name, tuple(args), tuple(attrs))


def known_result(t: Any) -> bool:
    """Whether a relation's result can be given to another constraint as it is."""
    if type(t) is TupleType:
        return t.span is None and all(known_tensor(f) for f in t.fields)
    return known_tensor(t)


def known_tensor(t: Any) -> bool:
    """Whether `t` is a tensor type of known dtype and int dimensions, without
    a span: hashable, and equal to another only when it is the same type."""
    if type(t) is not TensorType or t.span is not None or type(t.dtype) is not str or type(t.shape) is not tuple:
        return False
    return all(type(d) is int for d in t.shape)


def _frozen(value: Any) -> tuple[Any, ...] | None:
    """`value` with its type, hashable, or None if it is not plain data."""
    cls = type(value)
    if cls in _ATOMS:
        return (cls, value)
    if cls is list or cls is tuple:
        parts = []
        for x in value:
            frozen = _frozen(x)
            if frozen is None:
                return None
            parts.append(frozen)
        return (cls, tuple(parts))
    return None
