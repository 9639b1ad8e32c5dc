"""Inlay hints: the inferred type after the name of each `let` binding
written without a type (`let %y = ...`) and each graph binding (`%0 =
...`), as `: Tensor[(1, 4), float32]`.

No hint where the type is written already: an annotated `let %y : T`,
or a graph binding followed by TVM's type comment (`/* ty=... */`). No
hint for a type the check could not complete (it holds `_`). Long types
are cut (`LIMIT` characters, then ` ...`); the scalars are written as the
file writes them. While the file has syntax errors, the definitions that
parse get their hints (the recovered analysis, see `views`); the broken
ones none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from . import names as nm
from . import tokens as tk
from .document import Analysis
from .positions import UTF16
from .views import incomplete

if TYPE_CHECKING:
    from .server import RelayLanguageServer

LIMIT = 80


def inlay_hints(analysis: Analysis, start: int, end: int, encoding: str = UTF16) -> list[lsp.InlayHint]:
    """The hints of the bindings whose names lie between `start` and `end`."""
    if analysis.module is None:
        return []
    from ..ir.expr import Let

    let_vars = {id(node.var) for node in analysis.nodes or () if type(node) is Let}
    lines = analysis.lines(encoding)
    source = analysis.source
    out = []
    for target in analysis.names.binders:
        d = target.definition
        if d is None or d.source is not source or not (start <= d.start and d.end <= end) or target.node is None:
            continue
        if target.kind == nm.VARIABLE:
            var = target.node
            if id(var) not in let_vars or var.type_annotation is not None:
                continue
        elif target.kind == nm.BINDING:
            if _type_comment_after(analysis, target.node):
                continue
        else:
            continue
        ty = analysis.type_of(target.node)
        if ty is None or incomplete(ty):
            continue
        line, character = lines.position(d.end)
        out.append(
            lsp.InlayHint(
                position=lsp.Position(line, character),
                label=": " + analysis.type_text(ty, limit=LIMIT),
                kind=lsp.InlayHintKind.Type,
            )
        )
    out.sort(key=lambda h: (h.position.line, h.position.character))
    return out


def _type_comment_after(analysis: Analysis, node: Any) -> bool:
    """Whether the bound expression is followed by a `/* ty=... */` comment."""
    span = getattr(node, "span", None)
    if span is None or span.source is not analysis.source:
        return False
    toks = analysis.tokens
    i = tk.index_before(toks, span.end) + 1
    return (
        i < len(toks)
        and toks[i].kind == tk.COMMENT
        and toks[i].text.startswith("/*")
        and toks[i].text[2:].lstrip().startswith("ty=")
    )


def register(server: RelayLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT)
    async def inlay_hint_request(ls: Any, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
        views = await ls.views(params.text_document.uri)
        analysis = views.main.analysis
        start = ls.offset(views.current, params.range.start)
        end = ls.offset(views.current, params.range.end)
        return inlay_hints(analysis, start, end, ls.encoding)
