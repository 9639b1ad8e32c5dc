"""Small pieces of English shared by every command's messages."""

from __future__ import annotations


def counted(n: int, noun: str) -> str:
    """`1 file`, `2 files`: a count with its noun in the singular or plural
    (nouns whose plural adds `s`)."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
