"""qnn.dense, qnn.contrib_dense_pack and qnn.batch_matmul: result types,
rejected calls, and kernels against TVM's expected values
(tests/python/relay/test_op_qnn_dense.py, test_op_qnn_batch_matmul.py) and
against plain Python loops over the zero-point-shifted integers.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ops.family import Family, T, same
from tests.ops.qnn.test_quantize import requantize_ref

FAMILY = Family("qnn.dense", "qnn.contrib_dense_pack", "qnn.batch_matmul")

f32, i32 = np.float32, np.int32

# ---------------------------------------------------------------- relations

RESULTS = [
    (
        'qnn.dense(%a, %b, -1, -1, 0.5f, 0.5f, units=3, out_dtype="int32")',
        [T("(2, 10)", "int8"), T("(3, 10)", "int8")],
        T("(2, 3)", "int32"),
    ),
    (
        'qnn.dense(%a, %b, 0, 0, 0.5f, %c, units=None, out_dtype="int64")',
        [T("(4, 2, 10)", "uint16"), T("(3, 10)", "uint8"), T("(3)")],
        T("(4, 2, 3)", "int64"),
    ),
    (
        'qnn.contrib_dense_pack(%a, %b, 0, 0, 0.5f, 0.5f, units=None, out_dtype="int32", weight_layout="NC32n4c")',
        [T("(5, 8)", "uint8"), T("(2, 2, 32, 4)", "int8")],
        T("(5, 64)", "int32"),
    ),
    (
        'qnn.batch_matmul(%a, %b, 0, -123, 0.5f, 0.5f, out_dtype="int32", transpose_b=True)',
        [T("(1, 4, 5)", "int8"), T("(1, 3, 5)", "int8")],
        T("(1, 4, 3)", "int32"),
    ),
    (
        'qnn.batch_matmul(%a, %b, 0, 0, 0.5f, 0.5f, out_dtype="int32")',
        [T("(7, 4, 5)", "uint8"), T("(1, 5, 2)", "int8")],
        T("(7, 4, 2)", "int32"),
    ),
]


@pytest.mark.parametrize("call, types, expected", RESULTS)
def test_result_types(call: str, types: list[str], expected: str) -> None:
    """QnnDenseRel (MatmulRel), QnnDensePackRel (data rows by N_O * N_I) and
    QnnBatchMatmulRel (BatchMatmulRel) in src/relay/qnn/op/dense.cc and batch_matmul.cc."""
    assert FAMILY.result_type(call, types) == expected


def test_dense_units_are_required() -> None:
    """DenseAttrs.units has no default (include/tvm/relay/attrs/nn.h); None is a value."""
    d = FAMILY.only_error(
        'qnn.dense(%a, %b, 0, 0, 0.5f, 0.5f, out_dtype="int32")', [T("(2, 10)", "int8"), T("(3, 10)", "int8")]
    )
    assert (d.code, d.message) == ("missing-attribute", "`qnn.dense` needs the attribute `units`")


def test_weight_constant_without_metadata_follows_units() -> None:
    """MatmulRel derives the weight (units, K) in the data's dtype; scale and zero-point
    constants without metadata are scalars."""
    call = (
        "qnn.dense(%a, meta[relay.Constant][0], 0, meta[relay.Constant][1], 0.5f, meta[relay.Constant][2], "
        'units=10, out_dtype="int32")'
    )
    assert FAMILY.result_type(call, [T("(1, 64)", "uint8")]) == T("(1, 10)", "int32")


REJECTED = [
    (
        'qnn.dense(%a, %b, 0, 0, 0.5f, 0.5f, units=3, out_dtype="int32")',
        [T("(2, 10)", "int8"), T("(3, 10)", "int16")],
        "type-mismatch",
        "`qnn.dense` takes weights of type `int8` or `uint8`, found `int16`",
        "%b",
    ),
    (
        'qnn.dense(%a, %b, 0, 0, 0.5f, 0.5f, units=3, out_dtype="int16")',
        [T("(2, 10)", "int8"), T("(3, 10)", "int8")],
        "type-mismatch",
        "`qnn.dense` produces `int32` or `int64`, given `int16`",
        None,
    ),
    (
        'qnn.dense(%a, %b, 0, 0, 0.5f, 0.5f, units=3, out_dtype="int32")',
        [T("(2, 10)", "int8"), T("(3, 9)", "int8")],
        "shape-mismatch",
        "`qnn.dense`: the data has 10 input features but the weight expects 9",
        "%b",
    ),
    (
        'qnn.dense(%a, %b, 0, %c, 0.5f, 0.5f, units=3, out_dtype="int32")',
        [T("(2, 10)", "int8"), T("(3, 10)", "int8"), T("(4)", "int32")],
        "shape-mismatch",
        "`qnn.dense`: the weight zero point has 4 values, but units has 3",
        "%c",
    ),
    (
        'qnn.contrib_dense_pack(%a, %b, 0, 0, 0.5f, 0.5f, units=None, out_dtype="int32")',
        [T("(5, 8)", "int8"), T("(64, 8)", "int8")],
        "shape-mismatch",
        "`qnn.contrib_dense_pack` needs a packed weight (N_O, K_O, N_I, K_I) of rank 4, found (64, 8)",
        "%b",
    ),
    (
        'qnn.batch_matmul(%a, %b, 0, 0, 0.5f, 0.5f, out_dtype="int64")',
        [T("(1, 4, 5)", "int8"), T("(1, 5, 3)", "int8")],
        "type-mismatch",
        "`qnn.batch_matmul` produces `int32`, given `int64`",
        None,
    ),
    (
        'qnn.batch_matmul(%a, %b, 0, 0, 0.5f, 0.5f, out_dtype="int32", transpose_b=True)',
        [T("(2, 4, 5)", "int8"), T("(3, 3, 5)", "int8")],
        "shape-mismatch",
        "`qnn.batch_matmul`: batch sizes 2 and 3 differ",
        "%b",
    ),
    (
        'qnn.batch_matmul(%a, %b, %c, 0, 0.5f, 0.5f, out_dtype="int32")',
        [T("(1, 4, 5)", "int8"), T("(1, 5, 3)", "int8"), T("(4)", "int32")],
        "shape-mismatch",
        "`qnn.batch_matmul` takes the x zero point as a scalar, found a tensor of shape (4)",
        "%c",
    ),
]


@pytest.mark.parametrize("call, types, code, message, where", REJECTED)
def test_rejected_calls(call: str, types: list[str], code: str, message: str, where: str | None) -> None:
    """The dtype and out_dtype ICHECKs of the relations, MatmulRel's and
    BatchMatmulRel's shape rules, scalar input parameters."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    if where is not None:
        assert d.span.text == where


# ---------------------------------------------------------------- kernels


def _dense_loops(x, w, zx, zw):
    """Σ_k (x[i, k] - zx) * (w[u, k] - zw[u]) in Python integers."""
    zw = np.broadcast_to(np.asarray(zw), (w.shape[0],))
    return [
        [sum((int(x[i, k]) - zx) * (int(w[u, k]) - int(zw[u])) for k in range(x.shape[1])) for u in range(w.shape[0])]
        for i in range(x.shape[0])
    ]


def test_dense_matches_tvm() -> None:
    """tests/python/relay/test_op_qnn_dense.py: zero points -1; with a bias and a
    per-channel requantize after it, [23, 14, 20, 57, 34, 47]."""
    x = np.array([1, 3, 5, 7, 9, 11, 13, 15, -19, -21, 1, 3, 5, 7, 9, 11, 13, -17, 17, -21], "int8").reshape(2, 10)
    w = np.tile(np.array([1, 3, 5, 7, 9, 11, 13, 15, 17, 19], "int8"), 3).reshape(3, 10)
    got = FAMILY.run("qnn.dense", x, w, i32(-1), i32(-1), f32(0.5), f32(0.5), units=3, out_dtype="int32")
    same(got, np.array([[92, 92, 92], [228, 228, 228]], "int32"))
    biased = got + np.array([4, 8, 12], "int32")
    scales = (0.5 * np.array([0.5, 0.3, 0.4], f32)).astype(f32)
    requantized = [
        [requantize_ref(int(v), float(scales[u]), 0, 1.0, -1, "int8") for u, v in enumerate(row)] for row in biased
    ]
    same(np.array(requantized, "int8"), np.array([[23, 14, 20], [57, 34, 47]], "int8"))


def test_dense_against_loops() -> None:
    """dense.cc's four terms equal the product of the shifted operands; a vector weight
    zero point shifts each unit (DenseSecondTerm); int64 results are exact."""
    rng = np.random.default_rng(9)
    x = rng.integers(0, 65536, size=(3, 7)).astype("uint16")
    w = rng.integers(0, 256, size=(4, 7)).astype("uint8")
    zw = np.array([128, 0, 3, 255], i32)
    got = FAMILY.run("qnn.dense", x, w, i32(32768), zw, f32(0.5), np.ones(4, f32), units=4, out_dtype="int64")
    same(got, np.array(_dense_loops(x, w, 32768, zw), "int64"))
    x8 = rng.integers(-128, 128, size=(2, 3, 5)).astype("int8")
    w8 = rng.integers(-128, 128, size=(2, 5)).astype("int8")
    got = FAMILY.run("qnn.dense", x8, w8, i32(-3), i32(7), f32(0.5), f32(0.5), units=None, out_dtype="int32")
    same(got, np.array([_dense_loops(x8[b], w8, -3, 7) for b in range(2)], "int32"))


def test_contrib_dense_pack_unpacks_the_weight() -> None:
    """w[n, k] = weight[n // N_I, k // K_I, n % N_I, k % K_I] (topi/hexagon/qnn/nn.py,
    where N_I is 32 and K_I 4); operands shifted in their own dtype, summed in int32."""
    rng = np.random.default_rng(10)
    x = rng.integers(0, 256, size=(3, 8)).astype("uint8")
    packed = rng.integers(-128, 128, size=(2, 2, 32, 4)).astype("int8")
    plain = np.zeros((64, 8), "int8")
    for n in range(64):
        for k in range(8):
            plain[n, k] = packed[n // 32, k // 4, n % 32, k % 4]
    got = FAMILY.run("qnn.contrib_dense_pack", x, packed, i32(0), i32(0), f32(1), f32(1), units=None, out_dtype="int32")
    same(got, np.array(_dense_loops(x, plain, 0, 0), "int32"))
    got = FAMILY.run(
        "qnn.contrib_dense_pack", x, packed, i32(100), i32(-2), f32(1), f32(1), units=None, out_dtype="int32"
    )
    xs = ((x.astype(np.int64) - 100) % 256).astype("uint8")  # the shift wraps in uint8
    ws = ((plain.astype(np.int64) + 2 + 128) % 256 - 128).astype("int8")
    same(got, np.array(_dense_loops(xs, ws, 0, 0), "int32"))


def test_batch_matmul_matches_tvm() -> None:
    """tests/python/relay/test_op_qnn_batch_matmul.py, every zero-point combination, batch 1 and 4."""
    x = np.array([1, 3, 5, 7, 9, 11, 13, 15, -19, -21, 1, 3, 5, 7, 9, 11, 13, -17, 17, -21], "int8").reshape(1, 4, 5)
    y = np.array([1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 1, 3, 5, 7, 9], "int8").reshape(1, 3, 5)
    cases = {
        (0, 0): [165, 415, 165, -197, -207, -197, 165, 415, 165, -105, -75, -105],
        (0, -123): [3240, 3490, 3240, -320, -330, -320, 3240, 3490, 3240, 264, 294, 264],
        (-123, 0): [3240, 9640, 3240, 2878, 9018, 2878, 3240, 9640, 3240, 2970, 9150, 2970],
        (-123, -123): [81960, 88360, 81960, 78400, 84540, 78400, 81960, 88360, 81960, 78984, 85164, 78984],
    }
    for batch in (1, 4):
        xb, yb = np.repeat(x, batch, axis=0), np.repeat(y, batch, axis=0)
        for (zx, zy), out in cases.items():
            got = FAMILY.run(
                "qnn.batch_matmul", xb, yb, i32(zx), i32(zy), f32(0.5), f32(0.5), out_dtype="int32", transpose_b=True
            )
            same(got, np.repeat(np.array(out, "int32").reshape(1, 4, 3), batch, axis=0))


def test_batch_matmul_broadcasts_and_transposes() -> None:
    """A batch of 1 serves every batch (BatchMatmulRel); transpose_a and transpose_b
    choose which axes are contracted."""
    rng = np.random.default_rng(12)
    x = rng.integers(0, 256, size=(3, 5, 4)).astype("uint8")
    y = rng.integers(-128, 128, size=(1, 5, 2)).astype("int8")
    got = FAMILY.run("qnn.batch_matmul", x, y, i32(128), i32(1), f32(1), f32(1), out_dtype="int32", transpose_a=True)
    expected = [
        [[sum((int(x[b, k, i]) - 128) * (int(y[0, k, j]) - 1) for k in range(5)) for j in range(2)] for i in range(4)]
        for b in range(3)
    ]
    same(got, np.array(expected, "int32"))


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
