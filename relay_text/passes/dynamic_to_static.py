"""`DynamicToStatic`: `dyn.*` operators whose shape arguments are constant
become the static operators, with those shapes as attributes.

As TVM's pass: constants are folded first (`FoldConstant`), so that a shape
computed from constants, or from `shape_of` of a tensor of known shape, is
a constant; then each of TVM's list of dynamic operators whose shape, size,
axis or count arguments are all constants is replaced:

    dyn.reshape(%x, [2, 3])          ->  reshape(%x, newshape=[2, 3])
    dyn.zeros([4], dtype="int8")     ->  zeros(shape=[4], dtype="int8")
    dyn.strided_slice(%x, b, e, s)   ->  strided_slice(%x, begin=..., end=..., strides=...)

(`dyn.reshape`, `dyn.squeeze`, `dyn.tile`, `dyn.topk`, `dyn.broadcast_to`,
`dyn.zeros`, `dyn.ones`, `dyn.one_hot`, `dyn.image.resize2d`, `dyn.full`,
`dyn.nn.upsampling`, `dyn.nn.upsampling3d`, `dyn.nn.pad`,
`dyn.strided_slice`, `dyn.sparse_to_dense`). Results become static, which
may make more shapes constant: folding and replacing repeat until nothing
changes.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from ..ir.expr import AttrPairs, Call, Constant, Expr, Function, GlobalVar, Op
from ..ir.module import Module
from ..ir.visitor import ExprMutator
from ._module import map_functions
from .context import PassContext
from .registry import get, register

ROUNDS = 16


@register("DynamicToStatic", "Replace dyn.* operators whose shape arguments are constants by the static operators")
def dynamic_to_static(module: Module, ctx: PassContext) -> Module:
    fold = get("FoldConstant")
    assert fold is not None
    for _ in range(ROUNDS):
        module = fold(module, ctx)
        ctx.check(module)
        mutator = _Static(ctx)

        def convert(gv: GlobalVar | None, fn: Function, mutator: _Static = mutator) -> Function:
            new = mutator.visit(fn)
            assert type(new) is Function  # a rebuilt function is a function
            return new

        new = map_functions(module, convert)
        if new is module:
            return module
        module = new
    return module


def _ints(value: Any) -> tuple[int, ...]:
    return tuple(int(v) for v in value.reshape(-1))


def _floats(value: Any) -> tuple[float, ...]:
    return tuple(float(v) for v in value.reshape(-1))


def _attrs(call: Call, keep: tuple[str, ...], **given: Any) -> tuple[tuple[str, Any], ...]:
    old = dict(call.attrs)
    out = list(given.items())
    out += [(k, old[k]) for k in keep if k in old]
    return tuple(out)


Rule = Callable[[Call, list[Any]], Call | None]  # (the call, its argument values or None) -> the static call


def _op(name: str, args: tuple[Expr, ...], attrs: AttrPairs) -> Call:
    return Call(Op(name), args, attrs)


RULES: dict[str, tuple[tuple[int, ...], Rule]] = {
    "dyn.reshape": ((1,), lambda c, v: _op("reshape", c.args[:1], _attrs(c, ("allowzero",), newshape=_ints(v[1])))),
    "dyn.squeeze": ((1,), lambda c, v: _op("squeeze", c.args[:1], (("axis", _ints(v[1])),))),
    "dyn.tile": ((1,), lambda c, v: _op("tile", c.args[:1], (("reps", _ints(v[1])),))),
    "dyn.topk": (
        (1,),
        lambda c, v: _op(
            "topk", c.args[:1], _attrs(c, ("axis", "ret_type", "is_ascend", "dtype"), k=int(v[1].reshape(-1)[0]))
        ),
    ),
    "dyn.broadcast_to": ((1,), lambda c, v: _op("broadcast_to", c.args[:1], (("shape", _ints(v[1])),))),
    "dyn.zeros": ((0,), lambda c, v: _op("zeros", (), _attrs(c, ("dtype",), shape=_ints(v[0])))),
    "dyn.ones": ((0,), lambda c, v: _op("ones", (), _attrs(c, ("dtype",), shape=_ints(v[0])))),
    "dyn.one_hot": (
        (3,),
        lambda c, v: _op("one_hot", c.args[:3], _attrs(c, ("axis", "dtype"), depth=int(v[3].reshape(-1)[0]))),
    ),
    "dyn.image.resize2d": (
        (1, 2),
        lambda c, v: _op(
            "image.resize2d",
            c.args[:1],
            _attrs(
                c,
                (
                    "layout",
                    "method",
                    "coordinate_transformation_mode",
                    "rounding_method",
                    "cubic_alpha",
                    "cubic_exclude",
                    "extrapolation_value",
                    "out_dtype",
                ),
                size=_ints(v[1]),
                roi=_floats(v[2]),
            ),
        ),
    ),
    "dyn.full": ((1,), lambda c, v: _op("full", c.args[:1], _attrs(c, ("dtype",), shape=_ints(v[1])))),
    "dyn.nn.upsampling": (
        (1, 2),
        lambda c, v: _op(
            "nn.upsampling",
            c.args[:1],
            _attrs(c, ("layout", "method", "align_corners"), scale_h=float(v[1]), scale_w=float(v[2])),
        ),
    ),
    "dyn.nn.upsampling3d": (
        (1, 2, 3),
        lambda c, v: _op(
            "nn.upsampling3d",
            c.args[:1],
            _attrs(
                c,
                ("layout", "method", "coordinate_transformation_mode"),
                scale_d=float(v[1]),
                scale_h=float(v[2]),
                scale_w=float(v[3]),
            ),
        ),
    ),
    "dyn.nn.pad": (
        (1, 2),
        lambda c, v: _op(
            "nn.pad",
            (c.args[0], c.args[2]),
            _attrs(c, ("pad_mode",), pad_width=tuple(tuple(int(x) for x in row) for row in v[1])),
        ),
    ),
    "dyn.strided_slice": (
        (1, 2, 3),
        lambda c, v: _op(
            "strided_slice",
            c.args[:1],
            _attrs(c, ("slice_mode",), begin=_ints(v[1]), end=_ints(v[2]), strides=_ints(v[3])),
        ),
    ),
    "dyn.sparse_to_dense": ((3,), lambda c, v: _op("sparse_to_dense", c.args[:3], (("output_shape", _ints(v[3])),))),
}


class _Static(ExprMutator):
    def __init__(self, ctx: PassContext) -> None:
        super().__init__()
        self.ctx = ctx

    def visit_call(self, node: Call) -> Expr:
        new = super().visit_call(node)
        if type(new) is not Call or type(new.op) is not Op:
            return new
        rule = RULES.get(new.op.name)
        if rule is None:
            return new
        needed, build = rule
        values: list[Any] = [None] * len(new.args)
        for i in needed:
            arg = new.args[i] if i < len(new.args) else None
            if not isinstance(arg, Constant):
                return new
            value = self.ctx.constants.value(arg)
            if value is None:
                return new
            values[i] = value
        try:
            built = build(new, values)
        except (ValueError, TypeError, IndexError):  # a value of the wrong shape: the checker reports it as it is
            return new
        if built is None:
            return new
        return Call(built.op, built.args, built.attrs, (), new.span)
