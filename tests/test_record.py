"""`relay_text.ir.record.dataclass` makes the classes `dataclasses.dataclass`
makes: each case below declares one class twice, once with each, and the
two must agree on everything a caller can see."""

from __future__ import annotations

import dataclasses
import inspect
import copy
import weakref
from collections.abc import Callable
from typing import Any

import pytest

from relay_text.ir import record


def _declare(decorator: Callable[..., Any], kind: str) -> type:
    """The class `kind`, made by `decorator` (either dataclass)."""
    if kind == "node":

        @decorator(eq=False, slots=True)
        class Node:
            """A node: identity, slots, a field left out of repr."""

            name: str
            kind: int = 0
            span: object | None = dataclasses.field(default=None, repr=False)

        return Node
    if kind == "value":

        @decorator(frozen=True, slots=True)
        class Value:
            """A frozen value: structural equality and hash, one field not compared."""

            shape: tuple[int, ...]
            dtype: str
            span: object | None = dataclasses.field(default=None, compare=False, repr=False)

        return Value
    if kind == "table":

        @decorator
        class Table:
            rows: list[int] = dataclasses.field(default_factory=list)
            title: str = ""

            def __post_init__(self) -> None:
                self.title = self.title or "untitled"

        return Table
    raise AssertionError(kind)


def _seen(cls: type, make: Callable[[type, int], Any]) -> list[Any]:
    """What a caller sees of a class and of instances of it."""
    a, b = make(cls, 0), make(cls, 1)
    seen: list[Any] = [
        cls.__name__,
        cls.__doc__,
        str(inspect.signature(cls)),
        cls.__dict__.get("__slots__"),
        cls.__match_args__,  # type: ignore[attr-defined]
        cls.__hash__ is None,
        _weakly_referenced(a),
        [(f.name, f.type, f.default, f.default_factory, f.repr, f.compare, f.init) for f in dataclasses.fields(cls)],
        repr(cls.__dataclass_params__),  # type: ignore[attr-defined]
        dataclasses.is_dataclass(cls),
        repr(a),
        a == b,
        a == a,
        a != b,
        dataclasses.asdict(a),
        repr(dataclasses.replace(a)),
        repr(copy.copy(a)),
        repr(copy.deepcopy(a)),
    ]
    if cls.__hash__ is not None:
        seen.append(hash(a) == hash(b))
    first = cls.__match_args__[0]  # type: ignore[attr-defined]
    attempts: list[Callable[[], None]] = [lambda: setattr(a, first, 1), lambda: delattr(a, first)]
    for attempt in attempts:
        try:
            attempt()
            seen.append("allowed")
        except Exception as exc:
            seen.append((type(exc).__name__, str(exc)))
    return seen


def _weakly_referenced(instance: object) -> bool:
    """Whether an instance takes a weak reference (on Python 3.10 a slotted
    dataclass keeps a stale `__weakref__` attribute that does not give one:
    what counts is the reference)."""
    try:
        weakref.ref(instance)
    except TypeError:
        return False
    return True


# Two instances of each (`i` 0 and 1), equal in every field compared.
MAKERS: dict[str, Callable[[type, int], Any]] = {
    "node": lambda cls, i: cls("x", 2),
    "value": lambda cls, i: cls((1, 2), "float32", span=f"span {i}"),
    "table": lambda cls, i: cls([1], ""),
}


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_record_classes_are_the_dataclasses_classes(kind: str) -> None:
    ours = _declare(record.dataclass, kind)
    theirs = _declare(dataclasses.dataclass, kind)
    assert _seen(ours, MAKERS[kind]) == _seen(theirs, MAKERS[kind])


def test_a_record_field_order_error_is_the_dataclass_error() -> None:
    """A field without a default after one with a default is refused alike."""
    for decorator in (record.dataclass, dataclasses.dataclass):
        with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

            @decorator
            class Bad:
                a: int = 0
                b: int


def test_record_refuses_what_it_does_not_make() -> None:
    """Options and field settings it does not implement fail where the class
    is defined, never silently."""
    with pytest.raises(TypeError, match="no option order"):
        record.dataclass(order=True)
    with pytest.raises(TypeError, match="field"):

        @record.dataclass
        class Hidden:
            a: int = dataclasses.field(default=0, init=False)
