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

class Positions:
    __slots__ = ("source", "uses", "results", "attr_keys", "heads", "graph_names")

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
