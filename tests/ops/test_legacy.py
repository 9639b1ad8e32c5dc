"""Operators read by their older TVM names (relay_text/ops/legacy.py): the
relation and kernel of the current operator, given translated attributes,
and one `renamed-operator` warning per name."""

from __future__ import annotations

import numpy as np

from relay_text.text.type_text import type_text
from tests.ops.family import Family, T, same

FAMILY = Family("image.resize", "scatter", "scatter_add")


def result_type(call: str, types: list[str]) -> str:
    """The result type of a call by an old name, which checks with only its warning."""
    checked = FAMILY.check(call, types)
    assert [d.code for d in checked.diagnostics] == ["renamed-operator"]
    return type_text(checked.result.global_type("main").ret_type)


def only_error(call: str, types: list[str]):
    """The one error of a call by an old name (beside its warning)."""
    checked = FAMILY.check(call, types)
    assert [d.code for d in checked.diagnostics if not d.is_error] == ["renamed-operator"]
    [error] = [d for d in checked.diagnostics if d.is_error]
    return error


def test_image_resize_is_resize2d_with_the_old_method_names() -> None:
    """TVM 0.8 renamed image.resize to image.resize2d and `bilinear` to `linear`."""
    assert result_type('image.resize(%a, size=[8, 6], method="bilinear")', [T("(1, 2, 4, 4)")]) == T("(1, 2, 8, 6)")
    checked = FAMILY.check('image.resize(%a, size=[8, 6], method="bilinear")', [T("(1, 2, 4, 4)")])
    [warning] = checked.diagnostics
    assert (warning.code, warning.severity, warning.message, warning.span.text) == (
        "renamed-operator", "warning", "`image.resize` is the name an earlier TVM release gave `image.resize2d`", "image.resize",
    )
    diag = only_error("image.resize(%a, size=[8, 6])", [T("(2, 4, 4)")])
    assert (diag.code, diag.span.text) == ("shape-mismatch", "%a")
    x = np.array([[[[0, 10], [20, 30]]]], dtype=np.float32)
    # linear, half_pixel: width 2 -> 4 reads -0.25, 0.25, 0.75, 1.25 (clamped)
    same(FAMILY.run("image.resize", x, size=[2, 4], method="bilinear")[0, 0, 0], [0, 2.5, 7.5, 10])
    # bicubic of the same size is the identity
    same(FAMILY.run("image.resize", x, size=[2, 2], method="bicubic"), x)


def test_scatter_and_scatter_add_are_scatter_elements() -> None:
    types = [T("(2, 3)"), T("(2, 2)", "int32"), T("(2, 2)")]
    assert result_type("scatter(%a, %b, %c, axis=1)", types) == T("(2, 3)")
    assert result_type("scatter_add(%a, %b, %c)", types) == T("(2, 3)")
    diag = only_error("scatter(%a, %b, %c, axis=1)", [T("(2, 3)"), T("(2, 2)"), T("(2, 2)")])
    assert (diag.code, diag.message, diag.span.text) == ("type-mismatch", "`scatter` takes indices of integers, found `float32`", "%b")
    data = np.zeros((2, 3), np.int32)
    idx = np.array([[0, 2], [1, 1]], np.int32)
    upd = np.array([[5, 6], [7, 8]], np.int32)
    same(FAMILY.run("scatter", data, idx, upd, axis=1), np.array([[5, 0, 6], [0, 8, 0]], np.int32))
    same(FAMILY.run("scatter_add", data, idx, upd, axis=1), np.array([[5, 0, 6], [0, 15, 0]], np.int32))


def test_an_old_spelling_that_is_not_a_rename_gets_a_hint() -> None:
    diag = FAMILY.only_error("nn.pad(%a, pad_width=[[1, 1]], pad_value=0f)", [T("(3)")])
    assert (diag.code, diag.helps) == (
        "arity-mismatch", ["since TVM 0.8 the pad value is the second argument of `nn.pad`: `nn.pad(%x, 0f, pad_width=[...])`"],
    )


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()


def test_tvm_operators_that_cannot_be_supported_say_why() -> None:
    checked = FAMILY.check("torch_op(%a)", [T("(3)")])
    [diag] = checked.diagnostics
    assert (diag.code, diag.message, diag.notes) == (
        "unknown-operator",
        "`torch_op` is a TVM operator that cannot be checked or run here",
        ["TVM runs it with its libtorch extension, from a serialized TorchScript function held in the call's attributes"],
    )
