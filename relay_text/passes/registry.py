"""The registry of passes: a name, a one-line summary, options, a function.

A pass is one module of this package that registers one (or a few closely
related) transformations:

    @register("DeadCodeElimination", "Remove bindings whose value is never used",
              Option("inline_once", "bool", False, "inline bindings used once"))
    def dead_code_elimination(module: Module, ctx: PassContext, inline_once: bool) -> Module:
        ...

The function takes the module, the `PassContext` of the run (types,
constants, the Prelude) and its options as keyword arguments, and returns a
new module (passes never change nodes in place). Modules of this package
are found without being listed; `registry`, `context`, `command`,
`output`, `pipeline` and helper modules whose names start with `_` define
no passes.

A pipeline is written as `relay opt --passes` takes it: names separated by
commas, options in braces, as MLIR writes them:

    InferType,FoldConstant{fold_qnn=true},FuseOps{fuse_opt_level=2}
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

if TYPE_CHECKING:
    from ..ir.module import Module
    from .context import PassContext

OPTION_KINDS = ("bool", "int", "float", "str", "names")


@dataclass(frozen=True, slots=True)
class Option:
    """An option of a pass: its name (TVM's), kind, default and meaning."""

    name: str
    kind: str
    default: Any
    doc: str
    choices: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in OPTION_KINDS:
            raise ValueError(f"unknown option kind {self.kind!r}")

    def parse(self, text: str) -> Any:
        """The option's value from its text; PipelineError if it does not fit."""
        value = text.strip()
        if self.kind == "bool":
            lowered = value.lower()
            if lowered in ("true", "1", "yes", "on"):
                return True
            if lowered in ("false", "0", "no", "off"):
                return False
            raise PipelineError(f"option `{self.name}` takes true or false, not `{value}`")
        if self.kind == "int":
            try:
                return int(value)
            except ValueError:
                raise PipelineError(f"option `{self.name}` takes an integer, not `{value}`") from None
        if self.kind == "float":
            try:
                return float(value)
            except ValueError:
                raise PipelineError(f"option `{self.name}` takes a number, not `{value}`") from None
        if self.kind == "names":
            return tuple(v.strip() for v in value.split(":") if v.strip())
        if self.choices and value not in self.choices:
            raise PipelineError(f"option `{self.name}` takes one of {', '.join(self.choices)}, not `{value}`")
        return value

    def describe(self) -> str:
        return f"{self.name}={_shown(self.default)}"


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ":".join(value)
    return str(value)


PassFunction = Callable[..., "Module"]


@dataclass(frozen=True, slots=True)
class Pass:
    """One registered pass."""

    name: str
    summary: str
    function: PassFunction
    options: tuple[Option, ...] = ()
    module: str = ""  # the module of this package that registers it
    schema: dict[str, Option] = field(default_factory=dict, compare=False, repr=False)
    # For the passes `relay run` applies: the same rewrite of one function,
    # given the evaluator's environment (see `eval/optimize.py`).
    evaluator: Callable[..., Any] | None = field(default=None, compare=False, repr=False)

    def defaults(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.options}

    def __call__(self, module: Module, ctx: PassContext, **options: Any) -> Module:
        given = self.defaults()
        for key, value in options.items():
            if key not in self.schema:
                raise PipelineError(f"`{self.name}` has no option `{key}`")
            given[key] = value
        return self.function(module, ctx, **given)


class PipelineError(Exception):
    """A pass list that cannot be run: an unknown pass or option, a bad value."""

    def __init__(self, message: str, help: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.help = help


_PASSES: dict[str, Pass] = {}
_LOADED = False
# Modules of this package that register no passes.
_NOT_PASSES = frozenset({"registry", "context", "command", "output", "pipeline"})


def register(
    name: str, summary: str, *options: Option, evaluator: Callable[..., Any] | None = None
) -> Callable[[PassFunction], PassFunction]:
    """Decorator registering a pass function under `name`; `evaluator` is
    the same rewrite as `relay run` applies it to one function."""

    def decorate(function: PassFunction) -> PassFunction:
        if name in _PASSES:
            raise ValueError(f"pass {name!r} registered twice")
        module = function.__module__.rsplit(".", 1)[-1]
        _PASSES[name] = Pass(name, summary, function, tuple(options), module, {o.name: o for o in options}, evaluator)
        return function

    return decorate


def pass_modules() -> list[str]:
    """The modules of this package that register passes, sorted."""
    import pkgutil

    here = __package__ or "relay_text.passes"
    path = __import__(here, fromlist=["__path__"]).__path__
    return sorted(
        m.name for m in pkgutil.iter_modules(path) if not m.name.startswith("_") and m.name not in _NOT_PASSES
    )


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import importlib

    for module in pass_modules():
        importlib.import_module(f"{__package__}.{module}")


def get(name: str) -> Pass | None:
    _load()
    return _PASSES.get(name)


def all_passes() -> list[Pass]:
    """Every registered pass, sorted by name."""
    _load()
    return [_PASSES[k] for k in sorted(_PASSES, key=str.lower)]


_STEP = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\{([^{}]*)\})?\s*")


def parse_pipeline(text: str) -> list[tuple[Pass, dict[str, Any]]]:
    """`A,B{key=value,key=value},C` as (pass, options) steps; PipelineError
    naming the first problem (with a close name for a misspelled pass)."""
    from ..text.suggest import close_names, or_list

    steps: list[tuple[Pass, dict[str, Any]]] = []
    pos = 0
    text = text.strip()
    if not text:
        raise PipelineError("no passes given", "`relay opt --list` lists them")
    while pos < len(text):
        m = _STEP.match(text, pos)
        if m is None or m.end() == pos:
            raise PipelineError(
                f"cannot read the pass list at `{text[pos : pos + 20]}`", "write passes as `A,B{option=value},C`"
            )
        name, body = m.group(1), m.group(2)
        found = get(name)
        if found is None:
            guesses = close_names(name, [p.name for p in all_passes()], near=())
            lowered = [p.name for p in all_passes() if p.name.lower() == name.lower()]
            guesses = lowered or guesses
            hint = (
                f"did you mean {or_list([f'`{g}`' for g in guesses])}?"
                if guesses
                else "`relay opt --list` lists the passes"
            )
            raise PipelineError(f"unknown pass `{name}`", hint)
        options: dict[str, Any] = {}
        if body is not None:
            for item in _split_options(body):
                key, sep, value = item.partition("=")
                key = key.strip()
                option = found.schema.get(key)
                if option is None:
                    known = ", ".join(o.describe() for o in found.options) or "none"
                    raise PipelineError(f"`{name}` has no option `{key}`", f"its options: {known}")
                if not sep:
                    if option.kind != "bool":
                        raise PipelineError(f"option `{key}` of `{name}` needs a value: `{key}=...`")
                    value = "true"
                options[key] = option.parse(value)
        steps.append((found, options))
        pos = m.end()
        if pos < len(text):
            if text[pos] != ",":
                raise PipelineError(f"expected `,` between passes at `{text[pos : pos + 20]}`")
            pos += 1
            if pos >= len(text):
                raise PipelineError("the pass list ends with `,`")
    return steps


def _split_options(body: str) -> list[str]:
    return [part for part in re.split(r"[,\s]+", body.strip()) if part]
