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

    __slots__ = ("own_line", "blank_before", "ends_line", "blank_after", "before", "before2_end", "after")

    def __init__(self, own_line: bool, blank_before: bool, before: tuple[int, int, str] | None, before2_end: int) -> None:
        self.own_line = own_line  # nothing but blanks before it on its line
        self.blank_before = blank_before  # on its own line, below an empty line
        self.ends_line = True  # nothing but blanks after it on its line
        self.blank_after = False  # an empty line between it and the next code (comments skipped)
        self.before = before
        self.before2_end = before2_end
        self.after: list[tuple[int, int, str]] = []


class Positions:
    __slots__ = (
        "source", "uses", "results", "attr_keys", "heads", "graph_names",
        "names", "binders", "brackets", "trivia", "blank_lines", "blank_after_header", "graph_heads", "graph_inner",
    )

    def __init__(self, source: Source | None = None) -> None:
        self.source = source
        # (id(parent), child index) -> where the child is written, for shared children
        self.uses: dict[tuple[int, int], Range] = {}
        # (id(parent), child index) -> the result expression of a `{ ... }` child
        self.results: dict[tuple[int, int], Range] = {}
        # (id(call), attribute name) -> the attribute's key
        self.attr_keys: dict[tuple[int, str], Range] = {}
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
        # comment start -> its trivia (see `Trivia`)
        self.trivia: dict[int, Trivia] = {}
        # starts of the tokens and comments that begin a line below an empty line
        self.blank_lines: set[int] = set()
        self.blank_after_header = False
        # where the value of a graph binding `%n = value` is written -> where
        # its `%n` is; `graph_inner` holds the same for the first token inside
        # a bracketed value (`%n = { let ... }`, `%n = (...)`)
        self.graph_heads: dict[int, int] = {}
        self.graph_inner: dict[int, int] = {}

    def blank_before(self, pos: int) -> bool:
        """Whether the token or comment at `pos` (or the `%n = ` it is the
        value of) begins a line below an empty line."""
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
