"""Formatting a whole document with `format_source`, as `relay fmt` does.

Settings (`line-length`, `dialect`) come from `[tool.relay]` in the
nearest `pyproject.toml` above the file, as for `relay fmt`; a file with
`\\r\\n` line ends keeps them. The result is a list of edits that change
only the lines that differ. A file that does not parse, or that the
formatter refuses, gets no edit: `FormatError` carries the reason, which the
server returns as the request's error.
"""

from __future__ import annotations

import difflib
import os
from typing import Any

from lsprotocol import types as lsp

from ..ir.span import Source
from .document import REQUEST_FAILED, Analysis
from .positions import UTF16


class FormatError(Exception):
    """The document cannot be formatted; the message says why."""


def settings_for(path: str) -> dict[str, Any]:
    """`[tool.relay]` settings for a file, as `relay fmt` reads them (none
    when the file has no path on disk or the table cannot be read)."""
    if not os.path.isabs(path):
        return {}
    try:
        from ..config import find_pyproject, fmt_settings, load

        pyproject = find_pyproject([path])
        return fmt_settings(load(pyproject), pyproject) if pyproject is not None else {}
    except Exception:  # noqa: BLE001 - a bad pyproject.toml is `relay fmt`'s to report
        return {}


def formatted_text(analysis: Analysis) -> str:
    """The document's text formatted, or FormatError."""
    from ..formatter import UnsafeFormat, format_source

    from ..files import Input

    document = Input(analysis.source.name, analysis.text)
    newline = document.newline  # (`\\r\\n`, a lone `\\r` or `\\n`, as the first line ends)
    plain = document.lf_text
    settings = settings_for(analysis.source.name)
    try:
        result = format_source(
            Source(analysis.source.name, plain),
            settings.get("dialect", "keep"),
            settings.get("line_length", 100),
        )
    except UnsafeFormat as exc:
        raise FormatError(f"relay fmt refused this file: {exc.reason} (an internal error; `relay fmt` saves both texts for a report)") from None
    if result.text is None:
        first = next((d for d in result.diagnostics if d.is_error), result.diagnostics[0] if result.diagnostics else None)
        if first is None:
            raise FormatError("cannot format this file")
        line, col = first.span.start_line_col if first.span is not None else (0, 0)
        more = len(result.diagnostics) - 1
        tail = f" (and {more} more)" if more > 0 else ""
        raise FormatError(f"cannot format this file: {line}:{col}: {first.severity}[{first.code}]: {first.message}{tail}")
    out = result.text
    return out.replace("\n", newline) if newline != "\n" else out


def format_edits(analysis: Analysis, encoding: str = UTF16) -> list[lsp.TextEdit]:
    """Edits turning the document into its formatted text, line by line."""
    new = formatted_text(analysis)
    old = analysis.text
    if new == old:
        return []
    lines = analysis.lines(encoding)
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    # character offsets of each old line
    starts = [0]
    for line in a:
        starts.append(starts[-1] + len(line))
    edits = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        start, end = starts[i1], starts[i2]
        sl, sc = lines.position(start)
        el, ec = lines.position(end)
        edits.append(lsp.TextEdit(lsp.Range(lsp.Position(sl, sc), lsp.Position(el, ec)), "".join(b[j1:j2])))
    return edits


def register(server: Any) -> None:
    import asyncio

    from pygls.exceptions import JsonRpcException

    @server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
    async def formatting_request(ls: Any, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit] | None:
        analysis = await ls.analysis(params.text_document.uri)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(ls.checker, format_edits, analysis, ls.encoding)
        except FormatError as exc:
            raise JsonRpcException(str(exc), code=REQUEST_FAILED) from None
