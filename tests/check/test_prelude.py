"""Checking a module against definitions it does not contain (a prelude)."""

from __future__ import annotations

from relay_text.check import check_module, prelude_env, prelude_result
from relay_text.syntax.builder import Env
from relay_text.syntax.parser import parse
from relay_text.text.type_text import type_text

PRELUDE = """
data List<a> {
  Nil : () -> List
  Cons : (a, List[a]) -> List
}
def @map<a, b>(%f : fn(a) -> b, %l : List[a]) -> List[b] {
  match (%l) {
    case Nil() { Nil() }
    case Cons(%h, %t) { Cons(%f(%h), @map(%f, %t)) }
  }
}
def @length(%l) {
  match (%l) {
    case Nil() { 0 }
    case Cons(_, %t) { 1 + @length(%t) }
  }
}
"""


def _env(module) -> Env:
    return prelude_env(module)


def _check(user: str):
    prelude_module = parse(PRELUDE, "prelude.rly").module
    prelude = prelude_result(prelude_module)
    assert prelude.ok, [str(d) for d in prelude.diagnostics]
    parsed = parse(user, "user.rly", _env(prelude_module))
    assert parsed.ok, [str(d) for d in parsed.diagnostics]
    return check_module(parsed.module, prelude)


def test_user_module_uses_prelude_functions_polymorphically() -> None:
    result = _check("def @main() { (@map(fn (%x) { %x * 2 }, Cons(1, Nil())), @length(Cons(True, Nil()))) }")
    assert not result.diagnostics
    assert type_text(result.global_type("main")) == "fn() -> (List[Tensor[(), int32]], Tensor[(), int32])"


def test_prelude_data_types_drive_exhaustiveness() -> None:
    result = _check(
        "def @head(%l : List[Tensor[(), int32]]) -> Tensor[(), int32] {\n  match (%l) {\n    case Cons(%h, "
        "_) { %h }\n  }\n}"
    )
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("non-exhaustive-match", "this `match` does not cover every value: `Nil()` is not matched")
    ]


def test_prelude_parameters_are_named_in_mismatches() -> None:
    result = _check("def @main() { @map(1, Nil()) }")
    (d,) = result.diagnostics
    assert d.code == "type-mismatch"
    assert [lab.message for lab in d.labels] == ["parameter `%f` is declared here"]


def test_a_user_definition_with_a_prelude_name_wins() -> None:
    result = _check("def @length(%x : Tensor[(), float32]) -> Tensor[(), float32] { %x }\ndef @main() { @length(1f) }")
    assert not result.diagnostics
    assert type_text(result.global_type("main")) == "fn() -> Tensor[(), float32]"


def test_pipeline_takes_a_prelude_module() -> None:
    from relay_text.ir.span import Source
    from relay_text.pipeline import check_source

    prelude = parse(PRELUDE, "prelude.rly").module
    result = check_source(Source("user.rly", "def @main() { @length(Cons(1, Nil())) }"), prelude)
    assert result.diagnostics == []
    assert result.global_types == {"@main": "fn() -> Tensor[(), int32]"}


def test_prelude_is_checked_once() -> None:
    module = parse(PRELUDE, "prelude.rly").module
    assert prelude_result(module) is prelude_result(module)
