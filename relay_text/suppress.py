"""What happens to a file's diagnostics after checking: `relay: ignore`
comments silence warnings, and `--warnings-as-errors` promotes the rest.

    let %x = 1;  // relay: ignore[unused-binding]
    // relay: ignore[unreachable-clause, unused-binding]
    case _ { 0 }
    %0 = add(%a, %b)  /* relay: ignore */

A comment holding `relay: ignore[code, ...]` silences the warnings with
those codes that start on its own line, and, when the comment stands alone
on its line, on the next line too; `relay: ignore` without a list silences
every warning there. Errors are never silenced: a program with an error
cannot run, so hiding it would only move the failure. A name in the list
that is not a diagnostic code gets an `invalid-ignore` warning (with the
closest code), since it would otherwise silence nothing without a word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .diagnostics import ERROR, Diagnostic, codes
from .ir.span import Source, Span

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, for less at import (see relay_text/record.py)
    from .record import dataclass

_DIRECTIVE = re.compile(r"(?<![\w-])relay:\s*ignore(?![\w-])(?:\[([^\]]*)\])?")

PROMOTED_NOTE = "this warning counts as an error (--warnings-as-errors)"


@dataclass
class Directive:
    """One `relay: ignore` comment: the codes it names (None: every warning)."""

    codes: frozenset[str] | None
    span: Span


def directives(comments: Iterable[object], source: Source) -> tuple[dict[int, list[Directive]], list[Diagnostic]]:
    """The lines each `relay: ignore` comment of `source` applies to, and an
    `invalid-ignore` warning for each name that is not a code."""
    from .text.suggest import close_names, or_list

    by_line: dict[int, list[Directive]] = {}
    problems: list[Diagnostic] = []
    for comment in comments:
        text: str = getattr(comment, "text", "")
        span: Span | None = getattr(comment, "span", None)
        if span is None or "relay" not in text:
            continue
        match = _DIRECTIVE.search(text)
        if match is None:
            continue
        names: frozenset[str] | None = None
        if match.group(1) is not None:
            listed = [n.strip() for n in match.group(1).split(",") if n.strip()]
            names = frozenset(listed)
            offset = span.start + match.start(1)
            for name in listed:
                if name in codes.REGISTRY:
                    continue
                at = text.find(name, match.start(1))
                where = (
                    Span(source, span.start + at, span.start + at + len(name))
                    if at >= 0
                    else Span(source, offset, offset)
                )
                diag = Diagnostic(
                    codes.INVALID_IGNORE,
                    f"`{name}` is not a diagnostic code",
                    where,
                    label="silences nothing",
                )
                guesses = close_names(name, codes.REGISTRY)
                if guesses:
                    diag.with_choices(
                        f"did you mean {or_list([f'`{g}`' for g in guesses])}?", where if at >= 0 else None, guesses
                    )
                else:
                    diag.with_help("`relay explain` lists the codes")
                problems.append(diag)
        directive = Directive(names, span)
        first, _ = span.start_line_col
        last, _ = span.end_line_col
        lines = set(range(first, last + 1))
        if not source.line_text(first)[: span.start_line_col[1] - 1].strip():
            lines.add(last + 1)  # a comment on its own line covers the next line
        for line in lines:
            by_line.setdefault(line, []).append(directive)
    return by_line, problems


def apply_ignores(diagnostics: list[Diagnostic], comments: Iterable[object], source: Source) -> list[Diagnostic]:
    """`diagnostics` without the warnings that `relay: ignore` comments of
    `source` silence, plus warnings about names in them that are not codes."""
    comments = list(comments)
    if not any("relay" in getattr(c, "text", "") for c in comments):
        return diagnostics
    by_line, problems = directives(comments, source)
    if not by_line:
        return diagnostics
    kept = [d for d in diagnostics if not _silenced(d, by_line, source)]
    if problems:
        from .diagnostics import sort_key

        kept = sorted(kept + [p for p in problems if not _silenced(p, by_line, source)], key=sort_key)
    return kept


def _silenced(diag: Diagnostic, by_line: dict[int, list[Directive]], source: Source) -> bool:
    if diag.severity == ERROR or diag.span is None or diag.span.source is not source:
        return False
    for directive in by_line.get(diag.span.start_line_col[0], ()):
        if directive.codes is None or diag.code in directive.codes:
            return True
    return False


def warnings_as_errors(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Every warning as an error (with a note saying so); errors unchanged."""
    return [d.as_error(PROMOTED_NOTE) for d in diagnostics]


def ignored_codes(names: Iterable[str]) -> tuple[frozenset[str], list[str]]:
    """The codes of the `ignore` setting that silence something, and a
    warning for each name that is not a warning's code (an error's code
    cannot be ignored, as with `relay: ignore`)."""
    from .text.suggest import close_names, or_list

    kept: set[str] = set()
    problems: list[str] = []
    for name in names:
        code = codes.REGISTRY.get(name)
        if code is None:
            guesses = close_names(name, codes.REGISTRY)
            hint = (
                f"; did you mean {or_list([f'`{g}`' for g in guesses])}?"
                if guesses
                else "; `relay explain` lists the codes"
            )
            problems.append(f"`{name}` in `ignore` is not a diagnostic code{hint}")
        elif code.severity == ERROR:
            problems.append(f"`{name}` in `ignore` is an error, and errors cannot be ignored")
        else:
            kept.add(name)
    return frozenset(kept), problems


def without_ignored(diagnostics: list[Diagnostic], ignored: frozenset[str]) -> list[Diagnostic]:
    """`diagnostics` without the warnings whose codes the `ignore` setting lists."""
    if not ignored:
        return diagnostics
    return [d for d in diagnostics if d.severity == ERROR or str(d.code) not in ignored]
