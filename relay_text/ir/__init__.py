"""The one intermediate representation shared by every stage.

Its names are imported from their modules when first read (a command loads
only the parts it uses).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .adt import TypeData
    from .alpha import alpha_equal, alpha_equal_module, types_alpha_equal
    from .expr import (
        Call,
        Clause,
        Constant,
        Constructor,
        Expr,
        Function,
        GlobalVar,
        If,
        Let,
        Match,
        MetaRef,
        Op,
        RefCreate,
        RefRead,
        RefWrite,
        RelationRef,
        Tuple,
        TupleGetItem,
        Var,
    )
    from .module import Comment, Metadata, Module
    from .pattern import (
        Pattern,
        PatternConstructor,
        PatternTuple,
        PatternVar,
        PatternWildcard,
        pattern_vars,
    )
    from .span import Source, Span
    from .ty import (
        AnyDim,
        DimBinOp,
        FuncType,
        GlobalTypeVar,
        IncompleteType,
        Kind,
        TensorType,
        TupleType,
        Type,
        TypeCall,
        TypeRelation,
        TypeVar,
        is_dtype,
    )
    from .schema import children
    from .visitor import ExprFunctor, ExprMutator, ExprVisitor, post_order

_WHERE = {
    "AnyDim": "ty",
    "Call": "expr",
    "Clause": "expr",
    "Comment": "module",
    "Constant": "expr",
    "Constructor": "expr",
    "DimBinOp": "ty",
    "Expr": "expr",
    "ExprFunctor": "visitor",
    "ExprMutator": "visitor",
    "ExprVisitor": "visitor",
    "FuncType": "ty",
    "Function": "expr",
    "GlobalTypeVar": "ty",
    "GlobalVar": "expr",
    "If": "expr",
    "IncompleteType": "ty",
    "Kind": "ty",
    "Let": "expr",
    "Match": "expr",
    "MetaRef": "expr",
    "Metadata": "module",
    "Module": "module",
    "Op": "expr",
    "Pattern": "pattern",
    "PatternConstructor": "pattern",
    "PatternTuple": "pattern",
    "PatternVar": "pattern",
    "PatternWildcard": "pattern",
    "RefCreate": "expr",
    "RefRead": "expr",
    "RefWrite": "expr",
    "RelationRef": "expr",
    "Source": "span",
    "Span": "span",
    "TensorType": "ty",
    "Tuple": "expr",
    "TupleGetItem": "expr",
    "TupleType": "ty",
    "Type": "ty",
    "TypeCall": "ty",
    "TypeData": "adt",
    "TypeRelation": "ty",
    "TypeVar": "ty",
    "Var": "expr",
    "alpha_equal": "alpha",
    "alpha_equal_module": "alpha",
    "children": "schema",
    "is_dtype": "ty",
    "pattern_vars": "pattern",
    "post_order": "visitor",
    "types_alpha_equal": "alpha",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "AnyDim",
    "Call",
    "Clause",
    "Comment",
    "Constant",
    "Constructor",
    "DimBinOp",
    "Expr",
    "ExprFunctor",
    "ExprMutator",
    "ExprVisitor",
    "FuncType",
    "Function",
    "GlobalTypeVar",
    "GlobalVar",
    "If",
    "IncompleteType",
    "Kind",
    "Let",
    "Match",
    "MetaRef",
    "Metadata",
    "Module",
    "Op",
    "Pattern",
    "PatternConstructor",
    "PatternTuple",
    "PatternVar",
    "PatternWildcard",
    "RefCreate",
    "RefRead",
    "RefWrite",
    "RelationRef",
    "Source",
    "Span",
    "TensorType",
    "Tuple",
    "TupleGetItem",
    "TupleType",
    "Type",
    "TypeCall",
    "TypeData",
    "TypeRelation",
    "TypeVar",
    "Var",
    "alpha_equal",
    "alpha_equal_module",
    "children",
    "is_dtype",
    "pattern_vars",
    "post_order",
    "types_alpha_equal",
]
