"""Special-purpose convolutions: `nn.deformable_conv2d`,
`nn.conv2d_backward_weight`, the bit-serial operators (`nn.bitpack`,
`nn.bitserial_conv2d`, `nn.bitserial_dense`), `nn.correlation` and
`nn.dilate`.

Shape rules: src/relay/op/nn/convolution.cc (DeformableConv2DRel,
Conv2DBackwardWeightRel), bitserial.cc (BitPackRel, BinaryConv2DRel,
BinaryDenseRel), correlation.cc (CorrelationRel), nn.cc (DilateRel).
Values: TOPI's nn/deformable_conv2d.py (with bilinear_sample_nchw of
include/tvm/topi/detail/tensor_utils.h), nn/bitserial_util.py,
nn/bitserial_conv2d.py, nn/bitserial_dense.py, nn/correlation.py,
nn/dilate.py, against plain-loop implementations written here (and PyTorch's
autograd for the weight gradient).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family(
    "nn.deformable_conv2d",
    "nn.conv2d_backward_weight",
    "nn.bitpack",
    "nn.bitserial_conv2d",
    "nn.bitserial_dense",
    "nn.correlation",
    "nn.dilate",
)


def rng() -> np.random.Generator:
    return np.random.default_rng(5)


# ---------------------------------------------------------------- relations

RESULTS = [
    ("nn.deformable_conv2d(%a, %b, %c)", [T("(1, 4, 5, 5)"), T("(1, 18, 3, 3)"), T("(2, 4, 3, 3)")], T("(1, 2, 3, 3)")),
    (
        "nn.deformable_conv2d(%a, %b, %c, padding=[1, 1], deformable_groups=2, kernel_size=[3, 3], channels=8)",
        [T("(2, 4, 6, 6)"), "Tensor[_, _]", "Tensor[_, _]"],
        T("(2, 8, 6, 6)"),
    ),
    # test_op_grad_level2.py::test_conv2d_backward_weight_infer_type: a normal and a depthwise convolution
    (
        (
            "nn.conv2d_backward_weight(%a, %b, padding=[1, 1, 1, 1], channels=3, kernel_size=[3, 3], "
            'kernel_layout="NCHW", out_layout="OIHW")'
        ),
        [T("(1, 3, 32, 32)"), T("(1, 3, 32, 32)")],
        T("(3, 3, 3, 3)"),
    ),
    (
        (
            "nn.conv2d_backward_weight(%a, %b, padding=[1, 1, 1, 1], groups=3, channels=3, kernel_size=[3, 3], "
            'kernel_layout="NCHW", out_layout="OIHW")'
        ),
        [T("(1, 3, 32, 32)"), T("(1, 3, 32, 32)")],
        T("(3, 1, 3, 3)"),
    ),
    (
        (
            'nn.conv2d_backward_weight(%a, %b, kernel_size=[2, 2], data_layout="NHWC", kernel_layout="NHWC", '
            'out_layout="HWIO", out_dtype="float64")'
        ),
        [T("(2, 4, 4, 6)"), T("(2, 5, 5, 3)")],
        T("(2, 2, 3, 6)", "float64"),
    ),
    # test_op_level2.py::test_bitpack_infer_type
    (
        'nn.bitpack(%a, bits=1, pack_axis=1, bit_axis=4, pack_type="uint16")',
        [T("(32, 32, 128, 128)", "int16")],
        T("(32, 2, 128, 128, 1)", "uint16"),
    ),
    (
        'nn.bitpack(%a, bits=2, pack_axis=0, bit_axis=0, pack_type="uint8")',
        [T("(16, 3)", "int32")],
        T("(2, 2, 3)", "uint8"),
    ),
    # test_bitserial_conv2d_infer_type (the Python API's out_dtype default, int16, written out)
    (
        'nn.bitserial_conv2d(%a, %b, kernel_size=[3, 3], padding=[0, 0], channels=32, out_dtype="int16")',
        [T("(?, 32, 24, 24)", "int16"), T("(32, 32, 3, 3)", "int16")],
        T("(?, 32, 22, 22)", "int16"),
    ),
    (
        (
            'nn.bitserial_conv2d(%a, %b, padding=[1, 1], channels=8, data_layout="NHWC", kernel_layout="HWIO", '
            'out_dtype="int32")'
        ),
        [T("(1, 6, 6, 4)", "uint8"), T("(3, 3, 4, 8)", "int8")],
        T("(1, 6, 6, 8)", "int32"),
    ),
    # test_op_level1.py::test_bitserial_dense
    ("nn.bitserial_dense(%a, %b, units=32)", [T("(?, 16)", "int16"), T("(32, 16)", "int16")], T("(?, 32)", "int16")),
    # test_correlation: out = ceil((H + pads - 2 * (max_displacement + kernel_size // 2)) / stride1)
    (
        (
            "nn.correlation(%a, %b, kernel_size=1, max_displacement=4, stride1=1, stride2=1, padding=[4, 4], "
            "is_multiply=True)"
        ),
        [T("(1, 3, 10, 10)"), T("(1, 3, 10, 10)")],
        T("(1, 81, 10, 10)"),
    ),
    (
        (
            "nn.correlation(%a, %b, kernel_size=3, max_displacement=6, stride1=2, stride2=2, padding=[2, 2], "
            "is_multiply=False)"
        ),
        [T("(5, 1, 19, 19)"), T("(5, 1, 19, 19)")],
        T("(5, 49, 5, 5)"),
    ),
    # DilateRel: (n - 1) * stride + 1 per axis
    ("nn.dilate(%a, strides=[1, 2, 3])", [T("(3, 7, 5)", "int8")], T("(3, 13, 13)", "int8")),
    ("nn.dilate(%a, strides=[2, 1], dilation_value=1f)", [T("(?, 4)")], T("(?, 4)")),
]


@pytest.mark.parametrize("call, types, expected", RESULTS, ids=[c[0][:70] for c in RESULTS])
def test_result_types(call: str, types: list[str], expected: str) -> None:
    assert FAMILY.result_type(call, types) == expected


def test_deformable_conv2d_infers_offset_and_weight() -> None:
    """DeformableConv2DRel assigns the offset (N, 2 * KH * KW * dg, OH, OW) and,
    from channels and kernel_size, the weight (channels, C / groups, KH, KW)."""
    call = "nn.deformable_conv2d(%a, %b, %c, padding=[1, 1], deformable_groups=2, kernel_size=[3, 3], channels=8)"
    types = [T("(2, 4, 6, 6)"), "Tensor[_, _]", "Tensor[_, _]"]
    assert FAMILY.param_type(call, types, 1) == T("(2, 36, 6, 6)")
    assert FAMILY.param_type(call, types, 2) == T("(8, 4, 3, 3)")


ERRORS = [
    (
        "nn.deformable_conv2d(%a, %b, %c)",
        [T("(1, 4, 5, 5)"), T("(1, 10, 3, 3)"), T("(2, 4, 3, 3)")],
        "type-mismatch",
        "`nn.deformable_conv2d` expects `Tensor[(1, 18, 3, 3), float32]` here, found `Tensor[(1, 10, 3, 3), float32]`",
        "%b",
    ),
    (
        "nn.deformable_conv2d(%a, %b, %c)",
        [T("(1, 4, 5, 5)", "int32"), T("(1, 18, 3, 3)"), T("(2, 4, 3, 3)", "int32")],
        "type-mismatch",
        "`nn.deformable_conv2d` samples between pixels and takes floating-point data, found `int32`",
        "%a",
    ),
    (
        "nn.deformable_conv2d(%a, %b, %c)",
        [T("(1, 4, 5, 5)"), T("(1, 18, 3, 3)"), T("(2, 3, 3, 3)")],
        "shape-mismatch",
        "`nn.deformable_conv2d`: the data has 4 channels, but the weight expects 3 (groups=1)",
        "%c",
    ),
    (
        'nn.conv2d_backward_weight(%a, %b, kernel_layout="NCHW")',
        [T("(1, 3, 4, 4)"), T("(1, 3, 6, 6)")],
        "type-mismatch",
        "`nn.conv2d_backward_weight` needs the attribute kernel_size",
        None,
    ),
    (
        "nn.conv2d_backward_weight(%a, %b, kernel_size=[3, 3])",
        [T("(1, 3, 4, 4)"), T("(1, 3, 6, 6)")],
        "type-mismatch",
        '`nn.conv2d_backward_weight`: kernel_layout (the layout of the data) "OIHW" is not supported',
        None,
    ),
    (
        'nn.conv2d_backward_weight(%a, %b, kernel_size=[3, 3], kernel_layout="NCHW")',
        [T("(2, 3, 4, 4)"), T("(1, 3, 6, 6)")],
        "shape-mismatch",
        "`nn.conv2d_backward_weight`: the gradient has batch 2, the data 1",
        "%b",
    ),
    (
        'nn.bitpack(%a, bits=1, pack_axis=1, bit_axis=2, pack_type="uint32")',
        [T("(2, 48)", "int32")],
        "shape-mismatch",
        "`nn.bitpack`: axis 1 has size 48, not a multiple of the 32 bits of uint32",
        "%a",
    ),
    (
        "nn.bitpack(%a, bit_axis=2)",
        [T("(2, 32)", "int32")],
        "type-mismatch",
        '`nn.bitpack` pack_type must be "uint8", "uint16", "uint32" or "uint64", found ""',
        None,
    ),
    (
        'nn.bitpack(%a, bit_axis=2, pack_type="uint8")',
        [T("(2, 32)")],
        "type-mismatch",
        "`nn.bitpack` packs the bits of integers, but the data is `float32`",
        "%a",
    ),
    (
        "nn.bitserial_conv2d(%a, %b, channels=8)",
        [T("(1, 4, 6, 6)", "int16"), T("(8, 4, 3, 3)", "int16")],
        "type-mismatch",
        "`nn.bitserial_conv2d` needs the attribute out_dtype",
        None,
    ),
    (
        'nn.bitserial_conv2d(%a, %b, channels=8, out_dtype="int16")',
        [T("(1, 4, 6, 6)", "int16"), T("(8, 2, 3, 3)", "int16")],
        "shape-mismatch",
        "`nn.bitserial_conv2d`: the weight should be (8, 4, 3, 3) (OIHW), found (8, 2, 3, 3)",
        "%b",
    ),
    (
        'nn.bitserial_conv2d(%a, %b, channels=8, data_layout="NHWC", out_dtype="int16")',
        [T("(1, 6, 6, 4)", "int16"), T("(3, 3, 4, 8)", "int16")],
        "type-mismatch",
        '`nn.bitserial_conv2d`: layouts "NHWC" / "OIHW" are not supported',
        None,
    ),
    (
        "nn.bitserial_dense(%a, %b, units=8)",
        [T("(2, 16)", "int16"), T("(8, 15)", "int16")],
        "shape-mismatch",
        "`nn.bitserial_dense`: the weight should be (8, 16), found (8, 15)",
        "%b",
    ),
    (
        "nn.correlation(%a, %b, kernel_size=2)",
        [T("(1, 3, 10, 10)"), T("(1, 3, 10, 10)")],
        "type-mismatch",
        "`nn.correlation` kernel_size must be a positive odd number, found 2",
        None,
    ),
    (
        "nn.correlation(%a, %b)",
        [T("(1, 3, 10, 10)"), T("(1, 3, 10, 9)")],
        "shape-mismatch",
        "`nn.correlation`: the two inputs must have one shape, found (1, 3, 10, 10) and (1, 3, 10, 9)",
        "%b",
    ),
    (
        "nn.dilate(%a, strides=[2, 2])",
        [T("(3, 4, 5)")],
        "shape-mismatch",
        "`nn.dilate` has 2 strides for data of rank 3",
        "%a",
    ),
]


@pytest.mark.parametrize("call, types, code, message, at", ERRORS, ids=[e[3][:70] for e in ERRORS])
def test_rejected(call: str, types: list[str], code: str, message: str, at: str | None) -> None:
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    assert d.span.text == (at or call)


# ---------------------------------------------------------------- deformable_conv2d


def bilinear(img: np.ndarray, y: float, x: float) -> float:
    """TVM's sampling of one channel: 0 outside [0, H) x [0, W); corners outside the image read 0."""
    h, w = img.shape
    if y < 0 or x < 0 or y >= h or x >= w:
        return 0.0
    y0, x0 = math.floor(y), math.floor(x)
    total = 0.0
    for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy <= h - 1 and 0 <= xx <= w - 1:
                total += wy * wx * float(img[yy, xx])
    return total


def deformable_reference(x, off, w, stride, pad, dil, dg):
    n, c = x.shape[:2]
    o, _, kh, kw = w.shape
    oh, ow = off.shape[2:]
    out = np.zeros((n, o, oh, ow))
    cpg = c // dg
    for b in range(n):
        for f in range(o):
            for yy in range(oh):
                for xx in range(ow):
                    total = 0.0
                    for ch in range(c):
                        g = ch // cpg
                        for i in range(kh):
                            for j in range(kw):
                                k = g * 2 * kh * kw + 2 * (i * kw + j)
                                y = yy * stride - pad + i * dil + off[b, k, yy, xx]
                                xq = xx * stride - pad + j * dil + off[b, k + 1, yy, xx]
                                total += bilinear(x[b, ch], y, xq) * w[f, ch, i, j]
                    out[b, f, yy, xx] = total
    return out


def test_deformable_conv2d_against_loops() -> None:
    """Fractional offsets, some pointing outside the image, two deformable groups."""
    g = rng()
    x = g.standard_normal((1, 4, 5, 6)).astype(np.float32)
    w = g.standard_normal((3, 4, 2, 2)).astype(np.float32)
    off = (g.standard_normal((1, 2 * 2 * 2 * 2, 3, 4)) * 1.5).astype(np.float32)
    out = FAMILY.run(
        "nn.deformable_conv2d", x, off, w, strides=[2, 2], padding=[1, 1], dilation=[2, 2], deformable_groups=2
    )
    same(out, deformable_reference(x, off, w, 2, 1, 2, 2).astype(np.float32), rtol=1e-4, atol=1e-4)


def test_deformable_conv2d_with_zero_offsets_is_conv2d() -> None:
    torch_reference()
    import torch

    g = rng()
    x = g.standard_normal((2, 4, 7, 6)).astype(np.float32)
    w = g.standard_normal((6, 2, 3, 3)).astype(np.float32)
    off = np.zeros((2, 18, 5, 4), np.float32)
    out = FAMILY.run("nn.deformable_conv2d", x, off, w, groups=2)
    ref = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), groups=2).numpy()
    same(out, ref, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- conv2d_backward_weight


def test_conv2d_backward_weight_against_autograd() -> None:
    """The weight gradient PyTorch's autograd gives for the same conv2d (strides, padding,
    dilation, groups)."""
    torch_reference()
    import torch

    g = rng()
    x = g.standard_normal((2, 4, 7, 6)).astype(np.float32)
    w = torch.tensor(g.standard_normal((6, 2, 3, 2)).astype(np.float32), requires_grad=True)
    y = torch.nn.functional.conv2d(torch.from_numpy(x), w, stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)
    grad = g.standard_normal(tuple(y.shape)).astype(np.float32)
    y.backward(torch.from_numpy(grad))
    out = FAMILY.run(
        "nn.conv2d_backward_weight",
        grad,
        x,
        strides=[2, 1],
        padding=[1, 0],
        dilation=[1, 2],
        groups=2,
        channels=6,
        kernel_size=[3, 2],
        kernel_layout="NCHW",
        out_layout="OIHW",
    )
    same(out, w.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_conv2d_backward_weight_integers_by_hand() -> None:
    """1x1 window, NHWC in, HWIO out: dw[0, 0, c, o] = sum over positions of grad[o] * data[c]."""
    grad = np.array([[[[1, 2]], [[3, 4]]]], np.int32)  # (1, 2, 1, 2) NHWC: two positions, two outputs
    data = np.array([[[[5]], [[6]]]], np.int32)  # (1, 2, 1, 1) NHWC, one channel
    out = FAMILY.run(
        "nn.conv2d_backward_weight",
        grad,
        data,
        kernel_size=[1, 1],
        data_layout="NHWC",
        kernel_layout="NHWC",
        out_layout="HWIO",
    )
    same(out, np.array([[[[1 * 5 + 3 * 6, 2 * 5 + 4 * 6]]]], np.int32))


# ---------------------------------------------------------------- bit-serial


def bitpack_reference(x: np.ndarray, bits: int, pack_axis: int, bit_axis: int, word: int) -> list:
    """Plain loops over an (A, B) array packed along `pack_axis`: plane b, word k holds
    bit b of elements k * word ... k * word + word - 1, the first one as the top bit."""
    moved = np.moveaxis(x, pack_axis, -1)
    planes = []
    for b in range(bits):
        rows = []
        for row in moved.reshape(-1, moved.shape[-1]):
            words = []
            for k in range(len(row) // word):
                v = 0
                for e in range(word):
                    v = (v << 1) | ((int(row[k * word + e]) >> b) & 1)
                words.append(v)
            rows.append(words)
        planes.append(np.moveaxis(np.array(rows).reshape(*moved.shape[:-1], -1), -1, pack_axis))
    return planes


def test_bitpack_against_loops() -> None:
    g = rng()
    x = g.integers(-8, 8, (3, 16)).astype(np.int32)
    out = FAMILY.run("nn.bitpack", x, bits=3, pack_axis=1, bit_axis=1, pack_type="uint8")
    planes = bitpack_reference(x, 3, 1, 1, 8)
    same(out, np.stack(planes, axis=1).astype(np.uint8))
    out = FAMILY.run("nn.bitpack", x.T.copy(), bits=2, pack_axis=0, bit_axis=2, pack_type="uint16")
    planes = bitpack_reference(x.T, 2, 0, 2, 16)
    same(out, np.stack(planes, axis=2).astype(np.uint16))


def test_bitpack_first_element_is_the_top_bit() -> None:
    x = np.zeros((1, 8), np.int8)
    x[0, 0] = 1
    same(FAMILY.run("nn.bitpack", x, bits=1, pack_axis=1, bit_axis=2, pack_type="uint8"), np.array([[[128]]], np.uint8))


def popcount_dot(a: np.ndarray, w: np.ndarray, abits: int, wbits: int, unipolar: bool) -> int:
    """TOPI's bit-serial product of two integer vectors, by bit planes and popcounts."""
    total = 0
    for b1 in range(abits):
        da = [(int(v) >> b1) & 1 for v in a]
        for b2 in range(wbits):
            dw = [(int(v) >> b2) & 1 for v in w]
            both = sum(p & q for p, q in zip(da, dw, strict=False))
            if unipolar:
                both -= sum(p & (1 - q) for p, q in zip(da, dw, strict=False))
            total += both << (b1 + b2)
    return total


@pytest.mark.parametrize("unipolar", [True, False])
def test_bitserial_dense_against_popcounts(unipolar: bool) -> None:
    g = rng()
    x = g.integers(0, 16, (3, 20)).astype(np.int16)
    w = g.integers(-4, 8, (5, 20)).astype(np.int16)
    out = FAMILY.run(
        "nn.bitserial_dense",
        x,
        w,
        units=5,
        data_bits=2,
        weight_bits=3,
        pack_dtype="uint32",
        out_dtype="int32",
        unipolar=unipolar,
    )
    ref = [[popcount_dot(x[i], w[j], 2, 3, unipolar) for j in range(5)] for i in range(3)]
    same(out, np.array(ref, np.int32))


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_bitserial_conv2d_against_popcounts(layout: str) -> None:
    """Zero padding reads 0 bits; unipolar weights count clear bits as -1."""
    g = rng()
    x = g.integers(0, 4, (1, 3, 4, 5)).astype(np.uint8)
    w = g.integers(0, 2, (2, 3, 3, 3)).astype(np.int8)
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)])
    ref = np.zeros((1, 2, 4, 5), np.int64)
    for o in range(2):
        for i in range(4):
            for j in range(5):
                ref[0, o, i, j] = popcount_dot(xp[0, :, i : i + 3, j : j + 3].ravel(), w[o].ravel(), 2, 1, True)
    if layout == "NCHW":
        out = FAMILY.run("nn.bitserial_conv2d", x, w, padding=[1, 1], channels=2, activation_bits=2, out_dtype="int16")
    else:
        out = FAMILY.run(
            "nn.bitserial_conv2d",
            x.transpose(0, 2, 3, 1),
            w.transpose(2, 3, 1, 0),
            padding=[1, 1],
            channels=2,
            activation_bits=2,
            data_layout="NHWC",
            kernel_layout="HWIO",
            out_dtype="int16",
        )
        ref = ref.transpose(0, 2, 3, 1)
    same(out, ref.astype(np.int16))


# ---------------------------------------------------------------- correlation, dilate


def correlation_reference(x, y, k, md, s1, s2, pad, mul):
    n, c, h, w = x.shape
    t, left, b, r = pad
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (t, b), (left, r)])
    yp = np.pad(y.astype(np.float64), [(0, 0), (0, 0), (t, b), (left, r)])
    dr = md // s2
    d = 2 * dr + 1
    border = md + (k - 1) // 2
    oh = -(-(h + t + b - 2 * border) // s1)
    ow = -(-(w + left + r - 2 * border) // s1)
    out = np.zeros((n, d * d, oh, ow))
    for q in range(d * d):
        for i in range(oh):
            for j in range(ow):
                y1, x1 = i * s1 + md, j * s1 + md
                y2, x2 = y1 + (q // d - dr) * s2, x1 + (q % d - dr) * s2
                p1 = xp[:, :, y1 : y1 + k, x1 : x1 + k]
                p2 = yp[:, :, y2 : y2 + k, x2 : x2 + k]
                out[:, q, i, j] = (p1 * p2 if mul else np.abs(p1 - p2)).sum(axis=(1, 2, 3)) / (k * k * c)
    return out


@pytest.mark.parametrize("mul", [True, False])
def test_correlation_against_loops(mul: bool) -> None:
    g = rng()
    x = g.standard_normal((2, 3, 9, 8)).astype(np.float32)
    y = g.standard_normal((2, 3, 9, 8)).astype(np.float32)
    out = FAMILY.run(
        "nn.correlation",
        x,
        y,
        kernel_size=3,
        max_displacement=2,
        stride1=2,
        stride2=1,
        padding=[2, 1, 2, 1],
        is_multiply=mul,
    )
    same(out, correlation_reference(x, y, 3, 2, 2, 1, (2, 1, 2, 1), mul).astype(np.float32), rtol=1e-5, atol=1e-5)


def test_correlation_of_integers_truncates() -> None:
    """int32: the mean divides toward zero (TVM's integer division): (-7) / 2 -> -3."""
    x = np.array([[[[1]], [[1]]]], np.int32)
    y = np.array([[[[-3]], [[-4]]]], np.int32)
    out = FAMILY.run("nn.correlation", x, y, kernel_size=1, max_displacement=0)
    same(out, np.array([[[[-3]]]], np.int32))


def test_dilate_by_hand() -> None:
    x = np.arange(6, dtype=np.int8).reshape(2, 3)
    out = FAMILY.run("nn.dilate", x, strides=[2, 3], dilation_value=-1.0)
    same(out, np.array([[0, -1, -1, 1, -1, -1, 2], [-1] * 7, [3, -1, -1, 4, -1, -1, 5]], np.int8))
    b = np.array([True, True])
    same(FAMILY.run("nn.dilate", b, strides=[2]), np.array([True, False, True]))


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
