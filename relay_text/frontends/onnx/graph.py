"""Walking an ONNX graph: inputs, initializers, nodes in order, outputs.

Each node is converted by the converter the table holds for its operator
and opset (`table.lookup`); its outputs become expressions bound to the
node's output names, which later nodes read. A subgraph (the branches of
`If`, the bodies of `Loop` and `Scan`) is converted in a scope that sees
every name of the graphs around it.

Failures are `ImportFailure`s carrying located diagnostics: a node whose
operator has no converter, an attribute or input value the converter
cannot express, or a call the checker rejects. Before any node is
converted, every operator of the model (subgraphs included) is looked up,
so that a model using three unsupported operators gets three diagnostics
at once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ...diagnostics import Diagnostic, codes
from ...ir.expr import Call, Expr, TupleGetItem, Var
from ...ir.ty import TensorType, TupleType, Type
from ..builder import Builder, Unsupported, any_dim
from ..errors import ImportFailure
from . import table
from .listing import Listing
from .node import Node, dtype_of, tensor_array

if TYPE_CHECKING:
    from onnx import GraphProto, ModelProto, NodeProto, TypeProto, ValueInfoProto

_IDENT_BAD = re.compile(r"[^A-Za-z0-9_]")


@dataclass
class Options:
    input_shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    freeze: bool = False  # initializers as constants rather than parameters
    sequence_types: dict[str, list[Type]] = field(default_factory=dict)
    optional_present: dict[str, bool] = field(default_factory=dict)
    # inputs whose values the conversion may rely on (they stay parameters;
    # the program is then valid for these values only): the backend API
    # specialises on small integer inputs such as axes and shapes
    known_inputs: dict[str, np.ndarray] = field(default_factory=dict)


class OnnxBuilder(Builder):
    """The builder, plus where constants come from (for their names)."""

    def __init__(self) -> None:
        super().__init__()
        self.origin = "const"
        self.origins: dict[Expr, str] = {}

    def const(self, value: Any, dtype: str | None = None) -> Expr:
        node = super().const(value, dtype)
        if node in self.arrays:
            self.origins[node] = self.origin
        return node


def sanitize(name: str) -> str:
    """An ONNX name as a Relay variable name: letters, digits, `_` and `.`
    between parts that start with a letter; a leading digit gets a `v`."""
    parts = name.split(".")
    out: list[str] = []
    for i, part in enumerate(parts):
        clean = _IDENT_BAD.sub("_", part)
        if i and (not clean or not (clean[0].isalpha() or clean[0] == "_")):
            out[-1] = out[-1] + "_" + clean
            continue
        out.append(clean)
    text = ".".join(out) or "v"
    if not (text[0].isalpha() or text[0] == "_"):
        text = "v" + text
    return text


class Names:
    """Unique Relay names for ONNX names."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def fresh(self, name: str) -> str:
        base = sanitize(name)
        text, k = base, 1
        while text in self.used:
            k += 1
            text = f"{base}_{k}"
        self.used.add(text)
        return text


class Importer:
    """Converts one ONNX model (see the module docstring)."""

    def __init__(self, model: ModelProto, source_name: str, options: Options | None = None) -> None:
        self.model = model
        self.options = options or Options()
        self.b = OnnxBuilder()
        self.listing = Listing(source_name, model)
        self.opsets: dict[str, int] = {}
        for o in model.opset_import:
            self.opsets[table.canonical_domain(o.domain)] = o.version
        self.opset = self.opsets.get("", 1)
        self.names = Names()
        self.notes: dict[Expr, str] = {}  # a node's result: the node it converts
        self.inputs: list[Var] = []
        self.input_names: dict[Var, str] = {}  # Relay parameter -> ONNX name
        self.params: list[Var] = []  # initializers, in the model's order

    # ---------------------------------------------------------------- names

    def node_name(self, node: NodeProto) -> str:
        """The node's name, or `OpType_k` for a node without one (see `listing`)."""
        return self.listing.name_of(node)

    # ---------------------------------------------------------------- diagnostics

    def unsupported(
        self,
        node: NodeProto,
        message: str,
        attr: str | None = None,
        notes: Sequence[str] = (),
        input_index: int | None = None,
    ) -> Diagnostic:
        if attr is not None:
            span = self.listing.attr_span(node, attr)
        elif input_index is not None:
            span = self.listing.input_span(node, input_index)
        else:
            span = self.listing.node_span(node)
        opset = self._opset_of(node)
        where = f"node `{self.node_name(node)}` ({node.op_type}, opset {opset})"
        diag = Diagnostic(codes.IMPORT_UNSUPPORTED, f"{message}", span, label=where)
        for n in notes:
            diag.with_note(n)
        if span is not None:
            diag.with_note(f"the line is in the model's node listing: `relay import --list-nodes {span.source.name}`")
        return diag

    def _opset_of(self, node: NodeProto) -> int:
        return self.opsets.get(table.canonical_domain(node.domain), self.opset if not node.domain else 1)

    # ---------------------------------------------------------------- the model

    def run(self) -> Expr:
        graph = self.model.graph
        self._check_operators(graph)
        scope: dict[str, Any] = {}
        b = self.b
        initializer_names = set()
        for t in graph.initializer:
            initializer_names.add(t.name)
            try:
                array = tensor_array(t)
            except Unsupported as exc:
                raise ImportFailure(
                    [Diagnostic(codes.IMPORT_UNSUPPORTED, f"initializer `{t.name}`: {exc.message}", None)]
                ) from None
            if self.options.freeze:
                b.origin = t.name
                scope[t.name] = b.const(array)
            else:
                v = b.var(self.names.fresh(t.name), TensorType(tuple(array.shape), _dtype(array)), value=array)
                self.input_names[v] = t.name
                self.params.append(v)
                scope[t.name] = v
        for t in graph.sparse_initializer:
            from .node import _sparse

            array = _sparse(t)
            name = t.values.name
            initializer_names.add(name)
            v = b.var(self.names.fresh(name), TensorType(tuple(array.shape), _dtype(array)), value=array)
            self.input_names[v] = name
            self.params.append(v)
            scope[name] = v
        known = {i.name for i in graph.input}
        for name in self.options.input_shapes:
            if name not in known or name in initializer_names:
                real = [i.name for i in graph.input if i.name not in initializer_names]
                raise ImportFailure(
                    [
                        Diagnostic(
                            codes.IMPORT_UNSUPPORTED,
                            f"`--input-shape {name}=...`: the model has no input `{name}`",
                            None,
                        ).with_note(f"its inputs are: {', '.join(real) or 'none'}")
                    ],
                    usage=True,
                )
        for vi in graph.input:
            if vi.name in initializer_names:
                continue
            scope[vi.name] = self._input(vi)
        self._nodes(graph, scope)
        outputs = [self._output(scope, vi.name) for vi in graph.output]
        return outputs[0] if len(outputs) == 1 else b.tuple(outputs)

    def _output(self, scope: dict[str, Any], name: str) -> Expr:
        if name not in scope:
            raise ImportFailure(
                [Diagnostic(codes.IMPORT_INVALID, f"the graph output `{name}` is computed by no node", None)]
            )
        value: Expr = scope[name]  # (a graph's outputs are tensors or tuples, never an empty optional)
        return value

    def _input(self, vi: ValueInfoProto) -> Expr | OptionalNone:
        b = self.b
        t = vi.type
        which = t.WhichOneof("value")
        if which == "tensor_type":
            ty = self._tensor_type(vi.name, t.tensor_type)
            v = b.var(self.names.fresh(vi.name), ty, value=self.options.known_inputs.get(vi.name))
            self.inputs.append(v)
            self.input_names[v] = vi.name
            return v
        if which == "sequence_type" and vi.name in self.options.sequence_types:
            types = self.options.sequence_types[vi.name]
            v = b.var(self.names.fresh(vi.name), TupleType(tuple(types)))
            self.inputs.append(v)
            self.input_names[v] = vi.name
            return v
        if which == "optional_type" and vi.name in self.options.optional_present:
            if not self.options.optional_present[vi.name]:
                return OptionalNone(vi.type.optional_type.elem_type)
            inner = vi.type.optional_type.elem_type
            if inner.WhichOneof("value") == "sequence_type" and vi.name in self.options.sequence_types:
                v = b.var(self.names.fresh(vi.name), TupleType(tuple(self.options.sequence_types[vi.name])))
                self.inputs.append(v)
                self.input_names[v] = vi.name
                return v
            if inner.WhichOneof("value") == "tensor_type":
                v = b.var(self.names.fresh(vi.name), self._tensor_type(vi.name, inner.tensor_type))
                self.inputs.append(v)
                self.input_names[v] = vi.name
                return v
        kind = {"sequence_type": "a sequence", "optional_type": "an optional value", "map_type": "a map"}.get(
            which or "", "a value of unknown type"
        )
        raise ImportFailure(
            [
                Diagnostic(
                    codes.IMPORT_UNSUPPORTED,
                    f"the model input `{vi.name}` is {kind}, which has no Relay type here",
                    None,
                ).with_note(
                    "inputs must be tensors (sequences and optional values are supported through the backend API, "
                    "which knows their contents)"
                )
            ]
        )

    def _tensor_type(self, name: str, tt: TypeProto.Tensor) -> TensorType:
        try:
            dtype = dtype_of(tt.elem_type, f"the input `{name}`")
        except Unsupported as exc:
            raise ImportFailure([Diagnostic(codes.IMPORT_UNSUPPORTED, exc.message, None)]) from None
        given = self.options.input_shapes.get(name)
        if not tt.HasField("shape"):
            if given is None:
                raise ImportFailure(
                    [
                        Diagnostic(
                            codes.IMPORT_UNSUPPORTED, f"the input `{name}` has no shape (not even a rank)", None
                        ).with_help(f"give it with `--input-shape {name}=D1,D2,...`")
                    ]
                )
            return TensorType(tuple(given), dtype)
        dims: list[int | None] = []
        for d in tt.shape.dim:
            dims.append(
                d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else (0 if d.HasField("dim_value") else None)
            )
        if given is not None:
            if len(given) != len(dims):
                raise ImportFailure(
                    [
                        Diagnostic(
                            codes.IMPORT_UNSUPPORTED,
                            f"`--input-shape {name}`: the input has {len(dims)} dimensions, {len(given)} were given",
                            None,
                        )
                    ],
                    usage=True,
                )
            for i, (g, d) in enumerate(zip(given, dims, strict=False)):
                if d is not None and d != g:
                    raise ImportFailure(
                        [
                            Diagnostic(
                                codes.IMPORT_UNSUPPORTED,
                                f"`--input-shape {name}`: dimension {i} of the input is {d}, not {g}",
                                None,
                            )
                        ],
                        usage=True,
                    )
            dims = list(given)
        return TensorType(any_dim(dims), dtype)

    # ---------------------------------------------------------------- nodes

    def _check_operators(self, graph: GraphProto) -> None:
        diags: list[Diagnostic] = []
        seen: set[tuple[str, str]] = set()
        stack = [graph]
        while stack:
            g = stack.pop()
            for node in g.node:
                key = (node.domain, node.op_type)
                opset = self._opset_of(node)
                if table.lookup(node.op_type, node.domain, opset) is None and key not in seen:
                    seen.add(key)
                    diags.append(self._no_converter(node, opset))
                for a in node.attribute:
                    if a.HasField("g"):
                        stack.append(a.g)
                    stack.extend(a.graphs)
        if diags:
            raise ImportFailure(diags)

    def _no_converter(self, node: NodeProto, opset: int) -> Diagnostic:
        domain = f" of domain `{node.domain}`" if node.domain and table.canonical_domain(node.domain) else ""
        reason = table.REFUSED.get((table.canonical_domain(node.domain), node.op_type))
        handled = table.ranges(node.op_type, node.domain)
        if handled:
            msg = f"the ONNX operator `{node.op_type}`{domain} is not supported at opset {opset}"
            return self.unsupported(
                node, msg, notes=[f"`{node.op_type}` is supported at opsets {table.range_text(handled)}"]
            )
        msg = f"the ONNX operator `{node.op_type}`{domain} is not supported"
        if not reason:
            reason = "relay-text converts the operators TVM's ONNX importer converted, and this is not one of them"
        return self.unsupported(node, msg, notes=[reason])

    def _nodes(self, graph: GraphProto, scope: dict[str, Any]) -> None:
        for node in graph.node:
            self._node(node, scope)

    def _node(self, proto: NodeProto, scope: dict[str, Any]) -> None:
        b = self.b
        opset = self._opset_of(proto)
        entry = table.lookup(proto.op_type, proto.domain, opset)
        if entry is None:
            raise ImportFailure([self._no_converter(proto, opset)])
        inputs: list[Any] = []
        for i, name in enumerate(proto.input):
            if not name:
                inputs.append(None)
                continue
            if name not in scope:
                raise ImportFailure(
                    [
                        self.unsupported(
                            proto, f"the input `{name}` is computed by no node before this one", input_index=i
                        )
                    ]
                )
            inputs.append(scope[name])
        name = self.node_name(proto)
        node = Node(proto, name, opset, inputs, list(proto.input))
        b.origin = proto.output[0] if proto.output and proto.output[0] else name
        try:
            result = entry.fn(Ctx(self, scope), node)
            unread = node.unread()
            if unread:
                raise Unsupported(f"the attribute `{unread[0]}` of `{proto.op_type}` is not supported", attr=unread[0])
        except Unsupported as exc:
            raise ImportFailure([self.unsupported(proto, exc.message, exc.attr, exc.notes)]) from None
        except ImportFailure:
            raise
        outs = result if isinstance(result, list) else [result]
        named = [o for o in proto.output]
        if len(outs) < len([o for o in named if o]):
            # converters return every output they compute; trailing unnamed ones may be missing
            pass
        for i, out_name in enumerate(named):
            if not out_name:
                continue
            if i >= len(outs) or outs[i] is None:
                raise ImportFailure(
                    [self.unsupported(proto, f"output {i} (`{out_name}`) of `{proto.op_type}` is not supported")]
                )
            scope[out_name] = outs[i]
        first = outs[0] if outs else None
        if isinstance(first, TupleGetItem) and isinstance(first.tuple_value, Call):
            first = first.tuple_value  # (the call whose result the node takes a field of)
        if isinstance(first, Call) and first not in self.notes:
            self.notes[first] = f"{name}: {proto.op_type}"

    def subgraph(self, graph: GraphProto, scope: dict[str, Any], bindings: dict[str, Any]) -> list[Any]:
        """Convert a subgraph whose inputs are `bindings` (name -> expression),
        seeing the names of `scope`; its outputs, in order."""
        inner = dict(scope)
        b = self.b
        for t in graph.initializer:
            b.origin = t.name
            inner[t.name] = b.const(tensor_array(t))
        inner.update(bindings)
        self._nodes(graph, inner)
        outs = []
        for vi in graph.output:
            if vi.name not in inner:
                raise Unsupported(f"the subgraph output `{vi.name}` is computed by no node")
            outs.append(inner[vi.name])
        return outs


class OptionalNone:
    """The value of an optional that holds nothing (the `Optional` operator
    without an input); `type_proto` is what it would hold."""

    def __init__(self, type_proto: TypeProto) -> None:
        self.type_proto = type_proto


class Ctx:
    """What a converter is given besides its node: the builder (`b`) and
    the importer (subgraphs, opsets)."""

    def __init__(self, importer: Importer, scope: dict[str, Any]) -> None:
        self.importer = importer
        self.b = importer.b
        self.scope = scope
        self.opset = importer.opset

    def subgraph(self, graph: GraphProto, bindings: dict[str, Any]) -> list[Any]:
        return self.importer.subgraph(graph, self.scope, bindings)


def _dtype(array: np.ndarray) -> str:
    from ..builder import dtype_name

    return dtype_name(array.dtype)
