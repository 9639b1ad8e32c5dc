"""What the `relay` commands do once their flags are read: the bodies of
`relay check` and `relay fmt`, and what every command shares (exit codes,
writing to standard output, the guard against tracebacks, the settings).

Nothing here imports click: `launch` runs the common invocations of check
and fmt straight from these functions, and click, which declares every
command's flags in `cli`, is imported only for the others.

Exit codes: 0 success, 1 the input has errors (or would be reformatted),
2 usage, input/output or internal errors, 130 interrupted (Ctrl-C), 143
and 129 terminated by SIGTERM and SIGHUP (after the same cleanup). A closed
standard output (`relay check --types . | head -1`) ends the command
quietly with status 0, as the reader has all it wanted.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from typing import Any, NoReturn
from collections.abc import Callable

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


def quiet_streams() -> None:
    """After a closed pipe: point standard output (and error) at /dev/null,
    so that the flush at exit neither fails nor prints a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):  # no file descriptor (a test's buffer)
            os.dup2(devnull, stream.fileno())


def run_guarded(body: Callable[[], int], debug: bool, passthrough: tuple[type[BaseException], ...] = ()) -> NoReturn:
    """Run a command's body and exit with the status it returns; turn any
    unexpected exception into one line (the traceback only with --debug or
    RELAY_DEBUG=1), so that a user never sees a Python traceback.
    `passthrough`: exceptions left to the caller (click's own)."""
    from .interrupts import Interrupted, install

    debug = debug or bool(os.environ.get("RELAY_DEBUG"))
    if OWNS_PROCESS[0]:  # (not in a caller's process: its signals are its own)
        install()  # SIGTERM and SIGHUP end a command as Ctrl-C does
    try:
        code = body()
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
        quiet_streams()
        sys.exit(EXIT_OK)
    except SystemExit:
        raise
    except BaseException as exc:
        if isinstance(exc, passthrough):
            raise
        if debug:
            import traceback

            traceback.print_exc()
        sys.stderr.write(f"internal error: {type(exc).__name__}: {exc}\n")
        sys.stderr.write("this is a bug in relay-text; please report it with the input that caused it\n")
        if not debug:
            sys.stderr.write("(run with --debug or RELAY_DEBUG=1 to see the traceback)\n")
        sys.exit(EXIT_ERROR)
    sys.exit(code)


OWNS_PROCESS = [False]
"""[True] when the command is the `relay` program, owning its process (its
signals, a hard deadline); [False] in a caller's process (click's CliRunner)."""

BLAS_IDLE = ("OPENBLAS_THREAD_TIMEOUT", "18")
"""Set in the `relay` process (unless set already) before numpy loads its
OpenBLAS, which reads it then: after a product, OpenBLAS's idle threads
wait 2^18 cycles (about 0.1 ms) for the next one before they sleep, not
2^28 (about 0.1 s), spinning on the cores the kernel threads need."""


def start(owns_process: bool) -> None:
    """What the `relay` program does before a command when it reads
    sys.argv itself (`owns_process`): it owns the process (`OWNS_PROCESS`)
    and lets OpenBLAS's idle threads sleep soon (`BLAS_IDLE`)."""
    OWNS_PROCESS[0] = owns_process
    if owns_process:
        os.environ.setdefault(*BLAS_IDLE)


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


def _tasks(paths: list[str], options: Any, reporter: Any, cache: Any) -> tuple[list[Any], int]:
    """The tasks of `paths` (each with what `cache` knows of it), and how
    many could not be made (standard input unreadable)."""
    from .batch import Task
    from .files import InputError

    tasks = []
    failed = 0
    for path in paths:
        try:
            task = _stdin_task(path, options)
            known = cache.known(path)
            tasks.append(task if known is None else Task(task.path, options, task.text, task.bom, known))
        except InputError as exc:
            reporter.message(f"error: {exc}", "bold red")
            failed += 1
    return tasks, failed


def check(
    paths: tuple[str, ...],
    output_format: str = "text",
    show_types: bool = False,
    fix: bool = False,
    show_diff: bool = False,
    unsafe_fixes: bool = False,
    warnings_as_errors: bool | None = None,
    warning_policy: str | None = None,
    exclude: tuple[str, ...] = (),
    extend_exclude: tuple[str, ...] = (),
    force_exclude: bool = False,
    jobs: int | None = None,
    color: str | None = None,
    use_cache: bool = True,
) -> int:
    """Parse and type-check Relay files (`-` reads stdin; directories are searched for *.rly, *.relay)."""
    from .batch import CheckOptions, Totals, check_file, run_tasks
    from .cache import Cache
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
    cache = Cache("check", options.cache_settings() if use_cache else None)
    tasks, stdin_failed = _tasks(files, options, reporter, cache)
    totals = Totals()
    reports: list[dict[str, Any]] = []
    # (closed at once when the command stops early: a closed pipe, a signal;
    # the worker processes then end, instead of finishing every file first)
    with contextlib.closing(run_tasks(check_file, tasks, ctx.jobs(jobs, tasks))) as done:
        for report in done:
            totals.add(report)
            cache.note(report.name, report.clean)
            if output_format == "json":
                if report.io_error:
                    emit(report.err, sys.stderr)
                reports.append(report.json or {})
                continue
            emit(report.err, sys.stderr)
            if report.out:
                emit(report.out)
    cache.save()
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


def fmt(
    paths: tuple[str, ...],
    check_only: bool = False,
    show_diff: bool = False,
    line_length: int | None = None,
    dialect: str | None = None,
    fast: bool = False,
    bind_operands: bool = False,
    exclude: tuple[str, ...] = (),
    extend_exclude: tuple[str, ...] = (),
    force_exclude: bool = False,
    force: bool = False,
    jobs: int | None = None,
    color: str | None = None,
    use_cache: bool = True,
) -> int:
    """Format Relay files in place (`-` formats stdin to stdout; directories
    are searched for *.rly, *.relay). Settings come from [tool.relay] in the
    nearest pyproject.toml unless given here."""
    from .batch import FmtOptions, Totals, format_file, run_tasks
    from .cache import Cache

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
    cache = Cache("fmt", options.cache_settings() if use_cache else None)
    tasks, stdin_failed = _tasks(files, options, reporter, cache)
    totals = Totals()
    with contextlib.closing(run_tasks(format_file, tasks, ctx.jobs(jobs, tasks))) as done:  # (see `check`)
        for report in done:
            totals.add(report)
            cache.note(report.name, report.clean)
            if report.out:
                try:
                    emit(report.out)
                except BrokenPipeError:
                    if not show_diff:
                        raise
                    # `relay fmt --diff | head`: the reader has seen enough, and
                    # a diff means a file would change.
                    quiet_streams()
                    return EXIT_FAIL
            emit(report.err, sys.stderr)
    cache.save()
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
