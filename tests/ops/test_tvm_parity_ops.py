"""Operators read as TVM reads them where real dumps showed a difference:
attributes TVM printed, dtypes its relations accept, and the defaults of
`v0.0.4` text (TVM 0.6). Each test cites the TVM source line (at commit
21095b98 unless a release is named) that decides the behaviour.
"""

from __future__ import annotations

import numpy as np

import relay_text
from relay_text.ir.span import Source
from relay_text.pipeline import check_source
from tests.ops.family import same

HEADER = '#[version = "0.0.5"]\n'


def checked(text: str):
    return check_source(Source("t.rly", text))


def main_type(text: str) -> str:
    result = checked(text)
    assert [str(d) for d in result.diagnostics] == []
    return result.global_types["@main"]


def only_error(text: str):
    result = checked(text)
    assert len(result.diagnostics) == 1, [str(d) for d in result.diagnostics]
    return result.diagnostics[0]


# ---------------------------------------------------------------- arange


def test_arange_reads_the_bounds_tvm_printed_as_attributes() -> None:
    """include/tvm/relay/attrs/transform.h:229 (ArangeAttrs: start, stop,
    step, dtype); src/relay/op/tensor/transform.cc:1528: with constant
    bounds the length is ceil((stop - start) / step)."""
    text = HEADER + (
        "def @main() {\n"
        '  %0 = arange(0f, 10f, 3f, start=0f, stop=10f, step=3f, dtype="float32");\n'
        "  %1 = arange(0, 4, 1, start=meta[relay.Constant][0], stop=meta[relay.Constant][1], "
        'step=meta[relay.Constant][2], dtype="int32");\n'
        "  (%0, %1)\n"
        "}\n"
    )
    assert main_type(text) == "fn() -> (Tensor[(4), float32], Tensor[(?), int32])"
    first, second = relay_text.run(text)
    same(first, np.array([0, 3, 6, 9], np.float32))
    same(second, np.arange(4, dtype=np.int32))


def test_arange_with_attribute_bounds_of_no_elements_is_an_error() -> None:
    """src/relay/op/tensor/transform.cc:1529 (ICHECK_GT(num_elem, 0))."""
    diag = only_error(HEADER + "def @main() {\n  arange(5f, 1f, 1f, start=5f, stop=1f, step=1f)\n}\n")
    assert (diag.code, diag.message, diag.location()[1:3]) == (
        "shape-mismatch",
        "`arange` with start=5.0, stop=1.0, step=1.0 has no elements (TVM requires at least one)",
        (3, 3),
    )


# ---------------------------------------------------------------- adv_index


def test_adv_index_reads_a_bool_index_as_positions_0_and_1() -> None:
    """src/relay/op/tensor/transform.cc:4062 (AdvIndexRel checks no index
    dtype); include/tvm/topi/transform.h:2162 (the compute reads each index
    value as a position, so True is 1, not a mask)."""
    text = "def @main(%d: Tensor[(3, 2), float32], %i: Tensor[(4), bool]) {\n  adv_index((%d, %i))\n}\n"
    assert main_type(text) == "fn(Tensor[(3, 2), float32], Tensor[(4), bool]) -> Tensor[(4, 2), float32]"
    data = np.arange(6, dtype=np.float32).reshape(3, 2)
    index = np.array([True, False, False, True])
    same(relay_text.run(text, data, index), data[[1, 0, 0, 1]])


# ---------------------------------------------------------------- nn.dense and where


def test_dense_takes_data_and_weight_of_different_dtypes() -> None:
    """src/relay/op/nn/nn.h:74 (MatmulRel keeps the weight's own dtype; only
    out_dtype decides the result's)."""
    text = HEADER + (
        "def @main(%x: Tensor[(2, 3), int8], %w: Tensor[(4, 3), uint8]) {\n"
        '  nn.dense(%x, %w, units=4, out_dtype="int32")\n'
        "}\n"
    )
    assert main_type(text) == "fn(Tensor[(2, 3), int8], Tensor[(4, 3), uint8]) -> Tensor[(2, 4), int32]"
    x = np.array([[-100, 100, 7], [1, 2, 3]], np.int8)
    w = np.array([[200, 200, 1], [0, 0, 0], [1, 1, 1], [255, 0, 0]], np.uint8)
    # both read as int32 before multiplying: no int8 or uint8 overflow
    same(relay_text.run(text, x, w), x.astype(np.int32) @ w.astype(np.int32).T)


def test_where_takes_a_condition_of_any_dtype() -> None:
    """src/relay/op/tensor/transform.cc:2223 (WhereRel checks that x and y
    share a dtype, nothing about the condition's): a non-zero element picks x."""
    text = (
        "def @main(%c: Tensor[(3), float32], %x: Tensor[(3), int32], %y: Tensor[(3), int32]) {\n  where(%c, "
        "%x, %y)\n}\n"
    )
    assert main_type(text) == "fn(Tensor[(3), float32], Tensor[(3), int32], Tensor[(3), int32]) -> Tensor[(3), int32]"
    out = relay_text.run(
        text, np.array([0.5, 0, -2], np.float32), np.array([1, 2, 3], np.int32), np.array([7, 8, 9], np.int32)
    )
    same(out, np.array([1, 8, 3], np.int32))


# ---------------------------------------------------------------- v0.0.4 defaults


def test_batch_matmul_in_v004_text_transposes_its_second_argument() -> None:
    """TVM 0.6 had no BatchMatmulAttrs: y was (batch, N, K); at 21095b98
    include/tvm/relay/attrs/nn.h:1134 `transpose_b` defaults to false, which
    0.0.5 text that omits it gets."""
    body = "def @main(%a: Tensor[(2, 4, 5), float32], %b: Tensor[(2, 6, 5), float32]) {\n  nn.batch_matmul(%a, %b)\n}\n"
    assert (
        main_type("v0.0.4\n" + body)
        == "fn(Tensor[(2, 4, 5), float32], Tensor[(2, 6, 5), float32]) -> Tensor[(2, 4, 6), float32]"
    )
    a = np.random.default_rng(0).standard_normal((2, 4, 5)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((2, 6, 5)).astype(np.float32)
    same(relay_text.run("v0.0.4\n" + body, a, b), a @ b.transpose(0, 2, 1), rtol=1e-5, atol=1e-5)
    diag = only_error(HEADER + body)
    assert (diag.code, diag.message) == ("shape-mismatch", "`nn.batch_matmul`: the inner dimensions differ (5 and 6)")


def test_topk_in_v004_text_takes_one_element_by_default() -> None:
    """TVM 0.6 include/tvm/relay/attrs/algorithm.h TopKAttrs `k` defaulted to
    1; at 21095b98 include/tvm/relay/attrs/algorithm.h:63 it has no default."""
    text = 'v0.0.4\ndef @main(%t: Tensor[(5), float32]) {\n  topk(%t, ret_type="values")\n}\n'
    assert main_type(text) == "fn(Tensor[(5), float32]) -> Tensor[(1), float32]"
    same(relay_text.run(text, np.array([3, 9, 1, 4, 2], np.float32)), np.array([9], np.float32))


def test_image_resize_in_v004_text_aligns_corners_by_default() -> None:
    """TVM 0.6 include/tvm/relay/attrs/image.h ResizeAttrs `align_corners`
    (default true) and topi/include/topi/image/resize.h (align_corners false:
    the scale is in/out from 0); TVM 0.7 replaced it by
    coordinate_transformation_mode."""
    text = (
        "v0.0.4\ndef @main(%x: Tensor[(1, 1, 2, 2), float32]) {\n"
        "  (image.resize(%x, size=[3, 3]), image.resize(%x, size=[4, 4], align_corners=False))\n}\n"
    )
    result = checked(text)
    assert [d.code for d in result.diagnostics] == ["renamed-operator"]
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    aligned, asymmetric = relay_text.run(text, x)
    same(aligned[0, 0], np.array([[0, 0.5, 1], [1, 1.5, 2], [2, 2.5, 3]], np.float32))
    same(asymmetric[0, 0, 0], np.array([0, 0.5, 1, 1], np.float32))
