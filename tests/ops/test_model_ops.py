"""The operators added for real models: type relations (results, backward
inference, rejections with their messages and locations) and kernels
against hand-computed values (these always run, with or without PyTorch).

Attribute names, defaults and shape rules are TVM's (include/tvm/relay/
attrs/nn.h, image.h, transform.h at the pinned commit).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from relay_text.ir.span import Source
from relay_text.ops import KernelError, get
from relay_text.pipeline import check_source
from relay_text.text.type_text import type_text

F = "float32"
# Operators whose kernels the hand-computed tests below exercise.
KERNELS_TESTED = {
    "nn.conv1d",
    "nn.conv2d",
    "nn.conv2d_transpose",
    "nn.adaptive_avg_pool2d",
    "nn.adaptive_max_pool2d",
    "nn.pad",
    "nn.layer_norm",
    "nn.lrn",
    "variance",
    "image.resize2d",
    "nn.upsampling",
    "nn.matmul",
    "layout_transform",
    "tile",
    "repeat",
    "broadcast_to_like",
    "strided_slice",
    "arange",
    "erf",
    "round",
}
COVERED: set[str] = set()


def T(shape: str, dtype: str = F) -> str:
    return f"Tensor[{shape}, {dtype}]"


def program(call: str, types: list[str]) -> str:
    params = ", ".join(f"%{'abcde'[i]}: {t}" for i, t in enumerate(types))
    return f"def @main({params}) {{\n  {call}\n}}\n"


def result_type(call: str, types: list[str]) -> str:
    checked = check_source(Source("t.rly", program(call, types)))
    assert [str(d) for d in checked.diagnostics] == []
    return type_text(checked.result.global_type("main").ret_type)


def param_type(call: str, types: list[str], index: int) -> str:
    checked = check_source(Source("t.rly", program(call, types)))
    assert [str(d) for d in checked.diagnostics] == []
    return type_text(checked.result.global_type("main").arg_types[index])


def only_error(call: str, types: list[str]):
    checked = check_source(Source("t.rly", program(call, types)))
    assert len(checked.diagnostics) == 1, [str(d) for d in checked.diagnostics]
    return checked.diagnostics[0]


def run(name: str, *args, **attrs):
    COVERED.add(name)
    op = get(name)
    assert op is not None
    full, problems = op.normalize_attrs(attrs.items())
    assert not problems, [p.message for p in problems]
    return op.kernel(tuple(args), full)


def same(x, expected, dtype: str = "float32") -> None:
    assert isinstance(x, np.ndarray)
    expected = np.asarray(expected, dtype=dtype)
    assert x.dtype == expected.dtype, (x.dtype, expected.dtype)
    assert x.shape == expected.shape, (x.shape, expected.shape)
    np.testing.assert_allclose(x, expected, rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------- relations: results

RESULTS = [
    ("nn.conv1d(%a, %b)", [T("(1, 3, 10)"), T("(4, 3, 3)")], T("(1, 4, 8)")),
    ("nn.conv1d(%a, %b, strides=[2], padding=[1], dilation=[2])", [T("(1, 3, 10)"), T("(4, 3, 3)")], T("(1, 4, 4)")),
    ('nn.conv1d(%a, %b, data_layout="NWC", kernel_layout="WIO")', [T("(2, 10, 3)"), T("(3, 3, 5)")], T("(2, 8, 5)")),
    (
        "nn.conv2d_transpose(%a, %b, strides=[2, 2], padding=[1, 1], output_padding=[1, 1])",
        [T("(1, 4, 5, 5)"), T("(4, 2, 3, 3)")],
        T("(1, 2, 10, 10)"),
    ),
    ("nn.conv2d_transpose(%a, %b, groups=2)", [T("(1, 4, 5, 5)"), T("(4, 3, 3, 3)")], T("(1, 6, 7, 7)")),
    ("nn.adaptive_avg_pool2d(%a, output_size=[3])", [T("(1, 4, 7, 9)")], T("(1, 4, 3, 3)")),
    ("nn.adaptive_avg_pool2d(%a)", [T("(1, 4, 7, 9)")], T("(1, 4, 7, 9)")),
    ('nn.adaptive_max_pool2d(%a, output_size=[2, 3], layout="NHWC")', [T("(1, 7, 9, 4)")], T("(1, 2, 3, 4)")),
    ("nn.pad(%a, 0f, pad_width=[[0, 0], [1, 2]])", [T("(2, 3)")], T("(2, 6)")),
    ("nn.pad(%a, 0f, pad_width=[[-1, 0], [1, -2]])", [T("(2, 3)")], T("(1, 2)")),
    ("nn.layer_norm(%a, %b, %c)", [T("(2, 3)"), T("(3)"), T("(3)")], T("(2, 3)")),
    ("nn.lrn(%a)", [T("(1, 6, 2, 2)")], T("(1, 6, 2, 2)")),
    ("variance(%a, %b, axis=[1])", [T("(2, 3)"), T("(2, 1)")], T("(2)")),
    ("variance(%a, %b, axis=[1], keepdims=True, unbiased=True)", [T("(2, 3)"), T("(2, 1)")], T("(2, 1)")),
    ("image.resize2d(%a, size=[8, 6])", [T("(1, 3, 4, 4)")], T("(1, 3, 8, 6)")),
    (
        'image.resize2d(%a, size=[5], layout="NHWC", out_dtype="float64")',
        [T("(1, 4, 4, 3)")],
        T("(1, 5, 5, 3)", "float64"),
    ),
    ("nn.upsampling(%a, scale_h=2f, scale_w=3f)", [T("(1, 3, 4, 4)")], T("(1, 3, 8, 12)")),
    ("nn.matmul(%a, %b)", [T("(5, 2, 3)"), T("(3, 4)")], T("(5, 2, 4)")),
    ("nn.matmul(%a, %b, transpose_a=True)", [T("(3, 2)"), T("(3, 4)")], T("(2, 4)")),
    ('layout_transform(%a, src_layout="NCHW", dst_layout="NHWC")', [T("(1, 3, 4, 5)")], T("(1, 4, 5, 3)")),
    ('layout_transform(%a, src_layout="NCHW", dst_layout="NCHW4c")', [T("(1, 8, 4, 5)")], T("(1, 2, 4, 5, 4)")),
    ('layout_transform(%a, src_layout="NCHW4c", dst_layout="NHWC")', [T("(1, 2, 4, 5, 4)")], T("(1, 4, 5, 8)")),
    ("tile(%a, reps=[2, 1, 3])", [T("(2, 3)")], T("(2, 2, 9)")),
    ("tile(%a, reps=[2])", [T("(2, 3)")], T("(2, 6)")),
    ("repeat(%a, repeats=3, axis=-1)", [T("(2, 3)")], T("(2, 9)")),
    ("broadcast_to_like(%a, %b)", [T("(3)"), T("(2, 3)", "int32")], T("(2, 3)")),
    ("strided_slice(%a, begin=[1, 0], end=[3, 5], strides=[1, 2])", [T("(4, 5)")], T("(2, 3)")),
    ("strided_slice(%a, begin=[-1], end=[-5], strides=[-2])", [T("(4, 5)")], T("(2, 5)")),
    ("strided_slice(%a, begin=[0], end=[1000])", [T("(4, 5)")], T("(4, 5)")),
    ('strided_slice(%a, begin=[1], end=[2], axes=[1], slice_mode="size")', [T("(4, 5)")], T("(4, 2)")),
    ('strided_slice(%a, begin=[2], end=[-1], slice_mode="size")', [T("(4, 5)")], T("(2, 5)")),
    ("arange(0f, 10f, 1f)", [], T("(?)")),
    ('arange(%a, %b, 2, dtype="int64")', [T("()", "int32"), T("()", "int32")], T("(?)", "int64")),
    ("erf(%a)", [T("(3)")], T("(3)")),
]


@pytest.mark.parametrize("call, types, expected", RESULTS, ids=[c[0] for c in RESULTS])
def test_result_type(call: str, types: list[str], expected: str) -> None:
    assert result_type(call, types) == expected


# ---------------------------------------------------------------- backward inference


@pytest.mark.parametrize(
    "call, types, index, expected",
    [
        ("nn.conv1d(%a, %b, channels=4, kernel_size=[3])", [T("(1, 3, 10)"), "Tensor[_, _]"], 1, T("(4, 3, 3)")),
        (
            "nn.conv1d(%a, %b, channels=4, kernel_size=[3], groups=3)",
            [T("(1, 3, 10)"), "Tensor[_, _]"],
            1,
            T("(4, 1, 3)"),
        ),
        (
            "nn.conv2d_transpose(%a, %b, channels=6, kernel_size=[3, 3])",
            [T("(1, 4, 5, 5)"), "Tensor[_, _]"],
            1,
            T("(4, 6, 3, 3)"),
        ),
        ("nn.layer_norm(%a, %b, %c, axis=1)", [T("(2, 3, 4)"), "Tensor[_, _]", "Tensor[_, _]"], 1, T("(3)")),
        ("nn.matmul(%a, %b, units=7)", [T("(2, 3)"), "Tensor[_, _]"], 1, T("(3, 7)")),
        ("nn.matmul(%a, %b, units=7, transpose_b=True)", [T("(2, 3)"), "Tensor[_, _]"], 1, T("(7, 3)")),
        ("variance(%a, %b, axis=[0, 2])", [T("(2, 3, 4)"), "Tensor[_, _]"], 1, T("(1, 3, 1)")),
    ],
)
def test_inputs_inferred_from_attributes(call: str, types: list[str], index: int, expected: str) -> None:
    assert param_type(call, types, index) == expected


# ---------------------------------------------------------------- relations: rejections

ERRORS = [
    (
        "nn.conv1d(%a, %b)",
        [T("(1, 3, 10)"), T("(4, 2, 3)")],
        "shape-mismatch",
        "`nn.conv1d`: the data has 3 channels, but the weight expects 2 (groups=1)",
    ),
    (
        "nn.conv1d(%a, %b)",
        [T("(1, 3)"), T("(4, 3, 3)")],
        "shape-mismatch",
        "`nn.conv1d` needs 3-D data (NCW), found (1, 3)",
    ),
    (
        "nn.conv1d(%a, %b, padding=[1, 2, 3])",
        [T("(1, 3, 10)"), T("(4, 3, 3)")],
        "type-mismatch",
        "`nn.conv1d` padding takes 1 or 2 values (left, right), found 3",
    ),
    (
        "nn.conv1d(%a, %b)",
        [T("(1, 3, 2)"), T("(4, 3, 3)")],
        "shape-mismatch",
        "`nn.conv1d`: the window does not fit: the input width is 2, the output would be 0",
    ),
    (
        "nn.conv2d_transpose(%a, %b)",
        [T("(1, 4, 5, 5)"), T("(3, 2, 3, 3)")],
        "shape-mismatch",
        "`nn.conv2d_transpose`: the data has 4 channels, but the weight's input-channel axis has 3",
    ),
    (
        "nn.conv2d_transpose(%a, %b, output_padding=[1, 1])",
        [T("(1, 4, 5, 5)"), T("(4, 2, 3, 3)")],
        "type-mismatch",
        "`nn.conv2d_transpose` output_padding [1, 1] must be smaller than the strides [1, 1]",
    ),
    (
        'nn.conv2d_transpose(%a, %b, kernel_layout="OIHW4o")',
        [T("(1, 4, 5, 5)"), T("(4, 2, 3, 3)")],
        "type-mismatch",
        '`nn.conv2d_transpose`: kernel_layout "OIHW4o" is not supported',
    ),
    (
        "nn.adaptive_avg_pool2d(%a, output_size=[1, 2, 3])",
        [T("(1, 4, 7, 9)")],
        "type-mismatch",
        "`nn.adaptive_avg_pool2d` output_size takes at most 2 values (height, width), found 3",
    ),
    (
        "nn.adaptive_max_pool2d(%a)",
        [T("(4, 7, 9)")],
        "shape-mismatch",
        "`nn.adaptive_max_pool2d` needs 4-D data (NCHW), found (4, 7, 9)",
    ),
    (
        "nn.pad(%a, 0f, pad_width=[[1, 1]])",
        [T("(2, 3)")],
        "shape-mismatch",
        "`nn.pad` needs one [before, after] pair per axis: the data has rank 2, pad_width has 1 pairs",
    ),
    (
        'nn.pad(%a, 0f, pad_width=[[0, 0], [3, 0]], pad_mode="reflect")',
        [T("(2, 3)")],
        "shape-mismatch",
        '`nn.pad` with pad_mode="reflect" needs widths smaller than the axis: axis 1 has size 3, widths [3, 0]',
    ),
    (
        'nn.pad(%a, 0f, pad_width=[[0, 0], [1, 1]], pad_mode="wrap")',
        [T("(2, 3)")],
        "type-mismatch",
        '`nn.pad` pad_mode must be "constant", "edge" or "reflect", found "wrap"',
    ),
    (
        "nn.pad(%a, %b, pad_width=[[0, 0], [1, 1]])",
        [T("(2, 3)"), T("(2)")],
        "shape-mismatch",
        "`nn.pad` takes a scalar pad value, found a tensor of shape (2)",
    ),
    (
        "nn.pad(%a, 0f, pad_width=[[0, -3], [0, 0]])",
        [T("(2, 3)")],
        "shape-mismatch",
        "`nn.pad` removes more than axis 0 holds: size 2 with widths [0, -3]",
    ),
    (
        "nn.layer_norm(%a, %b, %c)",
        [T("(2, 3)"), T("(2)"), T("(3)")],
        "type-mismatch",
        "`nn.layer_norm` expects `Tensor[(3), float32]` here, found `Tensor[(2), float32]`",
    ),
    (
        "nn.layer_norm(%a, %b, %c, axis=2)",
        [T("(2, 3)"), T("(3)"), T("(3)")],
        "shape-mismatch",
        "axis 2 is out of range for a tensor of rank 2",
    ),
    (
        "nn.lrn(%a)",
        [T("(1, 6, 2, 2)", "int32")],
        "type-mismatch",
        "`nn.lrn` takes a floating-point tensor, found `int32`",
    ),
    (
        "variance(%a, %b, axis=[1])",
        [T("(2, 3)"), T("(2, 1)", "float64")],
        "type-mismatch",
        "`variance` needs operands of one dtype, found `float32` and `float64`",
    ),
    (
        'image.resize2d(%a, size=[8, 6], method="area")',
        [T("(1, 3, 4, 4)")],
        "type-mismatch",
        '`image.resize2d` method "area" is not supported',
    ),
    (
        'image.resize2d(%a, size=[8, 6], coordinate_transformation_mode="tf_crop_and_resize")',
        [T("(1, 3, 4, 4)")],
        "type-mismatch",
        '`image.resize2d` coordinate_transformation_mode "tf_crop_and_resize" is not supported',
    ),
    (
        "image.resize2d(%a, size=[0, 6])",
        [T("(1, 3, 4, 4)")],
        "type-mismatch",
        "`image.resize2d` size takes 1 or 2 positive values (height, width), found [0, 6]",
    ),
    (
        "nn.upsampling(%a, scale_h=0f)",
        [T("(1, 3, 4, 4)")],
        "type-mismatch",
        "`nn.upsampling` scale_h must be positive, found 0.0",
    ),
    (
        'nn.upsampling(%a, method="trilinear")',
        [T("(1, 3, 4, 4)")],
        "type-mismatch",
        '`nn.upsampling` method "trilinear" is not supported',
    ),
    (
        "nn.matmul(%a, %b)",
        [T("(2, 3)"), T("(4, 5)")],
        "shape-mismatch",
        "`nn.matmul`: the inner dimensions differ (3 and 4)",
    ),
    (
        "nn.matmul(%a, %b)",
        [T("(2, 3)"), T("(2, 3, 5)")],
        "shape-mismatch",
        "`nn.matmul` needs a second operand of rank 2, found (2, 3, 5)",
    ),
    (
        'layout_transform(%a, src_layout="NCHW", dst_layout="NCHW3c")',
        [T("(1, 8, 4, 5)")],
        "shape-mismatch",
        "`layout_transform`: axis `C` of size 8 cannot be split into blocks of 3",
    ),
    (
        'layout_transform(%a, src_layout="NCHW", dst_layout="NHWD")',
        [T("(1, 8, 4, 5)")],
        "shape-mismatch",
        '`layout_transform`: layouts "NCHW" and "NHWD" do not name the same axes',
    ),
    (
        'layout_transform(%a, src_layout="NCHW", dst_layout="NC4hW")',
        [T("(1, 8, 4, 5)")],
        "type-mismatch",
        '`layout_transform`: "NC4hW" is not a layout: the block axis `h` has no outer axis `H`',
    ),
    (
        'layout_transform(%a, src_layout="NCHW", dst_layout="NHWC")',
        [T("(1, 8, 4)")],
        "shape-mismatch",
        '`layout_transform`: the data has rank 3, but layout "NCHW" has 4 axes',
    ),
    ("tile(%a, reps=[2, 0])", [T("(2, 3)")], "type-mismatch", "`tile` reps must be positive, found [2, 0]"),
    ("repeat(%a, repeats=0)", [T("(2, 3)")], "type-mismatch", "`repeat` repeats must be at least 1, found 0"),
    ("repeat(%a, repeats=2, axis=2)", [T("(2, 3)")], "shape-mismatch", "axis 2 is out of range for a tensor of rank 2"),
    (
        "broadcast_to_like(%a, %b)",
        [T("(2, 3)"), T("(4, 3)")],
        "shape-mismatch",
        "cannot broadcast shapes (2, 3) and (4, 3)",
    ),
    (
        "broadcast_to_like(%a, %b)",
        [T("(2, 3)"), T("(1, 3)")],
        "shape-mismatch",
        "`broadcast_to_like` cannot broadcast (2, 3) to (1, 3)",
    ),
    (
        "strided_slice(%a, begin=[0], end=[2], strides=[0])",
        [T("(4, 5)")],
        "shape-mismatch",
        "`strided_slice`: a stride cannot be 0",
    ),
    (
        "strided_slice(%a, begin=[0, 0, 0], end=[1, 1, 1])",
        [T("(4, 5)")],
        "shape-mismatch",
        "`strided_slice`: begin, end and strides may have at most 2 values for a tensor of rank 2",
    ),
    (
        "strided_slice(%a, begin=[0], end=[1], axes=[2])",
        [T("(4, 5)")],
        "shape-mismatch",
        "`strided_slice`: axes [2] are out of range for a tensor of rank 2",
    ),
    (
        'strided_slice(%a, begin=[0], end=[1], slice_mode="step")',
        [T("(4, 5)")],
        "shape-mismatch",
        '`strided_slice`: slice_mode must be "end" or "size", found "step"',
    ),
    ("arange(%a, 1f, 1f)", [T("(2)")], "shape-mismatch", "`arange` takes a scalar start, found a tensor of shape (2)"),
]


@pytest.mark.parametrize("call, types, code, message", ERRORS, ids=[f"{c[0]} {c[1]}" for c in ERRORS])
def test_rejected(call: str, types: list[str], code: str, message: str) -> None:
    d = only_error(call, types)
    assert (d.code, d.message) == (code, message)
    _, line, col, _, _ = d.location()
    assert line == 2, "on the line of the call"
    assert col >= 3


def test_attribute_errors_point_at_the_attribute() -> None:
    """Unknown names suggest close ones; wrong kinds are type-mismatch at the attribute."""
    checked = check_source(Source("t.rly", program("nn.pad(%a, 0f, pad_widht=[[0, 0]])", [T("(2)")])))
    missing, unknown = checked.diagnostics
    assert (missing.code, missing.message) == ("missing-attribute", "`nn.pad` needs the attribute `pad_width`")
    assert (unknown.code, unknown.message) == ("unknown-attribute", "`nn.pad` has no attribute `pad_widht`")
    assert unknown.location()[1:3] == (2, 18)
    assert unknown.helps == ["did you mean `pad_width`?"]
    d = only_error("nn.pad(%a, 0f, pad_width=[1, 1])", [T("(2)")])
    assert (d.code, d.message) == (
        "type-mismatch",
        "attribute `pad_width` takes a list of [before, after] pairs of integers",
    )
    assert d.location()[1:3] == (2, 18)
    d = only_error("image.resize2d(%a, size=[2, 2], roi=[1, True])", [T("(1, 1, 2, 2)")])
    assert (d.code, d.message) == ("type-mismatch", "attribute `roi` takes a list of numbers")


def test_defaults_are_tvms() -> None:
    """Defaults as TVM declares them (checked against its attribute structs)."""

    def defaults(name: str) -> dict:
        full, _ = get(name).normalize_attrs(())
        return full

    assert get("nn.conv2d_transpose").schema["kernel_layout"].default == "IOHW"
    assert defaults("nn.conv1d")["padding"] == (0, 0)
    assert defaults("nn.layer_norm") == {"axis": -1, "epsilon": 1e-5, "center": True, "scale": True}
    assert defaults("nn.lrn") == {"size": 5, "axis": 1, "bias": 2.0, "alpha": 1e-4, "beta": 0.75}
    assert defaults("nn.upsampling") == {
        "scale_h": 1.0,
        "scale_w": 1.0,
        "layout": "NCHW",
        "method": "nearest_neighbor",
        "align_corners": False,
    }
    assert defaults("nn.matmul") == {"units": None, "out_dtype": "", "transpose_a": False, "transpose_b": False}
    assert defaults("nn.adaptive_avg_pool2d")["output_size"] == ()
    full = dict(get("image.resize2d").normalize_attrs([("size", (2, 2))])[0])
    assert (full["method"], full["coordinate_transformation_mode"], full["rounding_method"], full["cubic_alpha"]) == (
        "linear",
        "half_pixel",
        "round",
        -0.5,
    )
    assert get("strided_slice").normalize_attrs([("begin", (0,)), ("end", (1,))])[0]["slice_mode"] == "end"


# ---------------------------------------------------------------- kernels, hand-computed


def test_conv1d_by_hand() -> None:
    x = np.array([[[1, 2, 3, 4, 5]]], dtype=np.float32)
    w = np.array([[[1, 0, -1]]], dtype=np.float32)
    same(run("nn.conv1d", x, w), [[[-2, -2, -2]]])
    same(run("nn.conv1d", x, w, padding=[1]), [[[-2, -2, -2, -2, 4]]])
    same(run("nn.conv1d", x, w, strides=[2], padding=[1, 0]), [[[-2, -2]]])


def test_conv2d_depthwise_and_grouped_by_hand() -> None:
    x = np.arange(2 * 3 * 3, dtype=np.float32).reshape(1, 2, 3, 3)
    ones = np.ones((2, 1, 2, 2), dtype=np.float32)
    # each channel convolved with its own 2x2 box of ones
    same(run("nn.conv2d", x, ones, groups=2), [[[[8, 12], [20, 24]], [[44, 48], [56, 60]]]])
    # channel multiplier 2: output channels 0, 1 read channel 0; 2, 3 read channel 1
    w = np.stack([np.ones((1, 1, 1)), 2 * np.ones((1, 1, 1)), np.ones((1, 1, 1)), -np.ones((1, 1, 1))]).astype(
        np.float32
    )
    out = run("nn.conv2d", x, w, groups=2)
    same(out[0, :, 0, 0], [0, 0, 9, -9])
    same(out[0, :, 2, 2], [8, 16, 17, -17])


def test_conv2d_integers_widen_with_out_dtype() -> None:
    x = np.full((1, 1, 2, 2), 100, dtype=np.int8)
    w = np.full((1, 1, 2, 2), 100, dtype=np.int8)
    same(run("nn.conv2d", x, w, out_dtype="int32"), [[[[40000]]]], "int32")


def test_conv2d_transpose_by_hand() -> None:
    x = np.array([[[[1, 2], [3, 4]]]], dtype=np.float32)
    w = np.ones((1, 1, 2, 2), dtype=np.float32)
    same(run("nn.conv2d_transpose", x, w), [[[[1, 3, 2], [4, 10, 6], [3, 7, 4]]]])
    same(run("nn.conv2d_transpose", x, w, strides=[2, 2]), [[[[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 4, 4]]]])
    same(run("nn.conv2d_transpose", x, w, padding=[1, 1]), [[[[10]]]])
    out = run("nn.conv2d_transpose", x, w, strides=[2, 2], output_padding=[1, 1])
    assert out.shape == (1, 1, 5, 5)
    assert out[0, 0, 4].tolist() == [0, 0, 0, 0, 0]


def test_adaptive_pools_by_hand() -> None:
    x = np.arange(5, dtype=np.float32).reshape(1, 1, 1, 5)
    # 5 into 3 cells: [0, 2), [1, 4), [3, 5)
    same(run("nn.adaptive_avg_pool2d", x, output_size=[1, 3]), [[[[0.5, 2, 3.5]]]])
    same(run("nn.adaptive_max_pool2d", x, output_size=[1, 3]), [[[[1, 3, 4]]]])
    same(run("nn.adaptive_avg_pool2d", x, output_size=[1, 1]), [[[[2]]]])


def test_pad_by_hand() -> None:
    x = np.array([[1, 2, 3]], dtype=np.float32)
    v = np.array(9, dtype=np.float32)
    same(run("nn.pad", x, v, pad_width=[[0, 1], [2, 1]]), [[9, 9, 1, 2, 3, 9], [9, 9, 9, 9, 9, 9]])
    same(run("nn.pad", x, v, pad_width=[[0, 0], [2, 1]], pad_mode="edge"), [[1, 1, 1, 2, 3, 3]])
    same(run("nn.pad", x, v, pad_width=[[0, 0], [2, 2]], pad_mode="reflect"), [[3, 2, 1, 2, 3, 2, 1]])
    same(run("nn.pad", x, v, pad_width=[[0, 0], [-1, 1]]), [[2, 3, 9]])
    same(
        run("nn.pad", np.array([1, 2], dtype=np.int32), np.array(2.9, dtype=np.float32), pad_width=[[1, 0]]),
        [2, 1, 2],
        "int32",
    )


def test_layer_norm_and_lrn_by_hand() -> None:
    x = np.array([[1, 2, 3]], dtype=np.float32)
    g = np.array([1, 2, 1], dtype=np.float32)
    b = np.array([0, 0, 10], dtype=np.float32)
    s = math.sqrt(2 / 3 + 1e-5)
    same(run("nn.layer_norm", x, g, b), [[-1 / s, 0, 10 + 1 / s]])
    y = np.array([1, 2, 3], dtype=np.float32).reshape(1, 3, 1, 1)
    # size 3: sums of squares of neighbours: [1 + 4, 1 + 4 + 9, 4 + 9]
    expected = [1 / (2 + 1e-4 / 3 * 5) ** 0.75, 2 / (2 + 1e-4 / 3 * 14) ** 0.75, 3 / (2 + 1e-4 / 3 * 13) ** 0.75]
    same(run("nn.lrn", y, size=3).reshape(3), expected)


def test_variance_by_hand() -> None:
    x = np.array([[1, 2, 3, 6]], dtype=np.float32)
    m = np.array([[3]], dtype=np.float32)
    same(run("variance", x, m, axis=[1]), [3.5])
    same(run("variance", x, m, axis=[1], unbiased=True), [14 / 3])


def test_resize_by_hand() -> None:
    x = np.array([[[[0, 10], [20, 30]]]], dtype=np.float32)
    # half_pixel sources -0.25, 0.25, 0.75, 1.25: rounded by default (include/tvm/relay/attrs/image.h:
    # rounding_method defaults to "round"); "" rounds down unless align_corners (topi/image/resize.py)
    same(run("image.resize2d", x, size=[2, 4], method="nearest_neighbor"), [[[[0, 0, 10, 10], [20, 20, 30, 30]]]])
    same(
        run("image.resize2d", x, size=[2, 4], method="nearest_neighbor", rounding_method=""),
        [[[[0, 0, 0, 10], [20, 20, 20, 30]]]],
    )
    same(
        run("image.resize2d", x, size=[2, 4], method="nearest_neighbor", rounding_method="round_prefer_ceil"),
        [[[[0, 0, 10, 10], [20, 20, 30, 30]]]],
    )
    # height 2 -> 1 reads row 0.5 (the mean of the rows, [10, 20]); width 2 -> 4 reads
    # -0.25, 0.25, 0.75, 1.25, clamped at the border
    same(run("image.resize2d", x, size=[1, 4])[0, 0, 0], [10, 12.5, 17.5, 20])
    same(
        run("image.resize2d", x, size=[3, 3], coordinate_transformation_mode="align_corners")[0, 0],
        [[0, 5, 10], [10, 15, 20], [20, 25, 30]],
    )
    cubic = run("image.resize2d", x, size=[2, 2], method="cubic")
    same(cubic, x)  # same size: every source coordinate is an integer
    same(run("nn.upsampling", x, scale_h=2.0, scale_w=1.0)[0, 0], [[0, 10], [0, 10], [20, 30], [20, 30]])
    same(run("nn.upsampling", x, scale_h=1.0, scale_w=2.0, method="bilinear")[0, 0], [[0, 5, 10, 10], [20, 25, 30, 30]])


def test_matmul_and_layout_by_hand() -> None:
    a = np.array([[1, 2], [3, 4]], dtype=np.float32)
    bm = np.array([[1, 0], [1, 1]], dtype=np.float32)
    same(run("nn.matmul", a, bm), [[3, 2], [7, 4]])
    same(run("nn.matmul", a, bm, transpose_a=True, transpose_b=True), [[1, 4], [2, 6]])
    x = np.arange(8, dtype=np.float32).reshape(1, 8, 1, 1)
    blocked = run("layout_transform", x, src_layout="NCHW", dst_layout="NCHW4c")
    assert blocked.shape == (1, 2, 1, 1, 4)
    same(blocked.reshape(2, 4), [[0, 1, 2, 3], [4, 5, 6, 7]])
    same(run("layout_transform", blocked, src_layout="NCHW4c", dst_layout="NCHW"), x)


def test_tile_repeat_broadcast_like_by_hand() -> None:
    x = np.array([[1, 2]], dtype=np.int32)
    same(run("tile", x, reps=[2, 2]), [[1, 2, 1, 2], [1, 2, 1, 2]], "int32")
    same(run("repeat", x, repeats=2, axis=1), [[1, 1, 2, 2]], "int32")
    same(run("broadcast_to_like", x, np.zeros((3, 2), dtype=np.float64)), [[1, 2]] * 3, "int32")


def test_strided_slice_by_hand() -> None:
    x = np.arange(10, dtype=np.int64)
    same(run("strided_slice", x, begin=[1], end=[8], strides=[3]), [1, 4, 7], "int64")
    same(run("strided_slice", x, begin=[-1], end=[-11], strides=[-3]), [9, 6, 3, 0], "int64")
    same(run("strided_slice", x, begin=[8], end=[2]), np.zeros(0), "int64")
    same(run("strided_slice", x, begin=[-3], end=[-1], slice_mode="size"), [7, 8, 9], "int64")


def test_arange_and_erf_by_hand() -> None:
    same(
        run("arange", np.array(1, np.float32), np.array(2, np.float32), np.array(0.25, np.float32)),
        [1, 1.25, 1.5, 1.75],
    )
    same(
        run("arange", np.array(5, np.int32), np.array(0, np.int32), np.array(-2, np.int32), dtype="int32"),
        [5, 3, 1],
        "int32",
    )
    with pytest.raises(KernelError, match="step of 0"):
        run("arange", np.array(0, np.int32), np.array(1, np.int32), np.array(0, np.int32))
    values = [-3.0, -0.5, -1e-4, 0.0, 1e-4, 0.3, 0.5, 1.0, 2.0, 6.0]
    same(run("erf", np.array(values, np.float32)), [math.erf(v) for v in values])
    same(run("erf", np.array(values)), [math.erf(v) for v in values], "float64")


def test_round_halves_away_from_zero() -> None:
    """TVM lowers `round` to C's round()."""
    same(run("round", np.array([-2.5, -0.5, 0.5, 1.5, 2.5, 0.49999997], np.float32)), [-3, -1, 1, 2, 3, 0])


def test_the_list_of_tested_kernels_is_honest() -> None:
    """Runs last in this file: every name in KERNELS_TESTED was run above."""
    assert KERNELS_TESTED <= COVERED, sorted(KERNELS_TESTED - COVERED)
