"""`FoldScaleAxis`: a per-channel constant scale folded into the weights of
the convolution or dense layer beside it.

As TVM's passes (`FoldScaleAxis` is `BackwardFoldScaleAxis`, then
`ForwardFoldScaleAxis`, then `FoldConstant`), for NCHW / OIHW `nn.conv2d`
and `nn.dense`, with TVM's output:

* backward: `conv(x, w)` followed by a bias (`add` of a per-channel vector,
  or `nn.bias_add`), a `nn.relu` (when every scale is positive) and then
  `multiply` by a constant per-output-channel scale `s` becomes
  `conv(x, w * s)` with the bias scaled too: the multiplication goes;
* forward: `multiply` by a constant per-input-channel scale, then a
  `nn.relu` (positive scales) and a bias `add`, feeding a convolution or a
  dense layer, becomes the relu of `x`, the bias divided by `s`, and the
  weight multiplied by `s`.

Each step of a chain must be the only use of the one before. Blocked
layouts (`NCHW16c`), and scales reaching a convolution through other
operators than these, are left (TVM follows more operators).
"""

from __future__ import annotations

from typing import Any

from ..ir.expr import Call, Constant, Expr, Function, GlobalVar, Op
from ..ir.module import Module
from ..ir.visitor import ExprMutator
from ._module import call, map_functions
from ._scopes import walk
from .context import PassContext
from .registry import get, register


@register("BackwardFoldScaleAxis", "Fold a per-output-channel constant scale after conv2d/dense into the weights")
def backward_fold_scale_axis(module: Module, ctx: PassContext) -> Module:
    return _run(module, ctx, backward=True)


@register("ForwardFoldScaleAxis", "Fold a per-input-channel constant scale before conv2d/dense into the weights")
def forward_fold_scale_axis(module: Module, ctx: PassContext) -> Module:
    return _run(module, ctx, backward=False)


@register("FoldScaleAxis", "BackwardFoldScaleAxis, ForwardFoldScaleAxis, then FoldConstant")
def fold_scale_axis(module: Module, ctx: PassContext) -> Module:
    for name in ("BackwardFoldScaleAxis", "ForwardFoldScaleAxis", "FoldConstant"):
        step = get(name)
        assert step is not None
        module = step(module, ctx)
        ctx.check(module)
    return module


def _run(module: Module, ctx: PassContext, backward: bool) -> Module:
    types = ctx.types(module)

    def convert(gv: GlobalVar | None, fn: Function) -> Function:
        uses: dict[int, int] = {}
        for node in walk(fn, lambda n: True):
            for child in _children(node):
                uses[id(child)] = uses.get(id(child), 0) + 1
        rewriter = _Backward(ctx, types, uses) if backward else _Forward(ctx, types, uses)
        new = rewriter.visit(fn)
        assert type(new) is Function  # a rebuilt function is a function
        return new

    return map_functions(module, convert)


def _children(node: Expr) -> list[Expr]:
    from ..ir.schema import edges

    return [child for child, _, _, _ in edges(node)]


def _name(node: Any) -> str | None:
    return node.op.name if type(node) is Call and type(node.op) is Op else None


def _conv_ok(node: Call) -> bool:
    a = dict(node.attrs)
    return (
        a.get("data_layout", "NCHW") == "NCHW"
        and a.get("kernel_layout", "OIHW") == "OIHW"
        and a.get("out_layout", "") in ("", "NCHW")
    )


class _Base(ExprMutator):
    def __init__(self, ctx: PassContext, types: dict[Expr, Any], uses: dict[int, int]) -> None:
        super().__init__()
        self.ctx = ctx
        self.types = types
        self.uses = uses

    def only_use(self, node: Expr) -> bool:
        return self.uses.get(id(node), 0) == 1

    def scale(self, node: Expr, channels_axis: int, rank: int) -> tuple[Any, list[int]] | None:
        """The value of a constant scale that varies along one axis of a
        tensor of `rank` dimensions only (and its own axes of size one, to
        squeeze), or None."""
        if type(node) is not Constant:
            return None
        value = self.ctx.constants.value(node)
        if value is None or value.ndim == 0 or value.ndim > rank:
            return None
        offset = rank - value.ndim
        if channels_axis < offset:
            return None
        ones = [i for i in range(value.ndim) if i + offset != channels_axis]
        if any(value.shape[i] != 1 for i in ones):
            return None
        return value, ones

    def m(self, node: Expr) -> Expr:
        return self.memo.get(node, node)


class _Backward(_Base):
    def visit_call(self, node: Call) -> Expr:
        new = super().visit_call(node)
        if _name(node) != "multiply":
            return new
        for data_at in (0, 1):
            found = self.fold(node, node.args[data_at], node.args[1 - data_at])
            if found is not None:
                return found
        return new

    def fold(self, mult: Call, data: Expr, scale_node: Expr) -> Expr | None:
        chain: list[Call] = []
        node = data
        while type(node) is Call and self.only_use(node) and _name(node) in ("nn.relu", "add", "nn.bias_add"):
            chain.append(node)
            node = node.args[0]
        if type(node) is not Call or not self.only_use(node) or _name(node) not in ("nn.conv2d", "nn.dense"):
            return None
        head = node
        dense = _name(head) == "nn.dense"
        if not dense and not _conv_ok(head):
            return None
        rank = 2 if dense else 4
        found = self.scale(scale_node, 1, rank)
        if found is None:
            return None
        value, ones = found
        if any(_name(c) == "nn.relu" for c in chain) and not (value > 0).all():
            return None
        squeezed: Expr = (
            scale_node if dense and value.ndim == 1 else call("squeeze", scale_node, attrs=(("axis", tuple(ones)),))
        )
        if dense:
            weight = call("multiply", self.m(head.args[1]), call("expand_dims", squeezed, attrs=(("axis", 1),)))
        else:
            weight = call(
                "multiply", self.m(head.args[1]), call("expand_dims", squeezed, attrs=(("axis", 1), ("num_newaxis", 3)))
            )
        out: Expr = Call(head.op, (self.m(head.args[0]), weight), head.attrs, head.type_args, head.span)
        for step in reversed(chain):
            if _name(step) == "nn.relu":
                out = Call(step.op, (out,), step.attrs, step.type_args, step.span)
                continue
            bias = step.args[1]
            bias_rank = len(getattr(self.types.get(bias), "shape", ()) or ())
            if _name(step) == "nn.bias_add" or dense or bias_rank == 1:
                factor = squeezed
            else:
                factor = call("expand_dims", squeezed, attrs=(("axis", 1), ("num_newaxis", bias_rank - 1)))
            out = Call(step.op, (out, call("multiply", self.m(bias), factor)), step.attrs, step.type_args, step.span)
        return out


class _Forward(_Base):
    def visit_call(self, node: Call) -> Expr:
        new = super().visit_call(node)
        name = _name(node)
        if name not in ("nn.conv2d", "nn.dense") or (name == "nn.conv2d" and not _conv_ok(node)):
            return new
        chain: list[Call] = []
        current = node.args[0]
        while type(current) is Call and self.only_use(current) and _name(current) in ("add", "nn.relu"):
            chain.append(current)
            current = current.args[0]
        if _name(current) != "multiply" or not self.only_use(current):
            return new
        dense = name == "nn.dense"
        rank = 2 if dense else 4
        for data_at in (0, 1):
            found = self.scale(current.args[1 - data_at], 1, rank)  # type: ignore[attr-defined]  # a call, tested by _name
            if found is None:
                continue
            value, ones = found
            if any(_name(c) == "nn.relu" for c in chain) and not (value > 0).all():
                return new
            scale_node = current.args[1 - data_at]  # type: ignore[attr-defined]
            squeezed: Expr = (
                scale_node if value.ndim == 1 else call("squeeze", scale_node, attrs=(("axis", tuple(ones)),))
            )
            out: Expr = self.m(current.args[data_at])  # type: ignore[attr-defined]
            for step in reversed(chain):
                if _name(step) == "nn.relu":
                    out = Call(step.op, (out,), step.attrs, step.type_args, step.span)
                    continue
                bias = step.args[1]
                bias_rank = len(getattr(self.types.get(bias), "shape", ()) or ())
                factor = (
                    squeezed
                    if dense or bias_rank <= 1
                    else call("expand_dims", squeezed, attrs=(("axis", 1), ("num_newaxis", bias_rank - 1)))
                )
                out = Call(step.op, (out, call("divide", self.m(bias), factor)), step.attrs, step.type_args, step.span)
            wfactor = squeezed if dense else call("expand_dims", squeezed, attrs=(("axis", 1), ("num_newaxis", 2)))
            weight = call("multiply", self.m(node.args[1]), wfactor)
            return Call(node.op, (out, weight), node.attrs, node.type_args, node.span)
        return new
