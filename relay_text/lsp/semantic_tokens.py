"""Semantic tokens for a whole document.

The TextMate grammar (`editors/vscode/syntaxes/relay.tmLanguage.json`)
colours text by its shape; these tokens add what only the checker knows: a
name without sigil is a constructor, a data type or an operator; a `%`
name is a parameter, a variable or a graph binding; a global comes from the
file or the Prelude. Clients without semantic tokens fall back to the
grammar (or to Pygments), which colours every construct on its own.

Token types and modifiers are standard LSP ones, so themes colour them
without configuration. Tokens never span lines (multi-line comments and the
metadata section are cut at line ends).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from . import names as nm
from . import tokens as tk
from .document import Analysis
from .positions import UTF16, next_break

if TYPE_CHECKING:
    from .server import RelayLanguageServer

TOKEN_TYPES = [
    "keyword",  # 0
    "comment",  # 1
    "string",  # 2
    "number",  # 3
    "variable",  # 4
    "parameter",  # 5
    "function",  # 6
    "enumMember",  # 7
    "type",  # 8
    "property",  # 9
    "operator",  # 10
    "macro",  # 11
]
TOKEN_MODIFIERS = ["declaration", "readonly", "defaultLibrary"]
LEGEND = lsp.SemanticTokensLegend(token_types=TOKEN_TYPES, token_modifiers=TOKEN_MODIFIERS)

_T = {name: i for i, name in enumerate(TOKEN_TYPES)}
_DECLARATION, _READONLY, _LIBRARY = 1, 2, 4
_TYPE_WORDS = frozenset({"Tensor"})
_OPERATORS = frozenset({"+", "-", "*", "/", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "!"})
_BY_TARGET = {
    nm.VARIABLE: (_T["variable"], 0),
    nm.PARAMETER: (_T["parameter"], 0),
    nm.BINDING: (_T["variable"], _READONLY),
    nm.GLOBAL: (_T["function"], 0),
    nm.CONSTRUCTOR: (_T["enumMember"], 0),
    nm.DATA: (_T["type"], 0),
    nm.OPERATOR: (_T["function"], _LIBRARY),
}


def classify(analysis: Analysis) -> list[tuple[int, int, int, int]]:
    """(start, end, type, modifiers) of every coloured token, in order."""
    index = analysis.names
    occs = {o.start: o for o in index.occurrences}
    out: list[tuple[int, int, int, int]] = []
    for tok in analysis.tokens:
        kind = tok.kind
        occ = occs.get(tok.start)
        if occ is not None:
            ttype, mods = _BY_TARGET[occ.target.kind]
            if occ.is_def:
                mods |= _DECLARATION
            if occ.target.prelude:
                mods |= _LIBRARY
            out.append((occ.start, occ.end, ttype, mods))
            continue
        if kind == tk.KEYWORD:
            ttype = _T["type"] if tok.text in _TYPE_WORDS else _T["keyword"]
            out.append((tok.start, tok.end, ttype, 0))
        elif kind == tk.COMMENT:
            out.append((tok.start, tok.end, _T["comment"], 0))
        elif kind == tk.STRING:
            out.append((tok.start, tok.end, _T["string"], 0))
        elif kind == tk.NUMBER:
            out.append((tok.start, tok.end, _T["number"], 0))
        elif kind == tk.ATTR_KEY:
            out.append((tok.start, tok.end, _T["property"], 0))
        elif kind in (tk.HEADER, tk.METADATA):
            end = tok.end if kind == tk.HEADER else tok.start + tok.text.find("]") + 1
            out.append((tok.start, max(end, tok.start + 1), _T["macro"], 0))
        elif kind == tk.LOCAL or kind == tk.GLOBAL:
            out.append((tok.start, tok.end, _T["variable" if kind == tk.LOCAL else "function"], 0))
        elif kind == tk.PUNCT and tok.text in _OPERATORS:
            out.append((tok.start, tok.end, _T["operator"], 0))
    return out


def encode(analysis: Analysis, encoding: str = UTF16) -> list[int]:
    """The LSP integer encoding (relative lines and columns) of `classify`."""
    lines = analysis.lines(encoding)
    text = analysis.text
    data: list[int] = []
    prev_line = prev_col = 0
    for start, end, ttype, mods in classify(analysis):
        # one token per line of a multi-line token
        pos = start
        while pos < end:
            nl = next_break(text, pos, end)
            piece_end = end if nl < 0 else nl
            if piece_end > pos:
                line, col = lines.position(pos)
                _, end_col = lines.position(piece_end)
                delta_line = line - prev_line
                delta_col = col - prev_col if delta_line == 0 else col
                data.extend((delta_line, delta_col, end_col - col, ttype, mods))
                prev_line, prev_col = line, col
            if nl < 0:
                break
            pos = nl + 2 if text.startswith("\r\n", nl) else nl + 1
    return data


def register(server: RelayLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    async def semantic_tokens_request(ls: Any, params: lsp.SemanticTokensParams) -> lsp.SemanticTokens:
        analysis = await ls.analysis(params.text_document.uri)
        return lsp.SemanticTokens(data=encode(analysis, ls.encoding))
