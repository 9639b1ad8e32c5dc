"""Types as text, in either dialect: the one place that spells a type.

    docs:  Tensor[(10, 10), float32]   Tensor[(), int32]   fn<a>(List[a]) -> a   Nat
    tvm:   Tensor[(10, 10), float32]   int32               fn [A](List[A]) -> A  Nat[]

Used by diagnostics, `relay check --types` and the formatter. `names` maps
type variables or holes to display names (the checker names inference
variables `a`, `b`, ... so that messages are stable).
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Iterator, Mapping

from ..ir.ty import (
    AnyDim,
    DimBinOp,
    FuncType,
    GlobalTypeVar,
    IncompleteType,
    Kind,
    TensorType,
    TupleType,
    TypeCall,
    TypeVar,
)

DOCS = "docs"
TVM = "tvm"

_DIM_PREC = {"+": 1, "-": 1, "*": 2}


def dim_text(dim: Any, names: Mapping[Any, str] | None = None) -> str:
    if isinstance(dim, bool):
        return str(int(dim))
    if isinstance(dim, int):
        return str(dim)
    if isinstance(dim, AnyDim):
        return "?"
    if isinstance(dim, DimBinOp):
        prec = _DIM_PREC[dim.op]
        lhs = dim_text(dim.lhs, names)
        rhs = dim_text(dim.rhs, names)
        if isinstance(dim.lhs, DimBinOp) and _DIM_PREC[dim.lhs.op] < prec:
            lhs = f"({lhs})"
        if isinstance(dim.rhs, DimBinOp) and _DIM_PREC[dim.rhs.op] <= prec:
            rhs = f"({rhs})"
        return f"{lhs} {dim.op} {rhs}"
    return _var_name(dim, names)


def shape_text(shape: Any, names: Mapping[Any, str] | None = None) -> str:
    if isinstance(shape, tuple):
        return "(" + ", ".join(dim_text(d, names) for d in shape) + ")"
    return _var_name(shape, names)


def _var_name(var: Any, names: Mapping[Any, str] | None) -> str:
    if names is not None and var in names:
        return names[var]
    if isinstance(var, (TypeVar, GlobalTypeVar)):
        return var.name
    if isinstance(var, IncompleteType):
        return "_"
    if isinstance(var, str):
        return var
    return str(var)


def type_params_text(params: tuple[Any, ...], dialect: str = DOCS, names: Mapping[Any, str] | None = None) -> str:
    if not params:
        return ""
    if dialect == TVM:
        return "[" + ", ".join(_var_name(p, names) for p in params) + "]"
    parts = []
    for p in params:
        name = _var_name(p, names)
        parts.append(name if p.kind == Kind.TYPE else f"{name} : {p.kind.value}")
    return "<" + ", ".join(parts) + ">"


MAX_TYPE_TEXT = 100_000
"""Characters of a type shown in a message or by `--types`: a type that is a
DAG (a tuple of a tuple of the same tuple, ...) can be exponentially long
written out; its text is cut here and ends in ` ...`."""


def type_text(
    ty: Any,
    dialect: str = DOCS,
    names: Mapping[Any, str] | None = None,
    limit: int | None = MAX_TYPE_TEXT,
    short_scalars: bool | None = None,
    as_written: Callable[[Any], bool | str | None] | None = None,
) -> str:
    """A type (or a type argument: dtype string, shape tuple, dimension) as text,
    at most `limit` characters (None: all of it, as the formatter needs).

    A scalar tensor type is written as its dtype (`int32`) when
    `short_scalars` (the default in TVM's dialect, and the formatter's choice
    in both: a written type reads the same either way), else
    `Tensor[(), int32]` (messages in the documented dialect).

    `as_written(ty)`, for a scalar tensor type or a data type without
    arguments, says whether the source spelled it long (`Tensor[(), int32]`,
    `Nat[]`); None leaves the choice to the rules above. For a hole (an
    unknown type or dtype) it may give the text the source wrote there.

    Written left to right from an explicit stack, so a type nested thousands
    of levels deep prints like any other, and a cut text costs only its length."""
    short = dialect == TVM if short_scalars is None else short_scalars
    if type(ty) is TensorType:  # the common case: no parts, no stack
        text = _leaf_text(ty, short, names, as_written)
        return text if limit is None or len(text) <= limit else text[:limit] + " ..."
    out: list[str] = []
    size = 0
    for piece in _pieces(ty, dialect, names, short, as_written):
        out.append(piece)
        size += len(piece)
        if limit is not None and size > limit:
            return "".join(out)[:limit] + " ..."
    return "".join(out)


def _pieces(
    ty: Any, dialect: str, names: Mapping[Any, str] | None, short: bool, as_written: Any = None
) -> Iterator[str]:
    """The text of `ty` in order, in pieces."""
    work: list[Any] = [ty]
    while work:
        item = work.pop()
        if type(item) is _Text:
            yield item
            continue
        parts = _layout(item, dialect, names, as_written)
        if parts is None:
            yield _leaf_text(item, short, names, as_written)
        else:
            work.extend(reversed(parts))


def _layout(ty: Any, dialect: str, names: Mapping[Any, str] | None, as_written: Any = None) -> list[Any] | None:
    """A compound type as a list of literal text (str) and types; None for a leaf."""
    if isinstance(ty, TupleType):
        if len(ty.fields) == 1:
            return [_Text("("), ty.fields[0], _Text(",)")]
        return [_Text("("), *_commas(ty.fields), _Text(")")]
    if isinstance(ty, FuncType):
        params = type_params_text(ty.type_params, dialect, names)
        head = f"fn {params}(" if dialect == TVM else f"fn{params}("
        tail = [_Text(") -> "), ty.ret_type]
        if ty.type_constraints:  # both dialects read it (converting to TVM refuses it)
            if isinstance(ty.ret_type, FuncType):  # `where` would go to the result's type
                tail = [_Text(") -> ("), ty.ret_type, _Text(")")]
            tail.append(_Text(" where " + ", ".join(rel.name for rel in ty.type_constraints)))
        return [_Text(head), *_commas(ty.arg_types), *tail]
    if isinstance(ty, TypeCall):
        func = _var_name(ty.func, names)
        if not ty.args:
            long = as_written(ty) if as_written is not None else None
            if long is False or (long is None and dialect == DOCS):
                return [_Text(func)]  # `Nat`, as a constructor's result is written
        return [_Text(func + "["), *_commas(ty.args), _Text("]")]
    return None


class _Text(str):
    """Literal text among the parts of a compound type (a dtype name, also a
    str, is a type to print)."""

    __slots__ = ()


def _commas(items: tuple[Any, ...]) -> list[Any]:
    out: list[Any] = []
    for i, item in enumerate(items):
        if i:
            out.append(_Text(", "))
        out.append(item)
    return out


def _leaf_text(ty: Any, short: bool, names: Mapping[Any, str] | None, as_written: Any = None) -> str:
    if as_written is not None and isinstance(ty, IncompleteType):
        written = as_written(ty)  # a name that did not resolve, as written
        if isinstance(written, str):
            return written
    if isinstance(ty, TensorType):
        dtype = _var_name(ty.dtype, names)
        if as_written is not None and isinstance(ty.dtype, IncompleteType):
            written = as_written(ty.dtype)
            dtype = written if isinstance(written, str) else dtype
        if ty.shape == () and isinstance(ty.dtype, str):
            long = as_written(ty) if as_written is not None else None
            if long is False or (long is None and short):
                return dtype
        return f"Tensor[{shape_text(ty.shape, names)}, {dtype}]"
    if isinstance(ty, tuple):  # a shape given as a type argument
        return shape_text(ty, names)
    if isinstance(ty, (int, AnyDim, DimBinOp)):
        return dim_text(ty, names)
    return _var_name(ty, names)
