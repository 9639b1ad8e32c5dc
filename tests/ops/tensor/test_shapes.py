"""Shapes as values: `shape_of` and `ndarray_size` (relay_text/ops/tensor/shapes.py).

Relations follow src/relay/op/tensor/unary.cc and
src/relay/op/type_relations.cc; the examples are TVM's tests
(tests/python/relay/test_op_level10.py).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from relay_text.ops import KernelError
from tests.ops.family import Family, T, same

FAMILY = Family("shape_of", "ndarray_size")
I64 = "int64"


def v(*values: int, dtype: str = I64) -> np.ndarray:
    return np.array(values, dtype=dtype)


def test_shape_of_and_ndarray_size_types() -> None:
    """test_op_level10.py::test_shape_of ((10, 5, 12) -> int32 vector of 3) and
    test_ndarray_size; a scalar's shape_of is a scalar (RankShape in
    type_relations.cc gives an empty shape for rank 0)."""
    assert FAMILY.result_type("shape_of(%a)", [T("(10, 5, 12)")]) == T("(3)", "int32")
    assert FAMILY.result_type('shape_of(%a, dtype="int64")', [T("(?, 5)", "int8")]) == T("(2)", "int64")
    assert FAMILY.result_type("shape_of(%a)", [T("()")]) == T("()", "int32")
    assert FAMILY.result_type("ndarray_size(%a)", [T("(2, 3, 5)")]) == T("()", "int32")
    assert FAMILY.result_type('ndarray_size(%a, dtype="int64")', [T("(2, 3, 5, 7)", "bool")]) == T("()", "int64")
    d = FAMILY.only_error("shape_of((%a, %a))", [T("(2)")])
    assert (d.code, d.message, d.span.text) == ("type-mismatch", "`shape_of` expects a tensor, not a tuple", "(%a, %a)")
    d = FAMILY.only_error('ndarray_size(%a, dtype="integer")', [T("(2)")])
    assert (d.code, d.message) == ("type-mismatch", '`"integer"` is not a dtype')


def test_shape_of_and_ndarray_size_values() -> None:
    x = np.zeros((10, 5, 12), dtype=np.float32)
    same(FAMILY.run("shape_of", x), v(10, 5, 12, dtype="int32"))
    same(FAMILY.run("shape_of", x, dtype="int64"), v(10, 5, 12))
    same(FAMILY.run("shape_of", np.array(1.5)), np.array(0, dtype=np.int32))
    same(FAMILY.run("ndarray_size", np.zeros((2, 3, 5, 7))), np.array(210, dtype=np.int32))
    same(FAMILY.run("ndarray_size", np.zeros((0, 3))), np.array(0, dtype=np.int32))
    same(FAMILY.run("ndarray_size", np.zeros((16, 16)), dtype="int8"), np.array(0, dtype=np.int8))  # 256 wraps
    same(FAMILY.run("ndarray_size", np.array(True), dtype="float32"), np.array(1.0, dtype=np.float32))


def test_dtypes_numpy_lacks_are_errors_when_running() -> None:
    """Vector lanes are a valid dtype, but this evaluator holds no such
    tensors (bfloat16 it holds through `ml_dtypes`)."""
    with pytest.raises(KernelError) as e:
        FAMILY.run("shape_of", np.zeros(2), dtype="int8x4")
    assert (e.value.code, e.value.message) == (
        "runtime-error",
        '`shape_of`: dtype "int8x4" is not supported by this evaluator',
    )


def test_bfloat16_results_need_ml_dtypes(monkeypatch) -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert FAMILY.run("ndarray_size", np.zeros((2, 3)), dtype="bfloat16").dtype == np.dtype(ml_dtypes.bfloat16)
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)
    with pytest.raises(KernelError) as e:
        FAMILY.run("ndarray_size", np.zeros(2), dtype="bfloat16")
    assert "bfloat16 tensors need the `ml_dtypes` package" in e.value.message


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
