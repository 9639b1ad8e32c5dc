""" "Show graph": the `relay viz` page of the function under the cursor.

The command `relay.showGraph` takes the document's URI and a position (or
a global's name, `@main`) and answers `{"function": "@main", "title":
..., "html": ...}`: the viewer page of the whole file, opening at that
function (an editor shows it in a web view). A code action offers it
wherever the cursor is inside a function. A file with type errors is
still drawn, its types missing where they are unknown; a file that does
not parse has no graph.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from .document import REQUEST_FAILED, Analysis

if TYPE_CHECKING:
    from .server import RelayLanguageServer

COMMAND = "relay.showGraph"


class GraphError(Exception):
    """Why there is no graph to show (said to the user as the request's error)."""


def function_at(analysis: Analysis, offset: int) -> str | None:
    """The global whose definition holds `offset` (`@name`); "" for the
    file's trailing expression; None elsewhere."""
    module = analysis.module
    if module is None:
        return None
    for gv, func in module.functions.items():
        span = func.span
        if span is not None and span.start <= offset <= span.end and span.source is analysis.source:
            return f"@{gv.name}"
    expr = module.expr
    span = getattr(expr, "span", None)
    if span is not None and span.start <= offset <= span.end:
        return ""
    return None


def show_graph(analysis: Analysis, function: str | None) -> dict[str, Any]:
    """The answer of `relay.showGraph` for the function called `function`
    ("": the trailing expression; None: `@main`, else the first)."""
    from ..viz import VizError, find_entry, graph_of, to_html

    if analysis.module is None:
        raise GraphError("the file does not parse: fix its syntax errors to see its graph")
    graph = graph_of(analysis.module, analysis.result)
    if graph.entry < 0:
        raise GraphError("the file defines no functions")
    if function is None:
        function = graph.groups[graph.entry].name
    elif function:
        try:
            graph.entry = find_entry(graph, function)
        except VizError as exc:
            raise GraphError(str(exc)) from None
    else:
        tops = [g for g in graph.functions() if not g.name]
        if not tops:
            raise GraphError("the file has no trailing expression")
        graph.entry = tops[0].id
    name = function or "the trailing expression"
    title = f"{name} — {analysis.source.name.rsplit('/', 1)[-1]}"
    return {"function": function, "title": title, "html": to_html(graph)}


def graph_action(analysis: Analysis, offset: int, position: dict[str, int]) -> Any:
    """The "show graph" code action at `offset` (`position`, as the client
    wrote it), or None outside a function (see `actions`)."""
    from lsprotocol import types as lsp

    function = function_at(analysis, offset)
    if function is None:
        return None
    name = function or "the trailing expression"
    return lsp.CodeAction(
        title=f"Show the graph of {name}",
        kind=lsp.CodeActionKind.Source,
        command=lsp.Command(title=f"Show the graph of {name}", command=COMMAND, arguments=[analysis.uri, position]),
    )


def register(server: RelayLanguageServer) -> None:
    """Add the command to the language server (its code action: `actions`)."""
    from lsprotocol import types as lsp
    from pygls.exceptions import JsonRpcException

    @server.command(COMMAND)
    async def show_graph_command(ls: Any, *args: Any) -> dict[str, Any]:
        if not args or not isinstance(args[0], str):
            raise JsonRpcException(
                "relay.showGraph takes a document URI, then a position or a function's name", code=-32602
            )
        uri = args[0]
        if uri not in ls.workspace.text_documents:
            raise JsonRpcException(f"{uri} is not open", code=-32602)
        analysis = await ls.analysis(uri)
        where = args[1] if len(args) > 1 else None
        if where is None or isinstance(where, str):
            function: str | None = where
        elif isinstance(where, dict) and isinstance(where.get("line"), int) and isinstance(where.get("character"), int):
            function = function_at(analysis, ls.offset(analysis, lsp.Position(where["line"], where["character"])))
            if function is None:
                raise JsonRpcException("the cursor is not in a function", code=REQUEST_FAILED)
        else:
            raise JsonRpcException(
                "relay.showGraph: the second argument is a position or a function's name", code=-32602
            )
        loop = asyncio.get_running_loop()
        try:  # laid out on the checker's thread, as formatting is
            return await loop.run_in_executor(ls.checker, show_graph, analysis, function)
        except GraphError as exc:
            raise JsonRpcException(str(exc), code=REQUEST_FAILED) from None
