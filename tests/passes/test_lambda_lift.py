"""LambdaLift: TVM's cases (tests/python/relay/test_pass_lambda_lift.py,
transcribed with the whole expected module), every sample and corpus model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_corpus
from tests.passes.helpers import assert_pass_pair, assert_same_values
from tests.passes.programs import check_model, check_samples, corpus_params


def test_basic() -> None:
    """test_basic: a function without captures becomes a global of its own."""
    before = """def @main(%x1 : Tensor[(10, 5), float32], %y1 : Tensor[(1, 5), float32]) {
  %0 = fn (%x2 : Tensor[(10, 5), float32], %y2 : Tensor[(1, 5), float32]) { add(%x2, %y2) };
  %0(%x1, %y1)
}
"""
    expected = """def @lifted_name0(%x2 : Tensor[(10, 5), float32], %y2 : Tensor[(1, 5), float32]) { add(%x2, %y2) }
def @main(%x1 : Tensor[(10, 5), float32], %y1 : Tensor[(1, 5), float32]) { @lifted_name0(%x1, %y1) }
"""
    out = assert_pass_pair(before, expected, "LambdaLift")
    assert_same_values(before, out)


def test_closure() -> None:
    """test_closure: the inner function captures %y (Closure=1); three globals."""
    before = """def @main() {
  %0 = fn (%y : Tensor[(2), float32]) { fn (%x : Tensor[(2), float32]) { %x + %y } };
  %0(ones(shape=[2], dtype="float32"))(zeros(shape=[2], dtype="float32"))
}
"""
    expected = """def @lifted_name1(%y : Tensor[(2), float32], Closure=1)
    -> fn(Tensor[(2), float32]) -> Tensor[(2), float32] {
  fn (%x : Tensor[(2), float32]) { %x + %y }
}
def @lifted_name0(%y : Tensor[(2), float32]) { @lifted_name1(%y) }
def @main() { @lifted_name0(ones(shape=[2], dtype="float32"))(zeros(shape=[2], dtype="float32")) }
"""
    out = assert_pass_pair(before, expected, "LambdaLift")
    assert_same_values(before, out)


def test_recursive() -> None:
    """test_recursive: a let-bound loop that captures %x calls its global."""
    before = """def @main(%x : Tensor[(2), float32]) {
  let %while_loop = fn (%i : int32, %s : Tensor[(2), float32]) {
    if (%i < 10) { %while_loop(%i + 1, %s + %x) } else { %s }
  };
  %while_loop(0, zeros(shape=[2], dtype="float32"))
}
"""
    expected = """def @lifted_name0(%x : Tensor[(2), float32], Closure=1)
    -> fn(int32, Tensor[(2), float32]) -> Tensor[(2), float32] {
  fn (%i : int32, %s : Tensor[(2), float32]) {
    if (%i < 10) { @lifted_name0(%x)(%i + 1, %s + %x) } else { %s }
  }
}
def @main(%x : Tensor[(2), float32]) {
  let %while_loop = @lifted_name0(%x);
  %while_loop(0, zeros(shape=[2], dtype="float32"))
}
"""
    out = assert_pass_pair(before, expected, "LambdaLift")
    assert_same_values(before, out)


def test_every_sample() -> None:
    check_samples("LambdaLift")


@needs_corpus
@pytest.mark.parametrize("path", corpus_params(heavy_too=False))
def test_every_model(path: Path) -> None:
    check_model(path, "LambdaLift")
