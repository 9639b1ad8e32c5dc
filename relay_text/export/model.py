"""A checked module's entry point as an ONNX model.

`export_model` takes what `relay check` produced (the module and the
checker's types), the values of the metadata constants and of any
parameters given values (`--args`), and returns an `onnx.ModelProto`:
the entry's parameters are the graph's inputs (those given values become
initializers, as the constants do), its result the graph's outputs
(`out0`, `out1`, ...; `out1_0` inside a nested tuple, as `relay run
--output-format npz` names them), every value whose type the checker
inferred carries it as `value_info`. Raises `ExportError` with located
diagnostics for what cannot be exported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..diagnostics import Diagnostic
from ..ir.expr import Call, Expr, GlobalVar, Op
from ..ir.ty import FuncType, TensorType, TupleType
from ..ir.visitor import ExprVisitor
from .graph import Graph, Unsupported, concrete
from .lower import Exporter, ExportError, Lowerer, constructor_error, unsupported, unsupported_operator
from .weights import DataFile, fits_in_model, weight_bytes
from .values import Closure, ConstructorRef, GlobalRef, OpRef, Tensor, flatten, rebuild

DEFAULT_OPSET = 18
MIN_OPSET = 13
PRODUCER = "relay-text"


def max_opset() -> int:
    import onnx.defs

    return int(onnx.defs.onnx_opset_version())


class _Uses(ExprVisitor):
    """Operator calls and globals reachable from an expression."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[Call] = []
        self.globals: list[GlobalVar] = []

    def visit_call(self, node: Call) -> None:
        if isinstance(node.op, Op):
            self.calls.append(node)

    def visit_global_var(self, node: GlobalVar) -> None:
        self.globals.append(node)


def operator_calls(module: Any, body: Expr) -> dict[str, list[Call]]:
    """The calls of each operator in `body` and every global it reaches."""
    seen: set[Any] = set()
    todo = [body]
    calls: dict[str, list[Call]] = {}
    while todo:
        uses = _Uses()
        uses.visit(todo.pop())
        for call in uses.calls:
            if isinstance(call.op, Op):  # (every call _Uses collects)
                calls.setdefault(call.op.name, []).append(call)
        for gv in uses.globals:
            fn = module.functions.get(gv)
            if gv not in seen and fn is not None:
                seen.add(gv)
                todo.append(fn.body)
    return calls


def unknown_operators(used: dict[str, list[Call]], table: Mapping[str, Any]) -> list[Diagnostic]:
    """One diagnostic per operator without a converter, at its first use."""
    diags = []
    from .lower import CALLING_OPERATORS

    for name, calls in used.items():
        if name in table or name in CALLING_OPERATORS:
            continue
        calls.sort(key=lambda c: c.span.start if c.span is not None else 0)
        diag = unsupported_operator(name, calls[0].span).diagnostics[0]
        if len(calls) > 1:
            diag.with_note(f"`{name}` is called {len(calls)} times in the exported program")
        diags.append(diag)
    diags.sort(key=lambda d: d.span.start if d.span is not None else 0)
    return diags


def export_model(
    module: Any,
    result: Any,
    entry: Any,
    constants: dict[int, Any],
    bound: dict[str, Any] | None = None,
    opset: int | None = None,
    graph_name: str = "main",
    functions: bool = False,
    weights: Callable[[int], DataFile | None] | None = None,
) -> Any:
    """The ONNX model of `entry` (an `eval.entry.Entry`); see the module docstring."""
    return build_model(module, result, entry, constants, bound, opset, graph_name, functions, weights)[0]


def build_model(
    module: Any,
    result: Any,
    entry: Any,
    constants: dict[int, Any],
    bound: dict[str, Any] | None = None,
    opset: int | None = None,
    graph_name: str = "main",
    functions: bool = False,
    weights: Callable[[int], DataFile | None] | None = None,
) -> tuple[Any, Any, Graph]:
    """`export_model`'s model, the structure of the result (a tensor, or
    nested tuples of them, as the outputs flatten), and the root graph.
    Without `opset`: the default, or the oldest one the program's operators
    need if that is later. With `functions`, calls of global functions
    become calls of ONNX local functions (see `functions.py`). `weights`,
    given the bytes the weights take, says where they go: a data file
    beside the model (see `weights.py`), or None for the model itself."""
    import onnx

    from .convert import converters, needed_opset

    table = converters()
    bound = bound or {}
    body = entry.body if entry.gv is None else module.functions[entry.gv].body
    used = operator_calls(module, body)
    diags = unknown_operators(used, table)
    if diags:
        raise ExportError(diags)
    if opset is None:
        from .lower import call_attrs

        opset = max(
            [DEFAULT_OPSET, *(needed_opset(name, [call_attrs(c) for c in calls]) for name, calls in used.items())]
        )
    graph = Graph(graph_name, opset=opset)
    ex = Exporter(module, result, constants, table)
    if functions:
        from .functions import Functions

        ex.functions = Functions()
    root = Lowerer(ex, graph)
    for p in entry.params:
        ty = p.type_annotation if p.type_annotation is not None else result.types.get(p)
        root.bind(p, _parameter(graph, p, ty, bound.get(p.name)))
    value = root.visit(body)
    ret = result.types.get(body)
    _outputs(graph, value, ret, entry)
    opsets = [onnx.helper.make_opsetid("", opset)]
    local = ex.functions.protos if ex.functions is not None else []
    if local:
        from .functions import DOMAIN

        opsets.append(onnx.helper.make_opsetid(DOMAIN, 1))
    model = onnx.ModelProto()
    model.ir_version = min(onnx.IR_VERSION, 10)
    model.producer_name = PRODUCER
    model.opset_import.extend(opsets)
    model.functions.extend(local)
    total = weight_bytes(graph.initializers)
    if weights is None and not fits_in_model(total):
        raise too_large(total, entry.span)
    data = weights(total) if weights is not None else None
    graph.fill(model.graph, data)  # (the weights are written into the model, or to `data`, and let go)
    return model, value, graph


def too_large(weights: int, span: Any) -> ExportError:
    """The error for a model whose weights cannot be written into it."""
    from ..diagnostics import codes
    from ..limits import byte_text

    diag = Diagnostic(
        codes.RESOURCE_LIMIT,
        f"the model's weights take {byte_text(weights)}: an ONNX model holds less than 2 GiB in one piece",
        span,
        label="the exported function",
    )
    diag.with_help("`relay export -o FILE.onnx` writes weights this large beside the model, to FILE.onnx.data")
    return ExportError([diag])


def _parameter(graph: Graph, p: Any, ty: Any, value: Any) -> Any:
    """A parameter's value: a graph input (an initializer for a given value),
    a tuple of them for a tuple, named `x`, `x_0`, `x_1_0`, ..."""
    if isinstance(ty, FuncType):
        raise unsupported(
            f"the parameter `%{p.name}` is a function: ONNX graphs take tensors", p.span, "a function parameter"
        )
    leaves = []
    stack = [(p.name, ty, value)]
    while stack:
        name, t, v = stack.pop()
        if isinstance(t, TupleType):
            parts = v if isinstance(v, tuple) else (None,) * len(t.fields)
            stack.extend(
                reversed([(f"{name}_{i}", f, fv) for i, (f, fv) in enumerate(zip(t.fields, parts, strict=False))])
            )
        else:
            leaves.append(_tensor_input(graph, name, t, v, p))
    return rebuild(ty, leaves, _type_fields)


def _type_fields(ty: Any) -> Any:
    return ty.fields if isinstance(ty, TupleType) else None


def _tensor_input(graph: Graph, name: str, ty: Any, value: Any, p: Any) -> Any:
    if not concrete(ty):
        raise unsupported(
            f"the parameter `%{p.name}` is not a tensor of known dtype: ONNX graphs take tensors",
            p.span,
            "not a tensor",
        )
    if value is not None:
        import numpy as np

        return Tensor(graph.constant(np.asarray(value), hint=name), ty)
    try:
        graph.add_input(graph.reserve(name), ty)
    except Unsupported as exc:
        raise unsupported(f"the parameter `%{p.name}`: {exc.message}", p.span) from None
    return Tensor(graph.inputs[-1].name, ty)


def _outputs(graph: Graph, value: Any, ty: Any, entry: Any) -> None:
    items = value if isinstance(value, tuple) else (value,)
    types = ty.fields if isinstance(ty, TupleType) and isinstance(value, tuple) else (ty,)
    stack = [
        (f"out{i}", v, t) for i, (v, t) in reversed(list(enumerate(zip(items, _pad(types, len(items)), strict=False))))
    ]
    while stack:
        key, v, t = stack.pop()
        if isinstance(v, tuple):
            fields = t.fields if isinstance(t, TupleType) else (None,) * len(v)
            stack.extend(
                (f"{key}_{i}", f, ft)
                for i, (f, ft) in reversed(list(enumerate(zip(v, _pad(fields, len(v)), strict=False))))
            )
            continue
        if isinstance(v, ConstructorRef):
            raise constructor_error(v.constructor, entry.span)
        if isinstance(v, (Closure, GlobalRef, OpRef)):
            raise unsupported(
                "the result is a function: an ONNX graph's outputs are tensors", entry.span, "a closure escapes"
            )
        out = graph.node("Identity", [v.name], [graph.reserve(key)])
        out_ty = t if isinstance(t, TensorType) and concrete(t) else v.ty
        graph.add_output(out, out_ty)


def _pad(types: Any, n: int) -> tuple[Any, ...]:
    types = tuple(types)
    return types if len(types) == n else (None,) * n


__all__ = ["DEFAULT_OPSET", "ExportError", "export_model", "flatten"]
