"""A function type may carry a relation: `fn<params>(args) -> ret where R`
(document 001, "Relay's Type System", the section on function types, which
writes the form `fn<type_params>(arg_types) -> ret_type where
type_constraints`). In an annotation the relation constrains the argument
and result types; a `where` in a type names one relation and belongs to the
innermost function type it follows.
"""

from __future__ import annotations

from relay_text.formatter import format_source
from relay_text.ir.span import Source
from relay_text.ir.ty import FuncType, TypeRelation
from relay_text.pipeline import check_source

from .helpers import diagnostics, global_types, located
from tests.helpers import parse_ok

APPLY = """def @apply<t>(%g : fn(t, t) -> t where Broadcast, %a : t) -> t {
  %g(%a, %a)
}
"""


def test_a_relation_in_a_written_function_type_is_read() -> None:
    module = parse_ok(APPLY)
    (func,) = module.functions.values()
    ty = func.params[0].type_annotation
    assert isinstance(ty, FuncType)
    (rel,) = ty.type_constraints
    assert isinstance(rel, TypeRelation)
    assert (rel.name, rel.num_inputs, rel.args) == ("Broadcast", 2, (*ty.arg_types, ty.ret_type))
    assert rel.span is not None and rel.span.text == "Broadcast"


def test_the_type_is_shown_with_its_relation() -> None:
    assert global_types(APPLY) == {"@apply": "fn<t>(fn(t, t) -> t where Broadcast, t) -> t"}


def test_a_relation_that_holds_checks() -> None:
    text = (
        "def @f(%g : fn(Tensor[(2, 1), float32], Tensor[(1, 3), float32]) -> Tensor[(2, 3), float32] where "
        "Broadcast) { %g }\n"
    )
    assert global_types(text)["@f"].endswith(
        "-> Tensor[(2, 3), float32] where Broadcast) -> fn(Tensor[(2, 1), float32], Tensor[(1, 3), "
        "float32]) -> Tensor[(2, 3), float32] where Broadcast"
    )


def test_a_relation_that_fails_is_reported_at_its_name() -> None:
    text = (
        "def @f(%g : fn(Tensor[(2), float32], Tensor[(3), float32]) -> Tensor[(2), float32] where Broadcast) { %g }\n"
    )
    (diag,) = diagnostics(text)
    assert (diag.code, diag.span.text, diag.message) == (
        "shape-mismatch",
        "Broadcast",
        "cannot broadcast shapes (2) and (3)",
    )


def test_an_unknown_relation_in_a_type() -> None:
    (diag,) = diagnostics("def @f(%g : fn(int32) -> int32 where Broadcats) { %g }\n")
    assert (diag.code, diag.span.text, diag.helps) == ("unknown-relation", "Broadcats", ["did you mean `Broadcast`?"])


def test_a_free_variable_type_is_checked_without_an_expression() -> None:
    """A module of declarations only: each written type is still checked
    (an unknown relation there went unreported; a fuzzer finding)."""
    (diag,) = diagnostics("free_var %g : fn(int32) -> _ where Broadcats;\nfree_var %h;\n")
    assert (diag.code, diag.span.text, diag.helps) == ("unknown-relation", "Broadcats", ["did you mean `Broadcast`?"])
    (diag,) = diagnostics("free_var %g : fn(int32, float32) -> int32 where Broadcast;\n")
    assert (diag.code, diag.span.text) == ("type-mismatch", "Broadcast")
    assert diagnostics("free_var %g : fn(int32, int32) -> int32 where Broadcast;\n") == []


def test_a_relation_of_the_wrong_arity_in_a_type() -> None:
    (diag,) = diagnostics("def @f(%g : fn(int32) -> int32 where Broadcast) { %g }\n")
    assert (diag.code, diag.span.text) == ("arity-mismatch", "Broadcast")
    assert diag.message == "`Broadcast` relates 2 inputs to a result, but this function type has 1 parameter"


def test_where_in_a_type_names_one_relation() -> None:
    assert located("def @a(%g : fn(int32) -> int32 where Identity, Identity) { %g }\n") == [("syntax-error", 1, 48)]
    (diag,) = diagnostics("def @a(%g : fn(int32) -> int32 where Identity, Identity) { %g }\n")
    assert diag.helps == ["a `where` inside a function type names one relation (a `,` after it ends the type)"]


def test_a_function_returning_a_function_type_keeps_its_own_where() -> None:
    """`-> (fn(t) -> t) where R`: the parentheses give the relation to the
    definition; the formatter keeps them, and `--types` shows them."""
    text = "def @k<t>(%x : t) -> (fn(t) -> t) where Identity {\n  fn (%y : t) { %y }\n}\n"
    assert global_types(text) == {"@k": "fn<t>(t) -> (fn(t) -> t) where Identity"}
    (func,) = parse_ok(text).functions.values()
    assert [r.name for r in func.relations] == ["Identity"] and func.ret_type.type_constraints == ()
    formatted = format_source(Source("t.rly", text)).text
    assert formatted == text
    assert check_source(Source("t.rly", formatted)).global_types == check_source(Source("t.rly", text)).global_types


def test_a_long_function_type_breaks_its_arguments_before_its_result() -> None:
    text = (
        "def @main() {\n"
        "  let %h : fn(Tensor[(2, 1), float32], Tensor[(1, 3), float32]) -> Tensor[(2, 3), float32] where Broadcast"
        " = fn (%x, %y) { add(%x, %y) };\n  %h\n}\n"
    )
    assert format_source(Source("t.rly", text)).text == (
        "def @main() {\n"
        "  let %h :\n"
        "    fn(\n"
        "      Tensor[(2, 1), float32],\n"
        "      Tensor[(1, 3), float32]\n"
        "    ) -> Tensor[(2, 3), float32] where Broadcast = fn (%x, %y) { add(%x, %y) };\n"
        "  %h\n"
        "}\n"
    )
