"""What the lexer records around each comment (its trivia) and the positions
the parser records for the comments' anchors: the formatter places comments
from these alone."""

from __future__ import annotations

from relay_text.formatter import format
from relay_text.ir.expr import Call
from relay_text.ir.positions import Trivia, read_trivia
from relay_text.ir.span import Source
from relay_text.syntax.lexer import Tokens
from relay_text.syntax.parser import _parser
from tests.helpers import parse_ok


def lexed(text: str) -> Tokens:
    tokens = Tokens(Source("t", text), _parser()[2])
    list(tokens)
    return tokens


def trivia_of(text: str) -> list[Trivia]:
    return read_trivia(text, lexed(text).sites)


def test_the_tokens_on_either_side_of_a_comment() -> None:
    text = "def @f(%x) {\n  add(%x, /* a */ %x)\n}\n"
    (trivia,) = trivia_of(text)
    at = text.index("/* a */")
    comma = text.index(",", text.index("add"))
    assert trivia.before == (comma, comma + 1, ",")
    assert trivia.before2_end == text.index("%x,") + 2
    assert trivia.after == [(at + 8, at + 10, "%x"), (at + 10, at + 11, ")")]  # (no `%x =` follows)
    assert (trivia.own_line, trivia.blank_before, trivia.ends_line, trivia.blank_after) == (False, False, False, False)


def test_line_breaks_and_empty_lines_around_comments() -> None:
    text = "def @f() {\n  1\n\n  // a\n  // b\n\n  /* c */ 2\n}  # d\n\n"
    a, b, c, d = trivia_of(text)
    assert (a.own_line, a.blank_before, a.ends_line, a.blank_after) == (True, True, True, True)
    assert (b.own_line, b.blank_before, b.ends_line, b.blank_after) == (True, False, True, True)
    assert (c.own_line, c.blank_before, c.ends_line, c.blank_after) == (True, True, False, False)
    assert (d.own_line, d.ends_line, d.blank_after, d.after) == (False, True, True, [])
    assert a.before == b.before == (text.index("1"), text.index("1") + 1, "1")
    two = text.index("2")
    assert a.after == b.after == c.after == [(two, two + 1, "2")]


def test_a_comment_before_the_metadata_section_has_no_code_after_it() -> None:
    text = '#[version = "0.0.5"]\n\ndef @main() { 1 }\n// last\n#[metadata]\n{}\n'
    tokens = lexed(text)
    (trivia,) = read_trivia(text, tokens.sites)
    assert trivia.after == [] and trivia.own_line
    assert tokens.blank_after_header
    assert text.index("def") in tokens.blank_lines


def test_the_tokens_after_a_comment_that_may_precede_a_graph_binding() -> None:
    text = '#[version = "0.0.5"]\ndef @f(%x: int32) {\n  // a\n  %0 = add(%x, 1);\n  %0\n}\n'
    (trivia,) = trivia_of(text)
    at = text.index("%0 =")
    assert trivia.after == [(at, at + 2, "%0"), (at + 3, at + 4, "="), (at + 5, at + 8, "add")]


def test_the_first_comment_of_a_file() -> None:
    (first,) = trivia_of("\n// top\ndef @f() { 1 }")
    assert (first.own_line, first.blank_before, first.before, first.before2_end) == (True, True, None, -1)


def test_where_each_use_is_named_and_each_binder_ends() -> None:
    text = "def @f(%x: Tensor[(2), float32], %y) {\n  add((%x), { %y })\n}\n"
    m = parse_ok(text)
    func = next(iter(m.functions.values()))
    call = func.body
    assert isinstance(call, Call)
    names = m.positions.names
    assert names[(id(call), 1)] == (text.index("%x)"), text.index("%x)") + 2)
    assert names[(id(call), 2)] == (text.index("%y }"), text.index("%y }") + 2)
    x, y = func.params
    assert m.positions.binders[id(x)] == (text.index("%x"), text.index("float32]") + len("float32]"))
    assert m.positions.binders[id(y)] == (text.index("%y"), text.index("%y") + 2)


def test_a_free_variable_declaration_starts_at_its_keyword() -> None:
    text = "free_var %z: int32;\nadd(%z, 1)\n"
    m = parse_ok(text)
    (z,) = m.free_vars
    assert m.positions.binders[id(z)] == (0, text.index(";"))


def test_graph_bindings_and_their_values() -> None:
    text = (
        '#[version = "0.0.5"]\ndef @main(%x: int32) {\n  %0 = add(%x, 1);\n  %1 = (\n    multiply(%0, %0));\n  %1\n}\n'
    )
    m = parse_ok(text)
    heads = m.positions.graph_heads
    assert heads[text.index("add")] == text.index("%0 =")
    assert heads[text.index("(\n")] == text.index("%1 =")  # the value with its brackets
    assert m.positions.graph_inner == {text.index("multiply"): text.index("%1 =")}  # inside them


def test_an_empty_line_above_a_binding_whose_value_is_on_the_next_line() -> None:
    text = (
        '#[version = "0.0.5"]\ndef @main(%x: int32) {\n  %0 = add(%x, 1);\n\n  %1 =\n    multiply(%0, %0);\n  %1\n}\n'
    )
    assert format(text) == (
        '#[version = "0.0.5"]\ndef @main(%x: int32) {\n  %0 = add(%x, 1);\n\n  %1 = multiply(%0, %0);\n  %1\n}\n'
    )


def test_comments_in_and_after_a_constructors_brackets_trail_it() -> None:
    text = (
        '#[version = "0.0.5"]\ntype T {\n  A,\n  B(int32) /* b */,\n  C(\n    int32\n    // in C\n  ),\n}\n'
        "def @f(%t: T) { %t }\n"
    )
    assert format(text) == (
        '#[version = "0.0.5"]\ntype T {\n  A,\n  B(int32), /* b */\n  C(int32),  // in C\n}\n\n'
        "def @f(%t: T) {\n  %t\n}\n"
    )


def test_a_comment_beside_a_binding_that_names_a_variable_stays_at_that_use() -> None:
    text = (
        '#[version = "0.0.5"]\ndef @main(%x: int32) {\n  %0 = %x;\n  %1 = add(\n    %0,  // the alias\n    '
        "1);\n  %1\n}\n"
    )
    # the alias `%0` of `%x` is kept where the source used it
    assert format(text) == (
        '#[version = "0.0.5"]\ndef @main(%x: int32) {\n  %0 = %x;\n  %1 = add(\n    %0,  // the alias\n    '
        "1\n  );\n  %1\n}\n"
    )


def test_a_comment_inside_an_annotation_with_commas_stays_with_its_parameter() -> None:
    text = "def @f(%g: fn<a, /* two */ b>(a) -> b, %y: int32) {\n  %y\n}\n"
    assert format(text) == "def @f(%g : fn<a, b>(a) -> b /* two */, %y : int32) {\n  %y\n}\n"


def test_a_comment_before_the_colon_of_an_annotation_stays_with_its_parameter() -> None:
    text = "def @f(%x\n  // the input\n  : int32) {\n  %x\n}\n"
    assert format(text) == "def @f(\n  %x : int32  // the input\n) {\n  %x\n}\n"
