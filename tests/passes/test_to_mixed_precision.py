"""ToMixedPrecision: TVM's pairs (tests/python/relay/test_to_mixed_precision.py,
transcribed), every sample and corpus model within float16 rounding."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_corpus
from tests.passes.helpers import assert_pass_pair, assert_same_values, attempt
from tests.passes.programs import check_model, check_samples, corpus_params

KEEP = "ToMixedPrecision{keep_orig_output_dtype=true}"
TOL = {"rtol": 5e-2, "atol": 5e-2}
P = "%data : Tensor[(1, 3, 32, 32), float32], %weight : Tensor[(5, 3, 3, 3), float32]"
CONV = (
    'nn.conv2d(cast(%data, dtype="float16"), cast(%weight, dtype="float16"), padding=[1, 1, 1, 1], out_dtype="float16")'
)


def test_convert_single_conv() -> None:
    """test_convert_single_conv: in float16, the result cast back."""
    before = f'def @main({P}) {{\n  nn.conv2d(%data, %weight, padding=[1, 1, 1, 1], out_dtype="float32")\n}}\n'
    expected = f'def @main({P}) {{\n  cast({CONV}, dtype="float32")\n}}\n'
    out = assert_pass_pair(before, expected, KEEP)
    assert_same_values(before, out, rtol=1e-2, atol=1e-2)


def test_green_gray_propagates() -> None:
    """test_green_gray_propagates_simple: the add after a convolution stays
    in float16 (and the result is float16)."""
    before = (
        f'def @main({P}) {{\n  %0 = nn.conv2d(%data, %weight, padding=[1, 1, 1, 1], out_dtype="float32");\n  '
        f"add(%0, %0)\n}}\n"
    )
    expected = f"def @main({P}) {{\n  %0 = {CONV};\n  add(%0, %0)\n}}\n"
    assert_pass_pair(before, expected, "ToMixedPrecision")


def test_green_red_casts_once() -> None:
    """test_green_red_not_use_extraneous_cast: softmax is red: one cast back."""
    before = (
        f'def @main({P}) {{\n  nn.softmax(nn.conv2d(%data, %weight, padding=[1, 1, 1, 1], out_dtype="float32"))\n}}\n'
    )
    expected = f'def @main({P}) {{\n  nn.softmax(cast({CONV}, dtype="float32"))\n}}\n'
    assert_pass_pair(before, expected, "ToMixedPrecision")


@pytest.mark.parametrize("expr", ["nn.softmax(%a)", "sum(%a)", "mean(%a)", "nn.global_avg_pool2d(%a)", "exp(%a)"])
def test_red_operations_are_not_converted(expr: str) -> None:
    """test_do_not_convert_softmax, test_do_not_convert_summation"""
    before = f"def @main(%a : Tensor[(1, 3, 16, 16), float32]) {{\n  {expr}\n}}\n"
    assert_pass_pair(before, before, "ToMixedPrecision")


def test_follow_with_integer_arguments() -> None:
    """test_convert_follow_node_with_integer_arguments: `take`'s indices stay int32."""
    before = (
        f"def @main({P}, %i : Tensor[(2), int32]) {{\n  take(nn.conv2d(%data, %weight, padding=[1, 1, 1, 1]), "
        f"%i, axis=0)\n}}\n"
    )
    expected = f"def @main({P}, %i : Tensor[(2), int32]) {{\n  take({CONV}, %i, axis=0)\n}}\n"
    assert_pass_pair(before, expected, "ToMixedPrecision")


def test_clip_beyond_float16_stays() -> None:
    """test_clip: bounds that float16 cannot hold keep clip in float32."""
    before = "def @main(%a : Tensor[(4), float32]) {\n  clip(%a, a_min=-70000f, a_max=70000f)\n}\n"
    assert_pass_pair(before, before, "ToMixedPrecision")
    small = "def @main(%a : Tensor[(4), float32]) {\n  clip(%a, a_min=-1f, a_max=1f)\n}\n"
    expected = 'def @main(%a : Tensor[(4), float32]) {\n  clip(cast(%a, dtype="float16"), a_min=-1f, a_max=1f)\n}\n'
    assert_pass_pair(small, expected, "ToMixedPrecision")


def test_an_operator_in_no_list_is_reported() -> None:
    before = "def @main(%a : Tensor[(4), float32]) {\n  nn.lrn(%a, axis=0)\n}\n"
    result = attempt(before, "ToMixedPrecision")
    assert result.ok and [d.code for d in result.diagnostics] == ["pass-warning"]
    assert "nn.lrn" in result.diagnostics[0].message
    strict = attempt(before, "ToMixedPrecision{missing_op_mode=0}")
    assert not strict.ok and strict.diagnostics[-1].code == "pass-failed"


def test_every_sample() -> None:
    check_samples(KEEP, **TOL)


# The loop of the torchscript sample doubles its values until they pass
# float16's range (inf): only checked for well-formedness.
@needs_corpus
@pytest.mark.parametrize("path", [p for p in corpus_params() if "masahi" not in str(p.values[0])])
def test_every_model(path: Path) -> None:
    check_model(path, KEEP, **TOL)


@needs_corpus
def test_the_growing_loop_is_well_formed() -> None:
    from tests.conftest import CORPUS
    from tests.passes.helpers import assert_well_formed, optimized

    text = (CORPUS / "masahi-torchscript-to-tvm-loop-readme.rly").read_text()
    assert_well_formed(optimized(text, KEEP))
