"""`slice_like`, `reshape_like`, `collapse_sum_like`, `collapse_sum_to`,
`contrib_reverse_reshape`: result types from TVM's tests, rejections, and
the kernels against PyTorch and numpy references.

Rules: src/relay/op/tensor/transform.cc (SliceLikeRel, ReshapeLikeRel and
infer_reshape_like, CollapseSumLikeRel, CollapseSumToRel, ReverseReshapeRel
with InferNewShape); semantics: include/tvm/topi/reduction.h
(collapse_sum), SliceLikeCompute in transform.cc.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family("slice_like", "reshape_like", "collapse_sum_like", "collapse_sum_to", "contrib_reverse_reshape")


@pytest.fixture
def torch():
    torch_reference()
    import torch as module

    return module


# ---------------------------------------------------------------- slice_like


@pytest.mark.parametrize(
    "data, like, axes, expected",
    [
        ("(3, 4, 5)", "(1, 2, 3)", None, "(1, 2, 3)"),
        ("(3, 4, 5)", "(1, 2)", None, "(1, 2, 5)"),
        ("(3, 4, 5)", "(1, 2, 3)", [1, 2], "(3, 2, 3)"),
        ("(3, 4, 5)", "(1, 2, 3)", [-1, -3], "(1, 4, 3)"),
        ("(1, 3, 224, 224)", "(1, 3, 112, 112)", [2, 3], "(1, 3, 112, 112)"),
        ("(?, ?, ?)", "(1, 2, 3)", None, "(1, 2, 3)"),
        ("(1, 2, 3)", "(?, ?, ?)", None, "(?, ?, ?)"),
    ],
)
def test_slice_like_type(data: str, like: str, axes, expected: str) -> None:
    """The like tensor's sizes on the chosen axes (SliceLikeRel; the cases of
    test_op_level10.py::test_slice_like, `?` for its symbolic sizes)."""
    call = "slice_like(%a, %b)" if axes is None else f"slice_like(%a, %b, axes={axes})"
    assert FAMILY.result_type(call, [T(data, "int32"), T(like)]) == T(expected, "int32")


@pytest.mark.parametrize(
    "call, types, code, message, at",
    [
        (
            "slice_like(%a, %b)",
            [T("(3, 4, 5)"), T("(1, 6)")],
            "shape-mismatch",
            "`slice_like` cannot take 6 elements along axis 1, where the data has 4",
            "%b",
        ),
        (
            "slice_like(%a, %b, axes=[2])",
            [T("(3, 4, 5)"), T("(1, 6)")],
            "shape-mismatch",
            "`slice_like`: axis 2 is out of range for shape_like of rank 2",
            "%b",
        ),
        (
            "slice_like(%a, %b, axes=[])",
            [T("(3, 4, 5)"), T("(1, 2)")],
            "type-mismatch",
            "`slice_like` axes cannot be empty",
            "slice_like(%a, %b, axes=[])",
        ),
    ],
)
def test_slice_like_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    """SliceLikeRel: the end of each axis within the data, axes within the like
    tensor, and not an empty list."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


@pytest.mark.parametrize("axes", [None, (1, 2), (-1, -3)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_slice_like_kernel_against_torch(torch, axes, dtype: str) -> None:
    data = (np.random.default_rng(59).standard_normal((3, 4, 5)) * 9).astype(dtype)
    like = np.zeros((1, 2, 3), np.float32)
    t = torch.from_numpy(data)
    chosen = range(3) if axes is None else [a % 3 for a in axes]
    for a in chosen:
        t = t.narrow(a, 0, like.shape[a])
    same(FAMILY.run("slice_like", data, like, axes=axes), t.numpy())


# ---------------------------------------------------------------- reshape_like


@pytest.mark.parametrize(
    "data, like, attrs, expected",
    [
        ("(1, 2, 3)", "(1, 6)", "", "(1, 6)"),
        ("(1, 2, 3, 4)", "(1, 6, 5)", ", lhs_begin=1, lhs_end=3, rhs_begin=1, rhs_end=2", "(1, 6, 4)"),
        ("(1, 2, 3, 4)", "(2, 3, 4, 1, 6)", ", rhs_end=3", "(2, 3, 4)"),
        ("(1, 2, 3, 4)", "(2, 3, 4, 1, 6)", ", rhs_begin=2", "(4, 1, 6)"),
        ("(?, 2, 3, ?)", "(1, 8, 8)", "", "(1, 8, 8)"),
        ("(?, 2, 3, ?)", "(5, 6)", ", lhs_end=3", "(5, 6, ?)"),
    ],
)
def test_reshape_like_type(data: str, like: str, attrs: str, expected: str) -> None:
    """data[:lhs_begin] + like[rhs_begin:rhs_end] + data[lhs_end:] (infer_reshape_like;
    test_op_level3.py::test_reshape_like_infer_type, `?` for its size variables)."""
    assert FAMILY.result_type(f"reshape_like(%a, %b{attrs})", [T(data), T(like, "int8")]) == T(expected)


@pytest.mark.parametrize(
    "call, message",
    [
        ("reshape_like(%a, %b)", "`reshape_like` cannot reshape (3, 4) (12 elements) into (1, 6) (6 elements)"),
        (
            "reshape_like(%a, %b, rhs_begin=2, rhs_end=1)",
            "`reshape_like`: rhs_begin=2 and rhs_end=1 do not give a range of axes of a tensor of rank 2",
        ),
    ],
)
def test_reshape_like_rejected(call: str, message: str) -> None:
    """ReshapeLikeRel checks the element count of static shapes."""
    d = FAMILY.only_error(call, [T("(3, 4)"), T("(1, 6)")])
    assert (d.code, d.message, d.span.text) == ("shape-mismatch", message, "%b")


@pytest.mark.parametrize(
    "shape, like, attrs, oshape",
    [
        ((2, 3, 4), (1, 8, 3), {}, (1, 8, 3)),
        ((4, 7), (2, 7, 2), {}, (2, 7, 2)),
        ((1, 2, 3, 4), (1, 6, 5), {"lhs_begin": 1, "lhs_end": 3, "rhs_begin": 1, "rhs_end": 2}, (1, 6, 4)),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
def test_reshape_like_kernel_against_torch(torch, shape, like, attrs, oshape, dtype: str) -> None:
    """The cases of test_op_level3.py::TestReshapeLike."""
    data = (np.random.default_rng(61).standard_normal(shape) * 9).astype(dtype)
    same(
        FAMILY.run("reshape_like", data, np.zeros(like, np.float32), **attrs),
        torch.from_numpy(data).reshape(oshape).numpy(),
    )


# ---------------------------------------------------------------- collapse_sum_like, collapse_sum_to


def test_collapse_sum_like_type() -> None:
    """The second input's type (CollapseSumLikeRel; test_op_level10.py::test_collapse_sum_like)."""
    assert FAMILY.result_type("collapse_sum_like(%a, %b)", [T("(3, 4, 5, 6)"), T("(4, 5, 6)")]) == T("(4, 5, 6)")
    assert FAMILY.result_type("collapse_sum_like(%a, %b)", [T("(3, 4, 5, 6)", "int32"), T("(4, 1, 1)", "int32")]) == T(
        "(4, 1, 1)", "int32"
    )


@pytest.mark.parametrize(
    "types, code, message",
    [
        ([T("(2, 3, 4)"), T("(2, 4)")], "shape-mismatch", "`collapse_sum_like` cannot collapse (2, 3, 4) to (2, 4)"),
        (
            [T("(3, 4)"), T("(2, 3, 4)")],
            "shape-mismatch",
            "`collapse_sum_like` cannot collapse (3, 4) to (2, 3, 4), which has more axes",
        ),
        (
            [T("(3, 4)"), T("(4)", "float64")],
            "type-mismatch",
            "`collapse_sum_like` needs tensors of one dtype: the data is `float32`, the target `float64`",
        ),
    ],
)
def test_collapse_sum_like_rejected(types: list[str], code: str, message: str) -> None:
    """CollapseSumLikeRel: Broadcast(data, target) must be the data (type_relations.cc
    BroadcastRel, which also wants one dtype)."""
    d = FAMILY.only_error("collapse_sum_like(%a, %b)", types)
    assert (d.code, d.message, d.span.text) == (code, message, "%b")


def test_collapse_sum_to_type() -> None:
    """The shape attribute when given, else `?` per entry of the shape vector
    (CollapseSumToRel; test_op_level10.py::test_collapse_sum_to)."""
    assert FAMILY.result_type("collapse_sum_to(%a, %b, shape=[4, 5, 6])", [T("(3, 4, 5, 6)"), T("(3)", "int64")]) == T(
        "(4, 5, 6)"
    )
    assert FAMILY.result_type("collapse_sum_to(%a, %b)", [T("(3, 4, 5, 6)", "int32"), T("(2)", "int32")]) == T(
        "(?, ?)", "int32"
    )


@pytest.mark.parametrize(
    "call, types, code, message",
    [
        (
            "collapse_sum_to(%a, %b, shape=[2, 1, 3])",
            [T("(2, 3, 4)"), T("(3)", "int64")],
            "shape-mismatch",
            "`collapse_sum_to` cannot collapse (2, 3, 4) to (2, 1, 3)",
        ),
        (
            "collapse_sum_to(%a, %b)",
            [T("(2, 3, 4)"), T("(?)", "int64")],
            "shape-mismatch",
            "`collapse_sum_to` needs a target shape of static length, found a vector of size (?)",
        ),
        (
            "collapse_sum_to(%a, %b, shape=[4])",
            [T("(2, 3, 4)"), T("(2)", "int64")],
            "shape-mismatch",
            "`collapse_sum_to`: the shape attribute [4] has 1 sizes, the target shape vector 2",
        ),
        (
            "collapse_sum_to(%a, %b)",
            [T("(2, 3, 4)"), T("(2)", "float32")],
            "type-mismatch",
            "`collapse_sum_to` takes the target shape of integers, found `float32`",
        ),
    ],
)
def test_collapse_sum_to_rejected(call: str, types: list[str], code: str, message: str) -> None:
    """CollapseSumToRel: the shape vector has a static length (its rank check),
    and the data broadcasts from the target."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, "%b")


@pytest.mark.parametrize(
    "shape, target",
    [
        ((3, 4, 5, 6), (4, 5, 6)),
        ((3, 4, 5, 6), (4, 1, 1)),
        ((3, 4, 5, 6), (1, 1, 1, 6)),
        ((2, 3), ()),
        ((2, 3), (2, 3)),
        ((2, 1, 3), (1, 3)),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "int32", "int8"])
def test_collapse_sum_kernels_against_torch(torch, shape, target, dtype: str) -> None:
    """Sums in the data's dtype: int8 wraps around."""
    data = np.random.default_rng(67).integers(-100, 100, shape).astype(dtype)
    expected = (
        torch.from_numpy(data).sum_to_size(target).numpy().astype(dtype) if target else np.array(data.sum(dtype=dtype))
    )
    same(FAMILY.run("collapse_sum_like", data, np.zeros(target, dtype)), expected)
    same(FAMILY.run("collapse_sum_to", data, np.array(target, np.int64)), expected)


def test_collapse_sum_of_bools_is_a_logical_or() -> None:
    data = np.array([[True, False], [False, False]])
    same(FAMILY.run("collapse_sum_to", data, np.array([2], np.int32), shape=[2]), np.array([True, False]))


# ---------------------------------------------------------------- contrib_reverse_reshape


@pytest.mark.parametrize(
    "newshape, expected",
    [
        ([4, 0, 2], "(4, 3, 2)"),
        ([2, 0, 0], "(2, 3, 4)"),
        ([0, -1], "(3, 8)"),
        ([-1, 0], "(6, 4)"),
        ([0, -3], "(2, 12)"),
    ],
)
def test_contrib_reverse_reshape_type(newshape: list, expected: str) -> None:
    """Special values read from the right (ReverseReshapeRel; the cases of
    test_op_level10.py::test_reverse_reshape on data (2, 3, 4))."""
    assert FAMILY.result_type(f"contrib_reverse_reshape(%a, newshape={newshape})", [T("(2, 3, 4)")]) == T(expected)


def test_contrib_reverse_reshape_rejected() -> None:
    """ReverseReshapeRel checks the element count."""
    d = FAMILY.only_error("contrib_reverse_reshape(%a, newshape=[-1, 7])", [T("(10, 5, 4)")])
    assert (d.code, d.message, d.span.text) == (
        "shape-mismatch",
        "`contrib_reverse_reshape` cannot reshape (10, 5, 4) with newshape [-1, 7]",
        "%a",
    )
    assert d.notes == [
        (
            "read from the right, the input is (4, 5, 10) and newshape [7, -1]: cannot reshape (4, 5, 10) (200 "
            "elements) into newshape [7, -1]"
        ),
        "200 is not a multiple of 7, the product of the other dimensions",
    ]


@pytest.mark.parametrize(
    "newshape, oshape", [([4, 0, 2], (4, 3, 2)), ([0, -1], (3, 8)), ([-1, 0], (6, 4)), ([0, -3], (2, 12))]
)
def test_contrib_reverse_reshape_kernel(torch, newshape: list, oshape: tuple) -> None:
    data = np.random.default_rng(71).standard_normal((2, 3, 4)).astype(np.float32)
    same(FAMILY.run("contrib_reverse_reshape", data, newshape=newshape), torch.from_numpy(data).reshape(oshape).numpy())


def test_collapse_sum_to_shape_from_a_constant_without_metadata() -> None:
    """relay.collapse_sum_to makes the target an int32 constant and sets the shape
    attribute from it: without metadata, the constant is an int32 vector of that length."""
    assert FAMILY.result_type("collapse_sum_to(%a, meta[relay.Constant][0], shape=[4])", [T("(3, 4)")]) == T("(4)")


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
