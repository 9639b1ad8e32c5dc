"""`relay lsp`: the language server, over standard input and output.

Built on pygls 2 (`pip install 'relay-text[lsp]'`). Each open document is
checked in a worker thread (one check at a time) when it is opened and
after it changes. Diagnostics are debounced: they are published once edits
pause for `DEBOUNCE` seconds (150 ms), for the text as it then is. So that
they are ready when the pause ends, checking starts earlier: at once for a
change after a quiet spell, and once the text has been still for
`CHECK_AFTER` (50 ms) during a burst of typing. Requests (hover,
definition, ...) use the analysis of the document's current text, waiting
for it if a check is under way.

Features, one module each (its `register` adds its requests): diagnostics,
formatting, hover, go to definition, find references, document symbols,
completion, semantic tokens (full document), rename, range formatting,
inlay hints, code actions (fixes, "show graph").

While a document has syntax errors, requests are answered by its `views`:
the analysis of the rest of the file (`recovery`) and the last analysis
of the document that parsed, mapped to the current text (`textmap`).

`RELAY_LSP_DEBOUNCE_MS` sets the pause (default 150).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from .. import __version__
from .diagnostics import document_diagnostics
from .document import REQUEST_FAILED, Analysis
from .positions import UTF8, UTF16, UTF32

DEBOUNCE = float(os.environ.get("RELAY_LSP_DEBOUNCE_MS", "150")) / 1000
# During a burst of typing, the newest text is checked once it has been
# still this long, so that its diagnostics are ready when DEBOUNCE is over.
CHECK_AFTER = 0.05

_ENCODINGS = {"utf-8": UTF8, "utf-16": UTF16, "utf-32": UTF32}


class RelayLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("relay", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.analyses: dict[str, Analysis] = {}
        self.good: dict[str, Analysis] = {}  # uri -> its newest analysis that parsed
        self._views: dict[str, Any] = {}  # uri -> the Views of its newest analysis
        self.computing: dict[tuple[str, int | None], asyncio.Future[Analysis]] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}  # uri -> its check-and-publish task
        self.last_change: dict[str, float] = {}  # uri -> loop time of its last change
        self.delays: dict[str, float] = {}
        # One checker at a time: checks of one document are ordered, and two
        # documents do not fight over the GIL.
        self.checker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="relay-check")
        self.debounce = DEBOUNCE

    @property
    def encoding(self) -> str:
        enc = self.workspace.position_encoding
        return _ENCODINGS.get(str(getattr(enc, "value", enc) or "utf-16"), UTF16)

    def markdown(self) -> bool:
        caps = self.client_capabilities
        formats = caps.text_document.hover.content_format if caps.text_document and caps.text_document.hover else None
        return formats is None or lsp.MarkupKind.Markdown in formats

    async def analysis(self, uri: str) -> Analysis:
        """The analysis of the document's current text (computed if needed)."""
        doc = self.workspace.get_text_document(uri)
        try:
            text, version = doc.source, doc.version  # (a document not open is read from its file)
        except (OSError, ValueError) as exc:
            why = getattr(exc, "strerror", None) or str(exc)
            raise JsonRpcException(f"{uri} is not open, and cannot be read ({why})", code=REQUEST_FAILED) from None
        cached = self.analyses.get(uri)
        if cached is not None and cached.version == version and cached.text == text:
            return cached
        key = (uri, version)
        future = self.computing.get(key)
        if future is None:
            loop = asyncio.get_running_loop()
            future = loop.run_in_executor(self.checker, Analysis, uri, text, version)
            self.computing[key] = future
            future.add_done_callback(lambda f: self._done(key, f))
        # Shielded: a request or check that is cancelled (a newer edit came)
        # does not cancel a check others are waiting for.
        return await asyncio.shield(future)

    def _done(self, key: tuple[str, int | None], future: asyncio.Future[Analysis]) -> None:
        self.computing.pop(key, None)
        if future.cancelled() or future.exception() is not None:
            return
        result = future.result()
        uri, version = key
        if uri not in self.workspace.text_documents:
            return
        latest = self.analyses.get(uri)
        if latest is None or latest.version is None or version is None or latest.version <= version:
            self.analyses[uri] = result
        good = self.good.get(uri)
        if result.parsed and (good is None or good.version is None or version is None or good.version <= version):
            self.good[uri] = result

    async def views(self, uri: str) -> Any:
        """The views answering for the document's current text: itself if
        it parses; else its recovered part and its last version that parsed."""
        from .recovery import recovered
        from .views import Views

        analysis = await self.analysis(uri)
        good = self.good.get(uri)
        cached = self._views.get(uri)
        if cached is not None and cached.current is analysis and (analysis.parsed or cached.good_analysis is good):
            return cached
        if analysis.parsed:
            views = Views(analysis)
        else:
            loop = asyncio.get_running_loop()
            rest = await asyncio.shield(loop.run_in_executor(self.checker, recovered, analysis))
            views = Views(analysis, rest, good)
        self._views[uri] = views
        return views

    def schedule(self, uri: str, delay: float) -> None:
        """The document changed: publish its diagnostics once it has been
        still for `delay` seconds.

        The first change after a quiet spell is checked at once, so that
        its diagnostics are ready when the pause is over; during a burst of
        typing, the newest text is checked once it has been still for
        CHECK_AFTER (keystrokes closer together than that are checked
        together, once). One check runs at a time; a result is published
        only if no change came while it was computed and waited.
        """
        now = asyncio.get_running_loop().time()
        last = self.last_change.get(uri)
        self.last_change[uri] = now
        self.delays[uri] = delay
        task = self.pending.get(uri)
        if task is None or task.done():
            eager = last is None or now - last >= delay
            self.pending[uri] = asyncio.ensure_future(self._check_and_publish(uri, eager))

    async def _until_still(self, uri: str, most: float | None = None) -> None:
        """Wait until the document has been still for its delay (or `most`, if shorter)."""
        loop = asyncio.get_running_loop()
        while True:
            delay = self.delays.get(uri, 0.0)
            if most is not None:
                delay = min(delay, most)
            wait = self.last_change.get(uri, 0.0) + delay - loop.time()
            if wait <= 0:
                return
            await asyncio.sleep(wait)

    async def _check_and_publish(self, uri: str, eager: bool) -> None:
        try:
            while uri in self.workspace.text_documents:
                if not eager:
                    await self._until_still(uri, CHECK_AFTER)
                    if uri not in self.workspace.text_documents:
                        return
                result = await self.analysis(uri)
                if self._current(uri, result):
                    await self._until_still(uri)
                    if self._current(uri, result):
                        self.publish(result)
                        return
                if uri not in self.workspace.text_documents:
                    return  # closed meanwhile
                eager = False  # edited meanwhile: check the newest text once it is still
        finally:
            if self.pending.get(uri) is asyncio.current_task():
                del self.pending[uri]

    def _current(self, uri: str, result: Analysis) -> bool:
        """`result` is of the document's text as it is now."""
        return uri in self.workspace.text_documents and self.workspace.get_text_document(uri).version == result.version

    def publish(self, result: Analysis) -> None:
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(
                uri=result.uri,
                version=result.version,
                diagnostics=document_diagnostics(result, self.encoding),
            )
        )

    def offset(self, analysis: Analysis, position: lsp.Position) -> int:
        return analysis.lines(self.encoding).offset(position.line, position.character)


server = RelayLanguageServer()


def _register_features() -> None:
    from . import actions, completion, definitions, formatting, graph, hover, inlay, rename, semantic_tokens, symbols

    for feature in (
        formatting,
        hover,
        definitions,
        symbols,
        completion,
        semantic_tokens,
        graph,
        rename,
        inlay,
        actions,
    ):
        feature.register(server)


_register_features()


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: RelayLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: RelayLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, ls.debounce)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
async def did_close(ls: RelayLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    task = ls.pending.pop(uri, None)
    if task is not None:
        task.cancel()
    ls.analyses.pop(uri, None)
    ls.good.pop(uri, None)
    ls._views.pop(uri, None)
    ls.last_change.pop(uri, None)
    ls.delays.pop(uri, None)
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(lsp.INITIALIZED)
def on_initialized(ls: RelayLanguageServer, params: lsp.InitializedParams) -> None:
    # Load the Prelude and the operator registry before the first document
    # comes (on the checker thread, which the first check waits for).
    ls.checker.submit(_warm_up)


_WARM_UP = """\
def @main(%x: Tensor[(2, 2), float32], %l: List[Tensor[(), int32]]) {
  %0 = nn.relu(add(%x, %x));
  let %n = @length(%l);
  match (%l) { case Cons(%h, _) { (%0, %h + %n) } case Nil() { (%0, %n) } }
}
"""


def _warm_up() -> None:
    from ..ops import registry
    from ..std import prelude

    prelude().checked()
    registry.all_ops()
    _ = Analysis("file:///warm-up.rly", _WARM_UP).names  # first use of the parser, checker and index
    # What is loaded now lives as long as the server: keep the collector off it.
    gc.collect()
    gc.freeze()


@server.feature(lsp.SHUTDOWN)
def on_shutdown(ls: RelayLanguageServer, *args: Any) -> None:
    for task in ls.pending.values():
        task.cancel()
    ls.pending.clear()
    ls.checker.shutdown(wait=False, cancel_futures=True)


def main() -> None:
    """Serve over stdin/stdout until the client says `exit`."""
    logging.basicConfig(level=logging.WARNING, format="relay lsp: %(levelname)s: %(message)s")
    # A request that fails on purpose (formatting a file with errors) is
    # answered with its error; pygls would also log it with a traceback.
    logging.getLogger("pygls.protocol.json_rpc").setLevel(logging.CRITICAL)
    from .stream import serve

    status = serve(server)
    if status:
        sys.exit(status)


if __name__ == "__main__":  # pragma: no cover
    main()
