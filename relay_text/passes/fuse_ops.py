"""`FuseOps`: operators grouped into primitive functions, by TVM's rules.

Each group of operator calls becomes a function marked `Primitive=1`,
called where the group's last call stood, with the group's inputs as its
arguments (`%p0`, `%p1`, ...), as TVM printed fused programs:

    %0 = fn (%p0: Tensor[(1, 16, 8, 8), float32], %p1: ..., Primitive=1) { nn.relu(nn.conv2d(%p0, %p1)) };
    %0(%x, %w)

Groups follow TVM's algorithm over the dataflow graph of each function
(calls, tuples, projections; a `let`, an `if`, a `match` or a function
body is a boundary). Each node is given its post-dominator: the nearest
node that every path from it to the result passes through. A node is then
merged with its post-dominator, in three phases, by the operator patterns
of `relay_text.ops.properties`:

0. an `OUT_ELEMWISE_FUSABLE` operator (a convolution, a dense layer) takes
   in the elementwise and broadcast steps up to its post-dominator, when
   every node between is at most broadcast;
   an elementwise or broadcast operator joins an injective or reduction
   post-dominator when every node between is at most injective;
1. injective operators and tuples join their post-dominator when every
   path between is injective;
2. injective groups join a tuple that a later injective group consumed.

A group never holds more than `max_depth` operators; with
`fuse_opt_level=0` every call is a group of its own. A scalar literal of
int32, int64, float32, float64 or bool joins the group that uses it; other
constants are arguments. Calls of non-computational operators (allocation,
device placement) are never fused; `annotation.stop_fusion(x)` is replaced
by `x` and ends a group. A function whose calls only reshape is also marked
`ReshapeOnly=1`. Functions already marked `Primitive=1` are kept.

Option not supported: TVM's `relay.FuseOps.link_params` (constants passed
as arguments) is the only behaviour; `max_function_args` comes from a
compilation target, which `relay opt` has none of.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ..ir.expr import (
    Call,
    Constant,
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
from ..ir.schema import edges
from ..ir.ty import AnyDim, TensorType, TupleType
from ..ir.visitor import ExprMutator
from ..ops.properties import Pattern
from ._module import map_functions, written
from ._scopes import is_primitive, walk
from .context import PassContext
from .registry import Option, register

ELEMWISE, BROADCAST, INJECTIVE = Pattern.ELEMWISE, Pattern.BROADCAST, Pattern.INJECTIVE
COMM_REDUCE, OUT_FUSABLE, TUPLE, OPAQUE = (
    Pattern.COMM_REDUCE,
    Pattern.OUT_ELEMWISE_FUSABLE,
    Pattern.TUPLE,
    Pattern.OPAQUE,
)
SIMPLE_CONSTANTS = frozenset({"int32", "int64", "float32", "float64", "bool"})


@register(
    "FuseOps",
    "Group operators into functions marked Primitive=1, by TVM's fusion rules over the operator patterns",
    Option("fuse_opt_level", "int", 2, "0: each call alone; 1 or more: fuse (TVM's pass-context opt_level)"),
    Option("max_depth", "int", 256, "the most operators in one group (TVM's relay.FuseOps.max_depth)"),
)
def fuse_ops(module: Module, ctx: PassContext, fuse_opt_level: int, max_depth: int) -> Module:
    types = ctx.types(module)

    def convert(gv: GlobalVar | None, fn: Function) -> Function:
        if is_primitive(fn):
            return fn
        graph = _Graph(fn.body, types)
        groups = _Partitioner(graph, fuse_opt_level, max_depth).partition()
        mutator = _Fuse(graph, groups, types, _unwritable(graph, groups, types))
        new = mutator.visit(fn)
        assert type(new) is Function  # a rebuilt function is a function
        return new

    return map_functions(module, convert)


# ---------------------------------------------------------------- the dataflow graph


class _Node:
    __slots__ = ("extern_ref", "index", "outputs", "pattern", "ref")

    def __init__(self) -> None:
        self.ref: Expr | None = None
        self.index = -1
        self.outputs: list[tuple[_Node, Pattern]] = []
        self.extern_ref = False
        self.pattern = OPAQUE


def _dynamic(ty: Any) -> bool:
    stack = [ty]
    while stack:
        t = stack.pop()
        if isinstance(t, TensorType):
            if type(t.shape) is not tuple or any(isinstance(d, AnyDim) for d in t.shape):
                return True
        elif isinstance(t, TupleType):
            stack.extend(t.fields)
    return False


class _Graph:
    """TVM's IndexedForwardGraph: nodes in post-order, with their users."""

    def __init__(self, body: Expr, types: dict[Expr, Any]) -> None:
        from ..ops import registry

        self.types = types
        self.nodes: dict[int, _Node] = {}
        self.order: list[_Node] = []
        self.update(body, None, OPAQUE)
        for expr in walk(body, lambda n: True):
            t = type(expr)
            node = self.node(expr)
            if t is Function:
                for p in expr.params:
                    self.update(p, None, OPAQUE)
                self.update(expr.body, None, OPAQUE)
                continue  # a function is not a node of the graph
            if t is Op or t is GlobalVar or t is Constructor:
                continue
            if t is Constant:
                simple = expr.is_scalar and expr.dtype in SIMPLE_CONSTANTS
                node.pattern = ELEMWISE if simple else OPAQUE
            elif t is Call:
                pattern = OPAQUE
                if type(expr.op) is Op:
                    props = registry.properties(expr.op.name)
                    dependent = props.shape_dependent and expr.op.name != "strided_slice"
                    pattern = OPAQUE if _dynamic(types.get(expr)) and dependent else props.pattern
                else:
                    self.update(expr.op, node, OPAQUE)
                node.pattern = pattern
                self.update(expr.op, None, OPAQUE)
                result = types.get(expr)
                for arg in expr.args:
                    edge = pattern
                    arg_type = types.get(arg)
                    if (
                        edge == BROADCAST
                        and isinstance(arg_type, TensorType)
                        and isinstance(result, TensorType)
                        and arg_type.shape == result.shape
                    ):
                        edge = ELEMWISE
                    self.update(arg, node, edge)
            elif t is Tuple:
                node.pattern = TUPLE
                for field in expr.fields:
                    if isinstance(types.get(field), TensorType):
                        self.update(field, node, INJECTIVE)
                    else:
                        self.update(field, None, OPAQUE)
            elif t is TupleGetItem:
                ty = types.get(expr.tuple_value)
                if isinstance(ty, TupleType) and all(isinstance(f, TensorType) for f in ty.fields):
                    node.pattern = INJECTIVE
                    self.update(expr.tuple_value, node, INJECTIVE)
                else:
                    self.update(expr.tuple_value, None, OPAQUE)
            elif t is Let or t is If or t is Match or t is RefCreate or t is RefRead or t is RefWrite:
                # not fused through: every child (and a let's variable) is used from outside
                if t is Let:
                    self.update(expr.var, None, OPAQUE)
                for child, _role, _scope, _index in edges(expr):
                    self.update(child, None, OPAQUE)
            node.ref = expr
            node.index = len(self.order)
            self.order.append(node)

    def node(self, expr: Expr) -> _Node:
        found = self.nodes.get(id(expr))
        if found is None:
            found = self.nodes[id(expr)] = _Node()
        return found

    def update(self, expr: Expr, parent: _Node | None, pattern: Pattern) -> None:
        node = self.node(expr)
        if parent is None:
            node.extern_ref = True
        else:
            node.outputs.append((parent, pattern))

    def of(self, expr: Expr) -> _Node | None:
        found = self.nodes.get(id(expr))
        return found if found is not None and found.ref is expr else None


from ..ir.expr import Constructor  # noqa: E402  (used above in the walk)


# ---------------------------------------------------------------- post-dominators


class _DomNode:
    __slots__ = ("depth", "gnode", "parent", "pattern")

    def __init__(self, gnode: _Node) -> None:
        self.gnode = gnode
        self.parent: _DomNode | None = None
        self.depth = 1
        self.pattern = OPAQUE


def _combine(a: Pattern, b: Pattern) -> Pattern:
    return a if a > b else b


def _post_dominators(graph: _Graph) -> list[_DomNode]:
    tree: list[_DomNode | None] = [None] * len(graph.order)
    for index in range(len(graph.order) - 1, -1, -1):
        gnode = graph.order[index]
        dom = _DomNode(gnode)
        if not gnode.extern_ref:
            pattern = ELEMWISE
            parent: _DomNode | None = None
            first = True
            for out, edge in gnode.outputs:
                other = tree[out.index]
                if first:
                    parent = other
                    first = False
                else:
                    parent, pattern = _lca(parent, other, pattern)
                pattern = _combine(pattern, edge)
            dom.parent = parent
            dom.depth = parent.depth + 1 if parent is not None else 1
            dom.pattern = pattern
        tree[index] = dom
    return tree  # type: ignore[return-value]  # every entry is set


def _lca(a: _DomNode | None, b: _DomNode | None, pattern: Pattern) -> tuple[_DomNode | None, Pattern]:
    while a is not b:
        if a is None or b is None:
            return None, pattern
        if a.depth < b.depth:
            pattern = _combine(pattern, b.pattern)
            b = b.parent
        elif b.depth < a.depth:
            pattern = _combine(pattern, a.pattern)
            a = a.parent
        else:
            pattern = _combine(_combine(pattern, a.pattern), b.pattern)
            a, b = a.parent, b.parent
    return a, pattern


# ---------------------------------------------------------------- groups


class _Group:
    __slots__ = ("anchor_ref", "num_nodes", "parent", "pattern", "root_ref")

    def __init__(self, pattern: Pattern, ref: Expr | None) -> None:
        self.parent: _Group | None = None
        self.pattern = pattern
        self.root_ref = ref
        self.anchor_ref = ref if pattern == OUT_FUSABLE else None
        self.num_nodes = 1

    def root(self) -> _Group:
        root = self
        while root.parent is not None:
            root = root.parent
        node = self
        while node is not root:
            up = node.parent
            node.parent = root
            node = up  # type: ignore[assignment]  # below the root, every group has a parent
        return root


class _Partitioner:
    def __init__(self, graph: _Graph, opt_level: int, max_depth: int) -> None:
        self.graph = graph
        self.opt_level = opt_level
        self.max_depth = max_depth
        self.groups = [_Group(n.pattern, n.ref) for n in graph.order]

    def partition(self) -> list[_Group]:
        if self.opt_level == 0:
            return self.groups
        tree = _post_dominators(self.graph)
        for phase in range(3):
            self.run(tree, phase)
        return self.groups

    def paths(self, src: _Node, sink: _Node) -> list[_Node]:
        """The nodes on the paths from `src` (excluded) to `sink` (included)."""
        seen: set[int] = set()
        out: list[_Node] = []
        stack = [o for o, _ in reversed(src.outputs)]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            out.append(node)
            if node is not sink:
                stack.extend(o for o, _ in reversed(node.outputs))
        return out

    def check_path(self, src: _Node, sink: _Node, cond: Any) -> bool:
        return all(cond(self.groups[n.index].root().pattern, n is sink) for n in self.paths(src, sink))

    def commit(self, src: _Node, sink: _Node) -> None:
        target = self.groups[sink.index]
        for node in [src, *self.paths(src, sink)]:
            if node is not sink:
                self.merge(self.groups[node.index], target)

    def merge(self, child: _Group, parent: _Group) -> None:
        child, parent = child.root(), parent.root()
        if child is parent:
            return
        parent.num_nodes += child.num_nodes
        child.parent = parent
        if child.anchor_ref is not None:
            parent.anchor_ref = child.anchor_ref
            parent.pattern = _combine(child.pattern, parent.pattern)

    def count_with_child(self, child: _Node, dom_parent: _Node) -> int:
        total = self.groups[dom_parent.index].root().num_nodes
        for node in [child, *self.paths(child, dom_parent)]:
            if node is not dom_parent:
                total += self.groups[node.index].num_nodes
        return total

    def run(self, tree: list[_DomNode], phase: int) -> None:
        order = self.graph.order
        for nid, gnode in enumerate(order):
            dom = tree[nid]
            group = self.groups[nid]
            if group.pattern == OPAQUE or dom.parent is None:
                continue
            sink = dom.parent.gnode
            if self.count_with_child(gnode, sink) > self.max_depth:
                continue
            parent_group = self.groups[sink.index]
            if phase == 2:
                if group.pattern > INJECTIVE:
                    continue
                root = parent_group.root()
                if root.pattern == TUPLE:
                    continue
                if (
                    parent_group.pattern == TUPLE
                    and root.pattern <= INJECTIVE
                    and self.check_path(gnode, sink, lambda kind, is_sink: kind <= INJECTIVE)
                ):
                    self.commit(gnode, sink)
                continue
            if group.root() is parent_group.root():
                continue
            if parent_group.pattern == TUPLE:
                continue
            if group.pattern == OUT_FUSABLE:
                if phase != 0:
                    continue
                if dom.pattern == ELEMWISE and self.check_path(gnode, sink, lambda kind, is_sink: kind <= BROADCAST):
                    self.commit(gnode, sink)
            elif group.pattern <= BROADCAST:
                if dom.pattern <= INJECTIVE or dom.pattern == COMM_REDUCE:

                    def cond(kind: Pattern, is_sink: bool) -> bool:
                        if not is_sink:
                            return kind <= INJECTIVE
                        return kind <= BROADCAST or kind in (COMM_REDUCE, INJECTIVE, OUT_FUSABLE)

                    if self.check_path(gnode, sink, cond):
                        self.commit(gnode, sink)
            elif group.pattern in (INJECTIVE, TUPLE):
                if phase != 1:
                    continue
                if self.check_path(gnode, sink, lambda kind, is_sink: kind <= INJECTIVE):
                    self.commit(gnode, sink)


# ---------------------------------------------------------------- rebuilding


def _known(ty: Any) -> bool:
    """Whether a type is fully known: tensors (or tuples of them) of known
    rank and dtype, each dimension a number or `?`."""
    from ..ir.ty import IncompleteType

    if isinstance(ty, TupleType):
        return all(_known(f) for f in ty.fields)
    if not isinstance(ty, TensorType) or not isinstance(ty.dtype, str) or type(ty.shape) is not tuple:
        return False
    return all(type(d) is int or (isinstance(d, AnyDim) and not isinstance(d, IncompleteType)) for d in ty.shape)


def _unwritable(graph: _Graph, groups: list[_Group], types: dict[Expr, Any]) -> set[int]:
    """Root groups whose nodes or inputs have types the text cannot write (a
    type variable of a generic function: the primitive function would need
    type parameters) or that the checker left partly unknown (a primitive
    function's parameters must be typed on their own). They are left as
    they are."""
    out: set[int] = set()
    for node in graph.order:
        expr = node.ref
        if type(expr) not in (Call, Tuple, TupleGetItem):
            continue
        root = groups[node.index].root()
        if id(root) in out:
            continue
        parts = [
            expr,
            # the node is a call, a tuple or a projection here
            *(expr.args if type(expr) is Call else expr.fields if type(expr) is Tuple else (expr.tuple_value,)),  # type: ignore[union-attr]
        ]
        if any(not _known(types.get(p)) for p in parts if type(p) not in (Op, GlobalVar, Constructor, Function)):
            out.add(id(root))
    return out


class _Info:
    __slots__ = ("arguments", "params")

    def __init__(self) -> None:
        self.params: list[Var] = []
        self.arguments: list[Expr] = []

    def param(self, arg: Expr, ty: Any) -> Var:
        for i, existing in enumerate(self.arguments):
            if existing is arg:
                return self.params[i]
        var = Var(f"p{len(self.params)}", ty)
        self.params.append(var)
        self.arguments.append(arg)
        return var


class _Fuse(ExprMutator):
    pre_order = frozenset({Function})

    def __init__(self, graph: _Graph, groups: list[_Group], types: dict[Expr, Any], skip: set[int]) -> None:
        super().__init__()
        self.graph = graph
        self.groups = groups
        self.types = types
        self.skip = skip  # ids of root groups left unfused
        self.info: dict[int, _Info] = {}

    def group_of(self, expr: Expr) -> _Group | None:
        node = self.graph.of(expr)
        if node is None:
            return None
        group = self.groups[node.index].root()
        return None if id(group) in self.skip else group

    def visit_function(self, node: Function) -> Generator[Expr, Expr, Expr]:  # type: ignore[override]  # a generator method (see ExprFunctor)
        if is_primitive(node):
            return node
        for p in node.params:
            self.memo[p] = p
        body = yield node.body
        if body is node.body:
            return node
        return Function(node.params, body, node.ret_type, node.type_params, node.relations, node.attrs, node.span)

    def arguments(self, args: tuple[Expr, ...], group: _Group) -> tuple[Expr, ...]:
        out = []
        for arg in args:
            new = self.memo[arg]
            if self.group_of(arg) is not group:
                new = self.info.setdefault(id(group), _Info()).param(new, written(self.types.get(arg)))
            out.append(new)
        return tuple(out)

    def visit_call(self, node: Call) -> Expr:
        from ..ops import registry

        if type(node.op) is not Op:
            return super().visit_call(node)
        props = registry.properties(node.op.name)
        if not props.computational and not props.lowers:
            return super().visit_call(node)
        if node.op.name == "annotation.stop_fusion":
            return self.memo[node.args[0]]
        group = self.group_of(node)
        if group is None:
            return super().visit_call(node)
        new = Call(node.op, self.arguments(node.args, group), node.attrs, node.type_args, node.span)
        if group.root_ref is node:
            return self.function(group, self.types.get(node), new)
        return new

    def visit_tuple(self, node: Tuple) -> Expr:
        group = self.group_of(node)
        if group is None or group.root_ref is node:
            return super().visit_tuple(node)
        return Tuple(self.arguments(node.fields, group), node.span)

    def visit_tuple_get_item(self, node: TupleGetItem) -> Expr:
        group = self.group_of(node)
        if group is None:
            return super().visit_tuple_get_item(node)
        value = self.arguments((node.tuple_value,), group)[0]
        new = TupleGetItem(value, node.index, node.span)
        if group.root_ref is node:
            if self.group_of(node.tuple_value) is not group:
                return super().visit_tuple_get_item(node)
            return self.function(group, self.types.get(node), new)
        return new

    def function(self, group: _Group, ret_type: Any, body: Expr) -> Expr:
        from ..ops import registry

        has_call = False
        reshape_only = True
        for expr in walk(body, lambda n: True):
            if type(expr) is Call:
                has_call = True
                if type(expr.op) is not Op or not registry.properties(expr.op.name).reshape:
                    reshape_only = False
            elif type(expr) is Var and not isinstance(expr.type_annotation, TensorType):
                reshape_only = False
        info = self.info.setdefault(id(group), _Info())
        attrs: tuple[tuple[str, Any], ...] = (("Primitive", int(has_call)),)
        if has_call and reshape_only:
            attrs += (("ReshapeOnly", 1),)
        fn = Function(tuple(info.params), body, written(ret_type), (), (), attrs)
        return Call(fn, tuple(info.arguments))
