"""Source text and spans: where in which file a node came from.

A `Span` is two character offsets into a `Source`; line and column numbers
are computed on demand (1-based, columns counted in characters), so building
spans while parsing costs two integers.
"""

from __future__ import annotations

import re
from bisect import bisect_right

_LINE_BREAK = re.compile(r"\r\n?|\n")

# The name under which the Prelude's source is known (`relay_text.std`), so that
# any stage can tell the Prelude's spans from a program's.
PRELUDE_SOURCE_NAME = "relay_text/std/prelude.rly"


class Source:
    """The text of one input, with its name (a path, `<stdin>`, `<string>`)."""

    __slots__ = ("_line_starts", "name", "text")

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self.text = text
        self._line_starts: list[int] | None = None

    def __repr__(self) -> str:
        return f"Source({self.name!r}, {len(self.text)} chars)"

    @property
    def line_starts(self) -> list[int]:
        starts = self._line_starts
        if starts is None:
            starts = [0]
            text = self.text
            if "\r" in text:
                # A line ends at `\n`, `\r\n` or a lone `\r` (as editors show it).
                starts.extend(m.end() for m in _LINE_BREAK.finditer(text))
            else:
                find = text.find
                pos = find("\n")
                while pos >= 0:
                    starts.append(pos + 1)
                    pos = find("\n", pos + 1)
            self._line_starts = starts
        return starts

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset."""
        starts = self.line_starts
        line = bisect_right(starts, offset) - 1
        return line + 1, offset - starts[line] + 1

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its newline."""
        starts = self.line_starts
        begin = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        line_text = self.text[begin:end]
        return line_text[:-1] if line_text.endswith("\r") else line_text

    @property
    def line_count(self) -> int:
        return len(self.line_starts)


class Span:
    """A half-open range `[start, end)` of character offsets in a source.

    Immutable; written by hand rather than as a frozen dataclass because the
    parser creates one per node and a frozen dataclass costs four times as
    much to construct.
    """

    __slots__ = ("end", "source", "start")

    def __init__(self, source: Source, start: int, end: int) -> None:
        self.source = source
        self.start = start
        self.end = end

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Span) and (self.source, self.start, self.end) == (other.source, other.start, other.end)

    def __hash__(self) -> int:
        return hash((id(self.source), self.start, self.end))

    def __repr__(self) -> str:
        return f"Span({self.source.name!r}, {self.start}, {self.end})"

    @property
    def start_line_col(self) -> tuple[int, int]:
        return self.source.line_col(self.start)

    @property
    def end_line_col(self) -> tuple[int, int]:
        """Line and column of the last character (inclusive end)."""
        return self.source.line_col(max(self.start, self.end - 1))

    @property
    def text(self) -> str:
        return self.source.text[self.start : self.end]

    def to(self, other: Span | None) -> Span:
        """The span from the start of this one to the end of `other`."""
        if other is None:
            return self
        return Span(self.source, min(self.start, other.start), max(self.end, other.end))

    def __str__(self) -> str:
        line, col = self.start_line_col
        return f"{self.source.name}:{line}:{col}"
