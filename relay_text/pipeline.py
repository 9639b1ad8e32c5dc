"""The stages chained together for one file: parse, resolve names, type-check.

Commands and the Python API call these; each returns diagnostics as data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .diagnostics import Diagnostic, sort_key
from .ir.module import Module
from .ir.span import Source


@dataclass
class Checked:
    """The outcome of `relay check` on one file."""

    source: Source
    module: Module | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    global_types: dict[str, str | None] = field(default_factory=dict)
    result: Any = None  # the type checker's CheckResult, when the file parsed

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.is_error)

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if not d.is_error)


def check_source(source: Source, prelude: Any = None) -> Checked:
    """Parse, resolve names and type-check one file.

    `prelude` is an optional module whose definitions the file may use
    (user definitions of the same name win). `global_types` maps `@name` to
    the global's type in the documented syntax (None when the file did not
    parse).
    """
    from .check import check_module, prelude_env
    from .diagnostics import has_errors
    from .syntax.parser import parse_source
    from .syntax.type_text import type_text

    result = parse_source(source, prelude_env(prelude) if prelude is not None else None)
    diags = list(result.diagnostics)
    module = result.module
    global_types: dict[str, str | None] = {}
    checked = None
    if module is not None:
        checked = check_module(module, prelude)
        type_diags = checked.diagnostics
        if has_errors(diags):
            # Unknown names already explain what follows from them.
            type_diags = [d for d in type_diags if d.code != "unresolved-type"]
        diags.extend(type_diags)
        for gv in module.functions:
            ty = checked.global_types.get(gv)
            global_types[f"@{gv.name}"] = type_text(ty) if ty is not None else None
    out = Checked(source, module, sorted(diags, key=sort_key), global_types)
    out.result = checked
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

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.is_error)


def run_source(source: Source, request: object = None, use_prelude: bool = True, resolver: Any = None) -> Ran:
    """Parse (with the Prelude), check, then evaluate the entry point.

    `request` is an `eval.entry.RunRequest` (the default runs `@main` or the
    trailing expression without arguments). `resolver` maps an operator name
    to the definition that runs it (default: the operator registry)."""
    from .eval.entry import RunFailed, RunRequest, run_module
    from .syntax.builder import Env
    from .syntax.parser import parse_source

    request = request if request is not None else RunRequest()
    prelude = None
    env = None
    if use_prelude:
        from .std import prelude as load_prelude

        prelude = load_prelude()
        env = prelude.env()
    result = parse_source(source, env)
    diags = sorted(result.diagnostics, key=sort_key)
    module = result.module
    ran = Ran(source, module, diags)
    if module is None or ran.errors:
        return ran
    # Names an argument's text may use: the program's and the Prelude's.
    arg_env = Env(
        set(env.globals if env else ()) | {gv.name for gv in module.functions},
        {**(env.constructors if env else {}), **module.constructors()},
        {**(env.adts if env else {}), **{gtv.name: gtv for gtv in module.type_defs}},
    )
    # Types: for arguments, operators and constants without metadata.
    from .check import check_module, prelude_result
    from .diagnostics import has_errors

    checked = check_module(module, prelude_result(prelude.module) if prelude else None)
    if has_errors(checked.diagnostics):
        ran.diagnostics.extend(sorted(checked.diagnostics, key=sort_key))
        return ran
    meta_values = _meta_values(module, checked, request)  # type: ignore[arg-type]
    try:
        outcome = run_module(
            module, request, prelude.module if prelude else None, arg_env,  # type: ignore[arg-type]
            type_of=checked.type_of, meta_values=meta_values, resolver=resolver,
        )
    except RunFailed as exc:
        ran.diagnostics.extend(exc.diagnostics)
        return ran
    ran.value = outcome.value
    ran.ok = True
    return ran


def _meta_values(module: Module, checked: Any, request: Any) -> dict[int, Any]:
    """Values of `meta[relay.Constant][i]`: the `#[metadata]` section's
    tensors, or with `--random-consts` seeded random ones of the inferred
    types (checking already reported a malformed section)."""
    if module.metadata is not None:
        from .syntax.metadata import read_metadata

        table, _ = read_metadata(module.metadata)
        if table is None:
            return {}
        return {i: t.array() for i, t in enumerate(table.constants) if t is not None}
    if getattr(request, "random_consts", False):
        from .eval.plausible import random_constants

        return random_constants(module, checked.meta_types, request.seed, checked.type_of)
    return {}
