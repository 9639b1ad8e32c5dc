"""`trilu`, `matrix_set_diag`: result types, rejections, kernels against
PyTorch and a loop over the diagonals.

Rules: src/relay/op/tensor/transform.cc (TriluRel, MatrixSetDiagRel);
semantics: python/tvm/topi/transform.py (trilu), include/tvm/topi/
transform.h (matrix_set_diag), python/tvm/relay/op/transform.py
(matrix_set_diag's `k` and `align` become k1, k2 and the two alignments).
"""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.ops import KernelError
from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family("trilu", "matrix_set_diag")

I32 = "int32"


@pytest.fixture
def torch():
    torch_reference()
    import torch as module

    return module


# ---------------------------------------------------------------- trilu


@pytest.mark.parametrize(
    "call, types, expected",
    [
        ("trilu(%a, 0)", [T("(3, 3)")], T("(3, 3)")),
        ("trilu(%a, %b, upper=False)", [T("(8, 6, 6)"), T("()", "int64")], T("(8, 6, 6)")),
        ("trilu(%a, %b)", [T("(2, 2)", I32), T("()", "int64")], T("(2, 2)", I32)),
    ],
)
def test_trilu_type(call: str, types: list[str], expected: str) -> None:
    """The data's type (TriluRel; test_op_level3.py::test_trilu and test_trilu_reduce)."""
    assert FAMILY.result_type(call, types) == expected


@pytest.mark.parametrize(
    "types, message, at",
    [
        ([T("(3, 3)"), T("(1)", I32)], "`trilu` takes k as a scalar, found a tensor of shape (1)", "%b"),
        ([T("(3)"), T("()", I32)], "`trilu` needs data of rank 2 or more (rows and columns last), found (3)", "%a"),
    ],
)
def test_trilu_rejected(types: list[str], message: str, at: str) -> None:
    """TriluRel: k is 0-D; TOPI's trilu indexes the last two axes."""
    d = FAMILY.only_error("trilu(%a, %b)", types)
    assert (d.code, d.message, d.span.text) == ("shape-mismatch", message, at)


@pytest.mark.parametrize(
    "shape, upper, k",
    [
        ((3, 3), True, 0),
        ((3, 3), False, 0),
        ((6, 6), True, 1),
        ((6, 6), False, 2),
        ((6, 6), False, -2),
        ((8, 6, 6), False, -2),
        ((2, 4, 7), True, -9),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
def test_trilu_kernel_against_torch(torch, shape: tuple, upper: bool, k: int, dtype: str) -> None:
    """The cases of test_op_level3.py::test_trilu, compared there with numpy's triu/tril."""
    data = (np.random.default_rng(47).standard_normal(shape) * 9).astype(dtype)
    ref = (torch.triu if upper else torch.tril)(torch.from_numpy(data), k).numpy()
    same(FAMILY.run("trilu", data, np.array(k, np.int64), upper=upper), ref)


def test_trilu_casts_k_to_int32() -> None:
    """python/tvm/topi/transform.py casts k to int32: 1.9 keeps diagonal 1 and up."""
    out = FAMILY.run("trilu", np.ones((2, 3), np.float32), np.array(1.9, np.float32))
    same(out, [[0, 1, 1], [0, 0, 1]])


# ---------------------------------------------------------------- matrix_set_diag


@pytest.mark.parametrize(
    "types, k1, k2, expected",
    [
        ([T("(2, 2)"), T("(2)")], 0, 0, T("(2, 2)")),
        ([T("(4, 3, 3)", I32), T("(4, 3)", I32)], 0, 0, T("(4, 3, 3)", I32)),
        ([T("(2, 3, 4)"), T("(2, 3)")], 1, 1, T("(2, 3, 4)")),
        ([T("(2, 3, 4)", I32), T("(2, 4, 3)", I32)], -1, 2, T("(2, 3, 4)", I32)),
    ],
)
def test_matrix_set_diag_type(types: list[str], k1: int, k2: int, expected: str) -> None:
    """The data's type (MatrixSetDiagRel; the cases of test_op_level10.py::test_matrix_set_diag)."""
    assert FAMILY.result_type(f"matrix_set_diag(%a, %b, k1={k1}, k2={k2})", types) == expected


def test_matrix_set_diag_infers_the_diagonal() -> None:
    """The diagonal's shape follows from the data and k1, k2: batch axes, then
    k2 - k1 + 1 rows if several, then min(R + min(k2, 0), C - max(k1, 0))."""
    assert FAMILY.param_type("matrix_set_diag(%a, %b, k1=1, k2=1)", [T("(2, 3, 4)"), "Tensor[_, _]"], 1) == T("(2, 3)")
    assert FAMILY.param_type("matrix_set_diag(%a, %b, k1=-2, k2=0)", [T("(5, 4)"), "Tensor[_, _]"], 1) == T("(3, 4)")


@pytest.mark.parametrize(
    "call, types, code, message, at",
    [
        (
            "matrix_set_diag(%a, %b, k1=1, k2=1)",
            [T("(2, 3, 4)"), T("(2, 4)")],
            "shape-mismatch",
            "`matrix_set_diag` expects a diagonal of shape (2, 3), found (2, 4)",
            "%b",
        ),
        (
            "matrix_set_diag(%a, %b, k1=-1, k2=2)",
            [T("(2, 3, 4)"), T("(2, 3, 3)")],
            "shape-mismatch",
            "`matrix_set_diag` expects a diagonal of shape (2, 4, 3), found (2, 3, 3)",
            "%b",
        ),
        (
            "matrix_set_diag(%a, %b, k1=2, k2=1)",
            [T("(2, 3, 4)"), T("(2, 4)")],
            "type-mismatch",
            "`matrix_set_diag` needs k1 <= k2, found k1=2 and k2=1",
            "matrix_set_diag(%a, %b, k1=2, k2=1)",
        ),
        (
            "matrix_set_diag(%a, %b, k1=4, k2=4)",
            [T("(3, 4)"), T("(0)")],
            "shape-mismatch",
            "`matrix_set_diag`: diagonal k2=4 lies outside matrices of 4 columns",
            "%a",
        ),
        (
            "matrix_set_diag(%a, %b)",
            [T("(3, 3)"), T("(3)", I32)],
            "type-mismatch",
            "`matrix_set_diag` needs a diagonal of the data's dtype: the data is `float32`, the diagonal `int32`",
            "%b",
        ),
    ],
)
def test_matrix_set_diag_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    """MatrixSetDiagRel: k1 <= k2, the diagonals inside the matrix (its asserts
    rows > -k1 and cols > k2), and the diagonal's shape it asserts."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


def _set_diag_loops(data, diagonal, k1, k2, super_right, sub_right):
    """TensorFlow's MatrixSetDiagV3 over each diagonal in turn."""
    out = data.copy()
    rows, cols = data.shape[-2:]
    longest = diagonal.shape[-1]
    for k in range(k1, k2 + 1):
        length = min(cols - max(k, 0), rows + min(k, 0))
        right = super_right if k >= 0 else sub_right
        offset = longest - length if (right and k1 != k2) else 0
        for n in range(length):
            r, c = (n, n + k) if k >= 0 else (n - k, n)
            out[..., r, c] = diagonal[..., n + offset] if k1 == k2 else diagonal[..., k2 - k, n + offset]
    return out


@pytest.mark.parametrize(
    "shape, dshape, k1, k2",
    [
        ((2, 2), (2,), 0, 0),
        ((4, 3, 3), (4, 3), 0, 0),
        ((2, 3, 4), (2, 3), 1, 1),
        ((2, 3, 4), (2, 4, 3), -1, 2),
        ((5, 3), (3,), -2, -2),
        ((2, 5, 3), (2, 3, 3), -2, 0),
    ],
)
@pytest.mark.parametrize("align", ["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_matrix_set_diag_kernel_against_loops(shape, dshape, k1, k2, align, dtype) -> None:
    """The cases of test_op_level10.py::test_matrix_set_diag in every alignment."""
    rng = np.random.default_rng(53)
    data = rng.integers(-100, 100, shape).astype(dtype)
    diagonal = rng.integers(-100, 100, dshape).astype(dtype)
    super_right, sub_right = align.startswith("RIGHT"), align.endswith("RIGHT")
    out = FAMILY.run(
        "matrix_set_diag",
        data,
        diagonal,
        k1=k1,
        k2=k2,
        super_diag_right_align=super_right,
        sub_diag_right_align=sub_right,
    )
    same(out, _set_diag_loops(data, diagonal, k1, k2, super_right, sub_right))


def test_matrix_set_diag_hand_computed() -> None:
    """Diagonals 2 ... -1 of a 3 x 4 matrix, super-diagonals right-aligned (k=2 has
    two elements: the padding is the first value of its row)."""
    diagonal = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]], np.int32)
    out = FAMILY.run("matrix_set_diag", np.zeros((3, 4), np.int32), diagonal, k1=-1, k2=2)
    same(out, np.array([[7, 4, 2, 0], [10, 8, 5, 3], [0, 11, 9, 6]], np.int32))


def test_matrix_set_diag_diagonal_too_short() -> None:
    """Checked types rule it out; called directly, the kernel stops."""
    with pytest.raises(KernelError) as err:
        FAMILY.run("matrix_set_diag", np.zeros((3, 3), np.float32), np.ones(2, np.float32))
    assert err.value.message == "matrix_set_diag: the diagonals need 3 values each, the diagonal tensor has 2"


def test_trilu_k_from_a_constant_without_metadata() -> None:
    """A TVM dump without its metadata: k is taken to be relay.trilu's int32 scalar."""
    assert FAMILY.result_type("trilu(%a, meta[relay.Constant][0])", [T("(3, 3)")]) == T("(3, 3)")


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
