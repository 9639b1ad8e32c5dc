"""Nested scopes with O(1) lookup, however deep the nesting.

Each name maps to its binding, or to a stack of its bindings once it is
bound again while in scope; a frame remembers which names it bound so that
leaving it pops exactly those. A chain of 100,000 nested lets is 100,000
frames, and looking up an outer name still costs one dict access.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

T = TypeVar("T")


class _Stack(list[Any]):
    """The bindings of a name bound more than once, innermost last (a name
    bound once maps to its value itself: a file of 100,000 graph bindings
    makes no list per name)."""

    __slots__ = ()


class Scopes(Generic[T]):
    def __init__(self) -> None:
        self._table: dict[str, Any] = {}  # name -> its value, or a `_Stack` of them
        self._frames: list[list[str]] = [[]]

    def push(self) -> None:
        self._frames.append([])

    def pop(self) -> None:
        table = self._table
        for name in self._frames.pop():
            stack = table[name]
            if type(stack) is not _Stack:
                del table[name]
                continue
            stack.pop()
            if len(stack) == 1:
                table[name] = stack[0]

    def bind(self, name: str, value: T) -> None:
        table = self._table
        bound = table.get(name, _Stack)
        if bound is _Stack:
            table[name] = value
        elif type(bound) is _Stack:
            bound.append(value)
        else:
            table[name] = _Stack((bound, value))
        self._frames[-1].append(name)

    def bind_outermost(self, name: str, value: T) -> None:
        """Bind `name` in the outermost frame, under every binding of it
        that is in scope now: those still win until their frames end."""
        table = self._table
        bound = table.get(name, _Stack)
        if bound is _Stack:
            table[name] = value
        elif type(bound) is _Stack:
            bound.insert(0, value)
        else:
            table[name] = _Stack((value, bound))
        self._frames[0].append(name)

    def lookup(self, name: str) -> T | None:
        bound = self._table.get(name)
        if type(bound) is _Stack:
            value: T = bound[-1]
            return value
        return bound

    def names(self) -> list[str]:
        """Every name currently visible (for suggestions)."""
        return list(self._table)

    @property
    def depth(self) -> int:
        return len(self._frames)
