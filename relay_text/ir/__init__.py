"""The one intermediate representation shared by every stage."""

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
from .visitor import ExprFunctor, ExprMutator, ExprVisitor, children, post_order

__all__ = [
    "AnyDim", "Call", "Clause", "Comment", "Constant", "Constructor", "DimBinOp", "Expr", "ExprFunctor",
    "ExprMutator", "ExprVisitor", "FuncType", "Function", "GlobalTypeVar", "GlobalVar", "If",
    "IncompleteType", "Kind", "Let", "Match", "MetaRef", "Metadata", "Module", "Op", "Pattern",
    "PatternConstructor", "PatternTuple", "PatternVar", "PatternWildcard", "RefCreate", "RefRead",
    "RefWrite", "RelationRef", "Source", "Span", "TensorType", "Tuple", "TupleGetItem", "TupleType",
    "Type", "TypeCall", "TypeData", "TypeRelation", "TypeVar", "Var", "alpha_equal",
    "alpha_equal_module", "children", "is_dtype", "pattern_vars", "post_order", "types_alpha_equal",
]
