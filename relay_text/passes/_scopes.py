"""Scopes of a function's nodes, and rebuilding it with `let` bindings.

A function body, a branch of `if` and a clause of `match` open a scope (a
`let` does not: its body continues its block). Each node belongs to the
innermost scope that holds all of its uses: the lowest common ancestor of
the scopes of the edges that reach it, as TVM's dependency-graph scoping
decides (`CalcScope`). A node whose scope is not the scope of its first use
has been *lifted*: it is shared by several scopes.

`bind_lets(fn, everything)` rebuilds a function so that compound
expressions are bound by `let` at their scope, in evaluation order:
all of them (A-normal form) or only the lifted ones (basic-block normal
form). Functions marked `Primitive=1` are kept as they are. Both steps walk
an explicit stack: no recursion over the program.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from ..ir.expr import (
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
    Op,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    Var,
)
from ..ir.schema import edges

ATOMS = (Var, GlobalVar, Op, Constructor)


class Scope:
    __slots__ = ("bindings", "depth", "parent")

    def __init__(self, parent: Scope | None) -> None:
        self.parent = parent
        self.depth: int = 0 if parent is None else parent.depth + 1
        self.bindings: list[tuple[Var, Expr]] = []


def lca(a: Scope, b: Scope) -> Scope:
    while a is not b:
        if a.depth > b.depth:
            a = a.parent  # type: ignore[assignment]  # a deeper scope has a parent
        elif b.depth > a.depth:
            b = b.parent  # type: ignore[assignment]
        else:
            a, b = a.parent, b.parent  # type: ignore[assignment]
    return a


def is_primitive(node: Expr) -> bool:
    return type(node) is Function and any(k == "Primitive" and v not in (0, False, None) for k, v in node.attrs)


def walk(root: Expr, descend: Callable[[Expr], bool], lets: bool = False) -> list[Any]:
    """Nodes reachable from `root`, each once, children before parents (in
    evaluation order); the children of a node for which `descend` is false
    are not entered. With `lets`, a `let` also appears as `(LET_VALUE,
    node)` between its value's nodes and its body's."""
    order: list[Any] = []
    seen: set[int] = set()
    stack: list[tuple[Any, int]] = [(root, 0)]
    while stack:
        node, state = stack.pop()
        if state == 1:
            order.append(node)
            continue
        if state == 2:
            order.append((LET_VALUE, node))
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, 1))
        if not descend(node):
            continue
        kids = edges(node)
        if lets and type(node) is Let:
            stack.append((node.body, 0))
            stack.append((node, 2))
            stack.append((node.value, 0))
            continue
        for child, _role, _scope, _index in reversed(kids):
            if id(child) not in seen:
                stack.append((child, 0))
    return order


LET_VALUE = "let-value"


class Scoping:
    """Each node's scope, and the scopes each node opens (see the module docstring)."""

    def __init__(self, fn: Function) -> None:
        self.root = Scope(None)
        self.steps = walk(fn.body, lambda n: not is_primitive(n), lets=True)
        self.order = [n for n in self.steps if type(n) is not tuple]
        self.scope: dict[Expr, Scope] = {}
        self.opened: dict[tuple[int, str, int], Scope] = {}
        self.lifted: set[Expr] = set()
        incoming: dict[Expr, list[tuple[Expr, str | None, int]]] = {}
        for node in self.order:
            if is_primitive(node):
                continue
            for child, _role, kind, index in edges(node):
                incoming.setdefault(child, []).append((node, kind, index))
        for node in reversed(self.order):
            uses = incoming.get(node)
            if not uses:
                scope = self.root
            else:
                first = self._edge_scope(*uses[0])
                scope = first
                for use in uses[1:]:
                    scope = lca(scope, self._edge_scope(*use))
                if scope is not first and not isinstance(node, Op):
                    self.lifted.add(node)
            self.scope[node] = scope

    def _edge_scope(self, parent: Expr, kind: str | None, index: int) -> Scope:
        scope = self.scope[parent]
        if kind is None:
            return scope
        key = (id(parent), kind, index)
        found = self.opened.get(key)
        if found is None:
            found = self.opened[key] = Scope(scope)
        return found

    def child_scope(self, parent: Expr, kind: str, index: int = 0) -> Scope:
        return self._edge_scope(parent, kind, index)


def wrap(scope: Scope, result: Expr) -> Expr:
    """The bindings of a scope, in order, ending in `result`."""
    body = result
    for var, value in reversed(scope.bindings):
        body = Let(var, value, body)
    return body


def bind_lets(fn: Function, everything: bool) -> Function:
    """`fn` with compound expressions bound by `let` at their scopes: every
    one (`everything`, A-normal form) or only those shared by several scopes
    (basic-block normal form). A `let` of the source keeps its variable."""
    scoping = Scoping(fn)
    new: dict[Expr, Expr] = {}
    counter = [0]
    # A let's value is bound to the let's own variable.
    named: dict[Expr, Var] = {}
    for node in scoping.order:
        if type(node) is Let and not isinstance(node.value, ATOMS):
            named.setdefault(node.value, node.var)

    def compound(node: Expr, built: Expr) -> Expr:
        var = named.get(node)
        if var is None:
            if not everything and node not in scoping.lifted:
                return built
            var = Var(f"x{counter[0]}")
            counter[0] += 1
        scoping.scope[node].bindings.append((var, built))
        return var

    for node in scoping.steps:
        t = type(node)
        if t is tuple:  # between a let's value and its body: its variable is bound
            let = node[1]
            value = new[let.value]
            if value is not let.var:  # an atom, or a value bound before under another name
                scoping.scope[let].bindings.append((let.var, value))
            continue
        if t in (Var, GlobalVar, Op, Constructor):
            new[node] = node
        elif t is Constant:
            new[node] = compound(node, node) if everything else node
        elif is_primitive(node):
            new[node] = compound(node, node)
        elif t is Call:
            new[node] = compound(
                node,
                Call(
                    new[node.op],
                    tuple(new[a] for a in node.args),
                    node.attrs,
                    node.type_args,
                    node.span,
                    node.infix,
                    node.attrs_ref,
                ),
            )
        elif t is Tuple:
            new[node] = compound(node, Tuple(tuple(new[f] for f in node.fields), node.span))
        elif t is TupleGetItem:
            new[node] = compound(node, TupleGetItem(new[node.tuple_value], node.index, node.span))
        elif t is RefCreate:
            new[node] = compound(node, RefCreate(new[node.value], node.span))
        elif t is RefRead:
            new[node] = compound(node, RefRead(new[node.ref], node.span))
        elif t is RefWrite:
            new[node] = compound(node, RefWrite(new[node.ref], new[node.value], node.span))
        elif t is If:
            then = wrap(scoping.child_scope(node, "then"), new[node.then_branch])
            other = wrap(scoping.child_scope(node, "else"), new[node.else_branch])
            new[node] = compound(node, If(new[node.cond], then, other, node.span))
        elif t is Match:
            clauses = tuple(
                Clause(c.pattern, wrap(scoping.child_scope(node, "clause", i), new[c.body]), c.span)
                for i, c in enumerate(node.clauses)
            )
            new[node] = compound(node, Match(new[node.data], clauses, node.complete, node.span))
        elif t is Function:
            body = wrap(scoping.child_scope(node, "fn"), new[node.body])
            new[node] = compound(
                node,
                Function(node.params, body, node.ret_type, node.type_params, node.relations, node.attrs, node.span),
            )
        elif t is Let:
            new[node] = new[node.body]
        else:  # pragma: no cover - every node class is handled above
            raise NotImplementedError(t.__name__)
    body = wrap(scoping.root, new[fn.body])
    return Function(fn.params, body, fn.ret_type, fn.type_params, fn.relations, fn.attrs, fn.span)
