"""Inline: TVM's pairs (tests/python/relay/test_pass_inline.py, transcribed),
every sample and corpus model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_corpus
from tests.passes.helpers import assert_pass_pair, assert_same_values, optimized
from tests.passes.programs import check_model, check_samples, corpus_params

T = "Tensor[(3, 5), float32]"
CHAIN = f"""def @g11(%x11 : {T}{{inline}}) {{ %x11 }}
def @g1(%x1 : {T}, %y1 : {T}{{inline1}}) {{ %x1 + %y1 + @g11(%x1) }}
def @g2(%x2 : {T}, %y2 : {T}) {{ %x2 - %y2 }}
def @main(%p0 : {T}, %p1 : {T}, %p2 : {T}, %p3 : {T}) {{ @g1(%p0, %p1) * @g2(%p2, %p3) }}
"""


def test_call_chain_inline_leaf() -> None:
    """test_call_chain_inline_leaf: only the leaf @g11 is marked."""
    before = CHAIN.replace("{inline}", ", Inline=1").replace("{inline1}", "")
    expected = f"""def @g1(%x1 : {T}, %y1 : {T}) {{ %x1 + %y1 + %x1 }}
def @g2(%x2 : {T}, %y2 : {T}) {{ %x2 - %y2 }}
def @main(%p0 : {T}, %p1 : {T}, %p2 : {T}, %p3 : {T}) {{ @g1(%p0, %p1) * @g2(%p2, %p3) }}
"""
    out = assert_pass_pair(before, expected, "Inline")
    assert_same_values(before, out)


def test_call_chain_inline_multiple_levels() -> None:
    """test_call_chain_inline_multiple_levels: @g1 and @g11 both go."""
    before = CHAIN.replace("{inline}", ", Inline=1").replace("{inline1}", ", Inline=1")
    expected = f"""def @g2(%x2 : {T}, %y2 : {T}) {{ %x2 - %y2 }}
def @main(%p0 : {T}, %p1 : {T}, %p2 : {T}, %p3 : {T}) {{ (%p0 + %p1 + %p0) * @g2(%p2, %p3) }}
"""
    out = assert_pass_pair(before, expected, "Inline")
    assert_same_values(before, out)


def test_a_recursive_function_is_not_inlined() -> None:
    """test_recursive_called"""
    before = """def @sum_up(%i : int32, Inline=1) -> int32 {
  if (%i == 0) { %i } else { @sum_up(%i - 1) + %i }
}
def @main(%i : int32) -> int32 { @sum_up(%i) }
"""
    assert_pass_pair(before, before, "Inline")


def test_a_global_used_as_a_value_becomes_the_function() -> None:
    """test_inline_globalvar_without_args / test_globalvar_as_call_arg"""
    before = """def @inc(%x : int32, Inline=1) -> int32 { %x + 1 }
def @apply(%f : fn(int32) -> int32, %x : int32) -> int32 { %f(%x) }
def @main(%x : int32) -> int32 { @apply(@inc, %x) }
"""
    expected = """def @apply(%f : fn(int32) -> int32, %x : int32) -> int32 { %f(%x) }
def @main(%x : int32) -> int32 { @apply(fn (%y : int32) -> int32 { %y + 1 }, %x) }
"""
    out = assert_pass_pair(before, expected, "Inline")
    assert_same_values(before, out)


def test_a_body_inlined_twice_binds_fresh_variables() -> None:
    before = """def @g(%z : float32, Inline=1) -> float32 { let %t = multiply(%z, 2f); add(%t, %t) }
def @main(%a : float32) -> (float32, float32) { (@g(%a), @g(add(%a, 1f))) }
"""
    out = optimized(before, "Inline")
    assert out.count("let %t") == 2 and "@g" not in out
    assert_same_values(before, out)


def test_every_sample() -> None:
    check_samples("Inline")


@needs_corpus
@pytest.mark.parametrize("path", corpus_params(heavy_too=False))
def test_every_model(path: Path) -> None:
    check_model(path, "Inline")
