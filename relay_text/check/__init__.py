"""The type checker: constraint generation, unification, relation solving.

    check_module(module, prelude=AUTO) -> CheckResult

`prelude` holds definitions (globals, data types, constructors) the checked
module may use without defining them: a parsed `Module`, or the
`CheckResult` of one (`prelude_result(module)` checks a module once and
caches the result). The module being checked must have been parsed with
`relay_text.pipeline.prelude_env(prelude_module)`, so that its names
resolve to the prelude's; `relay_text.pipeline.check_text` does both.

By default (`AUTO`) a module that uses names it does not define, as one
parsed by `relay_text.parse` may (`@map`, `Cons`), is checked against the
standard Prelude, as the commands do, when those are the Prelude's names;
`prelude=None` checks the module alone. Either way a global or
constructor that neither the module nor its prelude defines is reported
(`unknown-global`, `unknown-constructor`), never typed in silence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from .result import CheckResult

if TYPE_CHECKING:
    from ..ir.module import Module

_PRELUDES: dict[int, tuple[Module, CheckResult]] = {}


class _Auto:
    def __repr__(self) -> str:
        return "AUTO"


AUTO: Any = _Auto()
"""`check_module`'s default prelude: the standard Prelude when the module uses its names."""

# Gives the standard Prelude's module: registered by the `relay_text` package
# when this one is imported (it does not import `std`: that sits downstream).
PRELUDE_PROVIDER: list[Callable[[], Module]] = []


def check_module(module: Module, prelude: CheckResult | Module | None = AUTO) -> CheckResult:
    """Type-check a parsed module; diagnostics are in the result."""
    import gc

    from ..ir.module import Module

    if prelude is AUTO:
        prelude = _standard_prelude_if_used(module)
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


def prelude_result(module: Module) -> CheckResult:
    """Check a module meant as a prelude, once per module object."""
    cached = _PRELUDES.get(id(module))
    if cached is not None and cached[0] is module:
        return cached[1]
    result = check_module(module, None)
    _PRELUDES[id(module)] = (module, result)
    return result


def _standard_prelude_if_used(module: Module) -> Module | None:
    """The standard Prelude's module if `module` calls globals or uses
    constructors it does not define, and all of them are the Prelude's."""
    from ..ir.expr import Constructor, GlobalVar
    from ..ir.pattern import PatternConstructor, PatternTuple, PatternVar, PatternWildcard
    from ..ir.schema import children

    defined = {gv.name for gv in module.functions}
    own = {id(c) for data in module.type_defs.values() for c in data.constructors}
    globals_: set[str] = set()
    constructors: set[int] = set()
    seen: set[int] = set()
    stack: list[Any] = [*module.functions.values()]
    if module.expr is not None:
        stack.append(module.expr)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        cls = type(node)
        if cls is GlobalVar:
            if node.name not in defined:
                globals_.add(node.name)
        elif cls is Constructor:
            if id(node) not in own:
                constructors.add(id(node))
        elif cls is PatternConstructor:
            if id(node.constructor) not in own:
                constructors.add(id(node.constructor))
            stack.extend(node.patterns)
        elif cls is PatternTuple:
            stack.extend(node.patterns)
        elif cls is PatternVar or cls is PatternWildcard:
            continue
        else:
            stack.extend(children(node))
            for clause in getattr(node, "clauses", ()):
                stack.append(clause.pattern)
    if not (globals_ or constructors) or not PRELUDE_PROVIDER:
        return None
    std = PRELUDE_PROVIDER[0]()
    theirs = {id(c) for data in std.type_defs.values() for c in data.constructors}
    if globals_ <= {gv.name for gv in std.functions} and constructors <= theirs:
        return std
    return None


def __getattr__(name: str) -> object:
    # Parsing helpers that once lived here; they belong to the pipeline,
    # which chains parsing and checking (this package never parses).
    if name in ("prelude_env", "check_text"):
        from .. import pipeline

        return getattr(pipeline, name)
    raise AttributeError(name)


__all__ = ["AUTO", "CheckResult", "check_module", "check_text", "prelude_env", "prelude_result"]
