"""The rest of a file that does not parse: its definitions without syntax errors.

A syntax error leaves a file without a module. The parser reads on after
each error and reports every independent one (`syntax.lalr.Driver.recover`),
so the diagnostics say which top-level definitions are broken: the one
holding an error, or the one before it when the error is at the `def`,
`data`, `type` or `extern` that begins a definition (that definition was
never finished), or the last one for an error at the end of the text.
`recovered` checks the file again with those definitions blanked out (see
`document.Analysis`): hover, definitions, references, symbols and
completion then know everything about the other definitions, at the same
offsets. Within the blanked ones, the last analysis that parsed answers
(`views`).
"""

from __future__ import annotations

from typing import Any

from . import tokens as tk
from .document import Analysis

# Definitions blanked after a check of the blanked text still reports
# syntax errors (an error the first check's recovery did not see), at most
# this many times.
ROUNDS = 3
_STARTS = frozenset({"def", "data", "type", "extern"})


def items(toks: list[tk.Token], n: int) -> list[tuple[int, int]]:
    """The ranges of a file's top-level items: what precedes the first
    definition (the header, comments), then each definition from its `def`,
    `data`, `type` or `extern` keyword to the next one, then the metadata
    section. Those keywords begin a definition wherever they are (no
    expression holds one), so an unclosed bracket does not join two items.
    `extern` followed by `type` begins one item."""
    starts = [0]
    prev = ""
    for tok in toks:
        if tok.kind == tk.METADATA:
            if tok.start > starts[-1]:
                starts.append(tok.start)
            break
        starts_here = tok.kind == tk.KEYWORD and tok.text in _STARTS and not (tok.text == "type" and prev == "extern")
        if starts_here and tok.start > starts[-1]:
            starts.append(tok.start)
        if tok.kind != tk.COMMENT:
            prev = tok.text
    return [(s, starts[i + 1] if i + 1 < len(starts) else n) for i, s in enumerate(starts)]


def broken(analysis: Analysis, ranges: list[tuple[int, int]]) -> set[int]:
    """The indexes in `ranges` of the items the analysis's errors blame."""
    source = analysis.source
    toks = analysis.tokens
    n = len(analysis.text)
    out: set[int] = set()
    for diag in analysis.diagnostics:
        span = diag.span
        if not diag.is_error or span is None or span.source is not source:
            continue
        at = min(span.start, n)
        i = _item_of(ranges, at)
        first = _first_code(toks, ranges[i])
        if (i > 0 and (first is None or at <= first.start)) or at >= n:
            # at the keyword that begins an item (or at the end of the
            # text): the item before it was never finished
            i = max(0, i - 1 if at < n else len(ranges) - 1)
            while i > 0 and toks and _is_metadata(toks, ranges[i]):
                i -= 1
        out.add(i)
    return out


def _item_of(ranges: list[tuple[int, int]], offset: int) -> int:
    for i, (start, end) in enumerate(ranges):
        if start <= offset < end:
            return i
    return len(ranges) - 1


def _first_code(toks: list[tk.Token], rng: tuple[int, int]) -> tk.Token | None:
    i = tk.index_before(toks, rng[0]) + 1
    while i < len(toks) and toks[i].start < rng[1]:
        if toks[i].kind != tk.COMMENT:
            return toks[i]
        i += 1
    return None


def _is_metadata(toks: list[tk.Token], rng: tuple[int, int]) -> bool:
    first = _first_code(toks, rng)
    return first is not None and first.kind == tk.METADATA


def holes_of(analysis: Analysis, ranges: list[tuple[int, int]], blamed: set[int]) -> tuple[tuple[int, int], ...]:
    """The text of the blamed items to blank: all of each, but the version
    header and the comments before the first definition (the first item
    is blanked from its first token of code)."""
    toks = analysis.tokens
    out = []
    for i in sorted(blamed):
        start, end = ranges[i]
        if i == 0:  # the preamble: from its code on
            j = tk.index_before(toks, start) + 1
            while j < len(toks) and toks[j].start < end and toks[j].kind in (tk.HEADER, tk.COMMENT):
                j += 1
            if j < len(toks) and toks[j].start < end:
                out.append((toks[j].start, end))
            continue
        out.append((start, end))
    return tuple(out)


def recovered(analysis: Analysis) -> Analysis | None:
    """An analysis of the document with its broken definitions left out
    (the analysis itself when it parsed; None when nothing could be kept
    apart from the errors). Cached on `analysis`; computed on the checker's
    thread (it checks the text again)."""
    if analysis.parsed:
        return analysis
    cached = analysis.recovered
    if cached is not None:
        return cached or None
    result = _recover(analysis)
    analysis.recovered = result if result is not None else False
    return result


def _recover(analysis: Analysis) -> Analysis | None:
    if analysis.failure is not None:
        return None
    ranges = items(analysis.tokens, len(analysis.text))
    blamed = broken(analysis, ranges)
    if not blamed:
        return None
    for _ in range(ROUNDS):
        attempt = Analysis(analysis.uri, analysis.text, analysis.version, holes_of(analysis, ranges, blamed))
        if attempt.module is not None:
            return attempt
        more = broken(attempt, ranges) - blamed
        if not more or attempt.failure is not None:
            return None
        blamed |= more
    return None


def hole_at(holes: Any, offset: int) -> bool:
    """Whether `offset` lies in one of `holes` (their ends included: a
    cursor just after the last character)."""
    return any(start <= offset <= end for start, end in holes)
