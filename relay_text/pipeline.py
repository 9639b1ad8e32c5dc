"""The stages chained together for one file: parse, resolve names, type-check.

Commands and the Python API call these; each returns diagnostics as data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .diagnostics import Diagnostic, codes, sort_key
from .ir.module import Module
from .ir.span import Source

if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes, for less at import
    from .record import dataclass, field


@dataclass
class Checked:
    """The outcome of `relay check` on one file."""

    source: Source
    module: Module | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    global_types: dict[str, str | None] = field(default_factory=dict)
    result: Any = None  # the type checker's CheckResult, when the file parsed
    prelude: Any = None  # the `std.Prelude` the file was checked against, if any

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.is_error)

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if not d.is_error)

    @property
    def ok(self) -> bool:
        """Whether the file has no errors (warnings allowed)."""
        return self.errors == 0

    def _repr_html_(self) -> str:
        """The file's dataflow graph in the `relay viz` viewer (notebooks);
        its diagnostics when it did not parse."""
        from . import viz

        if self.module is None:
            from html import escape

            return "<pre>" + escape("\n".join(str(d) for d in self.diagnostics)) + "</pre>"
        return viz.iframe(viz.to_html(viz.graph_of(self.module, self.result)))

    def _repr_svg_(self) -> str | None:
        """The file's dataflow graph as SVG (None when it did not parse)."""
        from . import viz

        if self.module is None:
            return None
        return viz.to_svg(viz.graph_of(self.module, self.result))


def prelude_env(module: Module) -> Any:
    """The names a prelude module defines (a parser `Env`), for parsing modules that use them."""
    from .syntax.builder import Env

    return Env(
        globals={gv.name for gv in module.functions},
        constructors=module.constructors(),
        adts={gtv.name: gtv for gtv in module.type_defs},
        type_defs={gtv.name: data for gtv, data in module.type_defs.items()},
    )


def check_text(text: str, name: str = "<string>", prelude: Module | None = None) -> Any:
    """Parse and check against `prelude` (a module, or none); parse errors come
    back as diagnostics of the CheckResult (with an empty module if it did not parse)."""
    from .check import check_module
    from .check.result import CheckResult
    from .syntax.parser import parse_source

    parsed = parse_source(Source(name, text), prelude_env(prelude) if prelude is not None else None)
    if parsed.module is None:
        return CheckResult(Module(), diagnostics=list(parsed.diagnostics))
    result = check_module(parsed.module, prelude)
    unknown = {d.message for d in parsed.diagnostics if d.code == codes.UNKNOWN_GLOBAL}
    result.diagnostics = list(parsed.diagnostics) + [
        d for d in result.diagnostics if not (d.code == codes.UNKNOWN_GLOBAL and d.message in unknown)
    ]
    return result


def check_source(source: Source, prelude: Any = None, use_prelude: bool = True) -> Checked:
    """Parse, resolve names and type-check one file.

    `prelude` is an optional module whose definitions the file may use
    (user definitions of the same name win); by default (`use_prelude`)
    that is the standard Prelude (`relay_text/std/prelude.rly`), loaded only
    for a file that may name it (`std.may_use`) or has errors without it.
    `global_types` maps `@name` to the global's type in the documented
    syntax (None when the file did not parse).
    """
    if prelude is not None or not use_prelude:
        return _check_source(source, prelude, prelude_env(prelude) if prelude is not None else None, None)
    from .std import with_prelude_if_needed

    # (the same outcome as with the Prelude: tests/std/test_names.py)
    return with_prelude_if_needed(source.text, lambda std: _with_std(source, std), lambda checked: checked.ok)


def _with_std(source: Source, std: Any) -> Checked:
    if std is None:
        return _check_source(source, None, None, None)
    return _check_source(source, std.module, std.env(), std)  # the env also knows TVM's names


def _check_source(source: Source, prelude: Module | None, env: Any, std: Any) -> Checked:
    from .check import check_module
    from .diagnostics import has_errors
    from .syntax.parser import parse_source
    from .text.type_text import type_text

    result = parse_source(source, env)
    diags = list(result.diagnostics)
    module = result.module
    global_types: dict[str, str | None] = {}
    checked = None
    if module is not None:
        checked = check_module(module, prelude)
        type_diags = checked.diagnostics
        if has_errors(diags):
            # Unknown names already explain what follows from them (and the
            # checker's report of a global parsing found unknown repeats it).
            unknown = {d.message for d in diags if d.code == codes.UNKNOWN_GLOBAL}
            type_diags = [
                d
                for d in type_diags
                if d.code != codes.UNRESOLVED_TYPE and not (d.code == codes.UNKNOWN_GLOBAL and d.message in unknown)
            ]
        diags.extend(type_diags)
        for gv in module.functions:
            ty = checked.global_types.get(gv)
            global_types[f"@{gv.name}"] = type_text(ty) if ty is not None else None
    diags.sort(key=sort_key)
    if module is not None:
        from .suppress import apply_ignores

        diags = apply_ignores(diags, module.comments, source)
    out = Checked(source, module, diags, global_types)
    out.result = checked
    out.prelude = std
    return out


@dataclass
class Ran:
    """The outcome of `relay run` on one file: diagnostics, and the value if
    the program ran."""

    source: Source
    module: Module | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    value: object = None
    ok: bool = False
    started: bool = False  # the entry point began to run (errors are runtime errors)
    outcome: Any = None  # the evaluator's `Outcome` (the arguments and constants it ran with)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.is_error)


def run_source(
    source: Source,
    request: Any = None,
    use_prelude: bool = True,
    resolver: Any = None,
    warnings_as_errors: bool = False,
) -> Ran:
    """Parse and check (with the Prelude), then evaluate the entry point.

    `request` is an `eval.entry.RunRequest` (the default runs `@main` or the
    trailing expression without arguments). Nothing runs if checking finds
    an error; warnings are kept in the diagnostics (with
    `warnings_as_errors`, they are errors and nothing runs). `resolver` maps
    an operator name to what runs it (default: the operator registry)."""
    from .eval.entry import RunFailed, RunRequest, run_module
    from .syntax.builder import Env
    from .syntax.parser import parse_source

    request = request if request is not None else RunRequest()
    from .std import prelude as load_prelude

    from .eval import progress

    progress.stage("checking")
    # With the Prelude whenever asked for: the arguments' text may name it.
    checked = _with_std(source, load_prelude() if use_prelude else None)
    if warnings_as_errors:
        from .suppress import warnings_as_errors as promote

        checked.diagnostics = promote(checked.diagnostics)
    module = checked.module
    ran = Ran(source, module, list(checked.diagnostics))
    if module is None or checked.errors:
        return ran
    std = checked.prelude
    env = std.env() if std is not None else Env()
    # Names an argument's text may use: the program's and the Prelude's (a
    # data type the program defines as the Prelude does is the Prelude's).
    own = [data for data in module.type_defs.values() if data.same_as is None]
    arg_env = Env(
        env.globals | {gv.name for gv in module.functions},
        {**env.constructors, **{c.name: c for data in own for c in data.constructors}},
        {**env.adts, **{data.header.name: data.header for data in own}},
    )
    try:
        outcome = run_module(
            module,
            request,
            std.module if std is not None else None,
            lambda text: parse_source(text, arg_env),
            type_of=_type_lookup(checked.result, std.checked() if std is not None else None),
            meta_types=checked.result.meta_types if checked.result is not None else None,
            resolver=resolver,
            check_result=checked.result,
        )
    except RunFailed as exc:
        ran.diagnostics.extend(exc.diagnostics)
        ran.started = exc.ran
        return ran
    ran.value = outcome.value
    ran.outcome = outcome
    ran.ok = ran.started = True
    return ran


def _type_lookup(*results: Any) -> Any:
    """A node's type from the checker's results (the program's, the Prelude's)."""
    tables = [r.types for r in results if r is not None]

    def type_of(node: Any) -> Any:
        for table in tables:
            ty = table.get(node)
            if ty is not None:
                return ty
        return None

    return type_of
