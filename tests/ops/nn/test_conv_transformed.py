"""Convolutions on pre-transformed weights: the Winograd transforms and the
convolutions that take their output, GEMM packing, and dense on packed
weights.

Shape rules: src/relay/op/nn/convolution.cc (Conv2DWinogradWeightTransformRel,
Conv3DWinogradWeightTransformRel, Conv2DWinogradNNPACKWeightTransformRel,
Conv3DWinogradRel, Conv2DGemmRel, Conv2DGemmWeightTransformRel),
convolution.h (Conv2DWinogradRel) and nn.cc (DensePackRel). Values: TOPI's
python/tvm/topi/nn/conv2d.py (conv2d_winograd_weight_transform,
conv2d_gemm_weight_transform), conv3d.py, winograd_util.py. Each
`without_weight_transform` convolution is checked the way it is used: the
weight transformed by its transform operator gives the plain convolution's
numbers.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from relay_text.ops import get
from tests.ops.family import Family, T, same

FAMILY = Family(
    "nn.contrib_conv2d_winograd_weight_transform",
    "nn.contrib_conv3d_winograd_weight_transform",
    "nn.contrib_conv2d_winograd_nnpack_weight_transform",
    "nn.contrib_conv2d_winograd_without_weight_transform",
    "nn.contrib_conv3d_winograd_without_weight_transform",
    "nn.contrib_conv2d_gemm_weight_transform",
    "nn.contrib_conv2d_gemm_without_weight_transform",
    "nn.contrib_dense_pack",
)


def plain(name: str, *args: np.ndarray, **attrs) -> np.ndarray:
    """A convolution of another family (the reference the transformed ones must match)."""
    op = get(name)
    full, problems = op.normalize_attrs(attrs.items())
    assert not problems
    return op.kernel(tuple(args), full)


def rng() -> np.random.Generator:
    return np.random.default_rng(11)


# ---------------------------------------------------------------- relations

RESULTS = [
    ("nn.contrib_conv2d_winograd_weight_transform(%a, tile_size=4)", [T("(8, 4, 3, 3)")], T("(6, 6, 8, 4)")),
    (
        "nn.contrib_conv2d_winograd_weight_transform(%a, tile_size=2)",
        [T("(8, 4, 3, 3)", "int32")],
        T("(4, 4, 8, 4)", "int32"),
    ),
    # Conv3DWinogradWeightTransformRel: the depth is transformed only when 2 < KD < 8
    ("nn.contrib_conv3d_winograd_weight_transform(%a, tile_size=2)", [T("(8, 4, 3, 3, 3)")], T("(4, 4, 4, 8, 4)")),
    ("nn.contrib_conv3d_winograd_weight_transform(%a, tile_size=4)", [T("(8, 4, 1, 3, 3)")], T("(6, 6, 1, 8, 4)")),
    (
        "nn.contrib_conv2d_winograd_nnpack_weight_transform(%a, convolution_algorithm=0)",
        [T("(8, 4, 3, 3)")],
        T("(8, 4, 8, 8)"),
    ),
    (
        'nn.contrib_conv2d_winograd_nnpack_weight_transform(%a, convolution_algorithm=0, out_dtype="float64")',
        [T("(8, 4, 3, 3)")],
        T("(8, 4, 8, 8)", "float64"),
    ),
    (
        (
            "nn.contrib_conv2d_winograd_without_weight_transform(%a, %b, tile_size=4, channels=8, "
            "kernel_size=[3, 3], padding=[1, 1])"
        ),
        [T("(1, 4, 14, 14)"), T("(6, 6, 8, 4)")],
        T("(1, 8, 14, 14)"),
    ),
    (
        (
            "nn.contrib_conv2d_winograd_without_weight_transform(%a, %b, tile_size=2, channels=8, "
            'kernel_size=[3, 3], data_layout="NHWC", out_dtype="float64")'
        ),
        [T("(1, 14, 14, 4)"), T("(4, 4, 8, 4)")],
        T("(1, 12, 12, 8)", "float64"),
    ),
    (
        "nn.contrib_conv3d_winograd_without_weight_transform(%a, %b, tile_size=2, channels=8, kernel_size=[3, 3, 3])",
        [T("(1, 4, 6, 6, 6)"), T("(4, 4, 4, 8, 4)")],
        T("(1, 8, 4, 4, 4)"),
    ),
    # Conv2DGemmWeightTransformRel: K = 3 * 3 * 5 = 45 padded to a multiple of 4 * tile_K, N = 6 to one of tile_N
    ("nn.contrib_conv2d_gemm_weight_transform(%a, tile_N=4, tile_K=2)", [T("(3, 3, 5, 6)")], T("(2, 24, 2, 4)")),
    (
        "nn.contrib_conv2d_gemm_weight_transform(%a, tile_N=4, tile_K=2)",
        [T("(3, 3, 5, 6)", "int8")],
        T("(2, 24, 4, 2)", "int8"),
    ),
    (
        (
            "nn.contrib_conv2d_gemm_without_weight_transform(%a, %b, channels=6, kernel_size=[3, 3], "
            'padding=[1, 1], data_layout="NHWC", kernel_layout="HWIO", out_dtype="int32")'
        ),
        [T("(1, 7, 7, 5)", "int8"), T("(2, 24, 4, 2)", "int8")],
        T("(1, 7, 7, 6)", "int32"),
    ),
    # DensePackRel: units = weight.shape[0] * weight.shape[2]
    ("nn.contrib_dense_pack(%a, %b)", [T("(3, 16)"), T("(4, 16, 8)")], T("(3, 32)")),
    (
        'nn.contrib_dense_pack(%a, %b, out_dtype="int32")',
        [T("(3, 16)", "uint8"), T("(2, 4, 16, 4)", "int8")],
        T("(3, 32)", "int32"),
    ),
]


@pytest.mark.parametrize("call, types, expected", RESULTS, ids=[c[0][:70] for c in RESULTS])
def test_result_types(call: str, types: list[str], expected: str) -> None:
    assert FAMILY.result_type(call, types) == expected


ERRORS = [
    (
        "nn.contrib_conv2d_winograd_weight_transform(%a, tile_size=9)",
        [T("(8, 4, 3, 3)")],
        "type-mismatch",
        "`nn.contrib_conv2d_winograd_weight_transform` tile_size must be 2 to 8, found 9",
        None,
    ),
    (
        "nn.contrib_conv2d_winograd_weight_transform(%a, tile_size=2)",
        [T("(8, 4, 3, 5)")],
        "shape-mismatch",
        "`nn.contrib_conv2d_winograd_weight_transform` needs a square window, found (8, 4, 3, 5)",
        "%a",
    ),
    (
        "nn.contrib_conv3d_winograd_weight_transform(%a, tile_size=2)",
        [T("(8, 4, 3, 5, 5)")],
        "shape-mismatch",
        (
            "`nn.contrib_conv3d_winograd_weight_transform` needs a cubic (the depth is transformed too) "
            "window, found (8, 4, 3, 5, 5)"
        ),
        "%a",
    ),
    (
        "nn.contrib_conv2d_winograd_nnpack_weight_transform(%a, convolution_algorithm=0)",
        [T("(8, 4, 5, 5)")],
        "shape-mismatch",
        "`nn.contrib_conv2d_winograd_nnpack_weight_transform` transforms 3x3 windows, found (8, 4, 5, 5)",
        "%a",
    ),
    (
        "nn.contrib_conv2d_winograd_without_weight_transform(%a, %b, tile_size=2)",
        [T("(1, 4, 8, 8)"), T("(4, 4, 8, 4)")],
        "type-mismatch",
        (
            "`nn.contrib_conv2d_winograd_without_weight_transform` needs the attributes channels and "
            "kernel_size (its weight is pre-transformed)"
        ),
        None,
    ),
    (
        "nn.contrib_conv2d_winograd_without_weight_transform(%a, %b, tile_size=4, channels=8, kernel_size=[3, 3])",
        [T("(1, 4, 8, 8)"), T("(4, 4, 8, 4)")],
        "shape-mismatch",
        (
            "`nn.contrib_conv2d_winograd_without_weight_transform`: the transformed weight should be (6, 6, 8, "
            "4), found (4, 4, 8, 4)"
        ),
        "%b",
    ),
    (
        "nn.contrib_conv2d_winograd_without_weight_transform(%a, %b, tile_size=2, channels=8, kernel_size=[3, 3])",
        [T("(1, 4, 8, 8)", "int32"), T("(4, 4, 8, 4)", "int32")],
        "type-mismatch",
        (
            "`nn.contrib_conv2d_winograd_without_weight_transform` takes a floating-point (transformed) "
            "weight, found `int32`"
        ),
        "%b",
    ),
    (
        "nn.contrib_conv3d_winograd_without_weight_transform(%a, %b, tile_size=2, channels=8, kernel_size=[3, 3, 3])",
        [T("(1, 4, 6, 6, 6)"), T("(4, 4, 3, 8, 4)")],
        "shape-mismatch",
        (
            "`nn.contrib_conv3d_winograd_without_weight_transform`: the transformed weight should be (4, 4, 4, "
            "8, 4), found (4, 4, 3, 8, 4)"
        ),
        "%b",
    ),
    (
        "nn.contrib_conv2d_gemm_weight_transform(%a, tile_N=4, tile_K=2)",
        [T("(3, 5, 6)")],
        "shape-mismatch",
        "`nn.contrib_conv2d_gemm_weight_transform` needs a 4-D weight (HWIO), found (3, 5, 6)",
        "%a",
    ),
    (
        (
            "nn.contrib_conv2d_gemm_without_weight_transform(%a, %b, channels=6, kernel_size=[3, 3], "
            'data_layout="NHWC", kernel_layout="HWIO")'
        ),
        [T("(1, 7, 7, 5)"), T("(2, 4, 2, 4)")],
        "shape-mismatch",
        (
            "`nn.contrib_conv2d_gemm_without_weight_transform`: the packed weight (2, 4, 2, 4) holds a 8 x 8 "
            "matrix, but the convolution needs 45 x 6"
        ),
        "%b",
    ),
    (
        "nn.contrib_dense_pack(%a, %b)",
        [T("(3, 15)"), T("(4, 16, 8)")],
        "shape-mismatch",
        "`nn.contrib_dense_pack`: the data has 15 features, but the packed weight (4, 16, 8) has 16",
        "%b",
    ),
    (
        "nn.contrib_dense_pack(%a, %b)",
        [T("(2, 3, 16)"), T("(4, 16, 8)")],
        "shape-mismatch",
        "`nn.contrib_dense_pack` takes 2-D data, found (2, 3, 16)",
        "%a",
    ),
]


@pytest.mark.parametrize("call, types, code, message, at", ERRORS, ids=[e[3][:70] for e in ERRORS])
def test_rejected(call: str, types: list[str], code: str, message: str, at: str | None) -> None:
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    assert d.span.text == (at or call)


# ---------------------------------------------------------------- winograd kernels


def g_matrix(tile: int, k: int, points: list) -> np.ndarray:
    """G of F(tile, k) in exact fractions (winograd_util.py's Cook-Toom construction:
    row i is a_i^j over the product of (a_i - a_m), the first row's sign made
    positive, and a last row for the point at infinity)."""
    alpha = tile + k - 1
    pts = [Fraction(p) for p in points]
    rows = []
    for i, a in enumerate(pts):
        den = Fraction(1)
        for m, b in enumerate(pts):
            if m != i:
                den *= a - b
        if i == 0:
            den = abs(den)
        rows.append([a**j / den for j in range(k)])
    rows.append([Fraction(int(j == k - 1)) for j in range(k)])
    assert len(rows) == alpha
    return np.array([[float(v) for v in row] for row in rows])


def test_winograd_g_for_f23_by_hand() -> None:
    """F(2, 3) with points 0, -1, 1: the transform of a 3x3 window of ones."""
    w = np.ones((1, 1, 3, 3), np.float32)
    u = FAMILY.run("nn.contrib_conv2d_winograd_weight_transform", w, tile_size=2)
    g = np.array([[1, 0, 0], [0.5, -0.5, 0.5], [0.5, 0.5, 0.5], [0, 0, 1]])
    same(u, (g @ np.ones((3, 3)) @ g.T).reshape(4, 4, 1, 1).astype(np.float32))


def test_winograd_weight_transform_f43_against_loops() -> None:
    """U[a, b, o, i] = sum G[a, k] w[o, i, k, l] G[b, l] with F(4, 3)'s G (points 0, -1, 1, 1/2, -2)."""
    w = rng().standard_normal((2, 3, 3, 3)).astype(np.float32)
    g = g_matrix(4, 3, [0, -1, 1, 0.5, -2])
    u = FAMILY.run("nn.contrib_conv2d_winograd_weight_transform", w, tile_size=4)
    ref = np.zeros((6, 6, 2, 3))
    for a in range(6):
        for b in range(6):
            for o in range(2):
                for i in range(3):
                    ref[a, b, o, i] = sum(g[a, k] * w[o, i, k, m] * g[b, m] for k in range(3) for m in range(3))
    same(u, ref.astype(np.float32), rtol=1e-5, atol=1e-5)


def test_winograd_weight_transform_of_integers_truncates_g() -> None:
    """TOPI converts G to the weight's dtype: F(2, 3)'s halves become 0, so only
    the corner rows survive: U[a, b] = w[0|2, 0|2] at a, b in {0, 3}."""
    w = np.arange(9, dtype=np.int32).reshape(1, 1, 3, 3)
    u = FAMILY.run("nn.contrib_conv2d_winograd_weight_transform", w, tile_size=2)
    expected = np.zeros((4, 4, 1, 1), np.int32)
    expected[0, 0], expected[0, 3], expected[3, 0], expected[3, 3] = 0, 2, 6, 8
    same(u, expected)


@pytest.mark.parametrize("tile, layout", [(2, "NCHW"), (4, "NCHW"), (6, "NHWC")])
def test_winograd_conv2d_equals_the_plain_convolution(tile: int, layout: str) -> None:
    """Transform a weight, convolve with the transformed weight: nn.conv2d's numbers."""
    g = rng()
    x = g.standard_normal((2, 4, 9, 8)).astype(np.float32)
    w = g.standard_normal((6, 2, 3, 3)).astype(np.float32)
    u = FAMILY.run("nn.contrib_conv2d_winograd_weight_transform", w, tile_size=tile)
    data = x if layout == "NCHW" else x.transpose(0, 2, 3, 1)
    out = FAMILY.run(
        "nn.contrib_conv2d_winograd_without_weight_transform",
        data,
        u,
        tile_size=tile,
        channels=6,
        kernel_size=[3, 3],
        padding=[1, 1],
        groups=2,
        data_layout=layout,
    )
    ref = plain("nn.conv2d", x, w, padding=[1, 1], groups=2)
    same(out, ref if layout == "NCHW" else ref.transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("window", [(3, 3, 3), (1, 3, 3)])
def test_winograd_conv3d_equals_the_plain_convolution(window: tuple) -> None:
    """Both forms of the 3-D transform (depth transformed, depth kept) round-trip to nn.conv3d."""
    g = rng()
    x = g.standard_normal((1, 3, 5, 6, 7)).astype(np.float32)
    w = g.standard_normal((4, 3, *window)).astype(np.float32)
    u = FAMILY.run("nn.contrib_conv3d_winograd_weight_transform", w, tile_size=2)
    assert u.shape == ((4, 4, 4, 4, 3) if window[0] == 3 else (4, 4, 1, 4, 3))
    out = FAMILY.run(
        "nn.contrib_conv3d_winograd_without_weight_transform",
        x,
        u,
        tile_size=2,
        channels=4,
        kernel_size=list(window),
        padding=[1, 1, 1],
        strides=[1, 2, 1],
    )
    ref = plain("nn.conv3d", x, w, padding=[1, 1, 1], strides=[1, 2, 1])
    same(out, ref, rtol=1e-4, atol=1e-4)


def test_winograd3d_weight_transform_against_loops() -> None:
    w = rng().standard_normal((1, 2, 3, 3, 3))
    g = g_matrix(2, 3, [0, -1, 1])
    u = FAMILY.run("nn.contrib_conv3d_winograd_weight_transform", w, tile_size=2)
    ref = np.zeros((4, 4, 4, 1, 2))
    for c in range(4):
        for a in range(4):
            for b in range(4):
                for i in range(2):
                    ref[c, a, b, 0, i] = sum(
                        g[c, p] * g[a, q] * g[b, s] * w[0, i, p, q, s]
                        for p in range(3)
                        for q in range(3)
                        for s in range(3)
                    )
    same(u, ref, dtype="float64", rtol=1e-9, atol=1e-9)


def test_nnpack_weight_transform_is_f63_per_weight() -> None:
    """(O, I, 8, 8): the F(6, 3) transform of each window, in out_dtype."""
    w = rng().standard_normal((2, 3, 3, 3)).astype(np.float32)
    g = g_matrix(6, 3, [0, -1, 1, 0.5, -0.5, 2, -2])
    out = FAMILY.run(
        "nn.contrib_conv2d_winograd_nnpack_weight_transform", w, convolution_algorithm=0, out_dtype="float64"
    )
    ref = np.einsum("ak,oikl,bl->oiab", g, w.astype(np.float64), g)
    same(out, ref, dtype="float64", rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------- GEMM packing and dense_pack


def test_gemm_weight_transform_against_loops() -> None:
    """out[x, y, z, w] = B[z + tile_K * y, w + tile_N * x] (zero past the (K, N) matrix);
    8-bit integers: out[x, y, z, w] = B[w + tile_K * y, z + tile_N * x]."""
    for dtype in ("float32", "int8"):
        w = rng().integers(-100, 100, (3, 3, 5, 6)).astype(dtype)
        b = w.reshape(45, 6)
        out = FAMILY.run("nn.contrib_conv2d_gemm_weight_transform", w, tile_N=4, tile_K=2)
        ref = np.zeros((2, 24, 4, 2) if dtype == "int8" else (2, 24, 2, 4), dtype)
        for idx in np.ndindex(*ref.shape):
            x, y, z, v = idx
            r, c = (v + 2 * y, z + 4 * x) if dtype == "int8" else (z + 2 * y, v + 4 * x)
            ref[idx] = b[r, c] if r < 45 and c < 6 else 0
        same(out, ref)


@pytest.mark.parametrize("dtype, out_dtype", [("float32", ""), ("int8", "int32")])
def test_gemm_conv2d_equals_the_plain_convolution(dtype: str, out_dtype: str) -> None:
    g = rng()
    x = g.integers(-50, 50, (2, 7, 6, 5)).astype(dtype)
    w = g.integers(-50, 50, (3, 3, 5, 6)).astype(dtype)
    u = FAMILY.run("nn.contrib_conv2d_gemm_weight_transform", w, tile_N=4, tile_K=4)
    out = FAMILY.run(
        "nn.contrib_conv2d_gemm_without_weight_transform",
        x,
        u,
        channels=6,
        kernel_size=[3, 3],
        padding=[1, 1],
        strides=[2, 1],
        data_layout="NHWC",
        kernel_layout="HWIO",
        out_dtype=out_dtype,
    )
    ref = plain(
        "nn.conv2d", x, w, padding=[1, 1], strides=[2, 1], data_layout="NHWC", kernel_layout="HWIO", out_dtype=out_dtype
    )
    same(out, ref)


def test_dense_pack_against_loops() -> None:
    """3-D weight: W[j * t + b, k] = packed[j, k, b]; uint8 data, int8 weight, int32 sums."""
    g = rng()
    x = g.integers(0, 256, (3, 6)).astype(np.uint8)
    wp = g.integers(-128, 128, (2, 6, 4)).astype(np.int8)
    out = FAMILY.run("nn.contrib_dense_pack", x, wp, out_dtype="int32")
    ref = np.zeros((3, 8), np.int64)
    for i in range(3):
        for n in range(8):
            ref[i, n] = sum(int(x[i, k]) * int(wp[n // 4, k, n % 4]) for k in range(6))
    same(out, ref.astype(np.int32))


def test_dense_pack_4d_weight_equals_dense() -> None:
    """4-D weight (N / t, K / u, t, u): W[a * t + c, b * u + d] = packed[a, b, c, d]."""
    g = rng()
    x = g.standard_normal((2, 8)).astype(np.float32)
    w = g.standard_normal((6, 8)).astype(np.float32)
    packed = w.reshape(2, 3, 2, 4).transpose(0, 2, 1, 3)
    same(FAMILY.run("nn.contrib_dense_pack", x, packed), x @ w.T, rtol=1e-5, atol=1e-5)


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
