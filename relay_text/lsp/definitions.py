"""Go to definition and find references.

Both start from the name under the cursor (see `names`): a local's binding
(a parameter, a `let`, a pattern variable, a graph binding `%0 = ...`), a
global's `def` (in the document or in the Prelude), a constructor's entry
in its `data`/`type` definition, a data type's name. Operators have no
definition in Relay text.
"""

from __future__ import annotations

from lsprotocol import types as lsp

from . import names as nm
from .diagnostics import location, span_range
from .document import Analysis
from .positions import UTF16


def definition(analysis: Analysis, offset: int, encoding: str = UTF16) -> list[lsp.Location]:
    occ = analysis.names.at(offset)
    if occ is None or occ.target.kind == nm.OPERATOR:
        return []
    loc = location(occ.target.definition, analysis, encoding)
    return [loc] if loc is not None else []


def references(analysis: Analysis, offset: int, include_declaration: bool = True, encoding: str = UTF16) -> list[lsp.Location]:
    """Every place the document names what is under the cursor, and its
    definition (when asked) even if it lies in the Prelude."""
    index = analysis.names
    occ = index.at(offset)
    if occ is None:
        return []
    target = occ.target
    lines = analysis.lines(encoding)
    out: list[lsp.Location] = []
    definition_span = target.definition
    in_document = definition_span is not None and definition_span.source is analysis.source
    if include_declaration and definition_span is not None and not in_document:
        loc = location(definition_span, analysis, encoding)
        if loc is not None:
            out.append(loc)
    for o in index.references(target):
        if o.is_def and not include_declaration:
            continue
        out.append(lsp.Location(analysis.uri, span_range(o.start, o.end, lines)))
    return out
