"""Coordinate-list sparse tensors: sparse_to_dense, dyn.sparse_to_dense,
sparse_reshape, sparse_fill_empty_rows.

Shapes and dtypes follow SparseToDenseRel, SparseReshapeRel and
SparseFillEmptyRowsRel (src/relay/op/tensor/transform.cc) and the dynamic
SparseToDenseRel (src/relay/op/dyn/tensor/transform.cc); the kernels are
checked on the cases of TVM's tests (test_op_level3.py, dyn/
test_dynamic_op_level3.py) against element-by-element references written
here (PyTorch has none of these operations with TVM's conventions).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from relay_text.ops import KernelError
from tests.ops.family import Family, T, same

FAMILY = Family("sparse_to_dense", "dyn.sparse_to_dense", "sparse_reshape", "sparse_fill_empty_rows")

I64 = "int64"

RESULTS = [
    # test_sparse_to_dense: the type is output_shape in the values' dtype
    ("sparse_to_dense(%a, %b, %c, output_shape=[5])", [T("()", I64), T("()", I64), T("()", I64)], T("(5)", I64)),
    (
        "sparse_to_dense(%a, %b, %c, output_shape=[3, 4])",
        [T("(2, 2)", I64), T("(2)", I64), T("()", I64)],
        T("(3, 4)", I64),
    ),
    ("sparse_to_dense(%a, %b, %c, output_shape=[5])", [T("(3)", "int32"), T("(3)"), T("()")], T("(5)")),
    (
        "dyn.sparse_to_dense(%a, %b, %c, %d)",
        [T("(2, 3)", I64), T("(2)", I64), T("()", I64), T("(3)", I64)],
        T("(?, ?, ?)", I64),
    ),
    # TestSparseReshape: (N, len(new_shape)) in the indices' dtype, and new_shape's type
    (
        "sparse_reshape(%a, %b, %c)",
        [T("(5, 4)", I64), T("(4)", I64), T("(3)", I64)],
        f"({T('(5, 3)', I64)}, {T('(3)', I64)})",
    ),
    (
        "sparse_reshape(%a, %b, %c)",
        [T("(?, ?)", "int32"), T("(?)", "int32"), T("(?)", "int32")],
        f"({T('(?, ?)', 'int32')}, {T('(?)', 'int32')})",
    ),
    # test_sparse_fill_empty_rows: everything int64, sizes known at run time
    (
        "sparse_fill_empty_rows(%a, %b, %c, %d)",
        [T("(4, 2)", "int32"), T("(4)", "int32"), T("(2)", "int32"), T("(1)", "int32")],
        f"({T('(?, 2)', I64)}, {T('(?)', I64)}, {T('(?)', I64)})",
    ),
]


@pytest.mark.parametrize("call, types, expected", RESULTS, ids=[c[0] for c in RESULTS])
def test_result_type(call: str, types: list[str], expected: str) -> None:
    assert FAMILY.result_type(call, types) == expected


ERRORS = [
    (
        "sparse_to_dense(%a, %b, %c, output_shape=[5])",
        [T("(3)"), T("(3)"), T("()")],
        "type-mismatch",
        "`sparse_to_dense`: indices must have an integer dtype, found `float32`",
        "%a",
    ),
    (
        "sparse_to_dense(%a, %b, %c, output_shape=[5])",
        [T("(3)", I64), T("(3)"), T("(1)")],
        "shape-mismatch",
        "`sparse_to_dense` needs a scalar default value of rank 0, found shape (1)",
        "%c",
    ),
    (
        "sparse_to_dense(%a, %b, %c, output_shape=[5])",
        [T("(3)", I64), T("(3)"), T("()", I64)],
        "type-mismatch",
        "`sparse_to_dense` needs operands of one dtype, found `float32` and `int64`",
        "%c",
    ),
    (
        "sparse_to_dense(%a, %b, %c, output_shape=[5])",
        [T("(3)", I64), T("(2)"), T("()")],
        "shape-mismatch",
        "`sparse_to_dense` needs one value per coordinate row: indices (3) give 3, values have 2",
        "%b",
    ),
    (
        "sparse_to_dense(%a, %b, %c, output_shape=[5])",
        [T("(3, 2)", I64), T("(3)"), T("()")],
        "shape-mismatch",
        "`sparse_to_dense`: coordinate rows of 2 values do not fit an output of rank 1",
        "%a",
    ),
    (
        "sparse_to_dense(%a, %b, %c, output_shape=[5])",
        [T("(1, 2, 3)", I64), T("(3)"), T("()")],
        "shape-mismatch",
        "`sparse_to_dense` needs indices of rank 0 or 1 or 2, found shape (1, 2, 3)",
        "%a",
    ),
    (
        "dyn.sparse_to_dense(%a, %b, %c, %d)",
        [T("(3)", I64), T("(3)"), T("()"), T("(?)", I64)],
        "shape-mismatch",
        "`dyn.sparse_to_dense` needs output_shape of a static length, to know the rank of the result",
        "%d",
    ),
    (
        "dyn.sparse_to_dense(%a, %b, %c, %d)",
        [T("(3)", I64), T("(3)"), T("()"), T("(2)")],
        "type-mismatch",
        "`dyn.sparse_to_dense`: output_shape must have an integer dtype, found `float32`",
        "%d",
    ),
    (
        "sparse_reshape(%a, %b, %c)",
        [T("(5, 3)", I64), T("(4)", I64), T("(2)", I64)],
        "shape-mismatch",
        "`sparse_reshape`: prev_shape has 4 entries, but the coordinate rows have 3",
        "%b",
    ),
    (
        "sparse_reshape(%a, %b, %c)",
        [T("(5)", I64), T("(1)", I64), T("(2)", I64)],
        "shape-mismatch",
        "`sparse_reshape` needs indices of rank 2, found shape (5)",
        "%a",
    ),
    (
        "sparse_reshape(%a, %b, %c)",
        [T("(5, 1)", I64), T("(1)", I64), T("(2)")],
        "type-mismatch",
        "`sparse_reshape`: new_shape must have an integer dtype, found `float32`",
        "%c",
    ),
    (
        "sparse_fill_empty_rows(%a, %b, %c, %d)",
        [T("(4, 2)", I64), T("(3)", I64), T("(2)", I64), T("(1)", I64)],
        "shape-mismatch",
        "`sparse_fill_empty_rows` needs one value per coordinate row: 4 rows, 3 values",
        "%b",
    ),
    (
        "sparse_fill_empty_rows(%a, %b, %c, %d)",
        [T("(4, 2)", I64), T("(4)", I64), T("(2, 1)", I64), T("(1)", I64)],
        "shape-mismatch",
        "`sparse_fill_empty_rows` needs dense_shape of rank 1, found shape (2, 1)",
        "%c",
    ),
]


@pytest.mark.parametrize("call, types, code, message, at", ERRORS, ids=[f"{e[0]} {e[1]}" for e in ERRORS])
def test_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    assert d.span.text == at


def test_output_shape_is_required() -> None:
    """SparseToDenseAttrs declares output_shape without a default."""
    d = FAMILY.only_error("sparse_to_dense(%a, %b, %c)", [T("(3)", I64), T("(3)"), T("()")])
    assert (d.code, d.message) == ("missing-attribute", "`sparse_to_dense` needs the attribute `output_shape`")


# ---------------------------------------------------------------- sparse_to_dense


def to_dense_by_loops(indices: np.ndarray, values: np.ndarray, default: float, shape: tuple) -> np.ndarray:
    """topi's definition read element by element: the last coordinate row that
    matches an element's leading coordinates gives its value."""
    rows = indices.reshape(-1, 1) if indices.ndim < 2 else indices
    vals = np.broadcast_to(values, (rows.shape[0],))
    out = np.empty(shape, dtype=values.dtype)
    for where in itertools.product(*(range(d) for d in shape)):
        out[where] = default
        for j in range(rows.shape[0]):
            if all(where[k] == rows[j, k] for k in range(rows.shape[1])):
                out[where] = vals[j]
    return out


CASES = [
    # test_op_level3.py's test_sparse_to_dense cases, with their expected values
    (1, 3, 0, [5], [0, 3, 0, 0, 0]),
    ([0, 1, 4], [3, 3, 3], 0, [5], [3, 3, 0, 0, 3]),
    ([[0, 0], [1, 2]], [1, 2], 0, [3, 4], [[1, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]]),
    (
        [[0, 0, 0], [1, 2, 3]],
        [1, 2],
        4,
        [2, 3, 4],
        [[[1, 4, 4, 4], [4, 4, 4, 4], [4, 4, 4, 4]], [[4, 4, 4, 4], [4, 4, 4, 4], [4, 4, 4, 2]]],
    ),
    ([0, 1, 4], [3.1, 3.1, 3.1], 3.5, [5], [3.1, 3.1, 3.5, 3.5, 3.1]),
]


@pytest.mark.parametrize("indices, values, default, shape, expected", CASES, ids=[str(c[0]) for c in CASES])
def test_sparse_to_dense_tvm_cases(indices, values, default, shape, expected) -> None:
    i = np.array(indices, dtype=np.int64)
    v = np.array(values, dtype=np.float32 if isinstance(default, float) else np.int64)
    d = np.array(default, dtype=v.dtype)
    same(FAMILY.run("sparse_to_dense", i, v, d, output_shape=shape), np.array(expected, dtype=v.dtype))
    same(FAMILY.run("dyn.sparse_to_dense", i, v, d, np.array(shape, dtype=np.int32)), np.array(expected, dtype=v.dtype))


@pytest.mark.parametrize("dtype", ["float32", "int32", "int8", "bool"])
def test_sparse_to_dense_against_loops(dtype: str) -> None:
    """Repeated coordinates (the last wins), coordinates outside the output
    (ignored), and rows naming fewer axes than the output has (a whole slice)."""
    rng = np.random.default_rng(0)
    indices = rng.integers(-1, 5, (12, 2)).astype(np.int32)
    values = rng.integers(0, 9, 12).astype(dtype)
    default = np.array(1, dtype=dtype)
    shape = (4, 3, 2)
    out = FAMILY.run("sparse_to_dense", indices, values, default, output_shape=list(shape))
    same(out, to_dense_by_loops(indices, values, default, shape))
    scalar_value = FAMILY.run("sparse_to_dense", indices[:, 0], values[0], default, output_shape=[4, 3])
    same(scalar_value, to_dense_by_loops(indices[:, 0], values[0], default, (4, 3)))


def test_dyn_sparse_to_dense_rejects_a_negative_size() -> None:
    with pytest.raises(KernelError) as err:
        FAMILY.run("dyn.sparse_to_dense", np.array([0]), np.array([1.0]), np.array(0.0), np.array([-2]))
    assert (err.value.code, err.value.message) == (
        "runtime-error",
        "sparse_to_dense: output_shape [-2] has a negative size",
    )


# ---------------------------------------------------------------- sparse_reshape


def reshape_by_loops(indices: np.ndarray, prev: list, new: list) -> tuple[list, list]:
    """Each coordinate row to a flat position in prev, and back in the new shape."""
    total = int(np.prod(prev))
    if -1 in new:
        known = int(np.prod([d for d in new if d != -1]))
        new = [total // known if d == -1 else d for d in new]
    if list(prev) == new:
        return indices.tolist(), new
    out = []
    for row in indices.tolist():
        flat = 0
        for k, c in enumerate(row):
            flat = flat * prev[k] + c
        coords = []
        for k in range(len(new) - 1, -1, -1):
            coords.append(flat % new[k] if k else flat)
            flat //= new[k] if k else 1
        out.append(coords[::-1])
    return out, new


RESHAPES = [
    # TestSparseReshape's cases (test_op_level3.py)
    ([[0, 0, 0, 0], [0, 0, 1, 2], [0, 1, 0, 3], [1, 0, 0, 4], [1, 2, 3, 6]], [2, 3, 6, 7], [9, -1, 7], "int64"),
    ([[0, 0], [0, 1], [3, 4], [4, 3], [7, 3]], [9, 4], [2, -1, 6], "int32"),
    ([[0, 0], [0, 1], [3, 4], [4, 3], [7, 3]], [9, 4], [-1], "int64"),
    ([[0], [5], [10], [20], [24]], [25], [5, 5], "int32"),
    ([[0, 100], [200, 100], [300, 400], [50, 20], [400, 50]], [500, 20], [500, -1], "int32"),
    ([[0, 100], [200, 100], [300, 400], [50, 20], [400, 50]], [500, 20], [250, 40], "int64"),
    (np.ones((0, 2)), [3, 6], [-1, 2], "int32"),
]


@pytest.mark.parametrize("indices, prev, new, dtype", RESHAPES, ids=[f"{c[1]}->{c[2]}" for c in RESHAPES])
def test_sparse_reshape_against_loops(indices, prev, new, dtype) -> None:
    """Equal shapes copy the coordinates as they are, even out-of-range ones (topi/sparse_reshape.py)."""
    i = np.array(indices, dtype=dtype)
    moved, shape = FAMILY.run("sparse_reshape", i, np.array(prev, dtype=dtype), np.array(new, dtype=dtype))
    want_rows, want_shape = reshape_by_loops(i, prev, new)
    same(moved, np.array(want_rows, dtype=dtype).reshape(i.shape[0], len(new)))
    same(shape, np.array(want_shape, dtype=dtype))


def test_sparse_reshape_by_hand() -> None:
    """(2, 3, 4) to (6, -1): the -1 becomes 4. A -1 that does not divide the element
    count is an error here (topi truncates the division and goes on)."""
    i = np.array([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 2, 3]], dtype=np.int64)
    moved, shape = FAMILY.run(
        "sparse_reshape", i, np.array([2, 3, 4], dtype=np.int64), np.array([6, -1], dtype=np.int64)
    )
    same(moved, np.array([[0, 0], [0, 1], [1, 0], [3, 0], [5, 3]], dtype=np.int64))
    same(shape, np.array([6, 4], dtype=np.int64))
    with pytest.raises(KernelError) as err:
        FAMILY.run("sparse_reshape", i, np.array([2, 3, 4], dtype=np.int64), np.array([9, -1], dtype=np.int64))
    assert (err.value.code, err.value.message) == (
        "runtime-error",
        "sparse_reshape: cannot infer the -1 of [9, -1] for 24 elements",
    )


# ---------------------------------------------------------------- sparse_fill_empty_rows


def fill_by_loops(indices: np.ndarray, values: np.ndarray, dense_shape: np.ndarray, default: np.ndarray) -> tuple:
    """Walk the rows in order; a row without entries gets one at column 0."""
    new_indices, new_values = [], []
    empty = [1] * int(dense_shape[0])
    pending = 0
    for row, value in zip(indices.tolist(), values.tolist(), strict=False):
        while pending < row[0]:
            new_indices.append([pending] + [0] * (indices.shape[1] - 1))
            new_values.append(int(default[0]))
            pending += 1
        new_indices.append(row)
        new_values.append(int(value))
        empty[row[0]] = 0
        pending = row[0] + 1
    while pending < dense_shape[0]:
        new_indices.append([pending] + [0] * (indices.shape[1] - 1))
        new_values.append(int(default[0]))
        pending += 1
    return (
        np.array(new_indices, dtype=np.int64).reshape(-1, indices.shape[1]),
        np.array(new_values, dtype=np.int64),
        np.array(empty, dtype=np.int64),
    )


FILLS = [
    # test_dynamic_op_level3.py's test_sparse_fill_empty_rows cases
    ([[0, 1], [0, 3], [2, 0], [3, 1]], [1, 2, 3, 4], [5, 6], [10]),
    ([[1, 1, 1], [1, 3, 1], [2, 0, 5], [3, 1, 6]], [1, 2, 3, 4], [7, 7, 7], [5]),
    ([[1], [2]], [7, 8], [5], [4]),
    (np.ones((0, 1)), [], [5], [4]),
    (np.ones((0, 3)), [], [9, 3, 7], [100]),
]


@pytest.mark.parametrize("dtype", ["int64", "int32"])
@pytest.mark.parametrize("indices, values, dense_shape, default", FILLS, ids=[str(c[2]) for c in FILLS])
def test_sparse_fill_empty_rows_against_loops(indices, values, dense_shape, default, dtype) -> None:
    args = [np.array(a, dtype=dtype) for a in (indices, values, dense_shape, default)]
    out = FAMILY.run("sparse_fill_empty_rows", *args)
    for got, want in zip(out, fill_by_loops(*args), strict=False):
        same(got, want)


def test_sparse_fill_empty_rows_docstring_example() -> None:
    """python/tvm/relay/op/transform.py's example; the operator itself gives int64
    marks (the wrapper casts them to bool) and float values truncated to int64."""
    indices = np.array([[0, 1], [0, 3], [2, 0], [3, 1]], dtype=np.int64)
    new_indices, new_values, empty = FAMILY.run(
        "sparse_fill_empty_rows",
        indices,
        np.array([1.5, 2.0, 3.0, 4.0], dtype=np.float32),
        np.array([5, 6], dtype=np.int64),
        np.array([10], dtype=np.int64),
    )
    same(new_indices, np.array([[0, 1], [0, 3], [1, 0], [2, 0], [3, 1], [4, 0]], dtype=np.int64))
    same(new_values, np.array([1, 2, 10, 3, 4, 10], dtype=np.int64))
    same(empty, np.array([0, 1, 0, 0, 1], dtype=np.int64))


def test_sparse_fill_empty_rows_needs_rows_in_order() -> None:
    args = (np.array([[2, 0], [0, 1]]), np.array([1, 2]), np.array([3, 3]), np.array([0]))
    with pytest.raises(KernelError) as err:
        FAMILY.run("sparse_fill_empty_rows", *args)
    assert (err.value.code, err.value.message) == (
        "runtime-error",
        "sparse_fill_empty_rows: the coordinates must be sorted by row",
    )


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
