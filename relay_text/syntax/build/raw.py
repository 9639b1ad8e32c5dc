"""What the builder's callbacks pass each other before the IR is built.

Types are kept as raw syntax (`RawName`, `RawParen`, dimensions) until the
rule that consumes them knows whether a type, a shape, a dtype or a type
argument is meant; uses of shared nodes travel as `Use` (with where they
are written) and keyword arguments as `Kw`.
"""

from __future__ import annotations

import re
from typing import Any

from ...ir.expr import Expr
from ...ir.span import Span
from ...ir.ty import AnyDim
from ...limits import MAX_LITERAL_DIGITS
from ..literals import is_int_text

# A callback's children: tokens, IR nodes and the raw records below, one per
# symbol of the grammar rule, of whatever kind that symbol builds.
Children = list[Any]

DIGITS = re.compile(r"[0-9]+")
_NUMBER = re.compile(r"[0-9][0-9A-Za-z.+-]*|(?:inf|nan)f[0-9]*")
SIGNED_NUMBER = re.compile(r"(-*)(" + _NUMBER.pattern + ")")


class RawName:
    """A bare name in type position: a dtype, type parameter or ADT."""

    __slots__ = ("name", "span")

    def __init__(self, name: str, span: Span) -> None:
        self.name = name
        self.span = span


class RawParen:
    """`( ... )` in type position: unit, tuple type, parenthesised type or shape."""

    __slots__ = ("items", "span", "trailing_comma")

    def __init__(self, items: list[Any], trailing_comma: bool, span: Span) -> None:
        self.items = items
        self.trailing_comma = trailing_comma
        self.span = span


class RawDimOp:
    """`d1 * d2` (or `+`, `-`) in a shape, its operands still raw."""

    __slots__ = ("lhs", "op", "rhs", "span")

    def __init__(self, op: str, lhs: Any, rhs: Any, span: Span) -> None:
        self.op, self.lhs, self.rhs, self.span = op, lhs, rhs, span


class IntDim:
    """An integer in a shape."""

    __slots__ = ("span", "value")

    def __init__(self, value: int, span: Span) -> None:
        self.value, self.span = value, span


RAW_DIMS = (IntDim, RawDimOp, AnyDim)


class Use:
    """A use of a shared node (a variable, global or constructor) and where it is written.

    Variables are shared by all their uses, so their own span is the binding
    site; the builder passes uses around in this wrapper until a node is
    built from them, and `unwrap` unwraps.
    """

    __slots__ = ("bracketed", "content", "end", "inner", "name", "node", "pair", "start")

    def __init__(
        self,
        node: Expr,
        start: int,
        end: int,
        inner: tuple[int, int] | None = None,
        name: tuple[int, int] | None = None,
        bracketed: bool = False,
        pair: tuple[int, int] | None = None,
        content: int = -1,
    ) -> None:
        self.node, self.start, self.end = node, start, end
        self.inner = inner  # for a `{ ... }` block: where its result expression is written
        self.name = name  # the name token of a shared node, inside any brackets
        self.bracketed = bracketed  # written as `( ... )` or `{ ... }`
        self.pair = pair  # `( { ... } )`, `((...))`: the inner pair of brackets
        self.content = content  # in brackets: where the first token inside them is


def unwrap(x: Any) -> Any:
    """The node of a `Use`, anything else as it is."""
    return x.node if type(x) is Use else x


NONE_ATTR = object()  # `None` written as an attribute value, until it is stored


class StrArg:
    """A string written as a positional call argument."""

    __slots__ = ("span", "value")

    def __init__(self, value: str, span: Span) -> None:
        self.value = value
        self.span = span


# Operators whose second positional argument v0.0.4 read as a string attribute
# (its parser called TVM's Python constructors, `relay.cast(data, dtype)`).
POSITIONAL_STRING_ATTRS = {"cast": "dtype"}


class Kw:
    """A keyword argument `key=value` in a call or parameter list."""

    __slots__ = ("key", "span", "spellings", "value")

    def __init__(self, key: str, value: Any, span: Span, spellings: list[tuple[str, Any]] | None = None) -> None:
        self.key, self.value, self.span = key, value, span
        self.spellings = spellings  # the numbers of the value as written, if one differs from its printed form


def is_float_literal(text: str) -> bool:
    return not is_int_text(text)


def int_value(text: str) -> int:
    m = DIGITS.match(text)
    if m is None or len(m.group(0)) > MAX_LITERAL_DIGITS:
        return 0  # (too long: reported by `_int_checked` or `parse_int`)
    return int(m.group(0))


def comma_before(text: str, pos: int) -> bool:
    """Whether the last character before `pos`, blanks aside, is a comma."""
    return text[:pos].rstrip().endswith(",")


def unquote(text: str) -> str:
    body = text[1:-1]
    if "\\" not in body:
        return body
    return body.encode("latin-1", "backslashreplace").decode("unicode_escape")
