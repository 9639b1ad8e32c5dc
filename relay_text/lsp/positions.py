"""Character offsets to LSP positions and back.

Spans count characters (Python string indices); LSP counts lines from 0 and
columns in the code units of the negotiated position encoding: UTF-16 unless
the client offers another (a character outside the Basic Multilingual Plane,
such as an emoji in a comment, is two UTF-16 units and four UTF-8 units).
Line breaks are `\\n`, `\\r\\n` or `\\r`, as the specification says.
"""

from __future__ import annotations

from bisect import bisect_right

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def _units(ch: str, encoding: str) -> int:
    code = ord(ch)
    if encoding == UTF16:
        return 2 if code > 0xFFFF else 1
    if encoding == UTF8:
        return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
    return 1


class LineIndex:
    """Maps offsets of one text to (line, column) in an encoding and back."""

    __slots__ = ("_ascii", "encoding", "starts", "text")

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self.text = text
        self.encoding = encoding
        starts = [0]
        i, n = 0, len(text)
        find = text.find
        # `\n`, `\r\n` and a lone `\r` all end a line.
        if "\r" not in text:
            pos = find("\n")
            while pos >= 0:
                starts.append(pos + 1)
                pos = find("\n", pos + 1)
        else:
            while i < n:
                ch = text[i]
                if ch == "\n" or (ch == "\r" and not text.startswith("\n", i + 1)):
                    starts.append(i + 1)
                i += 1
        self.starts = starts
        self._ascii = text.isascii() or encoding == UTF32

    def _line_end(self, line: int) -> int:
        """The offset where `line`'s text ends (before its line break)."""
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        while end > self.starts[line] and self.text[end - 1] in "\r\n" and (line + 1 < len(self.starts)):
            end -= 1
        return end

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column) of a character offset, clamped to the text."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        if self._ascii:
            return line, offset - start
        enc = self.encoding
        return line, sum(_units(ch, enc) for ch in self.text[start:offset])

    def offset(self, line: int, column: int) -> int:
        """The character offset of (line, column); past the end of a line is
        its end, past the last line the end of the text."""
        if line < 0:
            return 0
        if line >= len(self.starts):
            return len(self.text)
        start = self.starts[line]
        end = self._line_end(line)
        if self._ascii:
            return min(start + max(column, 0), end)
        enc = self.encoding
        units = 0
        pos = start
        while pos < end and units < column:
            units += _units(self.text[pos], enc)
            if units > column:  # inside a surrogate pair: stay before the character
                break
            pos += 1
        return pos

    def end_position(self) -> tuple[int, int]:
        return self.position(len(self.text))


def line_start(text: str, offset: int) -> int:
    """The offset where the line holding `offset` starts (after `\\n`, `\\r\\n`
    or a lone `\\r`)."""
    return max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1


def next_break(text: str, start: int, end: int) -> int:
    """The offset of the first line break (`\\n` or `\\r`) in
    `text[start:end]`, or -1."""
    nl = text.find("\n", start, end)
    cr = text.find("\r", start, nl if nl >= 0 else end)
    return cr if cr >= 0 else nl
