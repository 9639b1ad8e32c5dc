"""Operator converters: one function per operator of ours, grouped by family.

A converter is registered under our operator's name(s):

    @converter("exp", "log")
    def unary(cx, x):
        return cx.node(UNARY[cx.name], [x])

and, if its ONNX operators are younger than the exporter's default opset,
the opset they need (`@converter("cumprod", opset=26)`): an export that
does not name an opset then writes that one, and an export at an older
opset reports the call. Where only some attribute values need a younger
opset, `call_opset` gives the opset one call needs from its attributes
(normalised): `@converter("nn.avg_pool2d", call_opset=lambda attrs: ...)`.

It is called with an `OpContext` and the ONNX value names of the call's
arguments (a tuple of names for a tuple argument, as `concatenate` takes)
and returns the name of its result (a tuple of names for a tuple result).
`cx` gives the call's attributes (normalised, defaults filled in), the
checker's types of the arguments and of the result, and adds nodes and
constants to the graph. A converter that cannot express a call (a shape
that is not static, an attribute value ONNX lacks) raises `Unsupported`.

The modules of this package are found, not listed; the table is
`CONVERTERS` (name -> function).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeAlias, TypeVar

import numpy as np
import numpy.typing as npt

from ...ir.expr import Call
from ...ir.ty import Dim, TensorType, TupleType, Type
from ..graph import Graph, Unsupported, onnx_dtype, static_shape

# A call's attributes, normalised by its operator's schema (Any: each value
# is of the kind the schema declares for it).
Attrs: TypeAlias = dict[str, Any]
# A converter takes the context and the names of the call's input tensors
# (as many as the operator has: hence `...`) and gives the names of its results.
Converter: TypeAlias = Callable[..., "str | Sequence[str]"]
_F = TypeVar("_F", bound=Converter)
_TABLE: dict[str, Converter] = {}
_OPSETS: dict[str, int] = {}  # operator -> the opset its converter needs, where above the oldest written
_CALL_OPSETS: dict[str, Callable[[Attrs], int]] = {}  # operator -> the opset a call needs, by its attributes
_LOADED = False


def converter(*names: str, opset: int = 0, call_opset: Callable[[Attrs], int] | None = None) -> Callable[[_F], _F]:
    def register(fn: _F) -> _F:
        for name in names:
            assert name not in _TABLE, f"two converters for {name}"
            _TABLE[name] = fn
            if opset:
                _OPSETS[name] = opset
            if call_opset is not None:
                _CALL_OPSETS[name] = call_opset
        return fn

    return register


def needed_opset(name: str, attrs: Iterable[Attrs] = ()) -> int:
    """The oldest opset the converter of `name` writes (0: any the exporter
    writes), for calls with these attributes (each a normalised dict)."""
    converters()
    by_call = _CALL_OPSETS.get(name)
    return max([_OPSETS.get(name, 0), *(by_call(a) for a in attrs)] if by_call is not None else [_OPSETS.get(name, 0)])


def converters() -> dict[str, Converter]:
    """The table of converters, every family module loaded."""
    global _LOADED
    if not _LOADED:
        for info in pkgutil.iter_modules(__path__):
            importlib.import_module(f"{__name__}.{info.name}")
        _LOADED = True
    return _TABLE


class OpContext:
    """One operator call being converted."""

    def __init__(
        self, graph: Graph, name: str, node: Call, attrs: Attrs, in_types: list[Type | None], out_type: Type | None
    ) -> None:
        self.graph = graph
        self.name = name
        self.call = node
        self.attrs = attrs
        self.in_types = in_types
        self.out_type = out_type

    @property
    def opset(self) -> int:
        return self.graph.opset

    def node(self, op_type: str, inputs: list[str], **attrs: Any) -> str:
        """Add a node of one output; its name."""
        return self.graph.node(op_type, inputs, **attrs)

    def multi_node(self, op_type: str, inputs: list[str], outputs: int, **attrs: Any) -> list[str]:
        """Add a node of `outputs` outputs; their names."""
        return self.graph.multi_node(op_type, inputs, outputs, **attrs)

    def const(self, value: npt.ArrayLike, dtype: str | None = None) -> str:
        return self.graph.constant(value, dtype)

    def ints(self, values: Iterable[int]) -> str:
        return self.graph.ints(values)

    def scalar(self, value: npt.ArrayLike, dtype: npt.DTypeLike) -> str:
        return self.graph.scalar(value, dtype)

    # ---- types -----------------------------------------------------------------

    def type(self, i: int) -> Type | None:
        return self.in_types[i]

    def shape(self, i: int) -> tuple[int, ...]:
        shape = static_shape(self._tensor(self.in_types[i], f"argument {i + 1}"))
        if shape is None:
            raise Unsupported(f"the shape of argument {i + 1} is not static ({self.in_types[i]})")
        return shape

    def dims(self, i: int) -> tuple[Dim, ...]:
        """The dimensions of argument `i` as the checker gives them (some may be symbolic)."""
        shape = self._tensor(self.in_types[i], f"argument {i + 1}").shape
        if not isinstance(shape, tuple):
            raise Unsupported(f"the rank of argument {i + 1} is not known here")
        return shape

    def rank(self, i: int) -> int:
        return self.rank_of(self.in_types[i], f"argument {i + 1}")

    def rank_of(self, ty: Type | None, what: str = "a field") -> int:
        shape = self._tensor(ty, what).shape
        if not isinstance(shape, tuple):
            raise Unsupported(f"the rank of {what} is not known here")
        return len(shape)

    def dtype(self, i: int) -> str:
        return str(self._tensor(self.in_types[i], f"argument {i + 1}").dtype)

    def field_types(self, i: int) -> list[TensorType]:
        ty = self.in_types[i]
        if not isinstance(ty, TupleType):
            raise Unsupported(f"argument {i + 1} is not a tuple of known type")
        return [self._tensor(f, "a field") for f in ty.fields]

    @property
    def out_shape(self) -> tuple[int, ...]:
        shape = static_shape(self._tensor(self.out_type, "the result"))
        if shape is None:
            raise Unsupported(f"the shape of the result is not static ({self.out_type})")
        return shape

    @property
    def out_dtype(self) -> str:
        return str(self._tensor(self.out_type, "the result").dtype)

    def out_fields(self) -> list[TensorType]:
        if not isinstance(self.out_type, TupleType):
            raise Unsupported("the result is not a tuple of known type")
        return [self._tensor(f, "a field of the result") for f in self.out_type.fields]

    def out_field(self, i: int) -> TensorType:
        if not isinstance(self.out_type, TupleType):
            raise Unsupported("the result is not a tuple of known type")
        return self._tensor(self.out_type.fields[i], "a field of the result")

    @staticmethod
    def _tensor(ty: Type | None, what: str) -> TensorType:
        if not isinstance(ty, TensorType):
            raise Unsupported(f"the type of {what} is not known here")
        return ty

    # ---- helpers ---------------------------------------------------------------

    def cast(self, x: str, dtype: str) -> str:
        return self.node("Cast", [x], to=onnx_dtype(dtype))

    def reshape(self, x: str, shape: Iterable[int]) -> str:
        """`x` in the static `shape`; a 0 in it is a dimension of size 0
        (`allowzero`), not a copy of the input's dimension."""
        dims = [int(d) for d in shape]
        if 0 not in dims:
            return self.node("Reshape", [x, self.ints(dims)])
        if self.opset < 14:
            raise Unsupported("a reshape to a shape with a dimension of size 0 needs opset 14 (Reshape's allowzero)")
        return self.node("Reshape", [x, self.ints(dims)], allowzero=1)

    def to_out_shape(self, x: str) -> str:
        """`x` reshaped to the result's (static) shape."""
        return self.reshape(x, self.out_shape)

    def squeeze(self, x: str, axes: Iterable[int]) -> str:
        listed = list(axes)
        return self.node("Squeeze", [x, self.ints(listed)]) if listed else x

    def unsqueeze(self, x: str, axes: Iterable[int]) -> str:
        listed = list(axes)
        return self.node("Unsqueeze", [x, self.ints(listed)]) if listed else x

    def reduce(self, op: str, x: str, axes: Iterable[int] | None, keepdims: bool) -> str:
        """A reduction over `axes` (None: all), whichever way the opset takes axes."""
        keep = int(bool(keepdims))
        if axes is None:
            return self.node(op, [x], keepdims=keep)
        listed = list(axes)
        if not listed:
            return self.node(op, [x], keepdims=keep, noop_with_empty_axes=1)
        if self.opset >= 18 or op == "ReduceSum":
            return self.node(op, [x, self.ints(listed)], keepdims=keep)
        return self.node(op, [x], keepdims=keep, axes=listed)

    def per_item(self, count: str, body: Callable[[OpContext, str], list[str]]) -> list[str]:
        """A `Loop` of `count` (an int64 scalar) iterations whose body,
        `body(cx, i)` on a context of the loop's subgraph with `i` the
        iteration (int64 scalar), gives one tensor per output; each output
        of the loop stacks them along a new first axis."""
        from ..graph import MAX_SUBGRAPH_DEPTH

        if self.graph.depth >= MAX_SUBGRAPH_DEPTH:
            raise Unsupported(
                f"its ONNX form loops in a subgraph, which would be nested {self.graph.depth + 1} deep (ONNX readers "
                f"accept {MAX_SUBGRAPH_DEPTH})"
            )
        graph = Graph(self.graph.fresh("per_item"), parent=self.graph)
        i = graph.fresh("i")
        going_on = graph.fresh("going_on")
        graph.add_input(i, TensorType((), "int64"))
        graph.add_input(going_on, TensorType((), "bool"))
        inner = OpContext(graph, self.name, self.call, self.attrs, self.in_types, self.out_type)
        outs = body(inner, i)
        graph.add_output(graph.node("Identity", [going_on]), TensorType((), "bool"))
        for out in outs:
            graph.add_output(graph.node("Identity", [out]), graph.type_of(out))
        return self.multi_node("Loop", [count, ""], len(outs), body=graph.build())

    def like(self, value: complex, i: int = 0) -> str:
        """A scalar constant of argument `i`'s dtype."""
        return self.scalar(value, np_dtype(self.dtype(i)))


# onnxruntime's Where lacks these element types: the values go through a
# type it has and back, which keeps every value
_WHERE_VIA = {"bool": "uint8", "int16": "int32", "uint16": "int32", "bfloat16": "float32"}


def select(cx: OpContext, cond: str, x: str, y: str, dtype: str) -> str:
    """`Where(cond, x, y)` for values of `dtype`, whichever dtype that is."""
    via = _WHERE_VIA.get(dtype)
    if via is not None:
        return cx.cast(cx.node("Where", [cond, cx.cast(x, via), cx.cast(y, via)]), dtype)
    if dtype == "uint64":  # y + (x - y) * cond, exact in wrapping arithmetic
        return cx.node("Add", [y, cx.node("Mul", [cx.node("Sub", [x, y]), cx.cast(cond, "uint64")])])
    return cx.node("Where", [cond, x, y])


# The element types onnxruntime multiplies matrices of, and those it
# multiplies through a wider one (the wrapping of integers is the same
# modulo the narrower width)
_MATMUL = {"float32", "float64", "int32", "int64", "uint32", "uint64"}
_MATMUL_VIA = {
    "int8": "int32",
    "int16": "int32",
    "uint8": "uint32",
    "uint16": "uint32",
    "float16": "float32",
    "bfloat16": "float32",
}


def matrix_product(cx: OpContext, a: str, b: str, dtype: str) -> str:
    """`MatMul` of `a` and `b` converted to `dtype`, accumulating in `dtype`
    as numpy does (through a wider type where onnxruntime lacks `dtype`)."""
    if dtype in _MATMUL:
        return cx.node("MatMul", [cx.cast(a, dtype), cx.cast(b, dtype)])
    via = _MATMUL_VIA.get(dtype)
    if via is None:
        raise Unsupported(f"onnxruntime multiplies no {dtype} matrices")
    if dtype.startswith("int") or dtype.startswith("uint"):
        a, b = cx.cast(cx.cast(a, dtype), via), cx.cast(cx.cast(b, dtype), via)
        return cx.cast(cx.node("MatMul", [a, b]), dtype)
    return cx.cast(cx.node("MatMul", [cx.cast(a, via), cx.cast(b, via)]), dtype)


def np_dtype(dtype: str) -> np.dtype[Any]:
    from ...eval.ops import numpy_dtype

    found: np.dtype[Any] = numpy_dtype(dtype)  # (eval.ops gives Any)
    return found


def norm_axis(axis: int, rank: int) -> int:
    return axis + rank if axis < 0 else axis


def float_like(dtype: str) -> bool:
    return dtype.startswith("float") or dtype == "bfloat16"


__all__ = [
    "OpContext",
    "Unsupported",
    "converter",
    "converters",
    "float_like",
    "matrix_product",
    "norm_axis",
    "np",
    "np_dtype",
    "select",
]
