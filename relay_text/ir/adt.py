"""Algebraic data type definitions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from collections.abc import Mapping

from .expr import Constructor
from .span import Span
from .ty import (
    AnyDim,
    DimBinOp,
    FuncType,
    GlobalTypeVar,
    IncompleteType,
    TensorType,
    TupleType,
    TypeCall,
    TypeVar,
)

if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes, for less at import (see relay_text/record.py)
    from ..record import dataclass, field


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
    # A file's definition identical to the Prelude's: the Prelude's type,
    # which the file's uses of the name denote (its own header and
    # constructors only keep the text, for printing).
    same_as: GlobalTypeVar | None = field(default=None, repr=False)


def definition_difference(
    mine: TypeData,
    other: TypeData,
    same: Mapping[GlobalTypeVar, GlobalTypeVar] = {},
    here: str = "here",
    there: str = "there",
) -> str | None:
    """None if two data definitions define the same type (same parameters
    and kinds, the same constructors with the same field types, in any
    order), else what differs, in words. `same` pairs the data types of
    `mine`'s file with those of `other`'s taken to be the same."""
    name = mine.header.name
    if mine.extern != other.extern:
        return (
            f"`{name}` is {'an `extern type`' if mine.extern else 'a `data` definition'} {here} and "
            f"{'an `extern type`' if other.extern else 'a `data` definition'} {there}"
        )
    if len(mine.type_params) != len(other.type_params):
        return f"`{name}` takes {len(mine.type_params)} type parameter(s) {here} and {len(other.type_params)} {there}"
    for pa, pb in zip(mine.type_params, other.type_params, strict=False):
        if pa.kind != pb.kind:
            return f"the type parameter `{pa.name}` has kind {pa.kind} {here} and {pb.kind} {there}"
    theirs = {c.name: c for c in other.constructors}
    ours = {c.name: c for c in mine.constructors}
    if set(ours) != set(theirs):
        missing = sorted(set(theirs) - set(ours))
        extra = sorted(set(ours) - set(theirs))
        parts = []
        if missing:
            parts.append("lacks " + ", ".join(f"`{n}`" for n in missing))
        if extra:
            parts.append("adds " + ", ".join(f"`{n}`" for n in extra))
        return f"`{name}` {here} {' and '.join(parts)}"
    params = dict(zip(mine.type_params, other.type_params, strict=False))
    for cname, ctor in ours.items():
        other_ctor = theirs[cname]
        if len(ctor.inputs) != len(other_ctor.inputs):
            return f"`{cname}` takes {len(ctor.inputs)} field(s) {here} and {len(other_ctor.inputs)} {there}"
        for i, (a, b) in enumerate(zip(ctor.inputs, other_ctor.inputs, strict=False)):
            if not _same_type(a, b, params, same):
                return f"field {i + 1} of `{cname}` is `{a}` {here} and `{b}` {there}"
    return None


def _same_type(a: Any, b: Any, params: Mapping[Any, Any], same: Mapping[Any, Any]) -> bool:
    """Structural equality of two written types, with `params` (type
    parameters) and `same` (data types) mapped from `a`'s side to `b`'s."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, TypeVar):
            if params.get(x, x) is not y:
                return False
        elif isinstance(x, GlobalTypeVar):
            if same.get(x, x) is not y:
                return False
        elif type(x) is not type(y):
            return False
        elif isinstance(x, TensorType):
            stack.append((x.dtype, y.dtype))
            if isinstance(x.shape, tuple) and isinstance(y.shape, tuple):
                if len(x.shape) != len(y.shape):
                    return False
                stack.extend(zip(x.shape, y.shape, strict=False))
            else:
                stack.append((x.shape, y.shape))
        elif isinstance(x, TupleType):
            if len(x.fields) != len(y.fields):
                return False
            stack.extend(zip(x.fields, y.fields, strict=False))
        elif isinstance(x, FuncType):
            if (
                len(x.arg_types) != len(y.arg_types)
                or len(x.type_params) != len(y.type_params)
                or x.type_constraints
                or y.type_constraints
            ):
                return False
            params = {**params, **dict(zip(x.type_params, y.type_params, strict=False))}
            stack.extend(zip(x.arg_types, y.arg_types, strict=False))
            stack.append((x.ret_type, y.ret_type))
        elif isinstance(x, TypeCall):
            if len(x.args) != len(y.args):
                return False
            stack.append((x.func, y.func))
            stack.extend(zip(x.args, y.args, strict=False))
        elif isinstance(x, DimBinOp):
            if x.op != y.op:
                return False
            stack.extend(((x.lhs, y.lhs), (x.rhs, y.rhs)))
        elif isinstance(x, (AnyDim, IncompleteType)):
            continue
        elif x != y:
            return False
    return True
