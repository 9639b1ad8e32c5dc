"""`scatter_elements`, `scatter_nd`, `strided_set`: result types, rejections,
and the kernels against PyTorch, element-by-element loops and TVM's test
values.

Rules: src/relay/op/tensor/transform.cc (ScatterElementsRel, ScatterNDRel,
StridedSetRel); semantics: python/tvm/topi/scatter_elements.py,
python/tvm/topi/scatter.py, python/tvm/topi/transform.py (strided_set).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from relay_text.ir.span import Source
from relay_text.ops import KernelError
from relay_text.pipeline import check_source
from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family("scatter_elements", "scatter_nd", "strided_set")

I32 = "int32"


@pytest.fixture
def torch():
    torch_reference()
    import torch as module

    return module


# ---------------------------------------------------------------- scatter_elements


@pytest.mark.parametrize(
    "call, types, expected",
    [
        ("scatter_elements(%a, %b, %c)", [T("(10)"), T("(10)", I32), T("(10)")], T("(10)")),
        ("scatter_elements(%a, %b, %c, axis=1)", [T("(3, 5)"), T("(3, 4)", "int64"), T("(3, 4)")], T("(3, 5)")),
        (
            'scatter_elements(%a, %b, %c, axis=-1, reduction="add")',
            [T("(2, 3, 4)", I32), T("(2, 3, 2)", "uint8"), T("(2, 3, 2)", I32)],
            T("(2, 3, 4)", I32),
        ),
        (
            'scatter_elements(%a, %b, %c, reduction="max")',
            [T("(4, 2)", "bool"), T("(1, 2)", I32), T("(1, 2)", "bool")],
            T("(4, 2)", "bool"),
        ),
    ],
)
def test_scatter_elements_type(call: str, types: list[str], expected: str) -> None:
    """The result has the data's type (ScatterElementsRel; shapes as in
    test_op_level3.py::test_scatter)."""
    assert FAMILY.result_type(call, types) == expected


@pytest.mark.parametrize(
    "call, types, code, message, at",
    [
        (
            "scatter_elements(%a, %b, %c)",
            [T("(4)"), T("(2)", "float32"), T("(2)")],
            "type-mismatch",
            "`scatter_elements` takes indices of integers, found `float32`",
            "%b",
        ),
        (
            "scatter_elements(%a, %b, %c, axis=1)",
            [T("(2, 3)"), T("(2, 5)", I32), T("(2, 4)")],
            "shape-mismatch",
            "`scatter_elements` needs updates of the shape of the indices, (2, 5), found (2, 4)",
            "%c",
        ),
        (
            'scatter_elements(%a, %b, %c, reduction="mean")',
            [T("(4)", I32), T("(2)", I32), T("(2)", I32)],
            "type-mismatch",
            '`scatter_elements` reduction="mean" takes floating-point data, found `int32`',
            "%a",
        ),
        (
            'scatter_elements(%a, %b, %c, reduction="add")',
            [T("(4)", "bool"), T("(2)", I32), T("(2)", "bool")],
            "type-mismatch",
            '`scatter_elements` reduction="add" takes numbers, not bool',
            "%a",
        ),
        (
            'scatter_elements(%a, %b, %c, reduction="sum")',
            [T("(4)"), T("(2)", I32), T("(2)")],
            "type-mismatch",
            '`scatter_elements` reduction must be "update", "add", "mul", "mean", "min" or "max", found "sum"',
            'scatter_elements(%a, %b, %c, reduction="sum")',
        ),
        (
            "scatter_elements(%a, %b, %c)",
            [T("(4)"), T("(2)", I32), T("(2)", "float16")],
            "type-mismatch",
            "`scatter_elements` needs updates of the data's dtype: the data is `float32`, updates `float16`",
            "%c",
        ),
        (
            "scatter_elements(%a, %b, %c)",
            [T("(4, 2)"), T("(2, 3)", I32), T("(2, 3)")],
            "shape-mismatch",
            "`scatter_elements` along axis 0: the indices have size 3 at axis 1, larger than the data's 2",
            "%b",
        ),
    ],
)
def test_scatter_elements_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    """ScatterElementsRel wants integer indices; TOPI (scatter_elements.py) reads
    updates at the indices' positions, knows six reductions, and divides with
    `/` for "mean" (undefined for integers in TIR)."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


def _scatter_elements_loops(data, indices, updates, axis, reduction):
    """One update after another, in TOPI's order (positions along `axis` ascending)."""
    out = data.copy()
    n = data.shape[axis]
    for pos in itertools.product(*map(range, indices.shape)):
        k = int(indices[pos])
        target = list(pos)
        target[axis] = k + n if k < 0 else k
        target = tuple(target)
        u = updates[pos]
        if reduction == "update":
            out[target] = u
        elif reduction == "add":
            out[target] += u
        elif reduction == "mul":
            out[target] *= u
        elif reduction == "mean":
            out[target] = (out[target] + u) / 2
        elif reduction == "min":
            out[target] = min(out[target], u)
        else:
            out[target] = max(out[target], u)
    return out


@pytest.mark.parametrize("reduction", ["update", "add", "mul", "mean", "min", "max"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_scatter_elements_kernel_against_loops(reduction: str, axis: int) -> None:
    """Repeated targets included: they are combined one after another."""
    rng = np.random.default_rng(11)
    data = rng.standard_normal((4, 5, 3)).astype(np.float32)
    shape = [3, 4, 2]
    indices = rng.integers(-data.shape[axis], data.shape[axis], shape).astype(np.int64)
    updates = rng.standard_normal(shape).astype(np.float32)
    out = FAMILY.run("scatter_elements", data, indices, updates, axis=axis, reduction=reduction)
    same(out, _scatter_elements_loops(data, indices, updates, axis % 3, reduction))


@pytest.mark.parametrize(
    "dtype, reduction",
    [(d, m) for d in ("int32", "int8") for m in ("update", "add", "mul", "min", "max")]
    + [("bool", m) for m in ("update", "min", "max")],
)
def test_scatter_elements_integer_and_bool_kernels(dtype: str, reduction: str) -> None:
    """Integers wrap around (int8: 100 + 100 is -56)."""
    rng = np.random.default_rng(12)
    data = rng.integers(-100, 100, (6, 4)).astype(dtype)
    indices = rng.integers(0, 6, (5, 4)).astype(np.int32)
    updates = rng.integers(-100, 100, (5, 4)).astype(dtype)
    out = FAMILY.run("scatter_elements", data, indices, updates, axis=0, reduction=reduction)
    with np.errstate(over="ignore"):
        same(out, _scatter_elements_loops(data, indices, updates, 0, reduction))


def test_scatter_elements_add_against_torch(torch) -> None:
    rng = np.random.default_rng(13)
    data = rng.standard_normal((5, 6)).astype(np.float32)
    indices = rng.integers(0, 6, (5, 3))
    updates = rng.standard_normal((5, 3)).astype(np.float32)
    expected = torch.from_numpy(data).scatter_add(1, torch.from_numpy(indices), torch.from_numpy(updates)).numpy()
    same(
        FAMILY.run("scatter_elements", data, indices.astype(np.int32), updates, axis=1, reduction="add"),
        expected,
        rtol=1e-5,
    )


def test_scatter_elements_index_out_of_range() -> None:
    with pytest.raises(KernelError) as err:
        FAMILY.run("scatter_elements", np.zeros(3, np.float32), np.array([3]), np.ones(1, np.float32))
    assert err.value.message == "scatter_elements: index 3 is out of range for axis 0 of size 3"


# ---------------------------------------------------------------- scatter_nd


@pytest.mark.parametrize(
    "types, expected",
    [
        ([T("(2, 2)", "int64"), T("(2, 3)", "uint8"), T("(3)", "int64")], T("(2, 2)", "int64")),
        ([T("(2, 2, 2, 2)", "int64"), T("(2, 2)", "uint16"), T("(2, 2, 2)", "int64")], T("(2, 2, 2, 2)", "int64")),
        ([T("(1, 1, 10)"), T("(2, 1, 1, 1)", "int64"), T("(1, 1, 1, 10)")], T("(1, 1, 10)")),
        ([T("(2, 7, 3)", "float64"), T("(2, 5)", I32), T("(5, 3)", "float64")], T("(2, 7, 3)", "float64")),
    ],
)
def test_scatter_nd_type(types: list[str], expected: str) -> None:
    """The data's type (ScatterNDRel; shapes from test_op_level3.py::test_scatter_nd,
    including its unequal M and K case)."""
    assert FAMILY.result_type("scatter_nd(%a, %b, %c)", types) == expected


@pytest.mark.parametrize(
    "call, types, code, message, at",
    [
        (
            "scatter_nd(%a, %b, %c)",
            [T("(2, 3, 4)"), T("(2, 5)", I32), T("(5, 3)")],
            "shape-mismatch",
            (
                "`scatter_nd` needs updates of shape (5, 4) (the indices' axes after the first, then the "
                "data's after the first 2), found (5, 3)"
            ),
            "%c",
        ),
        (
            "scatter_nd(%a, %b, %c)",
            [T("(2, 3)"), T("(3, 5)", I32), T("(5)")],
            "shape-mismatch",
            "`scatter_nd`: index tuples of 3 coordinates need data of rank 3 or more, found (2, 3)",
            "%b",
        ),
        (
            'scatter_nd(%a, %b, %c, mode="mean")',
            [T("(2, 3)"), T("(2, 5)", I32), T("(5)")],
            "type-mismatch",
            '`scatter_nd` mode must be "update", "add", "mul", "min" or "max", found "mean"',
            'scatter_nd(%a, %b, %c, mode="mean")',
        ),
        (
            "scatter_nd(%a, %b, %c)",
            [T("(2, 3)"), T("(2, 5)", "bool"), T("(5)")],
            "type-mismatch",
            "`scatter_nd` takes indices of integers, found `bool`",
            "%b",
        ),
    ],
)
def test_scatter_nd_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    """ScatterNDRel: M <= N, updates of shape (Y_0..Y_{K-1}, X_M..X_{N-1}),
    integer indices; python/tvm/topi/scatter.py knows five modes."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


def test_scatter_nd_kernel_matches_test_op_level3() -> None:
    """The fixed cases of test_op_level3.py::test_scatter_nd (mode "add")."""
    out = FAMILY.run(
        "scatter_nd",
        np.zeros((2, 2), np.int64),
        np.array([[1, 1, 0], [0, 1, 0]], np.uint8),
        np.array([2, 3, 0]),
        mode="add",
    )
    same(out, np.array([[0, 0], [2, 3]], np.int64))
    updates = np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], np.int64)
    out = FAMILY.run(
        "scatter_nd", np.zeros((2, 2, 2, 2), np.int64), np.array([[0, 1], [1, 1]], np.uint32), updates, mode="add"
    )
    expected = np.zeros((2, 2, 2, 2), np.int64)
    expected[0, 1] = updates[0]
    expected[1, 1] = updates[1]
    same(out, expected)


@pytest.mark.parametrize("mode", ["update", "add", "mul", "min", "max"])
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_scatter_nd_kernel_against_loops(mode: str, dtype: str) -> None:
    """The loop of test_op_level3.py::test_scatter_nd, repeated index tuples included."""
    rng = np.random.default_rng(17)
    indices = np.stack((rng.integers(2, size=9), rng.integers(7, size=9))).astype(np.int64)
    updates = rng.integers(-5, 6, (9, 3)).astype(dtype)
    data = rng.integers(-5, 6, (2, 7, 3)).astype(dtype)
    expected = data.copy()
    for i in range(indices.shape[1]):
        for j in range(updates.shape[1]):
            at = (indices[0, i], indices[1, i], j)
            expected[at] = {
                "update": lambda a, b: b,
                "add": lambda a, b: a + b,
                "mul": lambda a, b: a * b,
                "min": min,
                "max": max,
            }[mode](expected[at], updates[i, j])
    same(FAMILY.run("scatter_nd", data, indices, updates, mode=mode), expected)


def test_scatter_nd_with_empty_index_tuples() -> None:
    """M = 0: every update covers the whole data (ScatterNDRel allows M <= N)."""
    updates = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    out = FAMILY.run("scatter_nd", np.ones((2, 3), np.float32), np.zeros((0, 2), np.int64), updates, mode="add")
    same(out, 1 + updates[0] + updates[1])
    out = FAMILY.run("scatter_nd", np.ones((2, 3), np.float32), np.zeros((0, 2), np.int64), updates)
    same(out, updates[1])


def test_scatter_nd_add_against_torch(torch) -> None:
    rng = np.random.default_rng(19)
    data = rng.standard_normal((4, 5, 6)).astype(np.float32)
    indices = rng.integers(0, 4, (2, 3, 2))
    indices[1] %= 5
    updates = rng.standard_normal((3, 2, 6)).astype(np.float32)
    expected = (
        torch.from_numpy(data.copy())
        .index_put_(
            (torch.from_numpy(indices[0]), torch.from_numpy(indices[1])), torch.from_numpy(updates), accumulate=True
        )
        .numpy()
    )
    same(FAMILY.run("scatter_nd", data, indices, updates, mode="add"), expected, rtol=1e-5)


def test_scatter_nd_does_not_count_from_the_end() -> None:
    with pytest.raises(KernelError) as err:
        FAMILY.run("scatter_nd", np.zeros((2, 2), np.float32), np.array([[-1]]), np.ones((1, 2), np.float32))
    assert err.value.message == "scatter_nd: index -1 is out of range for axis 0 of size 2"


# ---------------------------------------------------------------- strided_set


def test_strided_set_type() -> None:
    """The data's type (StridedSetRel assigns it; test_op_level4.py::test_strided_set)."""
    types = [T("(3, 4, 16)"), T("(3, 1, 2)"), T("(3)", I32), T("(3)", I32), T("(3)", I32)]
    assert FAMILY.result_type("strided_set(%a, %b, %c, %d, %e)", types) == T("(3, 4, 16)")


@pytest.mark.parametrize(
    "types, code, message, at",
    [
        (
            [T("(3, 4)"), T("(2, 3)"), T("(2)", "int64"), T("(2)", I32), T("(2)", I32)],
            "type-mismatch",
            "`strided_set` takes begin as an int32 vector, found `int64`",
            "%c",
        ),
        (
            [T("(3, 4)"), T("(2, 3)"), T("(2)", I32), T("(2, 1)", I32), T("(2)", I32)],
            "shape-mismatch",
            "`strided_set` takes end as a vector, found a tensor of shape (2, 1)",
            "%d",
        ),
        (
            [T("(3, 4)"), T("(3)"), T("(2)", I32), T("(2)", I32), T("(2)", I32)],
            "shape-mismatch",
            "`strided_set` needs values of the data's rank: the data is (3, 4), the values (3)",
            "%b",
        ),
        (
            [T("(3, 4)"), T("(2, 3)", I32), T("(2)", I32), T("(2)", I32), T("(2)", I32)],
            "type-mismatch",
            "`strided_set` needs the values of the data's dtype: the data is `float32`, the values `int32`",
            "%b",
        ),
    ],
)
def test_strided_set_rejected(types: list[str], code: str, message: str, at: str) -> None:
    """TOPI's strided_set (python/tvm/topi/transform.py) raises unless begin, end
    and strides are int32 vectors; it indexes the values with one index per axis."""
    d = FAMILY.only_error("strided_set(%a, %b, %c, %d, %e)", types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


@pytest.mark.parametrize(
    "dshape, begin, end, strides, vshape",
    [
        ((3, 4, 16), [0, 0, 0], [4, -5, 4], [1, -1, 2], (3, 1, 2)),
        ((3, 4, 3), [1, 1, 0], [4, 4, 3], [2, 1, 1], (1, 3, 3)),
        ((3, 4, 3), [1, -1, 0], [4, -5, 3], [2, -1, 1], (1, 4, 3)),
        ((3, 4, 3), [1, 0, 0], [2, 2, 3], [1, 1, 2], (1, 2, 2)),
        ((3, 4, 3), [1, -1, 0], [2, -3, 3], [1, -1, 1], (1, 2, 3)),
        ((3, 4, 3), [1, 1, 0], [4, 1000, 3], [], (2, 3, 3)),
        ((3, 4, 3), [1, 1, 0], [4, 4], [], (2, 3, 3)),
        ((3, 4, 3), [1, 1], [4, 4, 3], [], (2, 3, 3)),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_strided_set_kernel_matches_numpy_slicing(dshape, begin, end, strides, vshape, dtype) -> None:
    """The cases of test_op_level4.py::test_strided_set, checked there (and here)
    against assignment to a numpy slice."""
    rng = np.random.default_rng(23)
    data = (rng.standard_normal(dshape) * 9).astype(dtype)
    v = (rng.standard_normal(vshape) * 9).astype(dtype)
    expected = data.copy()
    expected[
        tuple(
            slice(
                begin[i] if i < len(begin) else None,
                end[i] if i < len(end) else None,
                strides[i] if i < len(strides) else None,
            )
            for i in range(len(dshape))
        )
    ] = v
    vec = [np.array(x, np.int32) for x in (begin, end, strides)]
    same(FAMILY.run("strided_set", data, v, *vec), expected)


def test_strided_set_negative_stride_aligns_from_the_end() -> None:
    """TOPI's formula for a stride -2 over positions 4 > p > 0 picks 3 and 1 (numpy's
    [4:0:-2] would pick 4 and 2): topi/utils.py within_index and make_idx."""
    out = FAMILY.run(
        "strided_set",
        np.zeros(5, np.int32),
        np.array([7, 8], np.int32),
        np.array([4], np.int32),
        np.array([0], np.int32),
        np.array([-2], np.int32),
    )
    same(out, np.array([0, 8, 0, 7, 0], np.int32))


def test_strided_set_box_larger_than_the_values() -> None:
    with pytest.raises(KernelError) as err:
        FAMILY.run(
            "strided_set",
            np.zeros((4,), np.float32),
            np.ones(2, np.float32),
            np.array([0], np.int32),
            np.array([4], np.int32),
            np.array([1], np.int32),
        )
    assert (
        err.value.message == "strided_set: the box needs values up to index 3 along axis 0, but the values have size 2"
    )


def test_strided_set_relation_in_a_where_clause() -> None:
    """A `where` clause may name StridedSet (the relation of an operator without
    attributes); it relates five inputs to a result."""
    text = "def @f(%a: Tensor[(4), int32]) -> Tensor[(4), int32] where StridedSet {\n  %a\n}\n"
    checked = check_source(Source("t.rly", text))
    assert [(d.code, d.message) for d in checked.diagnostics] == [
        ("arity-mismatch", "`StridedSet` relates 5 inputs to a result, but this function has 1 parameter")
    ]


def test_strided_set_bounds_from_constants_without_metadata() -> None:
    """begin, end and strides are constants in TVM dumps (relay.strided_set makes
    them); without metadata they are taken to be int32 vectors."""
    call = "strided_set(%a, %b, meta[relay.Constant][0], meta[relay.Constant][1], meta[relay.Constant][2])"
    assert FAMILY.result_type(call, [T("(3, 4)"), T("(2, 3)")]) == T("(3, 4)")


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
