"""Generalization: let-polymorphism with the value restriction; globals in call-graph groups."""

from __future__ import annotations

from relay_text.text.type_text import type_text

from .helpers import checked, global_types, located


def test_let_bound_function_is_used_at_two_types() -> None:
    """seed 002, "Functions": unannotated functions get the most general type."""
    text = "def @main() {\n  let %id = fn (%x) { %x };\n  (%id(1), %id(True))\n}"
    assert global_types(text)["@main"] == "fn() -> (Tensor[(), int32], Tensor[(), bool])"


def test_value_restriction_keeps_non_functions_monomorphic() -> None:
    text = "def @main() {\n  let %p = (fn (%x) { %x }, 0);\n  (%p.0(1), %p.0(True))\n}"
    assert located(text) == [("type-mismatch", 3, 18)]


def test_lambda_bound_parameters_are_monomorphic() -> None:
    text = "def @apply(%f) {\n  (%f(1), %f(True))\n}"
    assert located(text) == [("type-mismatch", 2, 14)]


def test_unannotated_global_is_generalized() -> None:
    types = global_types("def @first(%p) { %p.0 }\ndef @pair(%x, %y) { (%y, %x) }")
    assert types["@first"] == "fn<a, b>(a) -> b where TupleGetItem"
    assert types["@pair"] == "fn<a, b>(a, b) -> (b, a)"


def test_polymorphic_global_used_at_two_types() -> None:
    text = "def @main() { (@pair(1, True), @pair(True, 1f)) }\ndef @pair(%x, %y) { (%y, %x) }"
    assert global_types(text)["@main"] == (
        "fn() -> ((Tensor[(), bool], Tensor[(), int32]), (Tensor[(), float32], Tensor[(), bool]))"
    )


def test_definition_order_does_not_matter() -> None:
    early = "def @a() { @b(1) }\ndef @b(%x) { %x + 1 }"
    late = "def @b(%x) { %x + 1 }\ndef @a() { @b(1) }"
    assert global_types(early)["@a"] == global_types(late)["@a"] == "fn() -> Tensor[(), int32]"


def test_mutually_recursive_globals_are_inferred_together() -> None:
    text = """
def @even(%n) { if (%n == 0) { True } else { @odd(%n - 1) } }
def @odd(%n) { if (%n == 0) { False } else { @even(%n - 1) } }
def @main() { @even(10) }
"""
    types = global_types(text)
    assert types["@even"] == "fn(Tensor[(), int32]) -> Tensor[(), bool]"
    assert types["@odd"] == "fn(Tensor[(), int32]) -> Tensor[(), bool]"


def test_annotated_global_breaks_the_cycle_and_keeps_its_signature() -> None:
    text = """
def @id<a>(%x : a) -> a { @twice(%x).0 }
def @twice(%y) { (@id(%y), @id(%y)) }
"""
    types = global_types(text)
    assert types["@id"] == "fn<a>(a) -> a"
    assert types["@twice"] == "fn<a>(a) -> (a, a)"


def test_relations_travel_with_the_generalized_type() -> None:
    text = """
def @add_one(%x) { %x + 1 }
def @main(%v : Tensor[(3), int32]) { @add_one(%v) }
def @bad(%v : Tensor[(3), float32]) { @add_one(%v) }
"""
    result = checked(text)
    assert type_text(result.global_type("add_one")) == "fn<a : Shape>(Tensor[a, int32]) -> Tensor[a, int32]"
    assert type_text(result.global_type("main")) == "fn(Tensor[(3), int32]) -> Tensor[(3), int32]"
    assert [d.code for d in result.diagnostics] == ["type-mismatch"]


def test_relation_checked_at_each_call_site() -> None:
    text = """
def @add2(%x, %y) { add(%x, %y) }
def @ok(%a : Tensor[(2, 3), float32], %b : Tensor[(3), float32]) { @add2(%a, %b) }
def @bad(%a : Tensor[(2, 3), float32], %b : Tensor[(4), float32]) { @add2(%a, %b) }
"""
    assert located(text) == [("shape-mismatch", 4, 69)]


def test_recursive_let_bound_function() -> None:
    text = """
def @main() {
  let %loop = fn (%i : Tensor[(), int32]) -> Tensor[(), int32] {
    if (%i == 0) { 0 } else { %loop(%i - 1) }
  };
  %loop(10)
}
"""
    assert global_types(text)["@main"] == "fn() -> Tensor[(), int32]"


def test_explicit_type_parameters_are_rigid_inside_the_body() -> None:
    text = "def @bad<a>(%x : a) -> a { 1 }"
    assert located(text) == [("type-mismatch", 1, 28)]


def test_let_bound_function_with_type_parameters() -> None:
    text = """
def @main() {
  let %loop = fn<a>(%x : a, %n : Tensor[(), int32]) -> a {
    if (%n == 0) { %x } else { %loop(%x, %n - 1) }
  };
  (%loop(1f, 3), %loop(True, 2))
}
"""
    assert global_types(text)["@main"] == "fn() -> (Tensor[(), float32], Tensor[(), bool])"
