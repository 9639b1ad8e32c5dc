"""Algebraic data type definitions."""

from __future__ import annotations

from dataclasses import dataclass, field

from .expr import Constructor
from .span import Span
from .ty import GlobalTypeVar, TypeVar


@dataclass(eq=False, slots=True)
class TypeData:
    """`data D<a, b> { C1 : (a) -> D ... }` or TVM's `type D[A] { C1(A), ... }`.

    `constructors` is empty for an `extern type`.
    """

    header: GlobalTypeVar
    type_params: tuple[TypeVar, ...]
    constructors: tuple[Constructor, ...]
    extern: bool = False
    span: Span | None = field(default=None, repr=False)
