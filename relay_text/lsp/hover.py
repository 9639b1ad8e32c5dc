"""Hover: what the checker knows about the thing under the cursor.

* a local (`%x`, a graph binding `%0`): `%x : <its inferred type>`;
* a global: `@f : <its generalized type>`, with the comment written above
  its definition (the Prelude documents its functions that way);
* a constructor: `Cons : fn<a>(a, List[a]) -> List[a]`;
* a data type: its definition;
* an operator: its signature with attribute defaults, its doc line, and the
  type it has at this call;
* an attribute key (`padding=`): what it takes and its default;
* any other expression (a call, a literal, `fn`, `let`, `match`, ...): the
  type of the smallest expression written there.

Types are written in the documented syntax (`type_text`), in either
dialect, a scalar type as the file writes them (`float32` in a file that
writes `%x : float32`, `Tensor[(), float32]` in one that writes that).

While the file has syntax errors, `hover_views` asks the views of it
(`views`): its recovered part, then its last version that parsed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..ir.expr import Constructor, GlobalVar, Op, Var
from ..ir.span import Source
from . import names as nm
from . import tokens as tk
from .document import Analysis
from .positions import line_start
from .views import incomplete

if TYPE_CHECKING:
    from .server import RelayLanguageServer


@dataclass
class HoverText:
    code: str  # Relay text, shown as a code block
    doc: str  # prose after it (markdown), may be empty
    start: int
    end: int
    ty: Any = None  # the type shown, if any

    def markdown(self) -> str:
        out = f"```relay\n{self.code}\n```"
        return out + ("\n\n" + self.doc if self.doc else "")

    def plain(self) -> str:
        return self.code + ("\n\n" + self.doc if self.doc else "")


def hover_views(views: Any, offset: int) -> HoverText | None:
    """Hover at `offset` of the document `views` answer for (offsets of its
    current text). A type with holes (`_`, where the recovered analysis
    misses a broken definition) gives way to another view's complete one."""
    partial = None
    for view in views.order(offset):
        at = view.to_view(offset)
        if at is None:
            continue
        found = hover(view.analysis, at)
        if found is None:
            continue
        span = view.span_from_view(found.start, found.end)
        if span is None:
            continue
        found.start, found.end = span
        if found.ty is not None and incomplete(found.ty):
            partial = partial or found
            continue
        return found
    if partial is not None:
        return partial
    # a local typed since the last version that parsed, bound where that version binds it
    name = views.find(offset)
    if name is not None and name.target.kind in nm.LOCAL_KINDS:
        typed = views.local_type(name.target, name.view)
        if typed is not None:
            ty, analysis = typed
            return HoverText(f"{name.target.name} : {analysis.type_text(ty)}", "", name.start, name.end)
    return None


def hover(analysis: Analysis, offset: int) -> HoverText | None:
    occ = analysis.names.at(offset)
    if occ is not None:
        found = _name_hover(analysis, occ)
        if found is not None:
            return found
    return _expression_hover(analysis, offset)


def _name_hover(analysis: Analysis, occ: nm.Occurrence) -> HoverText | None:
    target = occ.target
    kind = target.kind
    if kind in nm.LOCAL_KINDS:
        if target.node is None:
            return None
        ty = analysis.type_of(target.node)
        if ty is None:
            return None
        return HoverText(f"{target.name} : {analysis.type_text(ty)}", "", occ.start, occ.end, ty)
    if kind == nm.GLOBAL:
        ty = _global_type(analysis, target)
        if ty is None:
            return None
        doc = _doc_comment(target, analysis)
        return HoverText(f"{target.name} : {analysis.type_text(ty)}", _with_origin(doc, target), occ.start, occ.end, ty)
    if kind == nm.CONSTRUCTOR:
        ctor = target.node
        ty = _constructor_type(analysis, ctor)
        code = f"{target.name} : {analysis.type_text(ty)}" if ty is not None else target.name
        owner = ctor.belong_to.name if isinstance(ctor, Constructor) and ctor.belong_to is not None else ""
        doc = f"A constructor of `{owner}`." if owner else ""
        return HoverText(code, _with_origin(doc, target), occ.start, occ.end)
    if kind == nm.DATA:
        data = target.detail
        if data is None:
            return None
        return HoverText(
            _data_text(data, analysis), _with_origin(_doc_comment(target, analysis), target), occ.start, occ.end
        )
    if kind == nm.OPERATOR:
        opdef = target.node
        parts = [opdef.doc] if opdef.doc else []
        if opdef.renamed_to:
            parts.append(f"An older name of `{opdef.renamed_to}`.")
        at_call = _op_type_at(analysis, occ.start)
        if at_call is not None:
            parts.append(f"At this call: `{analysis.type_text(at_call)}`")
        return HoverText(opdef.signature(), "\n\n".join(parts), occ.start, occ.end)
    return None


def _with_origin(doc: str, target: nm.Target) -> str:
    if not target.prelude:
        return doc
    note = "Defined in the Prelude (`relay_text/std/prelude.rly`)."
    return f"{doc}\n\n{note}" if doc else note


def _global_type(analysis: Analysis, target: nm.Target) -> Any:
    name = target.name[1:]
    if not target.prelude and analysis.result is not None:
        ty = analysis.result.global_type(name)
        if ty is not None:
            return ty
    if target.prelude:
        return analysis.prelude.checked().global_type(name)
    return None


def _constructor_type(analysis: Analysis, ctor: Any) -> Any:
    for result in (analysis.result, analysis.prelude.checked()):
        if result is not None:
            ty = result.constructor_types.get(ctor)
            if ty is not None:
                return ty
    return None


def _op_type_at(analysis: Analysis, start: int) -> Any:
    nodes = analysis.nodes
    if not nodes:
        return None
    source = analysis.source
    for node in nodes:
        if type(node) is Op and node.span is not None and node.span.source is source and node.span.start == start:
            return analysis.type_of(node)
    return None


def data_text(data: Any, analysis: Analysis | None = None) -> str:
    return _data_text(data, analysis)


def _data_text(data: Any, analysis: Analysis | None = None) -> str:
    from ..text.type_text import type_params_text, type_text

    name = data.header.name
    params = type_params_text(tuple(data.type_params))
    if data.extern:
        return f"extern type {name}{params}"
    lines = [f"data {name}{params} {{"]
    for ctor in data.constructors:
        fields = ", ".join(analysis.type_text(t) if analysis is not None else type_text(t) for t in ctor.inputs)
        lines.append(f"  {ctor.name} : ({fields}) -> {name}")
    lines.append("}")
    return "\n".join(lines)


def _doc_comment(target: nm.Target, analysis: Analysis) -> str:
    """The comment lines written directly above a definition."""
    detail = target.detail
    span = getattr(detail, "span", None)
    if span is None:
        return ""
    return doc_comment(span.source, span.start)


def doc_comment(source: Source, start: int) -> str:
    text = source.text
    line = line_start(text, start)  # start of the definition's line
    if text[line:start].strip():
        return ""
    out: list[str] = []
    while line > 0:
        prev = line_start(text, line - (2 if text[max(line - 2, 0) : line] == "\r\n" else 1))
        content = text[prev:line].strip()
        if content.startswith("//"):
            out.append(content[2:].strip())
        elif content.startswith("#") and not content.startswith("#["):
            out.append(content[1:].strip())
        else:
            break
        line = prev
    out.reverse()
    return " ".join(s for s in out if s)


def _attribute_hover(analysis: Analysis, tok: tk.Token) -> HoverText | None:
    """An attribute key in an operator call: its kind of value and default."""
    from ..ops import registry
    from .completion import call_at

    toks = analysis.tokens
    i = toks.index(tok)
    found = call_at(analysis, toks[i - 1].end) if i > 0 else None
    if found is None:
        return None
    opdef = registry.get(found[0])
    if opdef is None:
        return None
    attr = opdef.schema.get(tok.text)
    if attr is None:
        return None
    required = attr.default is registry.REQUIRED
    code = f"{attr.name}=..." if required else f"{attr.name}={attr.default!r}"
    what = registry.ATTR_KINDS.get(attr.kind, attr.kind)
    doc = f"An attribute of `{opdef.name}`: {what}" + (
        "; required." if required else f"; the default is `{attr.default!r}`."
    )
    return HoverText(code, doc, tok.start, tok.end)


def _expression_hover(analysis: Analysis, offset: int) -> HoverText | None:
    tok = tk.token_at(analysis.tokens, offset)
    if tok is None or tok.kind in (tk.COMMENT, tk.METADATA, tk.HEADER):
        return None
    if tok.kind == tk.ATTR_KEY:
        return _attribute_hover(analysis, tok)
    nodes = analysis.nodes
    if not nodes:
        return None
    source = analysis.source
    best = None
    best_len = 0
    node: Any
    # Any: dispatched on type(node) kept in a local, which mypy does not narrow through
    for node in nodes:
        t = type(node)
        if t is Var or t is GlobalVar or t is Constructor or t is Op:
            continue
        span = node.span
        if span is None or span.source is not source or not (span.start <= offset < span.end):
            continue
        size = span.end - span.start
        if best is None or size < best_len:
            best, best_len = node, size
    if best is None:
        return None
    ty = analysis.type_of(best)
    if ty is None:
        return None
    return HoverText(analysis.type_text(ty), "", best.span.start, best.span.end, ty)


def register(server: RelayLanguageServer) -> None:
    from lsprotocol import types as lsp

    from .diagnostics import span_range

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover_request(ls: Any, params: lsp.HoverParams) -> lsp.Hover | None:
        views = await ls.views(params.text_document.uri)
        found = hover_views(views, ls.offset(views.current, params.position))
        if found is None:
            return None
        md = ls.markdown()
        return lsp.Hover(
            contents=lsp.MarkupContent(
                kind=lsp.MarkupKind.Markdown if md else lsp.MarkupKind.PlainText,
                value=found.markdown() if md else found.plain(),
            ),
            range=span_range(found.start, found.end, views.lines(ls.encoding)),
        )
