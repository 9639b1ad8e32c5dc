"""Remembered results of operator relations over known tensor types.

A model dump calls the same operators on the same shapes thousands of
times (a ResNet's hundred `nn.conv2d` of a few kinds, repeated per copy):
once a relation has given a result for known inputs and attributes without
an error, another call of the same relation, inputs and attributes whose
result is still unknown gets that result at once, without running it.

Only what the relation can see takes part in the key: the relation, the
operator's name, the attribute values with their Python types (`1`, `1.0`
and `True` differ) and each input, which is one of

- a tensor type of known shape and dtype, or a tuple of them: by value,
  and with the source spans it carries (a relation may hand an input on
  as its result, and a written type keeps the place it was written);
- an unknown that nothing waits on yet (the type of a constant lacking
  metadata, say), by its kind and the kind of its origin (a relation may
  ask whether it comes from such a constant), each such unknown once: the
  relation's refinement of it is remembered with the result.

A result is kept only when it and every refined input are as known as a
tensor without a span (tensors or a tuple of them), so that it carries
nothing of the call it came from. Giving it to another call binds that
call's unknown inputs and its result as the relation would have; none of
them has a waiting relation to wake but the result, which is bound last,
as the relation's own `set_result` would.
"""

from __future__ import annotations

from typing import Any

from ..ir.ty import TensorType, TupleType
from .types import Hole, find, resolve
from .types import static_tensor as _static

_ATOMS = (int, float, str, bool, type(None))

# What the memo keeps for a key: the result, and (input position, type)
# for each unknown input the relation refined.
Remembered = tuple[Any, tuple[tuple[int, Any], ...]]


def relation_key(
    fn: Any, name: str, args: list[Any], attrs: dict[str, Any], frozen: tuple[Any, ...] | None = None
) -> tuple[Any, ...] | None:
    """The key of a relation over `args` and `attrs` in the memo, or None
    when it cannot be remembered (an input partly known, or an unknown
    something already waits on; an attribute value that is not plain data).
    `frozen` is `frozen_attrs(attrs)` when the caller has it."""
    parts: list[Any] = []
    unknowns: list[int] | None = None
    for a in args:
        t = find(a) if type(a) is Hole else a
        if type(t) is Hole:
            if t.triggers:
                return None
            if unknowns is None:
                unknowns = [t.uid]
            elif t.uid in unknowns:
                return None
            else:
                unknowns.append(t.uid)
            parts.append(("?", t.kind, getattr(t.origin, "kind", None)))
            continue
        part = _known_part(t)
        if part is None:
            return None
        parts.append(part)
    if frozen is None:
        frozen = frozen_attrs(attrs)
        if frozen is None:
            return None
    return (fn, name, tuple(parts), frozen)


def frozen_attrs(attrs: Any) -> tuple[Any, ...] | None:
    """Attributes (a dict, or the (key, value) pairs of a call) as a key:
    each value with its Python type, or None if one is not plain data."""
    out = []
    for key, value in attrs.items() if isinstance(attrs, dict) else attrs:
        f = _frozen(value)
        if f is None:
            return None
        out.append((key, f))
    return tuple(out)


def unknown_inputs(args: list[Any]) -> list[int]:
    """The positions of the inputs that are still unknowns (see `relation_key`)."""
    return [i for i, a in enumerate(args) if type(find(a)) is Hole]


def remembered(args: list[Any], out: Any, unknowns: list[int]) -> Remembered | None:
    """What to keep of a relation that succeeded: its result and the types
    it gave the inputs at `unknowns`, or None if any is not fully known."""
    result = resolve(out)
    if not known_result(result):
        return None
    refined = []
    for i in unknowns:
        t = resolve(args[i])
        if not known_result(t):
            return None
        refined.append((i, t))
    return result, tuple(refined)


def known_result(t: Any) -> bool:
    """Whether a relation's result can be given to another constraint as it is."""
    if type(t) is TupleType:
        return t.span is None and all(known_tensor(f) for f in t.fields)
    return known_tensor(t)


def known_tensor(t: Any) -> bool:
    """Whether `t` is a tensor type of known dtype and int dimensions, without
    a span: hashable, and equal to another only when it is the same type."""
    return type(t) is TensorType and t.span is None and _static(t)


def _known_part(t: Any) -> Any:
    """A known input as a key part: the type, with the spans it carries when it has any."""
    cls = type(t)
    if cls is TensorType:
        if not _static(t):
            if _unknown(t.dtype) or _unknown(t.shape):
                return None  # (no need to resolve it to know)
            t = resolve(t)
            if not _static(t):
                return None
        return t if t.span is None else (t, t.span)
    if cls is TupleType:
        t = resolve(t)
        spans = [t.span]
        for f in t.fields:
            if type(f) is not TensorType or not _static(f):
                return None
            spans.append(f.span)
        return (t, tuple(spans)) if any(s is not None for s in spans) else t
    return None


def _unknown(part: Any) -> bool:
    """Whether a shape or dtype is an unknown not yet solved."""
    return type(part) is Hole and type(find(part)) is Hole


def _frozen(value: Any) -> tuple[Any, ...] | None:
    """`value` with its type, hashable, or None if it is not plain data."""
    cls = type(value)
    if cls is float:
        return (cls, value.hex())  # (-0.0 and 0.0 are equal, and hash alike)
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
