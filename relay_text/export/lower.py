"""Expressions to ONNX nodes: one traversal of the checked program.

`Lowerer` folds an expression into the value it stands for (see `values`),
adding nodes to its graph on the way. Each shared node (a graph binding
used twice) is exported once: the traversal memoises by node identity.
A `let` binds its variable to its value's result; a call of a global or of
a closure is inlined, its body exported by a child `Lowerer` whose
variables are the parameters bound to the arguments (its memo falls back
on the scope the function was written in, so a body reads the variables it
captured). `if` becomes an ONNX `If` whose branches are subgraphs exported
by child lowerers; a recursive function shaped as a loop becomes an ONNX
`Loop` (`loops.py`). What ONNX cannot express raises `ExportError` at the
node.

Nothing here recurses over the program: a child lowerer's work is handed
to the traversal's explicit stack (`Delegate`), so 100,000 nested lets,
inlined calls or chained loops export without Python recursion. Subgraphs
(`If` branches, `Loop` bodies) nest in the model itself, and readers of
ONNX refuse protobuf messages nested beyond 100 levels: a subgraph deeper
than `MAX_SUBGRAPH_DEPTH` is an `export-unsupported` error at its `if` or
loop.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable
from typing import Any, TypeAlias

from ..diagnostics import Diagnostic, codes
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
from ..ir.span import Span
from ..ir.ty import FuncType, TensorType, TupleType, TypeVar
from ..ir.visitor import Delegate, ExprFunctor, ExprVisitor
from .convert import Attrs
from .graph import MAX_SUBGRAPH_DEPTH, Graph, Unsupported, concrete, static_shape
from .values import Closure, ConstructorRef, GlobalRef, OpRef, Tensor, flatten, rebuild

# Operators that call a function of the program, which the exporter exports
# as that call (they have no converter).
CALLING_OPERATORS = frozenset({"call_lowered"})


# Type variables of a polymorphic function -> the types of one instantiation.
Subst: TypeAlias = dict[TypeVar, Any]


class ExportError(Exception):
    """The program cannot be exported; carries the located diagnostics."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__(diagnostics[0].message if diagnostics else "export failed")
        self.diagnostics = diagnostics


def unsupported(message: str, span: Span | None, label: str = "", help: str | None = None) -> ExportError:
    diag = Diagnostic(codes.EXPORT_UNSUPPORTED, message, span, label=label)
    if help:
        diag.with_help(help)
    return ExportError([diag])


def substitute(ty: Any, subst: Subst) -> Any:
    """`ty` with the type variables of `subst` replaced."""
    if not subst or ty is None:
        return ty
    if isinstance(ty, TypeVar):
        return subst.get(ty, ty)
    if isinstance(ty, TensorType):
        dtype = subst.get(ty.dtype, ty.dtype) if isinstance(ty.dtype, TypeVar) else ty.dtype
        shape = ty.shape
        if isinstance(shape, TypeVar):
            given = subst.get(shape, shape)
            shape = given.shape if isinstance(given, TensorType) else given
        elif isinstance(shape, tuple):
            shape = tuple(subst.get(d, d) if isinstance(d, TypeVar) else d for d in shape)
        return TensorType(shape, dtype)
    if isinstance(ty, TupleType):
        return TupleType(tuple(substitute(f, subst) for f in ty.fields))
    if isinstance(ty, FuncType):
        return FuncType(tuple(substitute(a, subst) for a in ty.arg_types), substitute(ty.ret_type, subst))
    return ty


class Exporter:
    """What every lowerer of one export shares: the module, the checker's
    types, the constants' values, the converters."""

    def __init__(
        self, module: Any, result: Any, constants: dict[int, Any], converters: dict[str, Callable[..., Any]]
    ) -> None:
        self.module = module
        self.result = result
        self.constants = constants
        self.converters = converters
        self.inlining: set[Any] = set()  # functions being inlined (GlobalVar or Function): recursion
        self.functions: Any = None  # a functions.Functions when globals become ONNX local functions
        self._mentions: dict[tuple[int, int], bool] = {}

    def type_of(self, node: Expr, subst: Subst) -> Any:
        return substitute(self.result.types.get(node), subst)

    def mentions(self, body: Expr, target: Expr) -> bool:
        """Whether `body` refers to `target` (a variable or a global)."""
        key = (id(body), id(target))
        if key not in self._mentions:
            finder = _Finder(target)
            finder.visit(body)
            self._mentions[key] = finder.found
        return self._mentions[key]


class _Finder(ExprVisitor):
    def __init__(self, target: Expr) -> None:
        super().__init__()
        self.target = target
        self.found = False

    def visit_var(self, node: Var) -> None:
        self.found = self.found or node is self.target

    def visit_global_var(self, node: GlobalVar) -> None:
        self.found = self.found or node is self.target


class Lowerer(ExprFunctor[Any]):
    """Exports expressions into `graph`; see the module's docstring."""

    pre_order = frozenset({Let, If, Function, Match, RefCreate, RefRead, RefWrite})

    def __init__(self, ex: Exporter, graph: Graph, scope: Lowerer | None = None, subst: Subst | None = None) -> None:
        super().__init__()
        self.ex = ex
        self.graph = graph
        self.subst: Subst = subst if subst is not None else (scope.subst if scope is not None else {})
        if scope is not None:
            # a dict's interface: reads fall back on the scope (one flat chain, so a lookup never recurses)
            outer = scope.memo.maps if isinstance(scope.memo, ChainMap) else [scope.memo]
            self.memo = ChainMap({}, *outer)  # type: ignore[assignment]  # the base declares a dict; a ChainMap has its interface

    def child(self, graph: Graph | None = None, scope: Lowerer | None = None, subst: Subst | None = None) -> Lowerer:
        return Lowerer(self.ex, graph if graph is not None else self.graph, scope if scope is not None else self, subst)

    def bind(self, var: Var, value: Any) -> None:
        self.memo[var] = value

    # ---- leaves ----------------------------------------------------------------

    def visit_var(self, node: Var) -> Any:
        raise unsupported(f"`%{node.name}` has no value here", node.span, "unbound")

    def visit_global_var(self, node: GlobalVar) -> Any:
        return GlobalRef(node)

    def visit_op(self, node: Op) -> Any:
        return OpRef(node.name)

    def visit_constant(self, node: Constant) -> Any:
        import numpy as np

        from ..eval.ops import numpy_dtype

        ty = self.ex.type_of(node, self.subst)
        if node.value is None:
            value = self.ex.constants.get(node.meta_index) if node.meta_index is not None else None
            if value is None:
                raise ExportError(
                    [
                        Diagnostic(
                            codes.BAD_METADATA,
                            f"`meta[relay.Constant][{node.meta_index}]` has no value to export",
                            node.span,
                            label="value unknown",
                        )
                        .with_note("the file has no #[metadata] section holding the constants' data")
                        .with_help(
                            "`relay export --random-consts` fills constants whose types are known with random values"
                        )
                    ]
                )
            name = self.graph.constant(value, hint=f"meta{node.meta_index}")
        else:
            dtype = numpy_dtype(str(node.dtype).split("x")[0])
            value = np.full(tuple(node.shape or ()), node.value, dtype=dtype)
            name = self.graph.constant(value)
        if value is not None and (not concrete(ty) or static_shape(ty) is None):
            ty = TensorType(tuple(value.shape), str(value.dtype))
        if not concrete(ty):
            ty = None
        return Tensor(name, ty)

    # ---- structure -------------------------------------------------------------

    def visit_tuple(self, node: Tuple) -> Any:
        return tuple(self.memo[f] for f in node.fields)

    def visit_tuple_get_item(self, node: TupleGetItem) -> Any:
        value = self.memo[node.tuple_value]
        if not isinstance(value, tuple):
            raise unsupported("this projection does not take a field of a tuple the exporter knows", node.span)
        return value[node.index]

    def visit_let(self, node: Let) -> Any:
        if isinstance(node.value, Function) and self.ex.mentions(node.value.body, node.var):
            self.bind(node.var, Closure(node.value, self, node.var))
        else:
            self.bind(node.var, (yield node.value))
        return (yield node.body)

    def visit_function(self, node: Function) -> Any:
        return Closure(node, self)

    # ---- constructs ONNX has no form for ---------------------------------------

    def visit_match(self, node: Match) -> Any:
        raise unsupported(
            "ONNX has no pattern matching: a `match` over a data type cannot be exported", node.span, "`match`"
        )

    def visit_constructor(self, node: Constructor) -> Any:
        return ConstructorRef(node)

    def visit_ref_create(self, node: RefCreate) -> Any:
        raise unsupported("ONNX has no mutable references: `ref(...)` cannot be exported", node.span, "a reference")

    visit_ref_read = visit_ref_write = visit_ref_create

    # ---- calls -----------------------------------------------------------------

    def visit_call(self, node: Call) -> Any:
        """The call's value; for an inlined call or a loop, a generator that
        hands the body to a child lowerer (the traversal runs it)."""
        callee = self.memo[node.op]
        if isinstance(callee, ConstructorRef):
            raise constructor_error(callee.constructor, node.span)
        args = [self.memo[a] for a in node.args]
        if isinstance(callee, OpRef) and callee.name in CALLING_OPERATORS:
            # call_lowered(f, (a, b)) calls f on (a, b): exported as that call
            calling = callee.name
            callee, args = args[0], list(args[1]) if isinstance(args[1], tuple) else [args[1]]
            if isinstance(callee, (OpRef, ConstructorRef)) or not isinstance(callee, (GlobalRef, Closure)):
                raise unsupported(f"`{calling}` calls something other than a function of this program", node.span)
        if isinstance(callee, OpRef):
            return self.operator(node, callee.name, args)
        if isinstance(callee, GlobalRef):
            fn = self.ex.module.functions.get(callee.gv)
            if fn is None:
                raise unsupported(
                    f"`@{callee.gv.name}` is not defined in this file (a Prelude function over data types?)", node.span
                )
            subst = self._instantiation(node, fn)
            if self.ex.mentions(fn.body, callee.gv):
                from .loops import lower_loop

                return lower_loop(self, node, fn, callee.gv, args, self.child(scope=self._global_scope(), subst=subst))
            if self.ex.functions is not None:
                from .functions import call_function, signature

                key = signature(args)
                if key is not None and len(args) == len(fn.params):
                    return call_function(self, node, callee.gv, fn, args, subst, key)
            return self.inline(node, callee.gv, fn, args, self._global_scope(), subst)
        if isinstance(callee, Closure):
            if callee.self_var is not None:
                from .loops import lower_loop

                inner = callee.scope.child(graph=self.graph)
                inner.bind(callee.self_var, callee)
                return lower_loop(self, node, callee.fn, callee.self_var, args, inner)
            return self.inline(node, callee.fn, callee.fn, args, callee.scope, self.subst)
        raise unsupported("this call's callee is not a function the exporter can inline", node.span)

    def _global_scope(self) -> Lowerer:
        return Lowerer(self.ex, self.graph)

    def _instantiation(self, node: Call, fn: Function) -> Subst:
        type_args = self.ex.result.type_args.get(node)
        if not type_args or not fn.type_params:
            return {}
        return {tp: substitute(ta, self.subst) for tp, ta in zip(fn.type_params, type_args, strict=False)}

    def inline(self, node: Call, key: Any, fn: Function, args: list[Any], scope: Lowerer, subst: Subst) -> Any:
        if key in self.ex.inlining:
            what = f"`@{key.name}`" if isinstance(key, GlobalVar) else "this function"
            raise unsupported(
                f"{what} calls itself through another function: ONNX graphs cannot recurse", node.span, "recursive call"
            )
        if len(args) != len(fn.params):
            raise unsupported("this call's arguments do not match its function's parameters", node.span)
        inner = Lowerer(self.ex, self.graph, scope, subst)
        for param, arg in zip(fn.params, args, strict=False):
            inner.bind(param, arg)
        return self._inlined(key, inner, fn.body)

    def _inlined(self, key: Any, inner: Lowerer, body: Expr) -> Any:
        self.ex.inlining.add(key)
        value = yield Delegate(inner, body)
        self.ex.inlining.discard(key)
        return value

    def subgraph(self, hint: str, node: Any, what: str) -> Graph:
        """A new subgraph of this lowerer's graph, for `node` (an `if` or a loop)."""
        if self.graph.depth >= MAX_SUBGRAPH_DEPTH:
            raise ExportError(
                [
                    Diagnostic(
                        codes.EXPORT_UNSUPPORTED,
                        f"this {what} cannot be exported: its subgraphs would be nested {self.graph.depth + 1} deep, "
                        f"and ONNX readers accept at most {MAX_SUBGRAPH_DEPTH}",
                        node.span,
                        label=f"inside {self.graph.depth} other `if`s or loops",
                    )
                    .with_note(
                        "an `if` becomes an `If` node whose branches are subgraphs, a loop a `Loop` node whose body "
                        "is one; a model is a protobuf message, and ONNX readers refuse messages nested more than "
                        "100 levels deep"
                    )
                    .with_help(
                        "nest fewer `if`s or loops inside one another, for example by computing the conditions "
                        "first and choosing the results with `where`"
                    )
                ]
            )
        return Graph(self.graph.fresh(hint), parent=self.graph)

    def operator(self, node: Call, name: str, args: list[Any]) -> Any:
        from .convert import OpContext, needed_opset

        convert = self.ex.converters.get(name)
        if convert is None:
            raise unsupported_operator(name, node.span)
        needed = needed_opset(name)
        if needed > self.graph.opset:
            raise unsupported(
                f"`{name}` needs ONNX opset {needed} or later, and this export writes opset {self.graph.opset}",
                node.span,
                "cannot be exported at this opset",
                help=(
                    f"export with `--opset {needed}` (or without `--opset`: the exporter then writes the opset the "
                    "program needs)"
                ),
            )
        for a in args:
            for t in flatten(a):
                if not isinstance(t, Tensor):
                    raise unsupported(
                        f"`{name}` is given a function: ONNX operators take tensors", node.span, "a function argument"
                    )
        in_types = [_better(self.ex.type_of(a, self.subst), v) for a, v in zip(node.args, args, strict=False)]
        out_type = self.ex.type_of(node, self.subst)
        cx = OpContext(self.graph, name, node, dict(_attrs(node)), in_types, out_type)
        names = [tuple(t.name for t in a) if isinstance(a, tuple) else a.name for a in args]
        start = len(self.graph.nodes)
        try:
            out = convert(cx, *names)
        except Unsupported as exc:
            raise unsupported(f"`{name}` cannot be exported here: {exc.message}", node.span, help=exc.help) from None
        value = self.typed(out, out_type)
        spans = self.graph.root.spans
        for onnx_node in self.graph.nodes[start:]:  # every node of the call, for onnxruntime's errors
            spans.setdefault(onnx_node.name, node.span)
        for t in flatten(value):
            spans[t.name] = node.span
        return value

    def typed(self, out: Any, ty: Any) -> Any:
        """Wrap converter output names as values carrying the checker's types."""
        names = flatten(out)
        types = flatten_type(ty, len(names))
        tensors = []
        for name, t in zip(names, types, strict=False):
            if concrete(t):
                self.graph.set_type(name, t)
                tensors.append(Tensor(name, t))
            else:
                tensors.append(Tensor(name, self.graph.type_of(name)))
        return rebuild(out, tensors)

    # ---- if --------------------------------------------------------------------

    def visit_if(self, node: If) -> Any:
        cond = yield node.cond
        if not isinstance(cond, Tensor):
            raise unsupported(
                "the condition of this `if` is not a tensor",
                node.cond.span if hasattr(node.cond, "span") else node.span,
            )
        ty = self.ex.type_of(node, self.subst)
        branches = []
        for which, branch in (("then", node.then_branch), ("else", node.else_branch)):
            graph = self.subgraph(f"{which}_branch", node, "`if`")
            value = yield Delegate(self.child(graph=graph), branch)
            branches.append((graph, value))
        shape = branches[0][1]
        outs = flatten(shape)
        types = flatten_type(ty, len(outs))
        for graph, value in branches:
            tensors = flatten(value)
            if len(tensors) != len(outs) or not all(isinstance(t, Tensor) for t in tensors):
                raise unsupported(
                    "a branch of this `if` gives a function: ONNX's `If` gives only tensors",
                    node.span,
                    "a closure escapes",
                )
            for t, t_ty in zip(tensors, types, strict=False):
                out = graph.node("Identity", [t.name])
                graph.add_output(out, t_ty if concrete(t_ty) else t.ty)
        names = self.graph.multi_node(
            "If", [cond.name], len(outs), then_branch=branches[0][0].build(), else_branch=branches[1][0].build()
        )
        results = []
        for n, t_ty in zip(names, types, strict=False):
            self.graph.set_type(n, t_ty)
            results.append(Tensor(n, t_ty if concrete(t_ty) else None))
        return rebuild(shape, results)


def _better(ty: Any, value: Any) -> Any:
    """The checker's type of an argument, or the value's own where that is
    more static (a metadata constant whose inferred type has `?` dimensions)."""
    if isinstance(value, Tensor) and static_shape(value.ty) is not None and static_shape(ty) is None:
        return value.ty
    return ty


def flatten_type(ty: Any, count: int) -> list[Any]:
    """The tensor types of a (tuple) type, depth first; Nones if unknown."""
    out: list[Any] = []
    stack = [ty]
    while stack:
        t = stack.pop()
        if isinstance(t, TupleType):
            stack.extend(reversed(t.fields))
        else:
            out.append(t)
    return out if len(out) == count else [None] * count


def call_attrs(node: Call) -> Attrs:
    """The call's attributes, normalised, with their defaults."""
    return dict(_attrs(node))


def _attrs(node: Call) -> Attrs:
    from ..ops import registry

    if not isinstance(node.op, Op):
        raise TypeError(f"not an operator call: {node.op!r}")
    definition = registry.get(node.op.name)
    if definition is None:
        return dict(node.attrs)
    filled, _ = definition.normalize_attrs(node.attrs)
    return filled


def constructor_error(constructor: Constructor, span: Span | None) -> ExportError:
    return unsupported(
        f"ONNX has no algebraic data types: the constructor `{constructor.name}` cannot be exported",
        span,
        "a data type",
    )


def unsupported_operator(name: str, span: Span | None) -> ExportError:
    from .unsupported import NO_ONNX_EQUIVALENT, NOT_CONVERTED

    if name in NO_ONNX_EQUIVALENT:
        message = f"`{name}` has no ONNX equivalent: {NO_ONNX_EQUIVALENT[name]}"
    elif name in NOT_CONVERTED:
        message = f"`{name}` cannot be exported: {NOT_CONVERTED[name]}"
    else:
        message = f"`{name}` cannot be exported: the exporter has no converter for it"
    return unsupported(message, span, "cannot be exported")
