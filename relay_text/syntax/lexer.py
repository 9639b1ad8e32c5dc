"""The tokenizer: Relay text to the terminals of grammar/relay.lark.

One compiled regular expression does the work; a small amount of context
decides the tokens a regular expression cannot (see the grammar's header):
nested `/* */` comments, `<` opening type arguments versus less-than,
`where` as keyword versus operator, attribute keys, version headers and the
trailing `#[metadata]` section. Comments are collected, not discarded, so
that the formatter can keep them, each with the tokens on either side of
it, from which its trivia is read when it is needed (`ir.positions.Trivia`).
"""

from __future__ import annotations

import re
from typing import Any
from collections.abc import Iterator

from ..diagnostics import codes
from ..diagnostics.codes import Code
from ..ir.module import Comment
from ..ir.positions import CommentSite
from ..ir.span import Source, Span

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_SUFFIX_F = r"f(?:16|32|64)?"
_SUFFIX_I = r"i(?:8|16|32|64)?|u(?:8|16|32|64)"  # `42i` is int32, as in TVM

# Leading blanks are consumed with each token, so one match yields one token.
_MASTER = re.compile(
    r"""[ \t\r\n\f]*(?:
    (?P<LOCAL>%[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)
  | (?P<IDENT>"""
    + _IDENT
    + r""")
  | (?P<punct>[(){}\[\],:+*?]|->?|=[>=]?|;;?|<=?|>=?|!=|&&|\|\|)
  | (?P<GLOBAL>@[A-Za-z_][A-Za-z0-9_]*)
  | (?P<FLOAT>
        (?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)(?:"""
    + _SUFFIX_F
    + r""")?
      | [0-9]+"""
    + _SUFFIX_F
    + r"""
    )(?![A-Za-z0-9_])
  | (?P<INT>[0-9]+(?:"""
    + _SUFFIX_I
    + r""")?(?![A-Za-z0-9_]))
  | (?P<PROJ>\.[0-9]+)
  | (?P<STRING>"[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*")
  | (?P<line_comment>//[^\r\n]*)
  | (?P<block_comment>/\*)
  | (?P<slash>/)
  | (?P<hash>\#)
  | (?P<badnum>[0-9][A-Za-z0-9_.]*)
  | (?P<eof>\Z)
    )""",
    re.VERBOSE,
)

# In TVM's format a name may also contain `/` (TVM's tokenizer counts it as a
# letter; models imported from TensorFlow name parameters `%conv1/weights`).
# Only local names: global and operator names never had one in practice.
_MASTER_TVM = re.compile(
    _MASTER.pattern.replace(
        r"(?P<LOCAL>%[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)", r"(?P<LOCAL>%[A-Za-z0-9_]+(?:[./][A-Za-z0-9_]+)*)"
    ),
    re.VERBOSE,
)
assert _MASTER_TVM.pattern != _MASTER.pattern

_VERSION_HEADER = re.compile(r'\#\[\s*version\s*=\s*"([^"]*)"\s*\]')
_OLD_VERSION = re.compile(r"v(0\.0\.[0-9]+)(?=\s)")
_ATTR_EQ = re.compile(r"=(?![=>])")
# Tokens after which a name or a type begins, never the `where` of a relation.
_BEFORE_A_NAME = frozenset(
    {"ARROW", "COLON", "LPAR", "COMMA", "LSQB", "LANGLE", "LT", "DATA", "TYPE", "EQUAL", "CASE", "LBRACE"}
)
_SPECIAL_FLOAT = re.compile(r"(?:inf|nan)f(?:16|32|64)?")
_SPACES = re.compile(r"[ \t\r\n\f]*")


def _spaces_end(text: str, pos: int) -> int:
    """Where the blanks from `pos` end (`_SPACES` matches everywhere)."""
    m = _SPACES.match(text, pos)
    assert m is not None
    return m.end()


def _line_end(text: str, pos: int) -> int:
    """Where the line from `pos` ends, its line break left out."""
    m = _LINE_REST.match(text, pos)
    assert m is not None
    return m.end()


# A `#` comment runs to the end of its line: `\n`, `\r\n` or a lone `\r`
# (as in Python, C and every editor), never past it.
_LINE_REST = re.compile(r"[^\r\n]*")

# Tokens after which a `<` written without a space opens type arguments.
_CALLEE_TYPES = frozenset({"LOCAL", "GLOBAL", "IDENT"})
# What a list of type arguments that starts with a number may hold before its `>`.
_TYPE_ARG_CHARS = frozenset("0123456789 \t\r\n,*+-?()[]._abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _closes_type_args(text: str, pos: int) -> bool:
    """Whether `text[pos:]` reads as type arguments: brackets balanced, then
    `>` and the `(` of a call."""
    depth = 0
    n = len(text)
    while pos < n:
        ch = text[pos]
        if ch == ">" and depth == 0:
            rest = _spaces_end(text, pos + 1)
            return rest < n and text[rest] == "("
        if ch not in _TYPE_ARG_CHARS:
            return False
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth < 0:
                return False
        pos += 1
    return False


# Groups whose text is the token as it is.
_VERBATIM = frozenset({"LOCAL", "GLOBAL", "INT", "FLOAT", "PROJ", "STRING"})
_DEFINING = frozenset({"DEF", "DATA", "TYPE"})


class LexError(Exception):
    """A character sequence that is no token; carries the offending span."""

    def __init__(self, message: str, start: int, end: int, hint: str = "", code: Code = codes.SYNTAX_ERROR) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.start = start
        self.end = end
        self.hint = hint


class Tok:
    """A token: terminal name, text and character offsets.

    Lighter than `lark.Token` (which is a str subclass) and enough for Lark's
    parser, which reads `type`; line and column exist only for Lark's own
    error objects, ours use offsets.
    """

    __slots__ = ("end_pos", "start_pos", "type", "value")
    line = column = end_line = end_column = None

    def __init__(self, kind: str, value: str, start: int, end: int) -> None:
        self.type = kind
        self.value = value
        self.start_pos = start
        self.end_pos = end

    def __repr__(self) -> str:
        return f"Tok({self.type}, {self.value!r}, {self.start_pos})"


class Tokens:
    """Turns source text into Lark tokens, recording comments on the way.

    `kinds` maps literal strings of the grammar (`def`, `(`, `->`) to the
    names Lark gave their terminals.
    """

    def __init__(self, source: Source, literal_kinds: dict[str, str]) -> None:
        self.source = source
        self.literal_kinds = literal_kinds
        self.comments: list[Comment] = []
        # one per comment: where the token or comment before it ended, its
        # start and end, the token before it (start, end; -1: none), the end
        # of the token before that, and the first tokens after it
        self.sites: list[CommentSite] = []
        # Starts of the tokens that begin a line below an empty line
        self.blank_lines: set[int] = set()
        self.blank_after_header = False  # an empty line below the version header
        self.version: tuple[str, int, int] | None = None  # (version, start, end)

    def __iter__(self) -> Iterator[Tok]:
        """The tokens; each one that follows a comment is shown to `around`
        (which records the comments' trivia) before it is handed on."""
        around = _Around(self.source.text, self.sites)
        text = self.source.text
        match = _MASTER.match
        kinds = self.literal_kinds
        comments = self.comments
        source = self.source
        ident_kind = self._ident_kind
        # the kind of each symbol, but `<`: a type argument list or less-than
        punct_kinds = {value: kind for value, kind in kinds.items() if value != "<"}
        if ";" in kinds:
            punct_kinds[";;"] = kinds[";"]  # v0.0.4's sequencing, `e1 ;; e2`: one `;`
        pos = 0
        prev_kind = ""
        prev_end = -1
        prev_start = prev2_end = -1  # (for the trivia of comments)
        blank_lines = self.blank_lines
        no_cr = "\r" not in text
        # A dump repeats its comments (`/* ty=Tensor[(1, 64), float32] */`
        # thousands of times): equal comments share one string.
        texts: dict[str, str] = {}
        shared = texts.setdefault
        # After `def`, `data` or `type`, the name being defined takes `<` even with a space.
        defining = False
        after_def_name = False

        # A version header may follow blanks and comments (TVM's own .rly
        # files open with a licence comment): the loop collects those
        # comments and yields VERSION on reaching it.
        first = skip_trivia(text, 0)
        header = _VERSION_HEADER.match(text, first) or _OLD_VERSION.match(text, first)

        while True:
            if header is not None and _spaces_end(text, pos) == header.start():
                self.version = (header.group(1), header.start(), header.end())
                if _starts_paragraph(text, pos, header.start()):
                    blank_lines.add(header.start())
                tok = Tok("VERSION", header.group(1), header.start(), header.end())
                if around.busy:
                    around.code(tok)
                yield tok
                around.header_end, around.busy = header.end(), True
                prev2_end, prev_start = prev_end, header.start()
                prev_kind, prev_end, pos = "VERSION", header.end(), header.end()
                header = None
                match = _MASTER_TVM.match
                continue
            m = match(text, pos)
            if m is None:
                start = _spaces_end(text, pos)
                from .characters import char_text

                raise LexError(f"unexpected character {char_text(text[start])}", start, start + 1)
            kind = m.lastgroup or ""  # (every alternative is a named group)
            end = m.end()
            if kind == "punct" or kind == "slash":
                value = m.group(kind)
                start = end - len(value)
                kind = punct_kinds.get(value, "")
                if not kind:
                    if value != "<":
                        kind = kinds[value]
                    elif (
                        prev_kind == "FN"
                        or after_def_name
                        or (
                            prev_kind in _CALLEE_TYPES
                            and _glued(text, prev_end, start)
                            and not self._looks_like_operand(end)
                        )
                    ):
                        kind = "LANGLE"
                    else:
                        kind = "LT"
            elif kind in _VERBATIM:
                value = m.group(kind)
                start = end - len(value)
            elif kind == "IDENT":
                value = m.group(kind)
                start = end - len(value)
                if (
                    value == "METADATA"
                    and text.startswith(":", end)
                    and self.version is not None
                    and self.version[0] == "0.0.4"
                ):
                    # v0.0.4 ended a module with `METADATA:` and the JSON table
                    tok = Tok("METADATA", text[end + 1 :], start, len(text))
                    if around.busy:
                        around.code(tok)
                    yield tok
                    self._finish(around)
                    return
                kind = ident_kind(value, end, prev_kind)
                if kind == "MATCH" and text.startswith("?", end):
                    end += 1
                    value = "match?"
            elif kind == "eof":
                self._finish(around)
                return
            elif kind == "line_comment":
                start = m.start(kind)
                body = text[start:end]
                comments.append(Comment(shared(body, body), Span(source, start, end)))
                around.comment(pos, start, end, prev_start, prev_end, prev2_end)
                pos = end
                continue
            elif kind == "block_comment":
                start = m.start(kind)
                end = self._block_comment_end(start)
                body = text[start:end]
                comments.append(Comment(shared(body, body), Span(source, start, end)))
                around.comment(pos, start, end, prev_start, prev_end, prev2_end)
                pos = end
                continue
            elif kind == "hash":
                start = m.start(kind)
                if text.startswith("#[", start):
                    tok = self._hash_attribute(start)
                    if around.busy:
                        around.code(tok)
                    yield tok
                    prev2_end, prev_start = prev_end, start
                    prev_kind, prev_end, pos = tok.type, tok.end_pos, tok.end_pos
                    continue
                end = _line_end(text, start)
                body = text[start:end]
                comments.append(Comment(shared(body, body), Span(source, start, end)))
                around.comment(pos, start, end, prev_start, prev_end, prev2_end)
                pos = end
                continue
            else:  # badnum
                start = m.start(kind)
                raise LexError(
                    f"invalid number `{m.group(kind)}`",
                    start,
                    end,
                    hint="integers take i8/i16/i32/i64/u8/... suffixes and floats f/f16/f32/f64 (`1i64`, `2.5f`)",
                    code=codes.INVALID_LITERAL,
                )
            after_def_name = defining and (kind == "GLOBAL" or kind == "IDENT")
            defining = kind in _DEFINING
            if start - pos > 1 or pos == 0:
                if no_cr:  # (lines end at `\n` only: one count tells)
                    if text.count("\n", pos, start) >= (2 if pos else 1):
                        blank_lines.add(start)
                elif _starts_paragraph(text, pos, start):
                    blank_lines.add(start)
            tok = Tok(kind, value, start, end)
            if around.busy:
                around.code(tok)
            yield tok
            prev2_end, prev_start = prev_end, start
            prev_kind = kind
            prev_end = pos = end

    # ---- pieces ------------------------------------------------------------

    def _finish(self, around: _Around) -> None:
        around.finish()
        self.blank_after_header = around.blank_after_header

    def _ident_kind(self, value: str, end: int, prev_kind: str) -> str:
        text = self.source.text
        keyword = self.literal_kinds.get(value)
        if keyword is None and value[0] in "in" and _SPECIAL_FLOAT.fullmatch(value):
            return "FLOAT"
        # (the lookahead skips comments: a comment between tokens never changes their meaning)
        if (prev_kind == "LPAR" or prev_kind == "COMMA" or prev_kind == "LBRACE") and _ATTR_EQ.match(
            text, skip_trivia(text, end)
        ):
            return "ATTR_KEY"
        if value == "where":
            # the keyword follows a type and is followed by a relation's
            # name; otherwise `where` is a name (`where(...)` the operator,
            # `where : ...` or `where,` a constructor so named, `-> where`
            # or `data where` a type so named)
            if prev_kind in _BEFORE_A_NAME:
                return "IDENT"
            after = skip_trivia(text, end)
            nxt = text[after : after + 1]
            return "WHERE" if nxt.isalpha() or nxt == "_" else "IDENT"
        if value == "match":
            return "MATCH"
        if value in ("Constant", "meta"):
            after = skip_trivia(text, end)
            opener = "(" if value == "Constant" else "["
            return self.literal_kinds[value] if text.startswith(opener, after) else "IDENT"
        return keyword if keyword is not None else "IDENT"

    def _looks_like_operand(self, pos: int) -> bool:
        """After a `<` glued to a name: does an expression (not a type) follow?

        A number is an operand (`%a<3`) unless it opens a list of type
        arguments closed by `>` right before the call's `(`: `@f<3>(...)`,
        `@g<3, (2, 2)>(...)` pass shapes and dimensions."""
        text = self.source.text
        pos = _spaces_end(text, pos)
        if pos < len(text) and text[pos] in "0123456789":
            return not _closes_type_args(text, pos)
        return pos >= len(text) or text[pos] in "%@-=<"

    def _block_comment_end(self, start: int) -> int:
        """End offset of the (possibly nested) block comment opening at `start`."""
        end = block_comment_end(self.source.text, start)
        if end < 0:
            raise LexError("unterminated block comment", start, start + 2, hint="close it with `*/`")
        return end

    def _hash_attribute(self, start: int) -> Tok:
        text = self.source.text
        close = text.find("]", start)
        if close < 0:
            raise LexError("unterminated `#[` attribute", start, start + 2)
        inner = text[start + 2 : close].strip()
        if inner == "metadata":
            return Tok("METADATA", text[close + 1 :], start, len(text))
        if inner.startswith("version"):
            raise LexError(
                "the version header must come before everything but comments",
                start,
                close + 1,
                hint="move it to the top of the file, above the first definition",
            )
        raise LexError(
            f"unknown attribute `#[{inner}]`", start, close + 1, hint="only `#[version = ...]` and `#[metadata]` exist"
        )


def _starts_paragraph(text: str, pos: int, start: int) -> bool:
    """Whether the token at `start`, after blanks from `pos`
    (where the previous one ended, 0 for none), begins a line below an empty line."""
    return line_breaks(text, pos, start) >= (1 if pos == 0 else 2)


def line_breaks(text: str, start: int, end: int) -> int:
    """How many lines end in `text[start:end]`: at `\\n`, `\\r\\n` or a lone `\\r`."""
    n = text.count("\n", start, end)
    cr = text.count("\r", start, end)
    if cr:
        n += cr - text.count("\r\n", start, end)
    return n


class _Around:
    """Records where each comment stands as the tokens go by: the tokens on
    either side of it (`ir.positions.Trivia` is read from these)."""

    __slots__ = ("blank_after_header", "busy", "header_end", "sites", "text", "waiting")

    def __init__(self, text: str, sites: list[CommentSite]) -> None:
        self.text = text
        self.sites = sites
        self.busy = False  # some comment still waits for the tokens after it
        self.waiting: list[list[Any]] = []  # the token lists of those comments
        self.header_end = -1  # the end of the version header, until the next thing starts
        self.blank_after_header = False

    def comment(self, pos: int, start: int, end: int, tok_start: int, tok_end: int, tok2_end: int) -> None:
        """A comment at [start, end): the previous token or comment ended at
        `pos`; the previous token is [tok_start, tok_end) (-1: none), the
        one before it ended at `tok2_end`."""
        if self.header_end >= 0:
            self._header(start)
        after: list[Any] = []
        self.sites.append((pos, start, end, tok_start, tok_end, tok2_end, after))
        self.waiting.append(after)
        self.busy = True

    def _header(self, start: int) -> None:
        """The first thing after the version header starts at `start`."""
        self.blank_after_header = line_breaks(self.text, self.header_end, start) >= 2
        self.header_end = -1
        self.busy = bool(self.waiting)

    def code(self, tok: Tok) -> None:
        """The next token, shown only while `busy`."""
        if self.header_end >= 0:
            self._header(tok.start_pos)
        waiting = self.waiting
        for after in waiting:
            after.append(tok)
        if tok.type == "METADATA":  # the end of the code
            waiting.clear()
        elif len(waiting) == 1:
            if not _wants_more(waiting[0]):
                waiting.clear()
        else:
            self.waiting = waiting = [after for after in waiting if _wants_more(after)]
        self.busy = bool(waiting)

    def finish(self) -> None:
        if self.header_end >= 0:
            self._header(len(self.text))


def _wants_more(after: list[Any]) -> bool:
    """Whether the tokens after a comment so far leave a question open: a
    `,` (what follows it) or a name that may start a graph binding (`%n =`
    and the token after it). Placing the comment asks no more than that."""
    first = after[0].value
    if len(after) == 1:
        return bool(first == "," or first[:1] == "%")
    return len(after) == 2 and first[:1] == "%" and after[1].value == "="


def block_comment_end(text: str, start: int) -> int:
    """The end of the nested block comment that opens at `start` (`/*`), or
    -1 if it is not closed. Linear in the comment's length: the next `/*`
    and the next `*/` are each searched for again only once passed (a
    comment nested 100,000 deep is read in one pass)."""
    depth = 0
    pos = start
    find = text.find
    open_at = find("/*", pos)
    close_at = find("*/", pos)
    while True:
        if close_at < 0:
            return -1
        if 0 <= open_at < close_at:
            depth += 1
            pos = open_at + 2
            open_at = find("/*", pos)
        else:
            depth -= 1
            pos = close_at + 2
            if depth == 0:
                return pos
            if 0 <= open_at < pos:
                open_at = find("/*", pos)
        if close_at < pos:
            close_at = find("*/", pos)


def _glued(text: str, a: int, b: int) -> bool:
    """Whether nothing but block comments stands between offsets a and b
    (`%f<T>` and `%f/* c */<T>` open type arguments; `%f <T>` does not)."""
    while a < b:
        if not text.startswith("/*", a):
            return False
        a = block_comment_end(text, a)
        if a < 0:
            return False
    return a == b


# The characters blanks and comments begin with (and "", the end of the
# text): where none stands, `skip_trivia` has nothing to skip.
_TRIVIA_STARTS = frozenset({"", " ", "\t", "\r", "\n", "\f", "/", "#"})
_TRIVIA = re.compile(r"(?:[ \t\r\n\f]+|//[^\r\n]*|\#(?!\[)[^\r\n]*)*")


def skip_trivia(text: str, pos: int) -> int:
    """The offset of the first token at or after `pos` (skips blanks and comments)."""
    if text[pos : pos + 1] not in _TRIVIA_STARTS:  # (most often: nothing to skip)
        return pos
    while True:
        pos = _TRIVIA.match(text, pos).end()  # type: ignore[union-attr]
        if not text.startswith("/*", pos):
            return pos
        pos = block_comment_end(text, pos)
        if pos < 0:
            return len(text)
