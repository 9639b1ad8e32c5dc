"""Applying the fixes diagnostics carry (`relay check --fix`, `--diff`).

A help line that names a replacement carries it as a `Fix`: edits (a span
and its new text) and whether it is safe (see `diagnostics.Fix`). Fixing a
file applies the chosen fixes of one check together, then checks the new
text and goes on with the fixes that check reports, until none is left
(at most `MAX_ROUNDS` rounds), so that a fix that uncovers another error's
fix is followed. Two fixes whose edits overlap are not applied in the same
round: the second waits for the next check. A round whose text has more
syntax errors than the text it started from is undone, and fixing stops
there (more errors of other kinds are normal: a file that parses at last
is type-checked).

Editors use the same pieces: `edits_text` applies edits to a text, and a
diagnostic's `fixes` become code actions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Iterable

from .diagnostics import Diagnostic, Edit, Fix, codes
from .ir.span import Source

MAX_ROUNDS = 10


@dataclass
class Fixed:
    """The outcome of fixing one text: the new text, the fixes applied (in
    order), and the check of the new text."""

    text: str
    applied: list[Fix] = field(default_factory=list)
    checked: Any = None  # pipeline.Checked of `text`
    undone: bool = False  # a round made things worse and was undone


def applicable(diagnostics: Iterable[Diagnostic], source: Source, unsafe: bool = False) -> list[Fix]:
    """The fixes of `diagnostics` to apply to `source` in one round: safe
    ones (and unsafe ones if asked), editing only `source`, the first of
    two that overlap (in the order of the diagnostics)."""
    chosen: list[Fix] = []
    taken: list[tuple[int, int]] = []
    for diag in diagnostics:
        for fix in diag.fixes:
            if not (fix.safe or unsafe) or not fix.edits:
                continue
            if any(edit.span.source is not source for edit in fix.edits):
                continue
            ranges = [(edit.span.start, edit.span.end) for edit in fix.edits]
            if any(_overlap(r, t) for r in ranges for t in taken):
                continue
            chosen.append(fix)
            taken.extend(ranges)
            break  # one fix a diagnostic: the others are alternatives
    return chosen


def _syntax_errors(checked: Any) -> int:
    return sum(1 for d in checked.diagnostics if d.code == codes.SYNTAX_ERROR)


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether two edits touch the same text (two insertions at one place do)."""
    if a == b:
        return True
    return a[0] < b[1] and b[0] < a[1]


def edits_text(text: str, edits: Iterable[Edit]) -> str:
    """`text` with `edits` applied (they must not overlap)."""
    out = []
    position = 0
    for edit in sorted(edits, key=lambda e: (e.span.start, e.span.end)):
        out.append(text[position : edit.span.start])
        out.append(edit.text)
        position = edit.span.end
    out.append(text[position:])
    return "".join(out)


def fix_source(source: Source, check: Callable[[Source], Any], unsafe: bool = False) -> Fixed:
    """Fix `source` round by round (see the module's doc); `check` gives the
    `pipeline.Checked` of a source (its diagnostics as the command reports
    them)."""
    checked = check(source)
    outcome = Fixed(source.text, checked=checked)
    for _ in range(MAX_ROUNDS):
        fixes = applicable(checked.diagnostics, checked.source, unsafe)
        if not fixes:
            break
        text = edits_text(outcome.text, [edit for fix in fixes for edit in fix.edits])
        if text == outcome.text:
            break
        again = check(Source(source.name, text))
        if _syntax_errors(again) > _syntax_errors(checked):
            outcome.undone = True
            break
        outcome.text, checked = text, again
        outcome.applied.extend(fixes)
        outcome.checked = checked
    return outcome
