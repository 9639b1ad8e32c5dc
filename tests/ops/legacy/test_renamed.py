"""Operators read by their older TVM names (relay_text/ops/legacy/renamed.py): the
relation and kernel of the current operator, given translated attributes,
and one `renamed-operator` warning per name."""

from __future__ import annotations

import numpy as np

from relay_text.text.type_text import type_text
from tests.ops.family import Family, T, same

FAMILY = Family("image.resize", "dyn.image.resize", "scatter", "scatter_add")


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
        "renamed-operator",
        "warning",
        "`image.resize` is the name an earlier TVM release gave `image.resize2d`",
        "image.resize",
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
    assert (diag.code, diag.message, diag.span.text) == (
        "type-mismatch",
        "`scatter` takes indices of integers, found `float32`",
        "%b",
    )
    data = np.zeros((2, 3), np.int32)
    idx = np.array([[0, 2], [1, 1]], np.int32)
    upd = np.array([[5, 6], [7, 8]], np.int32)
    same(FAMILY.run("scatter", data, idx, upd, axis=1), np.array([[5, 0, 6], [0, 8, 0]], np.int32))
    same(FAMILY.run("scatter_add", data, idx, upd, axis=1), np.array([[5, 0, 6], [0, 15, 0]], np.int32))


V004 = "v0.0.4\n"
HEADER = '#[version = "0.0.5"]\n'


def checked_text(text: str):
    from relay_text.ir.span import Source
    from relay_text.pipeline import check_source

    return check_source(Source("t.rly", text))


def run_text(text: str, *args: np.ndarray):
    import relay_text

    return relay_text.run(text, *args)


def test_nn_pad_with_its_pad_value_as_an_attribute_is_read_as_before_tvm_0_8() -> None:
    """TVM 0.6/0.7 include/tvm/relay/attrs/nn.h `PadAttrs::pad_value` (default
    0); at 21095b98 src/relay/op/nn/pad.cc:201 (`nn.pad` takes data and
    pad_value): the attribute is the value padded with, one warning per name."""
    text = HEADER + (
        "def @main(%x: Tensor[(2, 3), float32]) {\n"
        "  (nn.pad(%x, pad_width=[[1, 1], [0, 2]], pad_value=7f), nn.pad(%x, pad_width=[[0, 0], [1, 0]]))\n"
        "}\n"
    )
    result = checked_text(text)
    [warning] = result.diagnostics
    assert (warning.code, warning.severity, warning.message, warning.label, warning.location()[1:3]) == (
        "renamed-operator",
        "warning",
        "`nn.pad` with its pad value as an attribute is the form of TVM releases before 0.8",
        "old form (2 uses; this is the first)",
        (3, 4),
    )
    assert warning.helps == [
        "TVM 0.8 and later take the value as the second argument: `nn.pad(%x, 0f, pad_width=[...])`"
    ]
    assert (
        result.global_types["@main"]
        == "fn(Tensor[(2, 3), float32]) -> (Tensor[(4, 5), float32], Tensor[(2, 4), float32])"
    )
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    padded, zeros = run_text(text, x)
    same(padded, np.pad(x, [(1, 1), (0, 2)], constant_values=7))
    same(zeros, np.pad(x, [(0, 0), (1, 0)]))


def test_dyn_image_resize_is_dyn_resize2d_without_a_roi() -> None:
    """At TVM 0.7, src/relay/op/dyn/image/resize.cc: `dyn.image.resize` takes
    (data, size) and ResizeAttrs; at 21095b98 src/relay/op/dyn/image/resize.cc:87
    registers only `dyn.image.resize2d` (data, size, roi)."""
    call = 'dyn.image.resize(%a, %b, method="nearest_neighbor")'
    assert result_type(call, [T("(1, 1, 2, 2)"), T("(2)", "int64")]) == "Tensor[(1, 1, ?, ?), float32]"
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    out = FAMILY.run(
        "dyn.image.resize",
        x,
        np.array([4, 4], np.int64),
        method="nearest_neighbor",
        coordinate_transformation_mode="asymmetric",
    )
    same(out[0, 0], np.repeat(np.repeat(x[0, 0], 2, axis=0), 2, axis=1))


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()


def test_tvm_operators_that_cannot_be_supported_say_why() -> None:
    checked = FAMILY.check("torch_op(%a)", [T("(3)")])
    [diag] = checked.diagnostics
    assert (diag.code, diag.message, diag.notes) == (
        "unknown-operator",
        "`torch_op` is a TVM operator that cannot be checked or run here",
        [
            (
                "TVM runs it with its libtorch extension, from a serialized TorchScript function held in the "
                "call's attributes"
            )
        ],
    )
