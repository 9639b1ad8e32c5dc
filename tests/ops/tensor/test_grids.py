"""`meshgrid`, `sliding_window`: result types from TVM's tests, rejections,
kernels against PyTorch and TVM's test values.

Rules: src/relay/op/tensor/transform.cc (MeshgridRel, SlidingWindowRel);
semantics: include/tvm/topi/transform.h (meshgrid, sliding_window).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family("meshgrid", "sliding_window")


@pytest.fixture
def torch():
    torch_reference()
    import torch as module

    return module


# ---------------------------------------------------------------- meshgrid


@pytest.mark.parametrize(
    "lengths, indexing, grid",
    [
        ([3, 5], "ij", "(3, 5)"),
        ([4, 2], "xy", "(2, 4)"),
        ([3, 5, 2], "ij", "(3, 5, 2)"),
        ([3, 1, 5], "xy", "(1, 3, 5)"),
        ([3, 5, 0], "ij", "(3, 5, 1)"),
        ([7], "xy", "(7)"),
    ],
)
def test_meshgrid_type(lengths: list, indexing: str, grid: str) -> None:
    """One grid per input, scalars counting as length 1, "xy" swapping the first
    two axes (MeshgridRel; the cases of test_op_level3.py::TestMeshgrid, 0 for a scalar)."""
    types = [T(f"({n})" if n else "()", "int32") for n in lengths]
    fields = ", ".join(f"%{chr(ord('a') + i)}" for i in range(len(lengths)))
    expected = "(" + ", ".join([T(grid, "int32")] * len(lengths)) + ("," if len(lengths) == 1 else "") + ")"
    assert FAMILY.result_type(f'meshgrid(({fields},), indexing="{indexing}")', types) == expected


@pytest.mark.parametrize(
    "call, types, code, message, at",
    [
        (
            "meshgrid((%a, %b))",
            [T("(3)"), T("(4, 1)")],
            "shape-mismatch",
            "`meshgrid` takes scalars and vectors, but field 1 of its tuple is (4, 1)",
            "(%a, %b)",
        ),
        (
            "meshgrid((%a, %b))",
            [T("(3)"), T("(4)", "int32")],
            "type-mismatch",
            "`meshgrid` needs tensors of one dtype: field 0 is `float32`, field 1 is `int32`",
            "(%a, %b)",
        ),
        (
            'meshgrid((%a, %b), indexing="ji")',
            [T("(3)"), T("(4)")],
            "type-mismatch",
            '`meshgrid` indexing must be "ij" or "xy", found "ji"',
            'meshgrid((%a, %b), indexing="ji")',
        ),
        (
            "meshgrid(%a)",
            [T("(3)")],
            "type-mismatch",
            "`meshgrid` takes a tuple of vectors, e.g. `meshgrid((%x, %y))`",
            "%a",
        ),
    ],
)
def test_meshgrid_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    """MeshgridRel: a tuple, of one dtype, of scalars or vectors."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


@pytest.mark.parametrize("lengths", [[3, 5], [4, 2], [3, 5, 2], [3, 1, 5], [3, 5, 0]])
@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_meshgrid_kernel_against_torch(torch, lengths: list, indexing: str, dtype: str) -> None:
    rng = np.random.default_rng(73)
    vectors = [(rng.standard_normal(n) * 9).astype(dtype) if n else np.array(1, dtype) for n in lengths]
    expected = torch.meshgrid(*[torch.from_numpy(v.reshape(-1)) for v in vectors], indexing=indexing)
    out = FAMILY.run("meshgrid", tuple(vectors), indexing=indexing)
    assert isinstance(out, tuple) and len(out) == len(expected)
    for got, want in zip(out, expected, strict=False):
        same(got, want.contiguous().numpy())


# ---------------------------------------------------------------- sliding_window


@pytest.mark.parametrize(
    "shape, attrs, expected",
    [
        ("(2, 3, 32, 32)", "axis=1, window_shape=[3, 4, 5], strides=[1, 2, 3]", "(2, 1, 15, 10, 3, 4, 5)"),
        ("(10)", "axis=0, window_shape=[3], strides=[3]", "(3, 3)"),
        ("(4, ?)", "axis=0, window_shape=[2, 2], strides=[2, 1]", "(2, ?, 2, 2)"),
    ],
)
def test_sliding_window_type(shape: str, attrs: str, expected: str) -> None:
    """floor((size - window + stride) / stride) windows per axis, then the window
    (SlidingWindowRel; the first case is test_op_level3.py::test_sliding_window)."""
    assert FAMILY.result_type(f"sliding_window(%a, {attrs})", [T(shape, "int16")]) == T(expected, "int16")


@pytest.mark.parametrize(
    "attrs, code, message, at",
    [
        (
            "axis=1, window_shape=[3, 4], strides=[1, 2]",
            "shape-mismatch",
            "`sliding_window` from axis 1 of a tensor of rank 4 needs a window of 3 sizes, found [3, 4]",
            "%a",
        ),
        (
            "axis=2, window_shape=[3, 40], strides=[1, 2]",
            "shape-mismatch",
            "`sliding_window`: the window of size 40 does not fit axis 3 of size 32",
            "%a",
        ),
        (
            "axis=-1, window_shape=[3], strides=[1]",
            "type-mismatch",
            "`sliding_window` needs an axis of 0 or more, found -1",
            None,
        ),
        (
            "axis=3, window_shape=[3], strides=[1, 1]",
            "type-mismatch",
            "`sliding_window` needs one stride per window axis: window_shape [3], strides [1, 1]",
            None,
        ),
    ],
)
def test_sliding_window_rejected(attrs: str, code: str, message: str, at) -> None:
    """topi::sliding_window checks axis >= 0, one window size per axis from
    `axis` on and one stride per window size."""
    call = f"sliding_window(%a, {attrs})"
    d = FAMILY.only_error(call, [T("(2, 3, 32, 32)")])
    assert (d.code, d.message, d.span.text) == (code, message, at or call)


def test_sliding_window_kernel_matches_test_op_level3() -> None:
    """The slices test_op_level3.py::test_sliding_window compares."""
    data = np.random.default_rng(79).random((2, 3, 32, 32)).astype(np.float32)
    out = FAMILY.run("sliding_window", data, axis=1, window_shape=[3, 4, 5], strides=[1, 2, 3])
    assert out.shape == (2, 1, 15, 10, 3, 4, 5)
    same(out[0, 0, 0, 0], data[0, :, 0:4, 0:5])
    same(out[1, 0, 7, 3], data[1, :, 14:18, 9:14])
    same(out[1, 0, 14, 9], data[1, :, 28:32, 27:32])


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
def test_sliding_window_kernel_against_torch_unfold(torch, dtype: str) -> None:
    data = (np.random.default_rng(83).standard_normal((2, 7, 9)) * 9).astype(dtype)
    expected = torch.from_numpy(data).unfold(1, 3, 2).unfold(2, 4, 3).contiguous().numpy()
    same(FAMILY.run("sliding_window", data, axis=1, window_shape=[3, 4], strides=[2, 3]), expected)


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
