"""Multiply-accumulates and sizes of single calls, counted by hand."""

from __future__ import annotations

import pytest

from relay_text.ir.span import Source
from relay_text.ir.ty import TensorType, TupleType
from relay_text.pipeline import check_source
from relay_text.summary.costs import channels, dtype_bits, elements, macs, nbytes
from relay_text.summary.count import module_summary


def call_macs(body: str, params: str) -> int | None:
    """The MACs of the one call in `def @main(params) { body }`."""
    checked = check_source(Source("t.rly", f"def @main({params}) {{ {body} }}"))
    assert checked.ok, [str(d) for d in checked.diagnostics]
    (summary,) = module_summary(checked.module, checked.result.types.get)
    (row,) = summary.rows
    return row.macs


F = "float32"


@pytest.mark.parametrize(
    "body, params, expected",
    [
        # every output element: in_channels x 3 x 3 products
        (
            "nn.conv2d(%x, %w, padding=[1, 1])",
            f"%x: Tensor[(1, 8, 10, 10), {F}], %w: Tensor[(16, 8, 3, 3), {F}]",
            16 * 10 * 10 * 8 * 9,
        ),
        # strides shrink the output, not the work per output
        (
            "nn.conv2d(%x, %w, strides=[2, 2])",
            f"%x: Tensor[(2, 3, 9, 9), {F}], %w: Tensor[(4, 3, 3, 3), {F}]",
            2 * 4 * 4 * 4 * 3 * 9,
        ),
        # depthwise: each output channel reads one input channel
        (
            "nn.conv2d(%x, %w, groups=8, padding=[1, 1])",
            f"%x: Tensor[(1, 8, 6, 6), {F}], %w: Tensor[(8, 1, 3, 3), {F}]",
            8 * 6 * 6 * 9,
        ),
        # channels last
        (
            'nn.conv2d(%x, %w, data_layout="NHWC", kernel_layout="HWIO")',
            f"%x: Tensor[(1, 5, 5, 3), {F}], %w: Tensor[(3, 3, 3, 7), {F}]",
            3 * 3 * 7 * 3 * 9,
        ),
        ("nn.conv1d(%x, %w)", f"%x: Tensor[(1, 4, 20), {F}], %w: Tensor[(6, 4, 5), {F}]", 6 * 16 * 4 * 5),
        # each input element spreads over out_channels x kernel outputs
        (
            "nn.conv2d_transpose(%x, %w, strides=[2, 2])",
            f"%x: Tensor[(1, 4, 5, 5), {F}], %w: Tensor[(4, 6, 3, 3), {F}]",
            4 * 25 * 6 * 9,
        ),
        ("nn.dense(%x, %w)", f"%x: Tensor[(7, 32), {F}], %w: Tensor[(10, 32), {F}]", 7 * 10 * 32),
        (
            "nn.batch_matmul(%a, %b, transpose_b=True)",
            f"%a: Tensor[(3, 4, 5), {F}], %b: Tensor[(3, 6, 5), {F}]",
            3 * 4 * 6 * 5,
        ),
        (
            "nn.batch_matmul(%a, %b, transpose_a=True, transpose_b=False)",
            f"%a: Tensor[(3, 5, 4), {F}], %b: Tensor[(3, 5, 6), {F}]",
            3 * 4 * 6 * 5,
        ),
        ("nn.matmul(%a, %b)", f"%a: Tensor[(4, 5), {F}], %b: Tensor[(5, 6), {F}]", 4 * 6 * 5),
        # not counted
        ("add(%a, %a)", f"%a: Tensor[(4, 5), {F}]", 0),
        ("nn.max_pool2d(%x, pool_size=[2, 2])", f"%x: Tensor[(1, 3, 8, 8), {F}]", 0),
    ],
)
def test_macs_of_one_call(body: str, params: str, expected: int) -> None:
    assert call_macs(body, params) == expected


def test_unknown_shapes_cost_nothing_known() -> None:
    assert call_macs("nn.dense(%x, %w)", f"%x: Tensor[(?, 32), {F}], %w: Tensor[(10, 32), {F}]") is None
    assert macs("nn.dense", [None, None], None, ()) is None
    assert macs("add", [None], None, ()) == 0


def test_sizes() -> None:
    assert elements(TensorType((2, 3, 4), F)) == 24
    assert elements(TensorType((), "int8")) == 1
    assert elements(TupleType((TensorType((2,), F), TensorType((3, 3), F)))) == 11
    assert elements(TensorType((2, None), F)) is None  # type: ignore[arg-type]  # a dimension that is not an int
    assert [dtype_bits(d) for d in ("float32", "bool", "int4", "bfloat16", "int32x4", "float64")] == [
        32,
        8,
        4,
        16,
        128,
        64,
    ]
    assert nbytes(TensorType((3,), "int4")) == 2  # 12 bits, rounded up to whole bytes
    assert nbytes(TensorType((10, 10), "float16")) == 200
    assert channels((1, 8, 5, 5, 4), "NCHW4c") == 32
    assert channels((1, 5, 5, 3), "NHWC") == 3
    assert channels((1, 5, 5), "NCHW") is None
