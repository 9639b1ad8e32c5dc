"""Characters a reader cannot see: how messages name them, and the warning
for bidirectional-text controls.

An invisible character in a message is written as its code point and name
(`U+200B ZERO WIDTH SPACE`), never raw. Bidirectional-text controls
(U+202A-U+202E, U+2066-U+2069) reorder how an editor shows the text around
them, so a comment or string holding one can make code look different
from what it is (the "trojan source" attack): each is a
`bidi-control-character` warning, as rustc warns.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from typing import Any

from ..diagnostics import Diagnostic, codes
from ..diagnostics.codes import WARNING
from ..ir.span import Source, Span

BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")
MAX_WARNINGS = 20


def char_text(ch: str) -> str:
    """How a message names `ch`: `x` in backticks if it can be seen, else
    its code point and name (`U+202E RIGHT-TO-LEFT OVERRIDE`)."""
    category = unicodedata.category(ch)
    if (ch.isprintable() and category not in ("Cf", "Zs", "Zl", "Zp", "Mn", "Me", "Co", "Cn")) or ch == " ":
        return f"`{ch}`"
    name = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X}" + (f" {name}" if name else "")


def bidi_warnings(source: Source, comments: list[Any]) -> list[Diagnostic]:
    """A warning for each bidirectional-text control in `source` (in a
    comment of `comments`, or in a string literal)."""
    text = source.text
    if _BIDI.search(text) is None:
        return []
    starts = [c.span.start for c in comments]
    out: list[Diagnostic] = []
    for m in _BIDI.finditer(text):
        if len(out) >= MAX_WARNINGS:
            break
        pos = m.start()
        i = bisect.bisect_right(starts, pos) - 1
        where = "comment" if i >= 0 and pos < comments[i].span.end else "string"
        name = char_text(m.group())
        diag = Diagnostic(
            codes.BIDI_CONTROL_CHARACTER,
            f"this {where} holds {name}, an invisible character that changes the direction of the text around it",
            Span(source, pos, pos + 1),
            label="changes how the text is shown",
            severity=WARNING,
        )
        diag.with_note(
            "an editor may show this line in an order that differs from how it is read: "
            "the code may not be what it seems"
        )
        diag.with_help("remove the character if it is not meant to be there")
        out.append(diag)
    return out
