"""Unary math: the inverse trigonometric and hyperbolic functions, TOPI's fast
approximations, the NaN/infinity tests, and what unary math does with
integer and bool tensors (which TVM's `Identity` relation accepts).

Types follow src/relay/op/tensor/unary.cc at the pinned commit; values
follow TOPI (include/tvm/topi/elemwise.h, src/tir/op/op.cc).
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

from tests.ops.family import Family, T, same
from tests.reference import torch_reference

TRIG = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh"]
FAST = ["fast_erf", "fast_exp", "fast_tanh"]
CLASSIFY = ["isfinite", "isinf", "isnan"]
# operators of elementwise.py whose integer behaviour this module pins
INTEGER_PARITY = ["exp", "log", "sqrt", "sigmoid", "floor", "round"]

FAMILY = Family(*TRIG, *FAST, *CLASSIFY, *INTEGER_PARITY)


def torch():
    torch_reference()
    import torch

    return torch


# ---------------------------------------------------------------- relations


@pytest.mark.parametrize("op", TRIG + FAST + INTEGER_PARITY)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "bool"])
def test_unary_math_keeps_the_type(op: str, dtype: str) -> None:
    """test_op_level1.py::test_unary_op and test_op_grad_level1.py check
    Tensor[(10, 4), float32/float64] -> the same type; the relation is
    `IdentityRel` (unary.cc, RELAY_REGISTER_UNARY_OP), which takes any dtype."""
    assert FAMILY.result_type(f"{op}(%a)", [T("(10, 4)", dtype)]) == T("(10, 4)", dtype)


@pytest.mark.parametrize("op", CLASSIFY)
@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int16"])
def test_classification_gives_bool(op: str, dtype: str) -> None:
    """test_op_level3.py::_verify_infiniteness_ops: Tensor[(2, 8, 8), dtype] ->
    Tensor[(2, 8, 8), bool] for float32, float16, int32, int16 (IdentityCompRel)."""
    assert FAMILY.result_type(f"{op}(%a)", [T("(2, 8, 8)", dtype)]) == T("(2, 8, 8)", "bool")


@pytest.mark.parametrize("op", TRIG + FAST + CLASSIFY)
def test_a_tuple_is_rejected_at_the_tuple(op: str) -> None:
    d = FAMILY.only_error(f"{op}((%a, %a))", [T("(2)")])
    assert (d.code, d.message, d.span.text) == ("type-mismatch", f"`{op}` expects a tensor, not a tuple", "(%a, %a)")


def test_shape_unknown_until_the_program_runs_passes_through() -> None:
    assert FAMILY.result_type("acosh(%a)", [T("(?, 3)")]) == T("(?, 3)")
    assert FAMILY.result_type("isinf(%a)", [T("(?, 3)", "float16")]) == T("(?, 3)", "bool")


# ---------------------------------------------------------------- kernels: floats


DOMAIN = {
    "acos": (-1, 1),
    "asin": (-1, 1),
    "atanh": (-0.99, 0.99),
    "acosh": (1, 10),
    "atan": (-10, 10),
    "asinh": (-10, 10),
    "cosh": (-10, 10),
    "sinh": (-10, 10),
}


@pytest.mark.parametrize("op", TRIG)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_trig_against_torch(op: str, dtype: str) -> None:
    t = torch()
    lo, hi = DOMAIN[op]
    x = np.linspace(lo, hi, 41).astype(dtype).reshape(1, 41)
    ref = getattr(t, op)(t.from_numpy(x)).numpy()
    same(FAMILY.run(op, x), ref, rtol=1e-6 if dtype == "float32" else 1e-13, atol=0)


def test_trig_outside_the_domain_is_nan_or_infinite() -> None:
    """C's libm, which TVM calls: NaN outside the domain, atanh(+-1) = +-inf."""
    x = np.array([2, -2], dtype=np.float32)
    for op in ("acos", "asin", "atanh"):
        assert np.isnan(FAMILY.run(op, x)).all(), op
    assert np.isnan(FAMILY.run("acosh", np.array([0.5], dtype=np.float32))).all()
    same(FAMILY.run("atanh", np.array([1, -1], dtype=np.float32)), np.array([np.inf, -np.inf], dtype=np.float32))
    same(FAMILY.run("cosh", np.array(1000, dtype=np.float32)), np.array(np.inf, dtype=np.float32))


def test_trig_in_float16() -> None:
    t = torch()
    x = np.array([-0.75, -0.25, 0, 0.5, 0.875], dtype=np.float16)
    for op in ("asin", "atan", "sinh"):
        same(FAMILY.run(op, x), getattr(t, op)(t.from_numpy(x)).numpy(), rtol=1e-3, atol=1e-3)


# ---------------------------------------------------------------- kernels: integers and bool


def test_unary_math_on_integers_goes_through_float64() -> None:
    """TVM types exp(int32) (unary.cc: IdentityRel) but cannot lower it (the LLVM
    rules of src/target/llvm/intrin_rule_llvm.cc emit a float intrinsic on an
    integer); ours computes in float64 and truncates toward zero, NaN to 0,
    saturating at the dtype's range."""
    i32 = np.iinfo(np.int32)
    same(
        FAMILY.run("exp", np.array([0, 1, 2, 30, -1], dtype=np.int32)), np.array([1, 2, 7, i32.max, 0], dtype=np.int32)
    )
    same(FAMILY.run("log", np.array([0, 1, 100, -5], dtype=np.int32)), np.array([i32.min, 0, 4, 0], dtype=np.int32))
    same(FAMILY.run("sqrt", np.array([[17, 0], [-1, 99]], dtype=np.int64)), np.array([[4, 0], [0, 9]], dtype=np.int64))
    same(FAMILY.run("sigmoid", np.array([-3, 0, 3], dtype=np.int8)), np.array([0, 0, 0], dtype=np.int8))
    same(FAMILY.run("cosh", np.array([3], dtype=np.uint8)), np.array([10], dtype=np.uint8))
    same(FAMILY.run("asinh", np.array([-200], dtype=np.int16)), np.array([-5], dtype=np.int16))
    same(FAMILY.run("exp", np.array(100, dtype=np.uint16)), np.array(65535, dtype=np.uint16))
    same(FAMILY.run("acos", np.array([2, 1, -1], dtype=np.int32)), np.array([0, 0, 3], dtype=np.int32))


def test_unary_math_on_bool_is_nonzero() -> None:
    """bool is TVM's 1-bit unsigned integer; a float result converts to bool as
    `!= 0` (NaN and -inf are true)."""
    x = np.array([False, True])
    same(FAMILY.run("exp", x), np.array([True, True]))
    same(FAMILY.run("sqrt", x), x)
    same(FAMILY.run("log", x), np.array([True, False]))
    same(FAMILY.run("atanh", x), np.array([False, True]))
    same(FAMILY.run("acosh", x), np.array([True, False]))


def test_rounding_leaves_integers_unchanged() -> None:
    """src/tir/op/op.cc: floor, ceil, round, trunc return an int or uint (bool
    included) argument as it is."""
    x = np.array([-7, 0, 2**31 - 1], dtype=np.int32)
    out = FAMILY.run("floor", x)
    same(out, x)
    assert out is not x
    same(FAMILY.run("round", np.array([True, False])), np.array([True, False]))
    same(FAMILY.run("floor", np.array(3, dtype=np.uint64)), np.array(3, dtype=np.uint64))


# ---------------------------------------------------------------- kernels: fast approximations


def _f32(v: float) -> float:
    return struct.unpack("f", struct.pack("f", v))[0]


def _fast_exp_one(v: float) -> float:
    """TOPI's fast_exp_float32 (include/tvm/topi/elemwise.h) on one float32, in
    plain Python with np.float32 scalars, written from the formula."""
    f32 = np.float32
    x = f32(v)
    c = min(f32(88.376262664795), x)
    c = max(f32(-88.3762626647949), c)
    n = f32(math.floor(c * f32(1.44269504088896341) + f32(0.5)))
    f = c - n * f32(0.6931471805599453)
    y = f32(1.9875691500e-4)
    for k in (1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1):
        y = y * f + f32(k)
    y = y * f * f + f + f32(1)
    scale = f32(struct.unpack("<f", struct.pack("<i", (int(n) + 127) << 23))[0])
    r = scale * y
    return float(max(x, r))


def test_fast_exp_follows_topis_formula_exactly() -> None:
    xs = np.array(
        [-100, -88.5, -87.3, -10.25, -1, -0.3, 0, 0.3, 1, 2.5, 10.75, 50, 88.3, 88.5, np.nan], dtype=np.float32
    )
    out = FAMILY.run("fast_exp", xs)
    ref = np.array([_fast_exp_one(v) for v in xs], dtype=np.float32)
    np.testing.assert_array_equal(out, ref)
    assert out.dtype == np.float32
    assert out[6] == 1.0 and out[0] == 0.0 and np.isnan(out[-1])


def test_fast_math_against_torch_with_tvms_tolerance() -> None:
    """tests/python/relay/test_op_fast_math.py: fast_exp on [-88, 88), fast_erf and
    fast_tanh on [-10, 10), step 0.01, within rtol = atol = 1e-5 of the exact functions."""
    t = torch()
    for op, exact, lo, hi in (
        ("fast_exp", t.exp, -88, 88),
        ("fast_erf", t.erf, -10, 10),
        ("fast_tanh", t.tanh, -10, 10),
    ):
        x = np.arange(lo, hi, 0.01).astype(np.float32).reshape(1, -1)
        ref = exact(t.from_numpy(x).double()).numpy().astype(np.float32)
        same(FAMILY.run(op, x), ref, rtol=1e-5, atol=1e-5)


def _rational_one(x: float, alpha: tuple, beta: tuple, t: type) -> float:
    """p(x) / q(x) by Horner's rule in the scalar type t, from the coefficients."""
    x = t(x)
    x2 = x * x
    p = t(np.float32(alpha[-1]))
    for a in reversed(alpha[:-1]):
        p = x2 * p + t(np.float32(a))
    q = t(np.float32(beta[-1]))
    for b in reversed(beta[:-1]):
        q = x2 * q + t(np.float32(b))
    return x * p / q


ERF_ALPHA = (
    -1.60960333262415e-02,
    -2.95459980854025e-03,
    -7.34990630326855e-04,
    -5.69250639462346e-05,
    -2.10102402082508e-06,
    2.77068142495902e-08,
    -2.72614225801306e-10,
)
ERF_BETA = (
    -1.42647390514189e-02,
    -7.37332916720468e-03,
    -1.68282697438203e-03,
    -2.13374055278905e-04,
    -1.45660718464996e-05,
)
TANH_ALPHA = (
    4.89352455891786e-03,
    6.37261928875436e-04,
    1.48572235717979e-05,
    5.12229709037114e-08,
    -8.60467152213735e-11,
    2.00018790482477e-13,
    -2.76076847742355e-16,
)
TANH_BETA = (4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04, 1.19825839466702e-06)


def test_fast_erf_and_tanh_follow_eigens_rational_functions() -> None:
    """elemwise.h and src/tir/op/op.cc (fast_erf_float_expr): clamp, then an odd
    over an even polynomial, in float32 (fast_erf also in float16)."""
    xs = [-5.0, -3.999, -1.5, -0.25, 0.0, 0.125, 0.7, 2.0, 3.5, 9.5]
    for dtype, t in (("float32", np.float32), ("float16", np.float16)):
        x = np.array(xs, dtype=dtype)
        ref = np.array([_rational_one(min(max(v, -4.0), 4.0), ERF_ALPHA, ERF_BETA, t) for v in x], dtype=dtype)
        np.testing.assert_array_equal(FAMILY.run("fast_erf", x), ref)
        assert FAMILY.run("fast_erf", x).dtype == dtype
    x = np.array(xs, dtype=np.float32)
    ref = np.array(
        [_rational_one(min(max(v, -9.0), 9.0), TANH_ALPHA, TANH_BETA, np.float32) for v in x], dtype=np.float32
    )
    np.testing.assert_array_equal(FAMILY.run("fast_tanh", x), ref)


def test_fast_math_nan_follows_the_generated_clamps() -> None:
    """min(a, b) compiles to `a < b ? a : b` and max to `a > b ? a : b`
    (codegen_llvm.cc), so fast_erf clamps NaN to 4 while fast_exp and fast_tanh
    keep it."""
    nan = np.array([np.nan], dtype=np.float32)
    assert np.isnan(FAMILY.run("fast_exp", nan)).all()
    assert np.isnan(FAMILY.run("fast_tanh", nan)).all()
    same(FAMILY.run("fast_erf", nan), FAMILY.run("fast_erf", np.array([4.0], dtype=np.float32)))


def test_fast_math_falls_back_to_the_exact_functions() -> None:
    """Other dtypes: TOPI's fast_exp/fast_tanh/fast_erf call exp/tanh/erf."""
    t = torch()
    x = np.array([[-2.5, 0.0, 0.5, 3.0]], dtype=np.float64)
    for op, exact in (("fast_exp", t.exp), ("fast_tanh", t.tanh), ("fast_erf", t.erf)):
        same(FAMILY.run(op, x), exact(t.from_numpy(x)).numpy(), rtol=1e-15, atol=1e-15)
    same(FAMILY.run("fast_exp", np.array(2.0, dtype=np.float64)), np.array(math.exp(2.0)), dtype="float64")
    same(FAMILY.run("fast_exp", np.array([1, 3], dtype=np.int32)), np.array([2, 20], dtype=np.int32))
    same(FAMILY.run("fast_erf", np.array(2, dtype=np.int32)), np.array(0, dtype=np.int32))
    same(FAMILY.run("fast_erf", np.array([False, True])), np.array([False, True]))
    same(
        FAMILY.run("fast_tanh", np.array([0.5], dtype=np.float16)),
        np.array([math.tanh(0.5)], dtype=np.float16),
        rtol=1e-3,
    )


# ---------------------------------------------------------------- kernels: NaN and infinity


def test_classification_against_torch() -> None:
    t = torch()
    for dtype in ("float32", "float16", "float64"):
        x = np.array([[0, 1.5, np.inf], [-np.inf, np.nan, -0.0]], dtype=dtype)
        for op in CLASSIFY:
            same(FAMILY.run(op, x), getattr(t, op)(t.from_numpy(x)).numpy())


def test_classification_of_integers_depends_on_the_dtype_alone() -> None:
    """src/tir/op/op.cc: isnan and isinf of an int or uint are false, so
    isfinite is true."""
    x = np.array([[1, -2], [0, 7]], dtype=np.int16)
    same(FAMILY.run("isnan", x), np.zeros((2, 2), dtype=bool))
    same(FAMILY.run("isinf", x), np.zeros((2, 2), dtype=bool))
    same(FAMILY.run("isfinite", np.array(5, dtype=np.uint8)), np.array(True))
    same(FAMILY.run("isfinite", np.array([True, False])), np.array([True, True]))


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
