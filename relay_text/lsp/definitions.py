"""Go to definition and find references.

Both start from the name under the cursor (see `names`): a local's binding
(a parameter, a `let`, a pattern variable, a graph binding `%0 = ...`), a
global's `def` (in the document or in the Prelude), a constructor's entry
in its `data`/`type` definition, a data type's name. Operators have no
definition in Relay text.

They ask the document's `views`: while the file has syntax errors, a name
in a definition that parses is read in the recovered analysis, one in a
broken definition in the last version that parsed (where its text is
unchanged), else from the tokens.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from . import names as nm
from .diagnostics import location, span_range
from .views import Found, Views

if TYPE_CHECKING:
    from .server import RelayLanguageServer


def definition(views: Views, offset: int, encoding: str) -> list[lsp.Location]:
    lines = views.lines(encoding)
    for view in views.order(offset):
        at = view.to_view(offset)
        occ = view.analysis.names.at(at) if at is not None else None
        if occ is None or occ.target.kind == nm.OPERATOR:
            continue
        owner, target = view, occ.target
        if view is views.main and target.kind in nm.LOCAL_KINDS and target.node is None and views.good is not None:
            # placed by the tokens: the binding the last good version knows, if unchanged
            better = views.in_other(Found(view, target, occ.start, occ.end, occ.is_def), views.good)
            if better is not None:
                owner, target = views.good, better
        d = target.definition
        if d is None:
            continue
        if owner.in_document(d):
            span = owner.span_from_view(d.start, d.end)
            if span is None:
                continue  # edited since: another view may know
            return [lsp.Location(views.uri, span_range(span[0], span[1], lines))]
        loc = location(d, owner.analysis, encoding)
        return [loc] if loc is not None else []
    return []


def references(views: Views, offset: int, include_declaration: bool, encoding: str) -> list[lsp.Location]:
    """Every place the document names what is under the cursor, and its
    definition (when asked) even if it lies in the Prelude."""
    found = views.find(offset)
    if found is None:
        return []
    lines = views.lines(encoding)
    out: list[lsp.Location] = []
    d = found.target.definition
    if include_declaration and d is not None and not found.view.in_document(d):
        loc = location(d, found.view.analysis, encoding)
        if loc is not None:
            out.append(loc)
    for (start, end), is_def in views.occurrences(found).items():
        if is_def and not include_declaration:
            continue
        out.append(lsp.Location(views.uri, span_range(start, end, lines)))
    return out


def register(server: RelayLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    async def definition_request(ls: Any, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
        views = await ls.views(params.text_document.uri)
        return definition(views, ls.offset(views.current, params.position), ls.encoding) or None

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    async def references_request(ls: Any, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
        views = await ls.views(params.text_document.uri)
        include = params.context.include_declaration if params.context is not None else True
        return references(views, ls.offset(views.current, params.position), include, ls.encoding) or None
