"""The numbers of a model: per function, its calls in order with their
output types, its weights and its multiply-accumulates.

Weights are the tensors a model carries rather than computes or takes as
input: metadata constants (`meta[relay.Constant][i]`), literal tensors
other than scalars, and the tensor parameters that are weights. A
parameter is a weight when it reaches a weight's place in an operator
(through tuples, projections and operators that only move data, such as
`reshape`, `transpose` or `concatenate`):

* any argument but the first of a convolution, `nn.dense`, `nn.matmul`,
  `nn.bias_add`, `nn.prelu` and the normalisations (`nn.batch_norm`'s
  scale, shift, mean and variance; `nn.layer_norm`'s scale and shift);
* the table of a `take` whose indices are integers (an embedding);
* the smaller operand of an elementwise `add`, `subtract`, `multiply` or
  `divide` (a bias or scale broadcast over the activations).

Other parameters are the model's inputs. `inputs=` names them instead
(`relay summary --inputs data,hidden0`). Scalar literals (`1f`) count as
neither. A weight is counted once however many operators read it, in the
row of the first operator that reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Iterable, Mapping

from ..ir.expr import Call, Constant, Constructor, Expr, Function, GlobalVar, Let, Op, Tuple, TupleGetItem, Var
from ..ir.module import Module
from ..ir.ty import TensorType, TupleType
from ..ir.visitor import post_order
from .costs import dims, elements, macs, nbytes

# Operators whose outputs are their inputs' values rearranged: a weight
# stays a weight through them.
MOVES = frozenset(
    {
        "reshape",
        "transpose",
        "squeeze",
        "expand_dims",
        "concatenate",
        "stack",
        "split",
        "layout_transform",
        "cast",
        "copy",
        "reverse",
        "flatten",
        "nn.batch_flatten",
        "reshape_like",
        "broadcast_to",
        "broadcast_to_like",
        "strided_slice",
        "take",
        "repeat",
        "tile",
        "contrib_reverse_reshape",
        "device_copy",
        "annotation.stop_fusion",
        "stop_gradient",
        "nn.contrib_conv2d_winograd_weight_transform",
        "nn.contrib_conv2d_gemm_weight_transform",
        "nn.contrib_conv3d_winograd_weight_transform",
    }
)
_FIRST_IS_DATA = frozenset(
    {
        "nn.conv1d",
        "nn.conv2d",
        "nn.conv3d",
        "nn.conv1d_transpose",
        "nn.conv2d_transpose",
        "nn.conv3d_transpose",
        "nn.contrib_conv2d_NCHWc",
        "nn.contrib_depthwise_conv2d_NCHWc",
        "nn.deformable_conv2d",
        "nn.dense",
        "nn.contrib_dense_pack",
        "nn.matmul",
        "nn.bias_add",
        "nn.prelu",
        "nn.batch_norm",
        "nn.layer_norm",
        "nn.group_norm",
        "nn.instance_norm",
        "qnn.conv2d",
        "qnn.conv2d_transpose",
        "qnn.dense",
        "nn.contrib_conv2d_winograd_without_weight_transform",
        "nn.contrib_conv3d_winograd_without_weight_transform",
        "nn.contrib_conv2d_gemm_without_weight_transform",
        "nn.bitserial_conv2d",
        "nn.bitserial_dense",
    }
)
_SCALED = frozenset({"add", "subtract", "multiply", "divide"})


@dataclass
class TensorInfo:
    """An input or a weight: its name, type text, shape, dtype, element count and bytes."""

    name: str
    type: str
    shape: list[Any] | None
    dtype: str
    count: int | None
    bytes: int | None
    kind: str  # "parameter" or "constant"


@dataclass
class Row:
    """One call: its place in order, the name the text gives its value, the
    operator (or `@f`, or a constructor), its output, the weights first read
    here and its multiply-accumulates (None: not known)."""

    index: int
    name: str
    op: str
    kind: str  # "operator", "function" (a global or a closure), "constructor"
    type: str
    output: str  # the type in short: `1×64×56×56 float32`, `(1×64×56×56, 64, 64) float32`  # noqa: RUF003 (the multiplication sign separates dimensions in the output)
    shape: list[Any] | None
    dtype: str
    weights: int
    weight_bytes: int
    macs: int | None
    line: int | None


@dataclass
class FunctionSummary:
    name: str
    type: str
    inputs: list[TensorInfo] = field(default_factory=list)
    weights: list[TensorInfo] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    output: str = ""

    @property
    def weight_count(self) -> int:
        return sum(w.count or 0 for w in self.weights)

    @property
    def weight_bytes(self) -> int:
        return sum(w.bytes or 0 for w in self.weights)

    @property
    def weights_known(self) -> bool:
        return all(w.count is not None for w in self.weights)

    @property
    def macs(self) -> int:
        return sum(r.macs or 0 for r in self.rows)

    @property
    def macs_known(self) -> bool:
        return all(r.macs is not None for r in self.rows)

    def groups(self) -> list[dict[str, Any]]:
        """Rows grouped by operator, in order of first appearance."""
        out: dict[str, dict[str, Any]] = {}
        for row in self.rows:
            g = out.setdefault(
                row.op,
                {
                    "op": row.op,
                    "kind": row.kind,
                    "count": 0,
                    "weights": 0,
                    "weight_bytes": 0,
                    "macs": 0,
                    "macs_known": True,
                },
            )
            g["count"] += 1
            g["weights"] += row.weights
            g["weight_bytes"] += row.weight_bytes
            if row.macs is None:
                g["macs_known"] = False
            else:
                g["macs"] += row.macs
        return list(out.values())


def _type_text(ty: Any) -> str:
    from ..text.type_text import type_text

    return type_text(ty, limit=500) if ty is not None else "?"


def short_type(ty: Any) -> str:
    """A tensor type as its shape and dtype (`1×64×56×56 float32`), a tuple
    of tensors of one dtype as `(1×64×56×56, 64, 64) float32`; other types
    as their text."""  # noqa: RUF002 (the multiplication sign separates dimensions in the output)
    from ..text.type_text import dim_text

    def shape(t: TensorType) -> str | None:
        if not isinstance(t.shape, tuple):
            return None
        return "×".join(dim_text(d) for d in t.shape) if t.shape else "scalar"  # noqa: RUF001 (the multiplication sign separates dimensions in the output)

    if isinstance(ty, TensorType) and isinstance(ty.dtype, str):
        s = shape(ty)
        if s is not None:
            return f"{s} {ty.dtype}"
    fields = [f for f in ty.fields if isinstance(f, TensorType)] if isinstance(ty, TupleType) else []
    if fields and len(fields) == len(ty.fields):
        dtypes = {f.dtype for f in fields}
        shapes = [shape(f) for f in fields]
        if len(dtypes) == 1 and all(s is not None for s in shapes):
            text = "(" + ", ".join(shapes) + (",)" if len(shapes) == 1 else ")")  # type: ignore[arg-type]  # checked not None above
            dtype = next(iter(dtypes))
            return f"{text} {dtype}" if isinstance(dtype, str) else text
    text = _type_text(ty)
    return text if len(text) <= 60 else text[:59] + "…"


def _tensor(name: str, ty: Any, kind: str) -> TensorInfo:
    shape = list(ty.shape) if isinstance(ty, TensorType) and isinstance(ty.shape, tuple) else None
    if shape is not None:
        shape = [d if type(d) is int else str(d) for d in shape]
    dtype = ty.dtype if isinstance(ty, TensorType) and isinstance(ty.dtype, str) else ""
    return TensorInfo(name, _type_text(ty), shape, dtype, elements(ty), nbytes(ty), kind)


class _Uses:
    """Who uses each node of one function: (user, argument index), with a
    `let`'s variable standing for its value."""

    def __init__(self, order: list[Expr]) -> None:
        self.users: dict[Expr, list[tuple[Expr, int]]] = {}
        for node in order:
            if isinstance(node, Call):
                for i, arg in enumerate(node.args):
                    self.users.setdefault(arg, []).append((node, i))
            elif isinstance(node, Tuple):
                for i, f in enumerate(node.fields):
                    self.users.setdefault(f, []).append((node, i))
            elif isinstance(node, TupleGetItem):
                self.users.setdefault(node.tuple_value, []).append((node, 0))
            elif isinstance(node, Let):
                self.users.setdefault(node.value, []).append((node.var, -1))


def _is_weight(param: Var, uses: _Uses, types: Callable[[Expr], Any]) -> bool:
    """Whether a parameter reaches a weight's place (see the module's docstring)."""
    work: list[Expr] = [param]
    seen: set[int] = set()
    while work:
        node = work.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for user, index in uses.users.get(node, ()):
            if isinstance(user, (Tuple, TupleGetItem, Var)):
                work.append(user)
                continue
            if not isinstance(user, Call) or not isinstance(user.op, Op):
                continue
            op = user.op.name
            if op in _FIRST_IS_DATA and index >= 1:
                return True
            if op == "take" and index == 0 and len(user.args) > 1:
                indices = types(user.args[1])
                if isinstance(indices, TensorType) and isinstance(indices.dtype, str) and "int" in indices.dtype:
                    return True
            if op in _SCALED and len(user.args) == 2:
                other = elements(types(user.args[1 - index]))
                out = elements(types(user))
                mine = elements(types(node))
                if mine is not None and out is not None and other is not None and mine < out and other == out:
                    return True
            if op in MOVES:
                work.append(user)
    return False


def function_summary(
    name: str,
    func: Expr,
    types: Callable[[Expr], Any],
    ty: Any,
    inputs: Iterable[str] | None = None,
    graph_names: dict[int, str] | None = None,
) -> FunctionSummary:
    """The summary of one function (or the module's trailing expression);
    `graph_names` maps `id(node)` to the number of its graph binding."""
    order = post_order(func)
    summary = FunctionSummary(name, _type_text(ty) if ty is not None else "")
    params = list(func.params) if isinstance(func, Function) else []
    uses = _Uses(order)
    named = None if inputs is None else {n.lstrip("%") for n in inputs}
    weight_of: dict[Expr, TensorInfo] = {}
    for p in params:
        info = _tensor("%" + p.name, types(p), "parameter")
        tensor = isinstance(types(p), TensorType)
        weight = tensor and (p.name not in named if named is not None else _is_weight(p, uses, types))
        if weight:
            summary.weights.append(info)
            weight_of[p] = info
        else:
            summary.inputs.append(info)
    meta_seen: dict[int, TensorInfo] = {}
    for node in order:
        if isinstance(node, Constant) and not node.is_scalar:
            if node.meta_index is not None and node.meta_index in meta_seen:
                weight_of[node] = meta_seen[node.meta_index]
                continue
            label = (
                f"meta[{node.meta_index}]"
                if node.meta_index is not None
                else (node.span.text if node.span is not None else "constant")
            )
            info = _tensor(label, types(node), "constant")
            summary.weights.append(info)
            weight_of[node] = info
            if node.meta_index is not None:
                meta_seen[node.meta_index] = info
    counted: set[int] = set()
    names = _names(order, graph_names or {})
    for node in order:
        if not isinstance(node, Call):
            continue
        callee = node.op
        if isinstance(callee, Op):
            op, kind = callee.name, "operator"
        elif isinstance(callee, GlobalVar):
            op, kind = "@" + callee.name, "function"
        elif isinstance(callee, Constructor):
            op, kind = callee.name, "constructor"
        else:
            op, kind = ("%" + callee.name if isinstance(callee, Var) else "(closure)"), "function"
        read = 0
        read_bytes = 0
        for info in _weights_read(node, weight_of):
            if id(info) not in counted:
                counted.add(id(info))
                read += info.count or 0
                read_bytes += info.bytes or 0
        out_ty = types(node)
        cost: int | None = 0
        if isinstance(callee, Op):
            fn_type = types(callee)
            arg_types = list(getattr(fn_type, "arg_types", ())) or [types(a) for a in node.args]
            cost = macs(callee.name, arg_types, out_ty, node.attrs)
        shape = dims(out_ty)
        summary.rows.append(
            Row(
                index=len(summary.rows) + 1,
                name=names.get(node, ""),
                op=op,
                kind=kind,
                type=_type_text(out_ty),
                output=short_type(out_ty),
                shape=list(shape) if shape is not None else None,
                dtype=out_ty.dtype if isinstance(out_ty, TensorType) and isinstance(out_ty.dtype, str) else "",
                weights=read,
                weight_bytes=read_bytes,
                macs=cost,
                line=node.span.start_line_col[0] if node.span is not None else None,
            )
        )
    body_ty = types(func.body) if isinstance(func, Function) else types(func)
    summary.output = _type_text(body_ty)
    return summary


def _weights_read(call: Call, weight_of: dict[Expr, TensorInfo]) -> list[TensorInfo]:
    """The weights a call reads: its arguments, or what tuples and projections among them hold."""
    out: list[TensorInfo] = []
    work: list[Expr] = list(reversed(call.args))
    seen: set[int] = set()
    while work:
        node = work.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        info = weight_of.get(node)
        if info is not None:
            out.append(info)
        elif isinstance(node, Tuple):
            work.extend(reversed(node.fields))
        elif isinstance(node, TupleGetItem):
            work.append(node.tuple_value)
    return out


def _names(order: list[Expr], graph_names: dict[int, str]) -> dict[Expr, str]:
    """The name the text gives each value: a graph binding's `%n`, a let's `%x`."""
    out: dict[Expr, str] = {}
    for node in order:
        if isinstance(node, Let):
            out.setdefault(node.value, "%" + node.var.name)
        else:
            name = graph_names.get(id(node))
            if name is not None:
                out.setdefault(node, "%" + name)
    return out


def module_summary(
    module: Module,
    types: Callable[[Expr], Any],
    entry: str | None = None,
    inputs: Iterable[str] | None = None,
    global_types: Mapping[GlobalVar, Any] | None = None,
) -> list[FunctionSummary]:
    """A summary per global function (source order) and for the trailing
    expression; only `entry` (`@f`) when given. Unknown entries: KeyError.
    `types` gives each node's type, `global_types` each global's."""
    out = []
    graph_names = module.positions.graph_names
    for gv in module.order:
        if not isinstance(gv, GlobalVar):
            continue
        func = module.functions.get(gv)
        if func is None:
            continue
        if entry is not None and gv.name != entry.lstrip("@"):
            continue
        ty = global_types.get(gv) if global_types is not None else types(gv)
        out.append(function_summary("@" + gv.name, func, types, ty, inputs, graph_names))
    if module.expr is not None and entry is None:
        out.append(function_summary("expression", module.expr, types, types(module.expr), inputs, graph_names))
    if entry is not None and not out:
        raise KeyError(entry)
    return out
