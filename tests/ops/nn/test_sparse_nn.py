"""Compressed sparse matrices in networks: nn.sparse_dense,
nn.internal.sparse_dense_padded, nn.sparse_add, nn.sparse_transpose,
nn.sparse_conv2d.

Result shapes follow src/relay/op/nn/sparse.cc (SparseDenseRel,
SparseTransposeRel, SparseAddRel, SparseConv2dRel), attributes
include/tvm/relay/attrs/nn.h; the kernels follow python/tvm/topi/nn/sparse.py
(and topi/x86/sparse.py for the 3x3 convolution) and are checked against
dense matrices built entry by entry here, multiplied (or convolved) by
PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.ops import KernelError
from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family(
    "nn.sparse_dense", "nn.internal.sparse_dense_padded", "nn.sparse_add", "nn.sparse_transpose", "nn.sparse_conv2d"
)
I32 = "int32"


def torch():
    return torch_reference().torch


# ---------------------------------------------------------------- relations

RESULTS = [
    # CSR weight (N + 1 = 7 pointers): (M, N)
    ("nn.sparse_dense(%a, %b, %c, %d)", [T("(4, 8)"), T("(10)"), T("(10)", I32), T("(7)", I32)], T("(4, 6)")),
    # BSR weight with (2, 4) blocks: (M, (pointers - 1) * bs_r)
    (
        "nn.sparse_dense(%a, %b, %c, %d)",
        [T("(128, 256)"), T("(20, 2, 4)"), T("(20)", I32), T("(33)", I32)],
        T("(128, 64)"),
    ),
    (
        "nn.sparse_dense(%a, %b, %c, %d, sparse_lhs=True)",
        [T("(5, 8)"), T("(10)"), T("(10)", I32), T("(4)", I32)],
        T("(3, 5)"),
    ),
    (
        "nn.sparse_dense(%a, %b, %c, %d, sparse_lhs=True)",
        [T("(5, 8)"), T("(6, 2, 2)"), T("(6)", I32), T("(4)", I32)],
        T("(6, 5)"),
    ),
    ("nn.sparse_dense(%a, %b, %c, %d)", [T("(?, 8)"), T("(?)"), T("(?)", I32), T("(?)", "int64")], T("(?, ?)")),
    (
        "nn.internal.sparse_dense_padded(%a, %b, %c, %d)",
        [T("(4, 64)"), T("(64, 1, 32)"), T("(64)", I32), T("(33)", I32)],
        T("(4, 32)"),
    ),
    ("nn.sparse_add(%a, %b, %c, %d)", [T("(3, 4)"), T("(5)"), T("(5)", I32), T("(4)", I32)], T("(3, 4)")),
    (
        "nn.sparse_transpose(%a, %b, %c)",
        [T("(5)"), T("(5)", I32), T("(4)", I32)],
        f"({T('(5)')}, {T('(5)', I32)}, {T('(4)', I32)})",
    ),
    (
        "nn.sparse_conv2d(%a, %b, %c, %d)",
        [T("(1, 7, 7, 32)"), T("(40, 4, 2)"), T("(40)", I32), T("(17)", I32)],
        T("(1, 7, 7, 64)"),
    ),
    (
        'nn.sparse_conv2d(%a, %b, %c, %d, layout="NCHW")',
        [T("(1, 32, 7, 7)"), T("(40, 4)"), T("(40)", I32), T("(17)", I32)],
        T("(1, 64, 7, 7)"),
    ),
    (
        'nn.sparse_conv2d(%a, %b, %c, %d, layout="NCHW", kernel_size=[3, 3])',
        [T("(2, 3, 5, 5)"), T("(9, 4, 1)"), T("(9)", I32), T("(3)", I32)],
        T("(2, 8, 5, 5)"),
    ),
]


@pytest.mark.parametrize("call, types, expected", RESULTS, ids=[c[0] for c in RESULTS])
def test_result_type(call: str, types: list[str], expected: str) -> None:
    assert FAMILY.result_type(call, types) == expected


ERRORS = [
    (
        "nn.sparse_dense(%a, %b, %c, %d)",
        [T("(4, 8)"), T("(10, 2)"), T("(10)", I32), T("(7)", I32)],
        "shape-mismatch",
        "`nn.sparse_dense` needs sparse data of rank 1 or 3, found shape (10, 2)",
        "%b",
    ),
    (
        "nn.sparse_dense(%a, %b, %c, %d)",
        [T("(2, 4, 8)"), T("(10)"), T("(10)", I32), T("(7)", I32)],
        "shape-mismatch",
        "`nn.sparse_dense` needs a dense matrix of rank 2, found shape (2, 4, 8)",
        "%a",
    ),
    (
        "nn.sparse_dense(%a, %b, %c, %d)",
        [T("(4, 8)"), T("(10)"), T("(9)", I32), T("(7)", I32)],
        "shape-mismatch",
        "`nn.sparse_dense`: the sparse data has 10 entries but indices has 9",
        "%c",
    ),
    (
        "nn.sparse_dense(%a, %b, %c, %d)",
        [T("(4, 8)"), T("(10)"), T("(10)"), T("(7)", I32)],
        "type-mismatch",
        "`nn.sparse_dense`: indices must have an integer dtype, found `float32`",
        "%c",
    ),
    (
        "nn.sparse_dense(%a, %b, %c, %d)",
        [T("(4, 8)"), T("(10)", "float64"), T("(10)", I32), T("(7)", I32)],
        "type-mismatch",
        "`nn.sparse_dense` needs operands of one dtype, found `float32` and `float64`",
        "%b",
    ),
    (
        "nn.sparse_dense(%a, %b, %c, %d)",
        [T("(4, 8)"), T("(10)"), T("(10)", I32), T("(0)", I32)],
        "shape-mismatch",
        "`nn.sparse_dense` needs an indptr of one entry or more, found shape (0)",
        "%d",
    ),
    (
        "nn.internal.sparse_dense_padded(%a, %b, %c, %d, sparse_lhs=True)",
        [T("(4, 8)"), T("(10)"), T("(10)", I32), T("(7)", I32)],
        "type-mismatch",
        "`nn.internal.sparse_dense_padded` supports only a sparse right-hand side (sparse_lhs=False)",
        None,
    ),
    (
        "nn.sparse_add(%a, %b, %c, %d)",
        [T("(3, 4)"), T("(5)"), T("(5)", I32), T("(5)", I32)],
        "shape-mismatch",
        "`nn.sparse_add`: the dense matrix has 3 rows, the sparse one 4 (indptr has one entry more than rows)",
        "%d",
    ),
    (
        "nn.sparse_add(%a, %b, %c, %d)",
        [T("(3, 4)", "bool"), T("(5)", "bool"), T("(5)", I32), T("(4)", I32)],
        "type-mismatch",
        "`nn.sparse_add`: the sparse data must hold numbers, found `bool`",
        "%b",
    ),
    (
        "nn.sparse_transpose(%a, %b, %c)",
        [T("(5)"), T("(5)", I32), T("(4, 1)", I32)],
        "shape-mismatch",
        "`nn.sparse_transpose` needs indptr of rank 1, found shape (4, 1)",
        "%c",
    ),
    (
        'nn.sparse_conv2d(%a, %b, %c, %d, layout="HWCN")',
        [T("(1, 7, 7, 32)"), T("(40, 4)"), T("(40)", I32), T("(17)", I32)],
        "type-mismatch",
        '`nn.sparse_conv2d` layout must be "NHWC" or "NCHW", found "HWCN"',
        None,
    ),
    (
        "nn.sparse_conv2d(%a, %b, %c, %d, kernel_size=[5, 5])",
        [T("(1, 7, 7, 32)"), T("(40, 4)"), T("(40)", I32), T("(17)", I32)],
        "type-mismatch",
        "`nn.sparse_conv2d` kernel_size must be [1, 1] or [3, 3], found [5, 5]",
        None,
    ),
    (
        "nn.sparse_conv2d(%a, %b, %c, %d, kernel_size=[3, 3])",
        [T("(1, 7, 7, 32)"), T("(40, 4)"), T("(40)", I32), T("(17)", I32)],
        "shape-mismatch",
        "`nn.sparse_conv2d` with a 3x3 kernel needs BSR data of rank 3",
        "%b",
    ),
    (
        'nn.sparse_conv2d(%a, %b, %c, %d, layout="NCHW", kernel_size=[3, 3])',
        [T("(1, 32, 7, 7)"), T("(40, 4, 2)"), T("(40)", I32), T("(17)", I32)],
        "shape-mismatch",
        "`nn.sparse_conv2d` with a 3x3 kernel in NCHW needs blocks one column wide, found 2",
        "%b",
    ),
    (
        "nn.sparse_conv2d(%a, %b, %c, %d)",
        [T("(7, 7, 32)"), T("(40, 4)"), T("(40)", I32), T("(17)", I32)],
        "shape-mismatch",
        "`nn.sparse_conv2d` needs data (NHWC) of rank 4, found shape (7, 7, 32)",
        "%a",
    ),
    (
        "nn.sparse_conv2d(%a, %b, %c, %d)",
        [T("(1, 7, 7, 32)"), T("(40)"), T("(40)", I32), T("(17)", I32)],
        "shape-mismatch",
        "`nn.sparse_conv2d` needs sparse data of rank 2 or 3, found shape (40)",
        "%b",
    ),
]


@pytest.mark.parametrize("call, types, code, message, at", ERRORS, ids=[f"{e[0]} {e[1]}" for e in ERRORS])
def test_rejected(call: str, types: list[str], code: str, message: str, at: str | None) -> None:
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    assert d.span.text == (at if at is not None else call)


def test_sizes_follow_shape_variables() -> None:
    """SparseDenseRel: the sparse matrix has len(indptr) - 1 rows (times bs_r for BSR)."""
    from relay_text.ir.span import Source
    from relay_text.pipeline import check_source
    from relay_text.text.type_text import type_text

    text = """def @main<n : ShapeVar>(%x: Tensor[(4, 8), float32], %d: Tensor[(5, 2, 2), float32],
                            %i: Tensor[(5), int32], %p: Tensor[(n + 1), int32]) {
  (nn.sparse_dense(%x, %d, %i, %p), nn.sparse_dense(%x, %d, %i, %p, sparse_lhs=True))
}
"""
    checked = check_source(Source("t.rly", text))
    assert [str(d) for d in checked.diagnostics] == []
    assert type_text(checked.result.global_type("main").ret_type) == f"({T('(4, n * 2)')}, {T('(n * 2, 4)')})"


def test_defaults_are_tvms() -> None:
    """SparseDenseAttrs: sparse_lhs false; SparseConv2DAttrs: layout "NHWC", kernel_size [1, 1]."""
    from relay_text.ops import get

    assert {a.name: a.default for a in get("nn.sparse_dense").attrs} == {"sparse_lhs": False}
    assert {a.name: a.default for a in get("nn.sparse_conv2d").attrs} == {"layout": "NHWC", "kernel_size": (1, 1)}
    assert get("nn.sparse_add").attrs == () and get("nn.sparse_transpose").attrs == ()


# ---------------------------------------------------------------- references


def random_bsr(
    rows: int, columns: int, bs_r: int, bs_c: int, dtype: str, rng: np.random.Generator, rank: int = 3
) -> tuple:
    """A BSR matrix (data, indices, indptr) without repeated blocks, blocks in random column order."""
    data, indices, indptr = [], [], [0]
    for _ in range(rows // bs_r):
        chosen = rng.permutation(columns // bs_c)[: rng.integers(0, columns // bs_c + 1)]
        indices.extend(chosen.tolist())
        data.extend(rng.integers(1, 5, (len(chosen), bs_r, bs_c)).tolist())
        indptr.append(len(indices))
    block = np.array(data, dtype=dtype).reshape(-1, bs_r, bs_c)
    if rank == 1:
        block = block.reshape(-1)
    elif rank == 2:
        block = block.reshape(-1, bs_r)
    return block, np.array(indices, dtype=np.int32), np.array(indptr, dtype=np.int32)


def dense_by_loops(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, columns: int) -> np.ndarray:
    """The dense matrix a CSR/BSR triple stands for, entry by entry (entries on one place add up)."""
    block = data.reshape(data.shape[0], *(data.shape[1:] + (1,) * (3 - data.ndim)))
    bs_r, bs_c = block.shape[1:]
    out = np.zeros(((len(indptr) - 1) * bs_r, columns), dtype=np.float64)
    for r in range(len(indptr) - 1):
        for e in range(indptr[r], indptr[r + 1]):
            for i in range(bs_r):
                for j in range(bs_c):
                    out[r * bs_r + i, indices[e] * bs_c + j] += block[e, i, j]
    return out


# ---------------------------------------------------------------- sparse_dense


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize(
    "blocks", [(1, 1, 1), (2, 4, 3), (4, 2, 3), (1, 2, 3)], ids=["csr", "bsr2x4", "bsr4x2", "bsr1x2"]
)
def test_sparse_dense_against_torch(dtype: str, blocks: tuple) -> None:
    """topi/nn/sparse.py: x times W's transpose (sp_rhs), S times D's transpose (sp_lhs)."""
    th = torch()
    bs_r, bs_c, rank = blocks
    rng = np.random.default_rng(bs_r * 10 + bs_c)
    weight = random_bsr(12, 8, bs_r, bs_c, dtype, rng, rank)
    x = rng.integers(-3, 4, (5, 8)).astype(dtype)
    w = dense_by_loops(*weight, 8)
    expected = th.matmul(th.from_numpy(x.astype(np.float64)), th.from_numpy(w).T).numpy().astype(dtype)
    same(FAMILY.run("nn.sparse_dense", x, *weight), expected)
    same(FAMILY.run("nn.internal.sparse_dense_padded", x, *weight), expected)
    d = rng.integers(-3, 4, (3, 8)).astype(dtype)
    expected = th.matmul(th.from_numpy(w), th.from_numpy(d.astype(np.float64)).T).numpy().astype(dtype)
    same(FAMILY.run("nn.sparse_dense", d, *weight, sparse_lhs=True), expected)


def test_sparse_dense_by_hand() -> None:
    """Rows of W = [[1, 0, 2], [0, 0, 0], [0, 3, 0]] in CSR; repeated columns add up."""
    x = np.array([[1.0, 2.0, 3.0]], dtype=np.float32)
    data, indices, indptr = np.array([1.0, 2.0, 3.0], dtype=np.float32), np.array([0, 2, 1]), np.array([0, 2, 2, 3])
    same(FAMILY.run("nn.sparse_dense", x, data, indices, indptr), np.array([[7.0, 0.0, 6.0]], dtype=np.float32))
    repeated = FAMILY.run(
        "nn.sparse_dense", x, np.array([1.0, 1.0], dtype=np.float32), np.array([2, 2]), np.array([0, 2])
    )
    same(repeated, np.array([[6.0]], dtype=np.float32))
    with pytest.raises(KernelError) as err:
        FAMILY.run("nn.sparse_dense", x, data, np.array([0, 3, 1]), indptr)
    assert (err.value.code, err.value.message) == (
        "runtime-error",
        "a sparse matrix's column index is outside its 3 columns",
    )


# ---------------------------------------------------------------- sparse_add, sparse_transpose


@pytest.mark.parametrize("dtype", ["float32", "int32", "int8"])
def test_sparse_add_against_loops(dtype: str) -> None:
    rng = np.random.default_rng(2)
    data, indices, indptr = random_bsr(6, 5, 1, 1, dtype, rng, rank=1)
    x = rng.integers(-3, 4, (6, 5)).astype(dtype)
    expected = (x.astype(np.float64) + dense_by_loops(data, indices, indptr, 5)).astype(dtype)
    same(FAMILY.run("nn.sparse_add", x, data, indices, indptr), expected)


def test_sparse_add_wraps_integers() -> None:
    x = np.array([[120, 0]], dtype=np.int8)
    same(
        FAMILY.run("nn.sparse_add", x, np.array([10], dtype=np.int8), np.array([0]), np.array([0, 1])),
        np.array([[-126, 0]], dtype=np.int8),
    )


def to_csr_by_loops(matrix: np.ndarray) -> tuple[list, list, list]:
    data, indices, indptr = [], [], [0]
    for row in matrix:
        for c, v in enumerate(row):
            if v:
                data.append(v)
                indices.append(c)
        indptr.append(len(data))
    return data, indices, indptr


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_sparse_transpose_against_loops(dtype: str) -> None:
    """topi's CSR transpose: within a row of the result, entries come in the order of their original rows."""
    rng = np.random.default_rng(5)
    data, indices, indptr = random_bsr(7, 7, 1, 1, dtype, rng, rank=1)
    out = FAMILY.run("nn.sparse_transpose", data, indices, indptr)
    want = to_csr_by_loops(dense_by_loops(data, indices, indptr, 7).T)
    same(out[0], np.array(want[0], dtype=dtype))
    same(out[1], np.array(want[1], dtype=np.int32))
    same(out[2], np.array(want[2], dtype=np.int32))


def test_sparse_transpose_by_hand() -> None:
    # [[0, 5, 0], [7, 0, 8], [0, 9, 0]] -> [[0, 7, 0], [5, 0, 9], [0, 8, 0]]
    out = FAMILY.run(
        "nn.sparse_transpose",
        np.array([5.0, 8.0, 7.0, 9.0], dtype=np.float32),
        np.array([1, 2, 0, 1]),
        np.array([0, 1, 3, 4]),
    )
    same(out[0], np.array([7.0, 5.0, 9.0, 8.0], dtype=np.float32))
    same(out[1], np.array([1, 0, 2, 1]))
    same(out[2], np.array([0, 1, 3, 4]))


# ---------------------------------------------------------------- sparse_conv2d


@pytest.mark.parametrize("layout", ["NHWC", "NCHW"])
@pytest.mark.parametrize("block", [(4, 2, 3), (2, 1, 2), (1, 1, 3)], ids=["4x2", "2x1-rank2", "1x1"])
def test_sparse_conv2d_1x1_against_torch(layout: str, block: tuple) -> None:
    """A 1x1 convolution: the sparse (C_out, C_in) matrix at every pixel."""
    th = torch()
    bs_r, bs_c, rank = block
    rng = np.random.default_rng(bs_r + bs_c)
    weight = random_bsr(8, 6, bs_r, bs_c, "float32", rng, rank)
    x = rng.standard_normal((2, 6, 4, 5)).astype(np.float32)  # NCHW
    w = th.from_numpy(dense_by_loops(*weight, 6)).reshape(8, 6, 1, 1)
    expected = th.nn.functional.conv2d(th.from_numpy(x.astype(np.float64)), w).numpy().astype(np.float32)
    if layout == "NHWC":
        x, expected = x.transpose(0, 2, 3, 1), expected.transpose(0, 2, 3, 1)
    same(
        FAMILY.run("nn.sparse_conv2d", np.ascontiguousarray(x), *weight, layout=layout), expected, rtol=1e-5, atol=1e-5
    )


@pytest.mark.parametrize("layout, bs_c", [("NHWC", 1), ("NHWC", 3), ("NCHW", 1)])
def test_sparse_conv2d_3x3_against_torch(layout: str, bs_c: int) -> None:
    """topi/x86/sparse.py: stride 1, padding 1; weight columns ordered (row, column, channel)
    of the window for NHWC, (channel, row, column) for NCHW."""
    th = torch()
    rng = np.random.default_rng(bs_c)
    c_in, c_out = 3, 4
    weight = random_bsr(c_out, 9 * c_in, 2, bs_c, "float32", rng)
    x = rng.standard_normal((2, c_in, 5, 6)).astype(np.float32)
    w = th.from_numpy(dense_by_loops(*weight, 9 * c_in))
    w = w.reshape(c_out, 3, 3, c_in).permute(0, 3, 1, 2) if layout == "NHWC" else w.reshape(c_out, c_in, 3, 3)
    expected = th.nn.functional.conv2d(th.from_numpy(x.astype(np.float64)), w, padding=1).numpy().astype(np.float32)
    if layout == "NHWC":
        x, expected = x.transpose(0, 2, 3, 1), expected.transpose(0, 2, 3, 1)
    out = FAMILY.run("nn.sparse_conv2d", np.ascontiguousarray(x), *weight, layout=layout, kernel_size=[3, 3])
    same(out, expected, rtol=1e-5, atol=1e-5)


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
