"""Where a comment goes, decided from its trivia (the tokens and line
breaks around it, as the lexer recorded them): the `Note` each comment
becomes, and the rules that pick its anchor and its side (`comments.attach`
runs them for every comment)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import re
from bisect import bisect_left
from collections.abc import Hashable

from ..ir.module import Comment
from ..ir.positions import Trivia

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, for less at import (see relay_text/record.py)
    from ..record import dataclass

# an anchor beside a comment: (start, end, key)
Around = tuple[int, int, Hashable]


@dataclass(slots=True)
class Note:
    """One comment as the printer needs it."""

    index: int  # position in Module.comments
    text: str
    own_line: bool  # nothing but blanks before it on its line
    line: bool  # runs to the end of the line (`//`, `#`)
    blank_before: bool  # an empty line separates it from the code above
    inline_lead: bool = False  # a block comment with more text after it on its line


def coarse_place(
    stack: list[tuple[int, int, int, Hashable]],
    statements: list[tuple[int, int, Hashable]],
    line_level: set[Hashable],
    cs: int,
    ce: int,
) -> tuple[Hashable, str] | None:
    """Where the coarse placement puts a comment inside a top-level item: it
    leads the next statement that starts after it in that item, or else
    trails the last statement before it (so that comments keep their order)."""
    i = bisect_left(statements, (ce, -1))
    while i < len(statements) and statements[i][0] < ce:
        i += 1
    if not stack:  # between top-level items: it leads the next one (if any)
        return (statements[i][2], "before") if i < len(statements) else None
    top_start, top_end, _, top = stack[0]
    if i < len(statements) and statements[i][0] < top_end and statements[i][2] is not top:
        return statements[i][2], "before"
    lines = [item[3] for item in stack[1:] if item[3] in line_level]
    if lines:  # in the last statement of its item (its tail): after that statement
        return lines[-1], "after_term"
    best = None
    for start, end, key in statements:
        if start >= cs:
            break
        if top_start <= start and end <= cs and key is not top:
            best = key
    if best is not None:
        return best, "after_term"
    return top, "before"


def note_of(index: int, comment: Comment, trivia: Trivia) -> Note:
    is_line = not comment.text.startswith("/*")
    inline = not is_line and not trivia.ends_line
    return Note(index, comment.text, trivia.own_line, is_line, trivia.blank_before, inline)


def _between(trivia: Trivia, end: int) -> str:
    """The code between an anchor that ends at `end` and the comment: "",
    the one token (`,`, `;`) or, for more, something that ends as they do."""
    before = trivia.before
    if before is None or before[1] <= end:
        return ""
    return before[2] if trivia.before2_end <= end else "..." + before[2]


def _only_graph_head(trivia: Trivia, start: int) -> bool:
    """Whether the code between the comment and an anchor starting at
    `start` is nothing or the head of a graph binding (`%n =`)."""
    after = trivia.after
    if not after or after[0][0] >= start:
        return True
    if len(after) < 3 or after[2][0] < start or after[1][2] != "=":
        return False
    return _GRAPH_NAME.fullmatch(after[0][2]) is not None


_GRAPH_NAME = re.compile(r"%[A-Za-z0-9_.]+")


def decide(
    note: Note, trivia: Trivia, prev: Around | None, nxt: Around | None, line_level: set[Hashable]
) -> tuple[Hashable | None, str]:
    between = _between(trivia, prev[1]) if prev is not None else None
    if not note.own_line:
        if prev is not None and between in ("", ",", ";"):
            return prev[2], ("after_term" if between else "after")
        if nxt is not None:
            return nxt[2], "before"
        if prev is not None:
            return prev[2], ("after_term" if between and between[-1] in ",;" else "after")
        return None, ""
    if nxt is not None:
        if prev is not None:
            if nxt[2] in line_level and not note.blank_before and between in ("", ",", ";") and trivia.blank_after:
                return prev[2], "after"  # hugs the code above, an empty line below
            if not _only_graph_head(trivia, nxt[0]):
                return prev[2], "after"  # the last thing before a `)`, `}`, `else`, ...
        return nxt[2], "before"
    if prev is not None:
        return prev[2], "after"
    return None, ""
