"""Alpha-equivalence: structural equality up to the names of bound variables.

Spans, display hints and sharing are ignored: a DAG and the tree it unfolds
to are equal. Comparison is iterative (a worklist of node pairs), so deep
programs are fine. Free variables (unbound names, `free_var`) are matched by
name.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from .adt import TypeData
from .expr import (
    AttrPairs,
    Call,
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
    Tuple,
    TupleGetItem,
    Var,
)
from .module import Module
from .pattern import PatternConstructor, PatternTuple, PatternVar, PatternWildcard
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


class _Equiv:
    def __init__(self) -> None:
        self.vars: dict[Var, Var] = {}
        self.rvars: dict[Var, Var] = {}
        self.tvars: dict[Any, Any] = {}
        self.rtvars: dict[Any, Any] = {}
        self.done: set[tuple[int, int]] = set()

    # ---- binders -----------------------------------------------------------

    def bind(self, a: Var, b: Var) -> bool:
        if self.vars.get(a, b) is not b or self.rvars.get(b, a) is not a:
            return False
        self.vars[a] = b
        self.rvars[b] = a
        ta, tb = a.type_annotation, b.type_annotation
        if (ta is None) != (tb is None) or not attrs_equal(a.attrs, b.attrs):
            return False
        return ta is None or self.types(ta, tb)

    def bind_type(self, a: Any, b: Any) -> bool:
        if type(a) is not type(b) or getattr(a, "kind", None) != getattr(b, "kind", None):
            return False
        if self.tvars.get(a, b) is not b or self.rtvars.get(b, a) is not a:
            return False
        self.tvars[a] = b
        self.rtvars[b] = a
        return True

    def var_ref(self, a: Var, b: Var) -> bool:
        if a in self.vars:
            return self.vars[a] is b
        if b in self.rvars:
            return False
        # A free variable: equal when the names agree.
        return a.name == b.name and self.bind(a, b)

    # ---- types -------------------------------------------------------------

    def types(self, a: Any, b: Any) -> bool:
        """Types equal up to renaming of bound type variables; compared with an
        explicit stack of pairs, left to right, so nesting depth is no limit."""
        work: list[tuple[Any, Any]] = [(a, b)]
        while work:
            a, b = work.pop()
            if a is b:
                continue
            if type(a) is not type(b):
                return False
            pairs: list[tuple[Any, Any]] = []
            if isinstance(a, (TypeVar, GlobalTypeVar)):
                if a in self.tvars:
                    ok = self.tvars[a] is b
                elif b in self.rtvars:
                    ok = False
                else:
                    # Free type variables (and ADT names) are matched by name.
                    ok = a.name == b.name and a.kind == b.kind and self.bind_type(a, b)
            elif isinstance(a, IncompleteType):
                ok = a.kind == b.kind
            elif isinstance(a, TensorType):
                ok = self.shape(a.shape, b.shape) and self.dtype(a.dtype, b.dtype)
            elif isinstance(a, TupleType):
                ok = len(a.fields) == len(b.fields)
                pairs = list(zip(a.fields, b.fields, strict=False))
            elif isinstance(a, FuncType):
                ok = (
                    len(a.type_params) == len(b.type_params)
                    and len(a.arg_types) == len(b.arg_types)
                    and all(map(self.bind_type, a.type_params, b.type_params))
                    and len(a.type_constraints) == len(b.type_constraints)
                    and all(
                        ra.name == rb.name and ra.num_inputs == rb.num_inputs and len(ra.args) == len(rb.args)
                        for ra, rb in zip(a.type_constraints, b.type_constraints, strict=False)
                    )
                )
                pairs = [*zip(a.arg_types, b.arg_types, strict=False), (a.ret_type, b.ret_type)]
                for ra, rb in zip(a.type_constraints, b.type_constraints, strict=False):
                    pairs += zip(ra.args, rb.args, strict=False)
            elif isinstance(a, TypeCall):
                ok = len(a.args) == len(b.args)
                pairs = [(a.func, b.func), *zip(a.args, b.args, strict=False)]
            else:
                ok = bool(a == b)
            if not ok:
                return False
            work.extend(reversed(pairs))
        return True

    def shape(self, a: Any, b: Any) -> bool:
        if isinstance(a, tuple) and isinstance(b, tuple):
            return len(a) == len(b) and all(map(self.dim, a, b))
        if isinstance(a, tuple) or isinstance(b, tuple):
            return False
        return self.types(a, b)

    def dim(self, a: Any, b: Any) -> bool:
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        if isinstance(a, AnyDim) and isinstance(b, AnyDim):
            return True
        if isinstance(a, DimBinOp) and isinstance(b, DimBinOp):
            return a.op == b.op and self.dim(a.lhs, b.lhs) and self.dim(a.rhs, b.rhs)
        if isinstance(a, (TypeVar, IncompleteType)) and isinstance(b, (TypeVar, IncompleteType)):
            return self.types(a, b)
        return False

    def dtype(self, a: Any, b: Any) -> bool:
        if isinstance(a, str) or isinstance(b, str):
            return bool(a == b)
        return self.types(a, b)

    def opt_type(self, a: Any, b: Any) -> bool:
        if a is None or b is None:
            return a is None and b is None
        return self.types(a, b)

    # ---- patterns ----------------------------------------------------------

    def pattern(self, a: Any, b: Any) -> bool:
        stack = [(a, b)]
        while stack:
            p, q = stack.pop()
            if type(p) is not type(q):
                return False
            if isinstance(p, PatternVar):
                if not self.bind(p.var, q.var):
                    return False
            elif isinstance(p, PatternConstructor):
                if not constructors_equal(p.constructor, q.constructor) or len(p.patterns) != len(q.patterns):
                    return False
                stack.extend(zip(p.patterns, q.patterns, strict=False))
            elif isinstance(p, PatternTuple):
                if len(p.patterns) != len(q.patterns):
                    return False
                stack.extend(zip(p.patterns, q.patterns, strict=False))
            elif not isinstance(p, PatternWildcard):
                return False
        return True

    # ---- expressions -------------------------------------------------------

    def exprs(self, root_a: Expr, root_b: Expr) -> bool:
        stack: list[tuple[Any, Any]] = [(root_a, root_b)]
        done = self.done
        while stack:
            a, b = stack.pop()
            key = (id(a), id(b))
            if key in done:
                continue
            done.add(key)
            if type(a) is not type(b):
                return False
            if isinstance(a, Var):
                if not self.var_ref(a, b):
                    return False
            elif isinstance(a, GlobalVar):
                if a.name != b.name:
                    return False
            elif isinstance(a, Constant):
                if not constants_equal(a, b):
                    return False
            elif isinstance(a, Op):
                if a.name != b.name:
                    return False
            elif isinstance(a, Constructor):
                if not constructors_equal(a, b):
                    return False
            elif isinstance(a, Call):
                if len(a.args) != len(b.args) or not attrs_equal(a.attrs, b.attrs) or a.attrs_ref != b.attrs_ref:
                    return False
                if len(a.type_args) != len(b.type_args) or not all(map(self.types, a.type_args, b.type_args)):
                    return False
                stack.extend(reversed(list(zip(a.args, b.args, strict=False))))
                stack.append((a.op, b.op))
            elif isinstance(a, Let):
                if not self.bind(a.var, b.var):
                    return False
                stack.append((a.body, b.body))
                stack.append((a.value, b.value))
            elif isinstance(a, Function):
                if len(a.params) != len(b.params) or len(a.type_params) != len(b.type_params):
                    return False
                if not all(map(self.bind_type, a.type_params, b.type_params)):
                    return False
                if not all(map(self.bind, a.params, b.params)):
                    return False
                if not self.opt_type(a.ret_type, b.ret_type):
                    return False
                if [r.name for r in a.relations] != [r.name for r in b.relations]:
                    return False
                if not attrs_equal(a.attrs, b.attrs):
                    return False
                stack.append((a.body, b.body))
            elif isinstance(a, Tuple):
                if len(a.fields) != len(b.fields):
                    return False
                stack.extend(reversed(list(zip(a.fields, b.fields, strict=False))))
            elif isinstance(a, TupleGetItem):
                if a.index != b.index:
                    return False
                stack.append((a.tuple_value, b.tuple_value))
            elif isinstance(a, If):
                stack.append((a.else_branch, b.else_branch))
                stack.append((a.then_branch, b.then_branch))
                stack.append((a.cond, b.cond))
            elif isinstance(a, Match):
                if a.complete != b.complete or len(a.clauses) != len(b.clauses):
                    return False
                for ca, cb in zip(a.clauses, b.clauses, strict=False):
                    if not self.pattern(ca.pattern, cb.pattern):
                        return False
                stack.extend(reversed([(ca.body, cb.body) for ca, cb in zip(a.clauses, b.clauses, strict=False)]))
                stack.append((a.data, b.data))
            elif isinstance(a, RefCreate):
                stack.append((a.value, b.value))
            elif isinstance(a, RefRead):
                stack.append((a.ref, b.ref))
            elif isinstance(a, RefWrite):
                stack.append((a.value, b.value))
                stack.append((a.ref, b.ref))
            else:
                raise TypeError(f"alpha_equal: unknown node {type(a).__name__}")
        return True

    def type_data(self, a: TypeData, b: TypeData) -> bool:
        if a.header.name != b.header.name or a.extern != b.extern:
            return False
        if len(a.type_params) != len(b.type_params) or len(a.constructors) != len(b.constructors):
            return False
        if not all(map(self.bind_type, a.type_params, b.type_params)):
            return False
        for ca, cb in zip(a.constructors, b.constructors, strict=False):
            if ca.name != cb.name or len(ca.inputs) != len(cb.inputs):
                return False
            if not all(map(self.types, ca.inputs, cb.inputs)):
                return False
        return True


def _float_bits(x: float) -> bytes:
    return struct.pack("<d", x)


def scalars_equal(a: Any, b: Any) -> bool:
    """Equality of literal values that tells 1 from 1.0 and True, and NaN from itself."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return _float_bits(a) == _float_bits(b) or (math.isnan(a) and math.isnan(b))
    return bool(a == b)


def constants_equal(a: Constant, b: Constant) -> bool:
    return (
        a.dtype == b.dtype and a.shape == b.shape and a.meta_index == b.meta_index and scalars_equal(a.value, b.value)
    )


def constructors_equal(a: Constructor, b: Constructor) -> bool:
    if a is b:
        return True
    a_adt = a.belong_to.name if a.belong_to is not None else None
    b_adt = b.belong_to.name if b.belong_to is not None else None
    return a.name == b.name and a_adt == b_adt


def attr_values_equal(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(map(attr_values_equal, a, b))
    if isinstance(a, MetaRef) or isinstance(b, MetaRef):
        return bool(a == b)
    if a is None or b is None:
        return a is b
    return scalars_equal(a, b)


def attrs_equal(a: AttrPairs, b: AttrPairs) -> bool:
    return len(a) == len(b) and all(
        ka == kb and attr_values_equal(va, vb) for (ka, va), (kb, vb) in zip(a, b, strict=False)
    )


def alpha_equal(a: Expr, b: Expr) -> bool:
    """Whether two expressions are equal up to renaming of bound variables."""
    return _Equiv().exprs(a, b)


def types_alpha_equal(a: Any, b: Any) -> bool:
    """Whether two types are equal up to renaming of type parameters."""
    return _Equiv().types(a, b)


def alpha_equal_module(a: Module, b: Module) -> bool:
    """Whether two modules define the same things, up to bound-variable names."""
    if {g.name for g in a.functions} != {g.name for g in b.functions}:
        return False
    if {t.name for t in a.type_defs} != {t.name for t in b.type_defs}:
        return False
    if (a.expr is None) != (b.expr is None) or len(a.free_vars) != len(b.free_vars):
        return False
    if (a.metadata is None) != (b.metadata is None):
        return False
    if a.metadata is not None and b.metadata is not None and a.metadata.text.strip() != b.metadata.text.strip():
        return False
    b_types = {t.name: d for t, d in b.type_defs.items()}
    for gtv, data in a.type_defs.items():
        if not _Equiv().type_data(data, b_types[gtv.name]):
            return False
    b_funcs = {g.name: f for g, f in b.functions.items()}
    for gv, func in a.functions.items():
        if not _Equiv().exprs(func, b_funcs[gv.name]):
            return False
    eq = _Equiv()
    if not all(map(eq.bind, a.free_vars, b.free_vars)):
        return False
    return a.expr is None or b.expr is None or eq.exprs(a.expr, b.expr)
