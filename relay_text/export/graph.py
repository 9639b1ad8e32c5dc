"""An ONNX graph under construction: nodes, initializers, names and types.

A `Graph` hands out unique value names, records nodes and initializers, and
keeps the type of every value whose type the checker knows (those become
the graph's `value_info`). A subgraph (a branch of `If`, the body of `Loop`)
is a `Graph` whose `parent` is the graph that holds the node: its names stay
unique across the whole model, and it may read its ancestors' values.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ..ir.ty import AnyDim, TensorType, TypeVar
from .weights import DataFile, Pending, write_initializers

if TYPE_CHECKING:
    from onnx import GraphProto, NodeProto, ValueInfoProto

# Our dtype names -> ONNX TensorProto element types (onnx.TensorProto values).
ONNX_DTYPES = {
    "float32": 1,
    "uint8": 2,
    "int8": 3,
    "uint16": 4,
    "int16": 5,
    "int32": 6,
    "int64": 7,
    "bool": 9,
    "float16": 10,
    "float64": 11,
    "uint32": 12,
    "uint64": 13,
    "bfloat16": 16,
}


# How deep subgraphs (If branches, Loop bodies) may nest: a model is a
# protobuf message, and ONNX readers refuse messages nested more than 100
# levels. ModelProto > GraphProto > (NodeProto > AttributeProto > GraphProto)
# per subgraph > ValueInfoProto > TypeProto > Tensor > TensorShapeProto >
# Dimension: 2 + 3 * depth + 5 levels.
MAX_SUBGRAPH_DEPTH = 31


class Unsupported(Exception):
    """Something the exporter cannot express in ONNX (reported at the node being exported)."""

    def __init__(self, message: str, help: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.help = help


def onnx_dtype(dtype: str) -> int:
    code = ONNX_DTYPES.get(dtype)
    if code is None:
        raise Unsupported(f"ONNX has no tensor element type for `{dtype}`")
    return code


def static_shape(ty: Any) -> tuple[int, ...] | None:
    """The shape of a tensor type whose dimensions are all numbers, else None."""
    if not isinstance(ty, TensorType) or not isinstance(ty.shape, tuple):
        return None
    dims = []
    for d in ty.shape:
        if not isinstance(d, int):
            return None
        dims.append(d)
    return tuple(dims)


def concrete(ty: Any) -> bool:
    """Whether a tensor type has a known dtype (dimensions may be `?`)."""
    return (
        isinstance(ty, TensorType)
        and isinstance(ty.dtype, str)
        and isinstance(ty.shape, tuple)
        and not any(isinstance(d, TypeVar) for d in ty.shape)
    )


class Graph:
    """Nodes and initializers of one ONNX graph (or subgraph)."""

    def __init__(self, name: str, parent: Graph | None = None, opset: int = 18) -> None:
        from onnx import helper

        self.helper = helper
        self.name = name
        self.parent = parent
        self.root: Graph = parent.root if parent is not None else self
        self.depth: int = parent.depth + 1 if parent is not None else 0  # subgraphs this one is nested in
        self.opset: int = opset if parent is None else parent.opset
        self.nodes: list[NodeProto] = []
        self.initializers: list[Pending] = []  # the root's constants, written when the model is assembled
        self.inputs: list[ValueInfoProto] = []
        self.outputs: list[ValueInfoProto] = []
        self.types: dict[str, TensorType] = {}  # value name -> its type, where known
        if parent is None:
            self._counter = itertools.count()
            self._used: set[str] = set()
            self._constants: dict[Any, str] = {}
            self.spans: dict[str, Any] = {}  # value name -> the span of the call that computes it

    # ---- names -----------------------------------------------------------------

    def fresh(self, hint: str = "t") -> str:
        root = self.root
        base = "".join(ch if ch.isalnum() or ch in "_." else "_" for ch in hint) or "t"
        name = base
        while name in root._used:
            name = f"{base}_{next(root._counter)}"
        root._used.add(name)
        return name

    def reserve(self, name: str) -> str:
        """`name` itself if still free (graph inputs keep their parameters' names)."""
        return self.fresh(name)

    # ---- content ---------------------------------------------------------------

    def node(
        self, op_type: str, inputs: list[str], outputs: int | list[str] = 1, domain: str = "", **attrs: Any
    ) -> str:
        """Add a node of one output; returns its name."""
        names = self.multi_node(op_type, inputs, outputs, domain, **attrs)
        if len(names) != 1:
            raise AssertionError(f"{op_type} has {len(names)} outputs: add it with multi_node")
        return names[0]

    def multi_node(
        self, op_type: str, inputs: list[str], outputs: int | list[str], domain: str = "", **attrs: Any
    ) -> list[str]:
        """Add a node; returns the names of its outputs."""
        names = [self.fresh(op_type.lower()) for _ in range(outputs)] if isinstance(outputs, int) else outputs
        attrs = {k: v for k, v in attrs.items() if v is not None}
        # named after its first output (unique in the model): onnxruntime names the node in its errors
        self.nodes.append(self.helper.make_node(op_type, inputs, names, name=names[0], domain=domain or None, **attrs))
        return names

    def constant(self, value: npt.ArrayLike, dtype: str | None = None, hint: str = "c") -> str:
        """A constant tensor: an initializer of the root graph, shared by equal small values."""
        if self.root is not self:  # a subgraph's constants are its root's (a function body writes them as nodes)
            return self.root.constant(value, dtype, hint)
        array = np.asarray(value, dtype=dtype) if dtype is not None else np.asarray(value)
        root = self.root
        key = None
        if array.size <= 16:
            key = (array.dtype.str, array.shape, array.tobytes())
            found = root._constants.get(key)
            if found is not None:
                return found
        name = root.fresh(hint)
        if array.dtype.name == "bfloat16":
            pending = Pending(name, np.asarray(array, order="C").view(np.uint16), ONNX_DTYPES["bfloat16"])
        else:
            code = self.helper.np_dtype_to_tensor_dtype(array.dtype)
            pending = Pending(name, np.asarray(array, order="C"), code)
        root.initializers.append(pending)
        if key is not None:
            root._constants[key] = name
        return name

    def ints(self, values: Iterable[int]) -> str:
        """A constant int64 vector (shapes, axes, pads given as inputs)."""
        return self.constant(np.asarray(list(values), dtype=np.int64).reshape(-1), hint="i")

    def scalar(self, value: npt.ArrayLike, dtype: npt.DTypeLike) -> str:
        return self.constant(np.asarray(value, dtype=dtype), hint="s")

    def set_type(self, name: str, ty: Any) -> None:
        if concrete(ty):
            self.types[name] = ty

    def type_of(self, name: str) -> TensorType | None:
        g: Graph | None = self
        while g is not None:
            ty = g.types.get(name)
            if ty is not None:
                return ty
            g = g.parent
        return None

    # ---- assembly --------------------------------------------------------------

    def value_info(self, name: str, ty: TensorType) -> ValueInfoProto:
        dims: list[Any] = []
        assert isinstance(ty.shape, tuple), ty  # only tensors of known rank are written
        for _i, d in enumerate(ty.shape):
            if isinstance(d, int):
                dims.append(d)
            elif isinstance(d, AnyDim):
                dims.append(None)
            else:
                dims.append(str(d).replace(" ", ""))
        return self.helper.make_tensor_value_info(name, onnx_dtype(str(ty.dtype)), dims)

    def add_input(self, name: str, ty: TensorType) -> None:
        self.types[name] = ty
        self.inputs.append(self.value_info(name, ty))

    def add_output(self, name: str, ty: TensorType | None) -> None:
        if ty is None:
            self.outputs.append(self.helper.make_empty_tensor_value_info(name))
        else:
            self.outputs.append(self.value_info(name, ty))

    def build(self) -> GraphProto:
        """The GraphProto of a subgraph (its constants are its root's)."""
        from onnx import GraphProto

        assert not self.initializers, "a subgraph has no initializers"
        proto = GraphProto()
        self.fill(proto, None)
        return proto

    def fill(self, proto: GraphProto, data: DataFile | None) -> None:
        """Write the graph into an empty `proto`: nodes, inputs, outputs, its
        constants (see `weights.write_initializers`; they are let go as they
        are written) and value_info for every intermediate value of known type."""
        declared = {v.name for v in self.inputs} | {v.name for v in self.outputs}
        declared |= {t.name for t in self.initializers}
        produced = {out for node in self.nodes for out in node.output}
        write_initializers(proto, self.initializers, data)
        proto.node.extend(self.nodes)
        proto.name = self.name
        proto.input.extend(self.inputs)
        proto.output.extend(self.outputs)
        proto.value_info.extend(
            self.value_info(name, ty) for name, ty in self.types.items() if name in produced and name not in declared
        )
