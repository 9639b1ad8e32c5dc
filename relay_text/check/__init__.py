"""The type checker: constraint generation, unification, relation solving.

    check_module(module, prelude=None) -> CheckResult
    check_text(text, name="<string>") -> CheckResult   (parse, then check)

`prelude` holds definitions (globals, data types, constructors) the checked
module may use without defining them: a parsed `Module`, or the
`CheckResult` of one (`prelude_result(module)` checks a module once and
caches the result). The module being checked must have been parsed with
`prelude_env(prelude_module)`, so that its names resolve to the prelude's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .result import CheckResult

if TYPE_CHECKING:
    from ..ir.module import Module
    from ..syntax.builder import Env

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


def prelude_env(module: "Module") -> "Env":
    """The names a prelude module defines, for parsing modules that use them."""
    from ..syntax.builder import Env

    return Env(
        globals={gv.name for gv in module.functions},
        constructors=module.constructors(),
        adts={gtv.name: gtv for gtv in module.type_defs},
    )


def check_text(text: str, name: str = "<string>", prelude: "Module | None" = None) -> CheckResult:
    """Parse and check; parse errors come back as diagnostics (with an empty module if it did not parse)."""
    from ..ir.module import Module
    from ..ir.span import Source
    from ..syntax.parser import parse_source

    parsed = parse_source(Source(name, text), prelude_env(prelude) if prelude is not None else None)
    if parsed.module is None:
        return CheckResult(Module(), diagnostics=list(parsed.diagnostics))
    result = check_module(parsed.module, prelude)
    result.diagnostics = list(parsed.diagnostics) + result.diagnostics
    return result


__all__ = ["CheckResult", "check_module", "check_text", "prelude_env", "prelude_result"]
