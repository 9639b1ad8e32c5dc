"""FoldAffine and DenseWeightLayout, the rewrites `relay run` applies, as
`relay opt` passes: what FoldAffine writes (the evaluator's own use is
tested in tests/eval/test_optimize.py), every sample and corpus model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_corpus
from tests.passes.helpers import assert_pass_pair, assert_same_values, optimized
from tests.passes.programs import check_model, check_samples, corpus_params

P = "%x : Tensor[(1, 2, 4, 4), float32], %w : Tensor[(3, 2, 1, 1), float32], %v : Tensor[(3), float32]"


def test_a_batch_norm_after_a_convolution_goes_into_its_weight() -> None:
    """bn(conv(x, W)) = conv(x, W * s) + (beta - mean * s), s = gamma / sqrt(var + eps)."""
    before = f"def @main({P}) {{\n  nn.batch_norm(nn.conv2d(%x, %w), %v, %v, %v, %v).0\n}}\n"
    expected = f"""def @main({P}) {{
  %0 = divide(%v, sqrt(add(%v, 1e-05f)));
  %1 = multiply(%w, reshape(%0, newshape=[-1, 1, 1, 1]));
  nn.bias_add(nn.conv2d(%x, %1), subtract(%v, multiply(%v, %0)), axis=1)
}}
"""
    out = assert_pass_pair(before, expected, "FoldAffine")
    assert_same_values(before, out, rtol=1e-5, atol=1e-5)


def test_a_float16_fold_is_computed_in_float32_and_rounded_once() -> None:
    """The scaled weight is cast back to float16; the convolution keeps its
    float32 sum for the shift and the relu, and one cast ends the chain."""
    p16 = P.replace("float32", "float16")
    before = f"def @main({p16}) {{\n  nn.relu(nn.batch_norm(nn.conv2d(%x, %w), %v, %v, %v, %v).0)\n}}\n"
    expected = f"""def @main({p16}) {{
  %0 = cast(%v, dtype="float32");
  %1 = divide(%0, sqrt(add(%0, 1e-05f)));
  %2 = cast(multiply(cast(%w, dtype="float32"), reshape(%1, newshape=[-1, 1, 1, 1])), dtype="float16");
  %3 = nn.bias_add(nn.conv2d(%x, %2, out_dtype="float32"), subtract(%0, multiply(%0, %1)), axis=1);
  cast(nn.relu(%3), dtype="float16")
}}
"""
    out = assert_pass_pair(before, expected, "FoldAffine")
    assert_same_values(before, out, rtol=4e-3, atol=4e-3)


def test_dense_weight_layout_changes_no_text() -> None:
    before = "def @main(%x : Tensor[(2, 3), float32], %w : Tensor[(4, 3), float32]) {\n  nn.dense(%x, %w)\n}\n"
    assert optimized(before, "DenseWeightLayout") == before


def test_every_sample() -> None:
    check_samples("FoldAffine,FoldConstant,DenseWeightLayout", rtol=1e-5, atol=1e-5)


@needs_corpus
@pytest.mark.parametrize("path", corpus_params())
def test_every_model(path: Path) -> None:
    check_model(path, "FoldAffine,FoldConstant,DenseWeightLayout", rtol=1e-4, atol=1e-4)
