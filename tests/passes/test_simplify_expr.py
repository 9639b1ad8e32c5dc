"""SimplifyExpr: TVM's pairs (tests/python/relay/test_pass_simplify_expr.py,
transcribed), every sample and corpus model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_corpus
from tests.passes.helpers import assert_pass_pair, assert_same_values
from tests.passes.programs import check_model, check_samples, corpus_params

X = "%x : Tensor[(1, 16, 16, 16), float32]"
Y = "%y : Tensor[(3, 4), float32]"
CASES = {
    # test_simplify_reshape: reshape chains (and reverse_reshape) become one
    "reshape": (
        X,
        "reshape(contrib_reverse_reshape(reshape(%x, newshape=[1, 16, -1]), newshape=[4, -1]), newshape=[1, 4, 1024])",
        "reshape(%x, newshape=[1, 4, 1024])",
    ),
    # test_simplify_transpose: consecutive transposes compose
    "transpose": (X, "transpose(transpose(%x, axes=[0, 2, 3, 1]), axes=[0, 3, 1, 2])", "%x"),
    "transpose_compose": (
        X,
        "transpose(transpose(%x, axes=[0, 2, 3, 1]), axes=[0, 2, 1, 3])",
        "transpose(%x, axes=[0, 3, 2, 1])",
    ),
    # test_simplify_full_elementwise
    "full_elementwise": (Y, 'add(%y, ones(shape=[3, 4], dtype="float32"))', "add(%y, 1f)"),
    "full_elementwise_full": (Y, 'multiply(full(2f, shape=[3, 4], dtype="float32"), %y)', "multiply(2f, %y)"),
    # test_eliminate_identity
    "identity_add": (Y, "add(zeros_like(%y), %y)", "%y"),
    "identity_multiply": (Y, "multiply(%y, 1f)", "%y"),
    "identity_subtract": (Y, 'subtract(%y, zeros(shape=[3, 4], dtype="float32"))', "%y"),
    "identity_divide": (Y, "divide(%y, 1f)", "%y"),
    # test_concretize_*_like
    "concretize_zeros_like": (Y, "zeros_like(%y)", 'zeros(shape=[3, 4], dtype="float32")'),
    "concretize_reshape_like": (
        "%y : Tensor[(3, 4), float32], %z : Tensor[(2, 6), float32]",
        "reshape_like(%y, %z)",
        "reshape(%y, newshape=[2, 6])",
    ),
    "concretize_broadcast_to_like": (
        "%v : Tensor[(4), float32], %y : Tensor[(3, 4), float32]",
        "broadcast_to_like(%v, %y)",
        "broadcast_to(%v, shape=[3, 4])",
    ),
    "concretize_cast_like": (
        "%y : Tensor[(3, 4), float32], %i : Tensor[(2), int64]",
        "cast_like(%y, %i)",
        'cast(%y, dtype="int64")',
    ),
    # test_simplify_consecutive_cast: a widening cast then another
    "consecutive_cast": (Y, 'cast(cast(%y, dtype="float64"), dtype="float16")', 'cast(%y, dtype="float16")'),
    "narrowing_cast_stays": (
        Y,
        'cast(cast(%y, dtype="int8"), dtype="float32")',
        'cast(cast(%y, dtype="int8"), dtype="float32")',
    ),
    "same_cast": (Y, 'cast(%y, dtype="float32")', "%y"),
    # test_simplify_rsqrt
    "rsqrt": (Y, "divide(2f, sqrt(%y))", "multiply(2f, rsqrt(%y))"),
    # test_simplify_add
    "add_self": (Y, "add(%y, %y)", "multiply(%y, 2f)"),
    # test_switch_add_multiply, test_simplify_adjacent_*
    "switch_add_multiply": (Y, "multiply(add(%y, 1f), 3f)", "add(multiply(%y, 3f), 3f)"),
    "adjacent_multiply": (Y, "multiply(multiply(%y, 2f), 3f)", "multiply(%y, 6f)"),
    "adjacent_add": (Y, "add(add(2f, %y), 3f)", "add(%y, 5f)"),
    # test_simplify_clip
    "clip": ("%i : Tensor[(4), uint8]", "clip(%i, a_min=0f, a_max=255f)", "%i"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_tvm_pairs(name: str) -> None:
    params, before_expr, after_expr = CASES[name]
    before = f"def @main({params}) {{\n  {before_expr}\n}}\n"
    expected = f"def @main({params}) {{\n  {after_expr}\n}}\n"
    out = assert_pass_pair(before, expected, "SimplifyExpr")
    assert_same_values(before, out, rtol=1e-6)


def test_every_sample() -> None:
    check_samples("SimplifyExpr", rtol=1e-5, atol=1e-5)


@needs_corpus
@pytest.mark.parametrize("path", corpus_params())
def test_every_model(path: Path) -> None:
    check_model(path, "SimplifyExpr", rtol=1e-5, atol=1e-5)
