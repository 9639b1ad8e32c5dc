"""Turning a parse failure into a located diagnostic that says what was expected.

The message names the unexpected token and, in words, what could have come
instead; an unclosed or mismatched bracket is pointed at where it was
opened; a few well-known mistakes get a hint.
"""

from __future__ import annotations

import re

from ..diagnostics import UNSAFE, Diagnostic, Edit, Fix, codes
from ..ir.span import Source, Span
from ..text.suggest import or_list
from .lexer import LexError, Tok, Tokens

OPENERS = {"LPAR": ")", "LSQB": "]", "LBRACE": "}"}
CLOSERS = {"RPAR": "(", "RSQB": "[", "RBRACE": "{"}

# What a terminal means, for "expected ..." messages.
TERMINAL_WORDS = {
    "LOCAL": "a local variable (`%x`)",
    "GLOBAL": "a global (`@f`)",
    "IDENT": "a name",
    "ATTR_KEY": "an attribute (`key=value`)",
    "INT": "an integer",
    "FLOAT": "a float",
    "STRING": "a string",
    "PROJ": "a projection (`.0`)",
    "LANGLE": "`<`",
    "LT": "`<`",
    "WHERE": "`where`",
    "MATCH": "`match`",
    "VERSION": "a version header",
    "METADATA": "`#[metadata]`",
    "$END": "the end of the file",
}

_EXPR_START = {
    "LOCAL",
    "GLOBAL",
    "IDENT",
    "INT",
    "FLOAT",
    "LPAR",
    "FN",
    "IF",
    "MATCH",
    "LBRACE",
    "TRUE",
    "FALSE",
    "MINUS",
}
_TYPE_START = {"TENSOR", "LPAR", "IDENT", "FN", "UNDERSCORE"}
_BINOPS = {"OROR", "ANDAND", "EQEQ", "NEQ", "LT", "GT", "LE", "GE", "PLUS", "MINUS", "STAR", "SLASH"}


def describe_terminal(name: str, literal_of: dict[str, str]) -> str:
    if name in TERMINAL_WORDS:
        return TERMINAL_WORDS[name]
    literal = literal_of.get(name)
    return f"`{literal}`" if literal is not None else name.lower()


_ATTR_VALUE_START = {"INT", "FLOAT", "STRING", "TRUE", "FALSE", "IDENT"}


def describe_expected(expected: set[str], literal_of: dict[str, str]) -> str:
    names = set(expected)
    if "ARROW" in names:
        names.discard("MINUS")  # `- >` is an arrow too, but nobody means it
    words: list[str] = []
    if names >= _ATTR_VALUE_START and "LOCAL" not in names:
        # after `key=`: what TVM prints as an attribute's value
        names -= _ATTR_VALUE_START | {"META", "MINUS", "LPAR", "LSQB"}
        words.append(
            "an attribute value (a number, a string, `True`, `False`, `None`, a dtype, a `[...]` list or `meta[...]`)"
        )
    if len(names & _EXPR_START) >= 6:
        names -= _EXPR_START | {"REF", "REF_READ", "REF_WRITE", "META", "CONSTANT", "LET"}
        words.append("an expression")
    if len(names & _TYPE_START) >= 4 and "TENSOR" in names:
        names -= _TYPE_START
        words.append("a type")
    if len(names & _BINOPS) >= 6:
        names -= _BINOPS
        words.append("an operator")
    order = ["RPAR", "RSQB", "RBRACE", "COMMA", "SEMICOLON", "COLON", "EQUAL", "ARROW"]
    for name in sorted(names, key=lambda n: (order.index(n) if n in order else len(order), n)):
        words.append(describe_terminal(name, literal_of))
    return or_list(words) if words else "something else"


def token_text(tok: Tok) -> str:
    if tok.type == "$END":
        return "end of file"
    text = tok.value if len(tok.value) <= 30 else tok.value[:27] + "..."
    return f"`{text}`"


def open_brackets(source: Source, literal_kinds: dict[str, str], upto: int) -> list[Tok]:
    """Brackets opened before offset `upto` and not closed (innermost last)."""
    stack: list[Tok] = []
    try:
        for tok in Tokens(source, literal_kinds):
            if tok.start_pos >= upto:
                break
            if tok.type in OPENERS:
                stack.append(tok)
            elif tok.type in CLOSERS and stack and OPENERS[stack[-1].type] == tok.value:
                stack.pop()
            elif tok.type in CLOSERS:
                # a stray closer: drop back to its opener if there is one
                for i in range(len(stack) - 1, -1, -1):
                    if OPENERS[stack[i].type] == tok.value:
                        del stack[i:]
                        break
    except LexError:
        pass
    return stack


def syntax_error(
    source: Source,
    tok: Tok,
    expected: set[str],
    literal_kinds: dict[str, str],
    prev: Tok | None,
) -> Diagnostic:
    literal_of = {v: k for k, v in literal_kinds.items()}
    text = source.text
    at_end = tok.type == "$END"
    if at_end:
        end = len(text.rstrip())
        span = Span(source, end, end)
    else:
        span = Span(source, tok.start_pos, tok.end_pos)
    stack = open_brackets(source, literal_kinds, len(text) + 1 if at_end else tok.start_pos)
    innermost = stack[-1] if stack else None

    # Closing brackets that close nothing, or the wrong thing.
    if tok.type in CLOSERS:
        opener_char = CLOSERS[tok.type]
        has_match = any(b.value == opener_char for b in stack)
        # `Tensor[(), bool)]`: a `)` typed for the `]` of an open `[` or `(`.
        wrong_kind = innermost is not None and innermost.value != opener_char and (has_match or innermost.value != "{")
        if wrong_kind:
            assert innermost is not None
            want = OPENERS[innermost.type]
            diag = Diagnostic(
                codes.SYNTAX_ERROR,
                f"mismatched closing delimiter `{tok.value}`",
                span,
                label=f"expected `{want}` here",
            )
            diag.with_label(Span(source, innermost.start_pos, innermost.end_pos), f"unclosed `{innermost.value}`")
            if not has_match:
                after = _skip_space(text, tok.end_pos)
                if text.startswith(want, after):
                    # `Tensor[(), bool)]`: the wanted closer follows; this one is extra.
                    diag.with_fix(
                        f"remove this `{tok.value}`: the `{innermost.value}` is closed by the `{want}` after it",
                        span,
                        "",
                    )
                else:
                    diag.with_fix(f"close the `{innermost.value}` with `{want}`", span, want, safe=False)
            return diag
        if not has_match:
            return Diagnostic(
                codes.SYNTAX_ERROR,
                f"unmatched closing delimiter `{tok.value}`",
                span,
                label="no `" + opener_char + "` to close",
            ).with_fix("remove it, or add the missing `" + opener_char + "` earlier", span, "", safe=False)

    if at_end and innermost is not None:
        want_close = OPENERS[innermost.type]
        line = source.line_col(innermost.start_pos)[0]
        diag = Diagnostic(
            codes.SYNTAX_ERROR,
            f"unexpected end of file: the `{innermost.value}` on line {line} is never closed",
            span,
            label=f"expected `{want_close}`",
        )
        diag.with_label(Span(source, innermost.start_pos, innermost.end_pos), f"unclosed `{innermost.value}`")
        _close_braces(diag, source, stack, len(text))
        return diag

    found = "end of file" if at_end else token_text(tok)
    want = describe_expected(expected, literal_of)
    diag = Diagnostic(
        codes.SYNTAX_ERROR,
        f"expected {want}, found {found}",
        span,
        label="unexpected " + ("end of file" if at_end else "token"),
    )

    # An unclosed bracket is the likely cause when its closer is expected,
    # if it is indeed never closed (`@f([1, 2])`: the `(` is closed later).
    if innermost is not None:
        closer_kind = {")": "RPAR", "]": "RSQB", "}": "RBRACE"}[OPENERS[innermost.type]]
        if closer_kind in expected or at_end:
            never_closed = {b.start_pos for b in open_brackets(source, literal_kinds, len(text) + 1)}
            if innermost.start_pos in never_closed:
                diag.with_label(Span(source, innermost.start_pos, innermost.end_pos), f"unclosed `{innermost.value}`")
                if tok.type in _TOP_LEVEL:
                    # `def` while a `{` is open: the definition before ends without its `}`.
                    _close_braces(diag, source, [b for b in stack if b.start_pos in never_closed], tok.start_pos)
    _add_hints(diag, tok, expected, prev, source, literal_kinds)
    return diag


_TOP_LEVEL = frozenset({"DEF", "DATA", "TYPE", "EXTERN"})


def _close_braces(diag: Diagnostic, source: Source, stack: list[Tok], before: int) -> None:
    """A help (and an unsafe fix) for `{`s never closed before offset
    `before`: a `}` each, on lines of their own after the last line with
    text, indented as the lines that opened them."""
    braces = [b for b in stack if b.type == "LBRACE"]
    if not braces:
        return
    lines = sorted({source.line_col(b.start_pos)[0] for b in braces})
    where = (
        "line " + str(lines[0])
        if len(lines) == 1
        else "lines " + or_list([str(n) for n in lines]).replace(" or ", " and ")
    )
    end = len(source.text[:before].rstrip())
    closing = "".join("\n" + _indent(source, b.start_pos) + "}" for b in reversed(braces))
    if len(braces) == 1:
        message = f"a `}}` is missing: the `{{` on {where} is never closed"
    else:
        message = f"{len(braces)} `}}` are missing: the `{{`s on {where} are never closed"
    diag.with_fix(message, Span(source, end, end), closing, safe=False)


def _indent(source: Source, offset: int) -> str:
    line = source.line_text(source.line_col(offset)[0])
    return line[: len(line) - len(line.lstrip())]


def _add_hints(
    diag: Diagnostic,
    tok: Tok,
    expected: set[str],
    prev: Tok | None,
    source: Source,
    literal_kinds: dict[str, str] | None = None,
) -> None:
    """Help lines for the common slips, with the edit each names (see
    `Diagnostic.with_fix`): safe where the text can mean only that."""
    text = source.text

    def at(start: int, end: int | None = None) -> Span:
        return Span(source, start, start if end is None else end)

    if tok.type == "FAT_ARROW" and "LBRACE" in expected:
        # `case Nil() => { 0 }`: TVM's arm inside the documented `case` clause.
        after = _skip_space(text, tok.end_pos)
        help_text = (
            "a `case` clause has no `=>`: its body follows the pattern in braces, "
            "`case Nil() { 0 }` (`Nil => 0`, without `case`, is TVM's form)"
        )
        if text.startswith("{", after):
            diag.with_fix(help_text, at(tok.start_pos, after), "")
        else:
            diag.with_help(help_text)
        return
    if (
        tok.type == "INT"
        and prev is not None
        and prev.type == "LSQB"
        and text[: prev.start_pos].rstrip().endswith("Tensor")
    ):
        _shape_in_parentheses(diag, source, prev)
        return
    if tok.type == "LSQB" and ("LOCAL" in expected or "INT" in expected) and "RSQB" not in expected:
        _list_literal(diag, source, tok)
        return

    if (prev is not None and prev.type == "IDENT" and prev.value == "return") or (
        tok.type == "IDENT" and tok.value == "return"
    ):
        word = prev if prev is not None and prev.value == "return" else tok
        end = word.end_pos
        while end < len(source.text) and source.text[end] in " \t":
            end += 1
        diag.with_fix(
            "Relay has no `return`: a function's value is the last expression of its body", at(word.start_pos, end), ""
        )
    elif tok.type == "EQUAL" and "EQEQ" in expected:
        diag.with_fix(
            "to compare, write `==`; `=` only binds (`let %x = ...`, `%0 = ...`)", at(tok.start_pos, tok.end_pos), "=="
        )
    elif tok.type in ("IDENT", "ATTR_KEY") and "LOCAL" in expected and tok.value[:1].islower():
        diag.with_fix(f"local variables start with `%`: `%{tok.value}`", at(tok.start_pos), "%")
    elif tok.type in ("IDENT", "ATTR_KEY") and "GLOBAL" in expected:
        diag.with_fix(f"global functions start with `@`: `@{tok.value}`", at(tok.start_pos), "@")
    elif (
        tok.type in ("LET", "LOCAL")
        and "SEMICOLON" in expected
        and prev is not None
        and _on_earlier_line(source, prev, tok)
    ):
        # The `;` is missing where the line before ends: point there.
        found = diag.message[diag.message.rindex(", found ") :]
        diag.message = "expected `;`" + found
        diag.with_label(at(tok.start_pos, tok.end_pos), "the next statement starts here")
        diag.span, diag.label = at(prev.end_pos), "expected `;` here"
        diag.with_fix("add the missing `;`", at(prev.end_pos), ";")
    elif tok.type == "COLON" and "ARROW" in expected:
        diag.with_fix("a return type is introduced by `->`, not `:`", at(tok.start_pos, tok.end_pos), "->")
    elif tok.type == "ARROW" and "RPAR" in expected and prev is not None:
        diag.with_fix("is a `)` missing before `->`?", at(prev.end_pos), ")", safe=False)
    elif (
        tok.type == "IDENT"
        and prev is not None
        and prev.type == "COMMA"
        and _WHERE_BEFORE.search(source.text, 0, prev.start_pos)
    ):
        diag.with_help("a `where` inside a function type names one relation (a `,` after it ends the type)")
    elif (
        tok.type in ("LOCAL", "GLOBAL", "IDENT", "INT", "FLOAT")
        and prev is not None
        and prev.type in ("LOCAL", "GLOBAL", "IDENT", "INT", "FLOAT", "RPAR")
        and ("SEMICOLON" in expected or "COMMA" in expected)
    ):
        diag.with_help("is a `;` or `,` missing before it?")
        diag.fixes.extend(
            Fix(f"insert `{mark}`", [Edit(at(prev.end_pos), mark)], UNSAFE)
            for mark in (";", ",")
            if _KIND[mark] in expected
        )
    if tok.type == "LT" and "LANGLE" not in expected and prev is not None and prev.type in ("FN",):
        diag.with_fix("type parameters follow `fn` directly: `fn<a>(...)`", at(prev.end_pos, tok.start_pos), "")


_KIND = {";": "SEMICOLON", ",": "COMMA"}


def _skip_space(text: str, offset: int) -> int:
    while offset < len(text) and text[offset] in " \t\r\n":
        offset += 1
    return offset


def _bracketed_items(text: str, open_pos: int) -> tuple[list[tuple[int, int]], int] | None:
    """The comma-separated items (start, end offsets, spaces trimmed) of the
    bracket opened at `open_pos`, and the offset of its closer; None if it
    is not closed on a simple scan (strings and comments are not expected
    inside)."""
    closer = {"[": "]", "(": ")"}[text[open_pos]]
    depth = 0
    items: list[tuple[int, int]] = []
    start = open_pos + 1
    for i in range(open_pos + 1, min(len(text), open_pos + 10_000)):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                if ch != closer:
                    return None
                items.append((start, i))
                break
            depth -= 1
        elif ch == "," and depth == 0:
            items.append((start, i))
            start = i + 1
        elif ch in '"/#':
            return None
    else:
        return None
    trimmed = []
    for a, b in items:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        trimmed.append((a, b))
    if trimmed and trimmed[-1][0] == trimmed[-1][1]:
        trimmed.pop()  # a trailing comma
    return trimmed, i


def _shape_in_parentheses(diag: Diagnostic, source: Source, bracket: Tok) -> None:
    """`Tensor[2, float32]`: the dimensions go in parentheses."""
    text = source.text
    found = _bracketed_items(text, bracket.start_pos)
    if found is None or len(found[0]) < 2:
        diag.with_help("a tensor type's shape is written in parentheses: `Tensor[(2, 3), float32]`")
        return
    items = found[0]
    dims = text[items[0][0] : items[-2][1]]
    dtype = text[items[-1][0] : items[-1][1]]
    diag.with_help(f"a tensor type's shape is written in parentheses: `Tensor[({dims}), {dtype}]`")
    diag.fixes.append(
        Fix(
            f"write `Tensor[({dims}), {dtype}]`",
            [Edit(Span(source, items[0][0], items[0][0]), "("), Edit(Span(source, items[-2][1], items[-2][1]), ")")],
        )
    )


def _list_literal(diag: Diagnostic, source: Source, bracket: Tok) -> None:
    """`[1, 2]` as a value: Relay has tuples, Lists and tensors, no list literal."""
    text = source.text
    found = _bracketed_items(text, bracket.start_pos)
    items, close = found if found is not None else ([], -1)
    if not items or len(items) > 8 or any(b - a > 40 or a == b for a, b in items):
        items = []  # too long to spell out: the help shows the forms only
    values = [text[a:b] for a, b in items] or ["1", "2"]
    as_tuple = "(" + ", ".join(values) + ("," if len(values) == 1 else "") + ")"
    as_list = "Nil()"
    for value in reversed(values):
        as_list = f"Cons({value}, {as_list})"
    diag.with_help(
        f"Relay has no `[...]` values: write a tuple `{as_tuple}`, a List `{as_list}`, or a tensor "
        "(`Constant(0, (2, 2), float32)`, or `meta[relay.Constant][0]` with its data in `#[metadata]`)"
    )
    if items:
        whole = Span(source, bracket.start_pos, close + 1)
        diag.fixes.append(Fix(f"write the tuple `{as_tuple}`", [Edit(whole, as_tuple)], UNSAFE))
        diag.fixes.append(Fix(f"write the List `{as_list}`", [Edit(whole, as_list)], UNSAFE))


_WHERE_BEFORE = re.compile(r"\bwhere\s+[A-Za-z_]\w*\s*$")


def _on_earlier_line(source: Source, prev: Tok, tok: Tok) -> bool:
    return source.line_col(prev.end_pos)[0] < source.line_col(tok.start_pos)[0]


def lex_error(source: Source, exc: LexError) -> Diagnostic:
    diag = Diagnostic(exc.code, exc.message, Span(source, exc.start, exc.end))
    if exc.hint:
        diag.with_help(exc.hint)
    return diag
