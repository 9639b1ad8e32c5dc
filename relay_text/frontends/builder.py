"""Building Relay IR from a model, one operator call at a time.

A frontend converts each node of a model into calls of the registered
operators (`relay_text.ops`). `Builder.call` makes one call and at once

* validates its attributes against the operator's schema,
* types it with the operator's own relation: the call is checked on its
  own, its arguments standing for variables of their known types (results
  are cached by operator, argument types and attributes, so a model that
  repeats a layer pays once), and
* folds it when every argument is a constant, with the operator's kernel
  (as TVM's importers folded constant subgraphs: shape arithmetic on
  static shapes becomes attributes, not runtime work).

So every expression the builder hands out has a known type (`type_of`,
`shape`, `dtype`), and a converter that builds a call the checker would
reject fails right there, with the relation's message, at the model node
being converted: an importer bug never produces text that does not check.

Tensor constants (weights, folded values) are `meta[relay.Constant][i]`
nodes during conversion; their arrays live in `arrays`. `emit` later
turns them into `@main` parameters (the default) or a `#[metadata]`
section. `value` computes what an expression evaluates to when that is
known at import time (constants, and parameters whose value the model
gives), the way TVM's `infer_value` did, for converters that need a
shape or an axis as a number.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, overload

import numpy as np

from ..ir.expr import Call, Constant, Expr, Function, GlobalVar, Op, Tuple, TupleGetItem, Var
from ..ir.module import Module
from ..ir.ty import AnyDim, TensorType, TupleType, Type
from ..ops import registry

# Operators whose result is not a function of their arguments: never folded.
_NOT_FOLDED = frozenset(
    {
        "random.threefry_generate",
        "random.threefry_split",
        "random.uniform",
        "random.normal",
        "random.multinomial",
        "debug",
    }
)
# Operators that make a tensor from nothing but attributes: kept as calls
# (a `zeros(shape=[...])` reads better than, and is smaller than, its value).
_CREATION = frozenset({"zeros", "ones", "full"})
# Folding stops at results this large (elements): the model stays as written.
MAX_FOLDED_ELEMENTS = 1 << 24


class Unsupported(Exception):
    """A node that cannot be expressed with the registered operators.

    `attr` names the ONNX attribute (or input) at fault, if one is."""

    def __init__(self, message: str, attr: str | None = None, notes: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.attr = attr
        self.notes = list(notes)


def numpy_dtype(dtype: str) -> Any:
    if dtype == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(dtype)


def dtype_name(dtype: Any) -> str:
    name = np.dtype(dtype).name
    return "bool" if name == "bool" else name


class Builder:
    """Calls, tuples and constants with their types known (see the module docstring)."""

    def __init__(self) -> None:
        self.types: dict[Expr, Type] = {}
        self.arrays: dict[Constant, np.ndarray] = {}  # tensor constants, in creation order
        self.known: dict[Var, np.ndarray] = {}  # parameters whose value the model gives
        self._type_cache: dict[Any, Type] = {}
        self._values: dict[Expr, Any] = {}
        self._ops: dict[str, Op] = {}
        self._next_meta = 0
        self.checks = 0  # calls typed by the checker (not from the cache)

    # ---------------------------------------------------------------- leaves

    def var(self, name: str, ty: Type, value: np.ndarray | None = None) -> Var:
        v = Var(name, ty)
        self.types[v] = ty
        if value is not None:
            self.known[v] = value
        return v

    def const(self, value: Any, dtype: str | None = None) -> Expr:
        """A constant: a literal for a scalar, else a tensor constant."""
        array = np.asarray(value)
        if dtype is not None:
            array = array.astype(numpy_dtype(dtype), copy=False)
        elif array.dtype == np.float64 and not isinstance(value, np.ndarray):
            array = array.astype(np.float32)  # a Python float: float32, as Relay's literals
        elif array.dtype == np.int64 and not isinstance(value, np.ndarray):
            array = array.astype(np.int32)
        name = dtype_name(array.dtype)
        if array.ndim == 0 and name != "bfloat16":
            scalar = array.item()
            node = Constant(scalar, name, ())
            self.types[node] = TensorType((), name)
            self._values[node] = array
            return node
        node = Constant(
            None,
            name,
            tuple(array.shape),
            meta_index=self._next_meta,
            type_annotation=TensorType(tuple(array.shape), name),
        )
        self._next_meta += 1
        if not array.flags.c_contiguous or array.flags.writeable:
            array = array.copy(order="C")  # (ascontiguousarray would make a scalar a vector)
        array.setflags(write=False)
        self.arrays[node] = array
        self.types[node] = TensorType(tuple(array.shape), name)
        self._values[node] = array
        return node

    # ---------------------------------------------------------------- types

    def type_of(self, expr: Expr) -> Type:
        return self.types[expr]

    def tensor_type(self, expr: Expr) -> TensorType:
        ty = self.types[expr]
        if not isinstance(ty, TensorType):
            raise Unsupported(f"expected a tensor, found a value of type `{ty}`")
        return ty

    def shape(self, expr: Expr) -> tuple[int | None, ...]:
        """The shape, None for a dimension not known statically."""
        shape = self.tensor_type(expr).shape
        if not isinstance(shape, tuple):
            raise Unsupported("a tensor of unknown rank")
        return tuple(d if isinstance(d, int) else None for d in shape)

    def static_shape(self, expr: Expr, what: str = "this input") -> tuple[int, ...]:
        shape = self.shape(expr)
        known = tuple(d for d in shape if d is not None)
        if len(known) != len(shape):
            raise Unsupported(
                f"{what} needs a static shape, found {_shape_text(shape)}",
                notes=["give the input's shape with `--input-shape NAME=D1,D2,...`"],
            )
        return known

    def rank(self, expr: Expr) -> int:
        return len(self.shape(expr))

    def dtype(self, expr: Expr) -> str:
        dtype = self.tensor_type(expr).dtype
        assert isinstance(dtype, str)
        return dtype

    # ---------------------------------------------------------------- calls

    def op(self, name: str) -> Op:
        node = self._ops.get(name)
        if node is None:
            node = self._ops[name] = Op(name)
        return node

    def call(self, name: str, *args: Expr, **attrs: Any) -> Expr:
        opdef = registry.get(name)
        if opdef is None:  # pragma: no cover - a converter names an operator that does not exist
            raise AssertionError(f"no operator {name}")
        pairs = tuple((k, _attr_value(v)) for k, v in attrs.items())
        if len(args) != opdef.inputs:
            raise AssertionError(f"{name} takes {opdef.inputs} arguments, {len(args)} given")
        normal, problems = opdef.normalize_attrs(pairs)
        if problems:
            raise Unsupported(f"`{name}`: {problems[0].message}")
        # an attribute at its default is left out, as a person would write the call
        pairs = tuple((k, v) for k, v in pairs if not _is_default(opdef, k, normal[k]))
        node = Call(self.op(name), tuple(args), pairs)
        ty = self._infer(name, node)
        self.types[node] = ty
        if name not in _NOT_FOLDED and name not in _CREATION and all(type(a) is Constant for a in args):
            folded = self._fold(opdef, node, normal, ty)
            if folded is not None:
                return folded
        if name == "shape_of":  # a static shape is a constant
            shape = self.shape(args[0])
            if all(d is not None for d in shape):
                return self.const(np.array(shape, dtype=normal["dtype"]))
        return node

    def tuple(self, fields: Iterable[Expr]) -> Expr:
        fields = tuple(fields)
        node = Tuple(fields)
        self.types[node] = TupleType(tuple(self.types[f] for f in fields))
        return node

    def item(self, expr: Expr, index: int) -> Expr:
        if isinstance(expr, Tuple):
            return expr.fields[index]
        ty = self.types[expr]
        assert isinstance(ty, TupleType), ty
        node = TupleGetItem(expr, index)
        self.types[node] = ty.fields[index]
        return node

    def typed(self, expr: Expr) -> Expr:
        """Give a hand-built expression (a function, a `let`, an `if`) its type."""
        if expr not in self.types:
            self.types[expr] = infer_expr(expr)
        return expr

    def items(self, expr: Expr) -> list[Expr]:
        ty = self.types[expr]
        assert isinstance(ty, TupleType), ty
        return [self.item(expr, i) for i in range(len(ty.fields))]

    def _infer(self, name: str, node: Call) -> Type:
        arg_types = tuple(self.types[a] for a in node.args)
        key = (name, arg_types, node.attrs)
        cached = self._type_cache.get(key)
        if cached is not None:
            return cached
        ty = infer_call(name, arg_types, node.attrs)
        self.checks += 1
        self._type_cache[key] = ty
        return ty

    def _fold(self, opdef: Any, node: Call, attrs: dict[str, Any], ty: Type) -> Expr | None:
        if (
            isinstance(ty, TensorType)
            and isinstance(ty.shape, tuple)
            and (
                not all(isinstance(d, int) for d in ty.shape)
                or int(np.prod(ty.shape, dtype=np.int64)) > MAX_FOLDED_ELEMENTS
            )
        ):
            return None
        try:
            result = opdef.kernel(tuple(self._values[a] for a in node.args), attrs)
        except Exception:
            return None
        if isinstance(result, tuple):
            return self.tuple(self.const(r, dtype_name(r.dtype)) for r in result)
        result = np.asarray(result)
        return self.const(result, dtype_name(result.dtype))

    # ---------------------------------------------------------------- values

    def value(self, expr: Expr | None) -> np.ndarray | None:
        """What `expr` evaluates to, if that is known without the model's
        inputs (constants, parameters with a value, static shapes)."""
        if expr is None:
            return None
        memo = self._values
        if expr in memo:
            known: np.ndarray | None = memo[expr]
            return known
        stack: list[tuple[Expr, bool]] = [(expr, False)]
        while stack:
            node, ready = stack.pop()
            if node in memo:
                continue
            if not ready:
                kids = _value_children(node, self)
                if kids is None:
                    memo[node] = None
                    continue
                stack.append((node, True))
                stack.extend((k, False) for k in kids if k not in memo)
                continue
            memo[node] = self._compute(node)
        value: np.ndarray | None = memo[expr]
        return value

    def _compute(self, node: Expr) -> Any:
        memo = self._values
        if isinstance(node, Var):
            return self.known.get(node)
        if isinstance(node, TupleGetItem):
            t = memo[node.tuple_value]
            return None if t is None else t[node.index]
        if isinstance(node, Tuple):
            vals = [memo[f] for f in node.fields]
            return None if any(v is None for v in vals) else tuple(vals)
        if isinstance(node, Call) and isinstance(node.op, Op):
            name = node.op.name
            if name == "shape_of":
                shape = self.shape(node.args[0])
                if all(d is not None for d in shape):
                    return np.array(
                        [int(d) for d in shape if d is not None], dtype=str(dict(node.attrs).get("dtype", "int32"))
                    )
            args = [memo[a] for a in node.args]
            opdef = registry.get(name)
            if opdef is None or any(a is None for a in args) or name in _NOT_FOLDED:
                return None
            attrs, _ = opdef.normalize_attrs(node.attrs)
            try:
                return opdef.kernel(tuple(args), attrs)
            except Exception:
                return None
        return None

    @overload
    def int_list(self, expr: Expr, what: str) -> list[int]: ...
    @overload
    def int_list(self, expr: Expr | None, what: str) -> list[int] | None: ...
    def int_list(self, expr: Expr | None, what: str) -> list[int] | None:
        """The value of an integer tensor as a list (None for a missing input);
        Unsupported when it is not known at import time."""
        if expr is None:
            return None
        v = self.value(expr)
        if v is None:
            raise Unsupported(f"{what} must be known when the model is imported (a constant or an initializer)")
        return [int(x) for x in np.asarray(v).reshape(-1)]


def _value_children(node: Expr, b: Builder) -> list[Expr] | None:
    if isinstance(node, (Var, Constant)):
        return []
    if isinstance(node, TupleGetItem):
        return [node.tuple_value]
    if isinstance(node, Tuple):
        return list(node.fields)
    if isinstance(node, Call) and isinstance(node.op, Op):
        if node.op.name == "shape_of" and all(d is not None for d in b.shape(node.args[0])):
            return []
        return list(node.args)
    return None


def _is_default(opdef: Any, key: str, value: Any) -> bool:
    attr = opdef.schema[key]
    if attr.default is registry.REQUIRED:
        return False
    try:
        default = attr.convert(attr.default)
    except Exception:
        return False
    return type(default) is type(value) and default == value


def _attr_value(value: Any) -> Any:
    """A Python attribute value as the IR holds it (tuples, ints, floats)."""
    if isinstance(value, (list, tuple)):
        return tuple(_attr_value(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return _attr_value(value.tolist())
    return value


def _shape_text(shape: Sequence[int | None]) -> str:
    return "(" + ", ".join("?" if d is None else str(d) for d in shape) + ")"


# ---------------------------------------------------------------- typing one call


class CallRejected(Unsupported):
    """The checker rejected a call a converter built (its relation's message)."""


def infer_call(name: str, arg_types: tuple[Type, ...], attrs: tuple[tuple[str, Any], ...]) -> Type:
    """The type of `name(args, attrs)` for arguments of the given types, by
    checking that one call; CallRejected with the checker's message if it
    does not check."""
    from ..check import check_module

    params = tuple(Var(f"a{i}", t) for i, t in enumerate(arg_types))
    node = Call(Op(name), params, attrs)
    gv = GlobalVar("f")
    module = Module(functions={gv: Function(params, node)}, order=[gv])
    result = check_module(module)
    errors = [d for d in result.diagnostics if d.is_error]
    if errors:
        shown = ", ".join(str(t) for t in arg_types)
        raise CallRejected(
            f"`{name}` rejects its arguments ({shown}): {errors[0].message}", notes=list(errors[0].notes)
        )
    ty: Type = result.types[node]
    return ty


def any_dim(shape: Sequence[int | None]) -> tuple[int | AnyDim, ...]:
    """A shape for a TensorType: None becomes `?`."""
    return tuple(AnyDim() if d is None else int(d) for d in shape)


def free_vars(expr: Expr) -> list[Var]:
    """The variables `expr` uses but does not bind, in first-use order."""
    from ..ir.expr import Let
    from ..ir.visitor import post_order

    used: list[Var] = []
    bound: set[Var] = set()
    for node in post_order(expr):
        if isinstance(node, Var):
            used.append(node)
        elif isinstance(node, Function):
            bound.update(node.params)
        elif isinstance(node, Let):
            bound.add(node.var)
    seen: set[Var] = set()
    out = []
    for v in used:
        if v not in bound and v not in seen:
            seen.add(v)
            out.append(v)
    return out


def infer_expr(expr: Expr) -> Type:
    """The type of any expression whose free variables are annotated, by
    checking it inside a function of those variables."""
    from ..check import check_module

    params = tuple(free_vars(expr))
    gv = GlobalVar("f")
    module = Module(functions={gv: Function(params, expr)}, order=[gv])
    result = check_module(module)
    errors = [d for d in result.diagnostics if d.is_error]
    if errors:
        raise CallRejected(f"the converted expression does not check: {errors[0].message}", notes=list(errors[0].notes))
    ty: Type = result.types[expr]
    return ty
