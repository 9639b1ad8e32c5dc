"""Code actions: the fixes diagnostics carry, and "show graph".

* quick fixes: each fix (`Diagnostic.fixes`, the edits `relay check --fix`
  applies) of a diagnostic whose range meets the requested range, titled
  by its help line (`insert \\`;\\``, `replace with \\`%r\\``), linked to its
  diagnostic. A safe fix, the one `relay check --fix` applies, is the
  preferred action; the unsafe ones (guesses among close names) are
  offered too, as `relay check --unsafe-fixes` applies them.
* "Apply every safe fix" (`source.fixAll`): what `relay check --fix` does
  to the whole file, fix after fix until none is left.
* "Show the graph of ..." (`source`): see `graph`.

The actions are computed on the text the request is about: a fix of an
older version is never offered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from .diagnostics import span_range, to_lsp
from .document import Analysis
from .positions import UTF16

if TYPE_CHECKING:
    from .server import RelayLanguageServer

KINDS = [lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.SourceFixAll, lsp.CodeActionKind.Source]


def quick_fixes(analysis: Analysis, start: int, end: int, encoding: str = UTF16) -> list[lsp.CodeAction]:
    """The fixes of the diagnostics that meet `start`..`end`."""
    source = analysis.source
    lines = analysis.lines(encoding)
    out = []
    for diag in analysis.diagnostics:
        span = diag.span
        if not diag.fixes or span is None or span.source is not source:
            continue
        if not (span.start <= end and start <= span.end):
            continue
        linked = to_lsp(diag, analysis, encoding)
        preferred = [fix for fix in diag.fixes if fix.safe]
        for fix in diag.fixes:
            if not fix.edits or any(edit.span.source is not source for edit in fix.edits):
                continue
            edits = [
                lsp.TextEdit(span_range(e.span.start, e.span.end, lines), e.text)
                for e in sorted(fix.edits, key=lambda e: e.span.start)
            ]
            out.append(
                lsp.CodeAction(
                    title=_title(fix.message),
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=[linked],
                    is_preferred=fix.safe and len(preferred) == 1,
                    edit=lsp.WorkspaceEdit(changes={analysis.uri: edits}),
                )
            )
    return out


def _title(message: str) -> str:
    return message[:1].upper() + message[1:] if message else "Apply the fix"


def fix_all(analysis: Analysis, encoding: str = UTF16, lazy: bool = False) -> lsp.CodeAction | None:
    """Every safe fix, as `relay check --fix` applies them (None: none).
    `lazy`: without its edit, which `resolve_fix_all` adds when the user
    picks it (editors ask for code actions at every move of the cursor;
    fixing the file checks it again after each round of fixes)."""
    safe = sum(1 for diag in analysis.diagnostics if any(fix.safe for fix in diag.fixes))
    if not safe:
        return None
    title = "Apply every safe fix (`relay check --fix`)"
    if lazy:
        data = {"uri": analysis.uri, "version": analysis.version}
        return lsp.CodeAction(title=title, kind=lsp.CodeActionKind.SourceFixAll, data=data)
    edits = fixed_edits(analysis, encoding)
    if not edits:
        return None
    return lsp.CodeAction(
        title=title, kind=lsp.CodeActionKind.SourceFixAll, edit=lsp.WorkspaceEdit(changes={analysis.uri: edits})
    )


def fixed_edits(analysis: Analysis, encoding: str = UTF16) -> list[lsp.TextEdit]:
    """The edits of `relay check --fix` on the document (computed once a version)."""
    cached = analysis.fixed_text
    if cached is None:
        from ..fixes import fix_source
        from ..ir.span import Source
        from ..pipeline import check_source

        cached = fix_source(Source(analysis.source.name, analysis.text), check_source).text
        analysis.fixed_text = cached
    from .formatting import diff_edits

    return diff_edits(analysis.text, cached, analysis.lines(encoding))


def _wanted(kind: str, only: list[str] | None) -> bool:
    """Whether a kind is asked for (`only` holds kinds or their prefixes)."""
    return only is None or any(kind == o or kind.startswith(o + ".") for o in only)


def actions(
    analysis: Analysis,
    start: int,
    end: int,
    position: dict[str, int],
    only: list[str] | None,
    encoding: str,
    lazy: bool = False,
) -> list[lsp.CodeAction]:
    from .graph import graph_action

    out: list[lsp.CodeAction] = []
    if _wanted(lsp.CodeActionKind.QuickFix, only):
        out.extend(quick_fixes(analysis, start, end, encoding))
    if _wanted(lsp.CodeActionKind.SourceFixAll, only):
        every = fix_all(analysis, encoding, lazy)
        if every is not None:
            out.append(every)
    if only is None or lsp.CodeActionKind.Source in only:
        graph = graph_action(analysis, start, position)
        if graph is not None:
            out.append(graph)
    return out


def register(server: RelayLanguageServer) -> None:
    import asyncio

    from pygls.exceptions import JsonRpcException

    from .document import REQUEST_FAILED

    def resolves_edits(ls: Any) -> bool:
        caps = ls.client_capabilities.text_document
        action = caps.code_action if caps is not None else None
        support = action.resolve_support if action is not None else None
        return support is not None and "edit" in support.properties

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(code_action_kinds=KINDS, resolve_provider=True)
    )
    async def code_action_request(ls: Any, params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
        uri = params.text_document.uri
        analysis = await ls.analysis(uri)
        start = ls.offset(analysis, params.range.start)
        end = ls.offset(analysis, params.range.end)
        position = {"line": params.range.start.line, "character": params.range.start.character}
        only = (
            [str(getattr(k, "value", k)) for k in params.context.only]
            if params.context is not None and params.context.only
            else None
        )
        loop = asyncio.get_running_loop()  # fixing all re-checks the file: on the checker's thread
        found = await loop.run_in_executor(
            ls.checker, actions, analysis, start, end, position, only, ls.encoding, resolves_edits(ls)
        )
        return found or None

    @server.feature(lsp.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls: Any, action: lsp.CodeAction) -> lsp.CodeAction:
        data = action.data if isinstance(action.data, dict) else None
        if action.edit is not None or data is None or "uri" not in data:
            return action
        uri = data["uri"]
        analysis = await ls.analysis(uri)
        if analysis.version != data.get("version"):
            raise JsonRpcException("the file changed since this fix was offered: ask for it again", code=REQUEST_FAILED)
        loop = asyncio.get_running_loop()
        edits = await loop.run_in_executor(ls.checker, fixed_edits, analysis, ls.encoding)
        action.edit = lsp.WorkspaceEdit(changes={uri: edits})
        return action
