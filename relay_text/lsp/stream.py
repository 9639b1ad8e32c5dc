"""The language server's message loop over standard input and output.

It replaces pygls's own loop (`LanguageServer.start_io`) for two cases
that loop handles silently:

* A request whose parameters do not fit its method (a hover without a
  position) gets an error response, `InvalidParams` (-32602), naming the
  method and what is wrong; a message that is not JSON gets `ParseError`
  (-32700) and one that is not a JSON-RPC message `InvalidRequest`
  (-32600), as JSON-RPC 2.0 says. A notification cannot be answered: it is
  reported on standard error and ignored. (pygls answered none of these:
  the client waited for ever.)
* A broken stream (a header line that is not `Name: value`, a missing or
  malformed `Content-Length`, the input ending inside a message) cannot be
  read on: the server says so on standard error and exits with status 1,
  instead of reading on silently.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
from typing import Any, BinaryIO

from lsprotocol import types as lsp

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
MAX_MESSAGE = 1 << 30  # a Content-Length beyond this is taken as garbage

logger = logging.getLogger("relay_text.lsp")


class BrokenStream(Exception):
    """The input cannot be read as LSP messages any more."""


def _report(message: str) -> None:
    try:
        sys.stderr.write(f"relay lsp: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


async def read_message(reader: Any) -> bytes | None:
    """The body of the next message (None at the end of the input between
    messages); BrokenStream if the framing is broken."""
    headers: dict[bytes, bytes] = {}
    while True:
        line = await reader.readline()
        if not line:
            if headers:
                raise BrokenStream("the input ended inside a message's headers")
            return None
        if line in (b"\r\n", b"\n"):
            if headers:
                break
            continue  # (blank lines between messages are harmless)
        name, sep, value = line.partition(b":")
        if not sep or not name.strip() or b" " in name.strip():
            raise BrokenStream(f"a header line is not `Name: value`: {line[:60]!r}")
        headers[name.strip().lower()] = value.strip()
    raw = headers.get(b"content-length")
    if raw is None:
        raise BrokenStream("a message has no Content-Length header")
    if not raw.isdigit() or int(raw) > MAX_MESSAGE:
        raise BrokenStream(f"Content-Length {raw[:40].decode('latin-1')!r} is not a number of bytes")
    length = int(raw)
    body: bytes = await reader.readexactly(length)
    if len(body) < length:
        raise BrokenStream(f"the input ended inside a message ({len(body)} of its {length} bytes came)")
    return body


def handle(protocol: Any, body: bytes) -> None:
    """Hand one message to pygls, or answer what it cannot take."""
    try:
        message = json.loads(body, object_hook=protocol.structure_message)
    except Exception as exc:
        _refuse(protocol, body, exc)
        return
    protocol.handle_message(message)


def _refuse(protocol: Any, body: bytes, exc: Exception) -> None:
    try:
        raw = json.loads(body)
    except ValueError as err:  # (UnicodeDecodeError too)
        _error(protocol, None, PARSE_ERROR, f"the message is not JSON: {err}")
        return
    if not isinstance(raw, dict) or raw.get("jsonrpc") != "2.0" or not isinstance(raw.get("method", ""), str):
        msg_id = raw.get("id") if isinstance(raw, dict) else None
        _error(
            protocol, msg_id if isinstance(msg_id, (int, str)) else None, INVALID_REQUEST, "not a JSON-RPC 2.0 message"
        )
        return
    method = raw.get("method")
    msg_id = raw.get("id")
    detail = _cause(exc)
    if method is None:
        _report(f"ignored a response that could not be read ({detail})")
        return
    if msg_id is None:
        _report(f"ignored the notification `{method}`: its parameters do not fit ({detail})")
        return
    if not isinstance(msg_id, (int, str)):
        _error(protocol, None, INVALID_REQUEST, "a request id must be a number or a string")
        return
    _error(protocol, msg_id, INVALID_PARAMS, f"invalid parameters for `{method}`: {detail}")


def _cause(exc: BaseException) -> str:
    """What was wrong with the parameters, in one line (cattrs nests it)."""
    seen = exc
    while seen.__cause__ is not None:
        seen = seen.__cause__
    notes = []
    for sub in getattr(seen, "exceptions", ()):
        inner = sub
        while getattr(inner, "exceptions", ()):
            inner = inner.exceptions[0]
        where = [n for n in getattr(inner, "__notes__", []) if "@" in n]
        what = (
            f"missing `{inner.args[0]}`"
            if isinstance(inner, KeyError) and inner.args
            else f"{type(inner).__name__}: {inner}"
        )
        notes.append(what + (f" ({where[-1].strip()})" if where else ""))
    return "; ".join(notes) if notes else (str(seen) or type(seen).__name__)


def _error(protocol: Any, msg_id: Any, code: int, message: str) -> None:
    if msg_id is not None:
        protocol._send_response(msg_id, error=lsp.ResponseError(code=code, message=message))
        return
    # (pygls leaves out an id of None; JSON-RPC wants `"id": null` here)
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}).encode("utf-8")
    protocol.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)


async def _loop(server: Any, stdin: BinaryIO) -> None:
    from pygls.io_ import StdinAsyncReader

    reader = StdinAsyncReader(stdin, server.thread_pool)
    stop = server._stop_event
    while not stop.is_set():
        body = await read_message(reader)
        if body is None:
            return
        handle(server.protocol, body)


def serve(server: Any, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Serve until the client says `exit` or goes away (status 0), or the
    stream breaks (status 1, with a message on standard error)."""
    from pygls.io_ import StdoutWriter

    server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
    status = 0
    try:
        asyncio.run(_loop(server, stdin or sys.stdin.buffer))
    except BrokenStream as exc:
        _report(f"error: the client's message stream is broken: {exc}; stopping")
        status = 1
    except BrokenPipeError:
        _report("the client closed the connection; stopping")
    except (KeyboardInterrupt, SystemExit) as exc:
        if isinstance(exc, SystemExit) and isinstance(exc.code, int):
            status = exc.code
    finally:
        server.shutdown()
    return status
