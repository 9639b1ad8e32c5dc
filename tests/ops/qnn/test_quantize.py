"""qnn.quantize, qnn.dequantize, qnn.requantize, qnn.simulated_quantize,
qnn.simulated_dequantize and relay.op.annotation.simulated_quantize:
result types, rejected calls, and kernels against TVM's own expected values
(tests/python/relay/test_op_qnn_*.py) and against independent references
written here in plain Python integer and fraction arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from relay_text.ops import KernelError
from tests.ops.family import Family, T, same

FAMILY = Family(
    "qnn.quantize",
    "qnn.dequantize",
    "qnn.requantize",
    "qnn.simulated_quantize",
    "qnn.simulated_dequantize",
    "relay.op.annotation.simulated_quantize",
)

f32, i32 = np.float32, np.int32
RANGES = {
    "int8": (-128, 127),
    "uint8": (0, 255),
    "int16": (-32768, 32767),
    "uint16": (0, 65535),
    "int32": (-(2**31), 2**31 - 1),
}


# ---------------------------------------------------------------- independent references


def half_away(q: Fraction) -> int:
    """Round to nearest, halves away from zero."""
    n = math.floor(abs(q) + Fraction(1, 2))
    return n if q >= 0 else -n


def fixed_point(m: float) -> tuple[int, int]:
    """(M, e): m ~ M * 2**(e - 31), 2**30 <= |M| <= 2**31, found by search (not frexp)."""
    if m == 0:
        return 0, 0
    exact = Fraction(m)
    e = 0
    while abs(exact) >= Fraction(2) ** e:
        e += 1
    while abs(exact) < Fraction(2) ** (e - 1):
        e -= 1
    q = half_away(exact * Fraction(2) ** (31 - e))
    if q == 2**31:
        q, e = 2**30, e + 1
    return q, e


def wrap32(v: int) -> int:
    return (v + 2**31) % 2**32 - 2**31


def fixed_point_multiply_ref(t: int, m: float, rounding: str = "UPWARD") -> int:
    """int32 t times m as TVM's per-tensor fixed-point product: round(t * M * 2**(e - 31)),
    halves up (UPWARD) or away from zero, wrapped to int32."""
    big, e = fixed_point(m)
    if rounding == "UPWARD" and big == 2**30:
        # a power of two: TVM shifts in 32 bits (q_multiply_shift, src/target/intrin_rule.cc)
        k = e - 1
        return wrap32(t * 2**k) if k >= 0 else wrap32(t + 2 ** (-k - 1)) >> -k
    exact = Fraction(t * big) * Fraction(2) ** (e - 31)
    return wrap32(math.floor(exact + Fraction(1, 2)) if rounding == "UPWARD" else half_away(exact))


def requantize_ref(
    v: int,
    s_in: float,
    z_in: int,
    s_out: float,
    z_out: int,
    dtype: str,
    rounding: str = "UPWARD",
    compute: str = "int64",
) -> int | None:
    """One element, as TVM's requantize lowering computes it (see relay_text/ops/qnn/_common.py);
    None where TVM's result is undefined (a float beyond int32 converted to int32)."""
    s_in, s_out = float(f32(s_in)), float(f32(s_out))
    if compute == "int64":
        t = wrap32(wrap32(v) - z_in)
        if s_in != s_out:
            t = fixed_point_multiply_ref(t, s_in / s_out, rounding)
        t = wrap32(t + z_out)
    else:
        ft = np.float32 if compute == "float32" else np.float64
        t = ft(v) - ft(z_in)
        if s_in != s_out:
            t = ft(s_in / s_out) * t
        t = t + ft(z_out)
        t = math.floor(t + ft(0.5)) if rounding == "UPWARD" else half_away(Fraction(float(t)))
        if not -(2**31) <= t < 2**31:
            return None  # TVM converts such floats to int32 with undefined results
    if dtype == "int32":
        return t
    lo, hi = RANGES[dtype]
    return min(max(t, lo), hi)


def quantize_ref(x: float, scale: float, zp: int, dtype: str) -> int:
    """round(x / scale) + zp, in float32 as TVM adds them, then saturated."""
    v = float(f32(f32(half_away(Fraction(float(f32(f32(x) / f32(scale)))))) + f32(zp)))
    lo, hi = RANGES[dtype]
    return int(min(max(v, lo), hi))


# ---------------------------------------------------------------- relations: results


RESULTS = [
    # tests/python/relay/test_op_qnn_quantize.py
    ('qnn.quantize(%a, 0.5f, 127, out_dtype="uint8")', [T("(2, 5)")], T("(2, 5)", "uint8")),
    (
        'qnn.quantize(%a, %b, %c, axis=0, out_dtype="uint8")',
        [T("(2, 5)"), T("(2)"), T("(2)", "int32")],
        T("(2, 5)", "uint8"),
    ),
    ('qnn.quantize(%a, 0.2f, 32765, out_dtype="uint16")', [T("(2, 5)")], T("(2, 5)", "uint16")),
    ('qnn.quantize(%a, 0.5f, -1, out_dtype="int8")', [T("()")], T("()", "int8")),
    # test_op_qnn_dequantize.py
    ('qnn.dequantize(%a, 0.5f, 127, out_dtype="float32")', [T("(2, 5)", "uint8")], T("(2, 5)")),
    ('qnn.dequantize(%a, 0.5f, -1, out_dtype="float16")', [T("(2, 5)", "int8")], T("(2, 5)", "float16")),
    (
        'qnn.dequantize(%a, %b, %c, axis=1, out_dtype="float32")',
        [T("(5, 2)", "uint8"), T("(2)"), T("(2)", "int32")],
        T("(5, 2)"),
    ),
    (
        'qnn.dequantize(%a, %b, %c, out_dtype="float32")',
        [T("(3, 4)", "int32"), T("(1)"), T("(1)", "int32")],
        T("(3, 4)"),
    ),
    # test_op_qnn_requantize.py
    ('qnn.requantize(%a, 0.5f, 0, 0.5f, 0, out_dtype="int16")', [T("(200)", "int32")], T("(200)", "int16")),
    (
        'qnn.requantize(%a, %b, 0, 0.5f, 0, axis=1, out_dtype="int8")',
        [T("(2, 2, 5)", "int32"), T("(2)")],
        T("(2, 2, 5)", "int8"),
    ),
    (
        'qnn.requantize(%a, 1f, 0, 16f, 0, rounding="TONEAREST", compute_dtype="float64", out_dtype="uint8")',
        [T("(32)", "uint8")],
        T("(32)", "uint8"),
    ),
    ('qnn.requantize(%a, 0.5f, 0, 0.5f, 0, out_dtype="int8")', [T("()", "int32")], T("()", "int8")),
    # test_op_qnn_simulated_quantize.py, test_op_qnn_simulated_dequantize.py
    ("qnn.simulated_quantize(%a, %b, %c, %d)", [T("(2, 5)"), T("()", "int32"), T("()"), T("()", "int32")], T("(2, 5)")),
    (
        "qnn.simulated_quantize(%a, %b, %c, %d, axis=0)",
        [T("(2, 5)"), T("()", "int32"), T("(?)"), T("(?)", "int32")],
        T("(2, 5)"),
    ),
    (
        'qnn.simulated_dequantize(%a, %b, %c, %d, out_dtype="float32")',
        [T("(2, 5)"), T("()", "int32"), T("()"), T("()", "int32")],
        T("(2, 5)"),
    ),
    # python/tvm/relay/quantize: realize inserts these around conv2d and dense
    (
        "relay.op.annotation.simulated_quantize(%a, %b, -127f, 127f, kind=1)",
        [T("(1, 3, 8, 8)"), T("()")],
        T("(1, 3, 8, 8)"),
    ),
]


@pytest.mark.parametrize("call, types, expected", RESULTS)
def test_result_types(call: str, types: list[str], expected: str) -> None:
    """Shapes and dtypes as TVM's relations give them (src/relay/qnn/op/quantize.cc,
    dequantize.cc, requantize.cc, simulated_*.cc, src/relay/quantize/quantize.cc)."""
    assert FAMILY.result_type(call, types) == expected


def test_per_channel_parameters_take_the_channel_count() -> None:
    """A vector scale or zero point is refined to the length of the axis it runs along
    (AssignType in src/relay/qnn/utils.h)."""
    assert FAMILY.param_type(
        'qnn.requantize(%a, %b, %c, 1f, 0, axis=0, out_dtype="int8")',
        [T("(3, 4)", "int32"), T("(?)"), T("(_)", "int32")],
        2,
    ) == T("(3)", "int32")
    assert FAMILY.param_type(
        "relay.op.annotation.simulated_quantize(%a, %b, %c, %d, kind=2)", [T("(4)"), "_", "_", "_"], 1
    ) == T("()")


def test_parameter_constants_without_metadata_are_scalars() -> None:
    """Scales, zero points and dtype codes given as constants whose metadata is missing
    are read as scalars (float32 scales, int32 zero points and codes)."""
    meta = "meta[relay.Constant][{}]"
    call = (
        f'qnn.requantize(%a, {meta.format(0)}, {meta.format(1)}, {meta.format(2)}, {meta.format(3)}, out_dtype="int8")'
    )
    assert FAMILY.result_type(call, [T("(4)", "int32")]) == T("(4)", "int8")
    call = f"qnn.simulated_quantize(%a, {meta.format(0)}, {meta.format(1)}, {meta.format(2)})"
    assert FAMILY.result_type(call, [T("(2, 3)")]) == T("(2, 3)")


# ---------------------------------------------------------------- relations: rejections


REJECTED = [
    (
        'qnn.quantize(%a, 0.5f, 0, out_dtype="int8")',
        [T("(2, 5)", "float16")],
        "type-mismatch",
        "`qnn.quantize` takes data of type `float32`, found `float16`",
        "%a",
    ),
    (
        'qnn.quantize(%a, 0.5f, 0, out_dtype="int64")',
        [T("(2, 5)")],
        "type-mismatch",
        "`qnn.quantize` produces `int8`, `uint8`, `int16`, `uint16` or `int32`, not `int64`",
        'qnn.quantize(%a, 0.5f, 0, out_dtype="int64")',
    ),
    (
        'qnn.quantize(%a, %b, 0, axis=0, out_dtype="int8")',
        [T("(2, 5)"), T("(3)")],
        "shape-mismatch",
        "`qnn.quantize`: the output scale has 3 values, but axis 0 of the data has 2",
        "%b",
    ),
    (
        'qnn.quantize(%a, %b, 0, axis=2, out_dtype="int8")',
        [T("(2, 5)"), T("(5)")],
        "shape-mismatch",
        "`qnn.quantize`: axis 2 is out of range for data of rank 2",
        "%a",
    ),
    (
        'qnn.dequantize(%a, 0.5f, 0, out_dtype="float32")',
        [T("(4)", "int64")],
        "type-mismatch",
        "`qnn.dequantize` takes data of type `int8`, `uint8`, `int16`, `uint16` or `int32`, found `int64`",
        "%a",
    ),
    (
        'qnn.dequantize(%a, 0.5f, 0.5f, out_dtype="float32")',
        [T("(4)", "int8")],
        "type-mismatch",
        "`qnn.dequantize` takes the input zero point as `int32`, found `float32`",
        "0.5f",
    ),
    (
        "qnn.requantize(%a, 0.5f, 0, 0.25f, 0)",
        [T("(4)", "int32")],
        "type-mismatch",
        "`qnn.requantize` produces `int8`, `uint8`, `int16` or `int32`, given no out_dtype",
        "qnn.requantize(%a, 0.5f, 0, 0.25f, 0)",
    ),
    (
        'qnn.requantize(%a, 0.5f, 0, %b, 0, out_dtype="int8")',
        [T("(4)", "int32"), T("(4)")],
        "shape-mismatch",
        "`qnn.requantize` takes the output scale as a scalar, found a tensor of shape (4)",
        "%b",
    ),
    (
        'qnn.requantize(%a, 0.5f, 0, 0.25f, 0, rounding="TFLITE", out_dtype="int8")',
        [T("(4)", "int32")],
        "type-mismatch",
        '`qnn.requantize` rounding must be one of "None", "UPWARD", "TONEAREST", found "TFLITE"',
        None,
    ),
    (
        "qnn.simulated_quantize(%a, %b, 0.5f, 0)",
        [T("(4)", "int32"), T("()", "int32")],
        "type-mismatch",
        "`qnn.simulated_quantize` takes data of type `float16`, `float32` or `float64`, found `int32`",
        "%a",
    ),
    (
        "relay.op.annotation.simulated_quantize(%a, 0.5f, -127f, 127f, kind=1)",
        [T("()")],
        "shape-mismatch",
        "`relay.op.annotation.simulated_quantize` needs data of rank at least 1, found a scalar",
        "%a",
    ),
    (
        "relay.op.annotation.simulated_quantize(%a, 0.5f, -127, 127f, kind=1)",
        [T("(2)")],
        "type-mismatch",
        "`relay.op.annotation.simulated_quantize` expects `Tensor[(), float32]` here, found `Tensor[(), int32]`",
        "-127",
    ),
]


@pytest.mark.parametrize("call, types, code, message, where", REJECTED)
def test_rejected_calls(call: str, types: list[str], code: str, message: str, where: str | None) -> None:
    """TVM's relations check these with ICHECKs (dtypes, scalar output parameters,
    per-channel lengths, requantize's rounding modes, and annotation's non-empty shape)."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    if where is not None:
        assert d.span.text == where


def test_quantize_needs_out_dtype() -> None:
    """QuantizeAttrs.out_dtype has no default (include/tvm/relay/qnn/attrs.h)."""
    d = FAMILY.only_error("qnn.quantize(%a, 0.5f, 0)", [T("(2)")])
    assert (d.code, d.message) == ("missing-attribute", "`qnn.quantize` needs the attribute `out_dtype`")


# ---------------------------------------------------------------- kernels: quantize and dequantize


def test_quantize_matches_tvm() -> None:
    """Expected values of tests/python/relay/test_op_qnn_quantize.py."""
    data = np.array([-63.5, -63, -62.5, -62, -61.5, 62, 62.5, 63, 63.5, 64], dtype=f32).reshape(2, 5)
    same(
        FAMILY.run("qnn.quantize", data, f32(0.5), i32(127), out_dtype="uint8"),
        np.array([0, 1, 2, 3, 4, 251, 252, 253, 254, 255], "uint8").reshape(2, 5),
    )
    same(
        FAMILY.run("qnn.quantize", data, f32(0.5), i32(-1), out_dtype="int8"),
        np.array([-128, -127, -126, -125, -124, 123, 124, 125, 126, 127], "int8").reshape(2, 5),
    )
    wide = np.array(
        [-6553, -6552.8, -6552.6, -6552.4, -6552.2, 6553.2, 6553.4, 6553.6, 6553.8, 6554], dtype=f32
    ).reshape(2, 5)
    same(
        FAMILY.run("qnn.quantize", wide, f32(0.2), i32(32765), out_dtype="uint16"),
        np.array([0, 1, 2, 3, 4, 65531, 65532, 65533, 65534, 65535], "uint16").reshape(2, 5),
    )
    same(FAMILY.run("qnn.quantize", np.array(-63.5, f32), f32(0.5), i32(-1), out_dtype="int8"), np.array(-128, "int8"))
    per_channel = np.array([-63.5, -63, -62.5, -62, -61.5, 30, 31, 31.5, 31.75, 32], dtype=f32).reshape(2, 5)
    expected = np.array([0, 1, 2, 3, 4, 243, 247, 249, 250, 251], "uint8").reshape(2, 5)
    scales, zps = np.array([0.5, 0.25], f32), np.array([127, 123], i32)
    same(FAMILY.run("qnn.quantize", per_channel, scales, zps, axis=0, out_dtype="uint8"), expected)
    same(FAMILY.run("qnn.quantize", per_channel.T.copy(), scales, zps, axis=-1, out_dtype="uint8"), expected.T.copy())


def test_quantize_against_reference() -> None:
    """round(x / scale) with halves away from zero, plus the zero point, saturated
    (QuantizeLower, src/relay/qnn/op/quantize.cc); NaN clips to the top as TVM's selects do."""
    values = [-3.75, -2.5, -1.5, -0.5, -0.25, 0.0, 0.25, 0.5, 1.5, 2.5, 1e9, -1e9, 37.49, 1.0 / 3]
    x = np.array(values, dtype=f32)
    for dtype in ("int8", "uint8", "int16", "uint16", "int32"):
        for scale, zp in ((0.5, 0), (0.25, 3), (1.0 / 3, -7), (2.0, 100)):
            got = FAMILY.run("qnn.quantize", x, f32(scale), i32(zp), out_dtype=dtype)
            same(got, np.array([quantize_ref(v, scale, zp, dtype) for v in values], dtype))
    same(
        FAMILY.run("qnn.quantize", np.array([np.nan, -np.inf], f32), f32(1), i32(0), out_dtype="int8"),
        np.array([127, -128], "int8"),
    )


def test_dequantize_matches_tvm() -> None:
    """Expected values of tests/python/relay/test_op_qnn_dequantize.py."""
    expected = np.array([-63.5, -63, -62.5, -62, -61.5, 62, 62.5, 63, 63.5, 64], f32).reshape(2, 5)
    u8 = np.array([0, 1, 2, 3, 4, 251, 252, 253, 254, 255], "uint8").reshape(2, 5)
    same(FAMILY.run("qnn.dequantize", u8, f32(0.5), i32(127), out_dtype="float32"), expected)
    s8 = np.array([-128, -127, -126, -125, -124, 123, 124, 125, 126, 127], "int8").reshape(2, 5)
    same(FAMILY.run("qnn.dequantize", s8, f32(0.5), i32(-1), out_dtype="float32"), expected)
    same(FAMILY.run("qnn.dequantize", s8, f32(0.5), i32(-1), out_dtype="float16"), expected.astype("float16"))
    same(
        FAMILY.run("qnn.dequantize", np.array(-128, "int8"), f32(0.5), i32(-1), out_dtype="float32"),
        np.array(-63.5, f32),
    )
    got = FAMILY.run("qnn.dequantize", np.array([113, 29, -1052], i32), f32(0.0057968604), i32(0), out_dtype="float32")
    np.testing.assert_array_equal(got, np.array([0.6550452, 0.16810896, -6.098297], f32))
    per_channel = FAMILY.run(
        "qnn.dequantize",
        u8.T.copy(),
        np.array([0.5, 0.25], f32),
        np.array([127, 123], i32),
        axis=1,
        out_dtype="float32",
    )
    same(per_channel, np.array([[-63.5, 32.0], [-63, 32.25], [-62.5, 32.5], [-62, 32.75], [-61.5, 33.0]], f32))


def test_dequantize_int32_wraps_and_float16_saturates() -> None:
    """int32(q) - zero_point wraps; float16 results are clipped to its range first
    (DequantizeLower, src/relay/qnn/op/dequantize.cc)."""
    got = FAMILY.run("qnn.dequantize", np.array([-(2**31), 2**31 - 1], i32), f32(1), i32(1), out_dtype="float32")
    same(got, np.array([float(2**31 - 1), float(2**31 - 2)], f32))
    big = FAMILY.run("qnn.dequantize", np.array([30000, -30000], "int16"), f32(8), i32(0), out_dtype="float16")
    same(big, np.array([65504, -65504], "float16"))


# ---------------------------------------------------------------- kernels: requantize


def _requantize(x, s_in, z_in, s_out, z_out, **attrs):
    return FAMILY.run(
        "qnn.requantize", x, np.asarray(s_in, f32), np.asarray(z_in, i32), f32(s_out), i32(z_out), **attrs
    )


@pytest.mark.parametrize("compute", ["None", "int64", "float32", "float64"])
@pytest.mark.parametrize("rounding", ["UPWARD", "TONEAREST"])
def test_requantize_matches_tvm(rounding: str, compute: str) -> None:
    """Expected values of tests/python/relay/test_op_qnn_requantize.py (downscale,
    upscale, non power of two, saturation, zero points, per channel)."""
    up = rounding == "UPWARD"
    kw = {"rounding": rounding, "compute_dtype": compute}
    pos, neg = np.arange(0, 32, dtype=i32), np.arange(0, -32, -1, dtype=i32)
    same(_requantize(pos, 1, 0, 16, 0, out_dtype="int8", **kw), np.repeat([0, 1, 2], [8, 16, 8]).astype("int8"))
    same(
        _requantize(neg, 1, 0, 16, 0, out_dtype="int16", **kw),
        np.repeat([0, -1, -2], [9, 16, 7] if up else [8, 16, 8]).astype("int16"),
    )
    same(
        _requantize(pos, 1, 0, 4, 0, out_dtype="int8", **kw),
        np.repeat(np.arange(9), [2, 4, 4, 4, 4, 4, 4, 4, 2]).astype("int8"),
    )
    counts = [3, 4, 4, 4, 4, 4, 4, 4, 1] if up else [2, 4, 4, 4, 4, 4, 4, 4, 2]
    same(_requantize(neg, 1, 0, 4, 0, out_dtype="int8", **kw), np.repeat(np.arange(0, -9, -1), counts).astype("int8"))
    same(
        _requantize(pos.astype("uint8"), 1, 0, 16, 0, out_dtype="uint8", **kw),
        np.repeat([0, 1, 2], [8, 16, 8]).astype("uint8"),
    )
    same(_requantize(neg, 2, 0, 1, 0, out_dtype="int16", **kw), (2 * neg).astype("int16"))
    same(_requantize(3 * neg, 1, 0, 3, 0, out_dtype="int8", **kw), neg.astype("int8"))
    same(_requantize(neg, 3, 0, 1, 0, out_dtype="int8", **kw), (3 * neg).astype("int8"))
    same(
        _requantize(np.arange(120, 136, dtype=i32), 0.5, 0, 0.5, 0, out_dtype="int8", **kw),
        np.minimum(np.arange(120, 136), 127).astype("int8"),
    )
    same(
        _requantize(np.arange(-32760, -32776, -1, dtype=i32), 0.5, 0, 0.5, 0, out_dtype="int16", **kw),
        np.maximum(np.arange(-32760, -32776, -1), -32768).astype("int16"),
    )
    out_zp = np.repeat([-2, -3, -4], [9, 16, 7] if up else [8, 16, 8]) + 1
    same(_requantize(np.arange(-32, -64, -1, dtype=i32), 1, 0, 16, 1, out_dtype="int8", **kw), out_zp.astype("int8"))
    same(
        _requantize(np.arange(-32, -64, -1, dtype=i32), 1, 16, 16, 0, out_dtype="int16", **kw),
        (out_zp - 2).astype("int16"),
    )
    grid = np.arange(-5, 5, dtype=i32).reshape(5, 2)
    same(
        _requantize(grid, [0.5, 0.25], [0, 0], 0.5, 0, axis=1, out_dtype="int8", **kw),
        np.array([-5, -2, -3, -1, -1, 0, 1, 1, 3, 2], "int8").reshape(5, 2),
    )
    cube = np.arange(-20, 20, 2, dtype=i32).reshape(2, 2, 5)
    expected = [-20, -18, -16, -14, -12, -5, -4, -3, -2, -1, 0, 2, 4, 6, 8, 5, 6, 7, 8, 9]
    same(
        _requantize(cube, [0.5, 0.25], [0, 0], 0.5, 0, axis=1, out_dtype="int8", **kw),
        np.array(expected, "int8").reshape(2, 2, 5),
    )
    same(_requantize(np.array(-10, i32), 0.5, 0, 0.5, 0, out_dtype="int16", **kw), np.array(-10, "int16"))


RATIOS = [
    (1.0, 16.0),
    (0.3, 0.7),
    (0.0117647, 0.0235294),
    (5.5, 0.75),
    (1e-3, 3.0),
    (2.0, 1.0),
    (0.125, 1.0),
    (7.0, 1e-4),
    (-0.5, 0.3),
]


@pytest.mark.parametrize("rounding", ["UPWARD", "TONEAREST"])
@pytest.mark.parametrize("compute", ["int64", "float32", "float64"])
def test_requantize_against_reference(rounding: str, compute: str) -> None:
    """Every element against the step-by-step lowering of requantize.cc and utils.cc:
    fixed-point multiplier and shift (int64) or float arithmetic, zero points, rounding, clipping."""
    values = [*list(range(-300, 300, 7)), 2**20 + 3, -(2**20) - 5, 2**31 - 1, -(2**31), 40000, -40000]
    x = np.array(values, dtype=i32)
    for s_in, s_out in RATIOS:
        for z_in, z_out in ((0, 0), (5, -3), (-128, 127)):
            for dtype in ("int8", "uint8", "int16", "int32"):
                if compute != "int64" and dtype == "int32":
                    continue  # float results beyond int32 are undefined in TVM
                got = _requantize(
                    x, s_in, z_in, s_out, z_out, rounding=rounding, compute_dtype=compute, out_dtype=dtype
                )
                expected = [requantize_ref(v, s_in, z_in, s_out, z_out, dtype, rounding, compute) for v in values]
                defined = [k for k, e in enumerate(expected) if e is not None]
                assert len(defined) >= len(values) - 6
                same(got[defined], np.array([expected[k] for k in defined], dtype))


def test_requantize_per_channel_against_reference() -> None:
    """Per-channel scales and zero points along an axis (FixedPointMultiplyPerAxis and
    FixedPointMultiplyPerChannelToNearest in src/relay/qnn/utils.cc)."""
    rng = np.random.default_rng(7)
    x = rng.integers(-2000, 2000, size=(3, 4, 5)).astype("int16")
    scales = [0.3, 1.75, 0.0625, 2.0]
    zps = [0, 4, -9, 100]
    for rounding in ("UPWARD", "TONEAREST"):
        got = _requantize(x, scales, zps, 0.2, -5, axis=1, rounding=rounding, out_dtype="int8")
        expected = np.empty(x.shape, dtype="int8")
        for idx in np.ndindex(*x.shape):
            c = idx[1]
            expected[idx] = requantize_ref(int(x[idx]), scales[c], zps[c], 0.2, -5, "int8", rounding)
        same(got, expected)


def test_requantize_rejects_a_zero_output_scale() -> None:
    """RequantizeLower ICHECKs that the output scale is not 0."""
    with pytest.raises(KernelError) as err:
        _requantize(np.arange(3, dtype=i32), 1, 0, 0, 0, out_dtype="int8")
    assert err.value.code == "runtime-error"


# ---------------------------------------------------------------- kernels: simulated forms

CODES = {"int8": 1, "uint8": 2, "int32": 3}


def test_simulated_quantize_agrees_with_quantize() -> None:
    """Per tensor and per channel, as tests/python/relay/test_op_qnn_simulated_quantize.py
    compares it with qnn.quantize; code 0 passes the data through (tvm/topi/nn/qnn.py)."""
    x = np.array([[-63.6, -1.25, 0.5, 12.5, 70.0], [3.75, -0.5, 1.5, 300.0, -300.0]], f32)
    for dtype, code in CODES.items():
        got = FAMILY.run("qnn.simulated_quantize", x, i32(code), f32(0.5), i32(3))
        same(got, np.array([[quantize_ref(v, 0.5, 3, dtype) for v in row] for row in x.tolist()], f32))
    scales, zps = np.array([0.5, 0.25], f32), np.array([127, 123], i32)
    got = FAMILY.run("qnn.simulated_quantize", x, i32(2), scales, zps, axis=0)
    same(
        got,
        np.array(
            [
                [quantize_ref(v, float(scales[r]), int(zps[r]), "uint8") for v in row]
                for r, row in enumerate(x.tolist())
            ],
            f32,
        ),
    )
    one = FAMILY.run("qnn.simulated_quantize", x, i32(2), np.array([0.5], f32), np.array([127], i32), axis=0)
    same(one, np.array([[quantize_ref(v, 0.5, 127, "uint8") for v in row] for row in x.tolist()], f32))
    same(FAMILY.run("qnn.simulated_quantize", x, i32(0), f32(0.5), i32(3)), x)


def test_simulated_dequantize() -> None:
    """(x - zero_point) * scale for the integer codes, else the data unchanged."""
    x = np.array([[0, 1, 2, 255], [4, 5, 250, 251]], f32)
    for code in (1, 2, 3):
        got = FAMILY.run(
            "qnn.simulated_dequantize",
            x,
            i32(code),
            np.array([0.5, 0.25], f32),
            np.array([127, 123], i32),
            axis=0,
            out_dtype="float32",
        )
        same(got, np.array([[(v - 127) * 0.5 for v in x[0]], [(v - 123) * 0.25 for v in x[1]]], f32))
    same(FAMILY.run("qnn.simulated_dequantize", x, i32(9), f32(0.5), i32(1), out_dtype="float32"), x)
    with pytest.raises(KernelError):
        FAMILY.run("qnn.simulated_dequantize", x, np.array([1, 2], i32), f32(0.5), i32(1), out_dtype="float32")


def test_annotation_simulated_quantize() -> None:
    """clip(data / scale) rounded halves away from zero, times scale; kind 0 is the
    identity; only sign=True, rounding="round" compute (python/tvm/relay/quantize/_annotate.py)."""
    x = np.array([-3.0, -0.26, -0.25, 0.1, 0.25, 0.74, 5.0], f32)
    got = FAMILY.run("relay.op.annotation.simulated_quantize", x, f32(0.5), f32(-4), f32(4), kind=1)
    same(got, np.array([-2.0, -0.5, -0.5, 0.0, 0.5, 0.5, 2.0], f32))
    same(FAMILY.run("relay.op.annotation.simulated_quantize", x, f32(0.5), f32(-4), f32(4), kind=0), x)
    with pytest.raises(KernelError):
        FAMILY.run("relay.op.annotation.simulated_quantize", x, f32(0.5), f32(-4), f32(4), kind=1, sign=False)


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
