"""Random values a model can run on: `--random-args` and `--random-consts`.

Model dumps take their weights as parameters or as `meta[relay.Constant][i]`
without a `#[metadata]` section, so running one needs invented values. A
standard normal draw for every tensor is fine for data, but not for every
weight: a variance below zero makes batch norm take the square root of a
negative number, and unscaled weights make activations grow layer by layer
until they overflow. So a tensor's values follow from how the program uses
it (its *role*), read from the operator calls it is passed to:

    weight    conv / dense / matmul weights: N(0, 1 / (3 fan_in)), fan_in
              being the number of inputs each output sums over (the variance
              of PyTorch's default initialisation); weights concatenated
              before use (an LSTM's input and hidden weights) count as one
    variance  batch norm's moving variance: 0.5 + |N(0, 0.5^2)|
    scale     batch / layer norm's gamma: 1 + N(0, 0.1^2)
    shift     beta, the moving mean, biases: N(0, 0.1^2)
    index     `take`'s indices: uniform over the gathered axis

and anything else is drawn as the evaluator draws any random argument
(floats N(0, 1), integers in [-10, 10), bools fair). Every role is a
transformation of that same draw, so which tensors have roles never changes
the random stream: values stay reproducible for a seed.

Constants are drawn in index order from their own stream, so adding
`--random-consts` never changes the arguments `--random-args` makes. A file
with a `#[metadata]` section runs on the section's tensors instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

import numpy as np

from ..ir.expr import Call, Constant, Expr, Op, Tuple, TupleGetItem, Var, str_attr
from ..ir.module import Module
from ..ir.visitor import post_order


@dataclass(frozen=True)
class Role:
    kind: str  # weight, variance, scale, shift, index
    size: int = 1  # fan_in for weights, the axis length for indices


def _static(shape: Any) -> tuple[int, ...] | None:
    if isinstance(shape, tuple) and all(type(d) is int for d in shape):
        return shape
    return None


def _fan_in(shape: tuple[int, ...], layout: str, exclude: str = "O") -> int:
    n = 1
    for letter, d in zip(layout, shape, strict=False):
        if letter not in exclude:
            n *= d
    return max(n, 1)


def _weight_role(call: Call, weight_type: Any) -> Role | None:
    shape = _static(getattr(weight_type, "shape", None))
    if shape is None or type(call.op) is not Op:
        return None
    attrs = dict(call.attrs)
    name = call.op.name
    if name in ("nn.conv2d", "nn.conv1d"):
        layout = str_attr(attrs, "kernel_layout", "OIHW" if name == "nn.conv2d" else "OIW")
        return Role("weight", _fan_in(shape, layout)) if layout is not None and len(layout) == len(shape) else None
    if name == "nn.conv2d_transpose":
        layout = str_attr(attrs, "kernel_layout", "IOHW")
        if layout is None or len(layout) != len(shape):
            return None
        strides = attrs.get("strides", (1, 1))
        per = max(1, math.prod(strides) if isinstance(strides, tuple) else 1)
        return Role("weight", max(1, _fan_in(shape, layout) // per))
    if name == "nn.dense" and len(shape) == 2:
        return Role("weight", shape[1])
    if name == "nn.matmul" and len(shape) == 2:
        return Role("weight", shape[1] if attrs.get("transpose_b", False) else shape[0])
    if name == "nn.batch_matmul" and len(shape) == 3:
        return Role("weight", shape[2] if attrs.get("transpose_b", True) else shape[1])
    return None


def _norm_roles(name: str) -> dict[int, str]:
    if name == "nn.batch_norm":
        return {1: "scale", 2: "shift", 3: "shift", 4: "variance"}
    if name == "nn.layer_norm":
        return {1: "scale", 2: "shift"}
    if name == "nn.bias_add":
        return {1: "shift"}
    return {}


def roles(module: Module, type_of: Callable[[Expr], Any]) -> dict[Any, Role]:
    """The role of every parameter (`Var`) and metadata constant (its index)
    that an operator call uses directly."""
    found: dict[Any, Role] = {}
    roots: list[Expr] = list(module.functions.values())
    if module.expr is not None:
        roots.append(module.expr)
    for root in roots:
        for node in post_order(root):
            if type(node) is not Call or type(node.op) is not Op:
                continue
            name = node.op.name
            for i, whole in enumerate(node.args):
                role = None
                if i == 1 and name in (
                    "nn.conv2d",
                    "nn.conv1d",
                    "nn.conv2d_transpose",
                    "nn.dense",
                    "nn.matmul",
                    "nn.batch_matmul",
                ):
                    role = _weight_role(node, type_of(whole))
                elif i in _norm_roles(name):
                    role = Role(_norm_roles(name)[i])
                elif name == "take" and i == 1:
                    table = _static(getattr(type_of(node.args[0]), "shape", None))
                    axis = dict(node.attrs).get("axis")
                    if table is not None and (axis is None or isinstance(axis, int)):
                        size = math.prod(table) if axis is None else table[axis % len(table)] if table else 0
                        if size > 0:
                            role = Role("index", size)
                if role is None:
                    continue
                for part in _parts(whole):
                    key = _key(part)
                    if key is not None and key not in found:
                        found[key] = role
    return found


def _parts(arg: Expr) -> list[Expr]:
    """The tensors an argument is made of: itself, or the pieces a
    `concatenate` joined (an LSTM's input and hidden weights side by side)."""
    out, stack = [], [arg]
    while stack:
        e = _unpack(stack.pop())
        if type(e) is Call and type(e.op) is Op and e.op.name == "concatenate" and len(e.args) == 1:
            t = _unpack(e.args[0])
            if type(t) is Tuple:
                stack.extend(reversed(t.fields))
                continue
        out.append(e)
    return out


def _unpack(arg: Expr) -> Expr:
    """`(%a, %b).0` is `%a`."""
    while type(arg) is TupleGetItem and type(arg.tuple_value) is Tuple and arg.index < len(arg.tuple_value.fields):
        arg = arg.tuple_value.fields[arg.index]
    return arg


def _key(arg: Expr) -> Any:
    if type(arg) is Var:
        return arg
    if type(arg) is Constant and arg.meta_index is not None:
        return ("meta", arg.meta_index)
    return None


def shape_role(value: Any, role: Role | None, fresh: bool = False) -> Any:
    """A standard draw (as `random_value` makes it) reshaped to its role.
    A float draw is reshaped in a copy, or, with `fresh` (an array nothing
    else refers to), in place."""
    if role is None or (not isinstance(value, np.ndarray) and not isinstance(value, np.generic)):
        return value
    arr = np.asarray(value)
    kind = arr.dtype.kind
    if role.kind == "index":
        if kind in "iu":
            # (an index type narrower than the axis holds fewer values: int8 for 248)
            size = min(role.size, int(np.iinfo(arr.dtype).max) + 1)
            return np.mod(arr.astype(np.int64), size).astype(arr.dtype)
        return value
    if kind != "f":
        return value
    shaped = value if fresh and isinstance(value, np.ndarray) and value.flags.writeable else np.array(arr)
    _in_place(shaped, role)
    return shaped[()] if shaped.ndim == 0 else shaped


def _in_place(arr: Any, role: Role) -> None:
    """The role's formula, computed in `arr` (in its dtype)."""
    if role.kind == "weight":
        np.divide(arr, math.sqrt(3 * role.size), out=arr)
    elif role.kind == "variance":  # 0.5 + |x| * 0.5
        np.abs(arr, out=arr)
        np.multiply(arr, 0.5, out=arr)
        np.add(0.5, arr, out=arr)
    elif role.kind == "scale":  # 1 + x * 0.1
        np.multiply(arr, 0.1, out=arr)
        np.add(1, arr, out=arr)
    else:  # shift
        np.multiply(arr, 0.1, out=arr)


def metadata_values(module: Module) -> dict[int, Any]:
    """The tensors of a file's `#[metadata]` section by constant index (none
    without a section; checking has reported any malformed part)."""
    if module.metadata is None:
        return {}
    table, _ = module.metadata.decoded()
    if table is None:
        return {}
    return {i: t.array() for i, t in enumerate(table.constants) if t is not None}
