"""Where comments go: attached to the code they belong to, printed beside it.

Every case formats twice (the safety checks run), so a placement that would
not read back the same way fails here."""

from __future__ import annotations

import pytest

from relay_text.formatter import format
from relay_text.printer.comments import attach
from tests.helpers import parse_ok


def fmt(text: str, **options) -> str:
    out = format(text, **options)
    assert format(out, **{k: v for k, v in options.items() if k != "dialect"}) == out
    return out


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # A comment on its own line leads the statement after it.
        ("def @f(%x) {\n  // first\n  let %y = %x;\n  %y\n}\n", "def @f(%x) {\n  // first\n  let %y = %x;\n  %y\n}\n"),
        # A comment ending a line trails what is before it, after the `;`.
        ("def @f(%x) {\n  let %y = %x;   // copy\n  %y\n}\n", "def @f(%x) {\n  let %y = %x;  // copy\n  %y\n}\n"),
        # Before the `;` a block comment stays before it.
        ("def @f(%x) {\n  let %y = %x /* ty */;\n  %y\n}\n", "def @f(%x) {\n  let %y = %x /* ty */;\n  %y\n}\n"),
        # The last comment of a block stays in the block.
        ("def @f(%x) {\n  %x\n  // done\n}\n", "def @f(%x) {\n  %x\n  // done\n}\n"),
        # After a `{` on the same line: it leads the first statement.
        ("def @f(%x) { // body\n  %x\n}\n", "def @f(%x) {\n  // body\n  %x\n}\n"),
        # Between arguments, after the comma.
        ("def @f(%x) {\n  g(%x, // first\n    %x)\n}\n", "def @f(%x) {\n  g(\n    %x,  // first\n    %x\n  )\n}\n"),
        # Inline before an argument.
        ("def @f(%x) { g(/* a */ %x, /* b */ 1) }", "def @f(%x) {\n  g(/* a */ %x, /* b */ 1)\n}\n"),
        # Inside a type annotation: printed after the parameter.
        (
            "def @f(%x : Tensor[(1, /* rows */ 2), float32]) { %x }",
            "def @f(%x : Tensor[(1, 2), float32] /* rows */) {\n  %x\n}\n",
        ),
        # At the end of the file.
        ("def @f() { 1 }\n\n// trailing\n", "def @f() {\n  1\n}\n\n// trailing\n"),
        # Empty lines between statements are kept (one at most).
        (
            "def @f(%x) {\n  let %a = %x;\n\n\n  let %b = %a;\n  %b\n}\n",
            "def @f(%x) {\n  let %a = %x;\n\n  let %b = %a;\n  %b\n}\n",
        ),
    ],
)
def test_placement(source: str, expected: str) -> None:
    assert fmt(source) == expected


def test_type_annotations_of_tvm_stay_beside_what_they_annotate() -> None:
    source = '#[version = "0.0.5"]\ndef @f(%i: int32) {\n  %0 = add(%i, 1 /* ty=int32 */) /* ty=int32 */;\n  %0\n}\n'
    assert fmt(source) == source


def test_hash_comments_become_slash_comments_in_tvm_text() -> None:
    """`#` starts a comment only in the documented dialect."""
    out = fmt("# about f\ndef @f(%x) { %x }  # identity\n", dialect="tvm")
    assert out == '#[version = "0.0.5"]\n// about f\ndef @f(%x) {\n  %x\n}  // identity\n'


def test_a_graph_binding_stays_a_binding_with_its_name() -> None:
    """A binding the user wrote keeps its place and its number, with or without a comment."""
    source = "def @f(%x) {\n  %1 = %x * 2;  // double\n  %1 + 1\n}\n"
    assert fmt(source) == source
    assert fmt("def @f(%x) {\n  %1 = %x * 2;\n  %1 + 1\n}\n") == "def @f(%x) {\n  %1 = %x * 2;\n  %1 + 1\n}\n"


def test_a_commented_operand_stays_inline_in_tvm_text() -> None:
    """Hoisting it would move its comment before the others of its statement."""
    source = '#[version = "0.0.5"]\ndef @f(%x) {\n  add(/* a */ %x, multiply(%x, 2) /* b */)\n}\n'
    assert fmt(source) == source


def test_nested_block_comments_survive() -> None:
    source = "/* outer /* inner */ still outer */\ndef @f() {\n  1\n}\n"
    assert fmt(source) == source


def test_every_comment_is_attached_once() -> None:
    module = parse_ok("// a\ndef @f(%x /* b */, %y) { // c\n  %x // d\n} // e\n/* f */\n")
    comments = attach(module)
    notes = [n.index for entry in comments.by_key.values() for n in entry.all()] + [n.index for n in comments.eof]
    assert sorted(notes) == list(range(6))


def test_a_comment_moved_into_a_shared_block_formats_stably() -> None:
    """A comment after a body's `{`, then an empty line, then a block bound
    to a temporary: the comment leads the block's first statement, and the
    empty line (which was above `%0 = {`, not above that statement) is not
    carried inside, so a second pass changes nothing."""
    text = "def @f(%x) {  // c1\n\n  %0 = {\n    %x;\n    %x\n  };\n  %0 + %0\n}\n"
    expected = "def @f(%x) {\n  %0 = {\n    // c1\n    %x;\n    %x\n  };\n  %0 + %0\n}\n"
    assert fmt(text) == expected
    assert fmt(expected) == expected


@pytest.mark.parametrize(
    "text",
    [
        '#[version = "0.0.5"]\ndef @f(%p) {\n  match? (%p) {\n    (/* c0 */ %x: float32,) => 1,\n  }\n}\n',
        '#[version = "0.0.5"]\ndef @f(%p) {\n  match? (%p) {\n    ( /* c0 */%x: float32,) => 1,\n  }\n}\n',
    ],
    ids=["comment-right-after-paren", "space-before-comment"],
)
def test_a_comment_inside_a_tuple_pattern_stays_inside(text: str) -> None:
    """A tuple pattern's span starts at its `(`, even when a comment follows
    it, so the comment leads the variable in both spellings and a second
    pass changes nothing."""
    expected = '#[version = "0.0.5"]\ndef @f(%p) {\n  match? (%p) {\n    (/* c0 */ %x: float32,) => 1,\n  }\n}\n'
    assert fmt(text) == expected


def test_tuple_pattern_and_tuple_type_spans_start_at_their_parenthesis() -> None:
    text = "def @f(%p : (/* a */ int32, int32)) {\n  match (%p) {\n    case (/* b */ %x, %y) { %x }\n  }\n}\n"
    module = parse_ok(text)
    fn = next(iter(module.functions.values()))
    annotation = fn.params[0].type_annotation
    pattern = fn.body.clauses[0].pattern
    assert text[annotation.span.start : annotation.span.end] == "(/* a */ int32, int32)"
    assert text[pattern.span.start : pattern.span.end] == "(/* b */ %x, %y)"


@pytest.mark.parametrize(
    "text",
    [
        "def @main(%x) {\n  negative((let %y = %x; %y) /* c1 */)\n}\n",
        "def @main(%x) {\n  negative({\n    let %y = %x;\n    %y\n  } /* c1 */)\n}\n",
    ],
    ids=["parenthesised", "braced"],
)
def test_a_comment_after_a_block_operand_follows_the_whole_block(text: str) -> None:
    """The comment is written after the block's closing bracket, so it stays
    there instead of moving inside after the block's last expression."""
    expected = "def @main(%x) {\n  negative(\n    {\n      let %y = %x;\n      %y\n    } /* c1 */\n  )\n}\n"
    assert fmt(text) == expected
    assert fmt(expected) == expected


@pytest.mark.parametrize("closing", ["}) /* c0 */ +", "} /* c0 */) +"], ids=["after-parenthesis", "after-brace"])
def test_a_comment_after_a_parenthesised_block_operand_is_stable(closing: str) -> None:
    """`({ ... }) /* c */ + x` and `({ ... } /* c */) + x` are the same place:
    both print the second way, which formats to itself."""
    text = "def @f(%x) {\n  ({\n    %x;\n    -1\n  " + closing + " %x\n}\n"
    expected = "def @f(%x) {\n  ({\n    %x;\n    -1\n  } /* c0 */) +\n    %x\n}\n"
    assert fmt(text) == expected
    assert fmt(expected) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the tail `%0` names the binding `%0 = -%x`, written far above it
        (
            '#[version = "0.0.5"]\nfree_var %x;\n%0\n =\n -%x;\n%0\n;\n\n%0\n',
            '#[version = "0.0.5"]\nfree_var %x;\n\n%0 = -%x;\n%0;\n\n%0\n',
        ),
        (
            '#[version = "0.0.5"]\nfree_var %x;\n%0 = -%x;\n%0;\n%0\n',
            '#[version = "0.0.5"]\nfree_var %x;\n\n%0 = -%x;\n%0;\n%0\n',
        ),
    ],
    ids=["empty-line-kept", "no-empty-line"],
)
def test_the_empty_line_before_a_shared_tail_is_where_the_tail_is_written(text: str, expected: str) -> None:
    """Whether an empty line goes before a scope's final expression depends
    on the place that expression is written, not on its binding site (for a
    graph-bound node they differ), so a second pass changes nothing."""
    assert fmt(text) == expected
