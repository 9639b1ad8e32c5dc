"""From a checked module to its dataflow graph (`model.Graph`).

Two walks per function, both on the traversal base (`ir.visitor`), so a
function of 100,000 chained calls costs no recursion:

1. Scopes, parents before children (the reversed post-order): each node is
   placed in the innermost scope that holds all its uses, as the printer
   places a graph binding; a `let`'s value stays where the `let` is (it is
   evaluated there), a parameter in its function, a pattern variable in its
   clause. Each `if`, `match` and function literal opens groups there.
2. Nodes and edges, children before parents (`ExprVisitor`): a `let` is
   not drawn, its variable's uses are edges from its value; operators,
   globals and constructors are written on the call that uses them; a
   global or constructor used as a value gets a node per use.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from ..ir.expr import (
    Call,
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
from ..ir.module import Module
from ..ir.pattern import pattern_vars
from ..ir.schema import edges
from ..ir.span import Span
from ..ir.ty import FuncType
from ..ir.visitor import ExprFunctor, post_order
from . import model as m
from .labels import attr_text, pattern_text, shape_caption

TYPE_LIMIT = 2000  # characters of a type's text kept for the details panel
LABEL_LIMIT = 28  # characters of a constant's text on its box

_LEAF_REFS = (GlobalVar, Constructor, Op)


class _Scopes:
    """Pass 1: the group of every node of one function."""

    def __init__(self, graph: m.Graph, root_group: int) -> None:
        self.graph = graph
        self.scope: dict[Expr, int] = {}
        self.opened: dict[Expr, tuple[int, ...]] = {}  # if/match/fn node -> its groups
        self.let_of: dict[Var, Let] = {}
        self.params: dict[Var, int] = {}
        self.patterns: dict[Var, int] = {}
        self.root_group = root_group
        self.value_name: dict[Expr, str] = {}  # a let's value -> `%var`

    def lca(self, a: int | None, b: int) -> int:
        if a is None or a == b:
            return b
        groups = self.graph.groups
        while groups[a].depth > groups[b].depth:
            a = groups[a].parent
        while groups[b].depth > groups[a].depth:
            b = groups[b].parent
        while a != b:
            a, b = groups[a].parent, groups[b].parent
        return a

    def new_group(self, kind: str, label: str, parent: int, node: Any = None) -> int:
        groups = self.graph.groups
        gid = len(groups)
        depth = groups[parent].depth + 1 if parent >= 0 else 0
        groups.append(m.Group(gid, kind, label, parent, where=_where(getattr(node, "span", None)), depth=depth))
        return gid

    def run(self, root: Expr, pattern_text: Callable[[Any], str]) -> list[Expr]:
        """Place every node; the nodes in post-order (children first), for pass 2."""
        scope = self.scope
        scope[root] = self.root_group
        order = post_order(root)
        for node in reversed(order):
            here = scope.get(node)
            if here is None:  # unreachable: every node but the root has a parent
                here = scope[node] = self.root_group
            # the groups of the scopes the node opens, by the schema's (scope kind, index)
            inner: dict[tuple[str, int], int] = {}
            if isinstance(node, Function):
                gid = self.root_group if node is root else self.new_group(m.FN, self.fn_label(node), here, node)
                self.opened[node] = (gid,)
                for p in node.params:
                    self.params[p] = gid
                    scope[p] = gid
                inner[("fn", 0)] = gid
            elif isinstance(node, If):
                gid = self.new_group(m.IF, "if", here, node)
                then = self.new_group(m.THEN, "then", gid, node.then_branch)
                other = self.new_group(m.ELSE, "else", gid, node.else_branch)
                self.opened[node] = (gid, then, other)
                inner[("then", 0)] = then
                inner[("else", 0)] = other
            elif isinstance(node, Match):
                gid = self.new_group(m.MATCH, "match" if node.complete else "match?", here, node)
                clauses = []
                for i, clause in enumerate(node.clauses):
                    cid = self.new_group(m.CLAUSE, "case " + pattern_text(clause.pattern), gid, clause)
                    clauses.append(cid)
                    for var in pattern_vars(clause.pattern):
                        self.patterns[var] = cid
                        scope[var] = cid
                    inner[("clause", i)] = cid
                self.opened[node] = (gid, *clauses)
            elif isinstance(node, Let):
                self.let_of[node.var] = node
                self.value_name[node.value] = "%" + node.var.name
            # every child is used in the node's scope or in the one its edge opens
            for child, _role, kind, index in edges(node):
                self._use(child, here if kind is None else inner[(kind, index)])
        return order

    def fn_label(self, func: Function) -> str:
        params = ", ".join("%" + p.name for p in func.params)
        if len(params) > 48:
            params = params[:47] + "…"
        name = self.value_name.get(func)
        return f"fn {name}({params})" if name else f"fn({params})"

    def _use(self, child: Expr, where: int) -> None:
        if isinstance(child, Var) and (child in self.params or child in self.patterns):
            return
        self.scope[child] = self.lca(self.scope.get(child), where)


def _where(span: Span | None) -> m.Where | None:
    if span is None:
        return None
    line, col = span.start_line_col
    end_line, end_col = span.source.line_col(span.end)
    return m.Where(line, col, end_line, end_col)


class _Nodes(ExprFunctor[None]):
    """Pass 2: nodes and edges of one function, children before parents."""

    def __init__(self, builder: GraphBuilder, scopes: _Scopes, root: Expr) -> None:
        super().__init__()
        self.b = builder
        self.s = scopes
        self.root = root
        self.vis: dict[Expr, int] = {}
        self.let_vis: dict[Var, int] = {}

    def walk(self, order: list[Expr]) -> None:
        """Visit the nodes of pass 1's post-order, each once, children first:
        what `visit(root)` does, without walking the function a second time."""
        methods = self._methods
        for node in order:
            methods[type(node)](self, node)

    # references --------------------------------------------------------

    def ref(self, child: Expr, group: int) -> int:
        """The node or group that stands for `child` used in `group`."""
        while isinstance(child, Var) and child in self.s.let_of:
            known = self.let_vis.get(child)
            if known is not None:
                return known
            let = self.s.let_of[child]
            value = let.value
            if isinstance(value, _LEAF_REFS):
                ref = self.let_vis[child] = self.b.leaf(value, self.s.scope[let])
                return ref
            child = value
        if isinstance(child, _LEAF_REFS):
            return self.b.leaf(child, group)
        if isinstance(child, Function):  # known before its body is done: it may call itself
            return m.group_ref(self.s.opened[child][0])
        found = self.vis.get(child)
        if found is None:  # a free variable of the trailing expression
            found = self.vis[child] = self.b.var_node(child, m.PARAM, self.s.root_group)  # type: ignore[arg-type]  # only a Var has no visual yet
        return found

    def edge(self, child: Expr, dst: int, index: int, role: str, group: int) -> None:
        src = self.ref(child, group)
        self.b.edge(src, dst, index, role, group)

    # nodes -------------------------------------------------------------

    def visit_var(self, node: Var) -> None:
        gid = self.s.params.get(node)
        if gid is None:
            gid = self.s.patterns.get(node)
            if gid is None:
                return
            self.vis[node] = self.b.var_node(node, m.PATTERN, gid)
            return
        self.vis[node] = self.b.var_node(node, m.PARAM, gid)

    def visit_constant(self, node: Constant) -> None:
        self.vis[node] = self.b.const_node(node, self.s.scope[node])

    def visit_call(self, node: Call) -> None:
        group = self.s.scope[node]
        nid = self.vis[node] = self.b.call_node(node, group)
        if not isinstance(node.op, _LEAF_REFS):
            callee = self.ref(node.op, group)
            if m.is_group(callee) and self.b.encloses(m.group_id(callee), group):
                self.b.graph.nodes[nid].link = f"group:{m.group_id(callee)}"
            else:
                self.b.edge(callee, nid, 0, m.CALLEE, group)
        for i, arg in enumerate(node.args):
            self.edge(arg, nid, i, m.ARG, group)

    def visit_tuple(self, node: Tuple) -> None:
        group = self.s.scope[node]
        nid = self.vis[node] = self.b.node(node, m.TUPLE, "tuple", group)
        for i, f in enumerate(node.fields):
            self.edge(f, nid, i, m.ARG, group)

    def visit_tuple_get_item(self, node: TupleGetItem) -> None:
        group = self.s.scope[node]
        nid = self.vis[node] = self.b.node(node, m.PROJECT, f".{node.index}", group)
        self.edge(node.tuple_value, nid, 0, m.ARG, group)

    def _ref_op(self, node: Expr, label: str, children: tuple[Expr, ...]) -> None:
        group = self.s.scope[node]
        nid = self.vis[node] = self.b.node(node, m.REF, label, group)
        for i, child in enumerate(children):
            self.edge(child, nid, i, m.ARG, group)

    def visit_ref_create(self, node: RefCreate) -> None:
        self._ref_op(node, "ref", (node.value,))

    def visit_ref_read(self, node: RefRead) -> None:
        self._ref_op(node, "ref_read", (node.ref,))

    def visit_ref_write(self, node: RefWrite) -> None:
        self._ref_op(node, "ref_write", (node.ref, node.value))

    def visit_let(self, node: Let) -> None:
        self.vis[node] = self.ref(node.body, self.s.scope[node])

    def visit_function(self, node: Function) -> None:
        (gid,) = self.s.opened[node]
        self.vis[node] = m.group_ref(gid)
        self.edge(node.body, m.group_ref(gid), 0, m.RESULT, gid)

    def visit_if(self, node: If) -> None:
        gid, then, other = self.s.opened[node]
        self.vis[node] = m.group_ref(gid)
        self.edge(node.cond, m.group_ref(gid), 0, m.COND, self.s.scope[node])
        self.edge(node.then_branch, m.group_ref(then), 0, m.RESULT, then)
        self.edge(node.else_branch, m.group_ref(other), 0, m.RESULT, other)
        self.b.edge(m.group_ref(then), m.group_ref(gid), 0, m.RESULT, gid)
        self.b.edge(m.group_ref(other), m.group_ref(gid), 1, m.RESULT, gid)

    def visit_match(self, node: Match) -> None:
        gid, *clauses = self.s.opened[node]
        self.vis[node] = m.group_ref(gid)
        self.edge(node.data, m.group_ref(gid), 0, m.DATA, self.s.scope[node])
        for i, (clause, cid) in enumerate(zip(node.clauses, clauses, strict=False)):
            for var in pattern_vars(clause.pattern):  # drawn even where unused
                if var not in self.vis:
                    self.vis[var] = self.b.var_node(var, m.PATTERN, cid)
            self.edge(clause.body, m.group_ref(cid), 0, m.RESULT, cid)
            self.b.edge(m.group_ref(cid), m.group_ref(gid), i, m.RESULT, gid)

    def visit_global_var(self, node: GlobalVar) -> None:
        return None  # written on its call, or a node per use (`ref`)

    def visit_op(self, node: Op) -> None:
        return None

    def visit_constructor(self, node: Constructor) -> None:
        return None


class GraphBuilder:
    """Builds the graph of a module, one function at a time."""

    def __init__(self, module: Module, types: Callable[[Expr], Any], global_types: Any = None) -> None:
        self.module = module
        self.types = types
        self.global_types = global_types if global_types is not None else {}
        self.graph = m.Graph(source_name=module.source.name if module.source is not None else "")
        self.names = module.positions.graph_names
        self.let_names: dict[int, str] = {}
        self._typed: dict[Any, tuple[str, str, str, str]] = {}

    # the module --------------------------------------------------------

    def build(self) -> m.Graph:
        module = self.module
        for gv in module.order:
            if not isinstance(gv, GlobalVar):
                continue
            func = module.functions.get(gv)
            if func is not None:
                self.function(func, "@" + gv.name, self.global_types.get(gv) or self.types(gv))
        if module.expr is not None:
            gid = self.function(module.expr, "", self.types(module.expr))
            self.graph.groups[gid].label = "fn" if isinstance(module.expr, Function) else "expression"
        return self.graph

    def function(self, root: Expr, name: str, ty: Any) -> int:
        from ..text.type_text import type_text

        groups = self.graph.groups
        gid = len(groups)
        groups.append(
            m.Group(
                gid,
                m.FUNCTION,
                name or "expression",
                -1,
                name=name,
                type=type_text(ty, limit=TYPE_LIMIT) if ty is not None else "",
                where=_where(getattr(root, "span", None)),
            )
        )
        scopes = _Scopes(self.graph, gid)
        order = scopes.run(root, pattern_text)
        for var, let in scopes.let_of.items():
            self.let_names[id(let.value)] = "%" + var.name
        nodes = _Nodes(self, scopes, root)
        if root is self.module.expr:  # its `free_var`s first, as parameters
            for var in self.module.free_vars:
                nodes.vis[var] = self.var_node(var, m.PARAM, gid)
        nodes.walk(order)
        if not isinstance(root, Function):
            nodes.edge(root, m.group_ref(gid), 0, m.RESULT, gid)
        return gid

    # nodes -------------------------------------------------------------

    def _type_texts(self, ty: Any) -> tuple[str, str, str, str]:
        """(type text, shape, dtype, caption) of a type, computed once per type."""
        from ..text.type_text import type_text

        try:
            return self._typed[ty]
        except KeyError:
            pass
        except TypeError:  # a type holding something unhashable
            return (type_text(ty, limit=TYPE_LIMIT), *shape_caption(ty))
        texts = self._typed[ty] = (type_text(ty, limit=TYPE_LIMIT) if ty is not None else "", *shape_caption(ty))
        return texts

    def node(self, expr: Any, kind: str, label: str, group: int) -> int:
        nodes = self.graph.nodes
        nid = len(nodes)
        text, shape, dtype, caption = self._type_texts(self.types(expr))
        name = self.names.get(id(expr))
        node = m.Node(
            nid,
            kind,
            label,
            group,
            name="%" + name if name is not None else self.let_names.get(id(expr), ""),
            type=text,
            shape=shape,
            dtype=dtype,
            caption=caption,
            where=self._where(getattr(expr, "span", None)),
        )
        nodes.append(node)
        return nid

    def _where(self, span: Span | None) -> m.Where | None:
        where = _where(span)
        if where is not None and span is not None and where.line not in self.graph.lines:
            self.graph.lines[where.line] = span.source.line_text(where.line)
        return where

    def var_node(self, var: Var, kind: str, group: int) -> int:
        return self.node(var, kind, "%" + var.name, group)

    def const_node(self, const: Constant, group: int) -> int:
        if const.meta_index is not None:
            label = f"meta[{const.meta_index}]"
        elif const.span is not None:
            label = " ".join(const.span.text.split())
        else:
            label = repr(const.value)
        if len(label) > LABEL_LIMIT:
            label = label[: LABEL_LIMIT - 1] + "…"
        return self.node(const, m.CONST, label, group)

    def call_node(self, call: Call, group: int) -> int:
        from ..summary.costs import macs

        op = call.op
        if isinstance(op, Op):
            nid = self.node(call, m.OP, op.name, group)
            node = self.graph.nodes[nid]
            node.op = op.name
            node.attrs = [(k, attr_text(v)) for k, v in call.attrs]
            fn_type = self.types(op)
            if isinstance(fn_type, FuncType):
                node.macs = macs(op.name, list(fn_type.arg_types), fn_type.ret_type, call.attrs)
            return nid
        if isinstance(op, GlobalVar):
            nid = self.node(call, m.CALL, "@" + op.name, group)
            self.graph.nodes[nid].link = "@" + op.name
            self.graph.nodes[nid].op = "@" + op.name
            return nid
        if isinstance(op, Constructor):
            nid = self.node(call, m.CONSTRUCTOR, op.name, group)
            self.graph.nodes[nid].op = op.name
            return nid
        label = f"%{op.name}(…)" if isinstance(op, Var) else "call"
        nid = self.node(call, m.CALL, label, group)
        self.graph.nodes[nid].op = "%" + op.name if isinstance(op, Var) else ""
        return nid

    def leaf(self, expr: Expr, group: int) -> int:
        """A node for one use of a global, constructor or operator as a value."""
        if isinstance(expr, GlobalVar):
            nid = self.node(expr, m.GLOBAL, "@" + expr.name, group)
            self.graph.nodes[nid].link = "@" + expr.name
        elif isinstance(expr, Constructor):
            nid = self.node(expr, m.CONSTRUCTOR, expr.name, group)
        else:
            assert isinstance(expr, Op)
            nid = self.node(expr, m.OP, expr.name, group)
        node = self.graph.nodes[nid]
        node.where = None  # a shared object: its span is one use among many
        return nid

    # edges -------------------------------------------------------------

    def encloses(self, outer: int, inner: int) -> bool:
        groups = self.graph.groups
        while inner >= 0:
            if inner == outer:
                return True
            inner = groups[inner].parent
        return False

    def edge(self, src: int, dst: int, index: int, role: str, group: int) -> None:
        if m.is_group(src) and self.encloses(m.group_id(src), group):
            return  # a closure used inside itself: its call carries a link instead
        self.graph.edges.append(m.Edge(src, dst, index, role))


def module_graph(module: Module, types: Callable[[Expr], Any], global_types: Any = None) -> m.Graph:
    """The dataflow graph of every function of `module` (and its trailing
    expression); `types` gives a node's inferred type (None if unknown),
    `global_types` (a mapping) each global's."""
    return GraphBuilder(module, types, global_types).build()
