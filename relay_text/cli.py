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
from .text.wording import counted

EXIT_OK, EXIT_FAIL, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130


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
        with contextlib.suppress(OSError, ValueError, AttributeError):  # no file descriptor (a test's buffer)
            os.dup2(devnull, stream.fileno())


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
        help=(
            "Colour diagnostics and messages: auto (on a terminal, unless NO_COLOR is set), "
            "always or never.  [default: auto]"
        ),
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
        help=(
            "Leave out paths matching this gitignore-style pattern, instead of the `exclude` setting.  "
            "[default: node_modules, __pycache__, build, dist, site-packages, venv]"
        ),
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
        if args is None:
            os.environ.setdefault(*BLAS_IDLE)
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

BLAS_IDLE = ("OPENBLAS_THREAD_TIMEOUT", "18")
"""Set in the `relay` process (unless set already) before numpy loads its
OpenBLAS, which reads it then: after a product, OpenBLAS's idle threads
wait 2^18 cycles (about 0.1 ms) for the next one before they sleep, not
2^28 (about 0.1 s), spinning on the cores the kernel threads need."""

# Command name -> "module:attribute" of a click command defined elsewhere.
STAGE_COMMANDS: dict[str, str] = {
    "export": "relay_text.export.command:export",
    "import": "relay_text.frontends.cli:import_command",
    "summary": "relay_text.summary.cli:summary",
    "viz": "relay_text.viz.cli:viz",
    "opt": "relay_text.passes.command:opt",
    "run": "relay_text.run_command:run",
    "explain": "relay_text.explain_command:explain",
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
        tail = f" and {counted(warnings, 'warning')}" if warnings else ""
        notes = [f"{counted(len(files), 'file')} checked"] if len(files) > 1 else []
        reporter.message(
            f"Found {counted(errors, 'error')}{tail} in {counted(totals.failed_files, 'file')}"
            f"{_notes(notes, totals, fix)}",
            "bold red",
        )
    elif not io_failed:
        notes = [counted(warnings, "warning")] if warnings else []
        reporter.message(f"No errors in {counted(len(files), 'file')}{_notes(notes, totals, fix)}", "bold green")
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
        text += f"; fixed {counted(totals.fixed, 'problem')}"
    return text


def _diff_summary(totals: Any, reporter: Any, io_failed: bool) -> int:
    """`relay check --diff`: how many fixes the diff shows; 1 if any."""
    if totals.fixed:
        reporter.message(
            f"Would fix {counted(totals.fixed, 'problem')} in {counted(totals.fixed_files, 'file')}", "bold"
        )
    elif not io_failed:
        reporter.message("No fixes to apply", "bold green")
    if io_failed:
        return EXIT_ERROR
    return EXIT_FAIL if totals.fixed else EXIT_OK


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
    help=(
        "Bind every nested call, tuple or projection to a %n temporary first, as TVM's printer did "
        "(the author's nesting is kept otherwise)."
    ),
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
    unwritten = totals.status["unwritten"]  # formatted (or not even read), and refused by the file system or by safety
    verb = "would be " if not write_back else ""
    parts = []
    if changed:
        parts.append(f"{counted(changed, 'file')} {verb}reformatted")
    if unchanged:
        parts.append(f"{counted(unchanged, 'file')} {verb}left unchanged")
    if unwritten:
        parts.append(f"{counted(unwritten, 'file')} not written")
    if failed:
        parts.append(f"{counted(failed, 'file')} failed to reformat")
    erred = failed + unwritten
    reporter.message(", ".join(parts) if parts else "No files to format", "bold" if not erred else "bold red")
    if erred:
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


if __name__ == "__main__":  # pragma: no cover
    main()
