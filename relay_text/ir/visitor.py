"""The one traversal every pass builds on.

`ExprFunctor.visit` folds over an expression DAG bottom-up: each node is
visited once (results are memoised by node identity, so a shared subgraph is
not walked twice), children before their parent, with an explicit stack, so
a chain of 100,000 nested lets or calls costs no Python recursion.

A subclass defines `visit_<node>` methods (`visit_call`, `visit_let`, ...)
that read their children's results with `self.memo[child]`. A node class
listed in `pre_order` is handed to its method before its children instead,
for a pass that must act between children (a type checker binds a let's
variable after typing its value and before its body). Such a method may be
a generator: it yields a child, the child is visited (on the same explicit
stack, so a chain of 100,000 lets still costs no recursion), and the yield
returns the child's result; what the generator returns is the node's result.
A generator may also yield `Delegate(other, expr)`: `expr` is visited by
`other`, another functor with its own memo and methods (a function body
exported under new bindings, a branch into another graph), on the same
explicit stack, and the yield returns `other`'s result; so a chain of
100,000 such hand-overs costs no recursion either. A plain method may also
walk children itself with `self.visit`, at the cost of one level of
recursion per nesting. Visiting a node class that has no
method raises `NotImplementedError`, so a pass never skips a construct
silently.
"""

from __future__ import annotations

from types import GeneratorType
from typing import Any, ClassVar, Generic, TypeAlias, TypeVar
from collections.abc import Callable

from .expr import (
    Call,
    Expr,
    Function,
    If,
    Let,
    Match,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    Var,
)

# a node's children in evaluation order, from the one description of the nodes
from .schema import CHILDREN
from .schema import children as children  # re-exported: the visitor's callers read children here

R = TypeVar("R")

# A work-stack entry: (node, expanded) or (node, generator, child awaited).
_Entry: TypeAlias = tuple[Any, ...]
# A generator handing a child to another functor: (node, generator, Delegate).
_Request: TypeAlias = tuple[Expr, Any, "Delegate"]


def _snake(name: str) -> str:
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i:
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


class ExprFunctor(Generic[R]):
    """Bottom-up, memoised, iterative fold over an expression DAG."""

    pre_order: ClassVar[frozenset[type]] = frozenset()
    _methods: ClassVar[dict[type, Callable[..., Any]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._methods = {}
        for node_type in CHILDREN:
            method = getattr(cls, "visit_" + _snake(node_type.__name__), None)
            if method is not None:
                cls._methods[node_type] = method

    def __init__(self) -> None:
        self.memo: dict[Expr, R] = {}

    def visit(self, expr: Expr) -> R:
        memo = self.memo
        if expr in memo:
            return memo[expr]
        functor: ExprFunctor[Any] = self
        target = expr
        stack: list[_Entry] = [(expr, False)]
        # Frames waiting for a delegated visit: (functor, stack, target, node, generator).
        suspended: list[tuple[ExprFunctor[Any], list[_Entry], Expr, Expr, Any]] = []
        while True:
            request = functor._run(stack)
            while request is None:
                result: R = functor.memo[target]
                if not suspended:
                    return result
                functor, stack, target, node, gen = suspended.pop()
                request = functor._advance(node, gen, result, stack)
                if request is None:
                    request = functor._run(stack)
            node, gen, delegate = request
            suspended.append((functor, stack, target, node, gen))
            functor, target = delegate.functor, delegate.expr
            stack = [(target, False)]

    def _run(self, stack: list[_Entry]) -> _Request | None:
        """Visit what `stack` holds; a (node, generator, Delegate) when a
        generator hands a child to another functor, else None."""
        memo = self.memo
        methods = self._methods
        pre_order = self.pre_order
        # Entries: (node, False) to expand, (node, True) to finish, or
        # (node, generator, child) to resume a generator once child is done.
        while stack:
            entry = stack.pop()
            if len(entry) == 3:
                node, gen, child = entry
                request = self._advance(node, gen, memo[child], stack)
                if request is not None:
                    return request
                continue
            node, expanded = entry
            if node in memo:
                continue
            node_type = type(node)
            if expanded or node_type in pre_order:
                method = methods.get(node_type)
                if method is None:
                    raise NotImplementedError(f"{type(self).__name__} does not handle {node_type.__name__}")
                result = method(self, node)
                if type(result) is GeneratorType:
                    request = self._advance(node, result, None, stack)
                    if request is not None:
                        return request
                else:
                    memo[node] = result
                continue
            kids = CHILDREN[node_type](node)
            stack.append((node, True))
            for child in reversed(kids):
                if child not in memo:
                    stack.append((child, False))
        return None

    def _advance(self, node: Expr, gen: Any, value: Any, stack: list[_Entry]) -> _Request | None:
        """Resume a generator method until it yields a child not yet visited
        (pushed on `stack`) or a `Delegate` whose result is not known yet
        (returned as (node, generator, Delegate))."""
        memo = self.memo
        try:
            child = gen.send(value)
            while True:
                if type(child) is Delegate:
                    done = child.functor.memo
                    if child.expr not in done:
                        return (node, gen, child)
                    child = gen.send(done[child.expr])
                elif child in memo:
                    child = gen.send(memo[child])
                else:
                    break
        except StopIteration as stop:
            memo[node] = stop.value
            return None
        stack.append((node, gen, child))
        stack.append((child, False))
        return None


class Delegate:
    """Yielded by a generator method: visit `expr` with `functor` (see `ExprFunctor`)."""

    __slots__ = ("expr", "functor")

    def __init__(self, functor: ExprFunctor[Any], expr: Expr) -> None:
        self.functor = functor
        self.expr = expr


class ExprVisitor(ExprFunctor[None]):
    """Walks every node once; override the `visit_*` methods of interest."""

    def _ignore(self, node: Any) -> None:  # (Any: an override takes its own node class)
        return None

    visit_var = visit_global_var = visit_constant = visit_op = visit_constructor = _ignore
    visit_tuple = visit_tuple_get_item = visit_let = visit_function = visit_call = _ignore
    visit_if = visit_match = visit_ref_create = visit_ref_read = visit_ref_write = _ignore


def _same(old: tuple[Any, ...], new: tuple[Any, ...]) -> bool:
    return all(a is b for a, b in zip(old, new, strict=False))


class ExprMutator(ExprFunctor[Expr]):
    """Rebuilds a DAG bottom-up; a node whose children are unchanged is kept.

    Sharing is preserved: a node used twice is rebuilt once.
    """

    def _keep(self, node: Expr) -> Expr:
        return node

    visit_var = visit_global_var = visit_constant = visit_op = visit_constructor = _keep

    def visit_tuple(self, node: Tuple) -> Expr:
        fields = tuple(self.memo[f] for f in node.fields)
        return node if _same(node.fields, fields) else Tuple(fields, node.span)

    def visit_tuple_get_item(self, node: TupleGetItem) -> Expr:
        value = self.memo[node.tuple_value]
        return node if value is node.tuple_value else TupleGetItem(value, node.index, node.span)

    def visit_let(self, node: Let) -> Expr:
        var, value, body = self.memo[node.var], self.memo[node.value], self.memo[node.body]
        if var is node.var and value is node.value and body is node.body:
            return node
        assert isinstance(var, Var)
        return Let(var, value, body, node.span)

    def visit_function(self, node: Function) -> Expr:
        params = tuple(self.memo[p] for p in node.params)
        body = self.memo[node.body]
        if body is node.body and _same(node.params, params):
            return node
        return Function(params, body, node.ret_type, node.type_params, node.relations, node.attrs, node.span)  # type: ignore[arg-type]  # visit_var maps a parameter to a Var

    def visit_call(self, node: Call) -> Expr:
        op = self.memo[node.op]
        args = tuple(self.memo[a] for a in node.args)
        if op is node.op and _same(node.args, args):
            return node
        return Call(op, args, node.attrs, node.type_args, node.span, node.infix)

    def visit_if(self, node: If) -> Expr:
        c, t, e = self.memo[node.cond], self.memo[node.then_branch], self.memo[node.else_branch]
        if c is node.cond and t is node.then_branch and e is node.else_branch:
            return node
        return If(c, t, e, node.span)

    def visit_match(self, node: Match) -> Expr:
        from .expr import Clause

        data = self.memo[node.data]
        bodies = tuple(self.memo[c.body] for c in node.clauses)
        if data is node.data and _same(tuple(c.body for c in node.clauses), bodies):
            return node
        clauses = tuple(Clause(c.pattern, b, c.span) for c, b in zip(node.clauses, bodies, strict=False))
        return Match(data, clauses, node.complete, node.span)

    def visit_ref_create(self, node: RefCreate) -> Expr:
        value = self.memo[node.value]
        return node if value is node.value else RefCreate(value, node.span)

    def visit_ref_read(self, node: RefRead) -> Expr:
        ref = self.memo[node.ref]
        return node if ref is node.ref else RefRead(ref, node.span)

    def visit_ref_write(self, node: RefWrite) -> Expr:
        ref, value = self.memo[node.ref], self.memo[node.value]
        if ref is node.ref and value is node.value:
            return node
        return RefWrite(ref, value, node.span)


def post_order(expr: Expr) -> list[Expr]:
    """Every node reachable from `expr`, each once, children before parents."""
    order: list[Expr] = []

    class _Collect(ExprVisitor):
        def _record(self, node: Expr) -> None:
            order.append(node)

        visit_var = visit_global_var = visit_constant = visit_op = visit_constructor = _record
        visit_tuple = visit_tuple_get_item = visit_let = visit_function = visit_call = _record
        visit_if = visit_match = visit_ref_create = visit_ref_read = visit_ref_write = _record

    _Collect().visit(expr)
    return order
