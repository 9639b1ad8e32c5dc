"""Sequences and optional values.

A sequence of tensors is a Relay tuple, of a length known at import time
(as in TVM's importer): positions given to `SequenceAt`, `SequenceInsert`
and `SequenceErase` must be known too. An optional value is known at
import time to hold a value or not (`OptionalHasElement` is then a
constant); one that holds a value is that value.
"""

from __future__ import annotations

import numpy as np

from ...ir.expr import Expr
from ...ir.ty import TupleType
from ..builder import Builder, Unsupported
from ._common import norm_axis
from .graph import Ctx, OptionalNone
from .node import Node
from .table import Converted, converter


def _seq(b: Builder, x: Expr, what: str = "the sequence") -> list[Expr]:
    if x is None or not isinstance(b.type_of(x), TupleType):
        raise Unsupported(f"{what} must be a sequence")
    return b.items(x)


def _position(b: Builder, n: Node, i: int, length: int, insert: bool = False) -> int:
    if not n.has(i):
        return length if insert else length - 1
    v = b.value(n.input(i))
    if v is None:
        raise Unsupported("the position in a sequence must be known when the model is imported")
    p = int(np.asarray(v).reshape(-1)[0])
    # an insertion may also be at the end (position `length`); a negative
    # position counts from the end: -1 is before the last tensor
    if not -length <= p < (length + 1 if insert else length):
        raise Unsupported(f"position {p} is outside a sequence of {length} tensors")
    return p + length if p < 0 else p


@converter("SequenceConstruct", since=11)
def sequence_construct(cx: Ctx, n: Node) -> Converted:
    return cx.b.tuple([x for x in n.inputs if x is not None])


@converter("SequenceEmpty", since=11)
def sequence_empty(cx: Ctx, n: Node) -> Converted:
    n.ignore("dtype")
    return cx.b.tuple([])


@converter("SequenceLength", since=11)
def sequence_length(cx: Ctx, n: Node) -> Converted:
    return cx.b.const(np.array(len(_seq(cx.b, n.input(0))), dtype=np.int64))


@converter("SequenceAt", since=11)
def sequence_at(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    items = _seq(b, n.input(0))
    return items[_position(b, n, 1, len(items))]


@converter("SequenceInsert", since=11)
def sequence_insert(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    items = _seq(b, n.input(0))
    items.insert(_position(b, n, 2, len(items), insert=True), n.input(1))
    return b.tuple(items)


@converter("SequenceErase", since=11)
def sequence_erase(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    items = _seq(b, n.input(0))
    del items[_position(b, n, 1, len(items))]
    return b.tuple(items)


@converter("ConcatFromSequence", since=11)
def concat_from_sequence(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    items = _seq(b, n.input(0))
    if not items:
        raise Unsupported("concatenating an empty sequence is not supported")
    new_axis = n.attr("new_axis", 0)
    rank = b.rank(items[0]) + (1 if new_axis else 0)
    axis = norm_axis(n.require("axis"), rank)
    op = "stack" if new_axis else "concatenate"
    return b.call(op, b.tuple(items), axis=axis)


@converter("SplitToSequence", since=11)
def split_to_sequence(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x = n.input(0)
    axis = norm_axis(n.attr("axis", 0), b.rank(x))
    keepdims = n.attr("keepdims", 1)
    size = b.static_shape(x)[axis]
    split = n.input(1)
    if split is None:
        parts = b.items(b.call("split", x, indices_or_sections=size, axis=axis)) if size > 1 else [x]
        if not keepdims:
            parts = [b.call("squeeze", p, axis=[axis]) for p in parts]
        return b.tuple(parts)
    v = b.value(split)
    if v is None:
        raise Unsupported("the split sizes must be known when the model is imported")
    v = np.asarray(v)
    if v.ndim == 0:
        chunk = int(v)
        sizes = [chunk] * (size // chunk) + ([size % chunk] if size % chunk else [])
    else:
        sizes = [int(s) for s in v.reshape(-1)]
    points = list(np.cumsum(sizes)[:-1])
    parts = (
        b.items(b.call("split", x, indices_or_sections=[int(p) for p in points], axis=axis)) if len(sizes) > 1 else [x]
    )
    return b.tuple(parts)


# ---------------------------------------------------------------- optional values


@converter("Optional", since=15)
def optional(cx: Ctx, n: Node) -> Converted:
    x = n.input(0)
    if x is None:
        return OptionalNone(n.attr("type", None))
    n.ignore("type")
    value: Expr = x
    return value


@converter("OptionalHasElement", since=15)
def optional_has_element(cx: Ctx, n: Node) -> Converted:
    x = n.input(0)
    return cx.b.const(np.array(x is not None and not isinstance(x, OptionalNone)))


@converter("OptionalGetElement", since=15)
def optional_get_element(cx: Ctx, n: Node) -> Converted:
    x = n.input(0)
    if x is None or isinstance(x, OptionalNone):
        raise Unsupported("`OptionalGetElement` of an empty optional value")
    value: Expr = x
    return value
