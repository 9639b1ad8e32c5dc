"""Completion, from what is written before the cursor.

* after `@`: the globals of the document and of the Prelude, with types;
* after `%`: the locals in scope at the cursor (parameters, `let`s, pattern
  variables, graph bindings written above), innermost first;
* inside an operator call's parentheses, where an argument starts: the
  operator's attribute keywords not given yet (`strides=`, ...), first;
* otherwise: constructors, operator names (dotted: `nn.conv2d`), data types
  and keywords.

Works on text that does not parse (being typed): the names then come from
the recovered analysis (the definitions without syntax errors), the
tokens of the broken definitions and the Prelude; the types of what the
broken definitions bind from the last version that parsed (`views`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from . import tokens as tk
from .diagnostics import span_range
from .document import Analysis
from .positions import UTF16
from .views import Views

if TYPE_CHECKING:
    from .server import RelayLanguageServer

TRIGGERS = ["@", "%", "."]
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")
_KEYWORDS = [
    "def",
    "fn",
    "let",
    "if",
    "else",
    "match",
    "case",
    "data",
    "type",
    "extern",
    "ref",
    "ref_read",
    "ref_write",
    "Tensor",
    "Constant",
    "free_var",
]


def complete(views: Views, offset: int, encoding: str = UTF16) -> list[lsp.CompletionItem]:
    analysis = views.main.analysis
    text = analysis.text
    offset = max(0, min(offset, len(text)))
    tok = tk.token_at(analysis.tokens, offset)
    inside = tok is not None and tok.kind in (tk.COMMENT, tk.STRING, tk.METADATA) and tok.start < offset
    after_string = (
        inside
        and tok is not None
        and tok.kind == tk.STRING
        and offset == tok.end
        and tok.text.endswith('"')
        and len(tok.text) > 1
    )
    if inside and not after_string:
        return []
    start = offset
    while start > 0 and text[start - 1] in _NAME_CHARS:
        start -= 1
    sigil = text[start - 1] if start > 0 and text[start - 1] in "@%" else ""
    if sigil:
        start -= 1
    rng = span_range(start, offset, analysis.lines(encoding))
    if sigil == "@":
        return _globals(views, rng)
    if sigil == "%":
        return _locals(views, start, rng)
    items = _attributes(analysis, start, rng)
    items.extend(_names(views, rng))
    return items


def _edit(label: str, rng: lsp.Range, new_text: str | None = None) -> lsp.TextEdit:
    return lsp.TextEdit(range=rng, new_text=new_text if new_text is not None else label)


def _type_text(typed: tuple[Any, Analysis] | None) -> str | None:
    return typed[1].type_text(typed[0]) if typed is not None else None


def _globals(views: Views, rng: lsp.Range) -> list[lsp.CompletionItem]:
    items = []
    for target in views.main.analysis.names.tables.globals.values():
        if target.definition is None:
            continue  # used, never defined
        items.append(
            lsp.CompletionItem(
                label=target.name,
                kind=lsp.CompletionItemKind.Function,
                detail=_type_text(views.global_type(target.name[1:])),
                sort_text=("1" if target.prelude else "0") + target.name,
                text_edit=_edit(target.name, rng),
                label_details=lsp.CompletionItemLabelDetails(description="Prelude") if target.prelude else None,
            )
        )
    return items


def _locals(views: Views, start: int, rng: lsp.Range) -> list[lsp.CompletionItem]:
    items = []
    for i, target in enumerate(views.main.analysis.names.locals_at(start)):
        d = target.definition
        if d is not None and d.start == start:
            continue  # the name being typed
        kind = lsp.CompletionItemKind.Variable
        items.append(
            lsp.CompletionItem(
                label=target.name,
                kind=kind,
                detail=_type_text(views.local_type(target)),
                sort_text=f"{i:05d}",
                text_edit=_edit(target.name, rng),
            )
        )
    return items


def call_at(analysis: Analysis, offset: int) -> tuple[str, int, int] | None:
    """The operator whose call's parentheses hold `offset`, if the cursor is
    where an argument starts: (name, index of its `(` token, index of the
    last token before the cursor)."""
    toks = analysis.tokens
    i = tk.index_before(toks, offset)
    last = i
    while last >= 0 and toks[last].kind == tk.COMMENT:
        last -= 1
    if last < 0 or toks[last].kind != tk.PUNCT or toks[last].text not in ("(", ","):
        return None
    depth = 0
    j = last
    while j >= 0:
        t = toks[j]
        if t.kind == tk.PUNCT:
            if t.text in (")", "]", "}"):
                depth += 1
            elif t.text in ("(", "[", "{"):
                if depth == 0:
                    break
                depth -= 1
            elif t.text == ";" and depth == 0:
                return None
        j -= 1
    if j <= 0 or toks[j].text != "(":
        return None
    callee = toks[j - 1]
    if callee.kind != tk.IDENT:
        return None
    return callee.text, j, last


def _attributes(analysis: Analysis, start: int, rng: lsp.Range) -> list[lsp.CompletionItem]:
    from ..ops import registry

    found = call_at(analysis, start)
    if found is None:
        return []
    name, open_index, _ = found
    opdef = registry.get(name)
    if opdef is None or not opdef.attrs:
        return []
    given = _given_keys(analysis.tokens, open_index)
    items = []
    for k, attr in enumerate(opdef.attrs):
        if attr.name in given:
            continue
        required = attr.default is registry.REQUIRED
        default = "required" if required else f"default {attr.default!r}"
        items.append(
            lsp.CompletionItem(
                label=attr.name,
                kind=lsp.CompletionItemKind.Property,
                detail=f"{opdef.name} attribute ({default})",
                documentation=f"`{attr.name}` takes {registry.ATTR_KINDS.get(attr.kind, attr.kind)}",
                sort_text=f"0{k:03d}",
                text_edit=_edit(attr.name, rng, attr.name + "="),
                label_details=lsp.CompletionItemLabelDetails(description="required" if required else None),
            )
        )
    return items


def _given_keys(toks: list[tk.Token], open_index: int) -> set[str]:
    """Attribute keys already written in the call opened at `open_index`."""
    given = set()
    depth = 0
    for t in toks[open_index + 1 :]:
        if t.kind == tk.PUNCT:
            if t.text in ("(", "[", "{"):
                depth += 1
            elif t.text in (")", "]", "}"):
                if depth == 0:
                    break
                depth -= 1
        elif t.kind == tk.ATTR_KEY and depth == 0:
            given.add(t.text)
    return given


def _names(views: Views, rng: lsp.Range) -> list[lsp.CompletionItem]:
    from ..ops import registry
    from .hover import _constructor_type

    tables = views.main.analysis.names.tables
    constructors = [(target, views.main.analysis) for target in tables.constructors.values()]
    datas = list(tables.datas)
    if views.good is not None:  # those of data types being edited
        good = views.good.analysis
        constructors += [
            (t, good) for name, t in good.names.tables.constructors.items() if name not in tables.constructors
        ]
        datas += [name for name in good.names.tables.datas if name not in tables.datas]
    items = []
    for target, analysis in constructors:
        ty = _constructor_type(analysis, target.node) if target.node is not None else None
        items.append(
            lsp.CompletionItem(
                label=target.name,
                kind=lsp.CompletionItemKind.EnumMember,
                detail=analysis.type_text(ty) if ty is not None else None,
                sort_text="1" + target.name,
                text_edit=_edit(target.name, rng),
            )
        )
    for name in datas:
        items.append(
            lsp.CompletionItem(
                label=name,
                kind=lsp.CompletionItemKind.Enum,
                detail="data type",
                sort_text="2" + name,
                text_edit=_edit(name, rng),
            )
        )
    for opdef in registry.all_ops():
        items.append(
            lsp.CompletionItem(
                label=opdef.name,
                kind=lsp.CompletionItemKind.Function,
                detail=opdef.signature(),
                documentation=opdef.doc or None,
                sort_text="3" + opdef.name,
                text_edit=_edit(opdef.name, rng),
                deprecated=True if opdef.renamed_to else None,
            )
        )
    for word in _KEYWORDS:
        items.append(
            lsp.CompletionItem(
                label=word, kind=lsp.CompletionItemKind.Keyword, sort_text="4" + word, text_edit=_edit(word, rng)
            )
        )
    return items


def register(server: RelayLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=TRIGGERS))
    async def completion_request(ls: Any, params: lsp.CompletionParams) -> lsp.CompletionList:
        views = await ls.views(params.text_document.uri)
        items = complete(views, ls.offset(views.current, params.position), ls.encoding)
        return lsp.CompletionList(is_incomplete=False, items=items)
