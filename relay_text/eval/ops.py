"""Operators for the evaluator: each call site is bound to its kernel once.

The operator registry (`relay_text.ops.registry`) defines every operator as
one unit with a numpy kernel, called as `kernel(args, attrs)` with the
arguments as a tuple (a scalar is a 0-d array) and the attributes as a
dict with defaults filled. A unit may also offer `scalar`, the same
operation on numpy scalars as positional arguments, which the compiled
program calls directly where the checker proved every argument a scalar
and the call leaves every attribute at its default.

`Resolver` is the seam between the two: `default_resolver` reads the
registry; tests may pass their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

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


def default_resolver(name: str) -> Any | None:
    """The registry's definition of an operator, or None."""
    from ..ops import registry

    return registry.get(name)


def _filled_attrs(definition: Any, attrs: dict) -> dict:
    """The call's attributes with the schema's defaults filled in (the
    checker has already reported any that do not fit)."""
    normalize = getattr(definition, "normalize_attrs", None)
    if callable(normalize):
        filled, _errors = normalize(tuple(attrs.items()))
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
    # The fast path computes the operation with its default attributes.
    direct = getattr(definition, "scalar", None) if all_scalar and not attrs else None
    return BoundOperator(name, kernel, filled, direct if callable(direct) else None)
