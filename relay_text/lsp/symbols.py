"""Document symbols: the globals a file defines, and its data types with
their constructors (an outline, in source order).

While the file has syntax errors, the definitions that parse come from
the recovered analysis (with their types), the broken ones from their
tokens, with the type the last version that parsed gave them (`views`)."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from . import names as nm
from . import recovery
from . import tokens as tk
from .diagnostics import span_range
from .document import Analysis
from .positions import UTF16, line_start
from .views import Views

if TYPE_CHECKING:
    from .server import RelayLanguageServer


def document_symbols(views: Views, encoding: str = UTF16) -> list[lsp.DocumentSymbol]:
    """The outline of a document: its globals and data types (with their
    constructors), each with its type. Linear in the definitions (measured
    by benchmarks/corners.py: about 70 us a definition at 2,000 and at
    80,000, where it was quadratic: 8.6 s at 16,000); the objects
    it makes hold no cycles, so the collector is paused meanwhile (it would
    rescan the document's whole analysis again and again)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        analysis = views.main.analysis
        out = _document_symbols(analysis, encoding) if analysis.module is not None else []
        if not views.current.parsed:
            for symbol in out:  # a type the recovered check left with holes: the last good one
                if symbol.kind == lsp.SymbolKind.Function:
                    typed = views.global_type(symbol.name[1:])
                    symbol.detail = typed[1].type_text(typed[0]) if typed is not None else symbol.detail
            out.extend(_from_names(views, encoding))
            out.sort(key=lambda s: (s.range.start.line, s.range.start.character))
        return out
    finally:
        if was_enabled:
            gc.enable()


def _document_symbols(analysis: Analysis, encoding: str) -> list[lsp.DocumentSymbol]:
    lines = analysis.lines(encoding)
    module = analysis.module
    source = analysis.source
    out: list[lsp.DocumentSymbol] = []
    result = analysis.result
    for item in module.order:
        if item in module.functions:
            func = module.functions[item]
            name_span = item.span
            if name_span is None or name_span.source is not source:
                continue
            whole = func.span if func.span is not None else name_span
            ty = result.global_type(item.name) if result is not None else None
            out.append(
                lsp.DocumentSymbol(
                    name="@" + item.name,
                    kind=lsp.SymbolKind.Function,
                    range=span_range(min(whole.start, name_span.start), max(whole.end, name_span.end), lines),
                    selection_range=span_range(name_span.start, name_span.end, lines),
                    detail=analysis.type_text(ty) if ty is not None else None,
                )
            )
        elif item in module.type_defs:
            data = module.type_defs[item]
            name_span = item.span
            if name_span is None or name_span.source is not source:
                continue
            whole = data.span if data.span is not None else name_span
            children = []
            for ctor in data.constructors:
                if ctor.span is None:
                    continue
                ty = result.constructor_types.get(ctor) if result is not None else None
                children.append(
                    lsp.DocumentSymbol(
                        name=ctor.name,
                        kind=lsp.SymbolKind.EnumMember,
                        range=span_range(ctor.span.start, ctor.span.end, lines),
                        selection_range=span_range(ctor.span.start, ctor.span.end, lines),
                        detail=analysis.type_text(ty) if ty is not None else None,
                    )
                )
            out.append(
                lsp.DocumentSymbol(
                    name=item.name,
                    kind=lsp.SymbolKind.Enum,
                    range=span_range(whole.start, whole.end, lines),
                    selection_range=span_range(name_span.start, name_span.end, lines),
                    detail="extern type" if data.extern else "data type",
                    children=children,
                )
            )
    return out


def _from_names(views: Views, encoding: str) -> list[lsp.DocumentSymbol]:
    """The definitions of the text that did not parse, as its tokens show them."""
    analysis = views.main.analysis
    lines = analysis.lines(encoding)
    tables = analysis.names.tables
    out = []
    ranges = nm._top_level_ranges(analysis.tokens, len(analysis.text))
    items = recovery.items(analysis.tokens, len(analysis.text))
    for target, kind in [(t, lsp.SymbolKind.Function) for t in tables.globals.values()] + [
        (t, lsp.SymbolKind.Enum) for t in tables.datas.values()
    ]:
        d = target.definition
        if d is None or d.source is not analysis.source or target.node is not None:
            continue  # the Prelude's, or the module's
        # up to the last token before the next definition's keyword (an
        # unclosed bracket does not stretch it over the next definitions)
        whole = nm._enclosing(ranges, d.start) or (d.start, d.end)
        item = nm._enclosing(items, d.start) or whole
        end = _last_code_end(analysis.tokens, d.end, min(whole[1], item[1]))
        start = line_start(analysis.text, d.start)
        detail = None
        if kind == lsp.SymbolKind.Function:
            typed = views.global_type(target.name[1:])
            detail = typed[1].type_text(typed[0]) if typed is not None else None
        out.append(
            lsp.DocumentSymbol(
                name=target.name,
                kind=kind,
                range=span_range(min(start, d.start), end, lines),
                selection_range=span_range(d.start, d.end, lines),
                detail=detail,
            )
        )
    return out


def _last_code_end(toks: list[tk.Token], floor: int, limit: int) -> int:
    """The end of the last token but comments ending by `limit` (at least `floor`)."""
    i = tk.index_before(toks, limit)
    while i >= 0 and toks[i].end > floor:
        if toks[i].kind != tk.COMMENT and toks[i].end <= limit:
            return toks[i].end
        i -= 1
    return floor


def register(server: RelayLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def symbols_request(ls: Any, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        views = await ls.views(params.text_document.uri)
        return document_symbols(views, ls.encoding)
