"""One version of an open document, checked, with what features need of it.

`Analysis` runs `check_source` once per version of a document's text; the
tokens, the IR's nodes and the name index are computed from it the first
time a feature asks, so publishing diagnostics pays only for checking.
"""

from __future__ import annotations

import gc
import os
from functools import cached_property
from typing import Any
from urllib.parse import unquote, urlparse

from ..ir.span import Source
from . import tokens as tk
from .positions import UTF16, LineIndex


def uri_to_path(uri: str) -> str:
    """The file system path of a `file:` URI; other URIs as they are."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    path = unquote(parsed.path)
    if os.name == "nt" and path.startswith("/") and len(path) > 2 and path[2] == ":":
        path = path[1:]
    return path


class Analysis:
    """A document's text at one version, checked against the Prelude."""

    def __init__(self, uri: str, text: str, version: int | None = None) -> None:
        from ..pipeline import check_source

        self.uri = uri
        self.version = version
        self.source = Source(uri_to_path(uri), text)
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
        except Exception as exc:  # noqa: BLE001 - the editor must keep working
            self.failure = f"{type(exc).__name__}: {exc}"
        finally:
            if was_enabled:
                gc.enable()
        self._lines: dict[str, LineIndex] = {}

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
    def diagnostics(self) -> list:
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
    def nodes(self) -> list | None:
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
    def names(self) -> Any:
        from .names import NameIndex

        return NameIndex(self.source, self.tokens, self.module, self.prelude, self.nodes)

    def type_of(self, node: Any) -> Any:
        """A node's type from the document's check, else the Prelude's."""
        result = self.result
        ty = result.types.get(node) if result is not None else None
        if ty is None:
            prelude = self.prelude
            if prelude is not None:
                ty = prelude.checked().types.get(node)
        return ty
