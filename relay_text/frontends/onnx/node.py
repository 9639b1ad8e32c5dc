"""One ONNX node as a converter sees it: its inputs (IR expressions), its
attributes (Python values) and what it is (op type, name, opset).

Attributes are read through `attr`, which records what was read: an
attribute the converter never read is reported as unsupported after the
conversion (`unread`), so that a model never imports with an attribute
silently dropped. Attributes that do not change the result are read with
`ignore`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..builder import Unsupported
from ...diagnostics import Diagnostic, codes
from ..errors import ImportFailure

if TYPE_CHECKING:
    from onnx import AttributeProto, NodeProto, SparseTensorProto, TensorProto

# ONNX TensorProto element types -> dtypes
DTYPES = {
    1: "float32",
    2: "uint8",
    3: "int8",
    4: "uint16",
    5: "int16",
    6: "int32",
    7: "int64",
    9: "bool",
    10: "float16",
    11: "float64",
    12: "uint32",
    13: "uint64",
    16: "bfloat16",
}
TYPE_NAMES = {
    0: "undefined",
    8: "string",
    14: "complex64",
    15: "complex128",
    17: "float8e4m3fn",
    18: "float8e4m3fnuz",
    19: "float8e5m2",
    20: "float8e5m2fnuz",
    21: "uint4",
    22: "int4",
    23: "float4e2m1",
    24: "float8e8m0",
    25: "uint2",
    26: "int2",
}


def dtype_of(elem_type: int, what: str = "a tensor") -> str:
    dtype = DTYPES.get(elem_type)
    if dtype is None:
        name = TYPE_NAMES.get(elem_type, f"element type {elem_type}")
        raise Unsupported(f"{what} of ONNX type `{name}` has no Relay dtype")
    return dtype


def onnx_type_code(dtype: str) -> int:
    for code, name in DTYPES.items():
        if name == dtype:
            return code
    raise KeyError(dtype)


class Node:
    """A node being converted (see the module docstring)."""

    def __init__(
        self, proto: NodeProto, name: str, opset: int, inputs: Sequence[Any], input_names: Sequence[str]
    ) -> None:
        self.proto = proto
        self.op_type: str = proto.op_type
        self.domain: str = proto.domain
        self.name = name
        self.opset = opset
        self.inputs = list(inputs)
        self.input_names = list(input_names)
        self.outputs: list[str] = list(proto.output)
        self._attrs = {a.name: a for a in proto.attribute}
        self.read: set[str] = set()

    # ---- inputs

    def input(self, i: int) -> Any:
        """Input `i`, or None when it is absent (omitted or an empty name).

        Any: what a model gives is decided by the operator's schema, which the
        converter knows and the type system does not: a tensor or a tuple
        (an Expr), an empty optional (an OptionalNone) or nothing (None)."""
        return self.inputs[i] if i < len(self.inputs) else None

    def has(self, i: int) -> bool:
        return self.input(i) is not None

    def num_outputs(self) -> int:
        """How many outputs the node names (trailing empty names dropped)."""
        n = len(self.outputs)
        while n and not self.outputs[n - 1]:
            n -= 1
        return n

    def wants(self, i: int) -> bool:
        """Whether output `i` is used (named)."""
        return i < len(self.outputs) and bool(self.outputs[i])

    # ---- attributes

    def has_attr(self, key: str) -> bool:
        return key in self._attrs

    def attr(self, key: str, default: Any = None, allowed: Sequence[Any] | None = None) -> Any:
        self.read.add(key)
        proto = self._attrs.get(key)
        if proto is None:
            return default
        value = attribute_value(proto)
        if allowed is not None and value not in allowed:
            shown = ", ".join(repr(a) for a in allowed)
            raise Unsupported(f"attribute `{key}` = {value!r} is not supported (supported: {shown})", attr=key)
        return value

    def require(self, key: str) -> Any:
        if key not in self._attrs:
            raise Unsupported(f"the attribute `{key}` is required", attr=key)
        return self.attr(key)

    def ignore(self, *keys: str) -> None:
        """Attributes that do not change what the node computes (here)."""
        self.read.update(keys)

    def unread(self) -> list[str]:
        return [k for k in self._attrs if k not in self.read]


def attribute_value(proto: AttributeProto) -> Any:
    """An AttributeProto as a Python value: strings decoded, tensors as
    numpy arrays, graphs as GraphProtos, lists as lists."""
    from onnx import AttributeProto as A

    t = proto.type
    if t == A.FLOAT:
        return float(proto.f)
    if t == A.INT:
        return int(proto.i)
    if t == A.STRING:
        return proto.s.decode("utf-8", "replace")
    if t == A.TENSOR:
        return tensor_array(proto.t)
    if t == A.GRAPH:
        return proto.g
    if t == A.FLOATS:
        return [float(v) for v in proto.floats]
    if t == A.INTS:
        return [int(v) for v in proto.ints]
    if t == A.STRINGS:
        return [s.decode("utf-8", "replace") for s in proto.strings]
    if t == A.TENSORS:
        return [tensor_array(x) for x in proto.tensors]
    if t == A.GRAPHS:
        return list(proto.graphs)
    if t == A.SPARSE_TENSOR:
        return _sparse(proto.sparse_tensor)
    raise Unsupported(f"attribute `{proto.name}` has a kind of value that cannot be read (type {t})", attr=proto.name)


def tensor_array(t: TensorProto) -> np.ndarray:
    import onnx.numpy_helper

    from .external import ExternalDataError, external_array, uses_external_data

    if t.data_type == 8:
        raise Unsupported("string tensors have no Relay dtype")
    dtype_of(t.data_type, "a tensor")
    if uses_external_data(t):
        try:
            mapped: np.ndarray = external_array(t)
            return mapped
        except ExternalDataError as exc:
            raise ImportFailure([Diagnostic(codes.IMPORT_INVALID, f"tensor `{t.name}`: {exc}", None)]) from None
    return np.asarray(onnx.numpy_helper.to_array(t))


def _sparse(s: SparseTensorProto) -> np.ndarray:
    values = tensor_array(s.values)
    indices = tensor_array(s.indices).astype(np.int64)
    dense = np.zeros(tuple(s.dims), dtype=values.dtype)
    if indices.ndim == 1:
        dense.reshape(-1)[indices] = values
    else:
        dense[tuple(indices.T)] = values
    return dense
