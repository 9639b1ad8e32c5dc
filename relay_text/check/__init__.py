"""The type checker: constraint generation, unification, relation solving.

    check_module(module, prelude=None) -> CheckResult

`prelude` holds definitions (globals, data types, constructors) the checked
module may use without defining them: a parsed `Module`, or the
`CheckResult` of one (`prelude_result(module)` checks a module once and
caches the result). The module being checked must have been parsed with
`relay_text.pipeline.prelude_env(prelude_module)`, so that its names
resolve to the prelude's; `relay_text.pipeline.check_text` does both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .result import CheckResult

if TYPE_CHECKING:
    from ..ir.module import Module

_PRELUDES: dict[int, tuple["Module", CheckResult]] = {}


def check_module(module: "Module", prelude: "CheckResult | Module | None" = None) -> CheckResult:
    """Type-check a parsed module; diagnostics are in the result."""
    import gc

    from ..ir.module import Module

    if isinstance(prelude, Module):
        prelude = prelude_result(prelude)

    from .infer import Checker

    # Checking allocates many small objects that live until it ends: pausing
    # the cyclic collector meanwhile keeps large programs linear.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return Checker(module, prelude).check_module()
    finally:
        if was_enabled:
            gc.enable()


def prelude_result(module: "Module") -> CheckResult:
    """Check a module meant as a prelude, once per module object."""
    cached = _PRELUDES.get(id(module))
    if cached is not None and cached[0] is module:
        return cached[1]
    result = check_module(module)
    _PRELUDES[id(module)] = (module, result)
    return result


def __getattr__(name: str) -> object:
    # Parsing helpers that once lived here; they belong to the pipeline,
    # which chains parsing and checking (this package never parses).
    if name in ("prelude_env", "check_text"):
        from .. import pipeline

        return getattr(pipeline, name)
    raise AttributeError(name)


__all__ = ["CheckResult", "check_module", "check_text", "prelude_env", "prelude_result"]
