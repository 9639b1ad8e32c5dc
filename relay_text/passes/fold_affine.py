"""`FoldAffine`: per-channel scale and shift after a convolution folded into its weights.

One of the rewrites `relay run` applies before compiling (`relay run
--no-opt` skips it); `relay opt --passes FoldAffine` shows what it does.
A convolution (`nn.conv2d`, NCHW / OIHW) or `nn.dense` followed by
per-channel affine steps (`nn.batch_norm` in inference, `nn.bias_add`,
`add` or `multiply` of a per-channel vector or a scalar, each step the only
user of the one before) becomes one convolution whose weight is scaled,
followed by one `nn.bias_add`:

    bn(conv(x, W)) = conv(x, W * s) + (beta - mean * s),  s = gamma / sqrt(var + eps)

The weight and vector arithmetic is written as operator calls, so that
where the weights are constants `FoldConstant` computes it once; where they
are parameters it runs on the small weight tensors instead of the large
activations. A batch norm used alone becomes `x * s + shift` with the
vectors computed once. Results stay within float rounding. (TVM reaches the
same with `SimplifyInference`, `FoldScaleAxis` and `FoldConstant`.)

float16 layers fold too, computed in float32 and rounded once: the vectors
and the scaled weight are computed from float32 casts of the float16 values
and the weight is cast back to float16; the convolution keeps its float32
sum (`out_dtype="float32"`), gets the float32 shift, then the `nn.relu`
that is the only user of the chain's last step (relu commutes with
rounding), and one `cast` to float16 ends the chain. A batch norm alone is
`cast(relu?(cast(x, float32) * s + shift), float16)` the same way.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from ..ir.expr import Call, Constant, Expr, Function, GlobalVar, Op, TupleGetItem, int_attr
from ..ir.module import Module
from ..ir.schema import region_edges
from ..ir.ty import TensorType
from ..ir.visitor import ExprMutator, post_order
from ._module import map_functions
from ._rewrite import Rewrite
from .context import PassContext
from .registry import register

FLOATS = frozenset({"float32", "float64", "float16"})
# float16 folds are computed in float32 (see the module's docstring).
WIDE = {"float16": "float32"}


def fold_function(fn: Function, rw: Rewrite, values: Any = None) -> Function:
    """The rewrite of one function (the evaluator's entry point; it needs no
    values)."""
    return _FoldAffine(rw).run(fn)


@register(
    "FoldAffine",
    "Fold batch norms and per-channel scales and shifts after conv2d or dense into the weights (relay run's)",
    evaluator=fold_function,
)
def fold_affine(module: Module, ctx: PassContext) -> Module:
    types = ctx.types(module)
    rw = Rewrite(types.get)

    def convert(gv: GlobalVar | None, fn: Function) -> Function:
        return fold_function(fn, rw)

    return map_functions(module, convert)


class _FoldAffine:
    def __init__(self, rw: Rewrite) -> None:
        self.rw = rw

    def run(self, fn: Function) -> Function:
        order = post_order(fn)
        parents: dict[Expr, list[Expr]] = {}
        for node in order:
            inline, opened = region_edges(node)
            for child in (*inline, *opened):
                parents.setdefault(child, []).append(node)
        replace: dict[Expr, Expr] = {}
        for node in order:
            if type(node) is Call and type(node.op) is Op and node.op.name in ("nn.conv2d", "nn.dense"):
                found = self._affine_chain(node, parents)
                if found is not None:
                    tail, new = found
                    replace[tail] = new
        for node in order:
            if type(node) is TupleGetItem and node not in replace:
                alone = self._batch_norm_alone(node, parents)
                if alone is not None and alone[0] not in replace:
                    replace[alone[0]] = alone[1]
        if not replace:
            return fn

        class Rewrite(ExprMutator):
            def visit_call(self, node: Call) -> Expr:
                target = replace.get(node)
                if target is not None:
                    return self.visit(target) if target not in self.memo else self.memo[target]
                return super().visit_call(node)

            def visit_tuple_get_item(self, node: TupleGetItem) -> Expr:
                target = replace.get(node)
                if target is not None:
                    return self.visit(target) if target not in self.memo else self.memo[target]
                return super().visit_tuple_get_item(node)

        # The replacements are built from nodes of the original graph: rebuild
        # them first (a nested `visit` is a fresh iterative walk over them).
        rewrite = Rewrite()
        for target in replace.values():
            rewrite.visit(target)
        new = rewrite.visit(fn)
        self.rw.adopt(rewrite)
        assert type(new) is Function  # a rebuilt function is a function
        return new

    def _affine_chain(self, head: Call, parents: dict[Expr, list[Expr]]) -> tuple[Expr, Expr] | None:
        """The affine steps after a conv/dense `head` (each the only user of
        the step before): (the last step, its replacement)."""
        head_ty = self.rw.type_of(head)
        if not isinstance(head_ty, TensorType) or head_ty.dtype not in FLOATS or not _static(head_ty.shape):
            return None
        attrs = dict(head.attrs)
        dtype = head_ty.dtype
        if type(head.op) is Op and head.op.name == "nn.conv2d":
            if attrs.get("data_layout", "NCHW") != "NCHW" or attrs.get("kernel_layout", "OIHW") != "OIHW":
                return None
            if attrs.get("out_layout", "") not in ("", "NCHW") or attrs.get("out_dtype", "") not in ("", None, dtype):
                return None
            axis = 1
        else:
            if attrs.get("out_dtype", "") not in ("", None, dtype):
                return None
            axis = len(head_ty.shape) - 1
        weight_ty = self.rw.type_of(head.args[1])
        if not isinstance(weight_ty, TensorType) or weight_ty.dtype != dtype or not _static(weight_ty.shape):
            return None
        channels = head_ty.shape[axis]
        rank = len(head_ty.shape)
        wide = WIDE.get(dtype, dtype)  # the dtype the scales and shifts are computed in
        # a weight that is a parameter is scaled at every call: worth it only
        # where it is smaller than the activations it saves a pass over
        costly = not isinstance(head.args[1], Constant) and _size(weight_ty.shape) > _size(head_ty.shape)
        if costly and wide == dtype:
            return None
        scale: Expr | None = None  # per output channel, shape (C,)
        shift: Expr | None = None
        node: Expr = head
        tail: Expr | None = None
        span = head.span
        vec_ty = TensorType((channels,), wide)
        while True:
            users = parents.get(node, [])
            if len(users) != 1:
                break
            step = self._affine_step(users[0], node, axis, rank, channels, dtype, parents)
            if step is None:
                break
            next_node, s, b = step
            span = getattr(next_node, "span", None) or span
            # (y * scale + shift) * s + b
            if s is not None:
                scale = s if scale is None else self.rw.call("multiply", (scale, s), (), vec_ty, span)
                if shift is not None:
                    shift = self.rw.call("multiply", (shift, s), (), vec_ty, span)
            if b is not None:
                shift = b if shift is None else self.rw.call("add", (shift, b), (), vec_ty, span)
            node = next_node
            tail = next_node
        if tail is None or (scale is None and shift is None):
            return None
        if scale is None and wide == dtype:
            return None  # a bias alone: nothing to fold into the weights (float16: added before rounding)
        if scale is not None and costly:
            return None
        new_weight = head.args[1]
        if scale is not None:
            new_weight = self._scaled_weight(new_weight, weight_ty, dtype, scale, wide, span)
        conv_attrs = head.attrs
        if wide != dtype:  # the convolution's float32 sum kept for the shift
            conv_attrs = (*((k, v) for k, v in head.attrs if k != "out_dtype"), ("out_dtype", wide))
        conv = Call(head.op, (head.args[0], new_weight), conv_attrs, head.type_args, head.span, head.infix)
        wide_ty = TensorType(head_ty.shape, wide)
        self.rw.types[conv] = wide_ty
        result: Expr = conv
        if shift is not None:
            result = self.rw.call("nn.bias_add", (conv, shift), (("axis", axis),), wide_ty, span)
        if wide != dtype:
            users = parents.get(tail, [])
            if len(users) == 1 and _is_relu(users[0], tail) and self.rw.type_of(users[0]) == head_ty:
                # relu commutes with rounding: applied before it, in float32
                tail = users[0]
                result = self.rw.call("nn.relu", (result,), (), wide_ty, getattr(tail, "span", None) or span)
            result = self.rw.call("cast", (result,), (("dtype", dtype),), head_ty, span)
        return tail, result

    def _scaled_weight(
        self, weight: Expr, weight_ty: TensorType, dtype: str, scale: Expr, wide: str, span: Any
    ) -> Expr:
        """`weight` (of a static shape and `dtype`) times `scale` along its
        first axis, computed in `wide` and rounded once."""
        shape = weight_ty.shape
        assert _static(shape)  # (checked by the caller)
        dims = len(shape)
        s_shaped = self.rw.call(
            "reshape",
            (scale,),
            (("newshape", (-1,) + (1,) * (dims - 1)),),
            TensorType((shape[0],) + (1,) * (dims - 1), wide),
            span,
        )
        wide_weight = self._widen(weight, weight_ty, wide, span)
        scaled = self.rw.call("multiply", (wide_weight, s_shaped), (), TensorType(shape, wide), span)
        if wide == dtype:
            return scaled
        return self.rw.call("cast", (scaled,), (("dtype", dtype),), weight_ty, span)

    def _batch_norm_alone(self, item: TupleGetItem, parents: dict[Expr, list[Expr]]) -> tuple[Expr, Expr] | None:
        """`nn.batch_norm(x, ...).0` used alone: `x * s + shift` with the
        per-channel vectors computed once (two steps that can run in x's
        buffer, see `inplace`): (the node replaced, its replacement). In
        float16, computed in float32 and rounded once, after the `nn.relu`
        that is the only user of the batch norm if there is one."""
        bn = item.tuple_value
        if item.index != 0 or type(bn) is not Call or type(bn.op) is not Op or bn.op.name != "nn.batch_norm":
            return None
        ty = self.rw.type_of(item)
        if (
            not isinstance(ty, TensorType)
            or ty.dtype not in FLOATS
            or not _static(ty.shape)
            or self.rw.type_of(bn.args[0]) != ty
        ):
            return None
        rank = len(ty.shape)
        axis = int_attr(dict(bn.attrs), "axis", 1)
        if axis is None:
            return None
        axis %= rank
        step = self._affine_step(bn, bn.args[0], axis, rank, ty.shape[axis], ty.dtype, parents)
        if step is None:
            return None
        _, s, b = step
        span = item.span or bn.span
        wide = WIDE.get(ty.dtype, ty.dtype)
        wide_ty = TensorType(ty.shape, wide)
        shape = tuple(-1 if i == axis else 1 for i in range(rank))
        vshape = tuple(ty.shape[axis] if i == axis else 1 for i in range(rank))
        s_shaped = self.rw.call("reshape", (s,), (("newshape", shape),), TensorType(vshape, wide), span)
        scaled = self.rw.call("multiply", (self._widen(bn.args[0], ty, wide, span), s_shaped), (), wide_ty, span)
        result = self.rw.call("nn.bias_add", (scaled, b), (("axis", axis),), wide_ty, span)
        tail: Expr = item
        if wide != ty.dtype:  # computed in float32, rounded once
            users = parents.get(item, [])
            if len(users) == 1 and _is_relu(users[0], item) and self.rw.type_of(users[0]) == ty:
                tail = users[0]  # relu commutes with rounding: applied before it, in float32
                result = self.rw.call("nn.relu", (result,), (), wide_ty, getattr(tail, "span", None) or span)
            result = self.rw.call("cast", (result,), (("dtype", ty.dtype),), ty, span)
        return tail, result

    def _widen(self, node: Expr, ty: TensorType, wide: str, span: Any) -> Expr:
        """`node` (of type `ty`) as a `wide` tensor: itself, or cast to float32."""
        if ty.dtype == wide:
            return node
        return self.rw.call("cast", (node,), (("dtype", wide),), TensorType(ty.shape, wide), span)

    def _affine_step(
        self, parent: Expr, node: Expr, axis: int, rank: int, channels: int, dtype: str, parents: dict[Expr, list[Expr]]
    ) -> tuple[Expr, Expr | None, Expr | None] | None:
        """`parent` as an affine step on `node`: (the node giving its result,
        scale, shift), the vectors of shape (C,) or None."""
        if type(parent) is not Call or type(parent.op) is not Op:
            return None
        name = parent.op.name
        vec_ty = TensorType((channels,), dtype)
        wide = WIDE.get(dtype, dtype)
        wide_ty = TensorType((channels,), wide)
        if name == "nn.batch_norm" and parent.args[0] is node:
            a = dict(parent.attrs)
            bn_axis = int_attr(a, "axis", 1)
            if bn_axis is None or bn_axis % rank != axis:
                return None
            # every use of the batch norm is its first field
            items = parents.get(parent, [])
            if len(items) != 1 or type(items[0]) is not TupleGetItem or items[0].index != 0:
                return None
            for v in parent.args[1:]:
                if self.rw.type_of(v) != vec_ty:
                    return None
            span = parent.span
            gamma, beta, mean, var = (self._widen(v, vec_ty, wide, span) for v in parent.args[1:])
            epsilon = a.get("epsilon", 1e-5)
            if not isinstance(epsilon, (int, float)):
                return None
            eps = self.rw.scalar(epsilon, wide, span)
            vec_ty = wide_ty
            root = self.rw.call("sqrt", (self.rw.call("add", (var, eps), (), vec_ty, span),), (), vec_ty, span)
            if a.get("scale", True):
                s = self.rw.call("divide", (gamma, root), (), vec_ty, span)
            else:
                s = self.rw.call("divide", (self.rw.scalar(1.0, wide, span), root), (), vec_ty, span)
            mean_s = self.rw.call("multiply", (mean, s), (), vec_ty, span)
            if a.get("center", True):
                b = self.rw.call("subtract", (beta, mean_s), (), vec_ty, span)
            else:
                b = self.rw.call("negative", (mean_s,), (), vec_ty, span)
            return items[0], s, b
        if name == "nn.bias_add" and parent.args[0] is node:
            bias_axis = int_attr(dict(parent.attrs), "axis", 1)
            if bias_axis is None or bias_axis % rank != axis or self.rw.type_of(parent.args[1]) != vec_ty:
                return None
            return parent, None, self._widen(parent.args[1], vec_ty, wide, parent.span)
        if name in ("add", "multiply") and len(parent.args) == 2 and node in parent.args:
            other = parent.args[1] if parent.args[0] is node else parent.args[0]
            if other is node or self.rw.type_of(parent) != self.rw.type_of(node):
                return None
            vec = self._as_channel_vector(other, axis, rank, channels, dtype, parent.span)
            if vec is None:
                return None
            vec = self._widen(vec, vec_ty, wide, parent.span)
            return (parent, None, vec) if name == "add" else (parent, vec, None)
        return None

    def _as_channel_vector(
        self, other: Expr, axis: int, rank: int, channels: int, dtype: str, span: Any
    ) -> Expr | None:
        """`other` (broadcast against the channel axis) as a (C,) vector, if
        it only varies along that axis and is a constant."""
        if not isinstance(other, Constant):
            return None
        ty = self.rw.type_of(other)
        if not isinstance(ty, TensorType) or ty.dtype != dtype or not _static(ty.shape):
            return None
        shape = ty.shape
        vec_ty = TensorType((channels,), dtype)
        if shape == ():
            return self.rw.call("broadcast_to", (other,), (("shape", (channels,)),), vec_ty, span)
        if len(shape) > rank:
            return None
        padded = (1,) * (rank - len(shape)) + tuple(shape)
        if any(d != 1 for i, d in enumerate(padded) if i != axis) or padded[axis] not in (1, channels):
            return None
        flat = self.rw.call("reshape", (other,), (("newshape", (-1,)),), TensorType((padded[axis],), dtype), span)
        if padded[axis] == 1:
            return self.rw.call("broadcast_to", (flat,), (("shape", (channels,)),), vec_ty, span)
        return flat


def _is_relu(node: Expr, arg: Expr) -> bool:
    return type(node) is Call and type(node.op) is Op and node.op.name == "nn.relu" and node.args[0] is arg


def _size(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _static(shape: object) -> TypeGuard[tuple[int, ...]]:
    return type(shape) is tuple and all(type(d) is int for d in shape)
