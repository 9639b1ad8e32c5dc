"""The `relay` command: thin wrappers that parse flags and call the library.

Exit codes: 0 success, 1 the input has errors (or would be reformatted),
2 usage, input/output or internal errors, 130 interrupted (Ctrl-C), 143
and 129 terminated by SIGTERM and SIGHUP (after the same cleanup). A closed
standard output (`relay check --types . | head -1`) ends the command
quietly with status 0, as the reader has all it wanted.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
from typing import Any
from collections.abc import Callable

import click

from . import __version__
from .limits import RunTimeout

EXIT_OK, EXIT_FAIL, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def emit(text: str, stream: Any = None) -> None:
    """Write `text` to `stream` (standard output) and flush it, in pieces
    smaller than the stream's buffer: one large write to a pipe can end
    part-way without an error (the reader went away, or a signal came), and
    Python's text layer then drops the rest silently; buffered pieces are
    flushed until they are all written, or fail loudly (BrokenPipeError)."""
    stream = sys.stdout if stream is None else stream
    for start in range(0, len(text), 4096):
        stream.write(text[start : start + 4096])
    stream.flush()


def _quiet_streams() -> None:
    """After a closed pipe: point standard output (and error) at /dev/null,
    so that the flush at exit neither fails nor prints a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(devnull, stream.fileno())
        except (OSError, ValueError, AttributeError):  # no file descriptor (a test's buffer)
            pass


def guarded(command: Callable[..., int]) -> Callable[..., None]:
    """Run a command body; turn its return value into the exit code, and any
    unexpected exception into one line (the traceback only with --debug or
    RELAY_DEBUG=1), so that a user never sees a Python traceback."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        from .interrupts import Interrupted, install

        debug = kwargs.pop("debug", False) or bool(os.environ.get("RELAY_DEBUG"))
        if _OWNS_PROCESS[0]:  # (not in a caller's process: its signals are its own)
            install()  # SIGTERM and SIGHUP end a command as Ctrl-C does
        try:
            code = command(*args, **kwargs)
            sys.stdout.flush()
        except KeyboardInterrupt as exc:
            signum = exc.signum if isinstance(exc, Interrupted) else signal.SIGINT
            stopped = Interrupted(signum)
            try:
                sys.stderr.write(stopped.message + "\n")
                sys.stderr.flush()
            except (OSError, ValueError):
                pass
            sys.exit(stopped.exit_code)
        except BrokenPipeError:
            # The reader closed the pipe (`| head -1`): it has what it wanted.
            _quiet_streams()
            sys.exit(EXIT_OK)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except BaseException as exc:
            if debug:
                import traceback

                traceback.print_exc()
            sys.stderr.write(f"internal error: {type(exc).__name__}: {exc}\n")
            sys.stderr.write("this is a bug in relay-text; please report it with the input that caused it\n")
            if not debug:
                sys.stderr.write("(run with --debug or RELAY_DEBUG=1 to see the traceback)\n")
            sys.exit(EXIT_ERROR)
        sys.exit(code)

    return click.option("--debug", is_flag=True, hidden=True, help="Show tracebacks of internal errors.")(wrapper)


def color_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--color",
        "color",
        type=click.Choice(["auto", "always", "never"]),
        default=None,
        help="Colour diagnostics and messages: auto (on a terminal, unless NO_COLOR is set), always or never.  [default: auto]",
    )(command)


def warnings_options(command: Callable[..., Any]) -> Callable[..., Any]:
    command = click.option(
        "-W",
        "warning_policy",
        type=click.Choice(["error"]),
        default=None,
        metavar="error",
        help="`-W error`: the same as --warnings-as-errors.",
    )(command)
    return click.option(
        "--warnings-as-errors/--no-warnings-as-errors",
        "warnings_as_errors",
        default=None,
        help="Count warnings as errors (in the exit status and the summary).",
    )(command)


def exclude_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Which files a directory search leaves out (see `discovery`)."""
    command = click.option(
        "--force-exclude",
        is_flag=True,
        help="Apply the exclusions to files named on the command line too (for pre-commit).",
    )(command)
    command = click.option(
        "--extend-exclude",
        multiple=True,
        metavar="PATTERN",
        help="Leave out paths matching this gitignore-style pattern, besides the `exclude` ones.",
    )(command)
    return click.option(
        "--exclude",
        multiple=True,
        metavar="PATTERN",
        help="Leave out paths matching this gitignore-style pattern, instead of the `exclude` setting.  [default: node_modules, __pycache__, build, dist, site-packages, venv]",
    )(command)


def jobs_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=1),
        default=None,
        metavar="N",
        help="Work on N files at once, in N processes.  [default: one per CPU for more than 4 files and 200 kB]",
    )(command)


# Paths, completed as file names by the shell (`_RELAY_COMPLETE=bash_source
# relay`, see docs/getting-started.md); nothing is checked here: reading reports problems.
FILES = click.Path()


def _complete_code(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """`relay explain <TAB>`: the diagnostic codes, with their summaries."""
    from click.shell_completion import CompletionItem

    from .diagnostics.codes import REGISTRY

    return [CompletionItem(name, help=entry.summary) for name, entry in REGISTRY.items() if name.startswith(incomplete)]


class Context:
    """What every command works out first: the `[tool.relay]` settings of
    the nearest pyproject.toml and whether to colour standard error."""

    def __init__(self, paths: list[str], color: str | None) -> None:
        from .config import ConfigError, Settings, settings_for
        from .diagnostics.render import Reporter, use_color

        self.error: str | None = None
        try:
            self.settings = settings_for(paths)
        except ConfigError as exc:
            self.settings = Settings()
            self.error = str(exc)
        self.color = use_color(sys.stderr, color, self.settings.get("color"))
        self.reporter = Reporter(sys.stderr, color=self.color)
        from .suppress import ignored_codes

        self.ignored, self.ignore_problems = ignored_codes(self.settings.get("ignore", ()))

    def start(self) -> bool:
        """Report configuration problems; False if the command cannot go on."""
        for warning in self.settings.warnings:
            self.reporter.message(f"warning: {warning}", "bold yellow")
        for problem in self.ignore_problems:
            self.reporter.message(f"warning: {self.settings.path}: {problem}", "bold yellow")
        if self.error is not None:
            self.reporter.message(f"error: {self.error}", "bold red")
            return False
        return True

    def warnings_as_errors(self, flag: bool | None, policy: str | None) -> bool:
        if policy == "error":
            return True
        if flag is not None:
            return flag
        return bool(self.settings.get("warnings_as_errors", False))

    def files(
        self, paths: list[str], exclude: tuple[str, ...], extend_exclude: tuple[str, ...], force_exclude: bool
    ) -> list[str]:
        """The files the command line names (directories searched, see
        `discovery`); warns when there are none."""
        from .discovery import Rules, discover, no_files_warning

        found = discover(paths, Rules(self.settings, exclude, extend_exclude), force_exclude)
        for warning in found.warnings:
            self.reporter.message(f"warning: {warning}", "bold yellow")
        if not found.files:
            self.reporter.message(no_files_warning(paths, found), "bold yellow")
        return found.files

    def jobs(self, flag: int | None, tasks: list[Any]) -> int:
        from .batch import workers

        setting = self.settings.get("jobs")
        jobs = flag if flag is not None else (None if setting in (None, "auto") else setting)
        return workers(jobs, [task.path for task in tasks])


def _stdin_task(path: str, options: Any) -> Any:
    """A task; standard input is read here, as workers cannot read it."""
    from .batch import Task
    from .files import STDIN, read

    if path != STDIN:
        return Task(path, options)
    inp = read(path)
    return Task(path, options, inp.text, inp.bom)


def _tasks(paths: list[str], options: Any, reporter: Any) -> tuple[list[Any], int]:
    from .files import InputError

    tasks = []
    failed = 0
    for path in paths:
        try:
            tasks.append(_stdin_task(path, options))
        except InputError as exc:
            reporter.message(f"error: {exc}", "bold red")
            failed += 1
    return tasks, failed


class _Commands(click.Group):
    """The command group: the commands of this module, plus those that live
    in the package of their stage (`relay import` in `frontends/`, ...),
    named in `STAGE_COMMANDS` and imported only when they are used or
    listed, so that `relay check` does not pay for importing them."""

    def main(self, args: Any = None, *rest: Any, **kwargs: Any) -> Any:
        # Called without arguments, the group reads sys.argv: it is the
        # `relay` command, owning its process (CliRunner passes arguments).
        _OWNS_PROCESS[0] = args is None
        return super().main(args, *rest, **kwargs)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *STAGE_COMMANDS])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = STAGE_COMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        import importlib

        module, _, attr = target.partition(":")
        command = getattr(importlib.import_module(module), attr)
        assert isinstance(command, click.Command), target
        return command


_OWNS_PROCESS = [False]

# Command name -> "module:attribute" of a click command defined elsewhere.
STAGE_COMMANDS: dict[str, str] = {
    "export": "relay_text.export.command:export",
    "import": "relay_text.frontends.cli:import_command",
    "summary": "relay_text.summary.cli:summary",
    "viz": "relay_text.viz.cli:viz",
    "opt": "relay_text.passes.command:opt",
}


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="relay")
def main() -> None:
    """Tools for the Relay IR text format: check, format and run programs."""


@main.command()
@click.argument("paths", nargs=-1, required=True, type=FILES)
@click.option(
    "--output-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: diagnostics on stderr; json: one JSON object on stdout.",
)
@click.option(
    "--types",
    "show_types",
    is_flag=True,
    help="Print every global with its type (prefixed by its file when there are several).",
)
@click.option(
    "--fix",
    is_flag=True,
    help="Apply the safe fixes that help lines name, re-checking after each round; report what remains.",
)
@click.option(
    "--diff",
    "show_diff",
    is_flag=True,
    help="Write nothing; print the fixes --fix would apply as a unified diff (exit 1 if there are any).",
)
@click.option(
    "--unsafe-fixes", is_flag=True, help="With --fix or --diff: also apply the fixes that guess among close names."
)
@warnings_options
@exclude_options
@jobs_option
@color_option
@guarded
def check(
    paths: tuple[str, ...],
    output_format: str,
    show_types: bool,
    fix: bool,
    show_diff: bool,
    unsafe_fixes: bool,
    warnings_as_errors: bool | None,
    warning_policy: str | None,
    exclude: tuple[str, ...],
    extend_exclude: tuple[str, ...],
    force_exclude: bool,
    jobs: int | None,
    color: str | None,
) -> int:
    """Parse and type-check Relay files (`-` reads stdin; directories are searched for *.rly, *.relay)."""
    from .batch import CheckOptions, Totals, check_file, run_tasks
    from .files import is_single_file

    ctx = Context(list(paths), color)
    if not ctx.start():
        return EXIT_ERROR
    reporter = ctx.reporter
    files = ctx.files(list(paths), exclude, extend_exclude, force_exclude)
    if not files:
        if output_format == "json":
            emit('{"files": []}\n')
        return EXIT_OK
    single = is_single_file(list(paths))
    options = CheckOptions(
        color=ctx.color,
        output_format=output_format,
        show_types=show_types,
        prefix_types=not single,
        warnings_as_errors=ctx.warnings_as_errors(warnings_as_errors, warning_policy),
        fix="diff" if show_diff else "fix" if fix else "",
        unsafe_fixes=unsafe_fixes,
        ignore=ctx.ignored,
    )
    tasks, stdin_failed = _tasks(files, options, reporter)
    totals = Totals()
    reports: list[dict[str, Any]] = []
    # (closed at once when the command stops early: a closed pipe, a signal;
    # the worker processes then end, instead of finishing every file first)
    with contextlib.closing(run_tasks(check_file, tasks, ctx.jobs(jobs, tasks))) as done:
        for report in done:
            totals.add(report)
            if output_format == "json":
                if report.io_error:
                    emit(report.err, sys.stderr)
                reports.append(report.json or {})
                continue
            emit(report.err, sys.stderr)
            if report.out:
                emit(report.out)
    if output_format == "json":
        if single and len(reports) == 1:
            document: Any = {k: v for k, v in reports[0].items() if k != "file"}
        else:
            document = {"files": reports}
        import json

        emit(json.dumps(document, indent=2) + "\n")
    io_failed = bool(totals.io_errors or stdin_failed)
    errors, warnings = totals.errors, totals.warnings
    if show_diff:
        return _diff_summary(totals, reporter, io_failed)
    if errors:
        tail = f" and {_plural(warnings, 'warning')}" if warnings else ""
        notes = [f"{_plural(len(files), 'file')} checked"] if len(files) > 1 else []
        reporter.message(
            f"Found {_plural(errors, 'error')}{tail} in {_plural(totals.failed_files, 'file')}{_notes(notes, totals, fix)}",
            "bold red",
        )
    elif not io_failed:
        notes = [_plural(warnings, "warning")] if warnings else []
        reporter.message(f"No errors in {_plural(len(files), 'file')}{_notes(notes, totals, fix)}", "bold green")
    if io_failed:
        return EXIT_ERROR
    return EXIT_FAIL if errors else EXIT_OK


def _notes(notes: list[str], totals: Any, fixing: bool) -> str:
    """The end of `relay check`'s summary: `notes` in parentheses, with how
    many problems `--fix` could fix, or fixed."""
    if not fixing and totals.fixable:
        notes = [*notes, f"{totals.fixable} fixable with `relay check --fix`"]
    text = f" ({'; '.join(notes)})" if notes else ""
    if fixing and totals.fixed:
        text += f"; fixed {_plural(totals.fixed, 'problem')}"
    return text


def _diff_summary(totals: Any, reporter: Any, io_failed: bool) -> int:
    """`relay check --diff`: how many fixes the diff shows; 1 if any."""
    if totals.fixed:
        reporter.message(
            f"Would fix {_plural(totals.fixed, 'problem')} in {_plural(totals.fixed_files, 'file')}", "bold"
        )
    elif not io_failed:
        reporter.message("No fixes to apply", "bold green")
    if io_failed:
        return EXIT_ERROR
    return EXIT_FAIL if totals.fixed else EXIT_OK


@main.command()
@click.argument("path", type=FILES)
@click.option("--entry", metavar="@NAME", help="Function to run (default: the file's trailing expression, else @main).")
@click.option(
    "--arg",
    "arg_texts",
    multiple=True,
    metavar="NAME=VALUE",
    help="An argument: Relay text such as 3, (1, 2), Cons(1, Nil()), or @file.npy.",
)
@click.option(
    "--args",
    "args_file",
    type=FILES,
    metavar="FILE.npz",
    help="Arguments from an .npz file whose keys are parameter names.",
)
@click.option("--random-args", is_flag=True, help="Fill every parameter without a value with random data of its type.")
@click.option(
    "--random-consts",
    is_flag=True,
    help="Fill meta[relay.Constant][i] that have no data with random values of their inferred types.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for --random-args and --random-consts.")
@click.option(
    "--max-depth",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Most nested calls allowed [default: 2,000,000].",
)
@click.option(
    "--max-memory",
    metavar="SIZE",
    default=None,
    help="Largest tensor (or operator result) the program may allocate, such as 512M or 2G [default: half the machine's memory].",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="Stop a run that takes longer.",
)
@click.option(
    "--max-output",
    metavar="SIZE",
    default=None,
    help="Most text (or JSON) the result may print, such as 64M or 1G [default: 64M on a terminal; to a file, its disk's free space; to a pipe, none].",
)
@click.option("--no-prelude", is_flag=True, help="Do not load the Prelude (List, Optional, map, foldl, ...).")
@click.option(
    "--no-opt",
    is_flag=True,
    help="Run the program as written: no constant folding, no folded batch norms, no in-place steps.",
)
@click.option(
    "--output-format",
    type=click.Choice(["text", "json", "npz"]),
    default="text",
    show_default=True,
    help="text: Relay-style value; json: one JSON value; npz: the result's tensors (needs --output).",
)
@click.option("--output", "output_path", type=FILES, metavar="FILE", help="Write the result to FILE instead of stdout.")
@click.option(
    "--full", is_flag=True, help="Print every element of large tensors and long lists, and every level of deep data."
)
@click.option(
    "--summary/--no-summary",
    default=None,
    help="Print each tensor as its shape, dtype, min, max, mean, std and NaN/inf counts.  [default: for tensors over 1,000 elements on a terminal]",
)
@click.option(
    "--engine",
    type=click.Choice(["numpy", "onnxruntime"]),
    default="numpy",
    show_default=True,
    help="numpy: the evaluator; onnxruntime: the entry point exported to ONNX and run there (extra `onnxruntime`).",
)
@warnings_options
@color_option
@guarded
def run(
    path: str,
    entry: str | None,
    arg_texts: tuple[str, ...],
    args_file: str | None,
    random_args: bool,
    random_consts: bool,
    seed: int,
    max_depth: int | None,
    max_memory: str | None,
    timeout: float | None,
    max_output: str | None,
    no_prelude: bool,
    no_opt: bool,
    output_format: str,
    output_path: str | None,
    full: bool,
    engine: str,
    summary: bool | None,
    warnings_as_errors: bool | None,
    warning_policy: str | None,
    color: str | None,
) -> int:
    """Type-check a Relay file, then evaluate @main (or --entry) and print the result."""
    from .eval.entry import RunRequest
    from .eval.runtime import DEFAULT_MAX_DEPTH
    from .files import InputError, read
    from .ir.span import Source
    from .pipeline import run_source

    ctx = Context([path], color)
    if not ctx.start():
        return EXIT_ERROR
    reporter = ctx.reporter
    if output_format == "npz" and not output_path:
        raise click.UsageError("--output-format npz needs --output FILE")
    if summary and output_format != "text":
        raise click.UsageError(f"--summary is for the text output, not --output-format {output_format}")
    pairs = []
    for text in arg_texts:
        name, sep, value = text.partition("=")
        name = name.strip().lstrip("%")
        if not sep or not name:
            raise click.BadParameter(f"expected NAME=VALUE, got {text!r}", param_hint="--arg")
        pairs.append((name, value.strip()))
    try:
        inp = read(path)
    except InputError as exc:
        reporter.message(f"error: {exc}", "bold red")
        return EXIT_ERROR
    memory = _size_setting(max_memory, "--max-memory", ctx.settings.get("max_memory"))
    output_limit = _size_setting(max_output, "--max-output", ctx.settings.get("max_output"))
    if timeout is None:
        timeout = ctx.settings.get("timeout")
    request = RunRequest(
        entry=entry,
        arg_texts=pairs,
        args_file=args_file,
        random_args=random_args,
        random_consts=random_consts,
        seed=seed,
        max_depth=max_depth or ctx.settings.get("max_depth") or DEFAULT_MAX_DEPTH,
        optimize=not no_opt,
        max_memory=memory,
    )
    if engine == "onnxruntime":
        from .export.engine import MissingOnnxruntime, onnxruntime_engine, require_onnxruntime

        try:
            require_onnxruntime()
        except MissingOnnxruntime as exc:
            reporter.message(f"error: {exc}", "bold red")
            return EXIT_ERROR
        request.engine = onnxruntime_engine(timeout=timeout)

    from .eval.progress import terminal_progress

    deadline = _deadline(timeout, reporter, inp.name)
    try:
        with deadline, terminal_progress(sys.stderr, ctx.color):
            ran = run_source(
                Source(inp.name, inp.text),
                request,
                use_prelude=not no_prelude,
                warnings_as_errors=ctx.warnings_as_errors(warnings_as_errors, warning_policy),
            )
    except RunTimeout:
        # Outside the program (parsing, checking, compiling): no place to point at.
        from .diagnostics import Diagnostic, codes

        message = (
            deadline.stage_message()
            if hasattr(deadline, "stage_message")
            else "the run took longer than its limit (--timeout)"
        )
        reporter.diagnostic(Diagnostic(codes.RESOURCE_LIMIT, message, None))
        reporter.message("Stopped: out of time", "bold red")
        return EXIT_FAIL
    from .suppress import without_ignored

    for diag in without_ignored(ran.diagnostics, ctx.ignored):
        reporter.diagnostic(diag)
    if not ran.ok:
        if ran.started:
            reporter.message("The program stopped with an error", "bold red")
        else:
            reporter.message(f"Found {_plural(ran.errors, 'error')}; nothing was run", "bold red")
        return EXIT_FAIL
    from .eval.entry import find_entry
    from .eval.output_size import output_limit_diagnostic
    from .limits import DEFAULT_MAX_OUTPUT

    span = find_entry(ran.module, entry).span if ran.module is not None else None
    disk = False
    if output_limit is None and output_format != "npz":
        output_limit, disk = default_output_limit(output_path, sys.stdout, DEFAULT_MAX_OUTPUT)
    too_large = None
    if output_limit is not None:
        too_large = output_limit_diagnostic(ran.value, output_format, full, output_limit, span)
    if too_large is not None and disk:
        from .limits import byte_text

        head, _, _ = too_large.message.rpartition(", more than")
        too_large.message = f"{head}, more than the {byte_text(output_limit)} free where it is written"
        too_large.helps[0] = "free some space, or write it elsewhere (`--max-output SIZE` sets a limit of your own)"
    if too_large is not None:
        reporter.diagnostic(too_large)
        reporter.message("The result was not printed", "bold red")
        return EXIT_FAIL
    return _write_result(ran.value, output_format, output_path, full, reporter, summary)


def default_output_limit(output_path: str | None, stream: Any, terminal_limit: int) -> tuple[int | None, bool]:
    """The output limit when none is set, and whether it is a disk's free
    space: `terminal_limit` for a terminal, which a person reads; for a file
    (`--output`, or standard output redirected to one) the free space of its
    file system, since more cannot be written; none for a pipe, whose reader
    decides when to stop."""
    import stat

    try:
        if output_path is not None:
            vfs = os.statvfs(os.path.dirname(os.path.abspath(output_path)))
            return vfs.f_bavail * vfs.f_frsize, True
        isatty = getattr(stream, "isatty", None)
        if isatty is not None and isatty():
            return terminal_limit, False
        fd = stream.fileno()
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None, False
        vfs = os.fstatvfs(fd)
        return vfs.f_bavail * vfs.f_frsize, True
    except (AttributeError, OSError, ValueError):  # no file descriptor (a StringIO), or no file system to ask
        return None, False


def _size_setting(flag: str | None, hint: str, setting: Any) -> int | None:
    """Bytes of a size option (`512M`), else of its `[tool.relay]` setting."""
    from .config import size_value
    from .limits import parse_bytes

    if flag is None:
        return None if setting is None else size_value(setting)
    try:
        return parse_bytes(flag)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint=hint) from None


def _deadline(seconds: float | None, reporter: Any, name: str) -> Any:
    """The `--timeout` of a run (`eval.deadline`), or a context that does nothing."""
    if seconds is None:
        return contextlib.nullcontext()
    from .eval.deadline import Deadline

    def report(diag: Any) -> None:
        reporter.diagnostic(diag)
        # (as when the run stops by itself: in the program, or before it)
        reporter.message(
            "The program stopped with an error" if diag.span is not None else "Stopped: out of time", "bold red"
        )

    # Ending the process to keep the deadline is for the command that owns it
    # (not a caller running it in-process, such as a test or the fuzzer).
    return Deadline(seconds, report, name, hard=_OWNS_PROCESS[0])


def _write_result(
    value: Any, output_format: str, output_path: str | None, full: bool, reporter: Any, summary: bool | None = None
) -> int:
    from .eval.show import (
        check_json_size,
        flatten_tensors,
        write_value_json,
    )

    if output_format == "npz":
        import numpy as np

        try:
            arrays = flatten_tensors(value)
        except ValueError as exc:
            reporter.message(f"error: cannot write the result as .npz: {exc}", "bold red")
            return EXIT_ERROR
        try:
            with open(output_path, "wb") as fh:  # type: ignore[arg-type]  # set: `run` rejects npz without --output
                np.savez(fh, **arrays)  # type: ignore[arg-type]  # numpy's stubs match **arrays against `allow_pickle`; the keys are outN
        except OSError as exc:
            reporter.message(f"error: {output_path}: cannot write ({exc.strerror})", "bold red")
            return EXIT_ERROR
        reporter.message(f"wrote {', '.join(arrays)} to {output_path}")
        return EXIT_OK
    if output_format == "json":
        # Streamed: a large tensor is written a block of elements at a time.
        try:
            check_json_size(value)
        except ValueError as exc:
            reporter.message(f"error: cannot write the result as JSON: {exc}", "bold red")
            return EXIT_ERROR
        if output_path:
            try:
                with open(output_path, "w", encoding="utf-8") as fh:
                    write_value_json(value, fh.write)
                    fh.write("\n")
            except OSError as exc:
                reporter.message(f"error: {output_path}: cannot write ({exc.strerror})", "bold red")
                return EXIT_ERROR
            return EXIT_OK
        write_value_json(value, emit)  # each piece written whole (see `emit`)
        emit("\n")
        return EXIT_OK
    from .eval.display import result_text

    try:
        text, summarised = result_text(value, full, summary, terminal=not output_path and sys.stdout.isatty())
    except ValueError as exc:
        reporter.message(f"error: cannot write the result as JSON: {exc}", "bold red")
        return EXIT_ERROR
    if output_path:
        try:
            with open(output_path, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
        except OSError as exc:
            reporter.message(f"error: {output_path}: cannot write ({exc.strerror})", "bold red")
            return EXIT_ERROR
        return EXIT_OK
    emit(text + "\n")
    if summarised:
        reporter.message(
            f"({_plural(summarised, 'large tensor')} summarised; --full prints every element, --no-summary numpy's layout)",
            "dim",
        )
    return EXIT_OK


@main.command()
@click.argument("paths", nargs=-1, required=True, type=FILES)
@click.option(
    "--check", "check_only", is_flag=True, help="Write nothing; list files that would change and exit 1 if any."
)
@click.option(
    "--diff", "show_diff", is_flag=True, help="Write nothing; print a unified diff of the changes and exit 1 if any."
)
@click.option("--line-length", type=click.IntRange(min=1), default=None, help="Columns to fit code in.  [default: 100]")
@click.option(
    "--dialect",
    type=click.Choice(["keep", "docs", "tvm"]),
    default=None,
    help="keep: each file's own dialect; docs: the documented syntax; tvm: TVM's 0.0.5 format.  [default: keep]",
)
@click.option("--fast", is_flag=True, help="Skip the safety checks (re-parse and compare, format twice).")
@click.option(
    "--bind-operands",
    is_flag=True,
    help="Bind every nested call, tuple or projection to a %n temporary first, as TVM's printer did (the author's nesting is kept otherwise).",
)
@exclude_options
@click.option("--force", is_flag=True, help="Also rewrite read-only files.")
@jobs_option
@color_option
@guarded
def fmt(
    paths: tuple[str, ...],
    check_only: bool,
    show_diff: bool,
    line_length: int | None,
    dialect: str | None,
    fast: bool,
    bind_operands: bool,
    exclude: tuple[str, ...],
    extend_exclude: tuple[str, ...],
    force_exclude: bool,
    force: bool,
    jobs: int | None,
    color: str | None,
) -> int:
    """Format Relay files in place (`-` formats stdin to stdout; directories
    are searched for *.rly, *.relay). Settings come from [tool.relay] in the
    nearest pyproject.toml unless given here."""
    from .batch import FmtOptions, Totals, format_file, run_tasks

    ctx = Context(list(paths), color)
    if not ctx.start():
        return EXIT_ERROR
    reporter = ctx.reporter
    options = FmtOptions(
        color=ctx.color,
        dialect=dialect or ctx.settings.get("dialect", "keep"),
        line_length=line_length or ctx.settings.get("line_length", 100),
        safe=not fast,
        check_only=check_only,
        show_diff=show_diff,
        bind_operands=bind_operands,
        force=force,
    )
    write_back = not (check_only or show_diff)
    files = ctx.files(list(paths), exclude, extend_exclude, force_exclude)
    if not files:
        return EXIT_OK
    tasks, stdin_failed = _tasks(files, options, reporter)
    totals = Totals()
    with contextlib.closing(run_tasks(format_file, tasks, ctx.jobs(jobs, tasks))) as done:  # (see `check`)
        for report in done:
            totals.add(report)
            if report.out:
                try:
                    emit(report.out)
                except BrokenPipeError:
                    if not show_diff:
                        raise
                    # `relay fmt --diff | head`: the reader has seen enough, and
                    # a diff means a file would change.
                    _quiet_streams()
                    return EXIT_FAIL
            emit(report.err, sys.stderr)
    changed, unchanged = totals.status["changed"], totals.status["unchanged"]
    failed = totals.status["failed"] + stdin_failed
    verb = "would be " if not write_back else ""
    parts = []
    if changed:
        parts.append(f"{_plural(changed, 'file')} {verb}reformatted")
    if unchanged:
        parts.append(f"{_plural(unchanged, 'file')} {verb}left unchanged")
    if failed:
        parts.append(f"{_plural(failed, 'file')} failed to reformat")
    reporter.message(", ".join(parts) if parts else "No files to format", "bold" if not failed else "bold red")
    if failed:
        return EXIT_ERROR
    return EXIT_FAIL if changed and not write_back else EXIT_OK


@main.command()
@click.option(
    "--stdio",
    is_flag=True,
    help="Talk over standard input and output (the default; accepted for clients that pass it).",
)
def lsp(stdio: bool) -> None:
    """Run the language server for editors, over standard input and output."""
    try:
        from .lsp.server import main as serve
    except ImportError as exc:
        missing = exc.name or str(exc)
        sys.stderr.write(f"error: relay lsp needs pygls 2 (cannot import {missing}): pip install 'relay-text[lsp]'\n")
        sys.exit(EXIT_ERROR)
    serve()


@main.command()
@click.argument("code", required=False, shell_complete=_complete_code)
@color_option
@guarded
def explain(code: str | None, color: str | None) -> int:
    """Explain a diagnostic code (`relay explain unused-binding`); without
    one, list every code with its summary."""
    import textwrap

    from .diagnostics.codes import REGISTRY
    from .diagnostics.render import Reporter, use_color
    from .text.suggest import close_names, or_list

    out = Reporter(sys.stdout, color=use_color(sys.stdout, color))
    if code is None:
        width = max(len(name) for name in REGISTRY)
        for name, entry in REGISTRY.items():
            out.message(f"{name:<{width}}  {entry.severity:<7}  {entry.summary}")
        return EXIT_OK
    name = code.strip()
    if "[" in name and name.endswith("]"):  # `error[unused-binding]`, as printed
        name = name[name.index("[") + 1 : -1]
    found = REGISTRY.get(name)
    if found is None:
        err = Reporter(sys.stderr, color=use_color(sys.stderr, color))
        guesses = close_names(name, REGISTRY)
        hint = f"; did you mean {or_list([f'`{g}`' for g in guesses])}?" if guesses else "; `relay explain` lists them"
        err.message(f"error: `{code}` is not a diagnostic code{hint}", "bold red")
        return EXIT_ERROR
    entry = found
    style = "bold red" if entry.severity == "error" else "bold yellow"
    out.message(f"{entry.severity}[{entry}]: {entry.summary}", style)
    out.message("")
    out.message(textwrap.fill(entry.explanation, width=79))
    if entry.warning_when:
        out.message(textwrap.fill(f"A warning, not an error, when {entry.warning_when}.", width=79))
    if entry.example:
        out.message("")
        out.message("Example:", "bold")
        out.message("")
        out.message(textwrap.indent(entry.example, "    "))
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    main()
