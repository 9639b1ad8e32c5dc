"""relay-text diagnostics as LSP diagnostics.

* range: the diagnostic's span, in the client's position encoding;
* code: the stable code (`type-mismatch`, ...), source `relay`;
* message: the message, then its notes and helps one a line
  (`note: ...`, `help: ...`), as `relay check` prints them;
* relatedInformation: the text beside the carets (the primary label, at the
  same range), then every secondary label, which may be in another file:
  a label in the Prelude points into `relay_text/std/prelude.rly` as
  installed;
* tags: `unnecessary` for an unused binding or an unreachable clause,
  `deprecated` for a renamed operator.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from ..diagnostics import codes
from ..ir.span import Source, Span
from .document import Analysis
from .positions import UTF16, LineIndex

SOURCE = "relay"
_TAGS = {
    codes.UNUSED_BINDING: [lsp.DiagnosticTag.Unnecessary],
    codes.UNREACHABLE_CLAUSE: [lsp.DiagnosticTag.Unnecessary],
    codes.RENAMED_OPERATOR: [lsp.DiagnosticTag.Deprecated],
}
_OTHER_LINES: dict[int, tuple[Source, LineIndex]] = {}


def prelude_uri() -> str:
    from ..std import PRELUDE_FILE

    return PRELUDE_FILE.resolve().as_uri()


def location(span: Span | None, analysis: Analysis, encoding: str = UTF16) -> lsp.Location | None:
    """Where a span is, as an LSP location: in the document, in the Prelude, or in a file named by its path."""
    if span is None:
        return None
    source = span.source
    if source is analysis.source:
        return lsp.Location(analysis.uri, span_range(span.start, span.end, analysis.lines(encoding)))
    uri = _uri_of(source)
    if uri is None:
        return None
    return lsp.Location(uri, span_range(span.start, span.end, _lines_of(source, encoding)))


def _uri_of(source: Source) -> str | None:
    from ..std import SOURCE_NAME

    if source.name == SOURCE_NAME:
        return prelude_uri()
    if os.path.isabs(source.name):
        return Path(source.name).as_uri()
    return None


def _lines_of(source: Source, encoding: str) -> LineIndex:
    key = id(source)
    cached = _OTHER_LINES.get(key)
    if cached is None or cached[0] is not source or cached[1].encoding != encoding:
        cached = _OTHER_LINES[key] = (source, LineIndex(source.text, encoding))
    return cached[1]


def span_range(start: int, end: int, lines: LineIndex) -> lsp.Range:
    sl, sc = lines.position(start)
    el, ec = lines.position(end)
    return lsp.Range(lsp.Position(sl, sc), lsp.Position(el, ec))


def message_of(diag: Any) -> str:
    lines = [diag.message]
    lines.extend(f"note: {n}" for n in diag.notes)
    lines.extend(f"help: {h}" for h in diag.helps)
    return "\n".join(lines)


def to_lsp(diag: Any, analysis: Analysis, encoding: str = UTF16) -> lsp.Diagnostic:
    lines = analysis.lines(encoding)
    span = diag.span
    if span is not None and span.source is analysis.source:
        rng = span_range(span.start, span.end, lines)
    else:
        rng = lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
    related: list[lsp.DiagnosticRelatedInformation] = []
    if diag.label and span is not None:
        loc = location(span, analysis, encoding)
        if loc is not None:
            related.append(lsp.DiagnosticRelatedInformation(loc, diag.label))
    for label in diag.labels:
        loc = location(label.span, analysis, encoding)
        if loc is not None:
            related.append(lsp.DiagnosticRelatedInformation(loc, label.message or "related"))
    message = message_of(diag)
    if span is not None and span.source is not analysis.source:
        # reported elsewhere (the Prelude): say where, at the top of the file
        message = f"{span}: {message}"
    return lsp.Diagnostic(
        range=rng,
        message=message,
        severity=lsp.DiagnosticSeverity.Error if diag.is_error else lsp.DiagnosticSeverity.Warning,
        code=diag.code,
        source=SOURCE,
        related_information=related or None,
        tags=_TAGS.get(diag.code),
    )


def document_diagnostics(analysis: Analysis, encoding: str = UTF16) -> list[lsp.Diagnostic]:
    from ..suppress import without_ignored

    kept = without_ignored(analysis.diagnostics, ignored_for(analysis.source.name))
    out = [to_lsp(d, analysis, encoding) for d in kept]
    if analysis.failure is not None:
        out.append(
            lsp.Diagnostic(
                range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)),
                message=f"internal error while checking this file: {analysis.failure}\n"
                "this is a bug in relay-text; please report it with the file",
                severity=lsp.DiagnosticSeverity.Error,
                code=codes.INTERNAL_ERROR,
                source=SOURCE,
            )
        )
    return out


def ignored_for(path: str) -> frozenset[str]:
    """The warning codes that the `ignore` setting of the pyproject.toml
    nearest to `path` silences, as `relay check` reads it (none for a
    document without a path on disk, or when that table cannot be read:
    `relay check` reports a broken table, the editor keeps every warning)."""
    if not os.path.isabs(path):
        return frozenset()
    from ..config import ConfigError, settings_for
    from ..suppress import ignored_codes

    try:
        names = settings_for([path]).get("ignore", [])
    except (ConfigError, OSError):
        return frozenset()
    return ignored_codes(names)[0]
