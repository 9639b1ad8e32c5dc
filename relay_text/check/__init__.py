"""The type checker: constraint generation, unification, relation solving.

    check_module(module, prelude=None) -> CheckResult
    check_text(text, name="<string>") -> CheckResult   (parse, then check)

`prelude` is the `CheckResult` of a module whose definitions (globals, data
types, constructors) the checked module may use without defining them;
`prelude_result(module)` checks such a module once and caches the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .result import CheckResult

if TYPE_CHECKING:
    from ..ir.module import Module

_PRELUDES: dict[int, tuple["Module", CheckResult]] = {}


def check_module(module: "Module", prelude: CheckResult | None = None) -> CheckResult:
    """Type-check a parsed module; diagnostics are in the result."""
    from .infer import Checker

    return Checker(module, prelude).check_module()


def prelude_result(module: "Module") -> CheckResult:
    """Check a module meant as a prelude, once per module object."""
    cached = _PRELUDES.get(id(module))
    if cached is not None and cached[0] is module:
        return cached[1]
    result = check_module(module)
    _PRELUDES[id(module)] = (module, result)
    return result


def check_text(text: str, name: str = "<string>", prelude: CheckResult | None = None) -> CheckResult:
    """Parse and check; parse errors come back as diagnostics with an empty result."""
    from ..ir.module import Module
    from ..ir.span import Source
    from ..syntax.parser import parse_source

    parsed = parse_source(Source(name, text))
    if parsed.module is None:
        return CheckResult(Module(), diagnostics=list(parsed.diagnostics))
    result = check_module(parsed.module, prelude)
    result.diagnostics = list(parsed.diagnostics) + result.diagnostics
    return result


__all__ = ["CheckResult", "check_module", "check_text", "prelude_result"]
