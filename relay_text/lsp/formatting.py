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
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from ..ir.span import Source
from .document import REQUEST_FAILED, Analysis, blanked
from .positions import UTF16

if TYPE_CHECKING:
    from .server import RelayLanguageServer


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
    except Exception:
        return {}


def formatted_text(analysis: Analysis, dialect: str | None = None) -> str:
    """The document's text formatted (in `dialect`, by default the one
    `[tool.relay]` sets), or FormatError."""
    return format_text(analysis.source.name, analysis.text, dialect)


def format_text(name: str, text: str, dialect: str | None = None) -> str:
    """`text` (of the file `name`) formatted, or FormatError."""
    from ..formatter import UnsafeFormat, format_source

    from ..files import Input

    document = Input(name, text)
    newline = document.newline  # (`\\r\\n`, a lone `\\r` or `\\n`, as the first line ends)
    plain = document.lf_text
    settings = settings_for(name)
    try:
        result = format_source(
            Source(name, plain),
            dialect or settings.get("dialect", "keep"),
            settings.get("line_length", 100),
        )
    except UnsafeFormat as exc:
        raise FormatError(
            f"relay fmt refused this file: {exc.reason} (an internal error; `relay fmt` saves both texts for a report)"
        ) from None
    if result.text is None:
        first = next(
            (d for d in result.diagnostics if d.is_error), result.diagnostics[0] if result.diagnostics else None
        )
        if first is None:
            raise FormatError("cannot format this file")
        line, col = first.span.start_line_col if first.span is not None else (0, 0)
        more = len(result.diagnostics) - 1
        tail = f" (and {more} more)" if more > 0 else ""
        raise FormatError(
            f"cannot format this file: {line}:{col}: {first.severity}[{first.code}]: {first.message}{tail}"
        )
    out = result.text
    return out.replace("\n", newline) if newline != "\n" else out


def format_edits(analysis: Analysis, encoding: str = UTF16) -> list[lsp.TextEdit]:
    """Edits turning the document into its formatted text, line by line."""
    return diff_edits(analysis.text, formatted_text(analysis), analysis.lines(encoding))


def diff_edits(old: str, new: str, lines: Any) -> list[lsp.TextEdit]:
    """Edits turning `old` into `new`, one for each run of lines that differ
    (`lines`: the LineIndex of `old`)."""
    if new == old:
        return []
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


def range_edits(analysis: Analysis, start: int, end: int, encoding: str = UTF16) -> list[lsp.TextEdit]:
    """Edits formatting the top-level definitions that the range `start`
    to `end` touches, each as a whole, the rest of the file as it is.

    The definitions are formatted as `relay fmt` formats the whole file
    (in the file's own dialect: a part cannot change it), then taken one
    by one from the formatted text: from the first token of each to its
    last, the comments between them left alone. The file with those
    definitions replaced must format to what the whole file formats to,
    which proves it means the same (`relay fmt` keeps the meaning);
    otherwise FormatError.

    A file with syntax errors is formatted through its recovered analysis
    (`recovery`, whose `holes` are its broken definitions): the text with
    those blanked out is formatted, the definitions that parse are
    formatted as above, the broken ones are left as they are.
    """
    holes = analysis.holes
    old = blanked(analysis.text, holes) if holes else analysis.text
    if holes and any(hs <= start and end <= he for hs, he in holes):
        raise FormatError("cannot format here: this definition has syntax errors (fix them to format it)")
    new = format_text(analysis.source.name, old, dialect="keep")
    if new == old:
        return []
    old_cores = definitions(old)
    new_cores = definitions(new)
    if [_head(old, c) for c in old_cores] != [_head(new, c) for c in new_cores]:
        raise FormatError(
            "cannot format part of this file: its definitions do not match those of the formatted file "
            "(format the whole file)"
        )
    touched = [i for i, (s, e) in enumerate(old_cores) if s <= end and start <= e]
    changed = [i for i in touched if old[old_cores[i][0] : old_cores[i][1]] != new[new_cores[i][0] : new_cores[i][1]]]
    if not changed:
        return []
    out = []
    position = 0
    for i in changed:
        s, e = old_cores[i]
        out.append(old[position:s])
        out.append(new[new_cores[i][0] : new_cores[i][1]])
        position = e
    out.append(old[position:])
    if format_text(analysis.source.name, "".join(out), dialect="keep") != new:
        raise FormatError(
            "cannot format part of this file: formatting these definitions alone would not keep the file's "
            "meaning (format the whole file)"
        )
    lines = analysis.lines(encoding)
    edits = []
    for i in changed:
        s, e = old_cores[i]
        sl, sc = lines.position(s)
        el, ec = lines.position(e)
        edits.append(
            lsp.TextEdit(lsp.Range(lsp.Position(sl, sc), lsp.Position(el, ec)), new[new_cores[i][0] : new_cores[i][1]])
        )
    return edits


def definitions(text: str) -> list[tuple[int, int]]:
    """The top-level definitions of a text (and the expression of a file
    that is one), each from its first token to its last, comments before
    and after it left out; the version header and the metadata section are
    none."""
    from . import recovery
    from . import tokens as tk

    toks = tk.scan(text)
    out = []
    for start, end in recovery.items(toks, len(text)):
        i = tk.index_before(toks, start) + 1
        first = last = None
        while i < len(toks) and toks[i].start < end:
            tok = toks[i]
            if tok.kind == tk.METADATA:
                break
            if tok.kind not in (tk.COMMENT, tk.HEADER):
                first = first or tok
                last = tok
            i += 1
        if first is not None and last is not None:
            out.append((first.start, last.end))
    return out


def _head(text: str, core: tuple[int, int]) -> str:
    """What begins a definition (`def @main`, `data List`), to pair it with its formatted self."""
    words = text[core[0] : min(core[1], core[0] + 200)].split(None, 2)
    return " ".join(words[:2]).split("(")[0].split("[")[0].split("<")[0]


def register(server: RelayLanguageServer) -> None:
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

    @server.feature(lsp.TEXT_DOCUMENT_RANGE_FORMATTING)
    async def range_formatting_request(ls: Any, params: lsp.DocumentRangeFormattingParams) -> list[lsp.TextEdit] | None:
        analysis = await ls.analysis(params.text_document.uri)
        if not analysis.parsed:  # the definitions that parse can be formatted
            recovered = (await ls.views(params.text_document.uri)).main.analysis
            if recovered.module is not None:
                analysis = recovered
        start = ls.offset(analysis, params.range.start)
        end = ls.offset(analysis, params.range.end)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(ls.checker, range_edits, analysis, start, end, ls.encoding)
        except FormatError as exc:
            raise JsonRpcException(str(exc), code=REQUEST_FAILED) from None
