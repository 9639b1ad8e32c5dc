""" "Show graph" through the protocol: the `relay.showGraph` command and
the code action that offers it."""

from __future__ import annotations

import json
import re

import pytest

from .client import LspClient, ResponseError, position_of
from .test_server import DOC, open_doc


def viewer(html: str) -> dict:
    assert html.startswith("<!DOCTYPE html>")
    return json.loads(re.search(r'id="relay-graph">(.*?)</script>', html, re.S).group(1))


def test_initialize_announces_the_command() -> None:
    c = LspClient()
    try:
        caps = c.initialize()["capabilities"]
        assert caps["executeCommandProvider"]["commands"] == ["relay.showGraph"]
        assert caps["codeActionProvider"]["codeActionKinds"] == ["quickfix", "source.fixAll", "source"]
    finally:
        c.kill()


def test_the_graph_of_the_function_under_the_cursor(client: LspClient) -> None:
    uri = open_doc(client)
    answer = client.request(
        "workspace/executeCommand", {"command": "relay.showGraph", "arguments": [uri, position_of(DOC, "case Square")]}
    )
    assert answer["function"] == "@area"
    assert answer["title"].startswith("@area — doc") and answer["title"].endswith(".rly")
    data = viewer(answer["html"])
    assert data["groups"]["label"][data["entry"]] == "@area"
    assert data["groups"]["label"][:3] == ["@area", "match", "case Circle(%r)"]
    assert "nn.conv2d" in data["nodes"]["label"]


def test_a_function_named(client: LspClient) -> None:
    uri = open_doc(client)
    answer = client.request("workspace/executeCommand", {"command": "relay.showGraph", "arguments": [uri, "@main"]})
    data = viewer(answer["html"])
    assert answer["function"] == "@main" and data["groups"]["name"][data["entry"]] == "@main"
    default = client.request("workspace/executeCommand", {"command": "relay.showGraph", "arguments": [uri]})
    assert default["function"] == "@main"


def test_no_function_there(client: LspClient) -> None:
    uri = open_doc(client)
    with pytest.raises(ResponseError) as err:
        client.request(
            "workspace/executeCommand", {"command": "relay.showGraph", "arguments": [uri, {"line": 0, "character": 3}]}
        )
    assert (err.value.code, err.value.message) == (-32803, "the cursor is not in a function")
    with pytest.raises(ResponseError) as err:
        client.request("workspace/executeCommand", {"command": "relay.showGraph", "arguments": [uri, "@aera"]})
    assert err.value.message == "`@aera` is not a function of this file; did you mean `@area`?"


def test_a_file_that_does_not_parse(client: LspClient) -> None:
    text = "def @main( {\n"
    uri = "file:///tmp/relay-lsp-test/broken-graph.rly"
    mark = client.mark()
    client.open(uri, text, 1)
    client.diagnostics(uri, 1, mark)
    with pytest.raises(ResponseError) as err:
        client.request("workspace/executeCommand", {"command": "relay.showGraph", "arguments": [uri, "@main"]})
    assert err.value.message == "the file does not parse: fix its syntax errors to see its graph"


def test_the_code_action(client: LspClient) -> None:
    uri = open_doc(client)
    where = position_of(DOC, "nn.conv2d")
    actions = client.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": {"start": where, "end": where}, "context": {"diagnostics": []}},
    )
    assert actions == [
        {
            "title": "Show the graph of @main",
            "kind": "source",
            "command": {"title": "Show the graph of @main", "command": "relay.showGraph", "arguments": [uri, where]},
        }
    ]
    outside = position_of(DOC, "Shapes and")
    assert (
        client.request(
            "textDocument/codeAction",
            {"textDocument": {"uri": uri}, "range": {"start": outside, "end": outside}, "context": {"diagnostics": []}},
        )
        is None
    )
