"""qnn.add, qnn.subtract, qnn.mul and qnn.concatenate: result types,
rejected calls, and kernels against TVM's expected values
(tests/python/relay/test_op_qnn_add.py, subtract, mul, concatenate) and
against the per-element reference of requantize in test_qnn_quantize.
"""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.ops import KernelError
from tests.ops.family import Family, T, same
from tests.ops.qnn.test_quantize import RANGES, requantize_ref, wrap32

FAMILY = Family("qnn.add", "qnn.subtract", "qnn.mul", "qnn.concatenate")

f32, i32 = np.float32, np.int32
U8 = "uint8"


def u8(*values: int) -> np.ndarray:
    return np.array(values, U8).reshape(1, len(values))


# ---------------------------------------------------------------- relations

RESULTS = [
    (
        "qnn.add(%a, %b, 0.00784314f, 127, 0.00784314f, 127, 0.00784314f, 127)",
        [T("(1, 4)", U8), T("(1, 4)", U8)],
        T("(1, 4)", U8),
    ),
    (
        "qnn.subtract(%a, %b, 0.5f, 0, 0.25f, 0, 0.125f, 0)",
        [T("(2, 3)", "int8"), T("(3)", "int8")],
        T("(2, 3)", "int8"),
    ),
    (
        "qnn.mul(%a, %b, %c, 0, %d, 0, 0.5f, 0, lhs_axis=1, rhs_axis=1)",
        [T("(2, 3)", "int8"), T("(2, 3)", "int8"), T("(3)"), T("(3)")],
        T("(2, 3)", "int8"),
    ),
    ("qnn.add(%a, %b, 0.5f, 0, 0.5f, 0, 0.5f, 0)", [T("(4, 1)", "int32"), T("(1, 5)", "int32")], T("(4, 5)", "int32")),
    (
        "qnn.concatenate((%a, %b), (0.5f, 0.25f), (0, 1), 0.5f, 0, axis=1)",
        [T("(2, 3)", "int8"), T("(2, 5)", "int8")],
        T("(2, 8)", "int8"),
    ),
    (
        "qnn.concatenate((%a, %b), (1f, 1f), (0, 0), 1f, 1)",
        [T("(1, 64)", "int32"), T("(1, 64)", "int32")],
        T("(2, 64)", "int32"),
    ),
]


@pytest.mark.parametrize("call, types, expected", RESULTS)
def test_result_types(call: str, types: list[str], expected: str) -> None:
    """QnnBroadcastRel (src/relay/qnn/op/op_common.h) broadcasts the operands;
    QnnConcatenateRel (concatenate.cc) uses concatenate's rule."""
    assert FAMILY.result_type(call, types) == expected


def test_per_channel_operand_parameters_take_the_axis_length() -> None:
    """AssignType gives a vector scale the length of the operand's channel axis."""
    call = "qnn.add(%a, %b, %c, 0, 0.5f, 0, 0.5f, 0, lhs_axis=0)"
    assert FAMILY.param_type(call, [T("(3, 4)", "int8"), T("(3, 4)", "int8"), T("(_)")], 2) == T("(3)")


def test_parameter_constants_without_metadata_are_scalars() -> None:
    """Constants lacking metadata among the parameters (tuple fields too) are scalars."""
    call = (
        "qnn.concatenate((%a, %a), (0.5f, meta[relay.Constant][0]), (meta[relay.Constant][1], 0), "
        "meta[relay.Constant][2], 0)"
    )
    assert FAMILY.result_type(call, [T("(2, 3)", "int8")]) == T("(4, 3)", "int8")
    call = "qnn.mul(%a, %a, meta[relay.Constant][0], 0, 0.5f, 0, meta[relay.Constant][1], meta[relay.Constant][2])"
    assert FAMILY.result_type(call, [T("(2, 3)", "int8")]) == T("(2, 3)", "int8")


REJECTED = [
    (
        "qnn.add(%a, %b, 0.5f, 0, 0.5f, 0, 0.5f, 0)",
        [T("(4)", "int8"), T("(4)", U8)],
        "type-mismatch",
        "`qnn.add` needs operands of one dtype, found `int8` and `uint8`",
        "%b",
    ),
    (
        "qnn.mul(%a, %b, 0.5f, 0, 0.5f, 0, 0.5f, 0)",
        [T("(4)"), T("(4)")],
        "type-mismatch",
        "`qnn.mul` takes quantized operands of type `int8`, `uint8`, `int16`, `uint16` or `int32`, found `float32`",
        "%a",
    ),
    (
        "qnn.subtract(%a, %b, 0.5f, 0, 0.5f, 0, %c, 0)",
        [T("(4)", "int8"), T("(4)", "int8"), T("(4)")],
        "shape-mismatch",
        "`qnn.subtract` takes the output scale as a scalar, found a tensor of shape (4)",
        "%c",
    ),
    (
        "qnn.add(%a, %b, %c, 0, 0.5f, 0, 0.5f, 0)",
        [T("(2, 3)", "int8"), T("(2, 3)", "int8"), T("(2)")],
        "shape-mismatch",
        "`qnn.add`: the lhs scale has 2 values, but axis 1 of the lhs has 3",
        "%c",
    ),
    (
        "qnn.add(%a, %b, 0.5f, 0, 0.5f, 0, 0.5f, 0)",
        [T("(2, 3)", "int8"), T("(4)", "int8")],
        "shape-mismatch",
        "cannot broadcast shapes (2, 3) and (4)",
        None,
    ),
    (
        "qnn.concatenate((%a, %b), (0.5f, 0.25f, 1f), (0, 1), 0.5f, 0)",
        [T("(2)", "int8"), T("(2)", "int8")],
        "shape-mismatch",
        "`qnn.concatenate` joins 2 tensors but has 3 input scales",
        "(0.5f, 0.25f, 1f)",
    ),
    (
        "qnn.concatenate((%a, %b), (0.5f, 0.25f), (0, 1f), 0.5f, 0)",
        [T("(2)", "int8"), T("(2)", "int8")],
        "type-mismatch",
        "`qnn.concatenate` takes each input zero point as `int32`, found `float32` in field 1",
        "(0, 1f)",
    ),
    (
        "qnn.concatenate(%a, (0.5f), (0), 0.5f, 0)",
        [T("(2)", "int8")],
        "type-mismatch",
        "`qnn.concatenate` takes a tuple of tensors, e.g. `qnn.concatenate((%a, %b), axis=0)`",
        "%a",
    ),
]


@pytest.mark.parametrize("call, types, code, message, where", REJECTED)
def test_rejected_calls(call: str, types: list[str], code: str, message: str, where: str | None) -> None:
    """BroadcastRel needs one dtype; output parameters are scalars (IsScalarType);
    concatenate's parameter tuples hold one scalar per tensor."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    if where is not None:
        assert d.span.text == where


# ---------------------------------------------------------------- kernels


def _binary(name, x, y, s_l, z_l, s_r, z_r, s_o, z_o, **attrs):
    p = [np.asarray(s_l, f32), np.asarray(z_l, i32), np.asarray(s_r, f32), np.asarray(z_r, i32), f32(s_o), i32(z_o)]
    return FAMILY.run(name, x, y, *p, **attrs)


def test_add_matches_tvm() -> None:
    """Expected values of tests/python/relay/test_op_qnn_add.py (TFLite parameters, saturation)."""
    same_params = (0.00784314, 127) * 3
    same(_binary("qnn.add", u8(140, 153, 165, 178), u8(204, 178, 165, 140), *same_params), u8(217, 204, 203, 191))
    same(_binary("qnn.add", u8(25, 153, 178, 216), u8(204, 178, 191, 25), *same_params), u8(102, 204, 242, 114))
    different = (0.0156863, 127, 0.0117647, 85, 0.0235294, 128)
    same(_binary("qnn.add", u8(76, 140, 153, 172), u8(136, 119, 128, 17), *different), u8(120, 154, 167, 124))
    same(_binary("qnn.add", u8(133, 140, 146, 153), u8(136, 119, 111, 94), *different), u8(158, 154, 154, 150))
    same(_binary("qnn.add", u8(255, 1, 1, 0), u8(255, 255, 128, 0), 0.125, 0, 0.125, 0, 0.125, 0), u8(255, 255, 129, 0))
    same(_binary("qnn.add", u8(255, 1, 1, 0), u8(255, 255, 127, 0), 0.125, 0, 0.125, 0, 0.25, 0), u8(255, 129, 65, 0))
    same(_binary("qnn.add", u8(255, 0, 1, 0), u8(0, 128, 64, 0), 0.5, 0, 0.25, 0, 0.125, 0), u8(255, 255, 132, 0))


def test_subtract_matches_tvm() -> None:
    """Expected values of tests/python/relay/test_op_qnn_subtract.py."""
    same_params = (0.00784314, 127) * 3
    same(_binary("qnn.subtract", u8(140, 153, 165, 178), u8(204, 178, 165, 140), *same_params), u8(63, 102, 127, 165))
    same(_binary("qnn.subtract", u8(25, 153, 216, 165), u8(204, 178, 25, 191), *same_params), u8(0, 102, 255, 101))
    different = (0.0156863, 127, 0.0117647, 85, 0.0235294, 128)
    same(_binary("qnn.subtract", u8(76, 140, 153, 172), u8(136, 119, 128, 17), *different), u8(68, 120, 123, 192))
    same(_binary("qnn.subtract", u8(133, 140, 146, 153), u8(136, 119, 111, 94), *different), u8(106, 120, 128, 140))
    same(
        _binary("qnn.subtract", u8(255, 1, 200, 0), u8(255, 255, 127, 0), 0.125, 0, 0.125, 0, 0.25, 0), u8(0, 0, 36, 0)
    )
    same(_binary("qnn.subtract", u8(255, 0, 1, 0), u8(0, 128, 64, 0), 0.5, 0, 0.25, 0, 0.125, 0), u8(255, 0, 0, 0))


def _add_sub_ref(x, y, s_l, z_l, s_r, z_r, s_o, z_o, dtype, sign):
    """Requantize both to int32 with the output parameters, combine, fix the zero point, saturate."""
    a = requantize_ref(int(x), s_l, z_l, s_o, z_o, "int32")
    b = requantize_ref(int(y), s_r, z_r, s_o, z_o, "int32")
    v = wrap32(a + b - z_o) if sign > 0 else wrap32(a - b + z_o)
    lo, hi = RANGES[dtype]
    return min(max(v, lo), hi)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32"])
def test_add_and_subtract_against_reference(dtype: str) -> None:
    """Per element (add.cc, subtract.cc): both operands requantized to int32, then
    `a + b - z_out` or `a - b + z_out`, saturated; operands broadcast."""
    lo, hi = RANGES[dtype]
    rng = np.random.default_rng(3)
    x = rng.integers(max(lo, -3000), min(hi, 3000), size=(3, 1), endpoint=True).astype(dtype)
    y = rng.integers(max(lo, -3000), min(hi, 3000), size=(1, 5), endpoint=True).astype(dtype)
    params = (0.37, 3, 0.05, -2, 0.2, 1)
    for name, sign in (("qnn.add", 1), ("qnn.subtract", -1)):
        got = _binary(name, x, y, *params)
        expected = [[_add_sub_ref(x[r, 0], y[0, c], *params, dtype, sign) for c in range(5)] for r in range(3)]
        same(got, np.array(expected, dtype))


def test_add_per_channel_lhs() -> None:
    """A per-channel lhs scale and zero point along lhs_axis."""
    x = np.array([[10, -20, 30], [-40, 50, -60]], "int8")
    y = np.array([[1, 2, 3], [4, 5, 6]], "int8")
    scales, zps = [0.5, 0.25, 1.0], [1, 0, -1]
    got = _binary("qnn.add", x, y, scales, zps, 0.5, 0, 0.5, 0, lhs_axis=1)
    expected = [
        [_add_sub_ref(x[r, c], y[r, c], scales[c], zps[c], 0.5, 0, 0.5, 0, "int8", 1) for c in range(3)]
        for r in range(2)
    ]
    same(got, np.array(expected, "int8"))


def test_mul_matches_tvm() -> None:
    """tests/python/relay/test_op_qnn_mul.py: the product of the real values, requantized
    (np.around of the float product matches TVM's integer result on these inputs)."""

    def golden(x, y, s_l, z_l, s_r, z_r, s_o, z_o):
        real = (s_l * (x.astype(float) - z_l)) * (s_r * (y.astype(float) - z_r))
        return np.clip(np.around(real / s_o + z_o), 0, 255).astype(U8)

    for params in ((0.00784314, 127) * 3, (0.0156863, 127, 0.0117647, 85, 0.0235294, 128)):
        for x, y in (
            (u8(1, 153, 2, 178), u8(204, 178, 1, 8)),
            (u8(25, 1, 178, 216), u8(204, 178, 191, 1)),
            (u8(25, 153, 1, 165), u8(204, 178, 1, 191)),
        ):
            same(_binary("qnn.mul", x, y, *params), golden(x, y, *params))


def test_mul_against_reference() -> None:
    """mul.cc: (lhs - z_l) * (rhs - z_r) in int32, requantized from the float32 product of
    the scales with zero point 0; per channel with one scale per channel of both."""
    rng = np.random.default_rng(5)
    x = rng.integers(-128, 128, size=(4, 3)).astype("int8")
    y = rng.integers(-128, 128, size=(4, 3)).astype("int8")
    got = _binary("qnn.mul", x, y, 0.1, 3, 0.2, -4, 0.05, 2)
    product_scale = float(f32(f32(0.1) * f32(0.2)))
    expected = [
        [requantize_ref((int(x[r, c]) - 3) * (int(y[r, c]) + 4), product_scale, 0, 0.05, 2, "int8") for c in range(3)]
        for r in range(4)
    ]
    same(got, np.array(expected, "int8"))
    sl, sr = [0.1, 0.5, 0.03], [0.2, 0.125, 1.5]
    got = _binary("qnn.mul", x, y, sl, [3, 0, 1], sr, [-4, 2, 0], 0.05, 2, lhs_axis=1, rhs_axis=1)
    zl, zr = [3, 0, 1], [-4, 2, 0]
    expected = [
        [
            requantize_ref(
                (int(x[r, c]) - zl[c]) * (int(y[r, c]) - zr[c]), float(f32(sl[c] * sr[c])), 0, 0.05, 2, "int8"
            )
            for c in range(3)
        ]
        for r in range(4)
    ]
    same(got, np.array(expected, "int8"))
    with pytest.raises(KernelError):
        _binary("qnn.mul", x, y, sl, [3, 0, 1], 0.2, 0, 0.05, 2, lhs_axis=1, rhs_axis=0)


def test_concatenate_matches_tvm() -> None:
    """Expected values of tests/python/relay/test_op_qnn_concatenate.py: inputs whose
    parameters differ from the output's are requantized (here: zero points only)."""
    x = np.arange(-32, 32, dtype=i32).reshape(1, 64)
    y = np.arange(-64, 64, 2, dtype=i32).reshape(1, 64)
    s = f32((62 + 64) / (2.0**32 - 1.0))
    got = FAMILY.run("qnn.concatenate", (x, y), (s, s), (i32(0), i32(0)), s, i32(0), axis=0)
    same(got, np.concatenate((x, y), axis=0))
    got = FAMILY.run("qnn.concatenate", (x, y), (s, s), (i32(3), i32(4)), s, i32(1), axis=0)
    same(got, np.concatenate((x - 2, y - 3), axis=0))
    got = FAMILY.run("qnn.concatenate", (x, y), (s, s), (i32(0), i32(1)), s, i32(1), axis=0)
    same(got, np.concatenate((x + 1, y), axis=0))


def test_concatenate_requantizes_to_each_input_dtype() -> None:
    """A different scale requantizes the input with TVM's fixed-point rule, saturating to its dtype."""
    x = np.array([[100, -100, 7]], "int8")
    y = np.array([[1, 2, 3]], "int8")
    got = FAMILY.run("qnn.concatenate", (x, y), (f32(0.5), f32(0.25)), (i32(0), i32(0)), f32(0.25), i32(0), axis=1)
    expected = [requantize_ref(int(v), 0.5, 0, 0.25, 0, "int8") for v in x[0]] + [1, 2, 3]
    same(got, np.array([expected], "int8"))
    assert expected[:2] == [127, -128]


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
