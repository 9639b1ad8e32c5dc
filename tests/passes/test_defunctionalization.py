"""Defunctionalization: TVM's cases (tests/python/relay/test_pass_defunctionalization.py,
transcribed: the same values before and after), the structure it makes,
the programs outside its assumptions, and every sample it applies to."""

from __future__ import annotations

import pytest

from tests.passes.helpers import assert_pass_pair, assert_same_values, assert_well_formed, attempt, optimized
from tests.passes.programs import sample_paths

DEFUNC = "Defunctionalization"

LIST = """#[version = "0.0.5"]
type List[A] {
  Cons(A, List[A]),
  Nil,
}
def @id[A](%x: A) -> A {
  %x
}
"""

CASES = {
    # test_simple
    "simple": """#[version = "0.0.5"]
def @simple[A, B](%f: fn(A) -> B, %xs: A) -> B {
  %f(%xs)
}
def @main(%l: Tensor[(5, 5), float32]) -> Tensor[(5, 5), float32] {
  %0 = fn[A](%x: A) -> A {
    %x
  };
  @simple(%0, %l)
}
""",
    # test_global_recursion
    "global_recursion": LIST
    + """def @map[A, B](%f: fn(A) -> B, %xs: List[A]) -> List[B] {
  match (%xs) {
    Cons(%x, %rest) => Cons(%f(%x), @map(%f, %rest)),
    Nil => Nil,
  }
}
def @main(%l: List[float32]) -> List[float32] {
  @map(@id, %l)
}
""",
    # test_recursive_datatype
    "recursive_datatype": LIST
    + """def @sum(%f: fn(int32) -> int32, %k: List[int32]) -> int32 {
  match (%k) {
    Cons(%x, %rest) => %0 = fn(%n) {
      %x + %f(%n)
    };
    @sum(%0, %rest),
    Nil => %f(0),
  }
}
def @main(%l: List[int32]) -> int32 {
  @sum(@id, %l)
}
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_tvm_cases(name: str) -> None:
    before = CASES[name]
    out = optimized(before, DEFUNC)
    assert_well_formed(out)
    assert_same_values(before, out)


def test_the_structure() -> None:
    """A global and a closure passed to @map: one data type with a
    constructor for each, one @apply, one specialized @map."""
    before = (
        LIST
        + """def @map[A, B](%f: fn(A) -> B, %xs: List[A]) -> List[B] {
  match (%xs) {
    Cons(%x, %rest) => Cons(%f(%x), @map(%f, %rest)),
    Nil => Nil,
  }
}
def @main(%l: List[float32], %k: float32) -> (List[float32], List[float32]) {
  (@map(@id, %l), @map(fn (%v: float32) -> float32 { add(%v, %k) }, %l))
}
"""
    )
    expected = (
        LIST.replace(
            "type List",
            """type Defunc1 {
  Defunc1_1,
  Defunc1_2(float32),
}
def @apply1(%x: Defunc1[], %y0: float32) -> float32 {
  match (%x) {
    Defunc1_1 => @id(%y0),
    Defunc1_2(%v0: float32) => fn (%v: float32) { add(%v, %v0) }(%y0),
  }
}
type List""",
        )
        + """def @map[A, B](%f: fn(A) -> B, %xs: List[A]) -> List[B] {
  match (%xs) {
    Cons(%x, %rest) => Cons(%f(%x), @map(%f, %rest)),
    Nil => Nil,
  }
}
def @map_defunc2(%f: Defunc1[], %xs: List[float32]) -> List[float32] {
  match (%xs) {
    Cons(%x, %rest) => Cons(@apply1(%f, %x), @map_defunc2(%f, %rest)),
    Nil => Nil,
  }
}
def @main(%l: List[float32], %k: float32) -> (List[float32], List[float32]) {
  (@map_defunc2(Defunc1_1(), %l), @map_defunc2(Defunc1_2(%k), %l))
}
"""
    )
    out = assert_pass_pair(before, expected, DEFUNC)
    assert_same_values(before, out)


def test_a_let_bound_function_is_outside_the_assumptions() -> None:
    result = attempt("def @main(%x : int32) {\n  let %f = fn (%y : int32) { %y + 1 };\n  %f(%x)\n}\n", DEFUNC)
    assert not result.ok
    assert result.diagnostics[-1].code == "pass-failed"


def test_every_sample_it_applies_to() -> None:
    """Samples within TVM's assumptions are transformed and compute the same
    values; the others are refused with `pass-failed`, never an internal error."""
    transformed = 0
    for path in sample_paths():
        text = path.read_text()
        result = attempt(text, DEFUNC, name=str(path))
        if not result.ok:
            assert [d.code for d in result.diagnostics if d.is_error][-1] == "pass-failed", path
            continue
        assert result.text is not None
        assert_well_formed(result.text)
        assert_same_values(text, result.text)
        transformed += 1
    assert transformed >= 20
