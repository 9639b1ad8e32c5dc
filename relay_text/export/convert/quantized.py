"""Quantization as TVM lowers it, in integer and floating-point ONNX
arithmetic: `qnn.quantize`, `qnn.dequantize`, `qnn.requantize`, the
simulated forms, `fixed_point_multiply` (and per axis).

ONNX's QuantizeLinear rounds halves to even and its requantization has no
fixed-point form, so the numpy kernels' steps (`relay_text/ops/qnn/_common.py`)
are spelled out: requantize's `frexp` of the scale ratio by comparing it
with every power of two a double holds, 64-bit products that wrap, and
shifts as products and floor divisions by powers of two.
"""

from __future__ import annotations

from typing import Any

from . import OpContext, Unsupported, converter, norm_axis, np

INT_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "uint8": (0, 2**8 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
}
# 2**k for k = -1074 ... 1023: every power of two a double holds
_POWERS = np.ldexp(1.0, np.arange(-1074, 1024))
# 1 << k in int64 for k = 0 ... 63 (1 << 63 wraps to the least int64)
_SHIFTS = np.array([1 << k for k in range(63)] + [-(2**63)], dtype=np.int64)


# ---- integer helpers -----------------------------------------------------------


def _pow2(cx: OpContext, k: str) -> str:
    """1 << k in int64 for an int64 k in [0, 63]."""
    return cx.node("Gather", [cx.const(_SHIFTS), k], axis=0)


def _floor_shift(cx: OpContext, v: str, k: str) -> str:
    """v >> k, arithmetic (a floor division by 2**k), for int64 v and k in [0, 62]."""
    d = _pow2(cx, k)
    q = cx.node("Div", [v, d])  # toward zero
    negative_rest = cx.node("Less", [cx.node("Mod", [v, d], fmod=1), cx.scalar(0, "int64")])
    return cx.node("Sub", [q, cx.cast(negative_rest, "int64")])


def _int32_shift(cx: OpContext, x: str, k: int) -> str:
    """x << k (k > 0) or, for k < 0, (x + 2**(-k-1)) >> -k, in int32 wrapping arithmetic."""
    if k > 0:
        bits = cx.node("BitShift", [cx.cast(x, "uint32"), cx.scalar(k, "uint32")], direction="LEFT")
        return cx.cast(cx.cast(bits, "int64"), "int32")
    e = -k
    added = cx.cast(cx.node("Add", [cx.cast(x, "int64"), cx.scalar(1 << (e - 1), "int64")]), "int32")  # wraps as int32
    return cx.cast(
        cx.node("Floor", [cx.node("Div", [cx.cast(added, "float64"), cx.scalar(2.0**e, "float64")])]), "int32"
    )


def _round_half_away(cx: OpContext, v: str, dtype: Any) -> str:
    """The kernels' rounding: trunc(v), plus sign(v) where the rest is at least a half."""
    whole = cx.node("Mul", [cx.node("Sign", [v]), cx.node("Floor", [cx.node("Abs", [v])])])
    far = cx.node("GreaterOrEqual", [cx.node("Abs", [cx.node("Sub", [v, whole])]), cx.scalar(0.5, dtype)])
    return cx.node("Add", [whole, cx.node("Where", [far, cx.node("Sign", [v]), cx.scalar(0, dtype)])])


def _select_clip(cx: OpContext, v: str, lo: str, hi: str) -> str:
    """TVM's clip as two selects (NaN lands on the upper bound)."""
    v = cx.node("Where", [cx.node("Less", [v, hi]), v, hi])
    return cx.node("Where", [cx.node("Greater", [v, lo]), v, lo])


def _saturate(cx: OpContext, v: str, dtype: str) -> str:
    """int32 values clipped to `dtype` and converted."""
    if dtype == "int32":
        return v
    lo, hi = INT_RANGES[dtype]
    return cx.cast(cx.node("Clip", [v, cx.scalar(lo, "int32"), cx.scalar(hi, "int32")]), dtype)


def _along(cx: OpContext, v: str, i: int, rank: int, axis: int) -> str:
    """Input i (a scalar, or a vector of one value per channel) laid along `axis`."""
    shape = cx.dims(i)
    if not shape or rank == 0:
        return cx.reshape(v, []) if shape else v
    dims = [1] * rank
    dims[axis] = -1
    return cx.reshape(v, dims)


# ---- fixed_point_multiply ----------------------------------------------------------


@converter("fixed_point_multiply")
def fixed_point_multiply(cx: OpContext, x: str) -> str:
    m, s = int(cx.attrs["multiplier"]), int(cx.attrs["shift"])
    if m == 1 << 30:  # a power of two, in int32
        if s > 1:
            return _int32_shift(cx, x, s - 1) if s - 1 < 32 else cx.node("Mul", [x, cx.scalar(0, "int32")])
        e = 1 - s
        if e == 0:
            return cx.node("Identity", [x])
        if e >= 32:
            return cx.node("Mul", [x, cx.scalar(0, "int32")])
        return _int32_shift(cx, x, -e)
    v = cx.cast(x, "int64")
    if s > 0:
        v = cx.node("Mul", [v, cx.scalar(int(_SHIFTS[s]) if s < 64 else 0, "int64")])
    v = cx.node("Mul", [v, cx.scalar(m, "int64")])
    t = 31 + max(-s, 0)
    if t >= 64:
        return cx.node("Mul", [x, cx.scalar(0, "int32")])
    v = cx.node("Add", [v, cx.scalar(int(_SHIFTS[t - 1]), "int64")])
    return cx.cast(_floor_shift(cx, v, cx.scalar(t, "int64")), "int32")


@converter("fixed_point_multiply_per_axis")
def fixed_point_multiply_per_axis(cx: OpContext, x: str, m: str, ls: str, rs: str) -> str:
    axes = [int(a) for a in cx.attrs["axes"]]
    rank = cx.rank(0)
    order = sorted(range(len(axes)), key=lambda k: axes[k])
    view = [1] * rank
    shape = cx.shape(0)
    for a in axes:
        view[a] = shape[a]

    def laid(p: str) -> str:
        return cx.reshape(cx.node("Transpose", [cx.cast(p, "int64")], perm=order), view)

    m, ls, rs = laid(m), laid(ls), laid(rs)
    v = cx.cast(x, "int64")
    if cx.attrs["is_lshift_required"]:
        v = cx.node("Mul", [v, _pow2(cx, ls)])
    total = cx.node("Add", [rs, cx.scalar(31, "int64")])
    v = cx.node("Add", [cx.node("Mul", [v, m]), _pow2(cx, cx.node("Sub", [total, cx.scalar(1, "int64")]))])
    return cx.cast(_floor_shift(cx, v, total), "int32")


# ---- quantize, dequantize ------------------------------------------------------------


@converter("qnn.quantize")
def quantize(cx: OpContext, x: str, scale: str, zero_point: str) -> str:
    rank = cx.rank(0)
    axis = norm_axis(int(cx.attrs["axis"]), max(rank, 1))
    out = cx.attrs["out_dtype"]
    s = _first_if_scalar(cx, _along(cx, scale, 1, rank, axis), rank)
    z = cx.cast(_first_if_scalar(cx, _along(cx, zero_point, 2, rank, axis), rank), "float32")
    v = cx.node("Add", [_round_half_away(cx, cx.node("Div", [x, s]), np.float32), z])
    lo, hi = INT_RANGES[out]
    v = _select_clip(cx, cx.cast(v, "float64"), cx.scalar(float(lo), "float64"), cx.scalar(float(hi), "float64"))
    return cx.cast(v, out)


def _first_if_scalar(cx: OpContext, v: str, rank: int) -> str:
    """A rank-0 tensor uses the parameter's first value (the kernel's reading)."""
    if rank:
        return v
    return cx.reshape(cx.node("Slice", [cx.reshape(v, [-1]), cx.ints([0]), cx.ints([1])]), [])


@converter("qnn.dequantize")
def dequantize(cx: OpContext, q: str, scale: str, zero_point: str) -> str:
    rank = cx.rank(0)
    axis = norm_axis(int(cx.attrs["axis"]), max(rank, 1))
    one = [all(d == 1 for d in cx.dims(i)) for i in (1, 2)]
    if all(one):
        s, z = cx.reshape(scale, []), cx.reshape(zero_point, [])
    else:
        s = _first_if_scalar(cx, _along(cx, scale, 1, rank, axis), rank)
        z = _first_if_scalar(cx, _along(cx, zero_point, 2, rank, axis), rank)
    v = cx.node("Mul", [cx.cast(cx.node("Sub", [cx.cast(q, "int32"), cx.cast(z, "int32")]), "float32"), s])
    out = cx.attrs["out_dtype"]
    if out != "float32":
        big = float(np.finfo(out).max)
        v = cx.cast(_select_clip(cx, v, cx.scalar(-big, "float32"), cx.scalar(big, "float32")), out)
    return v


# ---- requantize -------------------------------------------------------------------------


def _frexp(cx: OpContext, m: str) -> tuple[str, str]:
    """(M, e), int64, with m ~= M * 2**(e - 31): the kernel's `multiplier_shift`
    (frexp, then the fraction rounded to 31 bits, halves away from zero)."""
    size = cx.node("Abs", [m])
    count = cx.reduce(
        "ReduceSum",
        cx.cast(cx.node("GreaterOrEqual", [cx.unsqueeze(size, [-1]), cx.const(_POWERS)]), "int64"),
        [-1],
        False,
    )
    e = cx.node("Sub", [count, cx.scalar(1074, "int64")])  # |m| in [2**(e-1), 2**e)
    index = cx.node(
        "Clip",
        [cx.node("Add", [e, cx.scalar(1074, "int64")]), cx.scalar(0, "int64"), cx.scalar(len(_POWERS) - 1, "int64")],
    )
    power = cx.node("Gather", [cx.const(_POWERS), index], axis=0)  # 2**e
    f = cx.node("Div", [m, power])  # 0.5 <= |f| < 1, exact
    scaled = cx.node("Mul", [f, cx.scalar(2.0**31, "float64")])
    half = cx.scalar(0.5, "float64")
    up = cx.node("Floor", [cx.node("Add", [scaled, half])])
    down = cx.node("Neg", [cx.node("Floor", [cx.node("Add", [cx.node("Neg", [scaled]), half])])])
    q = cx.cast(cx.node("Where", [cx.node("GreaterOrEqual", [scaled, cx.scalar(0.0, "float64")]), up, down]), "int64")
    full = cx.node("Equal", [q, cx.scalar(2**31, "int64")])
    q = cx.node("Where", [full, cx.scalar(2**30, "int64"), q])
    e = cx.node("Add", [e, cx.cast(full, "int64")])
    zero = cx.node("Equal", [m, cx.scalar(0.0, "float64")])
    return cx.node("Where", [zero, cx.scalar(0, "int64"), q]), cx.node("Where", [zero, cx.scalar(0, "int64"), e])


def _shift_product(cx: OpContext, t: str, mult: str, e: str, rounding: str) -> str:
    """((x << max(e, 0)) * M + r) >> (31 + max(-e, 0)) in int64, cast to int32."""
    zero = cx.scalar(0, "int64")
    lshift = cx.node("Max", [e, zero])
    total = cx.node("Add", [cx.node("Max", [cx.node("Neg", [e]), zero]), cx.scalar(31, "int64")])
    v = cx.node(
        "Mul",
        [cx.node("Mul", [cx.cast(t, "int64"), _pow2(cx, cx.node("Min", [lshift, cx.scalar(63, "int64")]))]), mult],
    )
    big = cx.node("GreaterOrEqual", [total, cx.scalar(63, "int64")])
    safe = cx.node("Where", [big, cx.scalar(62, "int64"), total])
    half = _pow2(cx, cx.node("Sub", [safe, cx.scalar(1, "int64")]))
    if rounding == "TONEAREST":
        half = cx.node(
            "Where", [cx.node("GreaterOrEqual", [v, zero]), half, cx.node("Sub", [half, cx.scalar(1, "int64")])]
        )
    v = _floor_shift(cx, cx.node("Add", [v, half]), safe)
    return cx.cast(cx.node("Where", [big, zero, v]), "int32")


@converter("qnn.requantize")
def requantize(cx: OpContext, x: str, s_in: str, z_in: str, s_out: str, z_out: str) -> str:
    a = cx.attrs
    return requantize_values(
        cx, x, cx.rank(0), s_in, bool(cx.dims(1)), z_in, bool(cx.dims(2)), s_out, z_out,
        a["out_dtype"], int(a["axis"]), a["rounding"], a["compute_dtype"],
    )  # fmt: skip


def _lay(cx: OpContext, v: str, vector: bool, rank: int, axis: int) -> str:
    """A parameter: a scalar as it is, a vector laid along `axis` of a tensor of `rank` (at least 1)."""
    if not vector:
        return cx.reshape(v, [])
    dims = [1] * rank
    dims[axis] = -1
    return cx.reshape(v, dims)


def requantize_values(
    cx: OpContext, x: str, rank: int, s_in: str, s_vector: bool, z_in: str, z_vector: bool, s_out: str, z_out: str,
    out: str, axis: int = -1, rounding: str = "None", compute: str = "None",
) -> str:  # fmt: skip
    """The kernels' `requantize` of integer `x` (of `rank`) from (s_in, z_in),
    scalars or vectors along `axis`, to the scalars (s_out, z_out), as `out`."""
    rounding = "UPWARD" if rounding == "None" else rounding
    compute = "int64" if compute == "None" else compute
    wide = max(rank, 1)
    ax = norm_axis(axis, wide) if rank else 0
    x1 = x if rank else cx.reshape(x, [1])
    zin = _lay(cx, cx.cast(z_in, "int32"), z_vector, wide, ax)
    out_scale = cx.reshape(s_out, [])
    m = cx.node("Div", [cx.cast(_lay(cx, s_in, s_vector, wide, ax), "float64"), cx.cast(out_scale, "float64")])
    # equal scales skip the product (the kernel compares their bits: equal
    # float32 scales differ in bits only as 0 and -0, which no requantize takes)
    same = None if s_vector else cx.node("Equal", [cx.reshape(s_in, []), out_scale])
    if compute == "int64":
        t = cx.node("Sub", [cx.cast(x1, "int32"), zin])
        mult, e = _frexp(cx, m)
        product = _shift_product(cx, t, mult, e, rounding)
        if not s_vector and rounding == "UPWARD":
            product = _power_of_two(cx, t, mult, e, product)
        if same is not None:
            product = cx.node("Where", [same, t, product])
        v = cx.node("Add", [product, cx.cast(cx.reshape(z_out, []), "int32")])
    elif compute in ("float32", "float64"):
        t = cx.node("Sub", [cx.cast(x1, compute), cx.cast(zin, compute)])
        scaled = cx.node("Mul", [cx.cast(m, compute), t])
        if same is not None:
            scaled = cx.node("Where", [same, t, scaled])
        v = cx.node("Add", [scaled, cx.cast(cx.reshape(z_out, []), compute)])
        if rounding == "UPWARD":
            v = cx.node("Floor", [cx.node("Add", [v, cx.scalar(0.5, np.dtype(compute))])])
        else:
            v = _round_half_away(cx, v, np.dtype(compute))
        v = cx.cast(v, "int32")
    else:
        raise Unsupported(f"compute_dtype {compute!r}")
    if not rank:
        v = cx.reshape(v, [])
    return _saturate(cx, v, out)


def _power_of_two(cx: OpContext, t: str, mult: str, e: str, product: str) -> str:
    """TVM's shortcut for a ratio that is a power of two (M = 2**30): shifts
    of int32 values by k = e - 1, wrapping; 0 past the width."""
    k = cx.node("Sub", [e, cx.scalar(1, "int64")])
    t64 = cx.cast(t, "int64")
    left = cx.cast(
        cx.node("Mul", [t64, _pow2(cx, cx.node("Clip", [k, cx.scalar(0, "int64"), cx.scalar(31, "int64")]))]), "int32"
    )
    r = cx.node("Clip", [cx.node("Neg", [k]), cx.scalar(1, "int64"), cx.scalar(31, "int64")])
    added = cx.cast(
        cx.cast(cx.node("Add", [t64, _pow2(cx, cx.node("Sub", [r, cx.scalar(1, "int64")]))]), "int32"), "int64"
    )  # wraps as int32
    right = cx.cast(_floor_shift(cx, added, r), "int32")
    zero = cx.node("Mul", [t, cx.scalar(0, "int32")])
    out = cx.node(
        "Where",
        [
            cx.node("Greater", [k, cx.scalar(0, "int64")]),
            left,
            cx.node("Where", [cx.node("Equal", [k, cx.scalar(0, "int64")]), t, right]),
        ],
    )
    wide = cx.node(
        "Or",
        [cx.node("GreaterOrEqual", [k, cx.scalar(32, "int64")]), cx.node("LessOrEqual", [k, cx.scalar(-32, "int64")])],
    )
    out = cx.node("Where", [wide, zero, out])
    return cx.node("Where", [cx.node("Equal", [mult, cx.scalar(2**30, "int64")]), out, product])


# ---- simulated quantization -----------------------------------------------------------

SIM_CODES = {1: "int8", 2: "uint8", 3: "int32"}


def _sim_params(cx: OpContext, scale: str, zp: str) -> tuple[str, str]:
    """Scale and zero point read as flat vectors, entry i mod length along the axis."""
    rank = cx.rank(0)
    axis = norm_axis(int(cx.attrs["axis"]), rank)
    n = cx.shape(0)[axis]
    view = [1] * rank
    view[axis] = n
    dtype = cx.dtype(0)
    out = []
    for v, i in ((scale, 2), (zp, 3)):
        size = int(np.prod(cx.shape(i))) if cx.dims(i) else 1
        picked = cx.node("Gather", [cx.reshape(v, [-1]), cx.const(np.arange(n) % size, "int64")], axis=0)
        out.append(cx.reshape(cx.cast(picked, dtype), view))
    return out[0], out[1]


def _code(cx: OpContext, code: str) -> str:
    return cx.reshape(cx.cast(code, "int64"), [])


@converter("qnn.simulated_quantize")
def simulated_quantize(cx: OpContext, x: str, code: str, scale: str, zp: str) -> str:
    dtype = np.dtype(cx.dtype(0))
    s, z = _sim_params(cx, scale, zp)
    v = cx.node("Add", [_round_half_away(cx, cx.node("Div", [x, s]), dtype), z])
    c = _code(cx, code)
    out = x
    for number, name in SIM_CODES.items():
        lo, hi = INT_RANGES[name]
        clipped = _select_clip(cx, v, cx.scalar(lo, dtype), cx.scalar(hi, dtype))
        out = cx.node("Where", [cx.node("Equal", [c, cx.scalar(number, "int64")]), clipped, out])
    return out


@converter("qnn.simulated_dequantize")
def simulated_dequantize(cx: OpContext, x: str, code: str, scale: str, zp: str) -> str:
    s, z = _sim_params(cx, scale, zp)
    v = cx.node("Mul", [cx.node("Sub", [x, z]), s])
    c = _code(cx, code)
    known = cx.node(
        "And",
        [cx.node("GreaterOrEqual", [c, cx.scalar(1, "int64")]), cx.node("LessOrEqual", [c, cx.scalar(3, "int64")])],
    )
    return cx.node("Where", [known, v, x])


@converter("relay.op.annotation.simulated_quantize")
def annotation_simulated_quantize(cx: OpContext, x: str, scale: str, lo: str, hi: str) -> str:
    a = cx.attrs
    if not a["sign"] or a["rounding"] != "round":
        raise Unsupported('TVM computes it only with sign=True and rounding="round"')
    if int(a["kind"]) == 0:
        return cx.node("Identity", [x])
    dtype = cx.dtype(0)
    s, low, high = (cx.cast(cx.reshape(v, []), dtype) for v in (scale, lo, hi))
    v = _select_clip(cx, cx.node("Div", [x, s]), low, high)
    return cx.node("Mul", [_round_half_away(cx, v, np.dtype(dtype)), s])
