"""One version of an open document, checked, with what features need of it.

`Analysis` runs `check_source` once per version of a document's text; the
tokens, the IR's nodes and the name index are computed from it the first
time a feature asks, so publishing diagnostics pays only for checking.
"""

from __future__ import annotations

import gc
import os
import re
from functools import cached_property
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from ..ir.span import Source
from . import tokens as tk
from .positions import UTF16, LineIndex

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic
    from ..ir.expr import Expr
    from .names import NameIndex

REQUEST_FAILED = -32803  # LSP's RequestFailed error code, for a request that cannot be answered
_NOT_BREAK = re.compile(r"[^\r\n]")


def uri_to_path(uri: str) -> str:
    """The file system path of a `file:` URI; other URIs as they are."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    path = unquote(parsed.path)
    if os.name == "nt" and path.startswith("/") and len(path) > 2 and path[2] == ":":
        path = path[1:]
    return path


def blanked(text: str, holes: tuple[tuple[int, int], ...]) -> str:
    """`text` with the characters of `holes` made spaces, line breaks kept."""
    out = []
    position = 0
    for start, end in sorted(holes):
        start = max(start, position)
        if end <= start:
            continue
        out.append(text[position:start])
        out.append(_NOT_BREAK.sub(" ", text[start:end]))
        position = end
    out.append(text[position:])
    return "".join(out)


class Analysis:
    """A document's text at one version, checked against the Prelude.

    `holes` (character ranges) are left out of the check: the text is
    checked with them blanked (every character but line breaks made a
    space, so that every offset stays where it is), then the source gets
    the whole text back. `recovery` makes such an analysis of a text whose
    definitions with syntax errors are the holes: the module is then that
    of the rest of the file, its spans in the document's own text.
    """

    def __init__(
        self, uri: str, text: str, version: int | None = None, holes: tuple[tuple[int, int], ...] = ()
    ) -> None:
        from ..pipeline import check_source

        self.uri = uri
        self.version = version
        self.holes = holes
        self.source = Source(uri_to_path(uri), blanked(text, holes) if holes else text)
        self.failure: str | None = None  # an internal error of the checker
        self.checked: Any = None
        # The parser and checker allocate many objects that live until the
        # check ends: the cyclic collector would scan them (and the server's
        # own) again and again meanwhile.
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            self.checked = check_source(self.source)
        except RecursionError:
            self.failure = "the program is nested too deeply to check"
        except Exception as exc:
            self.failure = f"{type(exc).__name__}: {exc}"
        finally:
            if was_enabled:
                gc.enable()
        if holes:  # the spans of what was checked read the document's text
            self.source.text = text
            self.source._line_starts = None
        self._lines: dict[str, LineIndex] = {}
        self.recovered: Any = None  # recovery.recovered's cache: an Analysis, or False for none
        self.fixed_text: str | None = None  # actions.fixed_edits's cache: the text `relay check --fix` makes

    @property
    def parsed(self) -> bool:
        """Whether the text parsed (the module holds all of it)."""
        return self.module is not None and not self.holes

    @property
    def text(self) -> str:
        return self.source.text

    @property
    def module(self) -> Any:
        return self.checked.module if self.checked is not None else None

    @property
    def result(self) -> Any:
        """The checker's CheckResult (None when the text did not parse)."""
        return self.checked.result if self.checked is not None else None

    @property
    def prelude(self) -> Any:
        if self.checked is not None and self.checked.prelude is not None:
            return self.checked.prelude
        from ..std import prelude

        return prelude()

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return list(self.checked.diagnostics) if self.checked is not None else []

    def lines(self, encoding: str = UTF16) -> LineIndex:
        index = self._lines.get(encoding)
        if index is None:
            index = self._lines[encoding] = LineIndex(self.text, encoding)
        return index

    @cached_property
    def tokens(self) -> list[tk.Token]:
        return tk.scan(self.text)

    @cached_property
    def nodes(self) -> list[Expr] | None:
        """Every expression node of the module, each once (None: no module)."""
        module = self.module
        if module is None:
            return None
        from ..ir.visitor import post_order

        roots = [module.functions[g] for g in module.order if g in module.functions]
        if module.expr is not None:
            roots.append(module.expr)
        seen: set[int] = set()
        out = []
        for root in roots:
            for node in post_order(root):
                if id(node) not in seen:
                    seen.add(id(node))
                    out.append(node)
        return out

    @cached_property
    def names(self) -> NameIndex:
        from .names import NameIndex

        return NameIndex(self.source, self.tokens, self.module, self.prelude, self.nodes, self.holes)

    @cached_property
    def short_scalars(self) -> bool:
        """Whether the file writes a scalar type as its dtype (`float32`)
        rather than `Tensor[(), float32]`: as it does, or as its dialect
        does (TVM's text writes dtypes)."""
        from ..check.state import scalar_style

        style = scalar_style(self.text)
        if style is not None:
            return style
        return any(t.kind == tk.HEADER for t in self.tokens[:3])

    def type_text(self, ty: Any, limit: int | None = None) -> str:
        """A type in the documented syntax, its scalars written as the file
        writes them (at most `limit` characters, then ` ...`)."""
        from ..text.type_text import MAX_TYPE_TEXT, type_text

        return type_text(ty, limit=limit or MAX_TYPE_TEXT, short_scalars=self.short_scalars)

    def type_of(self, node: Any) -> Any:
        """A node's type from the document's check, else the Prelude's."""
        result = self.result
        ty = result.types.get(node) if result is not None else None
        if ty is None:
            prelude = self.prelude
            if prelude is not None:
                ty = prelude.checked().types.get(node)
        return ty
