"""Syntax slips a reader of the documents or of TVM's output makes, each
with a help line (and, where the text can mean only one thing, its fix);
brackets are called unclosed only when they are."""

from __future__ import annotations

from relay_text.diagnostics import SAFE, UNSAFE
from relay_text.fixes import edits_text
from tests.helpers import diagnostics


def only(text: str):
    (diag,) = [d for d in diagnostics(text) if d.code == "syntax-error"]
    return diag


def fixed(text: str, diag, which: int = 0) -> str:
    return edits_text(text, diag.fixes[which].edits)


def test_an_arrow_in_a_case_clause() -> None:
    """Seed 000 ("Algebraic Data Types in Relay") writes a clause as
    `case Nil() { 0 }`; `=>` belongs to TVM's arms (`Nil => 0`)."""
    text = (
        "def @f(%l : List[int32]) -> int32 {\n  match (%l) {\n    case Nil() => { 0 }\n    case Cons(%h, %t) { "
        "%h }\n  }\n}\n"
    )
    diag = only(text)
    assert diag.location()[1:3] == (3, 16)
    assert diag.helps == [
        (
            "a `case` clause has no `=>`: its body follows the pattern in braces, `case Nil() { 0 }` (`Nil => "
            "0`, without `case`, is TVM's form)"
        )
    ]
    assert diag.fixes[0].applicability == SAFE
    assert "case Nil() { 0 }" in fixed(text, diag)
    # Without braces after it, the body's end is unknown: no edit.
    bare = only("def @f(%l : List[int32]) -> int32 {\n  match (%l) {\n    case Nil() => 0\n  }\n}\n")
    assert bare.helps and bare.fixes == []


def test_a_tensor_shape_without_parentheses() -> None:
    text = "def @f(%x : Tensor[2, 3, float32]) { %x }\n"
    diag = only(text)
    assert diag.location()[1:3] == (1, 20)
    assert diag.helps == ["a tensor type's shape is written in parentheses: `Tensor[(2, 3), float32]`"]
    assert diag.fixes[0].applicability == SAFE
    assert fixed(text, diag) == "def @f(%x : Tensor[(2, 3), float32]) { %x }\n"


def test_a_list_literal_as_a_value() -> None:
    text = "def @main() {\n  @sum([1, 2])\n}\n"
    diag = only(text)
    assert diag.location()[1:3] == (2, 8)
    assert diag.helps == [
        "Relay has no `[...]` values: write a tuple `(1, 2)`, a List `Cons(1, Cons(2, Nil()))`, or a tensor "
        "(`Constant(0, (2, 2), float32)`, or `meta[relay.Constant][0]` with its data in `#[metadata]`)"
    ]
    assert [f.applicability for f in diag.fixes] == [UNSAFE, UNSAFE]
    assert fixed(text, diag, 0) == "def @main() {\n  @sum((1, 2))\n}\n"
    assert fixed(text, diag, 1) == "def @main() {\n  @sum(Cons(1, Cons(2, Nil())))\n}\n"
    # The `(` of the call is closed after the list: it is not called unclosed.
    assert diag.labels == []


def test_a_missing_closing_brace() -> None:
    text = "def @f(%x : int32) {\n  if (%x == 1) {\n    2\n  } else {\n    3\n\ndef @g() { 1 }\n"
    diag = only(text)
    assert diag.location()[1:3] == (7, 1)
    assert [(lab.span.start_line_col, lab.message) for lab in diag.labels] == [((4, 10), "unclosed `{`")]
    assert diag.helps == ["2 `}` are missing: the `{`s on lines 1 and 4 are never closed"]
    assert diag.fixes[0].applicability == UNSAFE
    assert (
        fixed(text, diag)
        == "def @f(%x : int32) {\n  if (%x == 1) {\n    2\n  } else {\n    3\n  }\n}\n\ndef @g() { 1 }\n"
    )
    at_end = only("def @f() {\n  let %a = 1;\n  %a\n")
    assert at_end.helps == ["a `}` is missing: the `{` on line 1 is never closed"]


def test_the_caret_of_a_missing_semicolon_is_where_it_is_missing() -> None:
    diag = only("def @main() {\n  let %a = 1\n  let %b = 2;\n  %b\n}\n")
    assert diag.message == "expected `;`, found `let`"
    assert (diag.location()[1:3], diag.label) == ((2, 13), "expected `;` here")
    assert [(lab.span.start_line_col, lab.message) for lab in diag.labels] == [
        ((3, 3), "the next statement starts here")
    ]
    assert diag.helps == ["add the missing `;`"]


def test_an_unclosed_bracket_is_named_only_when_it_is_never_closed() -> None:
    """`if (%x = 1)`: the `(` is closed; `%x + (1` at the end of a body is not."""
    assert only("def @f(%x : int32) { if (%x = 1) { 2 } else { 3 } }\n").labels == []
    open_paren = only("def @f(%x : int32) {\n  %x + (1\n}\n")
    assert [lab.message for lab in open_paren.labels] == ["unclosed `(`"]
