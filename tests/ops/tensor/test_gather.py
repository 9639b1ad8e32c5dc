"""`gather`, `gather_nd`, `adv_index`: result types from TVM's own tests
(tests/python/relay/test_op_level3.py), rejections, and the kernels against
PyTorch and small independent implementations.

Rules: src/relay/op/tensor/transform.cc (GatherRel, GatherNDRel,
AdvIndexRel); semantics: include/tvm/topi/transform.h (gather, gather_nd,
adv_index).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from relay_text.ops import KernelError
from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family("gather", "gather_nd", "adv_index")

I32 = "int32"


@pytest.fixture
def torch():
    torch_reference()
    import torch as module

    return module


# ---------------------------------------------------------------- gather


@pytest.mark.parametrize(
    "call, types, expected",
    [
        ("gather(%a, %b, axis=1)", [T("(2, 2)"), T("(2, 2)", I32)], T("(2, 2)")),
        ("gather(%a, %b, axis=0)", [T("(3, 3)"), T("(2, 3)", "int64")], T("(2, 3)")),
        ("gather(%a, %b, axis=-1)", [T("(2, 4, 3)"), T("(2, 4, 4)", I32)], T("(2, 4, 4)")),
        ("gather(%a, %b, axis=2)", [T("(2, 4, 3)", "int8"), T("(2, 4, 7)", I32)], T("(2, 4, 7)", "int8")),
    ],
)
def test_gather_type(call: str, types: list[str], expected: str) -> None:
    """The result has the indices' shape and the data's dtype (GatherRel; shapes
    from test_op_level3.py::test_gather)."""
    assert FAMILY.result_type(call, types) == expected


def test_gather_infers_the_other_axes_of_the_indices() -> None:
    """GatherRel asserts the indices equal the data on every axis but `axis`."""
    assert FAMILY.param_type("gather(%a, %b, axis=1)", [T("(2, 3)"), "Tensor[(_, 4), int32]"], 1) == T("(2, 4)", I32)


@pytest.mark.parametrize(
    "call, types, code, message, at",
    [
        (
            "gather(%a, %b, axis=1)",
            [T("(2, 3)"), T("(3, 5)", I32)],
            "shape-mismatch",
            (
                "`gather` along axis 1: the indices must match the data on every other axis, but at axis 0 the "
                "data has size 2 and the indices 3"
            ),
            "%b",
        ),
        (
            "gather(%a, %b, axis=0)",
            [T("(2, 3)"), T("(3,)", I32)],
            "shape-mismatch",
            "`gather` needs indices of the data's rank: the data is (2, 3), the indices (3)",
            "%b",
        ),
        (
            "gather(%a, %b, axis=0)",
            [T("(2, 3)"), T("(2, 3)", "uint8")],
            "type-mismatch",
            "`gather` takes indices of signed integers, found `uint8`",
            "%b",
        ),
        (
            "gather(%a, %b)",
            [T("(2, 3)"), T("(2, 3)", I32)],
            "type-mismatch",
            "`gather` needs the attribute `axis`, e.g. `gather(%data, %indices, axis=0)`",
            "gather(%a, %b)",
        ),
        (
            "gather(%a, %b, axis=2)",
            [T("(2, 3)"), T("(2, 3)", I32)],
            "shape-mismatch",
            "axis 2 is out of range for a tensor of rank 2",
            "%a",
        ),
        (
            "gather(%a, %b, axis=1)",
            [T("(2, 3)"), T("(2, 0)", I32)],
            "shape-mismatch",
            "`gather`: the indices are empty along axis 1",
            "%b",
        ),
    ],
)
def test_gather_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    """GatherRel: integer indices (`is_int`), equal ranks, equal sizes off the
    axis, at least one index along it, and an axis (its default is None)."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


def test_gather_kernel_matches_test_op_level3() -> None:
    """The first case of test_op_level3.py::test_gather, values as listed there."""
    data = np.array([[1, 2], [3, 4]], np.float32)
    out = FAMILY.run("gather", data, np.array([[0, 0], [1, 0]], np.int32), axis=1)
    same(out, [[1, 1], [4, 3]])


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "bool", "uint8"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather_kernel_against_torch(torch, dtype: str, axis: int) -> None:
    rng = np.random.default_rng(3)
    data = (rng.standard_normal((3, 4, 5)) * 50).astype(dtype)
    shape = [3, 4, 5]
    shape[axis] = 6
    idx = rng.integers(0, data.shape[axis], shape).astype(np.int64)
    expected = torch.gather(torch.from_numpy(data), axis, torch.from_numpy(idx)).numpy()
    same(FAMILY.run("gather", data, idx.astype(np.int32), axis=axis), expected)


def test_gather_index_out_of_range_is_a_runtime_error() -> None:
    """TOPI reads out of range (it does not count negative indices from the end); the evaluator stops."""
    with pytest.raises(KernelError) as err:
        FAMILY.run("gather", np.zeros((2, 3), np.float32), np.array([[0, -1], [1, 2]], np.int32), axis=1)
    assert (err.value.code, err.value.message) == (
        "runtime-error",
        "gather: index -1 is out of range for axis 1 of size 3",
    )


# ---------------------------------------------------------------- gather_nd


@pytest.mark.parametrize(
    "call, types, expected",
    [
        ("gather_nd(%a, %b)", [T("(2, 2)"), T("(2, 3)", I32)], T("(3)")),
        ("gather_nd(%a, %b)", [T("(3, 2, 2)"), T("(2, 2)", I32)], T("(2, 2)")),
        ("gather_nd(%a, %b)", [T("(3, 2)"), T("(2, 2, 3)", I32)], T("(2, 3)")),
        ("gather_nd(%a, %b, batch_dims=1)", [T("(2, 2, 2)"), T("(1, 2)", I32)], T("(2, 2)")),
        ("gather_nd(%a, %b, batch_dims=1)", [T("(2, 2, 3, 2)"), T("(3, 2, 1)", I32)], T("(2, 1)")),
        ("gather_nd(%a, %b, batch_dims=2)", [T("(3, 2, 2, 3, 4)"), T("(2, 3, 2, 2)", "uint8")], T("(3, 2, 2, 4)")),
        ("gather_nd(%a, %b, index_rank=2)", [T("(2, 2)", "int64"), T("(2, 3)", "float32")], T("(3)", "int64")),
    ],
)
def test_gather_nd_type(call: str, types: list[str], expected: str) -> None:
    """(Y_0..Y_{K-1}) then the data's axes after M + B (GatherNDRel; shapes from
    test_op_level3.py::test_gather_nd)."""
    assert FAMILY.result_type(call, types) == expected


@pytest.mark.parametrize(
    "call, types, code, message, at",
    [
        (
            "gather_nd(%a, %b)",
            [T("(2, 2)"), T("(3, 4)", I32)],
            "shape-mismatch",
            "`gather_nd`: index tuples of 3 coordinates after 0 batch axes need data of rank 3 or more, found (2, 2)",
            "%b",
        ),
        (
            "gather_nd(%a, %b, batch_dims=1)",
            [T("(2, 2, 2)"), T("(1, 3)", I32)],
            "shape-mismatch",
            "`gather_nd`: batch axis 0 has size 2 in the data but 3 in the indices (their axis 1)",
            "%b",
        ),
        (
            "gather_nd(%a, %b)",
            [T("(2, 2)"), T("(?, 4)", I32)],
            "shape-mismatch",
            "`gather_nd` needs a static size for the first axis of the indices, found (?, 4)",
            "%b",
        ),
        (
            "gather_nd(%a, %b)",
            [T("(2, 2)"), T("()", I32)],
            "shape-mismatch",
            "`gather_nd` needs indices of rank 1 or more, found a scalar",
            "%b",
        ),
    ],
)
def test_gather_nd_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    """GatherNDRel: a static M no larger than the data's rank (with the batch
    axes), batch sizes that agree."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


def _gather_nd_loops(data: np.ndarray, indices: np.ndarray, batch: int) -> np.ndarray:
    """gather_nd element by element, from the formula in GatherNDRel's description."""
    m = indices.shape[0]
    ys = indices.shape[1:]
    rest = data.shape[batch + m :]
    out = np.zeros(ys + rest, data.dtype)
    for y in itertools.product(*map(range, ys)):
        lead = tuple(y[:batch]) + tuple(int(indices[(k, *y)]) for k in range(m))
        out[y] = data[lead]
    return out


@pytest.mark.parametrize(
    "dshape, ishape, batch",
    [
        ((2, 2), (2, 3), 0),
        ((3, 2, 2), (2, 2), 0),
        ((2, 2, 3, 2), (3, 2), 1),
        ((2, 2, 3, 2), (1, 2, 3), 1),
        ((3, 2, 2, 3, 4), (2, 3, 2, 2), 2),
        ((4, 3), (0, 2), 0),
        ((2, 4), (0, 2, 3), 1),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
def test_gather_nd_kernel_against_loops(dshape: tuple, ishape: tuple, batch: int, dtype: str) -> None:
    rng = np.random.default_rng(5)
    data = (rng.standard_normal(dshape) * 9).astype(dtype)
    m = ishape[0]
    high = min(dshape[batch : batch + m]) if m else 1
    idx = rng.integers(0, high, ishape).astype(np.int32)
    same(FAMILY.run("gather_nd", data, idx, batch_dims=batch), _gather_nd_loops(data, idx, batch))


def test_gather_nd_truncates_float_indices() -> None:
    """TOPI casts indices that are not integers to int32."""
    data = np.array([[1, 2], [3, 4]], np.int64)
    same(FAMILY.run("gather_nd", data, np.array([[1.7, 0.2], [0.9, 1.0]], np.float32)), np.array([3, 2], np.int64))


def test_gather_nd_out_of_range_is_a_runtime_error() -> None:
    with pytest.raises(KernelError) as err:
        FAMILY.run("gather_nd", np.zeros((2, 3), np.float32), np.array([[0, 1], [3, 0]], np.int32))
    assert err.value.message == "gather_nd: index 3 is out of range for axis 1 of size 3"


# ---------------------------------------------------------------- adv_index


@pytest.mark.parametrize(
    "types, expected",
    [
        ([T("(3, 4, 5)"), T("(2)", "int64"), T("(2)", "int64"), T("(1)", "int64")], T("(2)")),
        ([T("(10, 15, 5)"), T("(4, 1)", I32), T("(1, 7)", I32)], T("(4, 7, 5)")),
        ([T("(10, 5, 15)"), T("(1, 2, 1)", "uint8"), T("(1, 2, 7)", "uint8")], T("(1, 2, 7, 15)")),
        ([T("(10, 5)", "int64"), T("(3, 4)", "int64")], T("(3, 4, 5)", "int64")),
    ],
)
def test_adv_index_type(types: list[str], expected: str) -> None:
    """The indices' broadcast shape, then the data's remaining axes (AdvIndexRel;
    shapes from tests/python/topi/test_topi_transform.py::test_adv_index)."""
    fields = ", ".join(f"%{chr(ord('a') + i)}" for i in range(len(types)))
    assert FAMILY.result_type(f"adv_index(({fields}))", types) == expected


@pytest.mark.parametrize(
    "call, types, code, message, at",
    [
        (
            "adv_index((%a, %b, %c))",
            [T("(10, 5)"), T("(3, 4)", I32), T("(2, 1)", I32)],
            "shape-mismatch",
            "`adv_index`: the index tensors do not broadcast: index 0 is (3, 4), index 1 is (2, 1)",
            "(%a, %b, %c)",
        ),
        (
            "adv_index((%a, %b, %b))",
            [T("(10)"), T("(3)", I32)],
            "shape-mismatch",
            "`adv_index`: 2 index tensors for data of rank 1",
            "(%a, %b, %b)",
        ),
        (
            "adv_index((%a, %b))",
            [T("(10)"), T("(3)")],
            "type-mismatch",
            "`adv_index` takes integer (or bool) index tensors, but field 1 of its tuple is `float32`",
            "(%a, %b)",
        ),
        (
            "adv_index(%a)",
            [T("(10)")],
            "type-mismatch",
            (
                "`adv_index` takes a tuple: the data, then one index tensor per leading axis, e.g. "
                "`adv_index((%data, %i, %j))`"
            ),
            "%a",
        ),
    ],
)
def test_adv_index_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    """AdvIndexRel: at most one index per data axis, index shapes that broadcast."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
@pytest.mark.parametrize(
    "dshape, ishapes",
    [
        ((10, 5), [(3, 4), (3, 1)]),
        ((10, 5), [(1, 4), (3, 1)]),
        ((10, 5, 15), [(1, 2, 1), (1, 2, 7)]),
        ((3, 4, 5), [(2,)]),
    ],
)
def test_adv_index_kernel_against_torch(torch, dtype: str, dshape: tuple, ishapes: list) -> None:
    rng = np.random.default_rng(7)
    data = (rng.standard_normal(dshape) * 20).astype(dtype)
    idx = [rng.integers(0, dshape[k], s).astype(np.int64) for k, s in enumerate(ishapes)]
    expected = torch.from_numpy(data)[tuple(torch.from_numpy(i) for i in idx)].numpy()
    same(FAMILY.run("adv_index", (data, *[i.astype(np.uint8) for i in idx])), expected)


def test_adv_index_does_not_count_from_the_end() -> None:
    """TOPI indexes with the raw values: -1 is out of range, not the last element."""
    with pytest.raises(KernelError) as err:
        FAMILY.run("adv_index", (np.zeros((4, 2), np.float32), np.array([0, -1])))
    assert err.value.message == "adv_index: index -1 is out of range for axis 0 of size 4"


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
