"""Nested scopes with O(1) lookup, however deep the nesting.

Each name maps to a stack of its bindings; a frame remembers which names it
bound so that leaving it pops exactly those. A chain of 100,000 nested lets
is 100,000 frames, and looking up an outer name still costs one dict access.
"""

from __future__ import annotations

from typing import Generic, TypeVar

T = TypeVar("T")


class Scopes(Generic[T]):
    def __init__(self) -> None:
        self._table: dict[str, list[T]] = {}
        self._frames: list[list[str]] = [[]]

    def push(self) -> None:
        self._frames.append([])

    def pop(self) -> None:
        table = self._table
        for name in self._frames.pop():
            stack = table[name]
            stack.pop()
            if not stack:
                del table[name]

    def bind(self, name: str, value: T) -> None:
        stack = self._table.get(name)
        if stack is None:
            self._table[name] = [value]
        else:
            stack.append(value)
        self._frames[-1].append(name)

    def bind_outermost(self, name: str, value: T) -> None:
        """Bind `name` in the outermost frame, under every binding of it
        that is in scope now: those still win until their frames end."""
        self._table.setdefault(name, []).insert(0, value)
        self._frames[0].append(name)

    def lookup(self, name: str) -> T | None:
        stack = self._table.get(name)
        return stack[-1] if stack else None

    def names(self) -> list[str]:
        """Every name currently visible (for suggestions)."""
        return list(self._table)

    @property
    def depth(self) -> int:
        return len(self._frames)
