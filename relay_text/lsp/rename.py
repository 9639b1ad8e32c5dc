"""Rename: a local (`%x`, a graph binding `%0`), a global (`@f`), a data
type or a constructor, everywhere the document names it.

`prepare` says what the cursor is on (the range of the name, sigil
included) or why it cannot be renamed: an operator, a name the Prelude
defines, a keyword, blank space, a file with syntax errors (a rename must
be checked, and its text is not all understood). `rename` checks the new
name as the lexer would read it (the sigil may be left out: `y` renames
`%x` to `%y`), then proves the edit keeps the program's meaning before
answering: the renamed text is checked again, and every name in it must
refer to what the same name referred to before (a new name that another
binding would capture, or that would hide one, changes that), and no new
error may appear (a global or type whose name is taken). Otherwise the
request fails with a message saying why.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from . import names as nm
from .diagnostics import span_range
from .document import REQUEST_FAILED, Analysis
from .positions import UTF16
from .tokens import KEYWORDS

if TYPE_CHECKING:
    from .server import RelayLanguageServer

_LOCAL = re.compile(r"%[A-Za-z0-9_]+")
_GLOBAL = re.compile(r"@[A-Za-z_][A-Za-z0-9_]*")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SIGIL = {nm.VARIABLE: "%", nm.PARAMETER: "%", nm.BINDING: "%", nm.GLOBAL: "@", nm.CONSTRUCTOR: "", nm.DATA: ""}
_WHAT = {
    nm.VARIABLE: "variable",
    nm.PARAMETER: "parameter",
    nm.BINDING: "graph binding",
    nm.GLOBAL: "global function",
    nm.CONSTRUCTOR: "constructor",
    nm.DATA: "data type",
}


class RenameError(Exception):
    """The rename cannot be done; the message says why (shown to the user)."""


@dataclass
class Renamable:
    """The name under the cursor that can be renamed."""

    target: nm.Target
    start: int
    end: int


def prepare(analysis: Analysis, offset: int) -> Renamable:
    """The name at `offset` to rename, or RenameError."""
    if not analysis.parsed:
        raise RenameError(
            "cannot rename while the file has syntax errors: fix them first (a rename is checked against "
            "the whole file)"
        )
    occ = analysis.names.at(offset)
    if occ is None:
        raise RenameError("there is no name here to rename")
    target = occ.target
    if target.kind == nm.OPERATOR:
        raise RenameError(f"`{target.name}` is an operator: operators cannot be renamed")
    if target.prelude or (target.definition is not None and target.definition.source is not analysis.source):
        raise RenameError(f"`{target.name}` is defined in the Prelude: it cannot be renamed here")
    if analysis.text[occ.start : occ.end] != target.name:
        raise RenameError(f"`{target.name}` is not written as a whole name here")
    return Renamable(target, occ.start, occ.end)


def new_name_for(target: nm.Target, new_name: str) -> str:
    """The new name, its sigil added if left out, or RenameError."""
    from ..ir.ty import canonical_dtype

    kind = target.kind
    sigil = _SIGIL[kind]
    what = _WHAT[kind]
    name = new_name.strip()
    if sigil and not name.startswith(sigil):
        if name[:1] in "%@":
            raise RenameError(f"`{name}` cannot name a {what}: its name begins with `{sigil}`")
        name = sigil + name
    if kind in nm.LOCAL_KINDS:
        valid = _LOCAL.fullmatch(name) is not None
        rule = "`%` then letters, digits and `_`"
    elif kind == nm.GLOBAL:
        valid = _GLOBAL.fullmatch(name) is not None
        rule = "`@` then a letter or `_`, then letters, digits and `_`"
    else:
        if name[:1] in "%@":
            raise RenameError(f"`{name}` cannot name a {what}: it takes no sigil")
        valid = _NAME.fullmatch(name) is not None
        rule = "a letter or `_`, then letters, digits and `_`"
        if valid and name in KEYWORDS:
            raise RenameError(f"`{name}` is a keyword: it cannot name a {what}")
        if valid and canonical_dtype(name) is not None:
            raise RenameError(f"`{name}` is a dtype: it cannot name a {what}")
    if not valid:
        raise RenameError(f"`{new_name}` is not a valid {what} name (expected {rule})")
    return name


def rename(analysis: Analysis, offset: int, new_name: str, encoding: str = UTF16) -> lsp.WorkspaceEdit:
    """The edits renaming the name at `offset`, checked to keep the meaning."""
    found = prepare(analysis, offset)
    target = found.target
    name = new_name_for(target, new_name)
    occurrences = analysis.names.references(target)
    text = analysis.text
    for occ in occurrences:
        if text[occ.start : occ.end] != target.name:
            raise RenameError(f"`{target.name}` is written in a form a rename cannot edit at {occ.start}")
    if name == target.name:
        return lsp.WorkspaceEdit(changes={analysis.uri: []})
    _not_the_preludes(analysis, target, name)
    spans = sorted({(o.start, o.end) for o in occurrences})
    new_text = _apply(text, spans, name)
    _verify(analysis, Analysis(analysis.uri, new_text, analysis.version), target, name)
    lines = analysis.lines(encoding)
    edits = [lsp.TextEdit(span_range(s, e, lines), name) for s, e in spans]
    return lsp.WorkspaceEdit(changes={analysis.uri: edits})


def _not_the_preludes(analysis: Analysis, target: nm.Target, name: str) -> None:
    """A global, data type or constructor named as one of the Prelude's
    would hide it (and read ambiguously in every message): refused."""
    tables = analysis.names.tables
    table = {nm.GLOBAL: tables.globals, nm.DATA: tables.datas, nm.CONSTRUCTOR: tables.constructors}.get(target.kind)
    if table is None:
        return
    known = table.get(name[1:] if target.kind == nm.GLOBAL else name)
    if known is not None and known.prelude:
        raise RenameError(f"the Prelude defines `{name}`: a {_WHAT[target.kind]} of that name would hide it")


def _apply(text: str, spans: list[tuple[int, int]], name: str) -> str:
    out = []
    position = 0
    for start, end in spans:
        out.append(text[position:start])
        out.append(name)
        position = end
    out.append(text[position:])
    return "".join(out)


def _shape(index: Any) -> list[tuple[str, int, bool]]:
    """The document's names in order, each as (kind, which target, whether
    defined there): targets numbered by their first occurrence."""
    numbers: dict[int, int] = {}
    out = []
    for occ in index.occurrences:
        number = numbers.setdefault(id(occ.target), len(numbers))
        out.append((occ.target.kind, number, occ.is_def))
    return out


def _errors(analysis: Analysis) -> Counter[tuple[str, str]]:
    return Counter((d.code, d.message) for d in analysis.diagnostics if d.is_error)


def _verify(before: Analysis, after: Analysis, target: nm.Target, name: str) -> None:
    what = f"renaming `{target.name}` to `{name}`"
    if after.failure is not None or after.module is None:
        raise RenameError(f"{what} would make the file fail to parse")
    new_errors = _errors(after) - _errors(before)
    if new_errors:
        code, message = next(iter(new_errors))
        raise RenameError(f"{what} would give an error: {message} [{code}]")
    if _shape(before.names) != _shape(after.names):
        clash = _clash(before, name)
        raise RenameError(f"{what} would change what names refer to{clash}")


def _clash(before: Analysis, name: str) -> str:
    """Where the new name is already used, for the message."""
    for occ in before.names.occurrences:
        if occ.target.name == name:
            line = before.text.count("\n", 0, occ.start) + 1
            verb = (
                "bound"
                if occ.target.kind in nm.LOCAL_KINDS
                else "defined"
                if occ.target.definition is not None and occ.target.definition.source is before.source
                else "used"
            )
            return f": `{name}` is already {verb} (line {line})"
    if name[1:] in before.names.tables.globals:
        return f": the Prelude defines `{name}`"
    return ""


def register(server: RelayLanguageServer) -> None:
    import asyncio

    from pygls.exceptions import JsonRpcException

    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
    async def prepare_rename_request(ls: Any, params: lsp.PrepareRenameParams) -> lsp.PrepareRenamePlaceholder:
        analysis = await ls.analysis(params.text_document.uri)
        try:
            found = prepare(analysis, ls.offset(analysis, params.position))
        except RenameError as exc:
            raise JsonRpcException(str(exc), code=REQUEST_FAILED) from None
        return lsp.PrepareRenamePlaceholder(
            range=span_range(found.start, found.end, analysis.lines(ls.encoding)), placeholder=found.target.name
        )

    @server.feature(lsp.TEXT_DOCUMENT_RENAME, lsp.RenameOptions(prepare_provider=True))
    async def rename_request(ls: Any, params: lsp.RenameParams) -> lsp.WorkspaceEdit:
        analysis = await ls.analysis(params.text_document.uri)
        offset = ls.offset(analysis, params.position)
        loop = asyncio.get_running_loop()
        try:  # the renamed text is checked on the checker's thread
            return await loop.run_in_executor(ls.checker, rename, analysis, offset, params.new_name, ls.encoding)
        except RenameError as exc:
            raise JsonRpcException(str(exc), code=REQUEST_FAILED) from None
