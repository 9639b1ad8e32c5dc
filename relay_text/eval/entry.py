"""Running a program: the entry point, its arguments, and the result.

The entry is `--entry @name`, else the file's trailing top-level
expression, else `@main`. A trailing expression that is a function (as in
TVM dumps that hold one bare `fn`) is called with the arguments, like a
global; another trailing expression takes the file's `free_var`s as its
parameters.

Arguments come from `--arg NAME=VALUE` (VALUE is Relay text without free
variables, such as `3`, `(1, 2)`, `Cons(1, Nil())` or
`Constant(1, (2, 2), float32)`; `@file.npy` reads an array, `@f(1)` calls a
global), from an
`.npz` file whose keys are parameter names, from `--random-args`, or from
Python values. Each is checked against its parameter's type before the
program runs; a mismatch is a located `bad-argument` diagnostic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

import numpy as np

from ..diagnostics import Diagnostic, codes, has_errors
from ..ir.expr import Expr, Function, GlobalVar, Var
from ..ir.module import Module
from ..ir.span import Source, Span
from ..text.suggest import close_names
from ..text.type_text import type_text
from .args import (
    ArgumentError,
    TypeDefs,
    describe_mismatch,
    from_python,
    load_npy,
    load_npz,
    random_value,
)
from .. import limits
from . import progress
from .compile import CompileError, compile_program
from .inplace import release_memory
from .ops import MissingExtra, Resolver, bfloat16, missing_bfloat16, uses_bfloat16
from .plausible import metadata_values, roles, shape_role
from .runtime import DEFAULT_MAX_DEPTH, EvalError, execute, relaxed_gc

EXPRESSION = "<expression>"


class RunFailed(Exception):
    """The program could not be run (`ran` is False) or failed while running."""

    def __init__(self, diagnostics: list[Diagnostic], ran: bool = False) -> None:
        super().__init__(str(diagnostics[0]) if diagnostics else "run failed")
        self.diagnostics = diagnostics
        self.ran = ran


@dataclass
class RunRequest:
    """What to run and with which arguments."""

    entry: str | None = None  # "main", "@main"; None: the default entry
    arg_texts: list[tuple[str, str]] = field(default_factory=list)  # --arg NAME=VALUE
    args_file: str | None = None  # --args FILE.npz
    random_args: bool = False
    random_consts: bool = False  # fill meta[relay.Constant][i] without data
    seed: int = 0
    values: tuple[Any, ...] = ()  # positional Python values (the Python API)
    from_python: bool = False  # asked by a Python caller (`relay_text.run`): help names its arguments, not options
    max_depth: int = DEFAULT_MAX_DEPTH
    optimize: bool = True  # False: `relay run --no-opt`, the plan as written
    max_memory: int | None = None  # bytes; None: a fraction of the machine's memory (relay_text.limits)
    # Another engine for the entry point: called as engine(module, entry,
    # args, constants, check_result) once the arguments are known and
    # checked, instead of the compiled program; it returns the value or
    # raises RunFailed.
    engine: Callable[..., Any] | None = None
    constants: dict[int, Any] | None = None  # values of meta[relay.Constant][i] (the Python API), before the section's


@dataclass
class Entry:
    key: str  # "@main" or "<expression>"
    params: tuple[Var, ...]
    body: Expr | None  # for a trailing expression
    gv: GlobalVar | None = None
    span: Span | None = None


@dataclass
class Outcome:
    value: Any
    entry: Entry
    args: dict[str, Any]
    constants: dict[int, Any] = field(default_factory=dict)  # the values meta[relay.Constant][i] ran with


def _bad(message: str, span: Span | None = None, label: str = "") -> Diagnostic:
    return Diagnostic(codes.BAD_ARGUMENT, message, span, label=label)


def find_entry(module: Module, name: str | None) -> Entry:
    if name is not None:
        bare = name[1:] if name.startswith("@") else name
        gv = module.global_var(bare)
        if gv is None:
            diag = _bad(f"`@{bare}` is not defined in this file")
            names = [f"@{g.name}" for g in module.functions]
            if names:
                diag.with_help(f"the file defines {', '.join(names)}")
            raise RunFailed([diag])
        return Entry(f"@{bare}", module.functions[gv].params, None, gv, gv.span)
    if module.expr is not None:
        expr = module.expr
        if isinstance(expr, Function):
            return Entry(EXPRESSION, expr.params, expr.body, None, expr.span)
        return Entry(EXPRESSION, module.free_vars, expr, None, getattr(expr, "span", None))
    gv = module.global_var("main")
    if gv is None:
        diag = _bad("nothing to run: the file defines no `@main` and ends with no expression")
        names = [f"@{g.name}" for g in module.functions]
        if names:
            diag.with_help(f"choose one of its functions with `--entry`: {', '.join(names)}")
        raise RunFailed([diag])
    return Entry("@main", module.functions[gv].params, None, gv, gv.span)


def run_module(
    module: Module,
    request: RunRequest,
    prelude: Module | None = None,
    parse: Callable[[Source], Any] | None = None,
    resolver: Resolver | None = None,
    type_of: Callable[[Expr], Any] | None = None,
    meta_types: dict[int, Any] | None = None,
    check_result: Any = None,
) -> Outcome:
    """Compile and evaluate a parsed (and checked) module; raises RunFailed.

    `parse` reads the text of an `--arg` value (a `ParseResult` with
    `.module` and `.diagnostics`), with the names of the program and the
    Prelude in scope; `meta_types` (from the checker) gives the types of
    metadata constants, for `request.random_consts`; `check_result` (the
    checker's CheckResult) is handed to `request.engine`."""
    old = limits.set_max_memory(request.max_memory)
    before = limits.resident()
    try:
        with relaxed_gc():
            return _run_module(module, request, prelude, parse, resolver, type_of, meta_types or {}, check_result)
    finally:
        limits.set_max_memory(old)
        release_memory(before)


class _Arguments:
    """The values of an entry's parameters as they are gathered, from every
    source a run takes them from, with the diagnostics found on the way."""

    def __init__(
        self, entry: Entry, request: RunRequest, defs: TypeDefs, type_of: Callable[[Expr], Any] | None
    ) -> None:
        self.entry = entry
        self.request = request
        self.defs = defs
        self.type_of = type_of
        self.by_name = {p.name: p for p in entry.params}
        self.diags: list[Diagnostic] = []
        self.exprs: dict[str, tuple[Expr, Source]] = {}  # --arg texts that are Relay expressions
        self.values: dict[str, tuple[Any, str, Source | None]] = {}  # name -> (value, origin, source)

    def param_type(self, var: Var) -> Any:
        if var.type_annotation is not None:
            return var.type_annotation
        return self.type_of(var) if self.type_of is not None else None

    def stop_on_errors(self) -> None:
        if has_errors(self.diags):
            raise RunFailed(self.diags)

    def from_python(self) -> None:
        """Positional values of a Python caller, in parameter order."""
        entry = self.entry
        for i, value in enumerate(self.request.values):
            if i >= len(entry.params):
                message = f"`{entry.key}` takes {len(entry.params)} arguments, {len(self.request.values)} were given"
                raise RunFailed([_bad(message, entry.span)])
            p = entry.params[i]
            self.values[p.name] = (from_python(value, self.param_type(p), self.defs), "the Python argument", None)

    def from_npz(self) -> None:
        """`--args FILE.npz`: one array per parameter name."""
        path = self.request.args_file
        if path is None:
            return
        try:
            arrays = load_npz(path)
        except ArgumentError as exc:
            raise RunFailed([_bad(str(exc))]) from None
        for key, arr in arrays.items():
            if key not in self.by_name:
                self.diags.append(_unknown_parameter(self.entry, key, f"{path} has an array named `{key}`, but"))
                continue
            self.values[key] = (arr, path, None)

    def from_texts(self, parse: Callable[[Source], Any] | None) -> None:
        """`--arg NAME=VALUE`: an `.npy` file, or Relay text compiled with the program."""
        for name, text in self.request.arg_texts:
            if name not in self.by_name:
                self.diags.append(_unknown_parameter(self.entry, name, f"`--arg {name}=...`:"))
                continue
            if text.startswith("@") and text.endswith(".npy"):
                try:
                    self.values[name] = (load_npy(text[1:]), text[1:], None)
                except ArgumentError as exc:
                    self.diags.append(_bad(f"argument `{name}`: {exc}"))
                continue
            expr, text_source, parse_diags = _parse_value(name, text, parse)
            self.diags.extend(parse_diags)
            if expr is not None:
                self.exprs[name] = (expr, text_source)

    def given(self, name: str) -> bool:
        return name in self.values or name in self.exprs

    def at_random(self, found: dict[Any, Any]) -> None:
        """`--random-args`: every parameter without a value, seeded and
        scaled to how the program uses it."""
        rng = np.random.default_rng(self.request.seed)
        for p in self.entry.params:
            try:
                value = shape_role(random_value(self.param_type(p), rng, self.defs, p.name), found.get(p), fresh=True)
            except ArgumentError as exc:
                self.diags.append(_bad(str(exc), p.span, "cannot be filled at random"))
                continue
            except limits.LimitExceeded as exc:
                self.diags.append(Diagnostic(codes.RESOURCE_LIMIT, exc.message, p.span, label=exc.label))
                continue
            if not self.given(p.name):
                self.values[p.name] = (value, "--random-args", None)

    def report_missing(self) -> None:
        for p in self.entry.params:
            if self.given(p.name):
                continue
            ty = self.param_type(p)
            shown = f"%{p.name} : {type_text(ty)}" if ty is not None else f"%{p.name}"
            self.diags.append(
                _bad(f"missing argument for parameter `{shown}`", p.span, "no value given").with_help(
                    _missing_help(self.entry, p, self.request.from_python)
                )
            )
        if self.diags:
            raise RunFailed(self.diags)

    def evaluate_texts(self, program: Any) -> None:
        """The values of the `--arg` texts, run as entries of the compiled program."""
        for name, (_, arg_source) in self.exprs.items():
            try:
                value = execute(program, f"--arg {name}", (), self.request.max_depth)
            except EvalError as exc:
                raise RunFailed([exc.diagnostic]) from None
            self.values[name] = (value, "text", arg_source)

    def check_fit(self) -> tuple[Any, ...]:
        """Every value against its parameter's type; the arguments in order."""
        bindings: dict[Any, Any] = {}  # type variables and dimensions settled by earlier arguments
        for p in self.entry.params:
            value, origin, source = self.values[p.name]
            ty = self.param_type(p)
            problem = describe_mismatch(value, ty, self.defs, bindings)
            if problem is None:
                continue
            shown = f"%{p.name} : {type_text(ty)}"
            if source is not None:
                diag = _bad(
                    f"argument `{p.name}` does not fit parameter `{shown}`: {problem}",
                    Span(source, 0, len(source.text)),
                    "this value",
                )
                if p.span is not None:
                    diag.with_note(f"`%{p.name}` is declared at {p.span}")
            else:
                diag = _bad(
                    f"argument `{p.name}` (from {origin}) does not fit parameter `{shown}`: {problem}",
                    p.span,
                    "this parameter",
                )
            self.diags.append(diag)
        if self.diags:
            raise RunFailed(self.diags)
        return tuple(self.values[p.name][0] for p in self.entry.params)


def _run_module(
    module: Module,
    request: RunRequest,
    prelude: Module | None,
    parse: Callable[[Source], Any] | None,
    resolver: Resolver | None,
    type_of: Callable[[Expr], Any] | None,
    meta_types: dict[int, Any],
    check_result: Any = None,
) -> Outcome:
    entry = find_entry(module, request.entry)
    defs = TypeDefs(module, prelude)
    progress.stage("preparing the arguments")
    arguments = _Arguments(entry, request, defs, type_of)
    _require_bfloat16(module, entry, arguments.param_type, meta_types)
    arguments.from_python()
    arguments.from_npz()
    arguments.from_texts(parse)
    arguments.stop_on_errors()

    # How the program uses each parameter and constant: random weights are
    # scaled to their fan-in, variances kept positive (see plausible.py).
    found = roles(module, type_of) if (request.random_args or request.random_consts) and type_of is not None else {}
    if request.random_args:
        arguments.at_random(found)
        arguments.stop_on_errors()
    arguments.report_missing()

    constants = constant_values(
        module, meta_types, defs, found, request.random_consts and not request.constants, request.seed
    )
    if request.constants:
        constants.update(request.constants)
    program = _compile(module, entry, request, arguments.exprs, prelude, resolver, type_of, constants)
    arguments.evaluate_texts(program)
    args = arguments.check_fit()

    given = {p.name: a for p, a in zip(entry.params, args, strict=False)}
    if request.engine is not None:
        return Outcome(request.engine(module, entry, args, constants, check_result), entry, given, constants)
    try:
        with progress.running(program.namespace, entry.key, request.max_depth):
            result = execute(program, entry.key, args, request.max_depth)
    except EvalError as exc:
        raise RunFailed([exc.diagnostic], ran=True) from None
    return Outcome(result, entry, given, constants)


def _compile(
    module: Module,
    entry: Entry,
    request: RunRequest,
    arg_exprs: dict[str, tuple[Expr, Source]],
    prelude: Module | None,
    resolver: Resolver | None,
    type_of: Callable[[Expr], Any] | None,
    constants: dict[int, Any],
) -> Any:
    """The program compiled with its entry and the `--arg` texts as entries
    (an engine such as onnxruntime runs the entry itself)."""
    entries: dict[str, tuple[Expr, tuple[Var, ...]]] = {}
    if entry.gv is None and request.engine is None:
        entries[entry.key] = (entry.body, entry.params)  # type: ignore[assignment]  # an entry without a global is a trailing expression: body is set
    for name, (expr, _) in arg_exprs.items():
        entries[f"--arg {name}"] = (expr, ())
    progress.stage("compiling")
    try:
        return compile_program(
            module,
            entries=entries,
            globals_=[entry.gv] if entry.gv is not None and request.engine is None else [],
            prelude=prelude,
            resolver=resolver,
            type_of=type_of,
            constants=constants,
            filling_constants=request.random_consts,
            # The optimiser rewrites in terms of the registry's own kernels;
            # another resolver (the PyTorch reference backend) runs every
            # operator of the program as written.
            optimize=request.optimize and resolver is None,
        )
    except CompileError as exc:
        raise RunFailed(exc.diagnostics) from None


def _missing_help(entry: Any, param: Any, from_python: bool) -> str:
    """How to give the missing parameter `param` of `entry`: in Python to a Python caller, else as options."""
    if from_python:
        position = entry.params.index(param) + 1
        names = ", ".join(f"%{p.name}" for p in entry.params)
        return (
            f"pass it as argument {position} after the program: `relay_text.run(program, *args)` "
            f"takes one value per parameter of `{entry.key}`, in order ({names})"
        )
    return f"pass `--arg {param.name}=VALUE` (or `--args FILE.npz`, or `--random-args`)"


def constant_values(
    module: Module, meta_types: dict[int, Any], defs: TypeDefs, found: dict[Any, Any], random_consts: bool, seed: int
) -> dict[int, Any]:
    """Values of `meta[relay.Constant][i]`: the file's `#[metadata]` tensors,
    else (with `random_consts`) seeded random values of the types the checker
    inferred, shaped by their roles (`found`, from `plausible.roles`); a
    constant whose type is unknown is left out. Raises RunFailed when one
    passes the memory limit."""
    constants: dict[int, Any] = metadata_values(module)
    if random_consts and not constants:
        # A stream of its own, so that constants do not shift the arguments.
        rng = np.random.default_rng([seed, 1])
        for index in sorted(meta_types):
            try:
                value = random_value(meta_types[index], rng, defs, f"meta[relay.Constant][{index}]")
                constants[index] = shape_role(value, found.get(("meta", index)), fresh=True)
            except ArgumentError:
                pass  # its type is not known: reported as a constant without a value
            except limits.LimitExceeded as exc:
                raise RunFailed([Diagnostic(codes.RESOURCE_LIMIT, exc.message, None, label=exc.label)]) from None
    return constants


def _require_bfloat16(
    module: Module, entry: Entry, param_type: Callable[[Var], Any], meta_types: dict[int, Any]
) -> None:
    """RunFailed, located where bfloat16 first appears among the entry's
    parameters and the metadata constants, when `ml_dtypes` is missing (the
    compiler reports the uses inside function bodies)."""
    needs: list[tuple[Span | None, str]] = []
    for p in entry.params:
        if uses_bfloat16(param_type(p)):
            needs.append((p.span, "a bfloat16 parameter"))
            break
    if not needs and module.metadata is not None:
        table, _ = module.metadata.decoded()
        if table is not None and any(t is not None and t.dtype == "bfloat16" for t in table.constants):
            needs.append((module.metadata.span, "bfloat16 tensors in this section"))
    if not needs and any(uses_bfloat16(t) for t in meta_types.values()):
        needs.append((None, "a bfloat16 constant"))
    if not needs:
        return
    try:
        bfloat16()
    except MissingExtra:
        span, label = needs[0]
        raise RunFailed([missing_bfloat16(span, label)]) from None


def _unknown_parameter(entry: Entry, name: str, what: str) -> Diagnostic:
    params = ", ".join(f"%{p.name}" for p in entry.params) or "none"
    diag = _bad(f"{what} `{entry.key}` has no parameter `%{name}`", entry.span)
    close = close_names(name, [p.name for p in entry.params], most=1) if len(name) > 2 else []
    if close:
        diag.with_help(f"did you mean `{close[0]}`?")
    diag.with_note(f"its parameters are: {params}")
    return diag


def _parse_value(
    name: str, text: str, parse: Callable[[Source], Any] | None
) -> tuple[Expr | None, Source, list[Diagnostic]]:
    """Parse the VALUE of `--arg NAME=VALUE`: one expression, no definitions."""
    source = Source(f"--arg {name}", text)
    if parse is None:
        return (
            None,
            source,
            [_bad(f"`--arg {name}`: values given as text cannot be read here", Span(source, 0, len(text)))],
        )
    result = parse(source)
    diags = list(result.diagnostics)
    module = result.module
    if module is None or has_errors(diags):
        return None, source, diags
    if module.functions or module.type_defs or module.expr is None:
        diags.append(
            _bad(
                f"the value of `--arg {name}` must be one expression", Span(source, 0, len(text)), "not a value"
            ).with_help("write e.g. `3`, `(1, 2)`, `Cons(1, Nil())`, `Constant(1, (2, 2), float32)` or `@file.npy`")
        )
        return None, source, diags
    return module.expr, source, diags
