"""The checker's parts and its messages, tested on their own.

`Checker` (infer.py) builds a `CheckState` and hands it to one class per
concern; the texts of their diagnostics come from `messages.py`. These
tests hold the parts to that shape and pin the message functions and the
shared state's reporting directly."""

from __future__ import annotations

import re
from pathlib import Path

from relay_text.check import messages, operator_messages
from relay_text.check.explain import Explainer
from relay_text.check.infer import Checker
from relay_text.check.constraint import RelationError
from relay_text.check.state import CheckState
from relay_text.diagnostics import WARNING, codes
from relay_text.ir.ty import TensorType
from relay_text.syntax.parser import parse

CHECK = Path(__file__).resolve().parents[2] / "relay_text" / "check"
# The parts, which decide what is wrong; messages.py and explain.py say it
# (kinds.py reports on written types on its own).
PARTS = [
    "infer",
    "binders",
    "matching",
    "operators",
    "polymorphism",
    "unresolved",
    "declarations",
    "constants",
    "annotations",
    "state",
]


def _module(text: str):  # type: ignore[no-untyped-def]
    parsed = parse(text, "test.rly")
    assert parsed.module is not None
    return parsed.module


def test_every_module_of_the_checker_is_under_500_lines() -> None:
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in CHECK.glob("*.py")}
    assert {name: n for name, n in sizes.items() if n >= 500} == {}


def test_the_parts_build_no_diagnostic_and_write_no_code() -> None:
    for name in PARTS:
        source = (CHECK / f"{name}.py").read_text(encoding="utf-8")
        assert "Diagnostic(" not in source, name
        assert re.search(r"codes\.[A-Z_]+", source) is None or name == "operators", name
        assert "Mixin" not in source, name


def test_the_checker_has_its_parts_and_they_share_one_state() -> None:
    checker = Checker(_module("def @main() { 1 }"))
    st = checker.state
    assert isinstance(st, CheckState)
    parts = [
        checker.annotations,
        checker.polymorphism,
        checker.declarations,
        checker.binders,
        checker.matcher,
        checker.operators,
        checker.constants,
        checker.unresolved,
    ]
    assert all(part.state is st for part in parts)
    assert st.memo is checker.memo
    assert st.unifier.instantiate == checker.polymorphism.instance
    result = checker.check_module()
    assert result.diagnostics == [] and st.diags is result.diagnostics


def test_a_diagnostic_counts_against_the_definition_being_checked() -> None:
    st = Checker(_module("def @main() { 1 }")).state
    owner, other = object(), object()
    st.owner = owner
    assert st.expect(TensorType((), "int32"), TensorType((), "float32"), None) is False
    (diag,) = st.diags
    assert (diag.code, diag.message) == (
        codes.TYPE_MISMATCH,
        "mismatched types: expected `Tensor[(), float32]`, found `Tensor[(), int32]`",
    )
    st.error_in(other, operator_messages.unknown_operator("nope", None))
    assert st.owner is owner
    assert st.error_owners == {id(owner), id(other)}
    st.error(operator_messages.renamed_operator("old", "new", 1, None))  # a warning: no owner is marked
    assert st.error_owners == {id(owner), id(other)}


def test_local_names_are_counted_per_binder() -> None:
    st = Checker(_module("def @main() { 1 }")).state
    st.bind_name("x")
    st.bind_name("x")
    st.unbind_name("x")
    assert st.locals == {"x": 1}
    st.unbind_name("x")
    assert st.locals == {}


def test_literal_spelling() -> None:
    assert messages.literal_spelling(1, "float32", "docs") == ("write `1.0` for a float32 literal", "1.0")
    assert messages.literal_spelling(1, "float32", "tvm") == ("write `1.0f` for a float32 literal", "1.0f")
    assert messages.literal_spelling(2.5, "float64", "docs") == ("write `2.5f64` for a float64 literal", "2.5f64")
    assert messages.literal_spelling(3.0, "int64", "docs") == ("write `3i64` for an int64 literal", "3i64")
    assert messages.literal_spelling(3, "uint8", "tvm") == ("write `3u8` for an uint8 literal", "3u8")
    assert messages.literal_spelling(2.5, "int32", "docs") is None


def test_counts_are_spelled_in_the_singular_and_plural() -> None:
    one = messages.call_arity(None, 1, 1, None)
    two = messages.call_arity(None, 2, 3, None)
    assert (one.message, one.label) == ("this expression takes 1 argument, but 1 was given", "expected 1 argument")
    assert (two.message, two.label) == ("this expression takes 2 arguments, but 3 were given", "expected 2 arguments")
    assert two.code is codes.ARITY_MISMATCH


def test_unresolved_constants_name_their_indices_as_ranges() -> None:
    diag = messages.unresolved_constants([0, 1, 2, 5, 7, 8], None)
    assert diag.message == "cannot infer the types of 6 constants (`meta[relay.Constant][0]` and others)"
    assert diag.severity == WARNING
    assert diag.notes[0] == "the constants are meta[relay.Constant][...] with indices 0-2, 5, 7-8"
    assert messages.unresolved_constants([4], None).message == "cannot infer the type of `meta[relay.Constant][4]`"


def test_type_argument_help_gives_an_example_of_each_kind() -> None:
    from relay_text.ir.ty import Kind, TypeVar

    params = (TypeVar("a", Kind.TYPE), TypeVar("n", Kind.SHAPE_VAR))
    assert messages.type_arguments_help("`@f`", params, params[1]) == (
        "give the type arguments explicitly, e.g. `@f<Tensor[(), int32], 3>(...)` (`n` is a dimension (ShapeVar))"
    )


def test_a_relation_failure_with_a_message_keeps_its_code_notes_and_label() -> None:
    exc = RelationError(
        codes.TYPE_MISMATCH, "the shapes do not broadcast", arg=1, notes=["axis 0: 2 and 3"], label="here"
    )
    diag = Explainer("docs").relation_failure(None, exc)
    assert (diag.code, diag.message, diag.label, diag.notes) == (
        codes.TYPE_MISMATCH,
        "the shapes do not broadcast",
        "here",
        ["axis 0: 2 and 3"],
    )


def test_a_relation_failure_with_types_is_a_mismatch_under_the_relation_code() -> None:
    exc = RelationError(
        codes.TYPE_MISMATCH, "", expected=TensorType((2,), "float32"), found=TensorType((3,), "float32")
    )
    diag = Explainer("docs").relation_failure(None, exc)
    assert diag.code is codes.TYPE_MISMATCH
    assert diag.message == "mismatched types: expected `Tensor[(2), float32]`, found `Tensor[(3), float32]`"
