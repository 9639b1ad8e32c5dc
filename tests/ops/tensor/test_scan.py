"""Running sums and products, distinct values, nonzero coordinates:
cumsum, cumprod, unique, argwhere.

Attributes and result types are TVM's (ScanopAttrs and UniqueAttrs in
include/tvm/relay/attrs/transform.h; ScanopRel, UniqueRel and ArgWhereRel in
src/relay/op/tensor/transform.cc); kernels are checked against PyTorch and
against plain-Python references.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family("cumsum", "cumprod", "unique", "argwhere")


def torch():
    return torch_reference().torch


# ---------------------------------------------------------------- relations

RESULTS = [
    # ScanopRel: without an axis the result is a vector of every element
    ("cumsum(%a)", [T("(10, 4)")], T("(40)")),
    ("cumsum(%a, axis=0)", [T("(10, 4)", "int32")], T("(10, 4)", "int32")),
    ('cumsum(%a, axis=-1, dtype="int64", exclusive=True)', [T("(10, 4)", "int32")], T("(10, 4)", "int64")),
    ('cumprod(%a, dtype="float64")', [T("(2, 3, 4)")], T("(24)", "float64")),
    ("cumprod(%a, axis=1)", [T("(?, 3)", "int64")], T("(?, 3)", "int64")),
    ("cumsum(%a)", [T("(?, 3)")], T("(?)")),
    ("cumsum(%a)", [T("()", "bool")], T("(1)", "bool")),
    # UniqueRel: four (five with counts) outputs padded to the input's length
    (
        "unique(%a)",
        [T("(10)", "int32")],
        f"({T('(10)', 'int32')}, {T('(10)', 'int32')}, {T('(10)', 'int32')}, {T('(1)', 'int32')})",
    ),
    (
        "unique(%a, sorted=False, return_counts=True)",
        [T("(?)", "int64")],
        f"({T('(?)', 'int64')}, {T('(?)', 'int32')}, {T('(?)', 'int32')}, {T('(1)', 'int32')}, {T('(?)', 'int32')})",
    ),
    # ArgWhereRel: (?, rank) int32, for any dtype (test_any.py: bool, int32, int8)
    ("argwhere(%a)", [T("(5, 5)", "bool")], T("(?, 2)", "int32")),
    ("argwhere(%a)", [T("(5, 5, 5, 5, 5)", "int8")], T("(?, 5)", "int32")),
    ("argwhere(%a)", [T("(?)", "int32")], T("(?, 1)", "int32")),
]


@pytest.mark.parametrize("call, types, expected", RESULTS, ids=[c[0] for c in RESULTS])
def test_result_type(call: str, types: list[str], expected: str) -> None:
    assert FAMILY.result_type(call, types) == expected


ERRORS = [
    ("cumsum(%a, axis=2)", [T("(10, 4)")], "shape-mismatch", "axis 2 is out of range for a tensor of rank 2", "%a"),
    ("cumprod(%a, axis=0)", [T("()")], "shape-mismatch", "axis 0 is out of range for a tensor of rank 0", "%a"),
    (
        "unique(%a)",
        [T("(2, 5)", "int32")],
        "shape-mismatch",
        "`unique` needs a vector of rank 1, found shape (2, 5)",
        "%a",
    ),
]


@pytest.mark.parametrize("call, types, code, message, at", ERRORS, ids=[f"{e[0]} {e[1]}" for e in ERRORS])
def test_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    assert d.span.text == at


def test_argwhere_takes_no_attributes() -> None:
    """argwhere is registered without an attribute type (transform.cc)."""
    d = FAMILY.only_error("argwhere(%a, axis=0)", [T("(3)")])
    assert (d.code, d.message) == ("unknown-attribute", "`argwhere` has no attribute `axis`")


def test_flattened_size_follows_shape_variables() -> None:
    """ScanopRel: without an axis the length is the product of the dimensions."""
    from relay_text.ir.span import Source
    from relay_text.pipeline import check_source
    from relay_text.text.type_text import type_text

    text = (
        "def @main<n : ShapeVar>(%x: Tensor[(n, 3), float32], %y: Tensor[(n, ?), int32]) {\n  (cumsum(%x), "
        "cumprod(%y))\n}\n"
    )
    checked = check_source(Source("t.rly", text))
    assert [str(d) for d in checked.diagnostics] == []
    assert type_text(checked.result.global_type("main").ret_type) == f"({T('(n * 3)')}, {T('(?)', 'int32')})"


def test_scan_defaults_are_tvms() -> None:
    """ScanopAttrs: axis None (flatten), dtype empty (the input's), exclusive false."""
    from relay_text.ops import get

    for name in ("cumsum", "cumprod"):
        assert {a.name: a.default for a in get(name).attrs} == {"axis": None, "dtype": "", "exclusive": False}
    assert {a.name: a.default for a in get("unique").attrs} == {"sorted": True, "return_counts": False}


# ---------------------------------------------------------------- cumsum, cumprod


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_scans_against_torch(dtype: str, axis: int | None) -> None:
    th = torch()
    x = np.random.default_rng(5).integers(-3, 4, (3, 4, 5)).astype(dtype)
    t = th.from_numpy(x)
    if axis is None:
        t, dim = t.reshape(-1), 0
    else:
        dim = axis
    same(FAMILY.run("cumsum", x, axis=axis), th.cumsum(t, dim=dim).numpy().astype(dtype), rtol=1e-5)
    same(FAMILY.run("cumprod", x, axis=axis), th.cumprod(t, dim=dim).numpy().astype(dtype), rtol=1e-5)


def test_exclusive_scans_start_from_the_identity() -> None:
    """topi/scan.py: the exclusive scan of element j combines elements 0 ... j - 1 (0 for
    sums, 1 for products)."""
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32)
    same(FAMILY.run("cumsum", x, axis=1, exclusive=True), np.array([[0, 1, 3], [0, 4, 9]], dtype=np.int32))
    same(FAMILY.run("cumprod", x, axis=0, exclusive=True), np.array([[1, 1, 1], [1, 2, 3]], dtype=np.int32))
    same(FAMILY.run("cumsum", x, exclusive=True), np.array([0, 1, 3, 6, 10, 15], dtype=np.int32))


def test_dtype_converts_first_and_integers_wrap() -> None:
    """The input is cast to `dtype` before accumulating (topi/scan.py); integer sums wrap."""
    same(
        FAMILY.run("cumsum", np.array([1.7, 2.9, -0.5], dtype=np.float32), dtype="int32"),
        np.array([1, 3, 3], dtype=np.int32),
    )
    same(FAMILY.run("cumsum", np.array([100, 100, 100], dtype=np.int8)), np.array([100, -56, 44], dtype=np.int8))
    same(FAMILY.run("cumprod", np.array([16, 16, 2], dtype=np.uint8)), np.array([16, 0, 0], dtype=np.uint8))
    same(FAMILY.run("cumsum", np.array([100, 100], dtype=np.int8), dtype="int64"), np.array([100, 200], dtype=np.int64))


def test_bool_scans_are_one_bit_arithmetic() -> None:
    x = np.array([True, True, False, True])
    same(FAMILY.run("cumsum", x), np.array([True, False, False, True]))
    same(FAMILY.run("cumprod", x), np.array([True, True, False, False]))
    same(FAMILY.run("cumprod", x, exclusive=True), np.array([True, True, True, False]))
    same(FAMILY.run("cumsum", x, dtype="int32"), np.array([1, 2, 2, 3], dtype=np.int32))


# ---------------------------------------------------------------- unique


def unique_by_hand(values: list, is_sorted: bool) -> tuple[list, list, list, list]:
    """Distinct values, first positions, inverse map and counts, by plain loops."""
    first: dict = {}
    for i, v in enumerate(values):
        first.setdefault(v, i)
    distinct = sorted(first) if is_sorted else list(first)
    where = {v: j for j, v in enumerate(distinct)}
    return (
        distinct,
        [first[v] for v in distinct],
        [where[v] for v in values],
        [values.count(v) for v in distinct],
    )


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32"])
@pytest.mark.parametrize("is_sorted", [True, False])
def test_unique_against_plain_python(dtype: str, is_sorted: bool) -> None:
    """As test_op_level3.py's test_unique: only the first num_unique entries of the
    padded outputs are defined; TVM's padding is zeros for the values, n for the
    positions and 0 for the counts (topi/unique.py)."""
    x = np.random.default_rng(1).integers(0, 6, 12).astype(dtype)
    distinct, first, inverse, counts = unique_by_hand(x.tolist(), is_sorted)
    k = len(distinct)
    out = FAMILY.run("unique", x, sorted=is_sorted, return_counts=True)
    assert len(out) == 5
    same(out[0], np.array(distinct + [0] * (12 - k), dtype=dtype))
    same(out[1], np.array(first + [12] * (12 - k), dtype=np.int32))
    same(out[2], np.array(inverse, dtype=np.int32))
    same(out[3], np.array([k], dtype=np.int32))
    same(out[4], np.array(counts + [0] * (12 - k), dtype=np.int32))
    assert len(FAMILY.run("unique", x, sorted=is_sorted)) == 4


def test_unique_docstring_example() -> None:
    """topi/unique.py's example: [4, 5, 1, 2, 3, 3, 4, 5]."""
    x = np.array([4, 5, 1, 2, 3, 3, 4, 5], dtype=np.int32)
    out = FAMILY.run("unique", x, sorted=False, return_counts=True)
    same(out[0][:5], np.array([4, 5, 1, 2, 3], dtype=np.int32))
    same(out[1][:5], np.array([0, 1, 2, 3, 4], dtype=np.int32))
    same(out[2], np.array([0, 1, 2, 3, 4, 4, 0, 1], dtype=np.int32))
    same(out[4][:5], np.array([2, 2, 1, 1, 2], dtype=np.int32))
    out = FAMILY.run("unique", x)
    same(out[1][:5], np.array([2, 3, 4, 0, 1], dtype=np.int32))
    same(out[2], np.array([3, 4, 0, 1, 2, 2, 3, 4], dtype=np.int32))


def test_unique_of_nothing_and_of_bools() -> None:
    out = FAMILY.run("unique", np.zeros(0, dtype=np.float32))
    assert [o.shape for o in out] == [(0,), (0,), (0,), (1,)]
    same(out[3], np.array([0], dtype=np.int32))
    out = FAMILY.run("unique", np.array([True, False, True]))
    same(out[0], np.array([False, True, False]))
    same(out[2], np.array([1, 0, 1], dtype=np.int32))


def test_unique_against_torch() -> None:
    th = torch()
    x = np.random.default_rng(2).integers(-5, 5, 30).astype(np.int64)
    values, inverse, counts = th.unique(th.from_numpy(x), sorted=True, return_inverse=True, return_counts=True)
    k = values.shape[0]
    out = FAMILY.run("unique", x, return_counts=True)
    same(out[0][:k], values.numpy())
    same(out[2], inverse.numpy().astype(np.int32))
    same(out[4][:k], counts.numpy().astype(np.int32))


# ---------------------------------------------------------------- argwhere


@pytest.mark.parametrize("dtype", ["bool", "int32", "int8", "float32"])
@pytest.mark.parametrize("shape", [(5,), (5, 5), (3, 4, 5), (2, 3, 2, 3, 2)])
def test_argwhere_against_torch(dtype: str, shape: tuple) -> None:
    """test_any.py's verify_any_argwhere: ranks 1 to 5, bool, int32 and int8 data."""
    th = torch()
    x = np.random.default_rng(4).integers(0, 3, shape).astype(dtype)
    same(FAMILY.run("argwhere", x), th.nonzero(th.from_numpy(x)).numpy().astype(np.int32))


def test_argwhere_by_hand() -> None:
    x = np.array([[0.0, 1.5], [-2.0, 0.0]], dtype=np.float32)
    same(FAMILY.run("argwhere", x), np.array([[0, 1], [1, 0]], dtype=np.int32))
    same(FAMILY.run("argwhere", np.zeros((2, 3), dtype=bool)), np.zeros((0, 2), dtype=np.int32))


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
