"""What the solver works on: a constraint (a relation over argument types
and a result type), the place in the program it comes from, and the error a
relation raises when it cannot hold."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from .unify import UnifyError

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, for less at import
    from ..record import dataclass


class RelationError(Exception):
    """A relation that cannot hold; becomes a diagnostic at the call."""

    def __init__(
        self,
        code: str,
        message: str,
        arg: int | None = None,
        notes: tuple[str, ...] | list[str] = (),
        label: str = "",
        unify_error: UnifyError | None = None,
        expected: Any = None,
        found: Any = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message  # may contain {expected} and {found}
        self.arg = arg
        self.notes = list(notes)
        self.label = label
        self.unify_error = unify_error
        self.expected = expected
        self.found = found


class _GiveUp(Exception):
    """An input already has an error: the relation stops without a diagnostic."""


@dataclass(slots=True, eq=False)
class Site:
    """Where a constraint comes from: for diagnostics."""

    call: Any  # the Call node whose arguments are the constraint's inputs, if any
    span: Any
    what: str  # how to name it in messages: "`add`", "`@f`"
    owner: Any = None  # the definition whose body contains it
    display: str = ""  # the operator as written (`+` for an infix add), for relation messages


class Constraint:
    """One relation over some input types and a result type."""

    __slots__ = ("args", "attrs", "done", "failed", "fn", "level", "name", "out", "queued", "site")

    def __init__(
        self,
        fn: Callable[[Any], bool],
        name: str,
        args: list[Any],
        out: Any,
        attrs: dict[str, Any],
        site: Site,
        level: int,
    ) -> None:
        self.fn = fn
        self.name = name
        self.args = args
        self.out = out
        self.attrs = attrs
        self.site = site
        self.done = False
        self.queued = False
        self.level = level
        self.failed = False

    def types(self) -> list[Any]:
        return [*self.args, self.out]

    def __repr__(self) -> str:
        return f"Constraint({self.name}, done={self.done})"
