"""Each operator's derivative, for `gradient`: TVM's `FPrimalGradient`
registrations (python/tvm/relay/op/_tensor_grad.py at 21095b98), written
over this project's operators.

A rule takes the call (its arguments are the forward values), the gradient
of its result, the types of its arguments and result, and the forward
result (`y`, a bound variable); it returns one
gradient per argument, each an expression of the argument's type
(broadcasting operators sum the gradient back with `collapse_sum_like`).
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from ..ir.expr import Call, Expr, TupleGetItem
from ..ir.ty import TensorType, TupleType
from ._module import call, scalar

Rule = Callable[[Call, Expr, list[Any], Any, Expr], list[Expr]]
RULES: dict[str, Rule] = {}


def rule(*names: str) -> Callable[[Rule], Rule]:
    def decorate(fn: Rule) -> Rule:
        for name in names:
            RULES[name] = fn
        return fn

    return decorate


def _attrs(node: Call) -> dict[str, Any]:
    from ..ops import registry

    from ..ir.expr import Op

    assert isinstance(node.op, Op)  # rules see operator calls only
    op = registry.get(node.op.name)
    assert op is not None
    filled, _ = op.normalize_attrs(node.attrs)
    return filled


def _dtype(ty: Any) -> str:
    return str(ty.dtype) if isinstance(ty, TensorType) else "float32"


def _shape(ty: Any) -> tuple[int, ...]:
    assert isinstance(ty, TensorType) and type(ty.shape) is tuple, "a static shape is needed"
    return tuple(int(d) for d in ty.shape)


def _csl(grad: Expr, like: Expr) -> Expr:
    return call("collapse_sum_like", grad, like)


@rule("add")
def _add(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    return [_csl(g, c.args[0]), _csl(g, c.args[1])]


@rule("subtract")
def _subtract(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    return [_csl(g, c.args[0]), _csl(call("negative", g), c.args[1])]


@rule("multiply")
def _multiply(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    x, y = c.args
    return [_csl(call("multiply", g, y), x), _csl(call("multiply", g, x), y)]


@rule("divide")
def _divide(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    a, b = c.args
    return [_csl(call("divide", g, b), a), _csl(call("negative", call("divide", call("multiply", g, y), b)), b)]


@rule("negative")
def _negative(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    return [call("negative", g)]


@rule("log")
def _log(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    x = c.args[0]
    return [call("divide", call("multiply", g, call("ones_like", x)), x)]


@rule("exp")
def _exp(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    return [call("multiply", g, call("exp", c.args[0]))]


@rule("sqrt")
def _sqrt(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    x = c.args[0]
    half = scalar(0.5, _dtype(ts[0]))
    return [call("multiply", call("multiply", g, half), call("power", x, call("negative", half)))]


@rule("sigmoid")
def _sigmoid(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    return [call("multiply", call("multiply", g, y), call("subtract", call("ones_like", y), y))]


@rule("tanh")
def _tanh(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    return [call("multiply", g, call("subtract", call("ones_like", y), call("multiply", y, y)))]


@rule("sin")
def _sin(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    return [call("multiply", g, call("cos", c.args[0]))]


@rule("cos")
def _cos(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    x = c.args[0]
    return [call("multiply", g, call("multiply", call("negative", call("ones_like", x)), call("sin", x)))]


@rule("nn.relu")
def _relu(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    x = c.args[0]
    zeros = call("zeros_like", x)
    return [call("where", call("less", x, zeros), zeros, call("multiply", call("ones_like", x), g))]


@rule("abs")
def _abs(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    x = c.args[0]
    ones = call("ones_like", x)
    return [
        call(
            "where",
            call("less", x, call("zeros_like", x)),
            call("multiply", call("negative", ones), g),
            call("multiply", ones, g),
        )
    ]


@rule("copy")
def _copy(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    return [g]


@rule("zeros_like", "ones_like")
def _constant_like(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    return [call("zeros_like", c.args[0])]


@rule("collapse_sum_like")
def _collapse_sum_like(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    x, y = c.args
    return [call("broadcast_to_like", g, x), call("zeros_like", y)]


@rule("nn.softmax")
def _softmax(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    axis = _attrs(c)["axis"]
    summed = call("sum", call("multiply", g, y), attrs=(("axis", (axis,)), ("keepdims", True)))
    return [call("multiply", call("subtract", g, summed), y)]


@rule("nn.log_softmax")
def _log_softmax(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    axis = _attrs(c)["axis"]
    summed = call("sum", g, attrs=(("axis", (axis,)), ("keepdims", True)))
    return [call("subtract", g, call("multiply", summed, call("exp", y)))]


@rule("nn.bias_add")
def _bias_add(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    axis = _attrs(c)["axis"]
    return [_csl(g, c.args[0]), call("sum", g, attrs=(("axis", (axis,)), ("keepdims", False), ("exclude", True)))]


@rule("nn.dense")
def _dense(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    data, weight = c.args
    return [
        _csl(call("nn.dense", g, call("transpose", weight), attrs=(("units", _shape(ts[1])[1]),)), data),
        _csl(
            call("nn.dense", call("transpose", g), call("transpose", data), attrs=(("units", _shape(ts[0])[1]),)),
            weight,
        ),
    ]


@rule("nn.batch_matmul")
def _batch_matmul(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    lhs, rhs = c.args
    a = _attrs(c)
    ta, tb = a["transpose_a"], a["transpose_b"]

    def bmm(x: Expr, y: Expr, ta_: bool, tb_: bool) -> Expr:
        return call("nn.batch_matmul", x, y, attrs=(("transpose_a", ta_), ("transpose_b", tb_)))

    if (ta, tb) == (True, True):
        return [_csl(bmm(rhs, g, True, True), lhs), _csl(bmm(g, lhs, True, True), rhs)]
    if (ta, tb) == (True, False):
        return [_csl(bmm(rhs, g, False, True), lhs), _csl(bmm(lhs, g, False, False), rhs)]
    if (ta, tb) == (False, True):
        return [
            _csl(bmm(g, call("transpose", rhs, attrs=(("axes", (0, 2, 1)),)), False, True), lhs),
            _csl(bmm(g, call("transpose", lhs, attrs=(("axes", (0, 2, 1)),)), True, False), rhs),
        ]
    return [
        _csl(bmm(g, call("transpose", rhs, attrs=(("axes", (0, 2, 1)),)), False, False), lhs),
        _csl(bmm(call("transpose", lhs, attrs=(("axes", (0, 2, 1)),)), g, False, False), rhs),
    ]


@rule("nn.conv2d")
def _conv2d(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    a = _attrs(c)
    data, weight = c.args
    _, _, in_h, in_w = _shape(ts[0])
    _, _, filter_h, filter_w = _shape(ts[1])
    _, _, grad_h, grad_w = _shape(rt)
    if a["data_layout"] != "NCHW" or a["kernel_layout"] != "OIHW" or a["out_layout"] not in ("", "NCHW"):
        raise ValueError("the gradient of nn.conv2d needs NCHW data and OIHW kernels")
    pad = tuple(a["padding"])
    if len(pad) == 1:
        pad = pad * 4
    elif len(pad) == 2:
        pad = (pad[0], pad[1], pad[0], pad[1])
    top, left, bottom, right = pad
    sh, sw = a["strides"]
    dh, dw = a["dilation"]
    out_h = (grad_h - 1) * sh - top - bottom + (filter_h - 1) * dh + 1
    out_w = (grad_w - 1) * sw - left - right + (filter_w - 1) * dw + 1
    out_dtype = a["out_dtype"] or _dtype(ts[0])
    common = (("strides", (sh, sw)), ("padding", pad), ("dilation", (dh, dw)), ("groups", a["groups"]))
    backward_data = call(
        "nn.conv2d_transpose",
        g,
        weight,
        attrs=(*common, ("output_padding", (in_h - out_h, in_w - out_w)), ("out_dtype", out_dtype)),
    )
    backward_weight = call(
        "nn.conv2d_backward_weight",
        g,
        data,
        attrs=(
            *common,
            ("channels", a["channels"]),
            ("kernel_size", (filter_h, filter_w)),
            # as TVM stores them: the gradient's layout, the data's, the weight's
            ("data_layout", a["out_layout"] or a["data_layout"]),
            ("kernel_layout", a["data_layout"]),
            ("out_layout", a["kernel_layout"]),
            ("out_dtype", out_dtype),
        ),
    )
    return [backward_data, backward_weight]


@rule("nn.max_pool2d")
def _max_pool2d(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    a = _attrs(c)
    keys = ("pool_size", "strides", "padding", "layout", "ceil_mode")
    return [call("nn.max_pool2d_grad", g, c.args[0], attrs=tuple((k, a[k]) for k in keys))]


@rule("nn.avg_pool2d")
def _avg_pool2d(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    a = _attrs(c)
    keys = ("pool_size", "strides", "padding", "layout", "ceil_mode", "count_include_pad")
    return [call("nn.avg_pool2d_grad", g, c.args[0], attrs=tuple((k, a[k]) for k in keys))]


@rule("nn.global_avg_pool2d")
def _global_avg_pool2d(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    layout = _attrs(c)["layout"]
    shape = _shape(ts[0])
    size = (shape[2], shape[3]) if layout == "NCHW" else (shape[1], shape[2])
    return [
        call(
            "nn.avg_pool2d_grad",
            g,
            c.args[0],
            attrs=(("pool_size", size), ("strides", (1, 1)), ("padding", (0, 0)), ("layout", layout)),
        )
    ]


@rule("reshape", "nn.batch_flatten", "squeeze", "contrib_reverse_reshape")
def _reshape(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    return [call("reshape_like", g, c.args[0])]


@rule("expand_dims")
def _expand_dims(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    a = _attrs(c)
    for _ in range(a["num_newaxis"]):
        g = call("squeeze", g, attrs=(("axis", (a["axis"],)),))
    return [g]


@rule("cast")
def _cast(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    return [call("cast_like", g, c.args[0])]


@rule("transpose")
def _transpose(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    axes = _attrs(c)["axes"]
    if not axes:
        return [call("transpose", g)]
    inverse = [0] * len(axes)
    rank = len(axes)
    for i, ax in enumerate(axes):
        inverse[ax % rank] = i
    return [call("transpose", g, attrs=(("axes", tuple(inverse)),))]


def _reduce_axes(c: Call, ts: list[Any]) -> list[int] | None:
    a = _attrs(c)
    axis = a["axis"]
    rank = len(_shape(ts[0]))
    if axis is None:
        return None
    axes = sorted(x % rank for x in (axis if isinstance(axis, tuple) else (axis,)))
    if a["exclude"]:
        axes = [x for x in range(rank) if x not in axes]
    return axes


def _unreduce(g: Expr, axes: list[int]) -> Expr:
    for ax in axes:
        g = call("expand_dims", g, attrs=(("axis", ax),))
    return g


@rule("sum")
def _sum(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    axes = _reduce_axes(c, ts)
    if not _attrs(c)["keepdims"]:
        g = _unreduce(g, axes if axes is not None else list(range(len(_shape(ts[0])))))
    return [call("broadcast_to_like", g, c.args[0])]


@rule("mean")
def _mean(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    shape = _shape(ts[0])
    axes = _reduce_axes(c, ts)
    if axes is None:
        axes = list(range(len(shape)))
    if not _attrs(c)["keepdims"]:
        g = _unreduce(g, axes)
    factor = 1.0
    for ax in axes:
        factor /= shape[ax]
    return [call("broadcast_to_like", call("multiply", g, scalar(factor, _dtype(ts[0]))), c.args[0])]


@rule("concatenate")
def _concatenate(c: Call, g: Expr, ts: list[Any], rt: Any, y: Expr) -> list[Expr]:
    axis = _attrs(c)["axis"]
    fields = ts[0].fields if isinstance(ts[0], TupleType) else ()
    rank = len(_shape(fields[0])) if fields else 1
    splits: list[int] = []
    total = 0
    for f in fields[:-1]:
        total += _shape(f)[axis % rank]
        splits.append(total)
    parts = call("split", g, attrs=(("indices_or_sections", tuple(splits)), ("axis", axis)))
    from ..ir.expr import Tuple

    return [Tuple(tuple(TupleGetItem(parts, i) for i in range(len(fields))))]
