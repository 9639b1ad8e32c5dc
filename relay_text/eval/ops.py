"""Operators for the evaluator: each call site is bound to its kernel once.

The operator registry (`relay_text.ops.registry`) defines every operator as
one unit with a numpy kernel, called as `kernel(args, attrs)` with the
arguments as a tuple of values and the attributes as a dict with defaults
filled. An operator may also offer `scalar`, a function of positional
numpy scalars with the same meaning, which the compiled program calls
directly when the checker has proven that every argument is a scalar.

`Resolver` is the seam between the two: `default_resolver` reads the
registry; tests may pass their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Protocol


class OperatorDefinition(Protocol):
    name: str

    def kernel(self, args: tuple, attrs: dict) -> Any: ...


Resolver = Callable[[str], Optional[Any]]


@dataclass(frozen=True)
class BoundOperator:
    """How the compiled program calls one operator at one call site.

    `direct` is called with the arguments themselves; otherwise `kernel` is
    called with the argument tuple and `attrs`."""

    name: str
    kernel: Callable[..., Any]
    attrs: dict
    direct: Callable[..., Any] | None = None


class NoKernel(Exception):
    """The operator exists for the parser but nothing can run it."""


def registry_available() -> bool:
    try:
        from ..ops import registry  # noqa: F401
    except ImportError:
        return False
    return True


def default_resolver(name: str) -> Any | None:
    """The registry's definition of an operator, or None."""
    try:
        from ..ops import registry
    except ImportError:
        return None
    try:
        return registry.get(name)
    except (KeyError, LookupError):
        return None


def _filled_attrs(definition: Any, attrs: dict) -> dict:
    for method in ("fill_attrs", "with_defaults"):
        fill = getattr(definition, method, None)
        if callable(fill):
            return dict(fill(attrs))
    normalize = getattr(definition, "normalize_attrs", None)
    if callable(normalize):  # the registry's OpDef: (filled attributes, problems)
        filled, _problems = normalize(attrs.items() if isinstance(attrs, dict) else attrs)
        return dict(filled)
    return dict(attrs)


def bind(name: str, attrs: dict, resolver: Resolver, all_scalar: bool = False) -> BoundOperator:
    """Look an operator up and fix its attributes; raises NoKernel."""
    definition = resolver(name)
    if definition is None:
        raise NoKernel(name)
    kernel = getattr(definition, "kernel", None)
    if not callable(kernel):
        raise NoKernel(name)
    filled = _filled_attrs(definition, attrs)
    direct = getattr(definition, "scalar", None) if all_scalar and not filled_differs(attrs, filled) else None
    return BoundOperator(name, kernel, filled, direct if callable(direct) else None)


def filled_differs(given: dict, filled: dict) -> bool:
    """Whether a call passes attributes that change the operator's default
    behaviour (a scalar fast path only covers the defaults)."""
    return bool(given)
