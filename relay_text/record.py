"""Record classes made as `dataclasses.dataclass` makes them, for less at import.

`@dataclass(...)` spends about half a millisecond on each class it
decorates: it inspects every field, compiles each method apart and, with
`slots=True`, builds the class twice. The IR defines some forty node classes
and every command imports them, so that cost is a good part of the start-up
of `relay check` on a small file. `dataclass` below gives the same classes
(the same `__init__`, `__repr__`, `__eq__`, `__hash__`, frozen
`__setattr__`/`__delattr__`, `__slots__`, `__match_args__`, pickling of
frozen slotted classes) from one compiled block per class, and builds what
only the `dataclasses` functions read (`__dataclass_fields__`,
`__dataclass_params__`: `fields`, `replace`, `asdict`, `is_dataclass`) the
first time one of them asks, with `dataclasses.dataclass` itself.

It takes the options the IR uses (`eq`, `frozen`, `slots`), fields made
with its own `field(default=..., default_factory=..., init=..., repr=...,
compare=..., kw_only=...)` or `dataclasses.field` with the same settings,
and fields inherited from a record base class. It does not import
`dataclasses` (which imports `inspect`, a tenth of a small `relay check`)
until one of the `dataclasses` functions asks. Modules import `dataclass`
and `field` under `TYPE_CHECKING` from `dataclasses`, so that type
checkers read the classes as the dataclasses they are.
"""

from __future__ import annotations

import sys
from reprlib import recursive_repr
from typing import Any
from collections.abc import Callable


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


_MISSING: Any = _Missing()
_OPTIONS = frozenset(["eq", "frozen", "slots"])
# A record class's fields, in order (with those it inherits), as `_Spec`s.
_SPECS = "__record_fields__"


class _HasDefaultFactory:
    def __repr__(self) -> str:
        return "<factory>"


_HAS_DEFAULT_FACTORY = _HasDefaultFactory()


def dataclass(cls: type | None = None, /, **options: bool) -> Any:
    """`dataclasses.dataclass` for the options `eq`, `frozen` and `slots`."""
    unknown = set(options) - _OPTIONS
    if unknown:
        raise TypeError(f"record classes take no option {', '.join(sorted(unknown))}")

    def wrap(cls: type) -> type:
        return _record(cls, options.get("eq", True), options.get("frozen", False), options.get("slots", False))

    return wrap if cls is None else wrap(cls)


class Field:
    """What `field()` declares: a field's default or default factory and
    whether `__init__`, `repr` and `==` take it."""

    __slots__ = ("compare", "default", "default_factory", "init", "kw_only", "repr")

    def __init__(
        self, default: Any, default_factory: Any, init: bool, repr: bool, compare: bool, kw_only: bool
    ) -> None:
        self.default, self.default_factory, self.init = default, default_factory, init
        self.repr, self.compare, self.kw_only = repr, compare, kw_only

    def dataclasses_field(self) -> Any:
        """The same declaration as `dataclasses.field` makes it."""
        import dataclasses

        settings: dict[str, Any] = {"init": self.init, "repr": self.repr, "compare": self.compare}
        if self.default is not _MISSING:
            settings["default"] = self.default
        if self.default_factory is not _MISSING:
            settings["default_factory"] = self.default_factory
        return dataclasses.field(**settings, kw_only=self.kw_only)


def field(
    *,
    default: Any = _MISSING,
    default_factory: Any = _MISSING,
    init: bool = True,
    repr: bool = True,
    compare: bool = True,
    kw_only: bool = False,
) -> Any:
    """`dataclasses.field` for the settings record classes take."""
    if default is not _MISSING and default_factory is not _MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, init, repr, compare, kw_only)


class _Spec:
    __slots__ = ("compare", "default", "factory", "init", "kw_only", "name", "repr", "type")

    def __init__(self, name: str, value: object, annotation: Any) -> None:
        self.name, self.type = name, annotation
        self.init, self.kw_only = True, False
        if isinstance(value, Field):
            self.default, self.factory, self.repr, self.compare = (
                value.default,
                value.default_factory,
                value.repr,
                value.compare,
            )
            self.init, self.kw_only = value.init, value.kw_only
        elif _is_dataclasses_field(value):
            made: Any = value
            missing = sys.modules["dataclasses"].MISSING
            self.default, self.factory, self.repr, self.compare = (
                _MISSING if made.default is missing else made.default,
                _MISSING if made.default_factory is missing else made.default_factory,
                made.repr,
                made.compare,
            )
            self.init, self.kw_only = made.init, made.kw_only is True
            if made.hash is not None or made.metadata:
                raise TypeError(f"record classes take field() without hash or metadata: {name}")
        else:
            self.default, self.factory, self.repr, self.compare = value, _MISSING, True, True

    def declared(self) -> Any:
        """The class attribute from which `dataclasses.dataclass` reads the
        same declaration (`_MISSING`: none)."""
        if self.init and not self.kw_only and self.repr and self.compare and self.factory is _MISSING:
            return self.default
        return Field(self.default, self.factory, self.init, self.repr, self.compare, self.kw_only).dataclasses_field()


def _is_dataclasses_field(value: object) -> bool:
    module = sys.modules.get("dataclasses")  # (a `dataclasses.Field` means it is loaded)
    return module is not None and isinstance(value, module.Field)


def _record(cls: type, eq: bool, frozen: bool, slots: bool) -> type:
    own = cls.__dict__
    annotations: dict[str, Any] = dict(own.get("__annotations__", {}))
    inherited: dict[str, _Spec] = {}
    for base in reversed(cls.__mro__[1:]):
        if _SPECS in base.__dict__:
            inherited.update((s.name, s) for s in base.__dict__[_SPECS])
        elif "__dataclass_fields__" in base.__dict__:
            raise TypeError(f"{cls.__name__}: record classes inherit fields only from record classes")
    if any("ClassVar" in str(a) or "InitVar" in str(a) for a in annotations.values()):
        raise TypeError(f"{cls.__name__}: record classes take no ClassVar or InitVar fields")
    declared = [_Spec(name, own.get(name, _MISSING), annotation) for name, annotation in annotations.items()]
    # (as dataclasses orders them: a field declared again keeps its place)
    specs = list({s.name: s for s in [*inherited.values(), *declared]}.values())
    names = tuple(s.name for s in specs)

    # __init__, and __eq__ and __hash__ where dataclass adds them, compiled together.
    scope: dict[str, Any] = {"__object_setattr": object.__setattr__, "__HAS_DEFAULT_FACTORY": _HAS_DEFAULT_FACTORY}
    params, lines = _init_parts(specs, frozen, scope)
    if hasattr(cls, "__post_init__"):
        lines.append("  self.__post_init__()")
    source = [f"def __init__({', '.join(params)}):", *(lines or ["  pass"])]
    compared = [s.name for s in specs if s.compare]
    mine = "(" + "".join(f"self.{n}," for n in compared) + ")"
    theirs = "(" + "".join(f"other.{n}," for n in compared) + ")"
    if eq:
        source += [
            "def __eq__(self, other):",
            "  if other.__class__ is self.__class__:",
            f"    return {mine}=={theirs}",
            "  return NotImplemented",
        ]
        if frozen:
            source += ["def __hash__(self):", f"  return hash({mine})"]
    made: dict[str, Any] = {}
    args = ", ".join(scope)
    body = "\n".join("  " + line for line in source)
    methods = "".join(f"{m!r}: {m}, " for m in ("__init__", "__eq__", "__hash__") if f"def {m}(" in body)
    text = f"def __make({args}):\n{body}\n  return {{{methods}}}"
    module = sys.modules.get(cls.__module__)
    exec(text, module.__dict__ if module is not None else {}, made)
    functions: dict[str, Callable[..., Any]] = made["__make"](*scope.values())
    init = functions["__init__"]
    init.__annotations__ = {**{s.name: s.type for s in specs if s.init}, "return": None}

    # What the class gets: with slots in a new class (as dataclasses makes
    # one), else on the class itself, whose fields' class attributes become
    # their defaults (a method's `super()` names the class it was defined in).
    namespace: dict[str, Any] = {}

    def put(name: str, value: object) -> None:
        if name not in own:
            if callable(value) and hasattr(value, "__qualname__"):
                value.__qualname__ = f"{cls.__qualname__}.{name}"
            namespace[name] = value

    put("__init__", init)
    shown = tuple(s.name for s in specs if s.repr)

    def __repr__(self: Any) -> str:
        return f"{self.__class__.__qualname__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in shown) + ")"

    put("__repr__", recursive_repr()(__repr__))
    if eq:
        put("__eq__", functions["__eq__"])
        explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
        if frozen and not explicit_hash:
            namespace["__hash__"] = functions["__hash__"]
            functions["__hash__"].__qualname__ = f"{cls.__qualname__}.__hash__"
        elif not frozen and not explicit_hash:
            namespace["__hash__"] = None
    put("__match_args__", tuple(s.name for s in specs if s.init and not s.kw_only))
    lazy = _Declared(cls, specs, eq, frozen, slots)
    for attribute in ("__dataclass_fields__", "__dataclass_params__"):
        namespace[attribute] = _Lazy(lazy, attribute)
    namespace[_SPECS] = tuple(specs)
    if slots:
        if "__slots__" in own:
            raise TypeError(f"{cls.__name__} already specifies __slots__")
        base_slots = {s for base in cls.__mro__[1:-1] for s in _slots(base)}
        namespace["__slots__"] = tuple(n for n in names if n not in base_slots)
        kept = {k: v for k, v in own.items() if k not in names and k not in ("__dict__", "__weakref__")}
        new = type(cls)(cls.__name__, cls.__bases__, {**kept, **namespace})
        new.__qualname__ = cls.__qualname__
    else:
        new = cls
        for s in declared:
            if s.name in own:
                if s.default is _MISSING:
                    delattr(cls, s.name)
                else:
                    setattr(cls, s.name, s.default)
        for key, value in namespace.items():
            setattr(cls, key, value)
    lazy.owner = new
    if frozen:
        # As dataclasses does (with slots, the class it names is the one it
        # replaced, so that only the fields' names are refused as such).
        _freeze(new, cls if slots else new, names)
        if slots:
            if "__getstate__" not in own:
                new.__getstate__ = lambda self: [getattr(self, n) for n in names]  # type: ignore[attr-defined]
            if "__setstate__" not in own:

                def setstate(self: Any, state: list[Any]) -> None:
                    for name, value in zip(names, state, strict=False):
                        object.__setattr__(self, name, value)

                new.__setstate__ = setstate  # type: ignore[attr-defined]
    if not new.__doc__:
        import inspect

        try:
            new.__doc__ = new.__name__ + str(inspect.signature(new)).replace(" -> None", "")
        except (TypeError, ValueError):
            new.__doc__ = new.__name__
    return new


def _init_parts(specs: list[_Spec], frozen: bool, scope: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The parameters of `__init__` and the lines of its body that set the
    fields; the defaults and factories they name go into `scope`."""
    positional, keywords, lines = ["self"], [], []
    seen_default = False
    for s in specs:
        if s.factory is not _MISSING:
            scope[f"__factory_{s.name}"] = s.factory
            parameter = f"{s.name}=__HAS_DEFAULT_FACTORY"
            made = f"__factory_{s.name}()"
            value = f"{made} if {s.name} is __HAS_DEFAULT_FACTORY else {s.name}" if s.init else made
        elif s.default is not _MISSING:
            scope[f"__default_{s.name}"] = s.default
            parameter = f"{s.name}=__default_{s.name}"
            value = s.name if s.init else f"__default_{s.name}"
        elif s.init:
            if seen_default and not s.kw_only:
                raise TypeError(f"non-default argument {s.name!r} follows default argument")
            parameter = value = s.name
        else:
            continue  # (neither taken nor defaulted: set by __post_init__, if at all)
        if s.init and s.kw_only:
            keywords.append(parameter)
        elif s.init:
            positional.append(parameter)
            seen_default = seen_default or parameter != s.name
        lines.append(f"  __object_setattr(self, {s.name!r}, {value})" if frozen else f"  self.{s.name} = {value}")
    return positional + (["*", *keywords] if keywords else []), lines


def _slots(cls: type) -> tuple[str, ...]:
    slots = cls.__dict__.get("__slots__", ())
    return (slots,) if isinstance(slots, str) else tuple(slots)


def _freeze(target: type, owner: type, names: tuple[str, ...]) -> None:
    def __setattr__(self: Any, name: str, value: object) -> None:
        if type(self) is owner or name in names:
            from dataclasses import FrozenInstanceError

            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(owner, self).__setattr__(name, value)  # type: ignore[arg-type]  # mypy reads `owner` as an instance

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is owner or name in names:
            from dataclasses import FrozenInstanceError

            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(owner, self).__delattr__(name)  # type: ignore[arg-type]  # as above

    for function in (__setattr__, __delattr__):
        if function.__name__ not in target.__dict__:
            function.__qualname__ = f"{target.__qualname__}.{function.__name__}"
            setattr(target, function.__name__, function)


class _Declared:
    """What `__dataclass_fields__` and `__dataclass_params__` are made from:
    `dataclasses.dataclass` applied to a copy of the class's field
    declarations (its inherited fields declared in it) gives them, exactly
    as it would have, when first read."""

    def __init__(self, cls: type, specs: list[_Spec], eq: bool, frozen: bool, slots: bool) -> None:
        self.owner = cls
        self.spec = (cls.__name__, cls.__qualname__, cls.__module__, specs, eq, frozen, slots)

    def make(self) -> None:
        import dataclasses

        name, qualname, module, specs, eq, frozen, slots = self.spec
        declared = {s.name: s.declared() for s in specs}
        namespace = {"__annotations__": {s.name: s.type for s in specs}, "__module__": module}
        shadow = type(name, (), {**namespace, **{n: v for n, v in declared.items() if v is not _MISSING}})
        shadow.__qualname__ = qualname
        # (`slots` too: Python 3.13's parameters record it)
        made: type = dataclasses.dataclass(eq=eq, frozen=frozen, slots=slots)(shadow)
        for attribute in ("__dataclass_fields__", "__dataclass_params__"):
            type.__setattr__(self.owner, attribute, made.__dict__[attribute])


class _Lazy:
    """A class attribute made by `_Declared.make` on first read."""

    def __init__(self, declared: _Declared, name: str) -> None:
        self.declared, self.name = declared, name

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        self.declared.make()
        return self.declared.owner.__dict__[self.name]
