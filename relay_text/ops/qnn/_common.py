"""What the quantized (QNN) operators share: TVM's integer arithmetic for
changing scales, and the checks on scale and zero-point inputs.

Quantized values
----------------
A quantized tensor `q` with scale `s` and zero point `z` stands for the real
values `s * (q - z)`. Scales are float32 and zero points int32, given as
extra tensor inputs: a scalar for the whole tensor, or (where an operator
allows it) a vector with one value per channel along an `axis`.

Requantize (TVM's lowering, src/relay/qnn/op/requantize.cc and utils.cc)
-----------------------------------------------------------------------
Moving `q` from (s_in, z_in) to (s_out, z_out) is `z_out + s_in / s_out *
(q - z_in)`, rounded and saturated to the output dtype. With the default
`compute_dtype` ("int64") the ratio `m = s_in / s_out`, taken in double
precision from the float32 scales, becomes a fixed-point number: `frexp`
gives `m = f * 2**e` with 0.5 <= |f| < 1, and `f` is rounded (halves away
from zero) to a 31-bit fraction `M = round(f * 2**31)` (when that reaches
2**31 it is halved and `e` grows by one). The product is then formed in
64-bit integers: `((x << max(e, 0)) * M + rounding) >> (31 + max(-e, 0))`,
and cast back to int32 (wrapping). `rounding` is half a unit of the last
place for "UPWARD" (halves round toward +infinity), and that minus one for
negative products under "TONEAREST" (halves round away from zero). A
per-tensor "UPWARD" product whose `M` is exactly 2**30 (the ratio is a power
of two) is a plain shift in 32-bit integers instead: left by `e - 1`, or
right by `1 - e` after adding half of the divisor. Equal per-tensor scales
skip the product. The zero points are subtracted and added in int32
(wrapping), and the result is clipped to the output dtype unless that is
int32. With `compute_dtype` "float32" or "float64" the same steps run in
floating point: `(q - z_in) * m + z_out`, rounded as `floor(v + 0.5)`
("UPWARD") or to nearest with halves away from zero ("TONEAREST"), then cast
to int32 and clipped. The rounding and compute_dtype "None" select TVM's
defaults without a target: "UPWARD" and "int64".

Quantize and dequantize
-----------------------
Quantize: `round(x / s) + z` in float32 (halves away from zero), clipped to
the output dtype's range, then cast. Clipping follows TVM's `clip`, two
selects on ordered comparisons: NaN lands on the upper bound. Dequantize:
`(int32(q) - z)` (wrapping) as float32, times `s`.
"""

from __future__ import annotations

import math
from typing import Any

from ..relation import RelationFn

from ...diagnostics import codes
from ...ir.ty import TensorType
from .._np import np
from ..registry import KernelError
from ..relations import RankedTensor, Relation, has_rank, is_unknown, known_rank, shape_text, static

# ---------------------------------------------------------------- dtypes

INT_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "uint8": (0, 2**8 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
}
# The dtypes a QNN lowering can clip to (at most 32 bits, integer).
QUANTIZED = tuple(INT_RANGES)


def qrange(dtype: str) -> tuple[int, int]:
    return INT_RANGES[dtype]


def names(dtypes: tuple[str, ...]) -> str:
    """`int8`, `uint8` or `int16`."""
    quoted = [f"`{d}`" for d in dtypes]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def select_clip(x: Any, lo: Any, hi: Any) -> Any:
    """max(min(x, hi), lo) with TVM's selects: `x < hi ? x : hi`, then `v > lo ? v : lo`."""
    v = np.where(x < hi, x, hi)
    return np.where(v > lo, v, lo)


def saturate(x: Any, dtype: str) -> Any:
    """Integers clipped to the range of `dtype` and converted (TVM's clip then cast)."""
    lo, hi = qrange(dtype)
    return np.asarray(np.clip(x, lo, hi), dtype=dtype)


def trunc_div(a: Any, b: Any) -> Any:
    """Integer division rounding toward zero (C's, and TVM's for integers), b != 0."""
    a, b = np.asarray(a), np.asarray(b)
    q = np.floor_divide(a, b)
    fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return (q + fix.astype(q.dtype)).astype(np.result_type(a, b))


def float_to_int(v: Any, dtype: str) -> Any:
    """Float values, already in range, converted to an integer dtype (truncating)."""
    with np.errstate(invalid="ignore"):
        return np.trunc(v).astype(dtype)


# ---------------------------------------------------------------- fixed-point products


def _round_half_away(v: float) -> int:
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


def multiplier_shift(m: float) -> tuple[int, int]:
    """(M, e) with m ~= M * 2**(e - 31), M a 31-bit fraction (see the module docstring)."""
    if m == 0.0:
        return 0, 0
    if not math.isfinite(m):
        raise KernelError(codes.RUNTIME_ERROR, f"the scale ratio {m} has no fixed-point form")
    f, e = math.frexp(m)
    q = _round_half_away(f * 2.0**31)
    if q == 2**31:
        q //= 2
        e += 1
    return q, e


def _shift_product(x64: Any, mult: Any, lshift: Any, rshift: Any, rounding: str) -> Any:
    """((x << lshift) * mult + r) >> (31 + rshift) in int64, cast to int32 (see the docstring).

    `mult`, `lshift`, `rshift` broadcast against x (scalars or per-channel)."""
    total = np.asarray(31 + rshift, dtype=np.int64)
    v = np.left_shift(x64, np.asarray(lshift, dtype=np.int64))
    v = v * np.asarray(mult, dtype=np.int64)
    big = total >= 63  # |v| < 2**62: the result is 0 (TVM's shift would be out of range)
    safe = np.where(big, 62, total)
    half = np.left_shift(np.int64(1), safe - 1)
    if rounding == "TONEAREST":
        half = np.where(v >= 0, half, half - 1)
    v = np.right_shift(v + half, safe)
    v = np.where(big, 0, v)
    return v.astype(np.int32)


def fixed_point_multiply(x32: Any, m: float, rounding: str = "UPWARD") -> Any:
    """int32 `x` times the ratio `m`, rounded, as TVM's per-tensor requantize lowers it."""
    mult, e = multiplier_shift(m)
    if rounding == "UPWARD" and mult == 1 << 30:
        # TVM's shortcut for a power of two: shifts in 32 bits (wrapping)
        k = e - 1
        if k >= 32 or k <= -32:
            return np.zeros_like(x32)  # a shift past the width: TVM's result is undefined
        if k > 0:
            return np.left_shift(x32, np.int32(k))
        if k == 0:
            return x32.copy()  # TVM would shift by -1; a ratio of 1 never gets here from equal scales
        return np.right_shift(x32 + np.int32(1 << (-k - 1)), np.int32(-k))
    return _shift_product(x32.astype(np.int64), mult, max(e, 0), max(-e, 0), rounding)


def fixed_point_multiply_per_axis(x32: Any, ms: list[float], axis: int, rounding: str = "UPWARD") -> Any:
    """int32 `x` times one ratio per channel along `axis` (no power-of-two shortcut)."""
    pairs = [multiplier_shift(m) for m in ms]
    shape = along(x32.ndim, axis, len(ms))
    mult = np.array([p[0] for p in pairs], dtype=np.int64).reshape(shape)
    exps = np.array([p[1] for p in pairs], dtype=np.int64).reshape(shape)
    return _shift_product(x32.astype(np.int64), mult, np.maximum(exps, 0), np.maximum(-exps, 0), rounding)


def along(ndim: int, axis: int, size: int) -> tuple[int, ...]:
    """The shape that puts a vector of `size` on `axis` of an `ndim`-D tensor."""
    if ndim == 0:
        return (size,)
    shape = [1] * ndim
    shape[axis] = size
    return tuple(shape)


def per_channel(v: Any, ndim: int, axis: int) -> Any:
    """A scalar stays as it is; a vector is laid along `axis` for broadcasting."""
    v = np.asarray(v)
    if v.ndim == 0:
        return v
    return v.reshape(-1).reshape(along(ndim, axis, v.size))


def norm_axis(axis: int, ndim: int) -> int:
    return axis + ndim if axis < 0 else axis


# ---------------------------------------------------------------- requantize, quantize, dequantize

ROUNDINGS = ("None", "UPWARD", "TONEAREST")
COMPUTE_DTYPES = ("None", "int64", "float32", "float64")


def _same_bits(a: Any, b: Any) -> bool:
    bits: bytes = np.asarray(a, dtype=np.float32).tobytes()
    other: bytes = np.asarray(b, dtype=np.float32).tobytes()
    return bits == other


def requantize(
    x: Any,
    s_in: Any,
    z_in: Any,
    s_out: Any,
    z_out: Any,
    out_dtype: str,
    axis: int = -1,
    rounding: str = "None",
    compute_dtype: str = "None",
) -> Any:
    """`x` (any integer dtype) from (s_in, z_in) to (s_out, z_out), as `out_dtype`.

    `s_in` and `z_in` are scalars or vectors along `axis`; s_out and z_out scalars."""
    rounding = "UPWARD" if rounding == "None" else rounding
    compute_dtype = "int64" if compute_dtype == "None" else compute_dtype
    s_in, z_in = np.asarray(s_in, dtype=np.float32), np.asarray(z_in, dtype=np.int32)
    out_scale = float(np.asarray(s_out, dtype=np.float32))
    if out_scale == 0.0:
        raise KernelError(codes.RUNTIME_ERROR, "requantize: the output scale is 0")
    ndim = x.ndim
    ax = norm_axis(axis, ndim) if ndim else 0
    flat = x.ndim == 0
    if flat:
        x = x.reshape(1)
    zin = per_channel(z_in, x.ndim, ax if not flat else 0)
    if compute_dtype == "int64":
        t = x.astype(np.int32) - zin
        if s_in.ndim == 0:
            if not _same_bits(s_in, s_out):
                t = fixed_point_multiply(t, float(s_in) / out_scale, rounding)
        else:
            ms = [float(s) / out_scale for s in s_in.reshape(-1)]
            t = fixed_point_multiply_per_axis(t, ms, ax if not flat else 0, rounding)
        t = t + np.int32(np.asarray(z_out, dtype=np.int32))
    else:
        ft = np.dtype(compute_dtype)
        t = x.astype(ft) - zin.astype(ft)
        if s_in.ndim == 0:
            if not _same_bits(s_in, s_out):
                t = ft.type(float(s_in) / out_scale) * t
        else:
            ms = np.array([float(s) / out_scale for s in s_in.reshape(-1)], dtype=ft)
            t = t * per_channel(ms, x.ndim, ax if not flat else 0)
        t = t + ft.type(int(np.asarray(z_out)))
        with np.errstate(invalid="ignore", over="ignore"):
            t = np.floor(t + ft.type(0.5)) if rounding == "UPWARD" else round_half_away(t)
            t = t.astype(np.int32)
    if flat:
        t = t.reshape(())
    if out_dtype == "int32":
        return np.asarray(t, dtype=np.int32)
    return saturate(t, out_dtype)


def round_half_away(x: Any) -> Any:
    """Round to nearest, halves away from zero (C's round, which TVM's `round` lowers to)."""
    whole = np.trunc(x)
    return whole + np.where(np.abs(x - whole) >= 0.5, np.sign(x), 0).astype(x.dtype)


def quantize(x: Any, scale: Any, zero_point: Any, axis: int, out_dtype: str) -> Any:
    """float32 `x` to `out_dtype`: round(x / scale) + zero_point, clipped."""
    if x.ndim == 0:
        return quantize(
            x.reshape(1), np.asarray(scale).reshape(-1)[:1], np.asarray(zero_point).reshape(-1)[:1], 0, out_dtype
        ).reshape(())
    ax = norm_axis(axis, x.ndim)
    s = per_channel(np.asarray(scale, dtype=np.float32), x.ndim, ax)
    z = per_channel(np.asarray(zero_point, dtype=np.int32), x.ndim, ax).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        v = round_half_away(np.asarray(x / s, dtype=np.float32)) + z
        lo, hi = qrange(out_dtype)
        v = select_clip(v.astype(np.float64), float(lo), float(hi))
    return np.asarray(float_to_int(v, out_dtype), dtype=out_dtype)


def dequantize(q: Any, scale: Any, zero_point: Any, axis: int, out_dtype: str = "float32") -> Any:
    """(int32(q) - zero_point) * scale, as float32 (then clipped into float16 if asked)."""
    if q.ndim == 0:
        return dequantize(
            q.reshape(1), np.asarray(scale).reshape(-1)[:1], np.asarray(zero_point).reshape(-1)[:1], 0, out_dtype
        ).reshape(())
    ax = norm_axis(axis, q.ndim)
    s = per_channel(np.asarray(scale, dtype=np.float32), q.ndim, ax)
    z = per_channel(np.asarray(zero_point, dtype=np.int32), q.ndim, ax)
    with np.errstate(over="ignore", invalid="ignore"):
        v = np.asarray((q.astype(np.int32) - z).astype(np.float32) * s, dtype=np.float32)
        if out_dtype != "float32":
            big = float(np.finfo(out_dtype).max)
            v = select_clip(v, np.float32(-big), np.float32(big)).astype(out_dtype)
    return np.asarray(v, dtype=out_dtype)


# ---------------------------------------------------------------- relations: scale and zero-point inputs

ROLE_DTYPE = {"scale": "float32", "zero point": "int32"}


def known_tensor(r: Relation, i: int) -> RankedTensor | None:
    """Input i as a tensor once its rank and dtype are known; None before."""
    if is_unknown(r.arg(i)):
        return None
    t = r.tensor(i)
    if not has_rank(t) or not isinstance(t.dtype, str):
        return None
    return t


def require_dtype(r: Relation, i: int, t: TensorType, allowed: tuple[str, ...], what: str) -> None:
    """Input i (`what`, e.g. "data") must have one of the `allowed` dtypes."""
    if t.dtype not in allowed:
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` takes {what} of type {names(allowed)}, found `{t.dtype}`",
            arg=i,
            label=f"this is `{t.dtype}`",
        )


def _param_dtype(r: Relation, i: int, t: TensorType, what: str) -> None:
    dtype = ROLE_DTYPE["zero point" if "zero point" in what else "scale"]
    if t.dtype != dtype:
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` takes the {what} as `{dtype}`, found `{t.dtype}`",
            arg=i,
            label=f"this is `{t.dtype}`",
            notes=["scales are `float32` and zero points `int32`, e.g. `0.5f` and `0`"],
        )


def scalar_param(r: Relation, i: int, what: str) -> bool:
    """Input i is a scalar scale (float32) or zero point (int32); False while unknown.

    `what` names it, e.g. "output scale", "input zero point"."""
    t = known_tensor(r, i)
    if t is None:
        return False
    _param_dtype(r, i, t, what)
    if t.shape != ():
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` takes the {what} as a scalar, found a tensor of shape {shape_text(t.shape)}",
            arg=i,
        )
    return True


def channel_param(r: Relation, i: int, what: str, size: Any, channels: str) -> bool:
    """Input i is a scalar, or a vector of `size` values (one per channel: `channels`
    says which, e.g. "axis 1 of the data"); False while unknown. TVM's AssignType."""
    t = known_tensor(r, i)
    if t is None:
        return False
    _param_dtype(r, i, t, what)
    if t.shape == ():
        return True
    if len(t.shape) != 1:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` takes the {what} as a scalar or a vector, found a tensor of shape {shape_text(t.shape)}",
            arg=i,
        )
    n = t.shape[0]
    if static(n) is not None and static(size) is not None and n != size:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}`: the {what} has {n} values, but {channels} has {size}",
            arg=i,
            notes=["per-channel parameters give one value per channel; a scalar serves every channel"],
        )
    r.refine(i, TensorType((size,), t.dtype))
    return True


def check_axis(r: Relation, name: str, axis: int, rank: int, arg: int = 0) -> int:
    """`axis` (an attribute called `name`) normalised against `rank` (a scalar counts as rank 1)."""
    n = max(rank, 1)
    if not -n <= axis < n:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}`: {name} {axis} is out of range for data of rank {rank}",
            arg=arg,
            notes=[f"valid values are {-n} to {n - 1}"],
        )
    return axis % n


def params_default(spec: dict[int, str]) -> RelationFn:
    """A relation default: inputs of `spec` (index -> dtype) that are constants
    without metadata become scalars of that dtype (per-tensor parameters,
    always a valid reading)."""

    def default(r: Relation) -> bool:
        done = False
        for i, dtype in spec.items():
            t = r.arg(i)
            shapeless = is_unknown(t) or (isinstance(t, TensorType) and not known_rank(t.shape))
            if shapeless and r.from_metadata(i):
                r.refine(i, TensorType((), dtype))
                done = True
        return done

    return default
