"""A text listing of an ONNX graph, so that diagnostics can point at a node.

An `.onnx` file is binary: a diagnostic about a node points into this
listing instead, one line per node in ONNX's own textual syntax
(`onnx.printer`), with the node's index and name in front and the nodes of
subgraphs (`If`, `Loop`, `Scan` bodies) indented under theirs:

    graph "torch_jit" (opset 13, inputs: input.1, 2 initializers)
    [0] "conv1": 3 = Conv <dilations: ints = [1, 1], ...> (input.1, conv.weight, conv.bias)
    [1] Relu_0: 4 = Relu (3)

(a node without a name is called `OpType_k`, the k-th such node of its
type, as TVM named them; the comments of the imported text use the same
names)

`relay import --list-nodes MODEL.onnx` prints it, so that a line number in
a diagnostic can be looked up. Initializer data is never printed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...ir.span import Source, Span

if TYPE_CHECKING:
    from onnx import GraphProto, ModelProto, NodeProto, TensorProto

MAX_LINE = 400  # a node's line is cut here (long attribute lists)


@dataclass
class NodeSpot:
    """Where one node's line is, and its parts."""

    line_start: int
    line_end: int
    op_start: int
    op_end: int
    attr_starts: dict[str, int] = field(default_factory=dict)


class Listing:
    """The listing text and each node's place in it (by the NodeProto's id)."""

    def __init__(self, name: str, model: ModelProto) -> None:
        self.lines: list[str] = []
        self.spots: dict[int, NodeSpot] = {}
        # The node objects, kept alive: protobuf hands out one Python object
        # per node only while one is referenced, and spots are keyed by id()
        self.nodes: list[NodeProto] = []
        # each node's name: its own, or `OpType_k` (the k-th unnamed node of
        # that type, in listing order) for a node without one, as TVM named them
        self.names: dict[int, str] = {}
        self._counts: dict[str, int] = {}
        self._offset = 0
        self._pending: list[tuple[str, Any, str]] = []
        opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)
        self._graph(model.graph, opset, 0)
        self.source = Source(name, "".join(line + "\n" for line in self.lines))

    def _add(self, text: str) -> int:
        start = self._offset
        self.lines.append(text)
        self._offset += len(text) + 1
        return start

    def _graph(self, graph: GraphProto, opset: int | None, depth: int) -> None:
        indent = "    " * depth
        weights = {t.name for t in graph.initializer}
        inputs = ", ".join(i.name for i in graph.input if i.name not in weights) or "none"
        tail = f", {len(graph.initializer)} initializers" if graph.initializer else ""
        head = f'graph "{graph.name}"' + (
            f" (opset {opset}, inputs: {inputs}{tail})" if depth == 0 else f" (inputs: {inputs}{tail})"
        )
        self._add(indent + head)
        for index, node in enumerate(graph.node):
            self._node(node, index, depth)

    def _node(self, node: NodeProto, index: int, depth: int) -> None:
        indent = "    " * depth
        name = node.name
        if not name:
            k = self._counts.get(node.op_type, -1) + 1
            self._counts[node.op_type] = k
            name = f"{node.op_type}_{k}"
        self.names[id(node)] = name
        prefix = f'{indent}[{index}] "{name}": ' if node.name else f"{indent}[{index}] {name}: "
        body = _node_text(node)
        if len(body) > MAX_LINE:
            body = body[: MAX_LINE - 3] + "..."
        start = self._add(prefix + body)
        line = prefix + body
        eq = body.find(" = ")
        op_at = len(prefix) + (eq + 3 if eq >= 0 else 0)
        op_text = node.op_type
        pos = line.find(op_text, op_at)
        if pos < 0:
            pos, op_text = len(prefix), body.split(" ", 1)[0]
        spot = NodeSpot(start, start + len(line), start + pos, start + pos + len(op_text))
        for a in node.attribute:
            at = line.find(a.name + ":", pos)
            if at >= 0:
                spot.attr_starts[a.name] = start + at
        self.spots[id(node)] = spot
        self.nodes.append(node)
        for a in node.attribute:
            graphs = [a.g] if a.HasField("g") else list(a.graphs)
            for g in graphs:
                self._add(f"{indent}    {a.name}:")
                self._graph(g, None, depth + 2)

    def name_of(self, node: NodeProto) -> str:
        return self.names.get(id(node)) or node.name or node.op_type

    def node_span(self, node: NodeProto) -> Span | None:
        spot = self.spots.get(id(node))
        if spot is None:
            return None
        return Span(self.source, spot.op_start, spot.op_end)

    def attr_span(self, node: NodeProto, attr: str) -> Span | None:
        spot = self.spots.get(id(node))
        if spot is None:
            return None
        at = spot.attr_starts.get(attr)
        if at is None:
            return Span(self.source, spot.op_start, spot.op_end)
        return Span(self.source, at, at + len(attr))

    def input_span(self, node: NodeProto, index: int) -> Span | None:
        """The `index`-th input name on the node's line."""
        spot = self.spots.get(id(node))
        if spot is None or index >= len(node.input):
            return self.node_span(node)
        text = self.source.text[spot.line_start : spot.line_end]
        close = text.rfind(")")
        open_ = text.rfind("(", 0, close) if close >= 0 else -1
        if open_ < 0:
            return self.node_span(node)
        names = text[open_ + 1 : close].split(",")
        at = open_ + 1
        for i, piece in enumerate(names):
            if i == index:
                lead = len(piece) - len(piece.lstrip())
                begin = spot.line_start + at + lead
                return Span(self.source, begin, begin + max(1, len(piece.strip())))
            at += len(piece) + 1
        return self.node_span(node)


def _node_text(node: NodeProto) -> str:
    """The node in ONNX's text syntax, without subgraph bodies or tensor data."""
    import onnx

    copy = onnx.NodeProto()
    copy.CopyFrom(node)
    copy.ClearField("name")  # the listing writes the name in front
    kept = []
    for a in copy.attribute:
        if a.HasField("g") or len(a.graphs):
            continue
        if a.HasField("t") and _tensor_size(a.t) > 8:
            a.t.ClearField("raw_data")
            for f in ("float_data", "int32_data", "int64_data", "double_data", "uint64_data", "string_data"):
                a.t.ClearField(f)
        kept.append(a)
    del copy.attribute[:]
    copy.attribute.extend(kept)
    try:
        text = onnx.printer.to_text(copy)
    except Exception:
        text = f"{', '.join(copy.output)} = {copy.op_type} ({', '.join(copy.input)})"
    return " ".join(text.split())


def _tensor_size(t: TensorProto) -> int:
    n = 1
    for d in t.dims:
        n *= d
    return n
