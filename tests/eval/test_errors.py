"""Runtime errors are located diagnostics: match-failure, division-by-zero,
recursion-limit (see test_depth), runtime-error."""

from __future__ import annotations

from .helpers import failure, located


def test_a_match_without_clauses_fails_where_it_is() -> None:
    """`match? (e) {}` matches nothing (it was an internal error of the
    evaluator's plan, which had no regions for it; a fuzzer finding)."""
    d = failure("def @main() { match? (()) {} }\n")
    assert located(d) == ("match-failure", 1, 15, 1, 25)
    assert d.message == "no clause matches the value `()`"


def test_match_failure_in_a_program() -> None:
    """Seed 000: a `match` checks its clauses in order; under `match?` a value
    may match none, which is a located runtime error."""
    src = """data Shape {
  Circle : (int32) -> Shape
  Square : (int32) -> Shape
}
def @side(%s : Shape) -> int32 {
  match? (%s) {
    case Square(%n) { %n }
  }
}
def @main() -> int32 {
  @side(Circle(2))
}
"""
    d = failure(src)
    assert located(d) == ("match-failure", 6, 3, 6, 13)
    assert d.message == "no clause matches the value `Circle(2)`"
    assert d.label == "no clause matches"
    assert d.notes == [
        "the value was built by `Circle`, which no clause accepts",
        "`@side` was called at <string>:11:3, in `@main`",
    ]
    assert d.helps == [
        "`match?` allows clauses to leave values out; add a clause for this case, or use `match` to have it checked"
    ]


def test_long_values_are_abbreviated_in_the_message() -> None:
    src = """def @main() -> int32 {
  match? (Cons(1, Cons(2, Cons(3, Cons(4, Cons(5, Cons(6, Cons(7, Cons(8, Cons(9, Cons(10, Nil()))))))))))) {
    case Nil() { 0 }
  }
}
"""
    d = failure(src)
    assert d.message == "no clause matches the value `Cons(...)`"


def test_integer_division_by_zero() -> None:
    src = "def @main() -> int32 {\n  let %x = 7;\n  %x / (%x - 7)\n}\n"
    d = failure(src)
    assert located(d) == ("division-by-zero", 3, 3, 3, 15)
    assert d.message == "integer division by zero"
    assert [(*lab.span.start_line_col, *lab.span.end_line_col, lab.message) for lab in d.labels] == [
        (3, 8, 3, 15, "the divisor")
    ]


def test_division_by_zero_inside_a_tensor_and_in_a_callee() -> None:
    src = """def @halve(%x : Tensor[(3), int32], %by : Tensor[(3), int32]) -> Tensor[(3), int32] {
  %x / %by
}
def @main() {
  @halve(Constant(6, (3), int32), Constant(0, (3), int32))
}
"""
    d = failure(src)
    assert located(d) == ("division-by-zero", 2, 3, 2, 10)
    assert d.notes == ["`@halve` was called at <string>:5:3, in `@main`"]


def test_float_division_by_zero_is_not_an_error() -> None:
    from .helpers import show

    assert show("def @main() { (1.0 / 0.0, -1.0 / 0.0) }") == "(inf, -inf)"


def test_operator_failure_is_a_runtime_error() -> None:
    src = "def @main() -> int32 {\n  power(2, -1)\n}\n"
    d = failure(src)
    assert located(d) == ("runtime-error", 2, 3, 2, 14)
    assert d.message == "integer power with a negative exponent"


def test_closure_in_the_backtrace() -> None:
    src = """def @main() -> int32 {
  let %f = fn (%d : int32) -> int32 { 10 / %d };
  %f(0)
}
"""
    d = failure(src)
    assert located(d)[:3] == ("division-by-zero", 2, 39)
    assert d.notes == ["a closure was called at <string>:3:3, in `@main`"]
