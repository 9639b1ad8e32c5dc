"""DeadCodeElimination: TVM's pairs (tests/python/relay/test_pass_dead_code_elimination.py,
transcribed), every sample and corpus model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_corpus
from tests.passes.helpers import assert_pass_pair, assert_same_values, optimized
from tests.passes.programs import check_model, check_samples, corpus_params

DCE = "DeadCodeElimination"
INLINE = "DeadCodeElimination{inline_once=true}"


@pytest.mark.parametrize(
    ("before", "expected"),
    [
        # test_dead_let
        ("def @main(%z : int32) {\n  let %x = 1;\n  %z\n}\n", "def @main(%z : int32) {\n  %z\n}\n"),
        # test_one_live_let
        (
            "def @main(%z : int32) {\n  let %x = 1;\n  let %y = 2;\n  %x + %x\n}\n",
            "def @main(%z : int32) {\n  let %x = 1;\n  %x + %x\n}\n",
        ),
        # test_nested_let
        (
            "def @main(%d : int32, %b : int32) {\n  let %a = %b;\n  let %c = %d;\n  %c\n}\n",
            "def @main(%d : int32, %b : int32) {\n  let %c = %d;\n  %c\n}\n",
        ),
        # test_dead_recursion
        (
            "def @main() {\n  let %f = fn (%n : int32, %data : int32) -> int32 {\n"
            "    if (%n == 0) { %data } else { %f(%n - 1, %data * 2) }\n  };\n  ()\n}\n",
            "def @main() {\n  ()\n}\n",
        ),
        # test_add_with_let
        ("def @main() {\n  { let %a = 1; 3 } + 2\n}\n", "def @main() {\n  3 + 2\n}\n"),
        # test_tuple_get_item
        ("def @main() {\n  let %a = 100;\n  (1, 2, 3, 4).0\n}\n", "def @main() {\n  (1, 2, 3, 4).0\n}\n"),
    ],
    ids=["dead_let", "one_live_let", "nested_let", "dead_recursion", "add_with_let", "tuple_get_item"],
)
def test_tvm_pairs(before: str, expected: str) -> None:
    out = assert_pass_pair(before, expected, DCE)
    assert_same_values(before, out)


def test_live_recursion_stays() -> None:
    """test_live_recursion"""
    before = (
        "def @main() {\n  let %f = fn (%n : int32, %data : int32) -> int32 {\n"
        "    if (%n == 0) { %data } else { %f(%n - 1, %data * 2) }\n  };\n  %f(2, 10000)\n}\n"
    )
    assert_pass_pair(before, before, DCE)


def test_inline_once_stops_at_function_boundaries() -> None:
    """test_inline_into_function: %z is inlined, %x (used inside a function
    that runs twice) is not."""
    before = """def @main() {
  let %x = 1 + 1;
  let %f = fn (%y : int32) -> int32 {
    let %z = %y + %y;
    %x + %z
  };
  (%f(2), %f(3))
}
"""
    expected = """def @main() {
  let %x = 1 + 1;
  let %f = fn (%y : int32) -> int32 { %x + (%y + %y) };
  (%f(2), %f(3))
}
"""
    out = assert_pass_pair(before, expected, INLINE)
    assert_same_values(before, out)


def test_a_stateful_operator_is_kept() -> None:
    """test_impure_op: `memory.kill` is stateful; the storage it kills, used
    once, is inlined."""
    before = """#[version = "0.0.5"]
def @main() {
  let %size: int64 = cast(1024, dtype="int64");
  let %alignment: int64 = cast(64, dtype="int64");
  let %x = memory.alloc_storage(%size, 0i64, %alignment);
  let %_ = memory.kill(%x);
  0
}
"""
    expected = """#[version = "0.0.5"]
def @main() {
  %0 = memory.alloc_storage(cast(1024, dtype="int64"), 0i64, cast(64, dtype="int64"));
  let %_ = memory.kill(%0);
  0
}
"""
    assert_pass_pair(before, expected, INLINE)


def test_a_call_of_an_impure_function_is_kept() -> None:
    """test_impure_func and test_refs"""
    before = """def @f(%r : Ref[int32]) -> int32 {
  let %v = ref_read(%r);
  let %u = ref_write(%r, %v + 1);
  %v
}

def @main() -> int32 {
  let %r = ref(0);
  let %y = @f(%r);
  let %z = @f(%r);
  %z
}
"""
    out = optimized(before.replace("%r : Ref[int32]", "%r"), INLINE)
    assert "let %y = @f(%r)" in out and "let %u = ref_write" in out
    assert_same_values(before.replace("%r : Ref[int32]", "%r"), out)


def test_ignore_impurity_drops_effects() -> None:
    before = (
        "def @main(%x : float32) {\n  let %c = nn.dropout(%x);\n  let %r = ref(0);\n  let %w = ref_write(%r, "
        "3);\n  %x\n}\n"
    )
    assert "dropout" in optimized(before, DCE)
    assert_pass_pair(before, "def @main(%x : float32) {\n  %x\n}\n", "DeadCodeElimination{ignore_impurity=true}")


@pytest.mark.parametrize("passes", [DCE, INLINE])
def test_every_sample(passes: str) -> None:
    check_samples(passes)


@needs_corpus
@pytest.mark.parametrize("path", corpus_params())
def test_every_model(path: Path) -> None:
    check_model(path, INLINE)
