"""Document symbols: the globals a file defines, and its data types with
their constructors (an outline, in source order)."""

from __future__ import annotations

import gc
from typing import Any

from lsprotocol import types as lsp

from . import names as nm
from .diagnostics import span_range
from .document import Analysis
from .positions import UTF16, line_start


def document_symbols(analysis: Analysis, encoding: str = UTF16) -> list[lsp.DocumentSymbol]:
    """The outline of a document: its globals and data types (with their
    constructors), each with its type. Linear in the definitions (measured
    by benchmarks/corners.py: about 70 us a definition at 2,000 and at
    80,000, where it was quadratic: 8.6 s at 16,000); the objects
    it makes hold no cycles, so the collector is paused meanwhile (it would
    rescan the document's whole analysis again and again)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _document_symbols(analysis, encoding)
    finally:
        if was_enabled:
            gc.enable()


def _document_symbols(analysis: Analysis, encoding: str) -> list[lsp.DocumentSymbol]:
    lines = analysis.lines(encoding)
    module = analysis.module
    if module is None:
        return _from_names(analysis, encoding)
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
                    detail=_type_text(ty),
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
                        detail=_type_text(ty),
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


def _type_text(ty: Any) -> str | None:
    if ty is None:
        return None
    from ..text.type_text import type_text

    return type_text(ty)


def _from_names(analysis: Analysis, encoding: str) -> list[lsp.DocumentSymbol]:
    """A file that does not parse: the definitions its tokens show."""
    lines = analysis.lines(encoding)
    tables = analysis.names.tables
    out = []
    ranges = nm._top_level_ranges(analysis.tokens, len(analysis.text))
    for target, kind in [(t, lsp.SymbolKind.Function) for t in tables.globals.values()] + [
        (t, lsp.SymbolKind.Enum) for t in tables.datas.values()
    ]:
        d = target.definition
        if d is None or d.source is not analysis.source:
            continue
        whole = nm._enclosing(ranges, d.start) or (d.start, d.end)
        end = whole[1]
        while end > d.end and analysis.text[end - 1].isspace():
            end -= 1
        start = line_start(analysis.text, d.start)
        out.append(
            lsp.DocumentSymbol(
                name=target.name,
                kind=kind,
                range=span_range(min(start, d.start), end, lines),
                selection_range=span_range(d.start, d.end, lines),
            )
        )
    out.sort(key=lambda s: (s.range.start.line, s.range.start.character))
    return out
