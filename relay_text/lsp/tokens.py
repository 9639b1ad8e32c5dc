"""A tolerant tokenizer for editor features.

The parser's lexer stops at the first character that is no token; an editor
sees text in every state of being typed, so this one never fails: an
unterminated string ends at the end of its line, an unterminated `/*` at the
end of the file, and a character that is no token becomes an `error` token.
It keeps comments, and it tells attribute keys (`axis=`), keywords, numbers
with their suffixes and the `#[metadata]` section apart, which is what
semantic highlighting, completion and name lookup need.

    scan(text) -> list[Token]

Offsets are character offsets into `text` (as in `relay_text.ir.span`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Token kinds.
COMMENT = "comment"
STRING = "string"
NUMBER = "number"
LOCAL = "local"  # %x, %0, %a.15
GLOBAL = "global"  # @f
IDENT = "ident"  # add, nn.conv2d, Cons, List, float32
KEYWORD = "keyword"  # def, fn, let, match?, ...
ATTR_KEY = "attr_key"  # `axis` in `axis=1`
PUNCT = "punct"
HEADER = "header"  # #[version = "0.0.5"], v0.0.4
METADATA = "metadata"  # #[metadata] (or METADATA:) and everything after it
ERROR = "error"

KEYWORDS = frozenset(
    {
        "def", "fn", "let", "if", "else", "match", "match?", "case", "data", "type", "extern",
        "free_var", "ref", "ref_read", "ref_write", "where", "Constant", "meta", "True", "False",
        "Tensor", "_",
    }
)  # fmt: skip
# Keywords that only are keywords where followed by these (otherwise names).
_CONTEXTUAL = {"Constant": "(", "meta": "[", "where": None}

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_NUMBER = (
    r"(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|[0-9]+)"
    r"(?:f(?:16|32|64)?|i(?:8|16|32|64)?|u(?:8|16|32|64))?(?![A-Za-z0-9_])"
)
_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\n\f]+)
  | (?P<line_comment>//[^\r\n]*)
  | (?P<block_comment>/\*)
  | (?P<header>\#\[[ \t]*version[ \t]*=[ \t]*"[^"\n]*"[ \t]*\])
  | (?P<metadata>\#\[[ \t]*metadata[ \t]*\])
  | (?P<hash_comment>\#(?!\[)[^\r\n]*)
  | (?P<string>"(?:[^"\\\r\n]|\\.)*"?)
  | (?P<local>%[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)
  | (?P<global>@[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>(?:inf|nan)f(?:16|32|64)?(?![A-Za-z0-9_])|"""
    + _NUMBER
    + r""")
  | (?P<ident>"""
    + _IDENT
    + r""")
  | (?P<punct>->|=>|==|!=|<=|>=|&&|\|\||[(){}\[\],;:=<>+\-*/?!.])
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)
# TVM's format allows `/` inside local names (`%conv1/weights`).
_LOCAL_TVM = re.compile(r"%[A-Za-z0-9_]+(?:[./][A-Za-z0-9_]+)*")
_OLD_HEADER = re.compile(r"v0\.0\.[0-9]+(?=\s|$)")
_ATTR_EQ = re.compile(r"[ \t\r\n]*=(?![=>])")
_BLANKS = re.compile(r"[ \t\r\n\f]*")


@dataclass(slots=True)
class Token:
    kind: str
    text: str
    start: int
    end: int


def scan(text: str) -> list[Token]:
    """Every token of `text` but blanks, comments included, in order."""
    out: list[Token] = []
    n = len(text)
    pos = 0
    tvm = False
    first_code = True  # no token but comments yet: a `v0.0.4` header may come
    prev = ""  # the previous significant token's text
    prev_kind = ""
    match = _TOKEN.match
    while pos < n:
        if first_code:
            m_old = _OLD_HEADER.match(text, pos)
            if m_old is not None:
                out.append(Token(HEADER, m_old.group(), pos, m_old.end()))
                pos = m_old.end()
                first_code = False
                tvm = True
                continue
        m = match(text, pos)
        assert m is not None  # `other` matches any character
        kind = m.lastgroup
        end = m.end()
        if kind == "ws":
            pos = end
            continue
        if kind == "line_comment" or kind == "hash_comment":
            out.append(
                Token(COMMENT, text[pos:end].rstrip("\r"), pos, end - (1 if text[pos:end].endswith("\r") else 0))
            )
            pos = end
            continue
        if kind == "block_comment":
            end = block_comment_end(text, pos)
            out.append(Token(COMMENT, text[pos:end], pos, end))
            pos = end
            continue
        if kind == "metadata" or (kind == "ident" and m.group() == "METADATA" and text.startswith(":", end) and tvm):
            out.append(Token(METADATA, text[pos:], pos, n))
            return out
        if kind == "header":
            tvm = True
            out.append(Token(HEADER, m.group(), pos, end))
        elif kind == "string":
            out.append(Token(STRING, m.group(), pos, end))
        elif kind == "local":
            if tvm:
                local = _LOCAL_TVM.match(text, pos)
                assert local is not None  # a local token starts with `%` and a name character
                end = local.end()
            out.append(Token(LOCAL, text[pos:end], pos, end))
        elif kind == "global":
            out.append(Token(GLOBAL, m.group(), pos, end))
        elif kind == "number":
            out.append(Token(NUMBER, m.group(), pos, end))
        elif kind == "ident":
            word = m.group()
            if word == "match" and text.startswith("?", end):
                end += 1
                word = "match?"
            out.append(Token(_ident_kind(text, word, end, prev, prev_kind), word, pos, end))
        elif kind == "punct":
            out.append(Token(PUNCT, m.group(), pos, end))
        else:
            out.append(Token(ERROR, m.group(), pos, end))
        first_code = False
        prev = out[-1].text
        prev_kind = out[-1].kind
        pos = end
    return out


def _ident_kind(text: str, word: str, end: int, prev: str, prev_kind: str) -> str:
    if prev in ("(", ",", "{") and prev_kind == PUNCT and _ATTR_EQ.match(text, end):
        return ATTR_KEY
    if word in KEYWORDS:
        if word in _CONTEXTUAL:
            blanks = _BLANKS.match(text, end)
            assert blanks is not None  # `[...]*` matches everywhere, if only the empty string
            after = blanks.end()
            follow = _CONTEXTUAL[word]
            if follow is None:  # `where(...)` is the operator, `where Rel` the keyword
                return IDENT if text.startswith("(", after) else KEYWORD
            return KEYWORD if text.startswith(follow, after) else IDENT
        return KEYWORD
    return IDENT


def block_comment_end(text: str, start: int) -> int:
    """The end of the (nested) block comment opening at `start`; the end of
    the text when it is not closed (linear: `syntax.lexer.block_comment_end`)."""
    from ..syntax.lexer import block_comment_end as end_of

    end = end_of(text, start)
    return len(text) if end < 0 else end


def token_at(tokens: list[Token], offset: int) -> Token | None:
    """The token containing `offset`, or ending at it (a cursor just after a
    name is on that name)."""
    lo, hi = 0, len(tokens)
    while lo < hi:
        mid = (lo + hi) // 2
        if tokens[mid].end <= offset:
            lo = mid + 1
        else:
            hi = mid
    if lo < len(tokens) and tokens[lo].start <= offset < tokens[lo].end:
        return tokens[lo]
    if lo > 0 and tokens[lo - 1].end == offset:
        return tokens[lo - 1]
    return None


def index_before(tokens: list[Token], offset: int) -> int:
    """The index of the last token that ends at or before `offset` (-1: none)."""
    lo, hi = 0, len(tokens)
    while lo < hi:
        mid = (lo + hi) // 2
        if tokens[mid].end <= offset:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1
