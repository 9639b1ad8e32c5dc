"""`take` with `batch_dims`: the result type and the rejections.

Rule: src/relay/op/tensor/transform.cc (TakeRel: batch_dims at most the
indices' rank and at most the axis); semantics: python/tvm/topi/transform.py
(take with batch_dims pairs the leading axes). The kernel is tested in
tests/ops/test_kernels.py.
"""

from __future__ import annotations

import pytest

from tests.ops.family import Family, T

FAMILY = Family("take")


@pytest.mark.parametrize(
    "call, expected",
    [
        ("take(%a, %b, axis=2, batch_dims=1)", T("(2, 3, 5, 6)")),
        ("take(%a, %b, axis=1, batch_dims=1)", T("(2, 5, 6, 4)")),
        ("take(%a, %b, axis=-1, batch_dims=-2)", T("(2, 3, 5, 6)")),
        ("take(%a, %b, axis=2)", T("(2, 3, 2, 5, 6)")),
    ],
)
def test_result_type(call: str, expected: str) -> None:
    assert FAMILY.result_type(call, [T("(2, 3, 4)"), T("(2, 5, 6)", "int32")]) == expected


@pytest.mark.parametrize(
    "call, message",
    [
        (
            "take(%a, %b, axis=2, batch_dims=4)",
            "`take`: batch_dims=4 is out of range for indices of rank 3 and axis 2",
        ),
        (
            "take(%a, %b, axis=0, batch_dims=1)",
            "`take`: batch_dims=1 is out of range for indices of rank 3 and axis 0",
        ),
        (
            "take(%a, %b, axis=2, batch_dims=-4)",
            "`take`: batch_dims=-4 is out of range for indices of rank 3 and axis 2",
        ),
    ],
)
def test_batch_dims_out_of_range(call: str, message: str) -> None:
    d = FAMILY.only_error(call, [T("(2, 3, 4)"), T("(2, 5, 6)", "int32")])
    assert (d.code, d.message, d.span.text) == ("shape-mismatch", message, call)


def test_batch_axes_must_agree() -> None:
    d = FAMILY.only_error("take(%a, %b, axis=2, batch_dims=2)", [T("(2, 3, 4)"), T("(2, 5, 6)", "int32")])
    assert (d.code, d.message, d.span.text) == (
        "shape-mismatch",
        "`take`: batch axis 1 is 3 in the data but 5 in the indices",
        "%b",
    )
