"""Ordering operators: sort, argsort, topk, dyn.topk, searchsorted.

Attributes and shape rules are TVM's (include/tvm/relay/attrs/algorithm.h,
src/relay/op/algorithm/*.cc, src/relay/op/dyn/algorithm/topk.cc); kernels
are checked against PyTorch's stable sort and searchsorted, and against
hand-computed values for the tie order.
"""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.ops import KernelError
from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family("sort", "argsort", "topk", "dyn.topk", "searchsorted")


def torch():
    return torch_reference().torch


# ---------------------------------------------------------------- relations

RESULTS = [
    # tests/python/relay/test_op_level6.py: verify_sort / verify_argsort shapes
    ("sort(%a, axis=0, is_ascend=False)", [T("(2, 3, 4)")], T("(2, 3, 4)")),
    ("sort(%a)", [T("(1, 122640)", "float16")], T("(1, 122640)", "float16")),
    ('argsort(%a, axis=1, dtype="int64")', [T("(1, 4, 6)")], T("(1, 4, 6)", "int64")),
    ('argsort(%a, axis=-1, is_ascend=False, dtype="float32")', [T("(3, 5, 6)")], T("(3, 5, 6)")),
    ("argsort(%a)", [T("(5)", "int32")], T("(5)", "int32")),
    # TVM prints an unset dtype (NullValue<DataType>) as ""
    ('sort(%a, axis=-1, is_ascend=True, dtype="")', [T("(5)", "int8")], T("(5)", "int8")),
    ('argsort(%a, dtype="")', [T("(5)")], T("(5)", "int32")),
    # verify_topk: shape (20, 100), k in 0, 1, 5, every ret_type
    (
        'topk(%a, k=5, axis=0, ret_type="both", is_ascend=True, dtype="int64")',
        [T("(20, 100)")],
        f"({T('(5, 100)')}, {T('(5, 100)', 'int64')})",
    ),
    ('topk(%a, k=0, axis=-1, ret_type="values")', [T("(20, 100)", "float16")], T("(20, 100)", "float16")),
    ('topk(%a, k=1, axis=1, ret_type="indices")', [T("(20, 100)")], T("(20, 1)", "int32")),
    ("topk(%a, k=2)", [T("(?, 4)")], f"({T('(?, 2)')}, {T('(?, 2)', 'int32')})"),
    # src/relay/op/dyn/algorithm/topk.cc: the sorted axis becomes `?`
    ("dyn.topk(%a, %b)", [T("(20, 100)"), T("()", "int32")], f"({T('(20, ?)')}, {T('(20, ?)', 'int32')})"),
    ('dyn.topk(%a, %b, axis=0, ret_type="values")', [T("(20, 100)"), T("(1)", "int64")], T("(?, 100)")),
    # verify_searchsorted: (8, 9, 10) sequences, values (8, 9, 10)
    ("searchsorted(%a, %b)", [T("(8, 9, 10)"), T("(8, 9, 10)")], T("(8, 9, 10)", "int32")),
    ('searchsorted(%a, %b, right=True, dtype="int64")', [T("(8, 9, 10)"), T("(8, 9, 3)")], T("(8, 9, 3)", "int64")),
    ("searchsorted(%a, %b)", [T("(7)", "int32"), T("(2, 3)", "int32")], T("(2, 3)", "int32")),
]


@pytest.mark.parametrize("call, types, expected", RESULTS, ids=[c[0] for c in RESULTS])
def test_result_type(call: str, types: list[str], expected: str) -> None:
    """Result types of the calls TVM's own tests make (test_op_level6.py)."""
    assert FAMILY.result_type(call, types) == expected


ERRORS = [
    ("sort(%a, axis=2)", [T("(2, 3)")], "shape-mismatch", "axis 2 is out of range for a tensor of rank 2", "%a"),
    (
        'argsort(%a, dtype="bool")',
        [T("(2, 3)")],
        "type-mismatch",
        "`argsort` returns indices: dtype must be an integer or float type, found `bool`",
        None,
    ),
    ("topk(%a, k=4)", [T("(2, 3)")], "shape-mismatch", "`topk`: k=4 is larger than axis 1, of size 3", "%a"),
    (
        'topk(%a, k=1, ret_type="all")',
        [T("(2, 3)")],
        "type-mismatch",
        '`topk` ret_type must be "both", "values" or "indices", found "all"',
        None,
    ),
    ("topk(%a, k=1, axis=-3)", [T("(2, 3)")], "shape-mismatch", "axis -3 is out of range for a tensor of rank 2", "%a"),
    (
        "dyn.topk(%a, %b)",
        [T("(2, 3)"), T("(2)", "int32")],
        "shape-mismatch",
        "`dyn.topk` takes k as a scalar or a vector of one element, found shape (2)",
        "%b",
    ),
    (
        "dyn.topk(%a, %b)",
        [T("(2, 3)"), T("()")],
        "type-mismatch",
        "`dyn.topk`: k must have an integer dtype, found `float32`",
        "%b",
    ),
    (
        "searchsorted(%a, %b)",
        [T("(4, 5)"), T("(3, 2)")],
        "shape-mismatch",
        (
            "`searchsorted`: the sequence and the values must agree on every axis but the last; at axis 0 they "
            "have sizes 4 and 3"
        ),
        "%b",
    ),
    (
        "searchsorted(%a, %b)",
        [T("(4, 5)"), T("(2)")],
        "shape-mismatch",
        "`searchsorted`: a sequence of rank 2 needs values of the same rank, found shape (2)",
        "%b",
    ),
    (
        "searchsorted(%a, %b)",
        [T("(4)"), T("()")],
        "shape-mismatch",
        "`searchsorted` needs values of rank 1 or more, found a scalar",
        "%b",
    ),
    (
        "searchsorted(%a, %b)",
        [T("(4)"), T("(2)", "int32")],
        "type-mismatch",
        "`searchsorted` needs operands of one dtype, found `float32` and `int32`",
        "%b",
    ),
    (
        'searchsorted(%a, %b, dtype="float32")',
        [T("(4)"), T("(2)")],
        "type-mismatch",
        "`searchsorted` returns positions: dtype must be an integer type, found `float32`",
        None,
    ),
]


@pytest.mark.parametrize("call, types, code, message, at", ERRORS, ids=[f"{e[0]} {e[1]}" for e in ERRORS])
def test_rejected(call: str, types: list[str], code: str, message: str, at: str | None) -> None:
    """Rejections name the rule and point at the offending input (or the whole call for an attribute)."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    assert d.span.text == (at if at is not None else call)


def test_attribute_defaults_are_tvms() -> None:
    """ArgsortAttrs: axis -1, is_ascend true; TopKAttrs: axis -1, ret_type "both",
    is_ascend false, k required; SearchSortedAttrs: right false, dtype int32
    (include/tvm/relay/attrs/algorithm.h; index dtypes default to the Python API's int32)."""
    from relay_text.ops import get

    def defaults(name: str) -> dict:
        op = get(name)
        return {a.name: a.default for a in op.attrs}

    assert defaults("argsort") == {"axis": -1, "is_ascend": True, "dtype": "int32"}
    assert defaults("sort") == defaults("argsort")
    topk = defaults("topk")
    assert repr(topk.pop("k")) == "REQUIRED"
    assert topk == {"axis": -1, "ret_type": "both", "is_ascend": False, "dtype": "int32"}
    assert defaults("searchsorted") == {"right": False, "dtype": "int32"}
    d = FAMILY.only_error("topk(%a)", [T("(3)")])
    assert (d.code, d.message) == ("missing-attribute", "`topk` needs the attribute `k`")


# ---------------------------------------------------------------- kernels: hand-computed ties


def test_ties_keep_their_order_in_both_directions() -> None:
    """TVM sorts stably on the values alone (src/runtime/contrib/sort/sort.cc), so equal
    values keep their original order ascending and descending alike."""
    x = np.array([3, 1, 3, 2, 1], dtype=np.int32)
    same(FAMILY.run("argsort", x), np.array([1, 4, 3, 0, 2], dtype=np.int32))
    same(FAMILY.run("argsort", x, is_ascend=False, dtype="int64"), np.array([0, 2, 3, 1, 4], dtype=np.int64))
    same(FAMILY.run("sort", x, is_ascend=False), np.array([3, 3, 2, 1, 1], dtype=np.int32))
    values, indices = FAMILY.run("topk", x, k=3)
    same(values, np.array([3, 3, 2], dtype=np.int32))
    same(indices, np.array([0, 2, 3], dtype=np.int32))
    same(FAMILY.run("topk", x, k=2, is_ascend=True, ret_type="indices"), np.array([1, 4], dtype=np.int32))


def test_bool_sorts_false_first() -> None:
    x = np.array([[True, False, True], [False, False, True]])
    same(FAMILY.run("sort", x), np.array([[False, True, True], [False, False, True]]))
    same(FAMILY.run("argsort", x, axis=0, is_ascend=False), np.array([[0, 0, 0], [1, 1, 1]], dtype=np.int32))


def test_topk_k_below_one_keeps_the_whole_axis() -> None:
    """topk.cc: k < 1 keeps the axis's full size."""
    x = np.array([[1.0, 4.0, 2.0]], dtype=np.float32)
    same(FAMILY.run("topk", x, k=0, ret_type="values"), np.array([[4.0, 2.0, 1.0]], dtype=np.float32))
    same(FAMILY.run("topk", x, k=-1, ret_type="indices", dtype="int64"), np.array([[1, 2, 0]], dtype=np.int64))


def test_dyn_topk_reads_k_from_its_input() -> None:
    x = np.array([[5, 7, 6], [1, 0, 2]], dtype=np.int64)
    values, indices = FAMILY.run("dyn.topk", x, np.array(2, dtype=np.int32))
    same(values, np.array([[7, 6], [2, 1]], dtype=np.int64))
    same(indices, np.array([[1, 2], [2, 0]], dtype=np.int32))
    same(
        FAMILY.run("dyn.topk", x, np.array([1], dtype=np.int64), axis=0, ret_type="values"),
        np.array([[5, 7, 6]], dtype=np.int64),
    )
    with pytest.raises(KernelError) as err:
        FAMILY.run("dyn.topk", x, np.array(4, dtype=np.int32))
    assert (err.value.code, err.value.message) == ("runtime-error", "topk: k=4 is larger than axis 1, of size 3")


def test_searchsorted_by_hand() -> None:
    """The first position not below the value, or (right=True) above it
    (python/tvm/topi/searchsorted.py); a sequence of rank 2 has one row per line of values."""
    seq = np.array([1, 3, 3, 5], dtype=np.int32)
    values = np.array([[0, 3], [4, 9]], dtype=np.int32)
    same(FAMILY.run("searchsorted", seq, values), np.array([[0, 1], [3, 4]], dtype=np.int32))
    same(FAMILY.run("searchsorted", seq, values, right=True, dtype="int64"), np.array([[0, 3], [3, 4]], dtype=np.int64))
    rows = np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]], dtype=np.float32)
    same(
        FAMILY.run("searchsorted", rows, np.array([[2.5], [2.5]], dtype=np.float32)),
        np.array([[2], [0]], dtype=np.int32),
    )
    bools = np.array([False, True, True])
    same(FAMILY.run("searchsorted", bools, np.array([True, False])), np.array([1, 0], dtype=np.int32))


# ---------------------------------------------------------------- kernels against PyTorch

DTYPES = ["float32", "float64", "int32", "int64", "int8"]


def _data(shape: tuple, dtype: str, rng: np.random.Generator) -> np.ndarray:
    if dtype.startswith("int"):
        return rng.integers(-3, 4, shape).astype(dtype)  # many ties
    return rng.integers(-3, 4, shape).astype(dtype) / 2


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("ascending", [True, False])
def test_sort_and_argsort_against_torch(dtype: str, axis: int, ascending: bool) -> None:
    th = torch()
    x = _data((4, 6, 5), dtype, np.random.default_rng(7))
    values, order = th.sort(th.from_numpy(x), dim=axis, descending=not ascending, stable=True)
    same(FAMILY.run("sort", x, axis=axis, is_ascend=ascending), values.numpy())
    same(FAMILY.run("argsort", x, axis=axis, is_ascend=ascending, dtype="int64"), order.numpy())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", [0, 1, 3])
@pytest.mark.parametrize("ascending", [True, False])
def test_topk_against_torch(dtype: str, k: int, ascending: bool) -> None:
    th = torch()
    x = _data((5, 7), dtype, np.random.default_rng(3))
    values, order = th.sort(th.from_numpy(x), dim=0, descending=not ascending, stable=True)
    kk = k if k >= 1 else 5
    got_values, got_indices = FAMILY.run("topk", x, k=k, axis=0, is_ascend=ascending)
    same(got_values, values.numpy()[:kk])
    same(got_indices, order.numpy()[:kk].astype(np.int32))
    dyn_values = FAMILY.run("dyn.topk", x, np.array(k, dtype=np.int64), axis=0, is_ascend=ascending, ret_type="values")
    same(dyn_values, values.numpy()[:kk])


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_against_torch(dtype: str, right: bool) -> None:
    """As test_op_level6.py's verify_searchsorted: sorted (8, 9, 10) rows, values (8, 9, 10)."""
    th = torch()
    rng = np.random.default_rng(11)
    seq = np.sort(_data((8, 9, 10), dtype, rng), axis=-1)
    values = _data((8, 9, 10), dtype, rng)
    expected = th.searchsorted(th.from_numpy(seq), th.from_numpy(values), right=right).numpy()
    same(FAMILY.run("searchsorted", seq, values, right=right, dtype="int64"), expected)
    flat = np.sort(seq.reshape(-1))
    expected = th.searchsorted(th.from_numpy(flat), th.from_numpy(values), right=right).numpy()
    same(FAMILY.run("searchsorted", flat, values, right=right), expected.astype(np.int32))


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
