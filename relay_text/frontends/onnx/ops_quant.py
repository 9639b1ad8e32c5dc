"""Quantized operators: `QuantizeLinear`, `DequantizeLinear`,
`DynamicQuantizeLinear`, `QLinearConv`, `QLinearMatMul`, `ConvInteger`,
`MatMulInteger`, and the `com.microsoft` QLinear* operators.

ONNX rounds halves to even when it quantizes, where `qnn.quantize` rounds
them away from zero (TVM's choice); quantizing is therefore written with
the elementwise operators (`round_half_even`), and so is requantizing the
integer accumulators of `QLinearConv` / `QLinearMatMul` (in float32, as
onnxruntime does). The accumulators themselves are exact integer
arithmetic: `qnn.conv2d` (as TVM) or int32 products of the zero-point
shifted operands. The `com.microsoft` operators dequantize, compute in
float32 and quantize again, as onnxruntime computes them (and TVM
imported them).
"""

from __future__ import annotations

from collections.abc import Callable

from ...ir.expr import Expr
from ..builder import Builder, Unsupported
from ._common import cast, norm_axis, scalar
from .graph import Ctx
from .node import Node
from .ops_linalg import matmul
from .ops_nn import _LAYOUT, window_attrs
from .table import Converted, Converter, converter

MICROSOFT = "com.microsoft"
_RANGES = {
    "int8": (-128, 127),
    "uint8": (0, 255),
    "int16": (-32768, 32767),
    "uint16": (0, 65535),
    "int32": (-(2**31), 2**31 - 1),
}


def round_half_even(b: Builder, x: Expr) -> Expr:
    """Rounding to the nearest integer, halves to the even one."""
    dt = b.dtype(x)
    half, two = scalar(b, 0.5, dt), scalar(b, 2, dt)
    f = b.call("floor", x)
    diff = b.call("subtract", x, f)
    up = b.call("add", f, scalar(b, 1, dt))
    # f is even when f - 2 * floor(f / 2) == 0
    f_odd = b.call(
        "not_equal",
        b.call("subtract", f, b.call("multiply", two, b.call("floor", b.call("divide", f, two)))),
        scalar(b, 0, dt),
    )
    take_up = b.call(
        "logical_or", b.call("greater", diff, half), b.call("logical_and", b.call("equal", diff, half), f_odd)
    )
    return b.call("where", take_up, up, f)


def _per_axis(b: Builder, t: Expr, rank: int, axis: int, block: int = 0) -> Expr:
    """A scale or zero point: a scalar, a vector along `axis` reshaped to
    broadcast, or (blocked quantization) a tensor of the data's rank whose
    `axis` holds one value per `block` elements, repeated to full length."""
    shape = b.shape(t)
    if block:
        if len(shape) != rank:
            raise Unsupported(f"a blocked scale needs {rank} dimensions, found {len(shape)}")
        return b.call("repeat", t, repeats=block, axis=axis)
    if len(shape) == 0 or (len(shape) == 1 and shape[0] == 1):
        return b.call("reshape", t, newshape=[]) if shape else t
    if len(shape) != 1:
        raise Unsupported("a scale of more than one dimension needs `block_size`")
    target = [1] * rank
    target[axis] = -1
    return b.call("reshape", t, newshape=target)


def quantize_values(
    b: Builder, x: Expr, scale: Expr, zp: Expr | None, out_dtype: str, rank: int, axis: int, block: int = 0
) -> Expr:
    """saturate(round_half_even(x / scale) + zp), in float32."""
    lo, hi = _RANGES[out_dtype]
    xf = cast(b, x, "float32")
    s = cast(b, _per_axis(b, scale, rank, axis, block), "float32")
    q = round_half_even(b, b.call("divide", xf, s))
    if zp is not None:
        q = b.call("add", q, cast(b, _per_axis(b, zp, rank, axis, block), "float32"))
    q = b.call("clip", q, a_min=float(lo), a_max=float(hi))
    return b.call("cast", q, dtype=out_dtype)


def _axis(b: Builder, n: Node, scale: Expr, rank: int, block: int = 0) -> int:
    """The axis of a per-axis or blocked scale (the attribute matters only then)."""
    axis = n.attr("axis", 1)
    shape = b.shape(scale)
    if n.opset < 13 or ((len(shape) == 0 or shape == (1,)) and not block):
        return 0
    return norm_axis(axis, rank)


def _target_dtype(b: Builder, n: Node, zp: Expr | None) -> str:
    if zp is not None:
        dt = b.dtype(zp)
    else:
        from .ops_elementwise import onnx_to_dtype

        code = n.attr("output_dtype", 0) if n.opset >= 21 else 0
        dt = onnx_to_dtype(code, n.opset) if code else "uint8"
    if dt not in _RANGES or dt == "int32":
        raise Unsupported(f"quantizing to `{dt}` is not supported")
    return dt


def _block(n: Node) -> int:
    """The block size of blocked quantization (opset 21), 0 for none."""
    return int(n.attr("block_size", 0)) if n.opset >= 21 else 0


@converter("QuantizeLinear", since=10)
def quantize_linear(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, scale, zp = n.input(0), n.input(1), n.input(2)
    block = _block(n)
    if n.opset >= 19:
        n.attr("saturate", 1)  # only float8 targets saturate differently
    if n.opset >= 23:
        n.ignore("precision")
    rank = b.rank(x)
    axis = _axis(b, n, scale, rank, block)
    return quantize_values(b, x, scale, zp, _target_dtype(b, n, zp), rank, axis, block)


@converter("DequantizeLinear", since=10)
def dequantize_linear(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, scale, zp = n.input(0), n.input(1), n.input(2)
    block = _block(n)
    rank = b.rank(x)
    axis = _axis(b, n, scale, rank, block)
    out = b.dtype(scale)
    if n.opset >= 23 and n.attr("output_dtype", 0):
        from .ops_elementwise import onnx_to_dtype

        out = onnx_to_dtype(n.attr("output_dtype"), n.opset)
    xi = cast(b, x, "int32") if b.dtype(x) != "int32" else x
    if zp is not None:
        xi = b.call("subtract", xi, cast(b, _per_axis(b, zp, rank, axis, block), "int32"))
    s = _per_axis(b, scale, rank, axis, block)
    return cast(b, b.call("multiply", cast(b, xi, "float32"), cast(b, s, "float32")), out)


@converter("DynamicQuantizeLinear", since=11)
def dynamic_quantize_linear(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    zero = scalar(b, 0, "float32")
    xf = cast(b, x, "float32")
    hi = b.call("maximum", zero, b.call("max", xf))
    lo = b.call("minimum", zero, b.call("min", xf))
    scale = b.call("divide", b.call("subtract", hi, lo), scalar(b, 255, "float32"))
    zp_f = b.call(
        "clip", round_half_even(b, b.call("subtract", zero, b.call("divide", lo, scale))), a_min=0.0, a_max=255.0
    )
    zp = b.call("cast", zp_f, dtype="uint8")
    y = quantize_values(b, xf, scale, zp, "uint8", b.rank(x), 0)
    return [y, scale, zp]


def _requantize(
    b: Builder, acc: Expr, scale: Expr, y_scale: Expr, y_zp: Expr | None, out_dtype: str, rank: int, axis: int
) -> Expr:
    """saturate(round(acc * scale / y_scale) + y_zp), in float32."""
    lo, hi = _RANGES[out_dtype]
    f = b.call("multiply", cast(b, acc, "float32"), cast(b, _per_axis(b, scale, rank, axis), "float32"))
    f = b.call("divide", f, cast(b, _per_axis(b, y_scale, rank, axis), "float32"))
    q = round_half_even(b, f)
    if y_zp is not None:
        q = b.call("add", q, cast(b, _per_axis(b, y_zp, rank, axis), "float32"))
    return b.call("cast", b.call("clip", q, a_min=float(lo), a_max=float(hi)), dtype=out_dtype)


def _conv_integer(cx: Ctx, n: Node, x: Expr, w: Expr, x_zp: Expr | None, w_zp: Expr | None) -> Expr:
    """The int32 accumulator of a quantized convolution: conv of the zero-point shifted operands."""
    b = cx.b
    rank = b.rank(x)
    dims = rank - 2
    if dims not in (1, 2, 3):
        raise Unsupported(f"only 1-, 2- and 3-dimensional convolutions are supported, found {rank} dimensions")
    wshape = b.shape(w)
    kernel = list(n.attr("kernel_shape", wshape[2:]))
    strides, dilations, pads = window_attrs(b, n, x, kernel, dims)
    group = int(n.attr("group", 1))
    xi = cast(b, x, "int32")
    if x_zp is not None:
        # padding then holds the zero point (0 after the shift), as ONNX pads
        xi = b.call("subtract", xi, cast(b, b.call("reshape", x_zp, newshape=[]) if b.rank(x_zp) else x_zp, "int32"))
    wi = cast(b, w, "int32")
    if w_zp is not None:
        wi = b.call("subtract", wi, cast(b, _per_axis(b, w_zp, rank, 0), "int32"))
    data_layout, kernel_layout = _LAYOUT[dims]
    return b.call(
        f"nn.conv{dims}d",
        xi,
        wi,
        strides=strides,
        padding=pads,
        dilation=dilations,
        groups=group,
        kernel_size=kernel,
        data_layout=data_layout,
        kernel_layout=kernel_layout,
        out_dtype="int32",
    )


@converter("ConvInteger", since=10)
def conv_integer(cx: Ctx, n: Node) -> Converted:
    return _conv_integer(cx, n, n.input(0), n.input(1), n.input(2), n.input(3))


@converter("QLinearConv", since=10)
def qlinear_conv(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, xs, xz, w, ws, wz, ys, yz = (n.input(i) for i in range(8))
    acc = _conv_integer(cx, n, x, w, xz, wz)
    if n.has(8):
        acc = b.call("nn.bias_add", acc, cast(b, n.input(8), "int32"), axis=1)
    rank = b.rank(x)
    scale = b.call("multiply", cast(b, _flat(b, xs), "float32"), cast(b, _flat(b, ws), "float32"))
    return _requantize(b, acc, scale, _flat(b, ys), yz, b.dtype(yz) if yz is not None else "uint8", rank, 1)


def _flat(b: Builder, t: Expr) -> Expr:
    return b.call("reshape", t, newshape=[]) if b.rank(t) and b.shape(t) == (1,) else t


def _shifted(b: Builder, t: Expr, zp: Expr | None) -> Expr:
    ti = cast(b, t, "int32")
    if zp is None:
        return ti
    return b.call("subtract", ti, cast(b, zp, "int32"))


@converter("MatMulInteger", since=10)
def matmul_integer(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    a, c = n.input(0), n.input(1)
    a_zp, c_zp = n.input(2), n.input(3)
    ai = _shifted(b, a, _row_zp(b, a_zp, a))
    ci = _shifted(b, c, c_zp)
    return matmul(b, ai, ci)


def _row_zp(b: Builder, zp: Expr | None, a: Expr) -> Expr | None:
    """A per-row zero point of the left operand (one per row) broadcasts as a column."""
    if zp is None or b.rank(zp) == 0 or b.shape(zp) == (1,):
        return zp
    return b.call("expand_dims", zp, axis=b.rank(zp))


@converter("MatMulInteger16", domain=MICROSOFT)
def matmul_integer16(cx: Ctx, n: Node) -> Converted:
    """16-bit integer products summed in 32 bits (unsigned when both are)."""
    b = cx.b
    a, c = n.input(0), n.input(1)
    out = "uint32" if b.dtype(a) == b.dtype(c) == "uint16" else "int32"
    return matmul(b, cast(b, a, out), cast(b, c, out))


@converter("QLinearMatMul", since=10)
def qlinear_matmul(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    a, a_s, a_z, c, c_s, c_z, y_s, y_z = (n.input(i) for i in range(8))
    acc = matmul(b, _shifted(b, a, _flat(b, a_z)), _shifted(b, c, _flat(b, c_z)))
    scale = b.call("multiply", cast(b, _flat(b, a_s), "float32"), cast(b, _flat(b, c_s), "float32"))
    rank = b.rank(acc)
    out = _requantize(b, acc, scale, _flat(b, y_s), _flat(b, y_z), b.dtype(y_z), rank, rank - 1)
    return out


# ---------------------------------------------------------------- com.microsoft: dequantize, compute, quantize


def _deq(b: Builder, x: Expr, s: Expr, z: Expr | None) -> Expr:
    xi = cast(b, x, "int32")
    if z is not None:
        xi = b.call("subtract", xi, cast(b, _flat(b, z), "int32"))
    return b.call("multiply", cast(b, xi, "float32"), cast(b, _flat(b, s), "float32"))


def _q(b: Builder, y: Expr, s: Expr, z: Expr | None, out_dtype: str) -> Expr:
    return quantize_values(b, y, _flat(b, s), _flat(b, z) if z is not None else None, out_dtype, b.rank(y), 0)


def _qbinary(op: str) -> Converter:
    def convert(cx: Ctx, n: Node) -> Converted:
        b = cx.b
        a, a_s, a_z, c, c_s, c_z, y_s, y_z = (n.input(i) for i in range(8))
        y = b.call(op, _deq(b, a, a_s, a_z), _deq(b, c, c_s, c_z))
        return _q(b, y, y_s, y_z, b.dtype(a))

    return convert


converter("QLinearAdd", domain=MICROSOFT)(_qbinary("add"))
converter("QLinearMul", domain=MICROSOFT)(_qbinary("multiply"))


def _qunary(fn: Callable[[Ctx, Node, Expr], Expr]) -> Converter:
    def convert(cx: Ctx, n: Node) -> Converted:
        b = cx.b
        x, x_s, x_z, y_s, y_z = (n.input(i) for i in range(5))
        y = fn(cx, n, _deq(b, x, x_s, x_z))
        return _q(b, y, y_s, y_z, b.dtype(x))

    return convert


converter("QLinearSigmoid", domain=MICROSOFT)(_qunary(lambda cx, n, x: cx.b.call("sigmoid", x)))
converter("QLinearLeakyRelu", domain=MICROSOFT)(
    _qunary(lambda cx, n, x: cx.b.call("nn.leaky_relu", x, alpha=float(n.attr("alpha", 0.01))))
)
converter("QLinearSoftmax", domain=MICROSOFT)(
    _qunary(lambda cx, n, x: cx.b.call("nn.softmax", x, axis=norm_axis(n.attr("axis", -1), cx.b.rank(x))))
)


def _qglobal(cx: Ctx, n: Node, x: Expr) -> Expr:
    b = cx.b
    n.ignore("channels_last")
    axes = list(range(2, b.rank(x)))
    return b.call("mean", x, axis=axes, keepdims=True)


converter("QLinearGlobalAveragePool", domain=MICROSOFT)(_qunary(_qglobal))


def _qavg(cx: Ctx, n: Node, x: Expr) -> Expr:
    b = cx.b
    dims = b.rank(x) - 2
    kernel = list(n.require("kernel_shape"))
    strides, _dilations, pads = window_attrs(b, n, x, kernel, dims, default_dilation=False)
    return b.call(
        f"nn.avg_pool{dims}d",
        x,
        pool_size=kernel,
        strides=strides,
        padding=pads,
        layout=_LAYOUT[dims][0],
        ceil_mode=bool(n.attr("ceil_mode", 0)),
        count_include_pad=bool(n.attr("count_include_pad", 0)),
    )


converter("QLinearAveragePool", domain=MICROSOFT)(_qunary(_qavg))


@converter("QLinearConcat", domain=MICROSOFT)
def qlinear_concat(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    y_s, y_z = n.input(0), n.input(1)
    rest = n.inputs[2:]
    if len(rest) % 3:
        raise Unsupported(
            "`QLinearConcat` takes (tensor, scale, zero point) triples after the output's scale and zero point"
        )
    parts = [_deq(b, rest[i], rest[i + 1], rest[i + 2]) for i in range(0, len(rest), 3)]
    rank = b.rank(parts[0])
    y = b.call("concatenate", b.tuple(parts), axis=norm_axis(n.require("axis"), rank))
    return _q(b, y, y_s, y_z, b.dtype(rest[0]))


@converter("QGemm", domain=MICROSOFT)
def qgemm(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    a, a_s, a_z, w, w_s, w_z, c, y_s, y_z = (n.input(i) for i in range(9))
    alpha = float(n.attr("alpha", 1.0))
    if n.attr("transA", 0):
        a = b.call("transpose", a, axes=[1, 0])
    if n.attr("transB", 0):
        w = b.call("transpose", w, axes=[1, 0])
    acc = b.call(
        "nn.matmul", _shifted(b, a, _flat(b, a_z)), _shifted(b, w, _per_axis(b, w_z, 2, 1) if w_z is not None else None)
    )
    if c is not None:
        acc = b.call("add", acc, cast(b, c, "int32"))
    scale = b.call("multiply", cast(b, _flat(b, a_s), "float32"), cast(b, _per_axis(b, w_s, 2, 1), "float32"))
    if alpha != 1.0:
        scale = b.call("multiply", scale, scalar(b, alpha, "float32"))
    if y_s is None:
        return b.call("multiply", cast(b, acc, "float32"), scale)
    return _requantize(
        b,
        acc,
        scale,
        _flat(b, y_s),
        _flat(b, y_z) if y_z is not None else None,
        b.dtype(y_z) if y_z is not None else b.dtype(a),
        2,
        1,
    )
