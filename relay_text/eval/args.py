"""Arguments for the entry point: checking values against parameter types,
making up random ones, reading `.npy`/`.npz` files.

`describe_mismatch(value, ty)` says why a value does not have a type (or
returns None); `random_value(ty, rng)` makes a value of a type;
`from_python(x, ty)` turns Python data (ints, lists, numpy arrays) into the
value a parameter of type `ty` expects. Type variables bind on first use,
so `Tensor[(n, n), float32]` demands a square matrix.
"""

from __future__ import annotations

from typing import Any, TypeAlias
from collections.abc import Callable

import numpy as np

from .. import limits

from ..ir.adt import TypeData
from ..ir.ty import (
    AnyDim,
    FuncType,
    GlobalTypeVar,
    IncompleteType,
    Kind,
    TensorType,
    TupleType,
    TypeCall,
    TypeVar,
)
from ..text.type_text import type_text
from .ops import numpy_dtype
from .values import Data, Ref

# Random collections: lists get 0..MAX_RANDOM_LENGTH elements, and ADT
# values stop growing after MAX_RANDOM_DEPTH levels where they can.
MAX_RANDOM_LENGTH = 5
MAX_RANDOM_DEPTH = 4
RANDOM_UNKNOWN_DIM = 3


# A type or shape variable -> what it was bound to where it was first met.
Bindings: TypeAlias = dict[Any, Any]


class ArgumentError(Exception):
    """A value that cannot be given to a parameter; the message says why."""


def _substitute(ty: Any, mapping: dict[Any, Any]) -> Any:
    """`ty` with type parameters replaced (iterative over nesting)."""
    if not mapping:
        return ty
    if isinstance(ty, TypeVar):
        return mapping.get(ty, ty)
    if isinstance(ty, TupleType):
        return TupleType(tuple(_substitute(f, mapping) for f in ty.fields))
    if isinstance(ty, TypeCall):
        return TypeCall(ty.func, tuple(_substitute(a, mapping) for a in ty.args))
    if isinstance(ty, FuncType):
        return FuncType(
            tuple(_substitute(a, mapping) for a in ty.arg_types), _substitute(ty.ret_type, mapping), ty.type_params
        )
    if isinstance(ty, TensorType):
        shape = ty.shape
        if isinstance(shape, tuple):
            shape = tuple(mapping.get(d, d) if isinstance(d, TypeVar) else d for d in shape)
        elif isinstance(shape, TypeVar):
            shape = mapping.get(shape, shape)
        dtype = mapping.get(ty.dtype, ty.dtype) if isinstance(ty.dtype, TypeVar) else ty.dtype
        return TensorType(shape, dtype)
    return ty


class TypeDefs:
    """ADT definitions by their global type variable (program + Prelude)."""

    def __init__(self, *modules: Any) -> None:
        self.defs: dict[GlobalTypeVar, TypeData] = {}
        for module in modules:
            if module is not None:
                self.defs.update(module.type_defs)
        self._fields: dict[tuple[int, int], tuple[TypeCall, tuple[Any, ...]]] = {}

    def field_types(self, call: TypeCall, con: Any) -> tuple[Any, ...]:
        """The types of a constructor's fields in a value of type `call`."""
        key = (id(call), id(con))
        cached = self._fields.get(key)
        if cached is not None and cached[0] is call:
            return cached[1]
        data = (
            self.defs.get(call.func) if isinstance(call.func, GlobalTypeVar) else None
        )  # a type variable has no definition
        if data is None:
            result: tuple[Any, ...] = tuple(None for _ in con.inputs)
        else:
            mapping = {
                param: type_argument(arg, param) for param, arg in zip(data.type_params, call.args, strict=False)
            }
            result = tuple(_substitute(t, mapping) for t in con.inputs)
        self._fields[key] = (call, result)
        return result


def type_argument(arg: Any, param: TypeVar) -> Any:
    """A type call's argument as its parameter's kind reads it: the parser
    keeps a bare dtype (`List[int32]`) as its name, which is the scalar
    tensor type unless the parameter is a BaseType."""
    if isinstance(arg, str) and param.kind != Kind.BASE_TYPE:
        return TensorType((), arg)
    return arg


def describe_mismatch(value: Any, ty: Any, defs: TypeDefs, bindings: Bindings | None = None) -> str | None:
    """Why `value` is not a value of `ty`, or None if it is."""
    bindings = {} if bindings is None else bindings
    # Work items carry their path as a chain (parent, step) that is only
    # spelled out for a mismatch, so deep values cost linear time.
    stack: list[tuple[Any, Any, Any]] = [(value, ty, None)]
    pop, push = stack.pop, stack.append
    while stack:
        v, t, path = pop()
        if type(t) is TypeCall and type(v) is Data and v.con.belong_to is t.func:
            # The common case first: a constructor value of the right type.
            for i, (f, ft) in enumerate(zip(v.fields, defs.field_types(t, v.con), strict=False)):
                push((f, ft, (path, (v.con.name, i))))
            continue
        if t is None or isinstance(t, IncompleteType):
            continue
        if isinstance(t, TypeVar):
            bindings.setdefault(t, ("value", v))
            continue
        problem = None
        if isinstance(t, TensorType):
            problem = _tensor_mismatch(v, t, bindings)
        elif isinstance(t, TupleType):
            if not isinstance(v, tuple):
                problem = f"expected a tuple {type_text(t)}, found {_kind(v)}"
            elif len(v) != len(t.fields):
                problem = f"expected a tuple of {len(t.fields)} fields, found one of {len(v)}"
            else:
                stack.extend((f, ft, (path, ("field", i))) for i, (f, ft) in enumerate(zip(v, t.fields, strict=False)))
        elif isinstance(t, TypeCall):
            if not isinstance(v, Data):
                problem = f"expected a value of {type_text(t)}, found {_kind(v)}"
            elif v.con.belong_to is not t.func:
                owner = v.con.belong_to.name if v.con.belong_to is not None else "?"
                problem = f"expected a value of {type_text(t)}, found `{v.con.name}(...)` of type {owner}"
            else:
                for i, (f, ft) in enumerate(zip(v.fields, defs.field_types(t, v.con), strict=False)):
                    stack.append((f, ft, (path, (v.con.name, i))))
        elif isinstance(t, FuncType) and (not callable(v) or isinstance(v, (Data, Ref, np.ndarray, np.generic))):
            problem = f"expected a function {type_text(t)}, found {_kind(v)}"
        if problem is not None:
            where = _path_text(path)
            return f"{problem} (in {where})" if where else problem
    return None


def _path_text(path: Any) -> str:
    """`element 3 of the list`, `field 1 of the tuple`, `field 0 of Some`."""
    steps = []
    while path is not None:
        path, step = path
        steps.append(step)
    steps.reverse()
    parts: list[str] = []
    index = 0
    for kind, i in steps:
        if kind == "Cons" and i == 1:
            index += 1  # down the list's tail: one element further
            continue
        if kind == "Cons" and i == 0:
            parts.append(f"element {index} of the list")
        elif kind == "field":
            parts.append(f"field {i} of the tuple")
        else:
            parts.append(f"field {i} of `{kind}`")
        index = 0
    return ", ".join(reversed(parts))


def _kind(v: Any) -> str:
    if isinstance(v, (np.ndarray, np.generic)):
        return f"a tensor Tensor[{_shape_text(np.shape(v))}, {v.dtype.name}]"
    if isinstance(v, tuple):
        return f"a tuple of {len(v)} fields"
    if isinstance(v, Data):
        return f"`{v.con.name}(...)`"
    if isinstance(v, Ref):
        return "a reference"
    if callable(v):
        return "a function"
    return type(v).__name__


def _shape_text(shape: tuple[Any, ...]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _tensor_mismatch(v: Any, t: TensorType, bindings: Bindings) -> str | None:
    if not isinstance(v, (np.ndarray, np.generic)):
        return f"expected a tensor {type_text(t)}, found {_kind(v)}"
    dtype = t.dtype
    if isinstance(dtype, TypeVar):
        bound = bindings.setdefault(dtype, v.dtype.name)
        dtype = bound
    if isinstance(dtype, str) and v.dtype.name != dtype.split("x")[0]:
        return f"expected dtype {dtype}, found {v.dtype.name}"
    shape = t.shape
    actual = tuple(np.shape(v))
    if isinstance(shape, TypeVar):
        bound = bindings.setdefault(shape, actual)
        if bound != actual:
            return (
                f"expected shape {_shape_text(bound)} (the shape `{shape.name}` has already), found "
                f"{_shape_text(actual)}"
            )
        return None
    if not isinstance(shape, tuple):
        return None
    if len(shape) != len(actual):
        return (
            f"expected shape {type_text(t).split('[', 1)[1].rsplit(',', 1)[0]}, found {_shape_text(actual)} "
            f"(rank {len(shape)} vs {len(actual)})"
        )
    for axis, (want, got) in enumerate(zip(shape, actual, strict=False)):
        if isinstance(want, bool):
            want = int(want)
        if isinstance(want, int):
            if want != got:
                return (
                    f"expected shape {_dims_text(shape)}, found {_shape_text(actual)} (axis {axis} is {got}, "
                    f"not {want})"
                )
        elif isinstance(want, TypeVar):
            bound = bindings.setdefault(want, got)
            if bound != got:
                return (
                    f"expected shape {_dims_text(shape)}, found {_shape_text(actual)} (`{want.name}` is "
                    f"{bound} elsewhere, {got} on axis {axis})"
                )
    return None


def _dims_text(shape: tuple[Any, ...]) -> str:
    from ..text.type_text import shape_text

    return shape_text(shape)


# ---------------------------------------------------------------- conversion


def from_python(x: Any, ty: Any, defs: TypeDefs) -> Any:
    """A Python or numpy value as the value a parameter of type `ty` takes:
    numbers and nested lists become tensors of the parameter's dtype, a
    Python list (or tuple) given for a `List[T]` becomes `Cons`/`Nil` cells
    of its elements converted for `T`, and a tuple's fields are converted
    for the tuple type's."""
    if isinstance(ty, TensorType) and isinstance(ty.dtype, str) and not isinstance(x, (Data, Ref, tuple)):
        if isinstance(x, (np.ndarray, np.generic)):
            return x
        arr = np.asarray(x, dtype=numpy_dtype(ty.dtype.split("x")[0]))
        return arr[()] if arr.ndim == 0 else arr
    if isinstance(ty, TupleType) and isinstance(x, (tuple, list)) and len(x) == len(ty.fields):
        return tuple(from_python(f, ft, defs) for f, ft in zip(x, ty.fields, strict=False))
    if isinstance(ty, TypeCall) and isinstance(x, (list, tuple)):
        cells = _list_constructors(ty, defs)
        if cells is not None:
            nil, cons = cells
            element = defs.field_types(ty, cons)[0]
            value: Any = Data(nil, ())
            for item in reversed(x):
                value = Data(cons, (from_python(item, element, defs), value))
            return value
    if isinstance(x, (bool, int, float)) and not isinstance(ty, TensorType):
        return np.asarray(x)[()]
    return x


def _list_constructors(ty: TypeCall, defs: TypeDefs) -> tuple[Any, Any] | None:
    """`Nil` and `Cons` of a `List` type (the Prelude's, TVM's or a file's own)."""
    data = defs.defs.get(ty.func) if isinstance(ty.func, GlobalTypeVar) else None
    if data is None or ty.func.name != "List":
        return None
    by_name = {c.name: c for c in data.constructors}
    nil, cons = by_name.get("Nil"), by_name.get("Cons")
    if nil is None or cons is None or len(cons.inputs) != 2 or nil.inputs:
        return None
    return nil, cons


# ---------------------------------------------------------------- random values


def random_value(ty: Any, rng: np.random.Generator, defs: TypeDefs, name: str = "") -> Any:
    """A value of type `ty` drawn from `rng`: floats from a standard normal,
    integers from [-10, 10), bools fair; lists of up to five elements."""
    bindings: Bindings = {}
    return _random(ty, rng, defs, bindings, 0, name)


def _random(ty: Any, rng: np.random.Generator, defs: TypeDefs, bindings: Bindings, depth: int, name: str) -> Any:
    """Pre-order (each choice drawn before the parts it decides, parts left to
    right), built bottom-up with an explicit stack: a type nested thousands of
    levels deep is no problem."""
    done: list[Any] = []
    work: list[Any] = [(ty, depth, None)]
    while work:
        t, d, build = work.pop()
        if build is not None:
            n, make = build
            parts = done[len(done) - n :]
            del done[len(done) - n :]
            done.append(make(parts))
            continue
        if isinstance(t, TensorType):
            done.append(_random_tensor(t, rng, bindings, name))
            continue
        if isinstance(t, TupleType):
            kids, make = list(t.fields), tuple
        elif isinstance(t, TypeCall) and isinstance(t.func, GlobalTypeVar):
            kids, make = _random_data(t, rng, defs, d, name)
        else:
            raise ArgumentError(
                f"cannot make up a value of type {type_text(t) if t is not None else 'unknown'} for `{name}`"
            )
        child_depth = d if isinstance(t, TupleType) else d + 1
        work.append((None, d, (len(kids), make)))
        work.extend((k, child_depth, None) for k in reversed(kids))
    return done[0]


def _random_data(
    ty: TypeCall, rng: np.random.Generator, defs: TypeDefs, depth: int, name: str
) -> tuple[list[Any], Callable[[list[Any]], Any]]:
    """Choose a constructor (or, for a List, a length): the types of the
    fields still to fill, and how to build the value from them."""
    data = defs.defs.get(ty.func) if isinstance(ty.func, GlobalTypeVar) else None  # a type variable has no definition
    if data is None or not data.constructors:
        raise ArgumentError(f"cannot make up a value of {type_text(ty)} for `{name}`: its type has no constructors")
    if ty.func.name == "List":
        by_name = {c.name: c for c in data.constructors}
        nil, cons = by_name.get("Nil"), by_name.get("Cons")
        if nil is None or cons is None or len(cons.inputs) != 2:
            raise ArgumentError(f"cannot make up a value of {type_text(ty)} for `{name}`")
        length = int(rng.integers(MAX_RANDOM_LENGTH + 1)) if depth < MAX_RANDOM_DEPTH else 0
        element = defs.field_types(ty, cons)[0]

        def make_list(items: list[Any]) -> Any:
            value: Any = Data(nil, ())
            for item in reversed(items):
                value = Data(cons, (item, value))
            return value

        return [element] * length, make_list
    ctors = list(data.constructors)
    if depth >= MAX_RANDOM_DEPTH:
        flat = [c for c in ctors if not any(_mentions(t, data.header) for t in c.inputs)]
        ctors = flat or ctors
    con = ctors[int(rng.integers(len(ctors)))]
    return list(defs.field_types(ty, con)), lambda fields: Data(con, tuple(fields))


def _mentions(ty: Any, header: GlobalTypeVar) -> bool:
    stack = [ty]
    while stack:
        t = stack.pop()
        if isinstance(t, TypeCall):
            if t.func is header:
                return True
            stack.extend(t.args)
        elif isinstance(t, TupleType):
            stack.extend(t.fields)
        elif isinstance(t, FuncType):
            stack.extend(t.arg_types)
            stack.append(t.ret_type)
    return False


DRAW_PIECE = 1 << 20
"""Elements of a float tensor drawn at a time (8 MiB of float64)."""


def _standard_normal(rng: np.random.Generator, shape: list[int], dtype: Any) -> Any:
    """`rng.standard_normal(shape).astype(dtype)`, the same values drawn a
    piece at a time into the result: a 2 GiB float32 weight needs its own
    2 GiB, not 4 more for its float64 draw."""
    out = np.empty(shape, dtype=dtype)
    flat = out.reshape(-1)
    for start in range(0, flat.size, DRAW_PIECE):
        stop = min(flat.size, start + DRAW_PIECE)
        flat[start:stop] = rng.standard_normal(stop - start)
    return out


def _random_tensor(ty: TensorType, rng: np.random.Generator, bindings: Bindings, name: str) -> Any:
    dtype = ty.dtype
    if isinstance(dtype, TypeVar):
        dtype = bindings.setdefault(dtype, "float32")
    if not isinstance(dtype, str):
        raise ArgumentError(f"cannot make up a tensor for `{name}`: its dtype is not known")
    shape_spec = ty.shape
    if isinstance(shape_spec, TypeVar):
        shape_spec = bindings.setdefault(shape_spec, (RANDOM_UNKNOWN_DIM,))
    if not isinstance(shape_spec, tuple):
        raise ArgumentError(f"cannot make up a tensor for `{name}`: its shape is not known")
    shape = []
    for dim in shape_spec:
        if isinstance(dim, bool):
            dim = int(dim)
        if isinstance(dim, int):
            shape.append(dim)
        elif isinstance(dim, TypeVar):
            shape.append(bindings.setdefault(dim, RANDOM_UNKNOWN_DIM))
        elif isinstance(dim, AnyDim):
            shape.append(RANDOM_UNKNOWN_DIM)
        else:
            raise ArgumentError(f"cannot make up a tensor for `{name}`: dimension `{dim}` is not a number")
    base = numpy_dtype(dtype.split("x")[0])
    floats = base.kind == "f" or base.name == "bfloat16"
    # (floats drawn as float64 piece by piece into the tensor; integers drawn
    # whole as int64, then converted)
    per_element = base.itemsize if floats else max(base.itemsize, 8)
    limits.check_allocation(limits.elements(tuple(shape)), per_element, f"a random value for `{name}`")
    try:
        if floats:
            arr = _standard_normal(rng, shape, base)
        elif base.kind == "b":
            arr = rng.random(shape) < 0.5
        elif base.kind == "u":
            arr = rng.integers(0, 10, size=shape).astype(base)
        else:
            arr = rng.integers(-10, 10, size=shape).astype(base)
    except MemoryError:  # the system refused what the limit allowed
        need = limits.elements(tuple(shape)) * per_element
        raise limits.LimitExceeded(
            limits.refused_by_system(f"a random value for `{name}`", need), "too large"
        ) from None
    return arr[()] if arr.ndim == 0 else arr


# ---------------------------------------------------------------- files


def load_npy(path: str) -> np.ndarray:
    """An array from a `.npy` file (no pickled objects)."""
    try:
        arr = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise ArgumentError(f"{path}: no such file") from None
    except (OSError, ValueError) as exc:
        raise ArgumentError(f"{path}: not a .npy array file ({exc})") from None
    if not isinstance(arr, np.ndarray):
        raise ArgumentError(f"{path}: holds several arrays; use --args for .npz files")
    return arr[()] if arr.ndim == 0 else arr


def load_npz(path: str) -> dict[str, np.ndarray]:
    """The arrays of an `.npz` archive by name, each member read once."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if not hasattr(data, "files"):
                raise ArgumentError(f"{path}: not a .npz archive")
            arrays = {}
            for key in data.files:
                arr = data[key]  # (reads and checks the member: once)
                if not isinstance(arr, np.ndarray):  # a member other than `NAME.npy`
                    raise ArgumentError(f"{path}: `{key}` is not an array (an .npz holds NAME.npy files)")
                arrays[key] = arr[()] if arr.ndim == 0 else arr
            return arrays
    except FileNotFoundError:
        raise ArgumentError(f"{path}: no such file") from None
    except (OSError, ValueError) as exc:
        raise ArgumentError(f"{path}: not a .npz archive ({exc})") from None
