"""Expressions.

Expressions have identity: the parsed program is a DAG in which a graph
binding (`%1 = add(%a, %b)`) makes every use of `%1` the same node. Nodes
hash and compare by identity; `relay_text.ir.alpha.alpha_equal` compares
structure. Nodes are slotted dataclasses and are never mutated once built
(passes build new nodes); they are not `frozen` only because a frozen
dataclass costs four times as much to construct, which the parser feels at
10^5 bindings.

A `Var` object is both the binding occurrence and every use of it. Spans are
excluded from comparison and may be None for nodes built by passes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias, Union
from collections.abc import Mapping

from .span import Span
from .ty import GlobalTypeVar, Type, TypeVar

if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes, for less at import (see relay_text/record.py)
    from ..record import dataclass, field

if TYPE_CHECKING:
    from .pattern import Pattern


class Expr:
    """Base class of every expression; `str()` gives its text."""

    __slots__ = ()
    span: Span | None  # (every node class has this field: where its text is, when read from text)

    def __str__(self) -> str:
        from ..printer.render import print_expr

        return print_expr(self)


@dataclass(eq=False, slots=True)
class Var(Expr):
    """A local variable (`%x`); `name` is empty for the binder of `e1; e2`.

    `attrs` are the attributes TVM writes in braces after a parameter's name
    (`%x {virtual_device=meta[VirtualDevice][0]}`), in source order."""

    name: str
    type_annotation: Type | None = None
    span: Span | None = field(default=None, repr=False)
    attrs: tuple[tuple[str, AttrValue], ...] = ()


@dataclass(eq=False, slots=True)
class GlobalVar(Expr):
    """A global name (`@f`): one object per name in a module."""

    name: str
    span: Span | None = field(default=None, repr=False)


Scalar: TypeAlias = bool | int | float


@dataclass(eq=False, slots=True)
class Constant(Expr):
    """A tensor constant.

    A literal is a scalar (`shape == ()`); `Constant(v, (2, 2), float32)`
    fills a shape with one value; `meta[relay.Constant][i]` refers to entry
    `i` of the module's metadata table and has `value is None`. Float values
    are stored already rounded to their dtype.
    """

    value: Scalar | None
    dtype: str | None  # None: a metadata constant whose type is not yet known
    shape: tuple[int, ...] | None = ()
    meta_index: int | None = None
    span: Span | None = field(default=None, repr=False)
    # The type TVM wrote in a `/* ty=... */` comment right after a metadata
    # constant (its comment stays a comment; this is what it says).
    type_annotation: Type | None = field(default=None, repr=False)

    @property
    def is_scalar(self) -> bool:
        return self.meta_index is None and self.shape == ()


@dataclass(eq=False, slots=True)
class Tuple(Expr):
    """A tuple `(a, b)`; `(a,)` has one field and `()` none."""

    fields: tuple[Expr, ...]
    span: Span | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class TupleGetItem(Expr):
    """Projection `e.index`."""

    tuple_value: Expr
    index: int
    span: Span | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class Let(Expr):
    """`let %var = value; body`."""

    var: Var
    value: Expr
    body: Expr
    span: Span | None = field(default=None, repr=False)


# A tuple value holds AttrValues; it stays tuple[Any, ...] while readers index it unnarrowed.
AttrValue = Union[None, bool, int, float, str, tuple[Any, ...], "MetaRef", "InvalidAttr"]
# A node's attributes as written: (name, value) pairs in text order.
AttrPairs: TypeAlias = tuple[tuple[str, AttrValue], ...]


class InvalidAttr:
    """An attribute value the reader could not take (`axis=foo`, an integer
    out of range). Its error is already reported, so the call's own checks
    are skipped rather than reporting the same mistake again."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "INVALID_ATTR"


INVALID_ATTR = InvalidAttr()


def has_invalid_attr(value: object) -> bool:
    """Whether an attribute value is, or holds, INVALID_ATTR."""
    stack = [value]
    while stack:
        v = stack.pop()
        if v is INVALID_ATTR:
            return True
        if type(v) is tuple:
            stack.extend(v)
    return False


@dataclass(frozen=True, slots=True)
class MetaRef:
    """`meta[kind][index]` used as an attribute value."""

    kind: str
    index: int


def int_attr(attrs: Mapping[str, AttrValue], key: str, default: int) -> int | None:
    """The integer attribute `key` (`default` where it is absent), or None
    where it holds something else."""
    value = attrs.get(key, default)
    return value if isinstance(value, int) else None


def str_attr(attrs: Mapping[str, AttrValue], key: str, default: str) -> str | None:
    """The string attribute `key` (`default` where it is absent), or None
    where it holds something else."""
    value = attrs.get(key, default)
    return value if isinstance(value, str) else None


@dataclass(eq=False, slots=True)
class Function(Expr):
    """`fn<type_params>(params) -> ret_type where relations { body }`.

    `relations` are the names written after `where`; each constrains the
    parameter types and the return type. `attrs` are keyword attributes
    written in the parameter list (`Primitive=1`), in source order.
    """

    params: tuple[Var, ...]
    body: Expr
    ret_type: Type | None = None
    type_params: tuple[TypeVar, ...] = ()
    relations: tuple[RelationRef, ...] = ()
    attrs: tuple[tuple[str, AttrValue], ...] = ()
    span: Span | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class RelationRef:
    """A relation named in a `where` clause."""

    name: str
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(eq=False, slots=True)
class Call(Expr):
    """`op<type_args>(args, key=value, ...)`.

    `infix` remembers that the call was written with an operator symbol
    (`+`, `==`, unary `-`, ...) so that the formatter can keep that spelling;
    like spans, it does not take part in comparison.

    `attrs_ref` is set when the attributes were written as a reference into
    the `#[metadata]` section (`nn.dense(%x, %w, meta[relay.attrs.DenseAttrs][0])`,
    as older TVM printers wrote them); `attrs` then holds what that entry
    decodes to, or nothing when the file has no such section.
    """

    op: Expr
    args: tuple[Expr, ...]
    attrs: tuple[tuple[str, AttrValue], ...] = ()
    type_args: tuple[Type, ...] = ()
    span: Span | None = field(default=None, repr=False)
    infix: str | None = field(default=None, repr=False)
    attrs_ref: MetaRef | None = None


@dataclass(eq=False, slots=True)
class If(Expr):
    """`if (cond) { then_branch } else { else_branch }`."""

    cond: Expr
    then_branch: Expr
    else_branch: Expr
    span: Span | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class Clause:
    """One arm of a match: a pattern and the expression it guards."""

    pattern: Pattern
    body: Expr
    span: Span | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class Match(Expr):
    """`match (data) { clauses }`; `complete` is False for `match?`."""

    data: Expr
    clauses: tuple[Clause, ...]
    complete: bool = True
    span: Span | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class Op(Expr):
    """A primitive operator named without a sigil: `add`, `nn.conv2d`."""

    name: str
    span: Span | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class Constructor(Expr):
    """An ADT constructor; one object per definition, shared by every use.

    `inputs` are the field types; `belong_to` is the ADT; `tag` is the index
    of the constructor within its definition.
    """

    name: str
    inputs: tuple[Type, ...] = ()
    belong_to: GlobalTypeVar | None = None
    tag: int = 0
    span: Span | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class RefCreate(Expr):
    """`ref(value)`: a new mutable cell."""

    value: Expr
    span: Span | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class RefRead(Expr):
    """`ref_read(ref)`."""

    ref: Expr
    span: Span | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class RefWrite(Expr):
    """`ref_write(ref, value)`; evaluates to `()`."""

    ref: Expr
    value: Expr
    span: Span | None = field(default=None, repr=False)
