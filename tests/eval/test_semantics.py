"""Evaluation semantics of seed 002 ("Expressions in Relay") and seed 000
("Algebraic Data Types in Relay"), on programs that need no operators."""

from __future__ import annotations

import numpy as np

import relay_text
from relay_text.eval.values import Data, Ref

from .helpers import run, show

NAT = """
data Nat {
  Z : () -> Nat
  S : (Nat) -> Nat
}
"""


def test_closure_keeps_the_environment_it_was_created_in() -> None:
    """Seed 002, "Closures": the closure's %x is the one in scope where it was
    made, not the %x bound later (tuples stand in for the tensors)."""
    src = """
    def @main() {
      let %g = fn() {
        let %x = (0, 0);
        fn(%y) { (%y, %x) }
      };
      let %f = %g();
      let %x = (1, 1);
      %f(%x)
    }
    """
    assert show(src) == "((1, 1), (0, 0))"


def test_shadowed_let_sees_the_outer_binding_on_its_right_hand_side() -> None:
    """Seed 002, "Local Variable": a second `let %a` shadows the first only in its body."""
    src = """
    def @main() {
      let %a = Some(1);
      let %b = (%a, %a);
      let %a = Cons(%a, Nil());
      (%a, %b)
    }
    """
    assert show(src) == "(Cons(Some(1), Nil()), (Some(1), Some(1)))"


def test_let_bound_function_calls_itself() -> None:
    """Seed 002, "Let Bindings": a let-bound `fn` is in scope in its own body."""
    src = (
        NAT
        + """
    def @main() {
      let %count = fn(%l : List[()]) -> Nat {
        match (%l) {
          case Nil() { Z() }
          case Cons(_, %t) { S(%count(%t)) }
        }
      };
      %count(Cons((), Cons((), Nil())))
    }
    """
    )
    assert show(src) == "S(S(Z()))"


def test_globals_are_mutually_recursive() -> None:
    """Seed 002, "Module and Global Functions": globals may call each other."""
    src = (
        NAT
        + """
    def @even(%n : Nat) -> bool {
      match (%n) {
        case Z() { True }
        case S(%m) { @odd(%m) }
      }
    }
    def @odd(%n : Nat) -> bool {
      match (%n) {
        case Z() { False }
        case S(%m) { @even(%m) }
      }
    }
    def @main() { (@even(S(S(S(Z())))), @odd(S(S(S(Z()))))) }
    """
    )
    assert show(src) == "(False, True)"


def test_first_matching_clause_wins() -> None:
    """Seed 000, "Pattern Matching in Match Expressions": clauses are tried in
    order; a variable pattern first matches everything."""
    src = """
    def @match_order_beware<a>(%l : List[a]) -> List[a] {
      match (%l) {
        case %v { %v }
        case Cons(%h, %t) { Cons(%h, @match_order_beware(%t)) }
        case Nil() { Nil() }
      }
    }
    def @pick(%o : Optional[Optional[()]]) -> (bool, bool) {
      match (%o) {
        case Some(Some(_)) { (True, True) }
        case Some(_) { (True, False) }
        case None() { (False, False) }
      }
    }
    def @main() {
      (@match_order_beware(Cons(1, Cons(2, Nil()))), @pick(Some(Some(()))), @pick(Some(None())), @pick(None()))
    }
    """
    assert show(src) == "(Cons(1, Cons(2, Nil())), (True, True), (True, False), (False, False))"


def test_nested_and_wildcard_patterns() -> None:
    """Seed 000: `@second_opt` and its four stated results."""
    src = """
    def @second_opt<a>(%ll : Optional[List[a]]) -> Optional[a] {
      match (%ll) {
        case Some(Cons(_, Cons(%s, _))) { Some(%s) }
        case _ { None() }
      }
    }
    def @main() {
      (@second_opt(Some(Cons(1, Nil()))), @second_opt(Some(Cons(1, Cons(2, Nil())))),
       @second_opt(Some(Nil())), @second_opt(None()))
    }
    """
    assert show(src) == "(None(), Some(2), None(), None())"


def test_tuple_patterns_and_projections() -> None:
    """Seed 002, "Tuples": projection is 0-indexed; `(%a, %b, %c).1` is %b."""
    src = """
    def @main() {
      let %t = ((1, 2), True, None());
      let %u : Optional[bool] = %t.2;
      let %swapped = match (%t.0) { case (%x, %y) { (%y, %x) } };
      (%swapped, (%t.0, %t.1, %t.2).1, %t.0.1)
    }
    """
    assert show(src) == "((2, 1), True, 2)"


def test_graph_binding_is_evaluated_once() -> None:
    """Seed 002, "Graph Bindings": `%1` means its expression wherever it is
    used, but the expression is evaluated once."""
    src = """
    def @main() {
      let %log = ref(Nil());
      %1 = { ref_write(%log, Cons((), ref_read(%log))); ref_read(%log) };
      (%1, %1, ref_read(%log))
    }
    """
    assert show(src) == "(Cons((), Nil()), Cons((), Nil()), Cons((), Nil()))"


def test_graph_binding_shared_by_a_closure_is_evaluated_once() -> None:
    src = """
    def @main() {
      let %log = ref(Nil());
      %1 = { ref_write(%log, Cons((), ref_read(%log))); ref_read(%log) };
      let %f = fn() { %1 };
      (%f(), %f(), %1)
    }
    """
    assert show(src) == "(Cons((), Nil()), Cons((), Nil()), Cons((), Nil()))"


def test_graph_binding_used_in_one_branch_runs_only_with_that_branch() -> None:
    """A graph binding is its expression substituted at its uses: when its
    only use is in the branch not taken, it is not evaluated."""
    src = """
    def @main() {
      let %cell = ref(Nil());
      %1 = ref_write(%cell, Cons((), Nil()));
      let %unused = if (False) { %1 } else { () };
      ref_read(%cell)
    }
    """
    assert show(src) == "Nil()"


def test_sequencing_evaluates_the_first_expression_for_its_effect() -> None:
    src = """
    def @main() {
      let %r = ref(None());
      ref_write(%r, Some(5));
      ref_read(%r)
    }
    """
    assert show(src) == "Some(5)"


def test_arguments_are_evaluated_before_the_call() -> None:
    """Strict, call-by-value: an argument the callee ignores still runs."""
    src = """
    def @main() {
      let %r = ref(False);
      let %ignore = fn(%x) { () };
      %ignore(ref_write(%r, True));
      ref_read(%r)
    }
    """
    assert show(src) == "True"


def test_unused_graph_binding_still_runs() -> None:
    src = """
    def @main() {
      let %r = ref(1);
      %1 = ref_write(%r, 2)
      ref_read(%r)
    }
    """
    assert show(src) == "2"


def test_constructors_are_functions() -> None:
    """Seed 002, "ADT Constructors": a constructor can be passed like a function."""
    assert show("def @main() { @map(Some, Cons(1, Cons(2, Nil()))) }") == "Cons(Some(1), Cons(Some(2), Nil()))"


def test_calling_the_result_of_a_call() -> None:
    assert show("def @main() { @compose(Some, Some)(True) }") == "Some(Some(True))"


def test_tvm_dialect_bare_nullary_constructor_is_a_value() -> None:
    """TVM's parser reads a nullary constructor written without `()` as its value."""
    src = '#[version = "0.0.5"]\ndef @main() -> List[int32] {\n  Cons(1, Nil)\n}\n'
    assert show(src) == "Cons(1, Nil())"


def test_tvm_dialect_match_arms() -> None:
    src = """#[version = "0.0.5"]
type Opt[A] {
  Yes(A),
  No,
}
def @main() {
  match (Yes(7)) {
    Yes(%x) => (%x, %x),
    No => (0, 0),
  }
}
"""
    assert show(src) == "(7, 7)"


def test_trailing_expression_is_the_entry() -> None:
    assert show("def @f(%x : bool) -> (bool,) { (%x,) }\n@f(True)") == "(True,)"


def test_references() -> None:
    value = run("def @main() { let %r = ref(1); ref_write(%r, 2); (%r, ref_read(%r)) }")
    assert isinstance(value[0], Ref) and value[0].value == 2 and value[1] == 2
    assert show("def @main() { ref((1, Nil())) }") == "ref((1, Nil()))"


def test_scalar_literals_keep_their_dtypes() -> None:
    value = run("def @main() { (1, 1i64, 2.5, 2.5f64, True, 7u8) }")
    assert [v.dtype.name for v in value] == ["int32", "int64", "float32", "float64", "bool", "uint8"]
    assert show("def @main() { (1, 1i64, 2.5, 2.5f64, True, 7u8, -3) }") == "(1, 1i64, 2.5, 2.5f64, True, 7u8, -3)"


def test_constant_tensor() -> None:
    """Seed 002, "Constant": `Constant(v, shape, dtype)` fills a tensor."""
    value = run("def @main() { Constant(2, (2, 3), int64) }")
    assert isinstance(value, np.ndarray)
    assert value.dtype == np.int64 and value.shape == (2, 3) and (value == 2).all()


def test_closure_value_prints_as_its_signature() -> None:
    assert (
        show("def @main() { fn(%x : int32, %y) -> int32 { %x } }")
        == "fn(%x : Tensor[(), int32], %y : a) -> Tensor[(), int32]"
    )
    assert show("def @main() { @flip }") == "@flip<a, b, c>(%f : fn(a, b) -> c) -> fn(b, a) -> c"
    assert show("def @main() { Cons }") == "Cons : fn(a, List[a]) -> List[a]"


def test_returned_closures_can_be_called_from_python() -> None:
    inc = run("def @main() { fn(%x : Optional[bool]) { Some(%x) } }")
    result = inc(relay_text.run("Some(True)"))
    assert (
        isinstance(result, Data)
        and show("def @main(%v : Optional[Optional[bool]]) { %v }", result) == "Some(Some(True))"
    )


def test_user_definition_shadows_the_prelude() -> None:
    """A program's own `@map` (and its own `List`) win over the Prelude's."""
    src = """
    data List<a> {
      Nil : () -> List
      Cons : (a, List[a]) -> List
    }
    def @map<a, b>(%f : fn(a) -> b, %l : List[a]) -> List[b] { Nil() }
    def @main() { @map(Some, Cons(1, Nil())) }
    """
    assert show(src) == "Nil()"
    # The Prelude's own functions keep using the Prelude's @map.
    assert (
        show("def @map(%x : bool) -> bool { %x }\ndef @main() { @tmap(Some, Rose(1, Nil())) }")
        == "Rose(Some(1), Nil())"
    )


def test_option_is_accepted_as_the_name_of_optional() -> None:
    assert show("def @main(%o : Option[bool]) -> Option[bool] { %o }", relay_text.run("Some(True)")) == "Some(True)"
