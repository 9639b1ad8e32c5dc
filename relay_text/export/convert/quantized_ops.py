"""Quantized operators built on requantize (see `quantized.py`), as the
numpy kernels compute them (`relay_text/ops/qnn_*.py`): elementwise
functions through float32, sums and products through int32, matrix
products and convolutions exact in int64 and wrapped to `out_dtype`."""

from __future__ import annotations

import math
from collections.abc import Sequence

from . import OpContext, Unsupported, converter, matrix_product, norm_axis, np
from .nn import conv_by_matmul, layout_perm, spatial, spatial_pads, to_layout
from .quantized import (
    INT_RANGES,
    _power_of_two,
    _round_half_away,
    _saturate,
    _select_clip,
    _shift_product,
    requantize_values,
)


def _scalar(cx: OpContext, v: str, dtype: str) -> str:
    return cx.cast(cx.reshape(v, []), dtype)


def _dequantize(cx: OpContext, q: str, s: str, z: str) -> str:
    """(int32(q) - z) as float32, times s (scalar parameters)."""
    return cx.node(
        "Mul",
        [cx.cast(cx.node("Sub", [cx.cast(q, "int32"), _scalar(cx, z, "int32")]), "float32"), _scalar(cx, s, "float32")],
    )


def _quantize(cx: OpContext, y: str, s: str, z: str, dtype: str) -> str:
    """round(y / s) + z in float32, clipped to `dtype` by selects, converted."""
    v = cx.node(
        "Add",
        [_round_half_away(cx, cx.node("Div", [y, _scalar(cx, s, "float32")]), np.float32), _scalar(cx, z, "float32")],
    )
    lo, hi = INT_RANGES[dtype]
    return cx.cast(
        _select_clip(cx, cx.cast(v, "float64"), cx.scalar(float(lo), "float64"), cx.scalar(float(hi), "float64")), dtype
    )


def _erf(cx: OpContext, x: str) -> str:
    """The kernels' erf (relay_text/ops/tensor/special.py) in float64, step by step."""
    from ...ops.tensor.special import _ERFC

    x = cx.cast(x, "float64")
    ax = cx.node("Abs", [x])
    x2 = cx.node("Mul", [x, x])
    term, series = x, x
    for n in range(1, 14):
        term = cx.node("Div", [cx.node("Mul", [term, cx.node("Neg", [x2])]), cx.scalar(float(n), "float64")])
        series = cx.node("Add", [series, cx.node("Div", [term, cx.scalar(float(2 * n + 1), "float64")])])
    series = cx.node("Mul", [series, cx.scalar(2 / math.sqrt(math.pi), "float64")])
    t = cx.node(
        "Div",
        [
            cx.scalar(1.0, "float64"),
            cx.node("Add", [cx.scalar(1.0, "float64"), cx.node("Mul", [cx.scalar(0.5, "float64"), ax])]),
        ],
    )
    poly = cx.node("Mul", [t, cx.scalar(0.0, "float64")])
    for c in reversed(_ERFC):
        poly = cx.node("Add", [cx.node("Mul", [poly, t]), cx.scalar(c, "float64")])
    erfc = cx.node("Mul", [t, cx.node("Exp", [cx.node("Add", [cx.node("Neg", [x2]), poly])])])
    tail = cx.node("Mul", [cx.node("Sign", [x]), cx.node("Sub", [cx.scalar(1.0, "float64"), erfc])])
    return cx.cast(cx.node("Where", [cx.node("Less", [ax, cx.scalar(0.5, "float64")]), series, tail]), "float32")


def _function(cx: OpContext, name: str, x: str) -> str:
    one = cx.scalar(1.0, "float32")
    if name == "erf":
        return _erf(cx, x)
    if name == "hardswish":
        clipped = cx.node(
            "Clip",
            [cx.node("Add", [x, cx.scalar(3.0, "float32")]), cx.scalar(0.0, "float32"), cx.scalar(6.0, "float32")],
        )
        return cx.node("Div", [cx.node("Mul", [x, clipped]), cx.scalar(6.0, "float32")])
    if name == "rsqrt":
        return cx.node("Div", [one, cx.node("Sqrt", [x])])
    if name == "sigmoid":
        return cx.node("Div", [one, cx.node("Add", [one, cx.node("Exp", [cx.node("Neg", [x])])])])
    return cx.node({"abs": "Abs", "exp": "Exp", "log": "Log", "sqrt": "Sqrt", "tanh": "Tanh"}[name], [x])


@converter(
    "qnn.abs", "qnn.erf", "qnn.exp", "qnn.hardswish", "qnn.log", "qnn.rsqrt", "qnn.sigmoid", "qnn.sqrt", "qnn.tanh"
)
def unary(cx: OpContext, x: str, s: str, z: str, s_out: str, z_out: str) -> str:
    """Dequantized, the function applied in float32, quantized again."""
    y = _function(cx, cx.name.split(".", 1)[1], _dequantize(cx, x, s, z))
    return _quantize(cx, y, s_out, z_out, cx.dtype(0))


def _fixed_point(cx: OpContext, t: str, ratio: float) -> str:
    """int32 `t` times a constant ratio, as the per-tensor requantize product (UPWARD)."""
    from ...ops.qnn._common import multiplier_shift

    mult, e = multiplier_shift(ratio)
    m, exp = cx.scalar(mult, "int64"), cx.scalar(e, "int64")
    return _power_of_two(cx, t, m, exp, _shift_product(cx, t, m, exp, "UPWARD"))


@converter("qnn.leaky_relu")
def leaky_relu(cx: OpContext, x: str, s_in: str, z_in: str, s_out: str, z_out: str) -> str:
    alpha = float(cx.attrs["alpha"])
    q = requantize_values(cx, x, cx.rank(0), s_in, False, z_in, False, s_out, z_out, "int32")
    prod = _fixed_point(cx, q, alpha)
    zero = _fixed_point(cx, cx.reshape(cx.cast(z_out, "int32"), [1]), 1.0 - alpha)
    below = cx.node("Less", [cx.cast(x, "int32"), _scalar(cx, z_in, "int32")])
    return _saturate(cx, cx.node("Where", [below, cx.node("Add", [prod, zero]), q]), cx.dtype(0))


# ---- sums, products, joins -------------------------------------------------------------


def _operand(cx: OpContext, i: int, x: str, s: str, z: str, s_out: str, z_out: str, axis_attr: str) -> str:
    """Operand i requantized to int32 with the output parameters."""
    rank = cx.rank(i)
    axis = 0 if rank <= 1 else int(cx.attrs[axis_attr]) % rank
    first = 2 + 2 * i
    return requantize_values(
        cx,
        x,
        rank,
        s,
        bool(cx.dims(first)),
        z,
        bool(cx.dims(first + 1)),
        s_out,
        z_out,
        "int32",
        axis,
    )


@converter("qnn.add", "qnn.subtract")
def add(cx: OpContext, lhs: str, rhs: str, s_l: str, z_l: str, s_r: str, z_r: str, s_out: str, z_out: str) -> str:
    a = _operand(cx, 0, lhs, s_l, z_l, s_out, z_out, "lhs_axis")
    b = _operand(cx, 1, rhs, s_r, z_r, s_out, z_out, "rhs_axis")
    z = _scalar(cx, z_out, "int32")
    if cx.name == "qnn.add":
        out = cx.node("Sub", [cx.node("Add", [a, b]), z])
    else:
        out = cx.node("Add", [cx.node("Sub", [a, b]), z])
    return _saturate(cx, out, cx.dtype(0))


def _centered(cx: OpContext, i: int, x: str, z: str, axis_attr: str) -> str:
    """int32(x) - zero point (a scalar, or a vector along the operand's channel axis)."""
    rank = cx.rank(i)
    zero_point = cx.cast(z, "int32")
    if cx.dims(3 + 2 * i):
        dims = [1] * max(rank, 1)
        dims[0 if rank <= 1 else int(cx.attrs[axis_attr]) % rank] = -1
        zero_point = cx.reshape(zero_point, dims)
    return cx.node("Sub", [cx.cast(x, "int32"), zero_point])


@converter("qnn.mul")
def mul(cx: OpContext, lhs: str, rhs: str, s_l: str, z_l: str, s_r: str, z_r: str, s_out: str, z_out: str) -> str:
    if cx.dims(2) or cx.dims(4):
        raise Unsupported("per-channel scales (the exporter takes scalar scales for `qnn.mul`)")
    prod = cx.node("Mul", [_centered(cx, 0, lhs, z_l, "lhs_axis"), _centered(cx, 1, rhs, z_r, "rhs_axis")])
    scale = cx.node("Mul", [_scalar(cx, s_l, "float32"), _scalar(cx, s_r, "float32")])
    rank = len(cx.out_shape)
    return requantize_values(cx, prod, rank, scale, False, cx.scalar(0, "int32"), False, s_out, z_out, cx.dtype(0))


@converter("qnn.concatenate")
def concatenate(
    cx: OpContext, data: tuple[str, ...], scales: tuple[str, ...], zps: tuple[str, ...], s_out: str, z_out: str
) -> str:
    fields = cx.field_types(0)
    parts = []
    for x, s, z, ty in zip(data, scales, zps, fields, strict=False):
        same = cx.node(
            "And",
            [
                cx.node("Equal", [_scalar(cx, s, "float32"), _scalar(cx, s_out, "float32")]),
                cx.node("Equal", [_scalar(cx, z, "int32"), _scalar(cx, z_out, "int32")]),
            ],
        )
        moved = requantize_values(cx, x, cx.rank_of(ty), s, False, z, False, s_out, z_out, str(ty.dtype))
        parts.append(cx.node("Where", [same, x, moved]))
    rank = cx.rank_of(fields[0])
    return cx.node("Concat", parts, axis=norm_axis(int(cx.attrs["axis"]), rank))


# ---- matrix products and convolutions ----------------------------------------------------


def _shifted(cx: OpContext, x: str, z: str, dims: list[int] | None = None) -> str:
    """int64(x) - zero point (laid out by `dims` when a vector)."""
    zero_point = cx.cast(z, "int64")
    if dims is not None:
        zero_point = cx.reshape(zero_point, dims)
    return cx.node("Sub", [cx.cast(x, "int64"), zero_point])


@converter("qnn.dense")
def dense(cx: OpContext, data: str, weight: str, z_in: str, z_w: str, s_in: str, s_w: str) -> str:
    x = _shifted(cx, data, cx.reshape(z_in, []))
    w = _shifted(cx, weight, z_w, [-1, 1] if cx.dims(3) else [])
    return cx.cast(matrix_product(cx, x, cx.node("Transpose", [w], perm=[1, 0]), "int64"), cx.attrs["out_dtype"])


@converter("qnn.batch_matmul")
def batch_matmul(cx: OpContext, x: str, y: str, zx: str, zy: str, sx: str, sy: str) -> str:
    a, b = _shifted(cx, x, cx.reshape(zx, [])), _shifted(cx, y, cx.reshape(zy, []))
    if cx.attrs["transpose_a"]:
        a = cx.node("Transpose", [a], perm=[0, 2, 1])
    if cx.attrs["transpose_b"]:
        b = cx.node("Transpose", [b], perm=[0, 2, 1])
    return cx.cast(matrix_product(cx, a, b, "int64"), cx.attrs["out_dtype"])


@converter("qnn.conv2d")
def conv2d(cx: OpContext, data: str, weight: str, z_in: str, z_w: str, s_in: str, s_w: str) -> str:
    """The shifted operands convolved exactly in int64 (the padding 0 after
    the shift, as the input zero point before it), wrapped to out_dtype."""
    a = cx.attrs
    dl, kl = a["data_layout"], a["kernel_layout"]
    x = _shifted(cx, to_layout(cx, data, dl, "NCHW"), cx.reshape(z_in, []))
    w = _shifted(cx, to_layout(cx, weight, kl, "OIHW"), z_w, [-1, 1, 1, 1] if cx.dims(3) else [])
    xshape = tuple(cx.shape(0)[i] for i in layout_perm(dl, "NCHW"))
    wshape = tuple(cx.shape(1)[i] for i in layout_perm(kl, "OIHW"))
    groups = int(a["groups"])
    if groups > 1 and groups == xshape[1] and groups == wshape[0]:  # TVM's depthwise weight (C, multiplier, KH, KW)
        wshape = (wshape[0] * wshape[1], 1, wshape[2], wshape[3])
        w = cx.reshape(w, list(wshape))
    y = conv_by_matmul(
        cx,
        x,
        w,
        xshape,
        wshape,
        spatial(a["strides"], 2),
        spatial_pads(a["padding"], 2),
        spatial(a["dilation"], 2),
        groups,
        "int64",
    )
    return to_layout(cx, cx.cast(y, a["out_dtype"]), "NCHW", a["out_layout"] or dl)


@converter("qnn.conv2d_transpose")
def conv2d_transpose(cx: OpContext, data: str, weight: str, z_in: str, z_w: str, s_in: str, s_w: str) -> str:
    """Both operands shifted by their zero points in int16 (wrapping), as
    TVM legalizes it, then the transposed convolution exactly in int64: one
    matrix product, each window tap's products spread on the strided grid."""
    a = cx.attrs
    dl, kl = a["data_layout"], a["kernel_layout"]
    x = _shift16(cx, to_layout(cx, data, dl, "NCHW"), z_in, cx.shape(2))
    w = _shift16(cx, to_layout(cx, weight, kl, "IOHW"), z_w, cx.shape(3))
    n, c, h, wd = (cx.shape(0)[i] for i in layout_perm(dl, "NCHW"))
    _, opg, kh, kw = (cx.shape(1)[i] for i in layout_perm(kl, "IOHW"))
    groups = int(a["groups"])
    ipg = c // groups
    (sh, sw), (dh, dw) = spatial(a["strides"], 2), spatial(a["dilation"], 2)
    pt, pl, pb, pr = _pads4(a["padding"])
    oph, opw = spatial(a["output_padding"], 2)
    full_h = (h - 1) * sh + dh * (kh - 1) + 1 + oph
    full_w = (wd - 1) * sw + dw * (kw - 1) + 1 + opw
    wg = cx.node("Transpose", [cx.reshape(w, [groups, ipg, opg * kh * kw])], perm=[0, 2, 1])
    cols = matrix_product(cx, wg, cx.reshape(x, [n, groups, ipg, h * wd]), "int64")
    cols = cx.reshape(cols, [n, groups * opg, kh, kw, h, wd])
    grid_h, grid_w = (h - 1) * sh + 1, (wd - 1) * sw + 1
    total: str | None = None
    for i in range(kh):
        for j in range(kw):
            tap = cx.reshape(
                cx.node("Slice", [cols, cx.ints([i, j]), cx.ints([i + 1, j + 1]), cx.ints([2, 3])]),
                [n, groups * opg, h, wd],
            )
            spread = _spread(cx, tap, (n, groups * opg, h, wd), (sh, sw))
            top, left = i * dh, j * dw
            placed = cx.node(
                "Pad",
                [spread, cx.ints([0, 0, top, left, 0, 0, full_h - top - grid_h, full_w - left - grid_w])],
                mode="constant",
            )
            total = placed if total is None else cx.node("Add", [total, placed])
    assert total is not None  # a window of at least one tap
    out = cx.node("Slice", [total, cx.ints([pt, pl]), cx.ints([full_h - pb, full_w - pr]), cx.ints([2, 3])])
    return to_layout(cx, cx.cast(out, a["out_dtype"]), "NCHW", a["out_layout"] or dl)


def _pads4(pad: Sequence[int]) -> tuple[int, int, int, int]:
    from ...ops.nn.conv import pads_2d

    return pads_2d(tuple(int(p) for p in pad))


def _shift16(cx: OpContext, x: str, z: str, z_shape: tuple[int, ...]) -> str:
    """x - z in int16 (wrapping), then int64; a vector zero point of several values runs along axis 1."""
    zero_point = cx.cast(cx.cast(z, "int32"), "int16")
    if z_shape and math.prod(z_shape) > 1:
        zero_point = cx.reshape(zero_point, [1, -1, 1, 1])
    elif z_shape:
        zero_point = cx.reshape(zero_point, [])
    difference = cx.node("Sub", [cx.cast(cx.cast(x, "int32"), "int32"), cx.cast(zero_point, "int32")])
    return cx.cast(cx.cast(difference, "int16"), "int64")  # wraps as int16


def _spread(cx: OpContext, x: str, shape: tuple[int, ...], strides: tuple[int, int]) -> str:
    """x (N, C, H, W) with stride - 1 zeros between neighbours along H and W."""
    dims = list(shape)
    for k, s in enumerate(strides):
        axis = 2 + k
        size = dims[axis]
        if s == 1 or size == 0:
            continue
        y = cx.unsqueeze(x, [axis + 1])
        pads = [0] * 10
        pads[5 + axis + 1] = s - 1
        y = cx.node("Pad", [y, cx.ints(pads)], mode="constant")
        merged = [*dims[:axis], size * s, *dims[axis + 1 :]]
        x = cx.node("Slice", [cx.reshape(y, merged), cx.ints([0]), cx.ints([(size - 1) * s + 1]), cx.ints([axis])])
        dims[axis] = (size - 1) * s + 1
    return x


@converter("qnn.contrib_dense_pack")
def contrib_dense_pack(cx: OpContext, data: str, weight: str, z_in: str, z_w: str, s_in: str, s_w: str) -> str:
    """The weight unpacked, both operands shifted in their own dtypes
    (wrapping), the products summed in int32 (through int64)."""
    no, ko, ni, ki = cx.shape(1)
    k = cx.shape(0)[1]
    w = cx.node(
        "Slice",
        [
            cx.reshape(cx.node("Transpose", [weight], perm=[0, 2, 1, 3]), [no * ni, ko * ki]),
            cx.ints([0]),
            cx.ints([k]),
            cx.ints([1]),
        ],
    )
    x = cx.cast(
        cx.cast(cx.node("Sub", [cx.cast(data, "int64"), cx.cast(cx.reshape(z_in, []), "int64")]), cx.dtype(0)), "int64"
    )
    w = cx.cast(
        cx.cast(cx.node("Sub", [cx.cast(w, "int64"), cx.cast(cx.reshape(z_w, []), "int64")]), cx.dtype(1)), "int64"
    )
    acc = cx.cast(matrix_product(cx, x, cx.node("Transpose", [w], perm=[1, 0]), "int64"), "int32")
    return cx.cast(acc, cx.attrs["out_dtype"])


@converter("qnn.avg_pool2d")
def avg_pool2d(cx: OpContext, data: str, s_in: str, z_in: str, s_out: str, z_out: str) -> str:
    """Requantized to int32, window sums of int32 (padding 0), divided
    (truncating) by the kernel's element counts, saturated."""
    from ...ops.qnn.pool import _counts, layout_axes
    from .windows import taps

    a = cx.attrs
    shape = cx.shape(0)
    axes = layout_axes(a["layout"])
    assert axes is not None  # (the checker read the layout)
    hx, wx = axes.index("H"), axes.index("W")
    q = requantize_values(cx, data, len(shape), s_in, False, z_in, False, s_out, z_out, "int32")
    rest = [i for i in range(len(shape)) if i not in (hx, wx)]
    moved = cx.node("Transpose", [q], perm=[*rest, hx, wx])
    lead = [shape[i] for i in rest]
    h, w = shape[hx], shape[wx]
    x = cx.reshape(moved, [1, -1, h, w])
    (kh, kw), (sh, sw), (dh, dw) = spatial(a["pool_size"], 2), spatial(a["strides"], 2), spatial(a["dilation"], 2)
    pt, pl, pb, pr = _pads4(a["padding"])
    eh, ew = (sh - 1, sw - 1) if a["ceil_mode"] else (0, 0)
    oh = (h - (kh - 1) * dh - 1 + pt + pb + eh) // sh + 1
    ow = (w - (kw - 1) * dw - 1 + pl + pr + ew) // sw + 1
    xp = cx.node("Pad", [x, cx.ints([0, 0, pt, pl, 0, 0, pb + eh, pr + ew])], mode="constant")
    window = list(taps(cx, xp, (kh, kw), (oh, ow), (sh, sw), (dh, dw)))
    total = window[0]
    for tap in window[1:]:
        total = cx.node("Add", [total, tap])
    include = bool(a["count_include_pad"])
    num = (
        _counts(h, oh, kh, sh, dh, pt, pb, include)[:, None] * _counts(w, ow, kw, sw, dw, pl, pr, include)[None, :]
    ).astype(np.int32)
    if not include:
        num = np.maximum(num, 1)
    elif (num == 0).any():
        raise Unsupported("a window holds no element (an integer division by zero)")
    d = cx.const(num)
    mean = cx.node("Div", [total, d])  # int32 division truncates, as the kernel's
    out = cx.reshape(_saturate(cx, mean, cx.dtype(0)), [*lead, oh, ow])
    back = [0] * len(shape)
    for k, i in enumerate([*rest, hx, wx]):
        back[i] = k
    return cx.node("Transpose", [out], perm=back)


@converter("qnn.softmax")
def softmax(cx: OpContext, x: str, s: str, z: str, s_out: str, z_out: str) -> str:
    """TVM's integer-only softmax, step by step in int32 arithmetic (each
    step computed in int64 and wrapped back to int32, shifts arithmetic,
    divisions truncating), then requantized from scale 1/128."""
    from .quantized import _floor_shift

    rank = cx.rank(0)
    axis = norm_axis(int(cx.attrs["axis"]), max(rank, 1))
    if not rank:
        x = cx.reshape(x, [1])

    def i32(v: str) -> str:  # an int64 value wrapped to int32, back in int64
        return cx.cast(cx.cast(v, "int32"), "int64")

    def shift(v: str, k: int) -> str:
        return _floor_shift(cx, v, cx.scalar(k, "int64"))

    inverse = cx.node("Div", [cx.scalar(1.0, "float32"), _scalar(cx, s, "float32")])
    x0 = cx.cast(
        cx.node(
            "Clip",
            [
                _round_half_away(cx, inverse, np.float32),
                cx.scalar(-(2.0**31), "float32"),
                cx.scalar(2.0**31 - 1, "float32"),
            ],
        ),
        "int64",
    )
    data = i32(cx.node("Sub", [cx.cast(x, "int64"), cx.cast(_scalar(cx, z, "int32"), "int64")]))
    d = cx.node("Sub", [data, cx.reduce("ReduceMax", data, [axis], True)])
    xp = i32(cx.node("Sub", [cx.node("Add", [d, shift(d, 1)]), shift(d, 4)]))
    k = cx.node("Clip", [cx.node("Div", [xp, cx.node("Neg", [x0])]), cx.scalar(0, "int64"), cx.scalar(20, "int64")])
    r = i32(cx.node("Add", [xp, cx.node("Mul", [k, x0])]))
    xb = i32(cx.node("Add", [shift(r, 1), x0]))
    from .quantized import _pow2

    e = i32(cx.node("Mul", [xb, _pow2(cx, cx.node("Sub", [cx.reduce("ReduceMax", k, [axis], True), k]))]))
    sums = i32(cx.reduce("ReduceSum", e, [axis], True))
    out = shift(i32(cx.node("Mul", [cx.node("Div", [cx.scalar(1 << 30, "int64"), sums]), e])), 23)
    result = requantize_values(
        cx,
        cx.cast(out, "int32"),
        max(rank, 1),
        cx.scalar(1.0 / 128, "float32"),
        False,
        cx.scalar(0, "int32"),
        False,
        s_out,
        z_out,
        "int8",
        0,
    )
    return result if rank else cx.reshape(result, [])
