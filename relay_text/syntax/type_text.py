"""Types as text, in either dialect: the one place that spells a type.

    docs:  Tensor[(10, 10), float32]   Tensor[(), int32]   fn<a>(List[a]) -> a   Nat
    tvm:   Tensor[(10, 10), float32]   int32               fn [A](List[A]) -> A  Nat[]

Used by diagnostics, `relay check --types` and the formatter. `names` maps
type variables or holes to display names (the checker names inference
variables `a`, `b`, ... so that messages are stable).
"""

from __future__ import annotations

from typing import Any, Mapping

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


def type_params_text(params: tuple, dialect: str = DOCS, names: Mapping[Any, str] | None = None) -> str:
    if not params:
        return ""
    if dialect == TVM:
        return "[" + ", ".join(_var_name(p, names) for p in params) + "]"
    parts = []
    for p in params:
        name = _var_name(p, names)
        parts.append(name if p.kind == Kind.TYPE else f"{name} : {p.kind.value}")
    return "<" + ", ".join(parts) + ">"


def type_text(ty: Any, dialect: str = DOCS, names: Mapping[Any, str] | None = None) -> str:
    """A type (or a type argument: dtype string, shape tuple, dimension) as text.

    Built bottom-up with an explicit stack, so a type nested thousands of
    levels deep (the type of a deeply nested tuple) prints like any other."""
    done: list[str] = []
    work: list[tuple[Any, bool]] = [(ty, False)]
    while work:
        node, ready = work.pop()
        if ready:
            n = len(_parts(node))
            parts = done[len(done) - n :]
            del done[len(done) - n :]
            done.append(_compound_text(node, parts, dialect, names))
            continue
        kids = _parts(node)
        if kids is None:
            done.append(_leaf_text(node, dialect, names))
            continue
        work.append((node, True))
        work.extend((k, False) for k in reversed(kids))
    return done[0]


def _parts(ty: Any) -> tuple | None:
    """The types a compound type is written around; None for a leaf."""
    if isinstance(ty, TupleType):
        return ty.fields
    if isinstance(ty, FuncType):
        return (*ty.arg_types, ty.ret_type)
    if isinstance(ty, TypeCall):
        return ty.args
    return None


def _compound_text(ty: Any, parts: list[str], dialect: str, names: Mapping[Any, str] | None) -> str:
    if isinstance(ty, TupleType):
        return f"({parts[0]},)" if len(parts) == 1 else "(" + ", ".join(parts) + ")"
    if isinstance(ty, FuncType):
        params = type_params_text(ty.type_params, dialect, names)
        head = f"fn {params}" if dialect == TVM else f"fn{params}"
        text = f"{head}({', '.join(parts[:-1])}) -> {parts[-1]}"
        if ty.type_constraints and dialect == DOCS:
            text += " where " + ", ".join(rel.name for rel in ty.type_constraints)
        return text
    func = _var_name(ty.func, names)
    if not parts and dialect == DOCS:
        return func  # `Nat`, as a constructor's result is written
    return f"{func}[" + ", ".join(parts) + "]"


def _leaf_text(ty: Any, dialect: str, names: Mapping[Any, str] | None) -> str:
    if isinstance(ty, TensorType):
        dtype = _var_name(ty.dtype, names)
        if dialect == TVM and ty.shape == () and isinstance(ty.dtype, str):
            return dtype
        return f"Tensor[{shape_text(ty.shape, names)}, {dtype}]"
    if isinstance(ty, tuple):  # a shape given as a type argument
        return shape_text(ty, names)
    if isinstance(ty, (int, AnyDim, DimBinOp)):
        return dim_text(ty, names)
    return _var_name(ty, names)
