"""`relay_text.ir.record.dataclass` makes the classes `dataclasses.dataclass`
makes: each case below declares one class twice, once with each, and the
two must agree on everything a caller can see."""

from __future__ import annotations

import dataclasses
import inspect
import copy
import subprocess
import sys
import weakref
from pathlib import Path
from collections.abc import Callable
from typing import Any

import pytest

from relay_text import record

ROOT = Path(__file__).resolve().parents[1]


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
    if kind == "cached":

        @decorator
        class Cached:
            """Fields __init__ does not take, one with a default, one from a factory."""

            rows: list[int] = _field(decorator)(default_factory=list)
            index: dict[int, int] | None = _field(decorator)(default=None, init=False, repr=False, compare=False)
            seen: list[int] = _field(decorator)(default_factory=list, init=False)

        return Cached
    if kind == "derived":

        @decorator(frozen=True, slots=True)
        class Base:
            """A base with a default."""

            fn: str
            name: str
            default: str | None = None

        @decorator(frozen=True, slots=True)
        class Derived(Base):
            """Inherited fields first, then a keyword-only one, then one declared again."""

            inputs: int = _field(decorator)(kw_only=True)
            name: str = "derived"

        return Derived
    raise AssertionError(kind)


def _field(decorator: Callable[..., Any]) -> Callable[..., Any]:
    """The `field` that goes with `decorator`."""
    return record.field if decorator is record.dataclass else dataclasses.field


def _seen(cls: type, make: Callable[[type, int], Any]) -> list[Any]:
    """What a caller sees of a class and of instances of it."""
    a, b = make(cls, 0), make(cls, 1)
    seen: list[Any] = [
        cls.__name__,
        cls.__doc__,
        str(inspect.signature(cls)),
        # the slots of the class and its bases: a derived class's own
        # `__slots__` repeat its bases' fields on Python 3.10's dataclasses
        # (not from 3.11 on, nor in record classes), the same storage either way
        sorted({slot for c in cls.__mro__ for slot in c.__dict__.get("__slots__", ())})
        if "__slots__" in cls.__dict__
        else None,
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
    "cached": lambda cls, i: cls([1, i - i]),
    "derived": lambda cls, i: cls("f", inputs=2),
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
    with pytest.raises(TypeError, match="without hash or metadata"):

        @record.dataclass
        class Hashed:
            a: int = dataclasses.field(default=0, hash=False)

    with pytest.raises(TypeError, match="inherit fields only from record classes"):

        @dataclasses.dataclass
        class Plain:
            a: int

        @record.dataclass
        class FromPlain(Plain):
            b: int = 0


# Makes a record class and uses it, then prints which of the two modules are loaded.
_UNIMPORTED = """
import sys
from relay_text.record import dataclass, field

@dataclass(frozen=True, slots=True)
class P:
    "A point."
    x: int
    tags: tuple = field(default=(), compare=False)

p = P(1)
assert p == P(1, ("a",)) and hash(p) == hash(P(1)) and repr(p) == "P(x=1, tags=())"
print(sorted(m for m in ("dataclasses", "inspect") if m in sys.modules))
import dataclasses
print([f.name for f in dataclasses.fields(P)], dataclasses.replace(p, x=2))
"""


def test_record_classes_leave_dataclasses_unimported() -> None:
    """Making record classes and using them imports neither `dataclasses`
    nor `inspect` (the point of the module: their import is a tenth of a
    small `relay check`); the `dataclasses` functions still work on them."""
    proc = subprocess.run([sys.executable, "-c", _UNIMPORTED], capture_output=True, text=True, cwd=ROOT, check=True)
    assert proc.stdout == "[]\n['x', 'tags'] P(x=2, tags=())\n"
