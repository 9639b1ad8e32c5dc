"""The quantized elementwise functions (qnn.abs ... qnn.tanh), qnn.leaky_relu
and qnn.softmax: result types, rejected calls, and kernels against
references written here: the function in float64 from Python's math module
between a plain dequantize and quantize, TVM's expected values for
leaky_relu (tests/python/relay/test_op_qnn_leaky_relu.py), and the integer
algorithms of leaky_relu.cc and softmax.cc in Python integers.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from relay_text.ops import KernelError
from tests.ops.family import Family, T, same
from tests.ops.qnn.test_quantize import (
    RANGES,
    fixed_point_multiply_ref,
    requantize_ref,
    wrap32,
)

UNARY = ("abs", "erf", "exp", "hardswish", "log", "rsqrt", "sigmoid", "sqrt", "tanh")
FAMILY = Family(*(f"qnn.{n}" for n in UNARY), "qnn.leaky_relu", "qnn.softmax")

f32, i32 = np.float32, np.int32


# ---------------------------------------------------------------- relations

RESULTS = [
    # tests/python/relay/test_op_qnn_unary_elementwise.py: (1, 4) tensors of int8 and uint8
    *[(f"qnn.{n}(%a, 0.1f, 0, 0.02f, 0)", [T("(1, 4)", "int8")], T("(1, 4)", "int8")) for n in UNARY],
    ("qnn.sigmoid(%a, 0.1f, 128, 0.00390625f, 0)", [T("(2, 3, 4)", "uint8")], T("(2, 3, 4)", "uint8")),
    # test_op_qnn_leaky_relu.py
    ("qnn.leaky_relu(%a, 0.125f, 60, 0.6f, 17, alpha=0.9)", [T("(1, 4)", "uint8")], T("(1, 4)", "uint8")),
    ("qnn.softmax(%a, 0.25f, 0, 0.00390625f, -128, axis=1)", [T("(2, 5)", "int8")], T("(2, 5)", "int8")),
]


@pytest.mark.parametrize("call, types, expected", RESULTS)
def test_result_types(call: str, types: list[str], expected: str) -> None:
    """QnnElementwiseUnaryFuncRel (src/relay/qnn/op/op_common.h), QnnLeakyReluRel and
    QnnSoftmaxRel keep the data's type."""
    assert FAMILY.result_type(call, types) == expected


def test_constants_without_metadata_become_scalar_parameters() -> None:
    """TVM's relation waits for the parameters' types; constants whose metadata is
    missing are taken to be scalars (float32 scales, int32 zero points), without a warning."""
    call = "qnn.exp(%a, meta[relay.Constant][0], meta[relay.Constant][1], 0.5f, 0)"
    assert FAMILY.result_type(call, [T("(3)", "int8")]) == T("(3)", "int8")


REJECTED = [
    (
        "qnn.exp(%a, 0.1f, 0, 0.02f, 0)",
        [T("(4)", "int16")],
        "type-mismatch",
        "`qnn.exp` takes quantized data of type `int8` or `uint8`, found `int16`",
        "%a",
    ),
    (
        "qnn.tanh(%a, %b, 0, 0.02f, 0)",
        [T("(4)", "int8"), T("(4)")],
        "shape-mismatch",
        "`qnn.tanh` takes the input scale as a scalar, found a tensor of shape (4)",
        "%b",
    ),
    (
        "qnn.sqrt(%a, 0.1f, 0, 0.02f, 0f)",
        [T("(4)", "uint8")],
        "type-mismatch",
        "`qnn.sqrt` takes the output zero point as `int32`, found `float32`",
        "0f",
    ),
    (
        "qnn.softmax(%a, 0.1f, 0, 0.02f, 0)",
        [T("(4)", "uint8")],
        "type-mismatch",
        "`qnn.softmax` takes quantized data of type `int8`, found `uint8`",
        "%a",
    ),
    (
        "qnn.softmax(%a, 0.1f, 0, 0.02f, 0, axis=2)",
        [T("(4, 3)", "int8")],
        "shape-mismatch",
        "axis 2 is out of range for a tensor of rank 2",
        "%a",
    ),
    (
        "qnn.leaky_relu(%a, 0.1f, 0, 0.02f, 0, alpha=-0.5)",
        [T("(4)", "int8")],
        "type-mismatch",
        "`qnn.leaky_relu` alpha must be at least 0, found -0.5",
        None,
    ),
]


@pytest.mark.parametrize("call, types, code, message, where", REJECTED)
def test_rejected_calls(call: str, types: list[str], code: str, message: str, where: str | None) -> None:
    """int8/uint8 data (softmax: int8), scalar float32 scales and int32 zero points
    (ICHECKs of the relations), LeakyReluAttrs' lower bound 0 for alpha."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    if where is not None:
        assert d.span.text == where


# ---------------------------------------------------------------- kernels: elementwise functions

MATH = {
    "abs": abs,
    "erf": math.erf,
    "exp": math.exp,
    "hardswish": lambda x: x * min(max(x + 3, 0.0), 6.0) / 6,
    "log": lambda x: math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan),
    "rsqrt": lambda x: 1 / math.sqrt(x) if x > 0 else (math.inf if x == 0 else math.nan),
    "sigmoid": lambda x: 1 / (1 + math.exp(-x)),
    "sqrt": lambda x: math.sqrt(x) if x >= 0 else math.nan,
    "tanh": math.tanh,
}


def _expected(name: str, q: int, scale: float, zp: int, s_out: float, z_out: int, dtype: str) -> tuple[int, bool]:
    """(quantized f(dequantized q), whether it lies within 1e-3 of a rounding boundary)."""
    real = MATH[name](float(f32(scale)) * (q - zp))
    lo, hi = RANGES[dtype]
    if math.isnan(real):
        return hi, False  # TVM's clip selects the upper bound for NaN
    if math.isinf(real):
        return (hi if real > 0 else lo), False
    v = real / float(f32(s_out))
    n = math.floor(abs(v) + 0.5)
    rounded = (n if v >= 0 else -n) + z_out
    edge = abs(abs(v) - math.floor(abs(v)) - 0.5) < 1e-3
    return min(max(rounded, lo), hi), edge


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_unary_against_reference(name: str, dtype: str) -> None:
    """Every value of the dtype: dequantize, the function, quantize to the data's dtype
    (QNN_UNARY_OP_DEFAULT_CANONICALIZATION and the lookup tables of
    python/tvm/relay/qnn/op/legalizations.py agree)."""
    lo, hi = RANGES[dtype]
    x = np.arange(lo, hi + 1).astype(dtype)
    params = [(0.05, 3, 0.02, -7), (0.1, 128 if dtype == "uint8" else 0, 0.0078125, 0), (0.5, -5, 1.5, 10)]
    for scale, zp, s_out, z_out in params:
        got = FAMILY.run(f"qnn.{name}", x, f32(scale), i32(zp), f32(s_out), i32(z_out))
        assert got.dtype == np.dtype(dtype) and got.shape == x.shape
        for q, g in zip(range(lo, hi + 1), got.tolist(), strict=False):
            want, edge = _expected(name, q, scale, zp, s_out, z_out, dtype)
            assert g == want or (edge and abs(g - want) == 1), (name, q, g, want)


def test_unary_keeps_shape_of_scalars_and_tensors() -> None:
    """A scalar stays a scalar; values outside the output range saturate."""
    got = FAMILY.run("qnn.exp", np.array(100, "int8"), f32(0.1), i32(0), f32(0.01), i32(0))
    same(got, np.array(127, "int8"))
    got = FAMILY.run("qnn.abs", np.array([[-128, -1], [0, 127]], "int8"), f32(1), i32(0), f32(1), i32(0))
    same(got, np.array([[127, 1], [0, 127]], "int8"))


# ---------------------------------------------------------------- kernels: leaky_relu


def test_leaky_relu_matches_tvm() -> None:
    """tests/python/relay/test_op_qnn_leaky_relu.py: within 1 of the float golden."""
    x = np.array([[255, 133, 0, 9]], "uint8")
    got = FAMILY.run("qnn.leaky_relu", x, f32(0.125), i32(60), f32(0.6), i32(17), alpha=0.9)
    real = 0.125 * (x.astype(float) - 60)
    golden = np.where(
        x < 60, np.clip(np.around(real * 0.9 / 0.6 + 17), 0, 255), np.clip(np.round(real / 0.6 + 17), 0, 255)
    )
    assert got.dtype == np.uint8 and np.max(np.abs(got.astype(int) - golden)) <= 1


def _leaky_ref(q: int, s_in: float, z_in: int, s_out: float, z_out: int, alpha: float, dtype: str) -> int:
    """leaky_relu.cc: requantize to int32, then where q < z_in: fpm(r, alpha) + fpm(z_out, 1 - alpha)."""
    r = requantize_ref(q, s_in, z_in, s_out, z_out, "int32")
    if q < z_in:
        r = wrap32(fixed_point_multiply_ref(r, alpha) + fixed_point_multiply_ref(z_out, 1 - alpha))
    lo, hi = RANGES[dtype]
    return min(max(r, lo), hi)


@pytest.mark.parametrize("alpha", [0.9, 0.25, 0.5, 0.1, 0.0, 1.5])
def test_leaky_relu_against_reference(alpha: float) -> None:
    """Every uint8 and int8 value (fixed-point products of leaky_relu.cc, UPWARD;
    0.25 and 0.5 take TVM's power-of-two shortcut)."""
    for dtype, z_in, z_out in (("uint8", 60, 17), ("int8", -3, 5)):
        lo, hi = RANGES[dtype]
        x = np.arange(lo, hi + 1).astype(dtype)
        got = FAMILY.run("qnn.leaky_relu", x, f32(0.125), i32(z_in), f32(0.6), i32(z_out), alpha=alpha)
        same(got, np.array([_leaky_ref(q, 0.125, z_in, 0.6, z_out, alpha, dtype) for q in range(lo, hi + 1)], dtype))


# ---------------------------------------------------------------- kernels: softmax


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _softmax_row(row: list[int], scale: float, zp: int, s_out: float, z_out: int) -> list[int]:
    """softmax.cc on one row, in Python integers (int32 wrapping where TVM's can wrap)."""
    x0 = math.floor(1 / float(f32(scale)) + 0.5)
    d = [v - zp for v in row]
    m = max(d)
    xs = [v - m for v in d]
    xp = [x + (x >> 1) - (x >> 4) for x in xs]
    k = [min(max(_tdiv(v, -x0), 0), 20) for v in xp]
    r = [v + kk * x0 for v, kk in zip(xp, k, strict=False)]
    e = [wrap32(((rr >> 1) + x0) << (max(k) - kk)) for rr, kk in zip(r, k, strict=False)]
    total = wrap32(sum(e))
    out = [wrap32(_tdiv(1 << 30, total) * v) >> 23 for v in e]
    return [requantize_ref(v, 1 / 128, 0, s_out, z_out, "int8") for v in out]


def test_softmax_against_reference() -> None:
    """TVM's integer softmax (Algorithm 1 of arXiv 2207.01405 as softmax.cc lowers it)
    along the last axis and along axis 0; its dequantized result approximates softmax."""
    rng = np.random.default_rng(11)
    x = rng.integers(-128, 128, size=(4, 6)).astype("int8")
    scale, zp, s_out, z_out = 0.0625, -3, 1 / 256, -128
    got = FAMILY.run("qnn.softmax", x, f32(scale), i32(zp), f32(s_out), i32(z_out))
    same(got, np.array([_softmax_row([int(v) for v in row], scale, zp, s_out, z_out) for row in x], "int8"))
    got0 = FAMILY.run("qnn.softmax", x, f32(scale), i32(zp), f32(s_out), i32(z_out), axis=0)
    same(got0, np.array([_softmax_row([int(v) for v in col], scale, zp, s_out, z_out) for col in x.T], "int8").T.copy())
    real = scale * (x.astype(float) - zp)
    exact = np.exp(real - real.max(axis=1, keepdims=True))
    exact /= exact.sum(axis=1, keepdims=True)
    assert np.max(np.abs((got.astype(float) - z_out) * s_out - exact)) < 0.05


def test_softmax_needs_a_scale_of_at_most_one() -> None:
    """softmax.cc: ICHECK(input_scale <= 1)."""
    with pytest.raises(KernelError) as err:
        FAMILY.run("qnn.softmax", np.zeros((2, 3), "int8"), f32(2), i32(0), f32(1 / 256), i32(-128))
    assert err.value.code == "runtime-error"


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
