"""Where an unknown came from, so that an unresolved one can be explained."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ir.span import Span

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, for less at import
    from ..record import dataclass


@dataclass(slots=True, eq=False)
class Origin:
    """Why a hole exists, for `unresolved-type` messages; higher rank explains better."""

    kind: str  # meta, param, binder, return, instance, operator, pattern, result
    span: Span | None
    text: str
    owner: Any
    rank: int
    help: str = ""  # how to resolve it, when the place knows better than its kind
    name: str = ""  # the type parameter it instantiates, to show it by name


RANK = {
    "meta": 6,
    "meta_attrs": 6,
    "param": 5,
    "binder": 4,
    "return": 3,
    "instance": 2,
    "operator": 2,
    "pattern": 4,
    "result": 1,
}
