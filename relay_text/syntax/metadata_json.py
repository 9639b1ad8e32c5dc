"""The JSON of the `#[metadata]` section, read with the location of every
value, so that a problem is reported at the part of the section it is in.
"""

from __future__ import annotations

import re
from typing import Any

from .metadata_tensor import MAX_JSON_DEPTH

_SPACE = re.compile(r"[ \t\r\n]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_WORDS = {"true": True, "false": False, "null": None}


class _JsonError(Exception):
    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


def parse_json(text: str) -> tuple[Any, dict[tuple[Any, ...], tuple[int, int]]]:
    """Parse JSON text, also returning the `(start, end)` offsets of every
    value by its path (`("nodes", 3, "attrs", "data")`).

    Iterative, so nesting depth costs no Python stack; strings are scanned by
    the json module's C scanner, so megabyte-long base64 blobs are cheap.
    """
    from json.decoder import scanstring  # type: ignore[attr-defined]

    spans: dict[tuple[Any, ...], tuple[int, int]] = {}
    n = len(text)
    pos = _blank_end(text, 0)
    # frames: [container, path, start offset, pending key (objects)]
    stack: list[list[Any]] = []
    root: Any = None
    expect_value = True

    def fail(message: str, at: int) -> None:
        raise _JsonError(message, at)

    while True:
        if expect_value:
            if pos >= n:
                fail("the JSON ends where a value was expected", pos)
            ch = text[pos]
            path = _child_path(stack)
            if ch == "{" or ch == "[":
                container: Any = {} if ch == "{" else []
                start = pos
                if len(stack) >= MAX_JSON_DEPTH:
                    fail(
                        f"the JSON is nested more than {MAX_JSON_DEPTH} levels deep; TVM's tables are nested 4 deep",
                        pos,
                    )
                stack.append([container, path, start, None])
                pos = _blank_end(text, pos + 1)
                close = "}" if ch == "{" else "]"
                if pos < n and text[pos] == close:
                    stack.pop()
                    spans[path] = (start, pos + 1)
                    value, end = container, pos + 1
                elif ch == "{":
                    pos = _read_key(text, pos, stack[-1], scanstring, fail)
                    continue
                else:
                    continue
            elif ch == '"':
                try:
                    value, end = scanstring(text, pos + 1, True)
                except ValueError as exc:
                    fail(f"a malformed string: {exc.args[0].split(':')[0]}", pos)
                spans[path] = (pos, end)
            else:
                m = _NUMBER.match(text, pos)
                if m:
                    lit = m.group()
                    value = float(lit) if any(c in lit for c in ".eE") else int(lit)
                    end = m.end()
                else:
                    for word, word_value in _WORDS.items():
                        if text.startswith(word, pos):
                            value, end = word_value, pos + len(word)
                            break
                    else:
                        fail(f"expected a JSON value, found `{_word_at(text, pos)}`", pos)
                spans[path] = (pos, end)
            # attach the value to its parent
            if not stack:
                root = value
                pos = _blank_end(text, end)
                if pos != n:
                    fail("unexpected text after the JSON value", pos)
                return root, spans
            frame = stack[-1]
            if isinstance(frame[0], dict):
                frame[0][frame[3]] = value
            else:
                frame[0].append(value)
            pos = _blank_end(text, end)
            expect_value = False
        else:
            frame = stack[-1]
            container = frame[0]
            close = "}" if isinstance(container, dict) else "]"
            if pos >= n:
                fail(
                    f"the JSON ends inside {'an object' if close == '}' else 'a list'}; `{close}` is missing", frame[2]
                )
            ch = text[pos]
            if ch == ",":
                pos = _blank_end(text, pos + 1)
                if isinstance(container, dict):
                    pos = _read_key(text, pos, frame, scanstring, fail)
                expect_value = True
            elif ch == close:
                stack.pop()
                spans[frame[1]] = (frame[2], pos + 1)
                end = pos + 1
                if not stack:
                    pos = _blank_end(text, end)
                    if pos != n:
                        fail("unexpected text after the JSON value", pos)
                    return container, spans
                parent = stack[-1]
                if isinstance(parent[0], dict):
                    parent[0][parent[3]] = container
                else:
                    parent[0].append(container)
                pos = _blank_end(text, end)
            else:
                fail(f"expected `,` or `{close}`, found `{ch}`", pos)


def _blank_end(text: str, pos: int) -> int:
    """Where the blanks from `pos` end (`_SPACE` matches everywhere)."""
    m = _SPACE.match(text, pos)
    assert m is not None
    return m.end()


def _word_at(text: str, pos: int) -> str:
    m = re.compile(r"[^\s,:\[\]{}]+").match(text, pos)
    return m.group()[:20] if m else text[pos]


def _child_path(stack: list[list[Any]]) -> tuple[Any, ...]:
    if not stack:
        return ()
    container, path, _, key = stack[-1]
    parent: tuple[Any, ...] = path
    return parent + ((key,) if isinstance(container, dict) else (len(container),))


def _read_key(text: str, pos: int, frame: list[Any], scanstring: Any, fail: Any) -> int:
    if pos >= len(text):
        fail("the JSON ends inside an object; `}` is missing", frame[2])
    if text[pos] != '"':
        fail("expected a quoted key", pos)
    try:
        key, end = scanstring(text, pos + 1, True)
    except ValueError:
        fail("a malformed key", pos)
    pos = _blank_end(text, end)
    if pos >= len(text) or text[pos] != ":":
        fail(f'expected `:` after the key "{key}"', pos)
    frame[3] = key
    return _blank_end(text, pos + 1)


# ---------------------------------------------------------------- the table
