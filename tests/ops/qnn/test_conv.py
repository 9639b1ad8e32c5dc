"""qnn.conv2d, qnn.conv2d_transpose and qnn.avg_pool2d: result types (shapes
from tests/python/relay/test_op_qnn_conv2d.py and test_op_qnn_conv2_transpose.py),
rejected calls, and kernels against PyTorch's float64 convolutions of the
zero-point-shifted integers (exact at these sizes) and a loop reference of
TOPI's integer average pooling.
"""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.ops import KernelError
from tests.ops.family import Family, T, same
from tests.ops.qnn.test_quantize import RANGES, requantize_ref
from tests.reference import torch_reference

FAMILY = Family("qnn.conv2d", "qnn.conv2d_transpose", "qnn.avg_pool2d")

f32, i32 = np.float32, np.int32
PARAMS = "3, 0, 0.5f, 0.25f"


def conv(call: str) -> str:
    return call.replace("PARAMS", PARAMS)


# ---------------------------------------------------------------- relations

RESULTS = [
    (
        'qnn.conv2d(%a, %b, PARAMS, kernel_size=[2, 2], out_dtype="int32")',
        [T("(2, 4, 2, 4)", "uint8"), T("(3, 4, 2, 2)", "uint8")],
        T("(2, 3, 1, 3)", "int32"),
    ),
    (
        'qnn.conv2d(%a, %b, PARAMS, data_layout="NHWC", kernel_layout="HWIO", out_dtype="int32")',
        [T("(2, 2, 4, 4)", "uint8"), T("(2, 2, 4, 3)", "uint8")],
        T("(2, 1, 3, 3)", "int32"),
    ),
    (
        'qnn.conv2d(%a, %b, PARAMS, groups=3, data_layout="NHWC", kernel_layout="HWOI", out_dtype="int32")',
        [T("(2, 2, 4, 3)", "uint8"), T("(2, 2, 3, 1)", "uint8")],
        T("(2, 1, 3, 3)", "int32"),
    ),
    (
        'qnn.conv2d(%a, %b, PARAMS, padding=[1, 1], out_dtype="int32")',
        [T("(1, 4, 2, 2)", "int8"), T("(3, 4, 2, 2)", "int8")],
        T("(1, 3, 3, 3)", "int32"),
    ),
    (
        'qnn.conv2d(%a, %b, PARAMS, dilation=[2, 2], out_dtype="int64")',
        [T("(2, 4, 4, 4)", "int8"), T("(3, 4, 2, 2)", "int8")],
        T("(2, 3, 2, 2)", "int64"),
    ),
    (
        'qnn.conv2d(%a, %b, PARAMS, strides=[2, 2], out_dtype="int16")',
        [T("(2, 4, 2, 4)", "uint8"), T("(3, 4, 1, 1)", "int8")],
        T("(2, 3, 1, 2)", "int16"),
    ),
    # depthwise with a multiplier: TVM's weight is (C, multiplier, KH, KW) once channels and kernel_size are given
    (
        'qnn.conv2d(%a, %b, PARAMS, groups=4, channels=8, kernel_size=[3, 3], out_dtype="int32")',
        [T("(10, 4, 16, 16)", "uint8"), T("(4, 2, 3, 3)", "uint8")],
        T("(10, 8, 14, 14)", "int32"),
    ),
    (
        (
            'qnn.conv2d(%a, %b, PARAMS, groups=4, channels=8, kernel_size=[3, 3], data_layout="NHWC", '
            'kernel_layout="HWOI", out_dtype="int32")'
        ),
        [T("(2, 16, 16, 4)", "uint8"), T("(3, 3, 4, 2)", "uint8")],
        T("(2, 14, 14, 8)", "int32"),
    ),
    (
        'qnn.conv2d_transpose(%a, %b, PARAMS, kernel_size=[2, 2], out_dtype="int32")',
        [T("(2, 4, 2, 4)", "uint8"), T("(4, 3, 2, 2)", "int8")],
        T("(2, 3, 3, 5)", "int32"),
    ),
    (
        (
            "qnn.conv2d_transpose(%a, %b, PARAMS, strides=[2, 2], padding=[1, 1], output_padding=[1, 1], "
            'data_layout="NHWC", kernel_layout="HWIO", out_dtype="int32")'
        ),
        [T("(1, 4, 4, 2)", "int8"), T("(3, 3, 2, 5)", "int8")],
        T("(1, 8, 8, 5)", "int32"),
    ),
    (
        'qnn.avg_pool2d(%a, 0.5f, 0, 0.5f, 0, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], layout="NHWC")',
        [T("(1, 7, 7, 16)", "uint8")],
        T("(1, 4, 4, 16)", "uint8"),
    ),
    (
        "qnn.avg_pool2d(%a, 0.5f, 0, 0.5f, 0, pool_size=[2, 2], strides=[2, 2], ceil_mode=True)",
        [T("(2, 3, 5, 5)", "int8")],
        T("(2, 3, 3, 3)", "int8"),
    ),
    (
        'qnn.avg_pool2d(%a, 0.5f, 0, 0.5f, 0, pool_size=[2, 2], layout="NCHW4c")',
        [T("(1, 2, 6, 6, 4)", "int8")],
        T("(1, 2, 5, 5, 4)", "int8"),
    ),
]


@pytest.mark.parametrize("call, types, expected", RESULTS)
def test_result_types(call: str, types: list[str], expected: str) -> None:
    """QnnConv2DRel and QnnConv2DTransposeRel hand the tensors to Conv2DRel and
    Conv2DTransposeRel (src/relay/op/nn/convolution.cc); QnnAvgPool2DRel pools H and W."""
    assert FAMILY.result_type(conv(call), types) == expected


def test_per_channel_weight_scale() -> None:
    """The weight scale is a scalar or one value per output channel (AssignType in QnnConv2DRel)."""
    call = 'qnn.conv2d(%a, %b, 0, 0, 0.5f, %c, out_dtype="int32")'
    assert FAMILY.param_type(call, [T("(1, 4, 5, 5)", "int8"), T("(6, 4, 3, 3)", "int8"), T("(_)")], 2) == T("(6)")


def test_weight_constants_without_metadata_follow_channels_and_kernel_size() -> None:
    """Conv2DRel and Conv2DTransposeRel derive the weight from channels and kernel_size
    (in the data's dtype); a constant whose metadata is missing gets that type."""
    call = (
        "qnn.conv2d(%a, meta[relay.Constant][0], 0, 0, 0.5f, meta[relay.Constant][1], channels=8, "
        'kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO", out_dtype="int32")'
    )
    assert FAMILY.result_type(call, [T("(1, 6, 6, 4)", "uint8")]) == T("(1, 4, 4, 8)", "int32")
    call = (
        "qnn.conv2d_transpose(%a, meta[relay.Constant][0], 0, 0, 0.5f, 0.5f, channels=2, kernel_size=[2, 2], "
        'out_dtype="int32")'
    )
    assert FAMILY.result_type(call, [T("(1, 3, 4, 4)", "int8")]) == T("(1, 2, 5, 5)", "int32")


REJECTED = [
    (
        'qnn.conv2d(%a, %b, PARAMS, out_dtype="int32")',
        [T("(1, 4, 5, 5)", "int32"), T("(6, 4, 3, 3)", "int8")],
        "type-mismatch",
        "`qnn.conv2d` takes data of type `int8`, `uint8` or `int16`, found `int32`",
        "%a",
    ),
    (
        "qnn.conv2d(%a, %b, PARAMS)",
        [T("(1, 4, 5, 5)", "int8"), T("(6, 4, 3, 3)", "int8")],
        "type-mismatch",
        "`qnn.conv2d` produces `int16`, `int32` or `int64`, given no out_dtype",
        None,
    ),
    (
        'qnn.conv2d(%a, %b, PARAMS, out_dtype="int32")',
        [T("(1, 4, 5, 5)", "int8"), T("(6, 3, 3, 3)", "int8")],
        "shape-mismatch",
        "`qnn.conv2d`: the data has 4 channels, but the weight expects 3 (groups=1)",
        "%b",
    ),
    (
        'qnn.conv2d(%a, %b, %c, 0, 0.5f, %d, out_dtype="int32")',
        [T("(1, 4, 5, 5)", "int8"), T("(6, 4, 3, 3)", "int8"), T("(1)", "int32"), T("(6)")],
        "shape-mismatch",
        "`qnn.conv2d` takes the input zero point as a scalar, found a tensor of shape (1)",
        "%c",
    ),
    (
        'qnn.conv2d(%a, %b, 0, 0, 0.5f, %c, out_dtype="int32")',
        [T("(1, 4, 5, 5)", "int8"), T("(6, 4, 3, 3)", "int8"), T("(4)")],
        "shape-mismatch",
        "`qnn.conv2d`: the weight scale has 4 values, but the weight's output channels has 6",
        "%c",
    ),
    (
        'qnn.conv2d(%a, %b, PARAMS, groups=4, channels=8, kernel_size=[3, 3], out_dtype="int32")',
        [T("(1, 4, 8, 8)", "int8"), T("(4, 3, 3, 3)", "int8")],
        "shape-mismatch",
        (
            "`qnn.conv2d`: channels=8 and kernel_size=[3, 3] give a weight of shape (4, 2, 3, 3) (OIHW), found "
            "(4, 3, 3, 3)"
        ),
        "%b",
    ),
    (
        'qnn.conv2d_transpose(%a, %b, PARAMS, out_dtype="int32")',
        [T("(1, 4, 5, 5)", "int8"), T("(4, 2, 3, 3)", "int16")],
        "type-mismatch",
        "`qnn.conv2d_transpose` takes weights of type `int8` or `uint8`, found `int16`",
        "%b",
    ),
    (
        'qnn.conv2d_transpose(%a, %b, %c, 0, 0.5f, 0.5f, out_dtype="int32")',
        [T("(1, 4, 5, 5)", "int8"), T("(4, 2, 3, 3)", "int8"), T("(2)", "int32")],
        "shape-mismatch",
        "`qnn.conv2d_transpose`: the input zero point has 2 values, but a per-tensor parameter has 1",
        "%c",
    ),
    (
        "qnn.avg_pool2d(%a, 0.5f, 0, 0.5f, 0, pool_size=[2, 2])",
        [T("(1, 4, 5, 5)", "int16")],
        "type-mismatch",
        "`qnn.avg_pool2d` takes quantized data of type `int8` or `uint8`, found `int16`",
        "%a",
    ),
    (
        'qnn.avg_pool2d(%a, 0.5f, 0, 0.5f, 0, pool_size=[2, 2], layout="NCD")',
        [T("(1, 4, 5)", "int8")],
        "type-mismatch",
        '`qnn.avg_pool2d`: layout "NCD" must name the axes H and W once each, unsplit',
        None,
    ),
    (
        "qnn.avg_pool2d(%a, 0.5f, 0, 0.5f, 0, pool_size=[2, 2])",
        [T("(1, 4, 5)", "int8")],
        "shape-mismatch",
        '`qnn.avg_pool2d`: layout "NCHW" has 4 axes, the data (1, 4, 5)',
        "%a",
    ),
]


@pytest.mark.parametrize("call, types, code, message, where", REJECTED)
def test_rejected_calls(call: str, types: list[str], code: str, message: str, where: str | None) -> None:
    """The ICHECKs of QnnConv2DRel, QnnConv2DTransposeRel and QnnAvgPool2DRel, and
    Conv2DRel's channel and weight-shape rules."""
    d = FAMILY.only_error(conv(call), types)
    assert (d.code, d.message) == (code, message)
    if where is not None:
        assert d.span.text == where


# ---------------------------------------------------------------- kernels: convolutions


def _torch():
    torch_reference()
    import torch

    return torch


def _conv_ref(x, w, zx, zw, **kw):
    """PyTorch conv2d (NCHW, OIHW) of the shifted integers in float64, as int64."""
    torch = _torch()
    xs = torch.tensor(x.astype(np.int64) - zx, dtype=torch.float64)
    ws = torch.tensor(w.astype(np.int64) - np.asarray(zw).reshape(-1, 1, 1, 1), dtype=torch.float64)
    return torch.nn.functional.conv2d(xs, ws, **kw).numpy().astype(np.int64)


def _run_conv(x, w, zx, zw, **attrs):
    return FAMILY.run("qnn.conv2d", x, w, i32(zx), np.asarray(zw, i32), f32(0.5), f32(0.25), **attrs)


def test_conv2d_against_torch() -> None:
    """Σ (data - input_zp)(weight - weight_zp) with zero-point padding (convolution.cc),
    per tensor and per output channel, with strides, padding, dilation, groups."""
    rng = np.random.default_rng(2)
    x = rng.integers(0, 256, size=(2, 4, 7, 6)).astype("uint8")
    w = rng.integers(-128, 128, size=(6, 4, 3, 3)).astype("int8")
    got = _run_conv(x, w, 128, 3, padding=[1, 2], strides=[2, 1], out_dtype="int32")
    same(got, _conv_ref(x, w, 128, 3, padding=(1, 2), stride=(2, 1)).astype("int32"))
    zw = np.array([1, -2, 3, 0, 5, -6], i32)
    got = _run_conv(x, w, 77, zw, dilation=[2, 2], out_dtype="int64")
    same(got, _conv_ref(x, w, 77, zw, dilation=2))
    wg = rng.integers(-128, 128, size=(6, 2, 2, 2)).astype("int8")
    got = _run_conv(x, wg, 5, 0, groups=2, out_dtype="int32")
    same(got, _conv_ref(x, wg, 5, 0, groups=2).astype("int32"))


def test_conv2d_layouts_and_depthwise() -> None:
    """NHWC/HWIO as in test_op_qnn_conv2d.py::test_layout; depthwise with a multiplier:
    TVM's (C, multiplier, KH, KW) weight feeds output channel c * multiplier + j from channel c."""
    rng = np.random.default_rng(4)
    x = rng.integers(0, 256, size=(2, 5, 5, 4)).astype("uint8")
    w = rng.integers(0, 256, size=(2, 2, 4, 3)).astype("uint8")
    got = _run_conv(x, w, 10, 20, data_layout="NHWC", kernel_layout="HWIO", out_dtype="int32")
    ref = _conv_ref(x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1), 10, 20).transpose(0, 2, 3, 1)
    same(got, ref.astype("int32"))
    xd = rng.integers(0, 256, size=(1, 4, 6, 6)).astype("uint8")
    wd = rng.integers(0, 256, size=(4, 2, 3, 3)).astype("uint8")
    zw = np.array([3, 1, 4, 1], i32)
    got = _run_conv(xd, wd, 128, zw, groups=4, channels=8, kernel_size=[3, 3], out_dtype="int32")
    shifted = wd.astype(np.int64) - zw.reshape(4, 1, 1, 1)
    ref = _conv_ref(xd, shifted.reshape(8, 1, 3, 3), 128, 0, groups=4)
    same(got, ref.astype("int32"))


def test_conv2d_wraps_to_int16() -> None:
    """The exact sum wrapped to out_dtype (TVM's int16 accumulation wraps)."""
    x = np.full((1, 1, 2, 2), 255, "uint8")
    w = np.full((1, 1, 2, 2), 127, "int8")
    got = _run_conv(x, w, 0, 0, out_dtype="int16")
    same(got, np.array(4 * 255 * 127, np.int64).astype("int16").reshape(1, 1, 1, 1))


def _run_transpose(x, w, zx, zw, **attrs):
    return FAMILY.run(
        "qnn.conv2d_transpose", x, w, np.asarray(zx, i32), np.asarray(zw, i32), f32(0.5), f32(0.25), **attrs
    )


def test_conv2d_transpose_against_torch() -> None:
    """legalizations.py: both operands shifted by their zero points in int16, then
    nn.conv2d_transpose; a vector weight zero point runs along the weight's axis 1."""
    torch = _torch()
    rng = np.random.default_rng(6)
    x = rng.integers(0, 256, size=(2, 4, 3, 5)).astype("uint8")
    w = rng.integers(-128, 128, size=(4, 3, 3, 2)).astype("int8")
    got = _run_transpose(x, w, 100, 2, strides=[2, 1], padding=[1, 0], output_padding=[1, 0], out_dtype="int32")
    xs = torch.tensor(x.astype(np.int64) - 100, dtype=torch.float64)
    ws = torch.tensor(w.astype(np.int64) - 2, dtype=torch.float64)
    ref = torch.nn.functional.conv_transpose2d(xs, ws, stride=(2, 1), padding=(1, 0), output_padding=(1, 0))
    same(got, ref.numpy().astype("int32"))
    zw = np.array([1, 0, -3], i32)
    got = _run_transpose(x, w, np.array([7], i32), zw, out_dtype="int64")
    ws = torch.tensor(w.astype(np.int64) - zw.reshape(1, 3, 1, 1), dtype=torch.float64)
    ref = torch.nn.functional.conv_transpose2d(torch.tensor(x.astype(np.int64) - 7, dtype=torch.float64), ws)
    same(got, ref.numpy().astype("int64"))


# ---------------------------------------------------------------- kernels: avg_pool2d


def _pool_ref(q, s_in, z_in, s_out, z_out, k, s, pads, include_pad, ceil, dtype):
    """Loop reference on an (H, W) plane: requantize to int32, sum the window's in-bounds
    values (padding counts as 0), divide truncating by the element count, saturate."""
    h, w = q.shape
    r = [[requantize_ref(int(v), s_in, z_in, s_out, z_out, "int32") for v in row] for row in q]
    pt, pl, pb, pr = pads
    oh = (h + pt + pb - k + (s - 1 if ceil else 0)) // s + 1
    ow = (w + pl + pr - k + (s - 1 if ceil else 0)) // s + 1
    lo, hi = RANGES[dtype]
    out = np.zeros((oh, ow), dtype)
    for a in range(oh):
        for b in range(ow):
            rows = [a * s - pt + i for i in range(k)]
            cols = [b * s - pl + j for j in range(k)]
            total = sum(r[y][x] for y in rows for x in cols if 0 <= y < h and 0 <= x < w)
            if include_pad:
                count = sum(1 for y in rows if y < h + pb) * sum(1 for x in cols if x < w + pr)
            else:
                count = max(sum(1 for y in rows if 0 <= y < h) * sum(1 for x in cols if 0 <= x < w), 1)
            mean = abs(total) // count * (1 if total >= 0 else -1)
            out[a, b] = min(max(mean, lo), hi)
    return out


@pytest.mark.parametrize("include_pad", [False, True])
@pytest.mark.parametrize("ceil", [False, True])
def test_avg_pool2d_against_reference(include_pad: bool, ceil: bool) -> None:
    """avg_pool2d.cc then TOPI's integer pooling (include/tvm/topi/nn/pooling.h)."""
    rng = np.random.default_rng(8)
    x = rng.integers(0, 256, size=(1, 2, 7, 6)).astype("uint8")
    params = (0.5, 128, 0.25, 3)
    got = FAMILY.run(
        "qnn.avg_pool2d",
        x,
        f32(0.5),
        i32(128),
        f32(0.25),
        i32(3),
        pool_size=[3, 3],
        strides=[2, 2],
        padding=[1, 0, 1, 1],
        ceil_mode=ceil,
        count_include_pad=include_pad,
    )
    for c in range(2):
        same(got[0, c], _pool_ref(x[0, c], *params, 3, 2, (1, 0, 1, 1), include_pad, ceil, "uint8"))


def test_avg_pool2d_nhwc() -> None:
    """The layout names the pooled axes; parameters equal to the output's only upcast."""
    x = np.arange(32, dtype=np.int64).reshape(1, 4, 4, 2).astype("int8")
    got = FAMILY.run(
        "qnn.avg_pool2d", x, f32(1), i32(0), f32(1), i32(0), pool_size=[2, 2], strides=[2, 2], layout="NHWC"
    )
    expected = np.array([[[[5, 6], [9, 10]], [[21, 22], [25, 26]]]], "int8")
    same(got, expected)


def test_avg_pool2d_empty_window() -> None:
    """With count_include_pad, a window past the padding counts no element: TVM divides by 0."""
    x = np.ones((1, 1, 2, 2), "int8")
    with pytest.raises(KernelError):
        FAMILY.run(
            "qnn.avg_pool2d",
            x,
            f32(1),
            i32(0),
            f32(1),
            i32(0),
            pool_size=[1, 1],
            strides=[2, 2],
            ceil_mode=True,
            count_include_pad=True,
        )


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
