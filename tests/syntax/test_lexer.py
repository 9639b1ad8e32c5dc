"""The tokenizer: terminals that depend on context, numbers, comments."""

from __future__ import annotations

import pytest

from relay_text.ir.span import Source
from relay_text.syntax.lexer import LexError, Tokens
from relay_text.syntax.parser import _parser


def kinds():
    return _parser()[2]


def lex(text: str) -> list[tuple[str, str]]:
    return [(t.type, t.value) for t in Tokens(Source("t", text), kinds())]


def types(text: str) -> list[str]:
    return [t for t, _ in lex(text)]


class TestAngleBrackets:
    """DESIGN.md, grammar traps: `<` after a callee versus less-than."""

    def test_spaced_comparison_is_less_than(self) -> None:
        assert types("%a < %b") == ["LOCAL", "LT", "LOCAL"]

    def test_glued_comparison_with_local_is_less_than(self) -> None:
        assert types("%a<%b") == ["LOCAL", "LT", "LOCAL"]

    def test_glued_comparison_with_number_is_less_than(self) -> None:
        assert types("%a<3") == ["LOCAL", "LT", "INT"]

    def test_number_closed_by_angle_and_call_is_a_type_argument(self) -> None:
        """seed 002, "Call": explicit type arguments; a dimension is written
        bare, `@g<3>(...)`, when `>` and the call's `(` close the list."""
        assert types("@g<3>(%x)")[:4] == ["GLOBAL", "LANGLE", "INT", types("a > b")[1]]
        assert types("%g<3, (2, 2)>(%x)")[:3] == ["LOCAL", "LANGLE", "INT"]

    def test_number_that_is_not_closed_so_stays_a_comparison(self) -> None:
        assert types("(%a<3) > (%b)")[:3] == ["LPAR", "LOCAL", "LT"]
        assert types("%a<3 && %b > (%c)")[:2] == ["LOCAL", "LT"]
        assert types("%a<3 > %b")[:2] == ["LOCAL", "LT"]

    def test_type_arguments_after_global(self) -> None:
        assert types("@f<a>(%x)")[:3] == ["GLOBAL", "LANGLE", "IDENT"]

    def test_type_arguments_after_local(self) -> None:
        assert types("%f<Tensor[(), bool]>(True)")[:3] == ["LOCAL", "LANGLE", "TENSOR"]

    def test_type_parameters_after_fn_even_with_space(self) -> None:
        assert types("fn <t : Type>(%x : t) { %x }")[:2] == ["FN", "LANGLE"]

    def test_type_parameters_after_defined_name_with_space(self) -> None:
        assert types("def @f <a>(%x : a) { %x }")[:3] == ["DEF", "GLOBAL", "LANGLE"]
        assert types("data D <a> { }")[:3] == ["DATA", "IDENT", "LANGLE"]

    def test_less_equal_is_one_token(self) -> None:
        assert types("%a<=%b") == ["LOCAL", "LE", "LOCAL"]


class TestNames:
    def test_dotted_operator_name(self) -> None:
        assert lex("nn.conv2d") == [("IDENT", "nn.conv2d")]

    def test_dotted_local_names_are_single_tokens(self) -> None:
        # Whether `.15` is part of the name or a projection is decided by scope.
        assert lex("%a.15") == [("LOCAL", "%a.15")]
        assert lex("%4.10") == [("LOCAL", "%4.10")]
        assert lex("%x.0.1") == [("LOCAL", "%x.0.1")]

    def test_projection_after_call(self) -> None:
        assert types("%f(%x).0.1") == ["LOCAL", "LPAR", "LOCAL", "RPAR", "PROJ", "PROJ"]

    def test_attribute_key_is_not_an_operator_name(self) -> None:
        assert types("f(%x, padding=[1])")[4:6] == ["ATTR_KEY", "EQUAL"]

    def test_fat_arrow_is_not_an_attribute(self) -> None:
        assert types("(Nil => 1)")[1:3] == ["IDENT", "FAT_ARROW"]

    def test_where_keyword_versus_operator(self) -> None:
        assert types("where Broadcast")[0] == "WHERE"
        assert types("where(%c, %a, %b)")[0] == "IDENT"
        assert types("where /* c */ Broadcast")[0] == "WHERE"
        # a constructor named `where` (TVM's `type a { where() }` printed in
        # the documented form): a name, not the keyword
        assert types("where : () -> a")[0] == "IDENT"
        assert types("where, B")[0] == "IDENT"
        assert types("where }")[0] == "IDENT"
        # a type named `where` where a type begins, whatever follows it
        assert types("-> where\n  n")[1] == "IDENT"
        assert types("data where {")[1] == "IDENT"
        assert types("(%x : where, %y : where)")[3] == "IDENT"
        assert types("-> where where Broadcast")[1:3] == ["IDENT", "WHERE"]

    def test_partial_match(self) -> None:
        assert lex("match? (%x)")[0] == ("MATCH", "match?")
        assert lex("match (%x)")[0] == ("MATCH", "match")


class TestNumbers:
    @pytest.mark.parametrize(
        "text,kind",
        [
            ("1", "INT"),
            ("7i64", "INT"),
            ("3u8", "INT"),
            ("1.0", "FLOAT"),
            ("1f", "FLOAT"),
            ("2f64", "FLOAT"),
            ("1e-05f", "FLOAT"),
            ("2.5e3", "FLOAT"),
            ("inff", "FLOAT"),
            ("nanf32", "FLOAT"),
        ],
    )
    def test_number_kinds(self, text: str, kind: str) -> None:
        assert lex(text) == [(kind, text)]

    def test_minus_is_always_its_own_token(self) -> None:
        assert types("1-2") == ["INT", "MINUS", "INT"]
        assert types("-1") == ["MINUS", "INT"]

    def test_bad_suffix_is_an_invalid_literal(self) -> None:
        with pytest.raises(LexError) as info:
            lex("1f8")
        assert info.value.code == "invalid-literal"
        assert (info.value.start, info.value.end) == (0, 3)

    def test_inf_without_suffix_is_a_name(self) -> None:
        assert lex("inf") == [("IDENT", "inf")]


class TestComments:
    def comments(self, text: str) -> list[str]:
        toks = Tokens(Source("t", text), kinds())
        list(toks)
        return [c.text for c in toks.comments]

    def test_all_three_styles_are_kept(self) -> None:
        text = "// line\n# hash\n/* block */ 1"
        assert self.comments(text) == ["// line", "# hash", "/* block */"]

    def test_block_comments_nest(self) -> None:
        assert self.comments("/* a /* b */ c */ 1") == ["/* a /* b */ c */"]
        assert types("/* a /* b */ c */ 1") == ["INT"]

    def test_unterminated_block_comment(self) -> None:
        with pytest.raises(LexError) as info:
            lex("1 /* a /* b */")
        assert info.value.message == "unterminated block comment"
        assert info.value.start == 2

    def test_version_header_and_metadata(self) -> None:
        text = '#[version = "0.0.5"]\n1\n#[metadata]\n{"a": 1}\n'
        assert lex(text) == [("VERSION", "0.0.5"), ("INT", "1"), ("METADATA", '\n{"a": 1}\n')]

    def test_old_version_line(self) -> None:
        assert lex("v0.0.4\n1")[0] == ("VERSION", "0.0.4")

    def test_misplaced_version_header(self) -> None:
        with pytest.raises(LexError) as info:
            lex('1\n#[version = "0.0.5"]')
        assert info.value.message == "the version header must come before everything but comments"
        assert (info.value.start, info.value.end) == (2, 22)

    def test_version_header_after_blanks_and_comments(self) -> None:
        """TVM's tokenizer skips whitespace and comments before the header
        (its std/*.rly files open with the licence); so do we, keeping the comments."""
        tokens = Tokens(Source("t.rly", '  /* licence /* nested */ */\n// more\n#[version = "0.0.5"]\n1'), kinds())
        assert [(t.type, t.value) for t in tokens] == [("VERSION", "0.0.5"), ("INT", "1")]
        assert [c.text for c in tokens.comments] == ["/* licence /* nested */ */", "// more"]
        assert tokens.version == ("0.0.5", 37, 57)

    def test_old_version_line_after_a_comment(self) -> None:
        assert lex("// a model\n  v0.0.4\n1") == [("VERSION", "0.0.4"), ("INT", "1")]


def test_equal_comments_share_one_string() -> None:
    """A dump repeats its `/* ty=... */` comments: each keeps its own span,
    equal texts are one string."""
    from relay_text.syntax.parser import parse

    text = "def @f(%x: int32) {\n  %0 = add(%x, 1) /* ty=int32 */;\n  %1 = add(%0, 1) /* ty=int32 */;\n  %1 // end\n}\n"
    module = parse(text).module
    assert module is not None
    first, second, last = module.comments
    assert (first.text, first.span.start, first.span.end) == ("/* ty=int32 */", 38, 52)
    assert (second.text, second.span.start, second.span.end) == ("/* ty=int32 */", 72, 86)
    assert first.text is second.text
    assert last.text == "// end"
