"""EliminateCommonSubexpr: TVM's pairs (tests/python/relay/test_pass_eliminate_common_subexpr.py,
transcribed), every sample and corpus model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_corpus
from tests.passes.helpers import assert_pass_pair, assert_same_values, optimized
from tests.passes.programs import check_model, check_samples, corpus_params

CSE = "EliminateCommonSubexpr"

TWO_BRANCHES = """def @main(%x : Tensor[(1, 16), float32]) {
  %0 = nn.relu(%x);
  %1 = nn.relu(%x);
  %2 = add(%0, 1f);
  %3 = add(%1, 1f);
  add(%2, %3)
}
"""


def test_simple() -> None:
    """test_simple: relu and the add of a literal merge; the literal `1f`
    written twice counts as the same argument."""
    expected = """def @main(%x : Tensor[(1, 16), float32]) {
  %0 = nn.relu(%x);
  %1 = add(%0, 1f);
  add(%1, %1)
}
"""
    out = assert_pass_pair(TWO_BRANCHES, expected, CSE)
    assert_same_values(TWO_BRANCHES, out)


def test_skip_keeps_an_operator_apart() -> None:
    """test_callback: TVM's fskip returning True for `add`, as `skip=add`."""
    expected = """def @main(%x : Tensor[(1, 16), float32]) {
  %0 = nn.relu(%x);
  %1 = add(%0, 1f);
  %2 = add(%0, 1f);
  add(%1, %2)
}
"""
    assert_pass_pair(TWO_BRANCHES, expected, "EliminateCommonSubexpr{skip=add}")


def test_projections_of_one_tuple_merge() -> None:
    """test_tuple_get_time"""
    before = """def @main(%x : Tensor[(1, 16, 1, 1), float32], %var : Tensor[(16), float32],
          %mean : Tensor[(16), float32],
          %beta : Tensor[(16), float32], %gamma : Tensor[(16), float32]) {
  %0 = nn.batch_norm(%x, %gamma, %beta, %mean, %var, epsilon=1e-05f);
  add(%0.0, %0.0)
}
"""
    expected = """def @main(%x : Tensor[(1, 16, 1, 1), float32], %var : Tensor[(16), float32],
          %mean : Tensor[(16), float32],
          %beta : Tensor[(16), float32], %gamma : Tensor[(16), float32]) {
  %0 = nn.batch_norm(%x, %gamma, %beta, %mean, %var, epsilon=1e-05f);
  %1 = %0.0;
  add(%1, %1)
}
"""
    out = assert_pass_pair(before, expected, CSE)
    assert_same_values(before, out)


def test_tuple_arguments() -> None:
    """test_tuple_arg: two concatenations of equal tuples merge."""
    before = """def @main(%x : Tensor[(1, 16), float32], %c : Tensor[(1, 16), float32]) {
  %0 = add(nn.relu(%x), 1f);
  %1 = add(nn.relu(%x), 1f);
  %2 = concatenate((%0, %c));
  %3 = concatenate((%1, %c));
  add(%2, %3)
}
"""
    expected = """def @main(%x : Tensor[(1, 16), float32], %c : Tensor[(1, 16), float32]) {
  %0 = add(nn.relu(%x), 1f);
  %1 = concatenate((%0, %c));
  add(%1, %1)
}
"""
    assert_pass_pair(before, expected, CSE)


def test_stateful_calls_and_different_attributes_stay_apart() -> None:
    before = """def @main(%x : Tensor[(4), float32]) {
  (nn.dropout(%x), nn.dropout(%x), nn.softmax(%x, axis=0), nn.softmax(%x, axis=-1), nn.softmax(%x, axis=0))
}
"""
    out = optimized(before, CSE)
    assert out.count("nn.dropout") == 2 and out.count("nn.softmax") == 2


def test_every_sample() -> None:
    check_samples(CSE)


@needs_corpus
@pytest.mark.parametrize("path", corpus_params())
def test_every_model(path: Path) -> None:
    check_model(path, CSE)
