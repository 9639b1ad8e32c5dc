"""Where things are written, beyond each node's own span.

A node's span is where it was built. For a shared node - a variable, a
global, a constructor, or a node named by a graph binding `%1 = ...` - that
is its binding site, the same for every use. The parser therefore also
records, per parent node, where each shared child is written, and a few
other positions diagnostics point at. Keys use `id(node)`: the module that
owns these tables keeps its nodes alive.

Child indices follow `visitor.children` order (a call's callee is 0 and its
arguments 1..n; a let's value 1 and body 2; an if's condition 0, branches 1
and 2; a match's data 0 and clause bodies 1..n; a function's body comes
after its parameters).
"""

from __future__ import annotations

from typing import Any

from .span import Source, Span

Range = tuple[int, int]

# Where the lexer met a comment: (end of the token or comment before it,
# start, end, start and end of the token before it (-1: none), end of the
# token before that, the first tokens after it (lexer tokens: `type`,
# `value`, `start_pos`, `end_pos`)).
CommentSite = tuple[int, int, int, int, int, int, list[Any]]


# The key under which `Positions.attr_keys` records where a call's
# `meta[relay.attrs...]` argument is written.
META_ATTRS = "meta[...]"


class Trivia:
    """What stands around one comment, as the lexer saw it: the tokens on
    either side and the line breaks between.

    `before` is the token just before the comment (start, end, text) and
    `before2_end` the end of the token before that (-1 if none); `after`
    holds the first tokens of code that follow it (start, end, text), as
    many as placing it needs (three at most), none if only the end of the
    file or a metadata section follows.
    """

    __slots__ = ("after", "before", "before2_end", "blank_after", "blank_before", "ends_line", "own_line")

    def __init__(
        self, own_line: bool, blank_before: bool, before: tuple[int, int, str] | None, before2_end: int
    ) -> None:
        self.own_line = own_line  # nothing but blanks before it on its line
        self.blank_before = blank_before  # on its own line, below an empty line
        self.ends_line = True  # nothing but blanks after it on its line
        self.blank_after = False  # an empty line between it and the next code (comments skipped)
        self.before = before
        self.before2_end = before2_end
        self.after: list[tuple[int, int, str]] = []


class Positions:
    __slots__ = (
        "attr_keys",
        "attr_spellings",
        "binders",
        "blank_after_header",
        "blank_lines",
        "brackets",
        "comment_sites",
        "fn_attrs",
        "graph_heads",
        "graph_inner",
        "graph_names",
        "heads",
        "lossy",
        "names",
        "results",
        "source",
        "trivia",
        "uses",
    )

    def __init__(self, source: Source | None = None) -> None:
        self.source = source
        # (id(parent), child index) -> where the child is written, for shared children
        self.uses: dict[tuple[int, int], Range] = {}
        # (id(parent), child index) -> the result expression of a `{ ... }` child
        self.results: dict[tuple[int, int], Range] = {}
        # (id(call), attribute name) -> the attribute's key
        self.attr_keys: dict[tuple[int, str], Range] = {}
        # (id(call), attribute name) -> the numbers of its value as written
        # (text, value), in order, when one is not written as printed (`2i64`)
        self.attr_spellings: dict[tuple[int, str], list[tuple[str, Any]]] = {}
        # an error's placeholder lost text the source wrote (an unknown kind
        # or dimension variable): printing would not give the source back
        self.lossy = False
        # id(function) -> (key, start, end) of each of its attributes, the end
        # where the next attribute (or the closing `)`) starts: their comments
        self.fn_attrs: dict[int, list[tuple[str, int, int]]] = {}
        # id(function) -> from `def`/`fn` to the `)` closing its parameters
        self.heads: dict[int, Range] = {}
        # id(node) -> the name a graph binding gave it (`%3 = ...`: "3"); the
        # formatter keeps it
        self.graph_names: dict[int, str] = {}
        # (id(parent), child index) -> the name of a shared child at that use
        # (`%x` in `(%x)` or `{ %x }`): where its comments attach
        self.names: dict[tuple[int, int], Range] = {}
        # id(var or constructor) -> a declaration with its annotation or
        # signature: `%x: int32`, `free_var %z: int32`, `B(int32)`
        self.binders: dict[int, Range] = {}
        # (id(parent), child index) -> the inner pair of `( { ... } )` or
        # `((a + b))` where a bracketed operand is written in two pairs
        self.brackets: dict[tuple[int, int], Range] = {}
        # what the lexer saw around each comment, in order; read into
        # `Trivia` (comment start -> trivia) when first asked for
        self.comment_sites: list[CommentSite] = []
        self.trivia: dict[int, Trivia] | None = None
        # starts of the tokens that begin a line below an empty line
        self.blank_lines: set[int] = set()
        self.blank_after_header = False
        # where the value of a graph binding `%n = value` is written -> where
        # its `%n` is; `graph_inner` holds the same for the first token inside
        # a bracketed value (`%n = { let ... }`, `%n = (...)`)
        self.graph_heads: dict[int, int] = {}
        self.graph_inner: dict[int, int] = {}

    def comment_trivia(self) -> dict[int, Trivia]:
        """The trivia of each comment, by the comment's start."""
        if self.trivia is None:
            text = self.source.text if self.source is not None else ""
            starts = [site[1] for site in self.comment_sites]
            # (the sites are let go as they are read: the trivia replaces them)
            self.trivia = dict(zip(starts, read_trivia(text, self.comment_sites), strict=True))
        return self.trivia

    def blank_before(self, pos: int) -> bool:
        """Whether the token at `pos` (or the `%n = ` it is the value of)
        begins a line below an empty line."""
        if pos in self.blank_lines:
            return True
        head = self.graph_heads.get(pos)
        return head is not None and head in self.blank_lines

    def statement_start(self, pos: int) -> int:
        """Where the statement whose value starts at `pos` begins: at `%n`
        when the value is bracketed and bound to it (`%n = { let ... }`)."""
        return self.graph_inner.get(pos, pos)

    def _span(self, at: Range | None) -> Span | None:
        if at is None or self.source is None:
            return None
        return Span(self.source, at[0], at[1])

    def use(self, parent: Any, index: int) -> Span | None:
        """Where child `index` of `parent` is written, if it is a shared node."""
        return self._span(self.uses.get((id(parent), index)))

    def result(self, parent: Any, index: int) -> Span | None:
        """Where the value of a `{ ... }` child is written (its last expression)."""
        return self._span(self.results.get((id(parent), index)))

    def attr_key(self, call: Any, key: str) -> Span | None:
        return self._span(self.attr_keys.get((id(call), key)))

    def head(self, func: Any) -> Span | None:
        return self._span(self.heads.get(id(func)))


def _line_breaks(text: str, start: int, end: int, cr: bool) -> int:
    """Lines ending in `text[start:end]` (`\\n`, `\\r\\n`, a lone `\\r`);
    `cr`: whether the text holds a `\\r` at all (asked once per text, not
    per call, which would make reading every comment quadratic)."""
    n = text.count("\n", start, end)
    if cr:
        n += text.count("\r", start, end) - text.count("\r\n", start, end)
    return n


def read_trivia(text: str, sites: list[CommentSite]) -> list[Trivia]:
    """The trivia of comments from where the lexer met them (in order).
    Each site is let go once read (`sites` is left empty): the lexer's
    tokens after a comment are kept only as (start, end, text)."""
    n = len(text)
    cr = "\r" in text
    out: list[Trivia] = [None] * len(sites)  # type: ignore[list-item]  # (each filled below)
    blank_after = False  # for the comment after this one, when no token comes between
    following = n  # where the comment after this one starts
    for i in range(len(sites) - 1, -1, -1):
        pos, start, end, tok_start, tok_end, tok2_end, after = sites.pop()
        gap = _line_breaks(text, pos, start, cr)
        first = pos == 0
        own_line = gap > 0 or first
        blank = own_line and (gap >= 2 or (first and gap >= 1))
        before = (tok_start, tok_end, text[tok_start:tok_end]) if tok_start >= 0 else None
        trivia = out[i] = Trivia(own_line, blank, before, tok2_end)
        code = after[0].start_pos if after else n  # the next token (or the metadata section)
        next_comment = following < code
        nxt = following if next_comment else code
        newlines = _line_breaks(text, end, nxt, cr)
        trivia.ends_line = newlines > 0 or nxt >= n
        blank_after = newlines >= 2 or (next_comment and blank_after)
        trivia.blank_after = blank_after
        trivia.after = [(t.start_pos, t.end_pos, t.value) for t in after if t.type != "METADATA"]
        following = start
    return out
