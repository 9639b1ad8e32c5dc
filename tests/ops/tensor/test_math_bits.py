"""Integer arithmetic on bits: bitwise operators, shifts, truncating division,
`reinterpret`, and the fixed-point multiplications of quantized models.

Relations follow src/relay/op/tensor/binary.cc, unary.cc and transform.cc;
kernels follow TOPI (include/tvm/topi/broadcast.h) and TVM's lowering
(src/tir/op/op.cc, src/target/intrin_rule.cc) at the pinned commit.
"""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.ops import KernelError
from tests.ops.family import Family, T, same
from tests.reference import torch_reference

BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor"]
SHIFTS = ["left_shift", "right_shift"]
FAMILY = Family(
    *BITWISE,
    "bitwise_not",
    *SHIFTS,
    "trunc_divide",
    "trunc_mod",
    "reinterpret",
    "fixed_point_multiply",
    "fixed_point_multiply_per_axis",
)


def torch():
    torch_reference()
    import torch

    return torch


# ---------------------------------------------------------------- relations


@pytest.mark.parametrize("op", BITWISE + SHIFTS + ["trunc_divide", "trunc_mod"])
def test_binary_operators_broadcast(op: str) -> None:
    """test_op_level4.py::test_binary_int_broadcast_1: (10, 4) and (5, 10, 1) int32
    give (5, 10, 4) int32 (BroadcastRel)."""
    assert FAMILY.result_type(f"{op}(%a, %b)", [T("(10, 4)", "int32"), T("(5, 10, 1)", "int32")]) == T(
        "(5, 10, 4)", "int32"
    )


def test_bitwise_operators_take_bool_and_unsigned() -> None:
    """bool is a 1-bit unsigned integer, which TVM's bitwise lowering accepts."""
    assert FAMILY.result_type("bitwise_xor(%a, %b)", [T("(3)", "bool"), T("()", "bool")]) == T("(3)", "bool")
    assert FAMILY.result_type("bitwise_not(%a)", [T("(10, 4)", "uint8")]) == T("(10, 4)", "uint8")
    assert FAMILY.result_type("trunc_mod(%a, %b)", [T("(2)"), T("(2)")]) == T("(2)")


@pytest.mark.parametrize(
    "op, arg, types",
    [
        ("bitwise_and", "%b", [T("(2)", "int32"), T("(2)", "float32")]),
        ("bitwise_or", "%a", [T("(2)", "float64"), T("(2)", "int32")]),
        ("left_shift", "%a", [T("(2)", "float32"), T("(2)", "float32")]),
    ],
)
def test_bitwise_operators_reject_floats(op: str, arg: str, types: list) -> None:
    """src/tir/op/op.cc (type_check_integer_args): TVM refuses floats when it lowers
    the operator; the checker says so at the float operand."""
    d = FAMILY.only_error(f"{op}(%a, %b)", types)
    dtype = types[0 if arg == "%a" else 1][len("Tensor[(2), ") : -1]
    assert (d.code, d.message, d.span.text) == (
        "type-mismatch",
        f"`{op}` takes integer or bool tensors, found `{dtype}`",
        arg,
    )


def test_other_rejections_point_at_the_operand() -> None:
    d = FAMILY.only_error("bitwise_not(%a)", [T("(2)", "float16")])
    assert (d.code, d.message, d.span.text) == (
        "type-mismatch",
        "`bitwise_not` takes integer or bool tensors, found `float16`",
        "%a",
    )
    d = FAMILY.only_error("right_shift(%a, %b)", [T("(2)", "int32"), T("(3)", "int32")])
    assert (d.code, d.message) == ("shape-mismatch", "cannot broadcast shapes (2) and (3)")
    d = FAMILY.only_error("trunc_divide(%a, %b)", [T("(2)", "bool"), T("(2)", "bool")])
    assert (d.code, d.message, d.span.text) == ("type-mismatch", "`trunc_divide` takes numbers, not bool", "%a")
    d = FAMILY.only_error("trunc_mod(%a, %b)", [T("(2)", "int32"), T("(2)", "int64")])
    assert d.code == "type-mismatch"


def test_reinterpret_types() -> None:
    """test_op_level3.py::test_reinterpret: Tensor[(1000, 4), float32] as int32 is
    Tensor[(1000, 4), int32] (CastRel); the bit widths must agree (op.cc,
    reinterpret: 'Bitcast requires size match')."""
    assert FAMILY.result_type('reinterpret(%a, dtype="int32")', [T("(1000, 4)")]) == T("(1000, 4)", "int32")
    assert FAMILY.result_type('reinterpret(%a, dtype="float16")', [T("(?)", "uint16")]) == T("(?)", "float16")
    d = FAMILY.only_error('reinterpret(%a, dtype="int64")', [T("(2)")])
    assert (d.code, d.message, d.span.text) == (
        "type-mismatch",
        "`reinterpret` keeps the bits of each element: `float32` has 32, `int64` has 64",
        "%a",
    )
    d = FAMILY.only_error('reinterpret(%a, dtype="int8")', [T("(2)", "bool")])
    assert d.message == "`reinterpret` keeps the bits of each element: `bool` has 1, `int8` has 8"


def test_fixed_point_types() -> None:
    """test_op_level3.py::test_fixed_point_multiply: (10, 4) int32 stays (10, 4)
    int32 (IdentityRel); the lowering (intrin_rule.cc) makes int32, so only int32
    data is accepted, and the attributes are int32 fields."""
    assert FAMILY.result_type(
        "fixed_point_multiply(%a, multiplier=1073741824, shift=-3)", [T("(10, 4)", "int32")]
    ) == T("(10, 4)", "int32")
    d = FAMILY.only_error("fixed_point_multiply(%a, multiplier=1073741824, shift=-3)", [T("(10, 4)", "int8")])
    assert (d.code, d.message, d.span.text) == (
        "type-mismatch",
        "`fixed_point_multiply` takes data of dtype int32, found `int8`",
        "%a",
    )
    d = FAMILY.only_error("fixed_point_multiply(%a, multiplier=2147483648, shift=0)", [T("(2)", "int32")])
    assert (d.code, d.message) == (
        "type-mismatch",
        "`fixed_point_multiply` multiplier must fit in int32, found 2147483648",
    )


def test_fixed_point_per_axis_types() -> None:
    """FixedPointMultiplyPerAxisRel (transform.cc): the result is the data's type;
    the multipliers and shifts are indexed by the data's positions along `axes`."""
    types = [T("(1, 4, 2, 3)", "int32"), T("(4)", "int32"), T("(4)", "int32"), T("(4)", "int32")]
    call = "fixed_point_multiply_per_axis(%a, %b, %c, %d, axes=[1])"
    assert FAMILY.result_type(call, types) == T("(1, 4, 2, 3)", "int32")
    call2 = "fixed_point_multiply_per_axis(%a, %b, %c, %d, is_lshift_required=True, axes=[3, 1])"
    assert FAMILY.result_type(call2, [types[0]] + [T("(3, 4)", "int32")] * 3) == T("(1, 4, 2, 3)", "int32")
    d = FAMILY.only_error(call, [types[0], T("(3)", "int32"), types[2], types[3]])
    assert (d.code, d.message, d.span.text) == (
        "shape-mismatch",
        "`fixed_point_multiply_per_axis` needs multipliers of shape (4), the data's sizes along axes [1], found (3)",
        "%b",
    )
    d = FAMILY.only_error(call, [types[0], types[1], T("(4)", "int64"), types[3]])
    assert (d.code, d.message, d.span.text) == (
        "type-mismatch",
        "`fixed_point_multiply_per_axis` takes left shifts of dtype int32, found `int64`",
        "%c",
    )
    d = FAMILY.only_error(call.replace("[1]", "[4]"), types)
    assert (d.code, d.message) == (
        "shape-mismatch",
        "`fixed_point_multiply_per_axis`: axis 4 is out of range for data of rank 4",
    )


# ---------------------------------------------------------------- kernels: bitwise and shifts


@pytest.mark.parametrize("dtype", ["int32", "int8", "uint8", "int64", "bool"])
def test_bitwise_against_torch(dtype: str) -> None:
    t = torch()
    g = np.random.default_rng(1)
    if dtype == "bool":
        a, b = g.random((3, 4)) < 0.5, g.random((4,)) < 0.5
    else:
        info = np.iinfo(dtype)
        a = g.integers(info.min, info.max, (3, 4), dtype=dtype, endpoint=True)
        b = g.integers(info.min, info.max, (4,), dtype=dtype, endpoint=True)
    for op in BITWISE:
        same(FAMILY.run(op, a, b), getattr(t, op)(t.from_numpy(a), t.from_numpy(b)).numpy())
    same(FAMILY.run("bitwise_not", a), t.bitwise_not(t.from_numpy(a)).numpy())


def test_bitwise_on_uint64_by_hand() -> None:
    a = np.array([2**64 - 1, 0xF0F0_0000_0000_0001], dtype=np.uint64)
    b = np.array(0x8000_0000_0000_00FF, dtype=np.uint64)
    same(FAMILY.run("bitwise_and", a, b), np.array([0x8000_0000_0000_00FF, 0x8000_0000_0000_0001], dtype=np.uint64))
    same(FAMILY.run("bitwise_xor", a, b), np.array([0x7FFF_FFFF_FFFF_FF00, 0x70F0_0000_0000_00FE], dtype=np.uint64))
    same(FAMILY.run("bitwise_not", b), np.array(0x7FFF_FFFF_FFFF_FF00, dtype=np.uint64))


@pytest.mark.parametrize("dtype", ["int32", "int8", "uint8", "int64"])
def test_shifts_against_torch(dtype: str) -> None:
    """Every amount from 0 to the width - 1: left shifts drop high bits, right
    shifts are arithmetic for signed dtypes and logical for unsigned ones."""
    t = torch()
    width = np.dtype(dtype).itemsize * 8
    info = np.iinfo(dtype)
    a = np.array([info.min, -77 if info.min else 77, 1, 0, 123, info.max], dtype=dtype).reshape(6, 1)
    s = np.arange(width, dtype=dtype).reshape(1, width)
    same(FAMILY.run("left_shift", a, s), t.bitwise_left_shift(t.from_numpy(a), t.from_numpy(s)).numpy())
    same(FAMILY.run("right_shift", a, s), t.bitwise_right_shift(t.from_numpy(a), t.from_numpy(s)).numpy())


def test_shift_amounts_outside_the_width_are_errors() -> None:
    """op.cc checks constant amounts: 'Shift amount must be non-negative and less
    than' the width; any other amount is undefined in TVM and an error here."""
    a = np.array([1, 2], dtype=np.int32)
    for op, amount in (("left_shift", 32), ("right_shift", -1)):
        with pytest.raises(KernelError) as e:
            FAMILY.run(op, a, np.array([0, amount], dtype=np.int32))
        assert (e.value.code, e.value.message) == (
            "runtime-error",
            f"`{op}` by {amount}: a shift amount must be at least 0 and less than 32, the width of int32",
        )
    same(FAMILY.run("left_shift", np.array([True, False]), np.array(False)), np.array([True, False]))
    with pytest.raises(KernelError):
        FAMILY.run("right_shift", np.array([True]), np.array([True]))
    same(
        FAMILY.run("right_shift", np.array(2**63, dtype=np.uint64), np.array(63, dtype=np.uint64)),
        np.array(1, dtype=np.uint64),
    )


# ---------------------------------------------------------------- kernels: truncating division


def test_trunc_divide_and_mod_on_integers_against_torch() -> None:
    t = torch()
    a = np.array([[-7], [7], [-8], [2**31 - 1], [-(2**31)]], dtype=np.int32)
    b = np.array([2, -2, 3, -3, 5], dtype=np.int32)
    ta, tb = t.from_numpy(a), t.from_numpy(b)
    same(FAMILY.run("trunc_divide", a, b), t.div(ta, tb, rounding_mode="trunc").numpy())
    same(FAMILY.run("trunc_mod", a, b), t.fmod(ta, tb).numpy())
    with pytest.raises(KernelError) as e:
        FAMILY.run("trunc_mod", a, np.array(0, dtype=np.int32))
    assert e.value.code == "division-by-zero"


def test_trunc_divide_and_mod_on_floats() -> None:
    """broadcast.h: on floats trunc_divide is trunc(a / b) and trunc_mod is
    a - trunc(a / b) * b, in the operands' dtype."""
    t = torch()
    g = np.random.default_rng(2)
    a = (g.standard_normal((4, 5)) * 100).astype(np.float32)
    b = (g.standard_normal((5,)) * 7).astype(np.float32)
    ta, tb = t.from_numpy(a), t.from_numpy(b)
    q = t.trunc(ta / tb)
    same(FAMILY.run("trunc_divide", a, b), q.numpy(), rtol=0, atol=0)
    same(FAMILY.run("trunc_mod", a, b), (ta - q * tb).numpy(), rtol=0, atol=0)
    same(
        FAMILY.run("trunc_mod", np.array([-7.5, 7.5], dtype=np.float64), np.array(2.0)),
        np.array([-1.5, 1.5]),
        dtype="float64",
    )
    out = FAMILY.run("trunc_divide", np.array([1.0, -1.0, 0.0], dtype=np.float32), np.array(0.0, dtype=np.float32))
    assert np.isposinf(out[0]) and np.isneginf(out[1]) and np.isnan(out[2])


# ---------------------------------------------------------------- kernels: reinterpret


def test_reinterpret_against_torch() -> None:
    """test_op_level3.py::test_reinterpret compares with numpy's `view`."""
    t = torch()
    g = np.random.default_rng(3)
    x = (g.standard_normal((20, 4)) * 1000).astype(np.float32)
    same(FAMILY.run("reinterpret", x, dtype="int32"), t.from_numpy(x).view(t.int32).numpy())
    i = g.integers(-(2**62), 2**62, (7,), dtype=np.int64)
    same(FAMILY.run("reinterpret", i, dtype="float64"), t.from_numpy(i).view(t.float64).numpy(), rtol=0, atol=0)
    h = np.array([1.0, -2.0, 65504.0], dtype=np.float16)
    same(FAMILY.run("reinterpret", h, dtype="int16"), t.from_numpy(h).view(t.int16).numpy())
    same(FAMILY.run("reinterpret", np.array(-1, dtype=np.int8), dtype="uint8"), np.array(255, dtype=np.uint8))
    same(
        FAMILY.run("reinterpret", np.array(1.0, dtype=np.float32), dtype="uint32"),
        np.array(0x3F800000, dtype=np.uint32),
    )


# ---------------------------------------------------------------- kernels: fixed point


def _wrap32(v: int) -> int:
    return (v + 2**31) % 2**32 - 2**31


def _q_multiply_shift(x: int, m: int, s: int) -> int:
    """TVM's q_multiply_shift (src/target/intrin_rule.cc) on Python integers."""
    if m == 1 << 30:
        if s > 1:
            return _wrap32(x << (s - 1))
        e = 1 - s
        if e >= 32:  # TVM cannot compile it; the module docstring gives the exact rounding
            return (x + (1 << (e - 1))) >> e
        return x if e == 0 else _wrap32(x + (1 << (e - 1))) >> e
    left, right = max(s, 0), max(-s, 0)
    total = 31 + right
    return _wrap32((((x << left) * m) + (1 << (total - 1))) >> total)


def test_fixed_point_multiply_by_tvms_example() -> None:
    """test_op_level3.py::test_fixed_point_multiply: 23 * 1/16 (multiplier 2**30,
    shift -3) is 1."""
    same(
        FAMILY.run("fixed_point_multiply", np.full((10, 4), 23, dtype=np.int32), multiplier=1073741824, shift=-3),
        np.ones((10, 4), dtype=np.int32),
    )


@pytest.mark.parametrize(
    "multiplier, shift",
    [
        (1431655765, -1),
        (1431655765, 2),
        (1840700269, -5),
        (2**31 - 1, 0),
        (1073741825, 3),
        (-1073741824, -2),
        (1 << 30, 4),
        (1 << 30, 1),
        (1 << 30, -2),
        (1 << 30, -31),
        (1 << 30, 33),
    ],
)
def test_fixed_point_multiply_against_integer_arithmetic(multiplier: int, shift: int) -> None:
    xs = [0, 1, -1, 2, -2, 3, 7, -7, 23, 1000, -1001, 65535, 2**20 + 3, 2**31 - 1, -(2**31), 123456789, -987654321]
    x = np.array(xs, dtype=np.int32).reshape(1, -1)
    expected = np.array(
        [[_q_multiply_shift(v, multiplier, shift) if shift - 1 < 32 else 0 for v in xs]], dtype=np.int32
    )
    same(FAMILY.run("fixed_point_multiply", x, multiplier=multiplier, shift=shift), expected)


def test_fixed_point_multiply_per_axis_by_loops() -> None:
    """topi/math.py fixed_point_multiply_per_axis: element [n, c, h, w] uses the
    multiplier and shifts at [w, c] for axes [3, 1]; the left shift applies only
    when is_lshift_required."""
    g = np.random.default_rng(4)
    x = g.integers(-5000, 5000, (2, 3, 2, 4), dtype=np.int32)
    m = g.integers(2**29, 2**31 - 1, (4, 3), dtype=np.int32)
    ls = g.integers(0, 4, (4, 3), dtype=np.int32)
    rs = g.integers(0, 6, (4, 3), dtype=np.int32)
    for required in (False, True):
        out = FAMILY.run("fixed_point_multiply_per_axis", x, m, ls, rs, is_lshift_required=required, axes=[3, 1])
        expected = np.empty_like(x)
        for n, c, h, w in np.ndindex(*x.shape):
            v = int(x[n, c, h, w]) << (int(ls[w, c]) if required else 0)
            total = 31 + int(rs[w, c])
            expected[n, c, h, w] = _wrap32((v * int(m[w, c]) + (1 << (total - 1))) >> total)
        same(out, expected)
    with pytest.raises(KernelError) as e:
        FAMILY.run("fixed_point_multiply_per_axis", x, m, ls, np.full((4, 3), 40, dtype=np.int32), axes=[3, 1])
    assert (e.value.code, e.value.message) == (
        "runtime-error",
        "`fixed_point_multiply_per_axis`: a right shift must be at least -30 and at most 32, found 40",
    )


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
