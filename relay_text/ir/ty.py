"""Types: tensors with shapes, tuples, functions, type variables, ADT calls.

Shallow values such as tensor, tuple and function types are frozen
dataclasses with structural equality. Variables (`TypeVar`, `GlobalTypeVar`,
`IncompleteType`) are identities: each binding site or hole is its own
object, so two type parameters called `a` in different functions differ.

A tensor type's shape is a tuple of dimensions, or a variable of kind
`Shape` standing for a whole shape; a dimension is an int, a variable of
kind `ShapeVar`, the unknown dimension `?` (`AnyDim`), or simple arithmetic
(`DimBinOp`). Its dtype is a name such as `float32` or `int32x4`, or a
variable of kind `BaseType`.
"""

from __future__ import annotations

import functools
import re
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeAlias

from .span import Span

if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes, for less at import (see relay_text/record.py)
    from ..record import dataclass, field


class Kind(Enum):
    """What a type parameter may stand for."""

    TYPE = "Type"  # any type: tensors, tuples, functions, ADTs
    BASE_TYPE = "BaseType"  # a dtype such as float32
    SHAPE = "Shape"  # a whole shape such as (10, 10)
    SHAPE_VAR = "ShapeVar"  # one dimension of a shape

    def __str__(self) -> str:
        return self.value


class Type:
    """Base class of every type; `str()` gives its text."""

    __slots__ = ()

    def __str__(self) -> str:
        from ..text.type_text import type_text

        return type_text(self)


@dataclass(eq=False, slots=True)
class TypeVar(Type):
    """A type parameter, bound by a function or an ADT definition."""

    name: str
    kind: Kind = Kind.TYPE
    span: Span | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class GlobalTypeVar(Type):
    """The name of an ADT definition: one object per definition."""

    name: str
    kind: Kind = Kind.TYPE
    span: Span | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class IncompleteType(Type):
    """A hole to be filled by inference (`_` in source)."""

    kind: Kind = Kind.TYPE
    span: Span | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class AnyDim:
    """The dimension `?`: some size not known statically."""

    span: Span | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return "?"


@dataclass(frozen=True, slots=True)
class DimBinOp:
    """Arithmetic on dimensions: `n + 1`, `2 * n`, `n - 1`."""

    op: str  # one of "+", "-", "*"
    lhs: Dim
    rhs: Dim
    span: Span | None = field(default=None, compare=False, repr=False)


Dim: TypeAlias = int | TypeVar | AnyDim | DimBinOp | IncompleteType
# The dimensions (each a Dim), or a Shape variable. The tuple's items stay Any while
# code outside relay_text/ir still does arithmetic on dimensions it has not narrowed.
Shape: TypeAlias = tuple[Any, ...] | TypeVar | IncompleteType
DType: TypeAlias = str | TypeVar | IncompleteType


@dataclass(frozen=True, slots=True)
class TensorType(Type):
    """`Tensor[shape, dtype]`; a scalar has the empty shape."""

    shape: Shape
    dtype: DType
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class TupleType(Type):
    """The type of a tuple, `(Tensor[(2), float32], int32)`; `()` is the unit type."""

    fields: tuple[Type, ...]
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class TypeRelation:
    """A relation constraint such as `Broadcast` over some types."""

    name: str
    args: tuple[Type, ...]
    num_inputs: int
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class FuncType(Type):
    """`fn<type_params>(arg_types) -> ret_type where constraints`."""

    arg_types: tuple[Type, ...]
    ret_type: Type
    type_params: tuple[TypeVar, ...] = ()
    type_constraints: tuple[TypeRelation, ...] = ()
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class TypeCall(Type):
    """An ADT applied to type arguments: `List[a]`, `Numbers[]`."""

    func: GlobalTypeVar | TypeVar
    args: tuple[Type, ...]
    span: Span | None = field(default=None, compare=False, repr=False)


def scalar_type(dtype: str) -> TensorType:
    """`Tensor[(), dtype]`."""
    return TensorType((), dtype)


BOOL = scalar_type("bool")
INT32 = scalar_type("int32")
FLOAT32 = scalar_type("float32")
UNIT = TupleType(())


# TVM's spellings of element types (its `String2DLDataType`): a type code,
# optional bits, optional `xN` lanes. Bare `int`, `uint` and `float` have 32
# bits, `bfloat` 16, the two float8 codes 8.
_DEFAULT_BITS = {"int": 32, "uint": 32, "float": 32, "bfloat": 16, "e4m3_float": 8, "e5m2_float": 8}
_ALLOWED_BITS = {
    "int": (1, 2, 4, 8, 16, 32, 64),
    "uint": (1, 2, 4, 8, 16, 32, 64),
    "float": (16, 32, 64),
    "bfloat": (16,),
    "e4m3_float": (8,),
    "e5m2_float": (8,),
}


# The canonical names without lanes: each is its own canonical name, found
# without the pattern below (compiled when another spelling is first read).
_CANONICAL = frozenset(["bool", *(f"{code}{bits}" for code, allowed in _ALLOWED_BITS.items() for bits in allowed)])


@functools.cache
def _dtype_spelling() -> re.Pattern[str]:
    return re.compile(
        r"(?P<code>bool|int|uint|float|bfloat|e4m3_float|e5m2_float)(?P<bits>[0-9]*)(?:x(?P<lanes>[1-9][0-9]*))?"
    )


def canonical_dtype(name: str) -> str | None:
    """The canonical name of a dtype spelling, or None if `name` is none:
    `int` -> `int32`, `float` -> `float32`, `bfloat` -> `bfloat16`,
    `int32x4` -> itself."""
    if name in _CANONICAL:
        return name
    m = _dtype_spelling().fullmatch(name)
    if m is None:
        return None
    code, bits, lanes = m.group("code"), m.group("bits"), m.group("lanes")
    if code == "bool":
        return "bool" if not bits and not lanes else None
    width = int(bits) if bits else _DEFAULT_BITS[code]
    if width not in _ALLOWED_BITS[code]:
        return None
    return f"{code}{width}" + (f"x{lanes}" if lanes else "")


def is_dtype(name: str) -> bool:
    """Whether `name` is a dtype in its canonical spelling, e.g. `float32`,
    `int32x4` (see `canonical_dtype` for the other spellings TVM reads)."""
    return canonical_dtype(name) == name


def split_lanes(dtype: str) -> tuple[str, int]:
    """`int32x4` -> (`int32`, 4); `float32` -> (`float32`, 1)."""
    base, sep, lanes = dtype.partition("x")
    return (base, int(lanes)) if sep else (dtype, 1)
