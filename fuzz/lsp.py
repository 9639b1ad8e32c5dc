"""Mode `lsp`: `relay lsp` driven by a hostile editor.

Each case is one session with a fresh server: a document opened (a seed
file, a mutated one, or a huge generated one), then a random stream of
edits (incremental changes at random places, some past the end of the
text), requests of every kind the server offers at random positions (some
out of range), and malformed messages: requests with invalid parameters,
unknown methods, bodies that are not JSON. A session may end with a broken
stream (a malformed `Content-Length`).

The oracle: every request gets a reply (a result or an error) within the
time limit, no reply is an internal error (-32603, a traceback), the server
stays alive until it is told to exit, and after a broken stream it exits
with status 1 and a message on standard error.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

from .oracles import Failure
import contextlib

ROOT = Path(__file__).resolve().parent.parent
REPLY_SECONDS = 60.0
URI = "file:///fuzz/session.rly"
REQUESTS = (
    "textDocument/hover",
    "textDocument/definition",
    "textDocument/references",
    "textDocument/completion",
    "textDocument/documentSymbol",
    "textDocument/semanticTokens/full",
    "textDocument/formatting",
    "textDocument/rangeFormatting",
    "textDocument/prepareRename",
    "textDocument/rename",
    "textDocument/inlayHint",
    "textDocument/codeAction",
)
_NEW_NAMES = ["%y", "y", "@g", "Cons", "let", "1 + x", "", "%", "float32", "@main", "😀"]


class Session:
    """A `relay lsp` process with a reader thread that files its replies by id."""

    command: ClassVar[list[str]] = [sys.executable, "-m", "relay_text", "lsp"]

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        self.replies: dict[Any, dict] = {}
        self.cond = threading.Condition()
        self.next_id = 0
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    with self.cond:
                        self.cond.notify_all()
                    return
                if not line.strip():
                    break
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                continue
            message = json.loads(out.read(length))
            if "method" in message and "id" in message:  # a request from the server
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                continue
            if "id" in message:
                with self.cond:
                    self.replies[message["id"]] = message
                    self.cond.notify_all()

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict) -> None:
        body = json.dumps(message).encode("utf-8")
        with contextlib.suppress(BrokenPipeError, OSError):
            self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method: str, params: Any) -> int:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def reply(self, msg_id: Any, seconds: float = REPLY_SECONDS) -> dict | None:
        deadline = time.monotonic() + seconds
        with self.cond:
            while msg_id not in self.replies:
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return self.replies.pop(msg_id, None)
                self.cond.wait(min(left, 0.5))
            return self.replies.pop(msg_id)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def _position(rng: random.Random, text: str) -> dict:
    lines = text.split("\n")
    if rng.random() < 0.15:  # out of range
        return {"line": rng.choice([len(lines) + 5, 10**6, 0]), "character": rng.choice([10**6, 2**31 - 1, 500])}
    line = rng.randrange(len(lines))
    return {"line": line, "character": rng.randint(0, len(lines[line]) + 1)}


def _apply(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def _offset(text: str, pos: dict) -> int:
    lines = text.split("\n")
    if pos["line"] >= len(lines):
        return len(text)
    return sum(len(ln) + 1 for ln in lines[: pos["line"]]) + min(pos["character"], len(lines[pos["line"]]))


_SNIPPETS = [
    "%x",
    " + ",
    "(",
    ")",
    "{",
    "}",
    ";",
    "\n",
    "def @g() { 1 }\n",
    "/*",
    "*/",
    "//",
    "\r",
    "let %y = ",
    "@main",
    "\u202e",
    "é",
    "😀",
]
_MALFORMED = [
    ("textDocument/hover", {"textDocument": {"uri": URI}}),
    ("textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": "x", "character": 0}}),
    ("textDocument/definition", None),
    ("textDocument/documentSymbol", {"textDocument": 5}),
    ("textDocument/completion", {"textDocument": {"uri": URI}, "position": {"line": -1, "character": -1}}),
    ("workspace/noSuchMethod", {}),
    ("textDocument/hover", {"textDocument": {"uri": "file:///not/open.rly"}, "position": {"line": 0, "character": 0}}),
]


def _document(rng: random.Random, seeds: list[tuple[str, str]]) -> tuple[str, str]:
    roll = rng.random()
    if roll < 0.1:  # a huge one
        n = rng.choice([2000, 5000])
        return f"huge {n}", "".join(f"def @f{i}(%x: int32) -> int32 {{ %x + {i} }}\n" for i in range(n))
    name, text = rng.choice(seeds)
    if roll < 0.5:
        from .mutate import mutate

        text, how = mutate(text, rng, rng.choice(seeds)[1])
        return f"{name}: {how}", text
    return name, text


def run_session(
    rng: random.Random, seeds: list[tuple[str, str]], steps: int = 25, reply_seconds: float = REPLY_SECONDS
) -> tuple[str, list[Failure]]:
    name, text = _document(rng, seeds)
    broken = rng.random() < 0.1
    origin = f"lsp: {name}, {steps} steps{', then a broken stream' if broken else ''}"
    failures: list[Failure] = []
    session = Session()
    try:
        pending: list[tuple[int, str]] = []
        first = session.request(
            "initialize",
            {
                "processId": None,
                "rootUri": None,
                "capabilities": {"general": {"positionEncodings": [rng.choice(["utf-16", "utf-8", "utf-32"])]}},
            },
        )
        pending.append((first, "initialize"))
        session.notify("initialized", {})
        session.notify(
            "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "relay", "version": 1, "text": text}}
        )
        version = 1
        for _ in range(steps):
            roll = rng.random()
            if roll < 0.35:
                start, end = _position(rng, text), _position(rng, text)
                a, b = sorted((_offset(text, start), _offset(text, end)))
                if (start["line"], start["character"]) > (end["line"], end["character"]):
                    start, end = end, start
                new = rng.choice(_SNIPPETS)
                version += 1
                session.notify(
                    "textDocument/didChange",
                    {
                        "textDocument": {"uri": URI, "version": version},
                        "contentChanges": [{"range": {"start": start, "end": end}, "text": new}],
                    },
                )
                text = _apply(text, a, b, new)
            elif roll < 0.85:
                method = rng.choice(REQUESTS)
                params: dict = {"textDocument": {"uri": URI}}
                if method in (
                    "textDocument/hover",
                    "textDocument/definition",
                    "textDocument/completion",
                    "textDocument/references",
                    "textDocument/prepareRename",
                    "textDocument/rename",
                ):
                    params["position"] = _position(rng, text)
                if method == "textDocument/rename":
                    params["newName"] = rng.choice(_NEW_NAMES)
                if method in ("textDocument/rangeFormatting", "textDocument/inlayHint", "textDocument/codeAction"):
                    a, b = _position(rng, text), _position(rng, text)
                    if (a["line"], a["character"]) > (b["line"], b["character"]):
                        a, b = b, a
                    params["range"] = {"start": a, "end": b}
                if method == "textDocument/codeAction":
                    params["context"] = {
                        "diagnostics": [],
                        **({"only": ["source.fixAll"]} if rng.random() < 0.3 else {}),
                    }
                if method == "textDocument/references":
                    params["context"] = {"includeDeclaration": rng.random() < 0.5}
                if method in ("textDocument/formatting", "textDocument/rangeFormatting"):
                    params["options"] = {"tabSize": 2, "insertSpaces": True}
                pending.append((session.request(method, params), method))
            elif roll < 0.95:
                method, params = rng.choice(_MALFORMED)
                pending.append((session.request(method, params), f"{method} (malformed)"))
            else:
                session.raw(b"Content-Length: 9\r\n\r\n{not json")
        silent = False
        for msg_id, method in pending:
            reply = session.reply(msg_id, reply_seconds)
            if reply is None:
                kind = "crash" if session.proc.poll() is not None else "hang"
                failures.append(Failure(kind, "lsp", f"no reply to `{method}` (exit {session.proc.poll()})"))
                silent = True
                break
            error = reply.get("error")
            if error is not None and error.get("code") == -32603:
                failures.append(Failure("internal", "lsp", f"`{method}`: {str(error.get('message'))[:160]}"))
        if silent:
            pass
        elif broken and session.proc.poll() is None:
            session.raw(b"Content-Length: twelve\r\n\r\n{}")
            try:
                status = session.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                failures.append(Failure("hang", "lsp", "still running after a broken stream"))
            else:
                time.sleep(0.2)
                if status != 1 or b"message stream is broken" not in session.stderr:
                    failures.append(
                        Failure(
                            "exit", "lsp", f"after a broken stream: exit {status}, stderr {session.stderr[-120:]!r}"
                        )
                    )
        elif session.proc.poll() is not None:
            failures.append(
                Failure("crash", "lsp", f"the server exited ({session.proc.returncode}): {session.stderr[-160:]!r}")
            )
        else:
            shutdown = session.request("shutdown", None)
            if session.reply(shutdown, reply_seconds) is None:
                failures.append(Failure("hang", "lsp", "no reply to `shutdown`"))
            session.notify("exit", None)
            try:
                session.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                failures.append(Failure("hang", "lsp", "still running after `exit`"))
    finally:
        session.close()
    if b"Traceback" in session.stderr:
        line = [ln for ln in session.stderr.decode("utf-8", "replace").splitlines() if ln.strip()][-1]
        failures.append(Failure("internal", "lsp", f"a traceback on stderr: {line[:160]}"))
    return origin, failures
