"""Convolutions over one and three spatial axes and on channel-blocked
layouts: `nn.conv3d`, `nn.conv1d_transpose`, `nn.conv3d_transpose`,
`nn.contrib_conv2d_NCHWc`, `nn.contrib_depthwise_conv2d_NCHWc`; and the
mixed-dtype typing every convolution shares (TVM accepts uint8 data with
an int8 weight when the sums go to int32).

Shape rules: src/relay/op/nn/convolution.cc (Conv3DRel, Conv3DTransposeRel,
Conv1DTransposeRel, Conv2DRel) and convolution.h (Conv2DWinogradRel, which
types contrib_conv2d_NCHWc), padding by op_common.h; kernels against
PyTorch (the convolution it has) or blocked by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family(
    "nn.conv3d",
    "nn.conv1d_transpose",
    "nn.conv3d_transpose",
    "nn.contrib_conv2d_NCHWc",
    "nn.contrib_depthwise_conv2d_NCHWc",
)


def torch_mod():
    torch_reference()
    import torch

    return torch


def rng() -> np.random.Generator:
    return np.random.default_rng(7)


# ---------------------------------------------------------------- relations: results

RESULTS = [
    # tests/python/relay/test_op_level2.py::test_conv3d_infer_type
    (
        'nn.conv3d(%a, %b, out_dtype="int32")',
        [T("(?, 10, 24, 24, 24)", "int8"), T("(2, 10, 3, 3, 3)", "int8")],
        T("(?, 2, 22, 22, 22)", "int32"),
    ),
    (
        'nn.conv3d(%a, %b, out_dtype="int32")',
        [T("(4, 10, 24, 24, 24)", "uint8"), T("(2, 10, 3, 3, 3)", "int8")],
        T("(4, 2, 22, 22, 22)", "int32"),
    ),
    (
        (
            'nn.conv3d(%a, %b, padding=[1, 1, 1], channels=16, kernel_size=[3, 3, 3], data_layout="NDHWC", '
            'out_dtype="int32")'
        ),
        [T("(4, 24, 24, 24, 32)", "int8"), "Tensor[_, _]"],
        T("(4, 24, 24, 24, 16)", "int32"),
    ),
    (
        "nn.conv3d(%a, %b, groups=4, kernel_size=[1, 1, 1], channels=4)",
        [T("(1, 16, 8, 8, 8)"), T("(4, 4, 1, 1, 1)")],
        T("(1, 4, 8, 8, 8)"),
    ),
    (
        "nn.conv3d(%a, %b, strides=[2, 1, 1], padding=[1, 0, 0, 0, 0, 2], dilation=[1, 2, 1])",
        [T("(1, 3, 9, 9, 9)"), T("(4, 3, 3, 3, 3)")],
        T("(1, 4, 4, 5, 9)"),
    ),
    # test_conv3d_transpose_infer_type
    (
        'nn.conv3d_transpose(%a, %b, out_dtype="int32")',
        [T("(1, 10, 24, 24, 24)", "int8"), T("(10, 12, 3, 3, 3)", "int8")],
        T("(1, 12, 26, 26, 26)", "int32"),
    ),
    (
        "nn.conv3d_transpose(%a, %b, kernel_size=[3, 3, 3], padding=[1, 1, 1], channels=2)",
        [T("(1, 10, 8, 8, 8)"), "Tensor[_, _]"],
        T("(1, 2, 8, 8, 8)"),
    ),
    (
        "nn.conv3d_transpose(%a, %b, strides=[2, 2, 2], output_padding=[1, 0, 1], groups=2)",
        [T("(1, 4, 3, 3, 3)"), T("(4, 3, 2, 2, 2)")],
        T("(1, 6, 7, 6, 7)"),
    ),
    # conv1d_transpose: out = (w - 1) * s - pads + dilation * (k - 1) + output_padding + 1
    (
        "nn.conv1d_transpose(%a, %b, strides=[2], padding=[1], output_padding=[1])",
        [T("(1, 3, 10)"), T("(3, 4, 3)")],
        T("(1, 4, 20)"),
    ),
    (
        "nn.conv1d_transpose(%a, %b, padding=[0, 2], dilation=[2], channels=6, kernel_size=[3], groups=2)",
        [T("(2, 4, 5)"), "Tensor[_, _]"],
        T("(2, 6, 7)"),
    ),
    (
        'nn.conv1d_transpose(%a, %b, data_layout="NWC", kernel_layout="WIO")',
        [T("(1, 10, 3)"), T("(3, 3, 5)")],
        T("(1, 12, 5)"),
    ),
    # contrib_conv2d_NCHWc: the output comes from channels and kernel_size
    (
        (
            "nn.contrib_conv2d_NCHWc(%a, %b, padding=[1, 1], channels=8, kernel_size=[3, 3], "
            'data_layout="NCHW4c", kernel_layout="OIHW4i4o", out_layout="NCHW4c")'
        ),
        [T("(1, 2, 6, 6, 4)"), T("(2, 2, 3, 3, 4, 4)")],
        T("(1, 2, 6, 6, 4)"),
    ),
    (
        (
            'nn.contrib_conv2d_NCHWc(%a, %b, channels=8, kernel_size=[1, 1], data_layout="NCHW4c", '
            'kernel_layout="OIHW4i2o", out_layout="NCHW2c")'
        ),
        [T("(1, 2, 5, 5, 4)"), T("(4, 2, 1, 1, 4, 2)")],
        T("(1, 4, 5, 5, 2)"),
    ),
    (
        (
            "nn.contrib_depthwise_conv2d_NCHWc(%a, %b, padding=[1, 1], groups=8, channels=8, kernel_size=[3, "
            '3], data_layout="NCHW4c", kernel_layout="OIHW1i4o")'
        ),
        [T("(1, 2, 6, 6, 4)"), T("(2, 1, 3, 3, 1, 4)")],
        T("(1, 2, 6, 6, 4)"),
    ),
]


@pytest.mark.parametrize("call, types, expected", RESULTS, ids=[c[0][:60] for c in RESULTS])
def test_result_types(call: str, types: list[str], expected: str) -> None:
    """Output shapes and dtypes as TVM's relations state them."""
    assert FAMILY.result_type(call, types) == expected


def test_weights_are_inferred_from_channels_and_kernel_size() -> None:
    """test_conv3d_infer_type / test_conv3d_transpose_infer_type: the weight
    (O, C / groups, K...) or (C, O / groups, K...) comes from the attributes."""
    assert FAMILY.param_type(
        "nn.conv3d(%a, %b, kernel_size=[3, 3, 3], padding=[1, 1, 1], channels=2)",
        [T("(1, 10, 8, 8, 8)"), "Tensor[_, _]"],
        1,
    ) == T("(2, 10, 3, 3, 3)")
    assert FAMILY.param_type(
        "nn.conv3d_transpose(%a, %b, kernel_size=[3, 3, 3], padding=[1, 1, 1], channels=2)",
        [T("(1, 10, 8, 8, 8)"), "Tensor[_, _]"],
        1,
    ) == T("(10, 2, 3, 3, 3)")
    assert FAMILY.param_type(
        (
            "nn.contrib_depthwise_conv2d_NCHWc(%a, %b, groups=8, channels=8, kernel_size=[3, 3], "
            'data_layout="NCHW4c", kernel_layout="OIHW1i4o")'
        ),
        [T("(1, 2, 6, 6, 4)"), "Tensor[_, _]"],
        1,
    ) == T("(2, 1, 3, 3, 1, 4)")


MIXED = [
    (
        'nn.conv2d(%a, %b, out_dtype="int32")',
        [T("(1, 4, 5, 5)", "uint8"), T("(2, 4, 3, 3)", "int8")],
        T("(1, 2, 3, 3)", "int32"),
    ),
    (
        'nn.conv1d(%a, %b, out_dtype="int32")',
        [T("(1, 4, 5)", "uint8"), T("(2, 4, 3)", "int8")],
        T("(1, 2, 3)", "int32"),
    ),
    (
        'nn.conv2d_transpose(%a, %b, out_dtype="int32")',
        [T("(1, 4, 5, 5)", "uint8"), T("(4, 2, 3, 3)", "int8")],
        T("(1, 2, 7, 7)", "int32"),
    ),
    ("nn.conv2d(%a, %b)", [T("(1, 4, 5, 5)", "float16"), T("(2, 4, 3, 3)")], T("(1, 2, 3, 3)", "float16")),
]


@pytest.mark.parametrize("call, types, expected", MIXED, ids=[c[0] for c in MIXED])
def test_mixed_dtypes_are_accepted(call: str, types: list[str], expected: str) -> None:
    """TVM's Conv1DRel/Conv2DRel/Conv2DTransposeRel (src/relay/op/nn/convolution.cc) never
    require the weight's dtype to equal the data's: the weight keeps its own dtype
    (`weight_dtype = weight->dtype`) and the result takes out_dtype, else the data's."""
    assert FAMILY.result_type(call, types) == expected


def test_mixed_dtype_kernels_sum_in_out_dtype() -> None:
    """The kernels convert both operands to out_dtype before multiplying (TOPI's
    conv2d_nchw casts data and kernel to out_dtype), so 200 * 100 does not wrap in uint8."""
    from relay_text.ops import get

    x = np.full((1, 2, 3, 3), 200, np.uint8)
    w = np.full((1, 2, 1, 1), -100, np.int8)
    op = get("nn.conv2d")
    attrs, _ = op.normalize_attrs([("out_dtype", "int32")])
    same(op.kernel((x, w), attrs), np.full((1, 1, 3, 3), -40000, np.int32))
    out = FAMILY.run("nn.conv3d", x[:, :, None], w[:, :, None], out_dtype="int32")
    same(out, np.full((1, 1, 1, 3, 3), -40000, np.int32))


# ---------------------------------------------------------------- relations: rejections

ERRORS = [
    (
        "nn.conv3d(%a, %b)",
        [T("(1, 4, 5, 5, 5)"), T("(2, 3, 3, 3, 3)")],
        "shape-mismatch",
        "`nn.conv3d`: the data has 4 channels, but the weight expects 3 (groups=1)",
        "%b",
    ),
    (
        "nn.conv3d(%a, %b)",
        [T("(1, 4, 5, 5)"), T("(2, 4, 3, 3, 3)")],
        "shape-mismatch",
        "`nn.conv3d` needs a 5-D data (NCDHW), found (1, 4, 5, 5)",
        "%a",
    ),
    (
        "nn.conv3d(%a, %b)",
        [T("(1, 4, 2, 5, 5)"), T("(2, 4, 3, 3, 3)")],
        "shape-mismatch",
        "`nn.conv3d`: the window does not fit: spatial axis 0 has size 2, the output would be 0",
        "%a",
    ),
    (
        "nn.conv3d(%a, %b, padding=[1, 1])",
        [T("(1, 4, 5, 5, 5)"), T("(2, 4, 3, 3, 3)")],
        "type-mismatch",
        "`nn.conv3d` padding takes 1, 3 or 6 values, found 2",
        None,
    ),
    (
        "nn.conv1d_transpose(%a, %b)",
        [T("(1, 4, 5)"), T("(3, 2, 3)")],
        "shape-mismatch",
        "`nn.conv1d_transpose`: the data has 4 channels, but the weight's input-channel axis has 3",
        "%b",
    ),
    (
        "nn.conv1d_transpose(%a, %b, strides=[2], output_padding=[2])",
        [T("(1, 4, 5)"), T("(4, 2, 3)")],
        "type-mismatch",
        "`nn.conv1d_transpose` output_padding [2] must be smaller than the strides [2]",
        None,
    ),
    (
        "nn.conv3d_transpose(%a, %b, channels=5)",
        [T("(1, 4, 3, 3, 3)"), T("(4, 2, 3, 3, 3)")],
        "shape-mismatch",
        "`nn.conv3d_transpose` has channels=5, but the weight gives 2 output channels",
        "%b",
    ),
    (
        'nn.contrib_conv2d_NCHWc(%a, %b, data_layout="NCHW4c", kernel_layout="OIHW4i4o")',
        [T("(1, 2, 6, 6, 4)"), T("(2, 2, 3, 3, 4, 4)")],
        "type-mismatch",
        "`nn.contrib_conv2d_NCHWc` needs the attributes channels and kernel_size",
        None,
    ),
    (
        (
            'nn.contrib_conv2d_NCHWc(%a, %b, channels=8, kernel_size=[3, 3], data_layout="NCHW4c", '
            'kernel_layout="OIHW4i4o")'
        ),
        [T("(1, 2, 6, 6, 8)"), T("(2, 2, 3, 3, 4, 4)")],
        "shape-mismatch",
        (
            '`nn.contrib_conv2d_NCHWc`: the data does not fit its layout: axis `4c` of layout "NCHW4c" must '
            "have size 4, but the data has 8"
        ),
        "%a",
    ),
    (
        'nn.contrib_depthwise_conv2d_NCHWc(%a, %b, groups=8, data_layout="NCHW4c", kernel_layout="OIHW1i4o")',
        [T("(1, 2, 6, 6, 4)"), T("(2, 2, 3, 3, 1, 4)")],
        "shape-mismatch",
        "`nn.contrib_depthwise_conv2d_NCHWc`: the data has 8 channels, but the weight expects 16 (groups=8)",
        "%b",
    ),
]


@pytest.mark.parametrize("call, types, code, message, at", ERRORS, ids=[e[3][:70] for e in ERRORS])
def test_rejected(call: str, types: list[str], code: str, message: str, at: str | None) -> None:
    """Exact code and message; the diagnostic points at the offending argument
    (or at the call, for a bad attribute)."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    assert d.span.text == (at or call)


# ---------------------------------------------------------------- kernels


def test_conv3d_against_torch() -> None:
    """Strides, asymmetric 6-value padding (front, top, left, back, bottom, right), dilation, groups."""
    torch = torch_mod()
    g = rng()
    x = g.standard_normal((2, 4, 6, 5, 7)).astype(np.float32)
    w = g.standard_normal((6, 2, 2, 3, 2)).astype(np.float32)
    out = FAMILY.run("nn.conv3d", x, w, strides=[1, 2, 1], padding=[1, 0, 1, 0, 1, 2], dilation=[2, 1, 1], groups=2)
    xp = torch.nn.functional.pad(torch.from_numpy(x), (1, 2, 0, 1, 1, 0))
    ref = torch.nn.functional.conv3d(xp, torch.from_numpy(w), stride=(1, 2, 1), dilation=(2, 1, 1), groups=2).numpy()
    same(out, ref, rtol=1e-5, atol=1e-5)


def test_conv3d_layouts_and_integers() -> None:
    """NDHWC / DHWIO int8 operands summed in int32 equal the float64 convolution exactly."""
    torch = torch_mod()
    g = rng()
    x = g.integers(-128, 128, (1, 5, 4, 6, 3)).astype(np.int8)
    w = g.integers(-128, 128, (2, 2, 3, 3, 4)).astype(np.int8)
    out = FAMILY.run("nn.conv3d", x, w, padding=[1], data_layout="NDHWC", kernel_layout="DHWIO", out_dtype="int32")
    xt = torch.from_numpy(x.transpose(0, 4, 1, 2, 3).astype(np.float64))
    wt = torch.from_numpy(w.transpose(4, 3, 0, 1, 2).astype(np.float64))
    ref = torch.nn.functional.conv3d(xt, wt, padding=1).numpy().transpose(0, 2, 3, 4, 1)
    same(out, ref.astype(np.int32))


def test_conv3d_int32_wraps() -> None:
    """Integer sums wrap around (two's complement), as TVM's int32 arithmetic does."""
    x = np.full((1, 2, 1, 1, 1), 2**30, np.int32)
    w = np.full((1, 2, 1, 1, 1), 2, np.int32)
    same(FAMILY.run("nn.conv3d", x, w), np.zeros((1, 1, 1, 1, 1), np.int32))


def test_conv1d_transpose_against_torch() -> None:
    torch = torch_mod()
    g = rng()
    x = g.standard_normal((2, 4, 5)).astype(np.float32)
    w = g.standard_normal((4, 3, 3)).astype(np.float32)
    out = FAMILY.run("nn.conv1d_transpose", x, w, strides=[2], padding=[1], output_padding=[1], dilation=[2], groups=2)
    ref = torch.nn.functional.conv_transpose1d(
        torch.from_numpy(x), torch.from_numpy(w), stride=2, padding=1, output_padding=1, dilation=2, groups=2
    ).numpy()
    same(out, ref, rtol=1e-5, atol=1e-5)


def test_conv1d_transpose_uneven_padding_by_hand() -> None:
    """padding=[0, 2]: nothing cropped on the left, two on the right (op_common.h GetPaddingWidth)."""
    x = np.array([[[1, 2, 3]]], np.int32)
    w = np.array([[[1, 10]]], np.int32)
    # full result: [1, 12, 23, 30]; crop two at the end
    same(FAMILY.run("nn.conv1d_transpose", x, w, padding=[0, 2]), np.array([[[1, 12]]], np.int32))


def test_conv3d_transpose_against_torch() -> None:
    torch = torch_mod()
    g = rng()
    x = g.standard_normal((1, 4, 3, 4, 3)).astype(np.float32)
    w = g.standard_normal((4, 3, 2, 3, 2)).astype(np.float32)
    out = FAMILY.run(
        "nn.conv3d_transpose",
        x,
        w,
        strides=[2, 1, 2],
        padding=[1, 1, 0],
        output_padding=[1, 0, 1],
        dilation=[1, 2, 1],
        groups=2,
    )
    ref = torch.nn.functional.conv_transpose3d(
        torch.from_numpy(x),
        torch.from_numpy(w),
        stride=(2, 1, 2),
        padding=(1, 1, 0),
        output_padding=(1, 0, 1),
        dilation=(1, 2, 1),
        groups=2,
    ).numpy()
    same(out, ref, rtol=1e-5, atol=1e-5)


def test_conv3d_transpose_int8_in_int32() -> None:
    torch = torch_mod()
    g = rng()
    x = g.integers(0, 256, (1, 2, 2, 3, 2)).astype(np.uint8)
    w = g.integers(-128, 128, (2, 3, 2, 2, 2)).astype(np.int8)
    out = FAMILY.run("nn.conv3d_transpose", x, w, strides=[2, 2, 2], out_dtype="int32")
    ref = torch.nn.functional.conv_transpose3d(
        torch.from_numpy(x.astype(np.float64)), torch.from_numpy(w.astype(np.float64)), stride=2
    )
    same(out, ref.numpy().astype(np.int32))


def _block_data(x: np.ndarray, b: int) -> np.ndarray:
    """NCHW -> NCHW{b}c by hand."""
    n, c, h, w = x.shape
    return x.reshape(n, c // b, b, h, w).transpose(0, 1, 3, 4, 2)


def test_conv2d_nchwc_against_torch() -> None:
    """NCHW4c data with an OIHW4i2o weight (OIHW{i}i{o}o: [o_blk, i_blk, kh, kw, i, o]), NCHW2c output."""
    torch = torch_mod()
    g = rng()
    x = g.standard_normal((2, 8, 6, 5)).astype(np.float32)
    w = g.standard_normal((6, 8, 3, 3)).astype(np.float32)
    wb = w.reshape(3, 2, 2, 4, 3, 3).transpose(0, 2, 4, 5, 3, 1)  # (O/2, I/4, KH, KW, 4i, 2o)
    out = FAMILY.run(
        "nn.contrib_conv2d_NCHWc",
        _block_data(x, 4),
        wb,
        padding=[1, 0],
        strides=[1, 2],
        channels=6,
        kernel_size=[3, 3],
        data_layout="NCHW4c",
        kernel_layout="OIHW4i2o",
        out_layout="NCHW2c",
    )
    ref = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), padding=(1, 0), stride=(1, 2)).numpy()
    same(out, _block_data(ref, 2), rtol=1e-5, atol=1e-5)


def test_depthwise_conv2d_nchwc_by_hand() -> None:
    """A depthwise 1x1 window scales each channel by its own weight (int32, no promotion)."""
    x = np.arange(2 * 8 * 2 * 2, dtype=np.int32).reshape(2, 8, 2, 2)
    scale = np.arange(1, 9, dtype=np.int32)
    wb = scale.reshape(2, 1, 1, 1, 1, 4)  # OIHW1i4o
    out = FAMILY.run(
        "nn.contrib_depthwise_conv2d_NCHWc",
        _block_data(x, 4),
        wb,
        groups=8,
        channels=8,
        kernel_size=[1, 1],
        data_layout="NCHW4c",
        kernel_layout="OIHW1i4o",
    )
    same(out, _block_data(x * scale.reshape(1, 8, 1, 1), 4))


def test_defaults_are_tvms() -> None:
    """Attribute names, order and defaults of TVM's attribute structs
    (include/tvm/relay/attrs/nn.h: Conv3DAttrs, Conv3DTransposeAttrs,
    Conv1DTransposeAttrs, DilateAttrs, CorrelationAttrs, DensePackAttrs;
    bitserial.h: BitPackAttrs, BinaryConv2DAttrs)."""
    from relay_text.ops import get

    def defaults(name: str) -> dict:
        full, _ = get(name).normalize_attrs(())
        return full

    assert defaults("nn.conv3d") == {
        "strides": (1, 1, 1),
        "padding": (0, 0, 0),
        "dilation": (1, 1, 1),
        "groups": 1,
        "channels": None,
        "kernel_size": None,
        "data_layout": "NCDHW",
        "kernel_layout": "OIDHW",
        "out_layout": "",
        "out_dtype": "",
    }
    assert list(defaults("nn.conv1d_transpose").items()) == [
        ("channels", None),
        ("kernel_size", None),
        ("strides", (1,)),
        ("output_padding", (0,)),
        ("padding", (0,)),
        ("dilation", (1,)),
        ("groups", 1),
        ("data_layout", "NCW"),
        ("kernel_layout", "IOW"),
        ("out_layout", ""),
        ("out_dtype", ""),
    ]
    assert defaults("nn.conv3d_transpose")["kernel_layout"] == "IODHW"
    assert defaults("nn.dilate") == {"strides": (1, 1), "dilation_value": 0.0}
    assert defaults("nn.correlation") == {
        "kernel_size": 1,
        "max_displacement": 1,
        "stride1": 1,
        "stride2": 1,
        "padding": (0, 0),
        "is_multiply": True,
        "layout": "NCHW",
    }
    assert defaults("nn.contrib_dense_pack") == {"units": None, "out_dtype": "", "weight_layout": "NC"}
    assert defaults("nn.bitpack") == {"bits": 1, "pack_axis": 1, "bit_axis": -1, "pack_type": "", "name": "BitPack"}
    assert defaults("nn.bitserial_conv2d")["kernel_size"] == (3, 3)
    assert defaults("nn.bitserial_conv2d")["unipolar"] is True
    assert (
        get("nn.contrib_conv2d_winograd_without_weight_transform")
        .signature()
        .startswith("nn.contrib_conv2d_winograd_without_weight_transform(x1, x2, tile_size, strides=(1, 1)")
    )


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
