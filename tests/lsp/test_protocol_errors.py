"""What the server does with messages it cannot take: a request with
invalid parameters gets an `InvalidParams` error response (it got no reply
at all), a body that is not JSON gets `ParseError`, a request for a document
that is neither open nor on disk gets `RequestFailed`, and a broken stream (a
malformed `Content-Length`) ends the server with a message on standard
error and status 1 (it ran on, silent). The server keeps answering after
each recoverable case."""

from __future__ import annotations

import pytest

from .client import LspClient, ResponseError

URI = "file:///errors/m.rly"
TEXT = "def @main(%x: int32) { %x }\n"


@pytest.fixture(scope="module")
def opened(client: LspClient) -> LspClient:
    client.open(URI, TEXT)
    client.diagnostics(URI)
    return client


def still_answers(client: LspClient) -> None:
    hover = client.request(
        "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 24}}
    )
    assert hover["contents"]["value"] == "```relay\n%x : int32\n```"  # as the file writes it


@pytest.mark.parametrize(
    "method, params, detail",
    [
        ("textDocument/hover", {"textDocument": {"uri": URI}}, "missing `position`"),
        (
            "textDocument/hover",
            {"textDocument": {"uri": URI}, "position": {"line": "one", "character": 0}},
            "`textDocument/hover`",
        ),
        ("textDocument/documentSymbol", {}, "missing `textDocument`"),
        (
            "textDocument/hover",
            {"textDocument": {"uri": URI}, "position": {"line": -1, "character": 0}},
            "`textDocument/hover`",
        ),
    ],
    ids=["missing", "wrong-type", "empty", "negative"],
)
def test_invalid_parameters_get_an_error_response(opened: LspClient, method: str, params: dict, detail: str) -> None:
    with pytest.raises(ResponseError) as caught:
        opened.request(method, params, timeout=10)
    assert caught.value.code == -32602
    assert caught.value.message.startswith(f"invalid parameters for `{method}`: ")
    assert detail in caught.value.message
    still_answers(opened)


def test_a_body_that_is_not_json_gets_a_parse_error(opened: LspClient) -> None:
    assert opened.proc.stdin is not None
    body = b'{"jsonrpc": "2.0", "id": 9000, "method": '
    opened.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    opened.proc.stdin.flush()
    with pytest.raises(ResponseError) as caught:
        opened.response(None, timeout=10)  # type: ignore[arg-type]  # (the error has no id to answer)
    assert caught.value.code == -32700
    still_answers(opened)


def test_a_request_for_an_unknown_document_fails_with_a_message(opened: LspClient) -> None:
    with pytest.raises(ResponseError) as caught:
        opened.request(
            "textDocument/hover",
            {"textDocument": {"uri": "file:///no/such/file.rly"}, "position": {"line": 0, "character": 0}},
        )
    assert caught.value.code == -32803
    assert (
        caught.value.message == "file:///no/such/file.rly is not open, and cannot be read (No such file or directory)"
    )
    still_answers(opened)


def test_an_out_of_range_position_is_answered(opened: LspClient) -> None:
    assert (
        opened.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 99, "character": 999}})
        is None
    )
    assert (
        opened.request(
            "textDocument/definition", {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 10**6}}
        )
        is None
    )
    still_answers(opened)


@pytest.mark.parametrize(
    "frame, message",
    [
        (b"Content-Length: abc\r\n\r\n{}", "Content-Length 'abc' is not a number of bytes"),
        (b"Content-Length: -5\r\n\r\n{}", "Content-Length '-5' is not a number of bytes"),
        (b"Content-Type: application/json\r\n\r\n{}", "a message has no Content-Length header"),
        (b"this is not a header\r\n\r\n", "a header line is not `Name: value`: b'this is not a header\\r\\n'"),
        (b"Content-Length: 100\r\n\r\n{}", "the input ended inside a message (2 of its 100 bytes came)"),
    ],
    ids=["letters", "negative", "missing", "garbage", "short"],
)
def test_a_broken_stream_ends_the_server_with_a_message(frame: bytes, message: str) -> None:
    client = LspClient()
    try:
        client.initialize()
        assert client.proc.stdin is not None
        client.proc.stdin.write(frame)
        if message.startswith("the input ended"):
            client.proc.stdin.close()
        else:
            client.proc.stdin.flush()
        status = client.proc.wait(timeout=20)
    finally:
        client.kill()
    client._err_reader.join(5)
    assert status == 1
    assert f"relay lsp: error: the client's message stream is broken: {message}; stopping\n" in client.stderr_lines


def test_the_end_of_the_input_between_messages_ends_the_server_quietly() -> None:
    client = LspClient()
    try:
        client.initialize()
        assert client.proc.stdin is not None
        client.proc.stdin.close()
        status = client.proc.wait(timeout=20)
    finally:
        client.kill()
    client._err_reader.join(5)
    assert "".join(client.stderr_lines) == ""
    assert status == 0


def test_a_notification_with_invalid_parameters_is_reported_and_ignored(opened: LspClient) -> None:
    before = len(opened.stderr_lines)
    opened.notify("textDocument/didOpen", {"textDocument": {"uri": "file:///x.rly"}})
    still_answers(opened)
    assert opened.wait_for_stderr(
        "ignored the notification `textDocument/didOpen`: its parameters do not fit", after=before
    )
