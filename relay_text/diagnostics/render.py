"""Rendering diagnostics: rustc-style text (optionally coloured) and JSON.

    error[unbound-variable]: unbound variable `%y`
     --> prog.rly:3:5
      |
    3 |     %y + 1
      |     ^^ not bound here
      |
      = help: did you mean `%x`?

The text is built as lines of (text, style) segments. Without colour they
are joined into plain text, so rich is imported only when colour is on;
source text is never interpreted as rich markup.
"""

from __future__ import annotations

import functools
import re

import os
import sys
import unicodedata
from typing import IO, Any
from collections.abc import Iterable

from . import Diagnostic

Segment = tuple[str, str]  # (text, style); style "" means plain
Line = list[Segment]

_SEVERITY_STYLE = {"error": "bold red", "warning": "bold yellow"}
_GUTTER = "bold blue"


def _char_width(ch: str) -> int:
    """Terminal columns a character takes: 2 for wide (CJK) characters, 0
    for combining marks and zero-width ones, else 1."""
    if ch.isascii():
        return 1
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


# Characters a terminal would not show as one column of their own (controls,
# bidirectional-text overrides that reorder the line, zero-width ones): shown
# as U+FFFD, one column each, so that the line reads as it is and the carets
# stay under it (the message names the character).
# (Compiled when a line is first shown: a clean run shows none.)
@functools.cache
def _invisible() -> re.Pattern[str]:
    return re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def _visible(text: str) -> str:
    invisible = _invisible()
    return invisible.sub("\ufffd", text) if not text.isascii() or invisible.search(text) else text


def _caret_row(line_text: str, start_col: int, end_col: int, mark: str) -> str:
    """Spaces up to `start_col` (tabs kept, so carets line up), then marks,
    as many columns as the characters take on a terminal (two under a wide
    character)."""
    prefix = "".join(ch if ch == "\t" else " " * _char_width(ch) for ch in line_text[: start_col - 1])
    marked = line_text[start_col - 1 : end_col]
    width = sum(_char_width(ch) for ch in marked) if not marked.isascii() else len(marked)
    return prefix + mark * max(1, width, end_col - start_col + 1 - len(marked) + width)


MAX_SOURCE_WIDTH = 120  # longer source lines are shown as a window around their labels
_CONTEXT = 20  # columns kept before the leftmost label of a trimmed line
_ELLIPSIS = "..."


def _window(text: str, labels: list[tuple[int, int]]) -> tuple[str, int, int]:
    """The part of a source line to show: (shown text, columns cut from the
    left, last column shown). A line of at most MAX_SOURCE_WIDTH is shown
    whole; a longer one (a minified or generated file) from a little before
    its leftmost label, marked with `...` where it was cut."""
    if len(text) <= MAX_SOURCE_WIDTH:
        return text, 0, len(text)
    lo = min(start for start, _ in labels)
    hi = max(end for _, end in labels)
    left = max(1, lo - _CONTEXT)
    right = min(len(text), max(hi, left + MAX_SOURCE_WIDTH // 2) + _CONTEXT, left + MAX_SOURCE_WIDTH - 1)
    shown = text[left - 1 : right]
    cut = left - 1
    if cut:
        shown = _ELLIPSIS + shown
        cut -= len(_ELLIPSIS)
    if right < len(text):
        shown += _ELLIPSIS
    return shown, cut, right


LabelRow = tuple[int, int, int, str, bool]  # line, start col, end col, message, primary


def _labelled_lines(diag: Diagnostic) -> list[tuple[Any, list[LabelRow]]]:
    """Labels grouped by the file they point into (the primary's file first),
    each group as (line, start col, end col, message, primary) by line."""
    groups: dict[Any, list[LabelRow]] = {}
    spans = [(diag.span, diag.label, True)] if diag.span is not None else []
    spans += [(lab.span, lab.message, False) for lab in diag.labels]
    for span, message, primary in spans:
        if span is None:
            continue
        line, col = span.start_line_col
        end_line, end_col = span.end_line_col
        if end_line != line or span.end <= span.start:
            end_col = max(col, len(span.source.line_text(line)))
            if span.end <= span.start:
                end_col = col
        groups.setdefault(span.source, []).append((line, col, end_col, message, primary))
    for rows in groups.values():
        rows.sort(key=lambda t: (t[0], not t[4]))
    return list(groups.items())


def diagnostic_lines(diag: Diagnostic) -> list[Line]:
    sev_style = _SEVERITY_STYLE.get(diag.severity, "bold")
    lines: list[Line] = [[(f"{diag.severity}[{diag.code}]", sev_style), (f": {diag.message}", "bold")]]
    groups = _labelled_lines(diag)
    if diag.span is None or not groups:
        for note in diag.notes:
            lines.append([("  = ", _GUTTER), ("note", "bold"), (f": {note}", "")])
        for text in diag.helps:
            lines.append([("  = ", _GUTTER), ("help", "bold"), (f": {text}", "")])
        return lines
    width = len(str(max(row[0] for _, rows in groups for row in rows)))
    pad = " " * width
    for index, (source, rows) in enumerate(groups):
        # `-->` names the error's own place; `:::` another file a label points into
        line, col = (diag.location()[1:3]) if index == 0 else rows[0][:2]
        arrow = "-->" if index == 0 else ":::"
        lines.append([(f"{pad}{arrow} ", _GUTTER), (f"{source.name}:{line}:{col}", "")])
        lines.append([(f"{pad} |", _GUTTER)])
        lines += _snippet(source, rows, pad, sev_style)
    if diag.notes or diag.helps:
        lines.append([(f"{pad} |", _GUTTER)])
    for note in diag.notes:
        lines.append([(f"{pad} = ", _GUTTER), ("note", "bold"), (f": {note}", "")])
    for text in diag.helps:
        lines.append([(f"{pad} = ", _GUTTER), ("help", "bold"), (f": {text}", "")])
    return lines


def _snippet(source: Any, rows: list[LabelRow], pad: str, sev_style: str) -> list[Line]:
    """The labelled lines of one file, each followed by its carets."""
    width = len(pad)
    on_line: dict[int, list[tuple[int, int]]] = {}
    for lnum, start, end, _, _ in rows:
        on_line.setdefault(lnum, []).append((start, end))
    lines: list[Line] = []
    previous = None
    for lnum, start, end, message, primary in rows:
        text, cut, last = _window(source.line_text(lnum), on_line[lnum])
        if previous is not None and lnum > previous + 1:
            lines.append([("...", _GUTTER)])
        if lnum != previous:
            lines.append([(f"{lnum:>{width}} | ", _GUTTER), (_visible(text), "")])
        mark = "^" if primary else "-"
        style = sev_style if primary else _GUTTER
        row = _caret_row(_visible(text), start - cut, min(end, last) - cut, mark)
        lines.append([(f"{pad} | ", _GUTTER), (row + (f" {message}" if message else ""), style)])
        previous = lnum
    return lines


def plain_text(lines: Iterable[Line]) -> str:
    return "".join("".join(text for text, _ in line) + "\n" for line in lines)


def render_text(diag: Diagnostic) -> str:
    """A diagnostic as plain text (no colour)."""
    return plain_text(diagnostic_lines(diag))


def use_color(stream: IO[str], choice: str | None = None, default: str | None = None) -> bool:
    """Whether to colour what goes to `stream`.

    `choice` is the command line's `--color` (auto, always, never), which
    wins; then NO_COLOR (off) and FORCE_COLOR (on); then `default` (the
    `color` setting of `[tool.relay]`); then colour only on a terminal that
    is not `TERM=dumb` (a terminal that cannot show it)."""
    if choice in ("always", "never"):
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if default in ("always", "never"):
        return default == "always"
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


class Reporter:
    """Writes diagnostics and messages to one stream, coloured when wanted.

    Create one per command invocation, so that environment variables and the
    stream in use at that moment decide about colour.
    """

    def __init__(self, stream: IO[str] | None = None, color: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.color = use_color(self.stream) if color is None else color
        self._console: Any = None

    def _write_lines(self, lines: list[Line]) -> None:
        if not self.color:
            self.stream.write(plain_text(lines))
            return
        if self._console is None:
            from rich.console import Console

            # The decision is made: rich neither reads NO_COLOR nor probes the terminal.
            self._console = Console(
                file=self.stream,
                force_terminal=True,
                no_color=False,
                color_system="standard",
                highlight=False,
                soft_wrap=True,
            )
        from rich.text import Text

        for line in lines:
            text = Text()
            for segment, style in line:
                text.append(segment, style=style or None)
            self._console.print(text)

    def diagnostic(self, diag: Diagnostic) -> None:
        self._write_lines([*diagnostic_lines(diag), []])

    def message(self, text: str, style: str = "") -> None:
        self._write_lines([[(text, style)]])

    def flush(self) -> None:
        self.stream.flush()


def diagnostic_json(diag: Diagnostic) -> dict[str, Any]:
    """One diagnostic as JSON: its place, the text beside its carets
    (`label`), the other places it points at (`labels`, each with its own
    file) and its notes."""
    return {
        "code": str(diag.code),
        "severity": diag.severity,
        "message": diag.message,
        **_place_json(diag.span),
        "label": diag.label,
        "labels": [{**_place_json(lab.span), "message": lab.message} for lab in diag.labels if lab.span is not None],
        "notes": [*diag.notes, *(f"help: {h}" for h in diag.helps)],
        "fixes": [fix_json(fix) for fix in diag.fixes],
    }


def fix_json(fix: Any) -> dict[str, Any]:
    """A machine-applicable fix: the help line it goes with, whether
    `relay check --fix` applies it (`safe`) or only `--unsafe-fixes` does,
    and its edits (each replaces the text from `line`:`column` up to
    `end_line`:`end_column`, which is one past its end, with `text`)."""
    return {
        "message": fix.message,
        "applicability": fix.applicability,
        "edits": [_edit_json(edit) for edit in fix.edits],
    }


def _edit_json(edit: Any) -> dict[str, Any]:
    span = edit.span
    line, col = span.source.line_col(span.start)
    end_line, end_col = span.source.line_col(span.end)  # (an insertion: the same place)
    return {
        "file": span.source.name,
        "line": line,
        "column": col,
        "end_line": end_line,
        "end_column": end_col,
        "text": edit.text,
    }


def _place_json(span: Any) -> dict[str, Any]:
    """File, line, column, end line and end column (one past the last
    character) of a span; 1-based."""
    if span is None:
        return {"file": "<unknown>", "line": 0, "column": 0, "end_line": 0, "end_column": 0}
    line, col = span.start_line_col
    end_line, end_col = span.end_line_col
    return {"file": span.source.name, "line": line, "column": col, "end_line": end_line, "end_column": end_col + 1}
