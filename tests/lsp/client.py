"""A small LSP client over stdio, for the tests and benchmarks/lsp.py.

It starts `python -m relay_text.cli lsp` (the `relay lsp` command) as a
subprocess, frames JSON-RPC messages with `Content-Length` headers, and
reads the server's messages on a thread: responses go to the request that
waits for them, notifications into a list that `wait_for` watches, and
requests from the server (`client/registerCapability`, ...) get an empty
result. Everything is plain JSON: what the tests assert is exactly what a
real editor would receive.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from collections.abc import Callable

ROOT = Path(__file__).resolve().parents[2]


class ResponseError(Exception):
    def __init__(self, error: dict) -> None:
        super().__init__(error.get("message", ""))
        self.code = error.get("code")
        self.message = error.get("message", "")


class LspClient:
    def __init__(self, command: list[str] | None = None, env: dict[str, str] | None = None) -> None:
        if command is None:
            command = [sys.executable, "-m", "relay_text.cli", "lsp"]
        full_env = dict(os.environ)
        full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
        full_env.update(env or {})
        self.proc = subprocess.Popen(
            command,
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=full_env,
        )
        self._ids = itertools.count(1)
        self._lock = threading.Condition()
        self._responses: dict[int, dict] = {}
        self.notifications: list[dict] = []
        self.server_requests: list[dict] = []
        self.stderr_lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._err_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._err_reader.start()

    # ---- wire --------------------------------------------------------------

    def _send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    with self._lock:
                        self._lock.notify_all()
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value.strip())
            if length is None:
                continue
            message = json.loads(out.read(length).decode("utf-8"))
            message["_received"] = time.perf_counter()
            if "id" in message and "method" in message:  # a request from the server
                self.server_requests.append(message)
                self._send({"id": message["id"], "result": None})
                continue
            with self._lock:
                if "id" in message:
                    self._responses[message["id"]] = message
                else:
                    self.notifications.append(message)
                self._lock.notify_all()

    def _read_stderr(self) -> None:
        err = self.proc.stderr
        assert err is not None
        for line in err:
            self.stderr_lines.append(line.decode("utf-8", "replace"))

    def wait_for_stderr(self, text: str, after: int = 0, timeout: float = 10) -> bool:
        """Whether a line of the server's standard error holding `text`
        arrives (from line `after` on) within `timeout` seconds. Standard
        error is read on its own thread, so a line written before a response
        may be read after it."""
        deadline = time.monotonic() + timeout
        while True:
            if any(text in line for line in self.stderr_lines[after:]):
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)

    # ---- messages ----------------------------------------------------------

    def notify(self, method: str, params: Any = None) -> None:
        self._send({"method": method, "params": params})

    def send_request(self, method: str, params: Any = None) -> int:
        msg_id = next(self._ids)
        self._send({"id": msg_id, "method": method, "params": params})
        return msg_id

    def response(self, msg_id: int, timeout: float = 30) -> Any:
        deadline = time.monotonic() + timeout
        with self._lock:
            while msg_id not in self._responses:
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and msg_id not in self._responses):
                    raise TimeoutError(f"no response to request {msg_id}; stderr: {''.join(self.stderr_lines)[-2000:]}")
                self._lock.wait(min(left, 0.5))
            message = self._responses.pop(msg_id)
        if "error" in message:
            raise ResponseError(message["error"])
        return message.get("result")

    def request(self, method: str, params: Any = None, timeout: float = 30) -> Any:
        return self.response(self.send_request(method, params), timeout)

    def wait_for(
        self, method: str, predicate: Callable[[dict], bool] = lambda p: True, timeout: float = 30, after: int = 0
    ) -> dict:
        """The first notification `method` (from index `after`) whose params
        satisfy `predicate`; returns the whole message."""
        deadline = time.monotonic() + timeout
        with self._lock:
            i = after
            while True:
                while i < len(self.notifications):
                    message = self.notifications[i]
                    i += 1
                    if message.get("method") == method and predicate(message.get("params")):
                        return message
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise TimeoutError(f"no {method} notification; stderr: {''.join(self.stderr_lines)[-2000:]}")
                self._lock.wait(min(left, 0.5))

    def mark(self) -> int:
        """The number of notifications so far (for `wait_for(after=...)`)."""
        with self._lock:
            return len(self.notifications)

    def diagnostics(self, uri: str, version: int | None = None, after: int = 0, timeout: float = 30) -> dict:
        """The next publishDiagnostics for `uri` (for `version`, if given)."""

        def matches(params: dict) -> bool:
            return params["uri"] == uri and (version is None or params.get("version") == version)

        return self.wait_for("textDocument/publishDiagnostics", matches, timeout, after)["params"]

    # ---- session -----------------------------------------------------------

    def initialize(self, capabilities: dict | None = None) -> dict:
        caps = capabilities if capabilities is not None else default_capabilities()
        result = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": ROOT.as_uri(),
                "capabilities": caps,
                "clientInfo": {"name": "relay-tests"},
            },
        )
        self.notify("initialized", {})
        return result

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "relay", "version": version, "text": text}},
        )

    def change(self, uri: str, version: int, changes: list[dict]) -> None:
        self.notify(
            "textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}
        )

    def close(self, uri: str) -> None:
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def shutdown(self, timeout: float = 10) -> int:
        """shutdown, then exit; returns the server's exit status."""
        try:
            self.request("shutdown", None, timeout)
            self.notify("exit")
        except (BrokenPipeError, TimeoutError):
            pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def default_capabilities() -> dict:
    return {
        "general": {"positionEncodings": ["utf-16"]},
        "textDocument": {
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "publishDiagnostics": {"relatedInformation": True, "versionSupport": True},
            "completion": {"completionItem": {"snippetSupport": False}},
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
            "rename": {"prepareSupport": True},
            "semanticTokens": {
                "requests": {"full": True},
                "tokenTypes": [],
                "tokenModifiers": [],
                "formats": ["relative"],
            },
        },
    }


def position(text: str, offset: int) -> dict:
    """The LSP position (UTF-16 columns) of a character offset."""
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    col = sum(2 if ord(ch) > 0xFFFF else 1 for ch in text[start:offset])
    return {"line": line, "character": col}


def position_of(text: str, needle: str, nth: int = 0, delta: int = 0) -> dict:
    """The position of the `nth` occurrence of `needle` (plus `delta` characters)."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return position(text, at + delta)
