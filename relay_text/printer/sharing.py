"""Which nodes the printer names with `%n = ...` temporaries, and where.

A parsed program is a DAG: a graph binding makes every use of `%1` the same
node. Printed as a tree, a shared node would be repeated (exponentially, in
a chain of diamonds), so the printer binds it once to a temporary:

- variables, globals, operators, constructors and scalar constants are
  atoms, always printed inline;
- a node used more than once is *bound*; so is, in the TVM dialect, every
  non-atomic operand of a call, tuple, projection, `if` condition, `match`
  subject or reference operation (TVM printed that way); in the documented
  dialect, an expression nested more than `MAX_INLINE_DEPTH` operands deep
  is bound too, so that lines stay readable and output stays linear;
- when the formatter keeps the author's form (`keep`), a node read from
  the source and used once stays as the source wrote it: nested where it
  was written nested, bound where it was bound, in both dialects (TVM's
  hoisting applies to nodes without source text only); only a node nested
  more than `MAX_KEPT_DEPTH` operands deep is bound, so that the output
  stays linear in the input;
- a node whose source text carries a comment stays as the source wrote it:
  bound if it was a graph binding, inline if it was written inline, so that
  its comments keep their place and their order.

A binding is printed in a *scope*: a function body, an `if` branch, a
match clause, a block (`{ let ...; e }`) or the top level. Its scope is the
innermost one that contains all its uses; if the node came from source text,
it is the scope where the source wrote it (never deeper), so the formatter
does not move a user's binding into a branch. `Plan` computes all of this
in three linear passes over the DAG: uses (a depth-first walk), decisions
(children before parents) and scopes (parents before children).
"""

from __future__ import annotations

from typing import Any

from ..ir.expr import Constant, Constructor, Expr, GlobalVar, Let, Match, Op, Var
from ..ir.pattern import pattern_vars
from ..ir.schema import (  # edge roles, from the one description of the nodes
    CHILDREN,
    OPERAND,
    TAIL,
    edges,
)
from ..ir.visitor import ExprVisitor
from .comments import Comments
from .layout import Doc

MAX_INLINE_DEPTH = 12
MAX_KEPT_DEPTH = 200  # written nesting kept up to this depth

_ATOM_TYPES = (Var, GlobalVar, Op, Constructor)


def is_atom(node: Expr) -> bool:
    """Printed inline wherever it is used."""
    if isinstance(node, _ATOM_TYPES):
        return True
    if isinstance(node, Constant):
        return node.meta_index is not None or node.shape == ()
    return False


class Scope:
    """Where statements can be printed; `bound` lists the bindings it holds."""

    __slots__ = ("bound", "depth", "flushed", "index", "kind", "owner", "parent", "stmts")

    def __init__(self, parent: Scope | None, owner: Any, kind: str, index: int = 0) -> None:
        self.parent = parent
        self.depth: int = 0 if parent is None else parent.depth + 1
        self.owner = owner
        self.kind = kind
        self.index = index
        self.bound: list[Expr] = []
        self.stmts: list[tuple[Doc, bool]] | None = None  # (statement, empty line before) while printed
        self.flushed = 0

    def __repr__(self) -> str:
        return f"Scope({self.kind}, depth={self.depth})"

    def source_range(self) -> tuple[int, int] | None:
        owner = self.owner
        if owner is None:
            return None
        span = owner.clauses[self.index].span if self.kind == "clause" else owner.span
        return (span.start, span.end) if span is not None else None


class _Uses(ExprVisitor):
    """The first pass of `Plan`: every node once, children before parents."""

    def __init__(self, plan: Plan, root: Expr) -> None:
        super().__init__()
        self.plan = plan
        self.order: list[Expr] = []
        self.uses: dict[Expr, int] = {root: 0}
        self.parent: dict[Expr, tuple[Expr, str]] = {}
        self.hoist: set[Expr] = set()

    def visit_var(self, node: Var) -> None:  # binders and uses alike
        self.plan.var_names.add(node.name)

    def _compound(self, node: Expr) -> None:
        plan = self.plan
        uses, parent, hoist = self.uses, self.parent, self.hoist
        if type(node) is Match:
            for clause in node.clauses:
                for v in pattern_vars(clause.pattern):
                    plan.var_names.add(v.name)
        mine = []
        for edge in edges(node):
            child = edge[0]
            ct = type(child)
            if ct is Var:
                plan.used_vars.add(child)
                continue
            if ct in _ATOM_TYPES or (ct is Constant and (child.meta_index is not None or child.shape == ())):
                continue
            mine.append(edge)
            role = edge[1]
            count = uses.get(child)
            if count is None:
                uses[child] = 1
                parent[child] = (node, role)
            else:
                uses[child] = count + 1
            if role == OPERAND:
                hoist.add(child)
        plan.kids[node] = mine
        self.order.append(node)

    visit_tuple = visit_tuple_get_item = visit_let = visit_function = visit_call = _compound
    visit_if = visit_match = visit_ref_create = visit_ref_read = visit_ref_write = _compound

    def visit_constant(self, node: Constant) -> None:
        if not is_atom(node):  # `Constant(1, (2, 2), float32)`: no children, but not an atom
            self._compound(node)


def var_names(root: Expr) -> set[str]:
    """Every variable name of `root` (binders, uses, pattern variables): the
    names `Plan.var_names` gathers, without the plan."""
    names: set[str] = set()
    seen: set[Expr] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        node_type = type(node)
        if isinstance(node, Var):
            names.add(node.name)
            continue
        if node in seen:
            continue
        seen.add(node)
        if isinstance(node, Match):
            for clause in node.clauses:
                for v in pattern_vars(clause.pattern):
                    names.add(v.name)
        stack.extend(CHILDREN[node_type](node))
    return names


def lca(a: Scope, b: Scope) -> Scope:
    while a.depth > b.depth:
        a = a.parent  # type: ignore[assignment]
    while b.depth > a.depth:
        b = b.parent  # type: ignore[assignment]
    while a is not b:
        a = a.parent  # type: ignore[assignment]
        b = b.parent  # type: ignore[assignment]
    return a


class Plan:
    """The printing decisions for one root (a definition or the module's expression)."""

    def __init__(
        self,
        root: Expr,
        tvm: bool,
        comments: Comments | None = None,
        written: dict[int, str] | None = None,
        keep: bool = False,
    ) -> None:
        self.root = root
        self.tvm = tvm
        self.keep = keep  # nodes read from the source keep their written form
        # nodes the source bound by name (id -> name): kept bound, with their names
        self.written = written or {}
        self.bound: set[Expr] = set()
        self.spine: set[Let] = set()  # lets printed as statements of their scope
        self.scope_of: dict[Expr, Scope] = {}  # bound node -> scope of its binding
        self.scopes: dict[tuple[Any, str, int], Scope] = {}
        self.used_vars: set[Var] = set()
        self.var_names: set[str] = set()
        self.kids: dict[Expr, list[tuple[Expr, str, str | None, int]]] = {}
        self.root_scope = Scope(None, None, "root")
        order, uses, parent, hoist = self._walk(root)
        self._decide(order, uses, parent, hoist, comments)
        self._place(order)

    # ---- pass 1: uses ------------------------------------------------------

    def _walk(self, root: Expr) -> tuple[list[Expr], dict[Expr, int], dict[Expr, tuple[Expr, str]], set[Expr]]:
        """Post-order of the non-atomic nodes, use counts, the parent of
        nodes used once, and nodes standing where TVM hoists operands.

        Also records each node's non-atomic children (`kids`) and every
        variable name (`var_names`), so that later passes need no other walk.
        """
        uses = _Uses(self, root)
        uses.visit(root)
        return uses.order, uses.uses, uses.parent, uses.hoist

    # ---- pass 2: which nodes are bound --------------------------------------

    def _decide(
        self,
        order: list[Expr],
        uses: dict[Expr, int],
        parent: dict[Expr, tuple[Expr, str]],
        hoist: set[Expr],
        comments: Comments | None,
    ) -> None:
        bound = self.bound
        root = self.root
        keep = self.keep
        height: dict[Expr, int] = {}
        for node in order:  # children before parents
            if node is root:
                continue
            if uses[node] > 1 or id(node) in self.written:
                bound.add(node)
                continue
            if comments:
                written = self._written(node, parent.get(node), comments)
                if written is not None:
                    if written:
                        bound.add(node)
                    continue
            written_here = keep and node.span is not None
            if self.tvm and node in hoist and not written_here:
                bound.add(node)
                continue
            h = 0
            for child, role, kind, _ in self.kids[node]:
                if role == OPERAND and kind is None and child in height and child not in bound:
                    ch = height[child] + 1
                    if ch > h:
                        h = ch
            if h > (MAX_KEPT_DEPTH if written_here else MAX_INLINE_DEPTH):
                bound.add(node)
            else:
                height[node] = h
        # Lets that continue a statement sequence.
        spine = self.spine
        for node in order:
            if type(node) is Let and node not in bound:
                up = parent.get(node)
                if node is root or (up is not None and up[1] == TAIL):
                    spine.add(node)
        if type(root) is Let:
            spine.add(root)

    @staticmethod
    def _written(node: Expr, up: tuple[Expr, str] | None, comments: Comments) -> bool | None:
        """For a node whose text carries comments: whether the source bound it
        (`%n = ...`) rather than writing it inline. None if it has no comments."""
        span = node.span
        if span is None or up is None or not comments.any_within(span.start, span.end + 1):
            return None
        pspan = up[0].span
        if (
            pspan is not None
            and pspan.start <= span.start
            and span.end <= pspan.end
            and (up[1] == OPERAND or pspan.start == span.start)
        ):
            # An operand's parent spans just its own text; the leftmost
            # part of a value (`Constant(...).0`) is not the value.
            return False
        return comments.written_as_binding(span.start)

    # ---- pass 3: scopes ----------------------------------------------------

    def scope(self, owner: Any, kind: str, index: int, parent: Scope) -> Scope:
        key = (owner, kind, index)
        found = self.scopes.get(key)
        if found is None:
            found = self.scopes[key] = Scope(parent, owner, kind, index)
        return found

    def is_block(self, node: Expr) -> bool:
        """A `let` printed as an expression (`{ let ...; e }`), not as statements."""
        return type(node) is Let and node not in self.spine

    def _place(self, order: list[Expr]) -> None:
        ctx: dict[Expr, Scope] = {self.root: self.root_scope}
        bound = self.bound
        scope_of = self.scope_of
        spine = self.spine
        for node in reversed(order):  # parents before children
            here = ctx.get(node)
            if here is None:  # a bound node: every use is known now
                here = self._source_scope(node, scope_of[node])
                scope_of[node] = here
                here.bound.append(node)
            inner = here
            if type(node) is Let and node not in spine:
                inner = self.scope(node, "block", 0, here)
            for child, _role, kind, index in self.kids[node]:
                use = self.scope(node, kind, index, here) if kind is not None else inner
                if child in bound:
                    known = scope_of.get(child)
                    scope_of[child] = use if known is None else lca(known, use)
                else:
                    ctx[child] = use
        for scope in self.scopes.values():
            if len(scope.bound) > 1:
                scope.bound.sort(key=_source_key)
        if len(self.root_scope.bound) > 1:
            self.root_scope.bound.sort(key=_source_key)

    @staticmethod
    def _source_scope(node: Expr, scope: Scope) -> Scope:
        """The scope where the source text bound `node`, if it encloses `scope`."""
        span = node.span
        if span is None:
            return scope
        found = scope
        while found.parent is not None and found.kind != "block":
            # (A block's braces are not in the IR: its range is unknown, so
            # a node stays in the block whose uses it serves.)
            rng = found.source_range()
            if rng is None or rng[0] <= span.start < rng[1]:
                break
            found = found.parent
        return found


def _source_key(node: Expr) -> int:
    span = node.span
    return span.start if span is not None else -1
