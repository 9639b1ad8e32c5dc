"""`SimplifyInference`: normalizations spelled out in arithmetic, for inference.

As TVM's pass, with TVM's formulas:

* `nn.batch_norm(x, gamma, beta, mean, var).0` becomes `x * scale + shift`
  with `scale = 1 / sqrt(var + eps) * gamma` and `shift = -mean * scale +
  beta` (the running statistics; `scale=False` and `center=False` drop
  `gamma` and `beta`), the vectors widened to `x`'s axis with `expand_dims`;
* `nn.dropout(x).0` becomes `x`;
* `nn.layer_norm`, `nn.instance_norm` and `nn.group_norm` become
  `(x - mean) / sqrt(variance + eps)` over their axes (group norm through a
  reshape into groups), scaled by `gamma` and shifted by `beta`;
* `nn.l2_normalize(x)` becomes `x / sqrt(max(sum(x * x), eps))`.

Other fields of a batch norm's or a dropout's result still refer to the
original call. Arithmetic is reordered, so results agree within float
rounding.
"""

from __future__ import annotations

from typing import Any

from ..ir.expr import Call, Expr, Function, GlobalVar, Op, TupleGetItem
from ..ir.module import Module
from ..ir.ty import TensorType
from ..ir.visitor import ExprMutator
from ._module import call, map_functions, scalar
from .context import PassContext, failed
from .registry import register


@register(
    "SimplifyInference", "Spell batch norm, dropout, layer/group/instance norm and l2_normalize out in arithmetic"
)
def simplify_inference(module: Module, ctx: PassContext) -> Module:
    types = ctx.types(module)

    def convert(gv: GlobalVar | None, fn: Function) -> Function:
        new = _Simplify(types).visit(fn)
        assert type(new) is Function  # a rebuilt function is a function
        return new

    return map_functions(module, convert)


def _attrs(call_node: Call) -> dict[str, Any]:
    from ..ops import registry

    assert isinstance(call_node.op, Op)  # the caller tested it
    op = registry.get(call_node.op.name)
    assert op is not None
    filled, _ = op.normalize_attrs(call_node.attrs)
    return filled


class _Simplify(ExprMutator):
    def __init__(self, types: dict[Expr, Any]) -> None:
        super().__init__()
        self.types = types

    def tensor(self, node: Expr, what: str) -> TensorType:
        ty = self.types.get(node)
        if not isinstance(ty, TensorType) or type(ty.shape) is not tuple or not isinstance(ty.dtype, str):
            raise failed(
                f"`SimplifyInference` needs the rank and dtype of the input of `{what}`", getattr(node, "span", None)
            )
        return ty

    def visit_tuple_get_item(self, node: TupleGetItem) -> Expr:
        new = super().visit_tuple_get_item(node)
        if type(new) is not TupleGetItem or new.index != 0:
            return new
        inner = new.tuple_value
        if type(inner) is not Call or type(inner.op) is not Op:
            return new
        if inner.op.name == "nn.dropout":
            return inner.args[0]
        if inner.op.name == "nn.batch_norm":
            original = node.tuple_value
            ty = self.tensor(original.args[0] if type(original) is Call else inner.args[0], "nn.batch_norm")
            return self.batch_norm(inner, ty)
        return new

    def visit_call(self, node: Call) -> Expr:
        new = super().visit_call(node)
        if type(new) is not Call or type(new.op) is not Op:
            return new
        name = new.op.name
        if name == "nn.layer_norm":
            a = _attrs(new)
            ty = self.tensor(node.args[0], name)
            return self.normalized(new, ty, [a["axis"]], a["axis"], a)
        if name == "nn.instance_norm":
            a = _attrs(new)
            ty = self.tensor(node.args[0], name)
            assert isinstance(ty.shape, tuple)  # tested by `tensor`
            rank = len(ty.shape)
            axis = a["axis"] % rank if rank else 0
            return self.normalized(new, ty, [i for i in range(1, rank) if i != axis], axis, a)
        if name == "nn.group_norm":
            return self.group_norm(new, self.tensor(node.args[0], name))
        if name == "nn.l2_normalize":
            a = _attrs(new)
            x = new.args[0]
            total = call("sum", call("multiply", x, x), attrs=(("axis", tuple(a["axis"])), ("keepdims", True)))
            return call("divide", x, call("sqrt", call("maximum", total, scalar(a["eps"], "float32"))))
        return new

    def batch_norm(self, bn: Call, ty: TensorType) -> Expr:
        a = _attrs(bn)
        data, gamma, beta, mean, var = bn.args
        dtype = str(ty.dtype)
        eps = scalar(a["epsilon"], dtype)
        scale: Expr = call("divide", scalar(1.0, dtype), call("sqrt", call("add", var, eps)))
        if a["scale"]:
            scale = call("multiply", scale, gamma)
        shift: Expr = call("multiply", call("negative", mean), scale)
        if a["center"]:
            shift = call("add", shift, beta)
        assert isinstance(ty.shape, tuple)  # tested by `tensor`
        rank = len(ty.shape)
        axis = a["axis"] + rank if a["axis"] < 0 else a["axis"]
        scale = _expand(scale, rank, axis)
        shift = _expand(shift, rank, axis)
        return call("add", call("multiply", data, scale), shift)

    def normalized(self, node: Call, ty: TensorType, axes: list[int], axis: int, a: dict[str, Any]) -> Expr:
        data, gamma, beta = node.args
        dtype = str(ty.dtype)
        rank = len(ty.shape)  # type: ignore[arg-type]  # a tuple shape, tested by `tensor`
        out = _standardize(data, tuple(axes), a["epsilon"], dtype)
        axis = axis + rank if axis < 0 else axis
        if a["scale"]:
            out = call("multiply", out, _expand(gamma, rank, axis))
        if a["center"]:
            out = call("add", out, _expand(beta, rank, axis))
        return out

    def group_norm(self, node: Call, ty: TensorType) -> Expr:
        a = _attrs(node)
        data, gamma, beta = node.args
        shape = ty.shape
        if not all(type(d) is int for d in shape):  # type: ignore[union-attr]  # a tuple, tested by `tensor`
            raise failed("`SimplifyInference` needs the shape of the input of `nn.group_norm`", node.span)
        rank = len(shape)  # type: ignore[arg-type]
        axis = a["axis"] + rank if a["axis"] < 0 else a["axis"]
        groups = a["num_groups"]
        channels = shape[axis]  # type: ignore[index]
        grouped: list[int] = []
        reduced: list[int] = []
        for i, d in enumerate(shape):  # type: ignore[arg-type]
            if i == axis:
                grouped += [groups, channels // groups]
                reduced.append(i + 1)
                continue
            if i >= axis:
                reduced.append(i + 1)
            grouped.append(d)
        x = call("reshape", data, attrs=(("newshape", tuple(grouped)),))
        out = _standardize(x, tuple(reduced), a["epsilon"], str(ty.dtype))
        out = call("reshape", out, attrs=(("newshape", tuple(shape)),))  # type: ignore[arg-type]
        if a["scale"]:
            out = call("multiply", out, _expand(gamma, rank, axis))
        if a["center"]:
            out = call("add", out, _expand(beta, rank, axis))
        return out


def _standardize(data: Expr, axes: tuple[int, ...], epsilon: float, dtype: str) -> Expr:
    """`(x - mean) / sqrt(variance + eps)` over `axes`, as TVM writes it."""
    mean = call("mean", data, attrs=(("axis", axes), ("keepdims", True)))
    var = call("variance", data, mean, attrs=(("axis", axes), ("keepdims", True)))
    denom = call("sqrt", call("add", var, scalar(epsilon, dtype)))
    return call("divide", call("subtract", data, mean), denom)


def _expand(vector: Expr, rank: int, axis: int) -> Expr:
    """A vector along `axis` widened with trailing axes to broadcast against
    a tensor of `rank` dimensions (TVM's ExpandBiasToMatchAxis)."""
    extra = rank - axis - 1
    if extra > 0:
        return call("expand_dims", vector, attrs=(("axis", 1), ("num_newaxis", extra)))
    return vector
