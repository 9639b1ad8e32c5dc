"""Helpers the passes share: rebuilding modules, substituting variables,
building calls and constants."""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Iterable

from ..ir.expr import Call, Constant, Expr, Function, GlobalVar, Let, Op, Tuple, TupleGetItem, Var
from ..ir.module import Module
from ..ir.ty import TensorType, TupleType
from ..ir.visitor import ExprMutator, ExprVisitor


def replace(module: Module, **changes: Any) -> Module:
    """A copy of `module` with some fields changed (its source's comments and
    the positions of its text are not carried over: they describe nodes
    that passes replace)."""
    fields: dict[str, Any] = {
        "functions": module.functions,
        "type_defs": module.type_defs,
        "order": module.order,
        "expr": module.expr,
        "free_vars": module.free_vars,
        "version": module.version,
        "header": module.header,
        "metadata": module.metadata,
        "comments": [],
        "source": module.source,
    }
    fields.update(changes)
    return Module(**fields)


def map_functions(module: Module, rewrite: Callable[[GlobalVar | None, Function], Function]) -> Module:
    """The module with each global function (and a trailing `fn`) rewritten;
    a trailing expression that is not a function is rewritten as the body of
    a function without parameters."""
    functions = {gv: rewrite(gv, fn) for gv, fn in module.functions.items()}
    expr = module.expr
    free = module.free_vars
    if expr is not None:
        if type(expr) is Function:
            expr = rewrite(None, expr)
        else:
            wrapped = rewrite(None, Function(module.free_vars, expr))
            expr, free = wrapped.body, wrapped.params
    if all(functions[g] is module.functions[g] for g in functions) and expr is module.expr:
        return module
    return replace(module, functions=functions, expr=expr, free_vars=free)


class Substitute(ExprMutator):
    """Replaces nodes by others (variables by variables or expressions),
    rebuilding what contains them."""

    def __init__(self, mapping: dict[Expr, Expr]) -> None:
        super().__init__()
        self.memo.update(mapping)


def substitute(expr: Expr, mapping: dict[Expr, Expr]) -> Expr:
    return Substitute(mapping).visit(expr)


def free_vars(expr: Expr) -> list[Var]:
    """The variables `expr` uses and does not bind, in order of first use."""
    bound: set[Var] = set()
    used: list[Var] = []
    seen: set[Var] = set()

    class Walk(ExprVisitor):
        def visit_let(self, node: Any) -> None:
            bound.add(node.var)

        def visit_function(self, node: Any) -> None:
            bound.update(node.params)

        def visit_match(self, node: Any) -> None:
            from ..ir.pattern import pattern_vars

            for clause in node.clauses:
                bound.update(pattern_vars(clause.pattern))

        def visit_var(self, node: Any) -> None:
            if node not in seen:
                seen.add(node)
                used.append(node)

    Walk().visit(expr)
    return [v for v in used if v not in bound]


def call(name: str, *args: Expr, attrs: Iterable[tuple[str, Any]] = ()) -> Call:
    return Call(Op(name), tuple(args), tuple(attrs))


def scalar(value: float | int | bool, dtype: str) -> Constant:
    """A scalar literal of `dtype` (floats rounded to it)."""
    if dtype.startswith(("float", "bfloat")):
        import numpy as np

        exact = dtype in ("float16", "float32", "float64")
        value = float(np.dtype(dtype).type(value)) if exact else float(value)
    elif dtype == "bool":
        value = bool(value)
    else:
        value = int(value)
    return Constant(value, dtype, ())


def tuple_of(fields: Iterable[Expr]) -> Tuple:
    return Tuple(tuple(fields))


def item(value: Expr, index: int) -> TupleGetItem:
    return TupleGetItem(value, index)


def tensor_type(ty: Any) -> TensorType | None:
    return ty if isinstance(ty, TensorType) else None


def static_shape(ty: Any) -> tuple[int, ...] | None:
    """The shape of a tensor type whose dimensions are all numbers, else None."""
    if isinstance(ty, TensorType) and type(ty.shape) is tuple and all(type(d) is int for d in ty.shape):
        return ty.shape
    return None


def is_tensor_or_tuple_of_tensors(ty: Any) -> bool:
    if isinstance(ty, TensorType):
        return True
    if isinstance(ty, TupleType):
        return all(is_tensor_or_tuple_of_tensors(f) for f in ty.fields)
    return False


def written(ty: Any, declared: frozenset[Any] | set[Any] = frozenset()) -> Any:
    """A type as the text can write it: the checker's unknowns become `_`
    (an `IncompleteType`); None when a part cannot be written at all (a
    reference type, an error, a type variable that is not `declared`)."""
    from ..ir.ty import DimBinOp, FuncType, IncompleteType, TypeCall, TypeVar

    if isinstance(ty, IncompleteType):
        return IncompleteType(ty.kind)
    if isinstance(ty, TypeVar):
        return ty if ty in declared else None
    if isinstance(ty, TensorType):
        shape = ty.shape
        if isinstance(shape, tuple):
            dims: list[Any] = []
            for d in shape:
                if isinstance(d, IncompleteType):
                    dims.append(IncompleteType(d.kind))
                elif isinstance(d, TypeVar):
                    if d not in declared:
                        return None
                    dims.append(d)
                elif isinstance(d, DimBinOp):
                    return None if _dim_vars(d, declared) else d
                else:
                    dims.append(d)
            shape = tuple(dims)
        else:
            shape = written(shape, declared)
            if shape is None:
                return None
        dtype = ty.dtype if isinstance(ty.dtype, str) else written(ty.dtype, declared)
        if dtype is None:
            return None
        return TensorType(shape, dtype)
    if isinstance(ty, TupleType):
        fields = [written(f, declared) for f in ty.fields]
        return None if any(f is None for f in fields) else TupleType(tuple(fields))
    if isinstance(ty, FuncType):
        if ty.type_params or ty.type_constraints:
            return None
        args = [written(a, declared) for a in ty.arg_types]
        ret = written(ty.ret_type, declared)
        return None if ret is None or any(a is None for a in args) else FuncType(tuple(args), ret)
    if isinstance(ty, TypeCall):
        args = [written(a, declared) for a in ty.args]
        return None if any(a is None for a in args) else TypeCall(ty.func, tuple(args))
    return None


def _dim_vars(d: Any, declared: Any) -> bool:
    from ..ir.ty import DimBinOp, TypeVar

    stack = [d]
    while stack:
        x = stack.pop()
        if isinstance(x, DimBinOp):
            stack += [x.lhs, x.rhs]
        elif (isinstance(x, TypeVar) and x not in declared) or not isinstance(x, (int, TypeVar)):
            return True
    return False


def rename_pattern(pattern: Any, mapping: dict[Expr, Expr]) -> Any:
    """A pattern with its variables replaced as `mapping` says."""
    from ..ir.pattern import PatternConstructor, PatternTuple, PatternVar

    if isinstance(pattern, PatternVar):
        new = mapping.get(pattern.var)
        return PatternVar(new, pattern.span) if isinstance(new, Var) else pattern
    if isinstance(pattern, PatternConstructor):
        return PatternConstructor(
            pattern.constructor, tuple(rename_pattern(p, mapping) for p in pattern.patterns), pattern.span
        )
    if isinstance(pattern, PatternTuple):
        return PatternTuple(tuple(rename_pattern(p, mapping) for p in pattern.patterns), pattern.span)
    return pattern


class _Fresh(ExprMutator):
    """Rebuilds with every variable the expression binds replaced by a new
    one of the same name (and free variables as `mapping` says)."""

    def __init__(self, mapping: dict[Expr, Expr]) -> None:
        super().__init__()
        self.memo.update(mapping)
        self.mapping = mapping

    def visit_match(self, node: Any) -> Expr:
        from ..ir.expr import Clause, Match

        data = self.memo[node.data]
        clauses = tuple(
            Clause(rename_pattern(c.pattern, self.mapping), self.memo[c.body], c.span) for c in node.clauses
        )
        return Match(data, clauses, node.complete, node.span)


def copy_fresh(expr: Expr, mapping: dict[Expr, Expr] | None = None) -> Expr:
    """A copy of `expr` whose bound variables are new objects, with the free
    variables `mapping` names replaced (an expression inlined twice must
    not bind the same variable twice)."""
    from ..ir.expr import Match
    from ..ir.pattern import pattern_vars

    table: dict[Expr, Expr] = dict(mapping or {})
    for node in _walk_all(expr):
        bound: list[Var] = []
        if type(node) is Let:
            bound = [node.var]
        elif type(node) is Function:
            bound = list(node.params)
        elif type(node) is Match:
            for clause in node.clauses:
                bound += pattern_vars(clause.pattern)
        for var in bound:
            if var not in table:
                table[var] = Var(var.name, var.type_annotation, var.span, var.attrs)
    return _Fresh(table).visit(expr)


def _walk_all(expr: Expr) -> list[Expr]:
    from ._scopes import walk

    return walk(expr, lambda n: True)
