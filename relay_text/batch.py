"""The per-file work of `relay check` and `relay fmt`, serially or in processes.

Each file is one task whose outcome is a `FileReport`: the text for
standard output and standard error (diagnostics already rendered, in colour
if asked), counts and the JSON object. The command prints the reports in
the order of its files, so the output is the same however many processes
did the work. With more than `PARALLEL_THRESHOLD` files holding at least
`PARALLEL_MIN_BYTES` of text, and more than one CPU, tasks go to a pool of
processes, one per CPU (as black does); `jobs` sets the pool's size (1:
everything in this process).
"""

from __future__ import annotations

import io
import os
import sys
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Generator, Sequence
import contextlib

if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes, for less at import
    from .record import dataclass, field

PARALLEL_THRESHOLD = 4  # more files than this may be worth the processes
# Starting a pool costs about 0.3 s; checking costs about 3 us a byte, so
# a pool pays for itself from a few hundred kilobytes on (measured: twelve
# 39 kB files check in 2.0 s serially, 1.45 s in two processes, while the
# 60 small samples take 0.65 s serially and 0.85 s in two processes).
PARALLEL_MIN_BYTES = 200_000


@dataclass(frozen=True)
class Task:
    """One file to work on: its path (`-` for stdin, read by the parent and
    passed as `text`) and the options of the command."""

    path: str
    options: Any
    text: str | None = None
    bom: bool = False
    known: str | None = None  # the digest of the file's bytes when it last checked clean or was formatted (`cache`)


@dataclass
class FileReport:
    """What one file's task produced."""

    name: str
    out: str = ""  # for standard output (types, formatted text, diffs)
    err: str = ""  # for standard error (diagnostics, messages)
    errors: int = 0
    warnings: int = 0
    io_error: bool = False
    status: str = ""  # relay fmt: "changed", "unchanged", "failed" or "unwritten" (formatted, not written)
    json: dict[str, Any] | None = None
    fixed: int = 0  # relay check --fix / --diff: fixes applied (or that would be)
    fixable: int = 0  # diagnostics left with a safe fix
    clean: str | None = None  # the digest of the file's bytes, now clean or formatted, for the cache


@dataclass(frozen=True)
class CheckOptions:
    """How `relay check` treats each file (the flags and settings it was given)."""

    color: bool = False
    output_format: str = "text"
    show_types: bool = False
    prefix_types: bool = False  # several files: `FILE: @name : type`
    warnings_as_errors: bool = False
    fix: str = ""  # "fix": apply the fixes; "diff": print them as a diff
    unsafe_fixes: bool = False
    ignore: frozenset[str] = frozenset()  # warnings silenced by the `ignore` setting

    def cache_settings(self) -> tuple[Any, ...] | None:
        """What a clean result depends on, or None when the run's output is
        more than diagnostics (`--types`, JSON, fixes): then no cache."""
        if self.fix or self.show_types or self.output_format != "text":
            return None
        return (tuple(sorted(self.ignore)),)


@dataclass(frozen=True)
class FmtOptions:
    """How `relay fmt` treats each file (the flags and settings it was given)."""

    color: bool = False
    dialect: str = "keep"
    line_length: int = 100
    safe: bool = True
    check_only: bool = False
    show_diff: bool = False
    bind_operands: bool = False  # TVM's printer form: every non-atomic operand bound first
    force: bool = False  # write read-only files too

    def cache_settings(self) -> tuple[Any, ...]:
        """What the formatter's text depends on (besides the file's)."""
        return (self.dialect, self.line_length, self.bind_operands)


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def workers(jobs: int | None, paths: Sequence[str]) -> int:
    """How many processes to use for `paths`: `jobs` if given, else one per
    CPU when there are more than PARALLEL_THRESHOLD files of at least
    PARALLEL_MIN_BYTES in all; never more than there are files."""
    if jobs is None:
        cpus = cpu_count()
        if len(paths) <= PARALLEL_THRESHOLD or cpus < 2 or _total_size(paths) < PARALLEL_MIN_BYTES:
            return 1
        jobs = cpus
    return max(1, min(jobs, len(paths)))


def _total_size(paths: Sequence[str]) -> int:
    total = 0
    for path in paths:
        with contextlib.suppress(OSError):
            total += os.path.getsize(path)
    return total


def run_tasks(
    work: Callable[[Task], FileReport], tasks: Sequence[Task], jobs: int
) -> Generator[FileReport, None, None]:
    """The reports of `tasks`, in their order, computed by `jobs` processes.

    The workers die with this process (`interrupts.worker_started`), and
    when the command stops early (Ctrl-C, SIGTERM, a closed pipe) they are
    ended at once: a worker busy with a file finishes replacing it first,
    so that every file is either as it was or fully formatted."""
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield work(task)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from .interrupts import check, deferred, worker_started

    _warm_up()
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods and sys.platform != "darwin" else None)
    pool = ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=worker_started, initargs=(os.getpid(),)
    )
    finished = False
    try:
        with deferred():  # (the workers are forked here)
            reports = pool.map(work, tasks)
        check()
        for report in reports:
            yield report
            check()
        finished = True
    finally:
        if finished:
            pool.shutdown(wait=True)
        else:
            _stop(pool)


def _stop(pool: Any) -> None:
    """End a pool's workers now (SIGTERM: each exits once it has finished
    replacing a file it is writing) and drop the files not yet started."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    results = getattr(pool, "_result_queue", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.terminate()
    for process in processes:
        try:
            process.join(10)
            if process.is_alive():
                process.kill()
                process.join(1)
        except (OSError, ValueError, AttributeError, AssertionError):
            pass
    # A worker ended while sending a result leaves half a message, which
    # the pool's manager thread would wait for for ever (this process holds
    # the pipe's other end), and the interpreter joins that thread at exit:
    # closing this end lets it see the end of the pipe instead.
    try:
        if results is not None:
            results._writer.close()
    except (OSError, AttributeError):
        pass
    if manager is not None:
        manager.join(5)
        if manager.is_alive():  # (never joined at exit: the command must end)
            from concurrent.futures import process as futures_process

            getattr(futures_process, "_threads_wakeups", {}).pop(manager, None)


def _warm_up() -> None:
    """Load the parser tables and the Prelude once, before forking, so that
    every worker starts with them."""
    from .std import prelude
    from .syntax.parser import _parser

    _parser()
    prelude()


def _reporter(buffer: io.StringIO, color: bool) -> Any:
    from .diagnostics.render import Reporter

    return Reporter(buffer, color=color)


def _read(task: Task) -> Any:
    from .files import STDIN, Input, read

    if task.path == STDIN and task.text is not None:
        return Input("<stdin>", task.text, task.bom)
    return read(task.path)


def check_file(task: Task) -> FileReport:
    """`relay check` of one file."""
    from .diagnostics.render import diagnostic_json
    from .files import InputError
    from .ir.span import Source

    options: CheckOptions = task.options
    err = io.StringIO()
    reporter = _reporter(err, options.color)
    try:
        inp = _read(task)
    except InputError as exc:
        reporter.message(f"error: {exc}", "bold red")
        return FileReport(
            task.path,
            err=err.getvalue(),
            io_error=True,
            json={"file": task.path, "error": str(exc), "diagnostics": [], "globals": {}},
        )
    report = FileReport(inp.name)
    text_digest = _digest(task, inp)
    if text_digest is not None and text_digest == task.known:
        report.clean = text_digest  # clean when last checked, and unchanged since
        return report
    if options.fix:
        result = _fix_file(task, inp, options, report, reporter)
        if result is None:
            report.err = err.getvalue()
            return report
    else:
        result = _check(Source(inp.name, inp.text), options)
    diagnostics = result.diagnostics
    if options.warnings_as_errors:
        from .suppress import warnings_as_errors

        diagnostics = warnings_as_errors(diagnostics)
    report.errors = sum(1 for d in diagnostics if d.is_error)
    report.warnings = len(diagnostics) - report.errors
    report.fixable = sum(1 for d in diagnostics if any(f.safe for f in d.fixes))
    if options.fix == "diff":  # only the diff, and the summary
        report.err = err.getvalue()
        return report
    if options.output_format == "json":
        report.json = {
            "file": inp.name,
            "diagnostics": [diagnostic_json(d) for d in diagnostics],
            "globals": dict(result.global_types),
        }
        return report
    if not diagnostics and options.cache_settings() is not None:
        report.clean = text_digest
    for diag in diagnostics:
        reporter.diagnostic(diag)
    if options.show_types and not report.out:
        prefix = f"{inp.name}: " if options.prefix_types else ""
        report.out = "".join(
            f"{prefix}{name} : {ty if ty is not None else '?'}\n" for name, ty in result.global_types.items()
        )
    report.err = err.getvalue()
    return report


def _digest(task: Task, inp: Any) -> str | None:
    """The digest of a file's bytes, for the cache (None for standard input)."""
    from .cache import digest
    from .files import STDIN

    return digest(inp.data) if task.path != STDIN and inp.data is not None else None


def _check(source: Any, options: CheckOptions) -> Any:
    """`pipeline.check_source`, without the warnings the `ignore` setting silences."""
    from . import pipeline
    from .suppress import without_ignored

    result = pipeline.check_source(source)
    result.diagnostics = without_ignored(result.diagnostics, options.ignore)
    return result


def _fix_file(task: Task, inp: Any, options: CheckOptions, report: FileReport, reporter: Any) -> Any:
    """`relay check --fix` (write the fixed file; standard input's goes to
    standard output) or `--diff` (the diff of the fixes on standard output)
    of one file: the check of the fixed text, or None if it could not be
    written."""
    from .files import STDIN, write_atomic
    from .fixes import fix_source
    from .formatter import unified_diff
    from .ir.span import Source

    outcome = fix_source(Source(inp.name, inp.text), lambda source: _check(source, options), options.unsafe_fixes)
    report.fixed = len(outcome.applied)
    if outcome.undone:
        reporter.message(
            f"warning: {inp.name}: a fix would have made a syntax error; the fixes from there on were not applied",
            "bold yellow",
        )
    if options.fix == "diff":
        if outcome.applied:
            report.out = unified_diff(inp.name, inp.text, outcome.text).replace(
                f"+++ {inp.name} (formatted)", f"+++ {inp.name} (fixed)", 1
            )
        return outcome.checked
    if task.path == STDIN:
        report.out = outcome.text
        return outcome.checked
    if outcome.applied:
        try:
            write_atomic(task.path, ("\ufeff" if inp.bom else "") + outcome.text)
        except OSError as exc:
            reporter.message(f"error: {task.path}: cannot write ({exc.strerror})", "bold red")
            report.io_error = True
            return None
        n = len(outcome.applied)
        reporter.message(f"fixed {n} problem{'' if n == 1 else 's'} in {inp.name}")
    return outcome.checked


def format_file(task: Task) -> FileReport:
    """`relay fmt` of one file: formats it and, unless only checking or
    showing a diff, writes it back (standard input goes to standard output)."""
    from .files import STDIN, InputError, write_atomic
    from .formatter import UnsafeFormat, format_source, save_failure, unified_diff
    from .ir.span import Source
    from .writing import WriteRefused, write_problem

    options: FmtOptions = task.options
    err = io.StringIO()
    reporter = _reporter(err, options.color)
    write_back = not (options.check_only or options.show_diff)

    def done(status: str, name: str, out: str = "", clean: str | None = None) -> FileReport:
        return FileReport(name, out=out, err=err.getvalue(), status=status, clean=clean)

    if write_back and task.path != STDIN:
        problem = write_problem(task.path)
        if problem is not None:
            reporter.message(f"error: {problem}", "bold red")
            return done("unwritten", task.path)
    try:
        inp = _read(task)
    except InputError as exc:
        reporter.message(f"error: {exc}", "bold red")
        return done("failed", task.path)
    text_digest = _digest(task, inp)
    if text_digest is not None and text_digest == task.known:  # formatted when last seen, and unchanged since
        return done("unchanged", inp.name, clean=text_digest)
    try:
        result = format_source(
            Source(inp.name, inp.lf_text),
            options.dialect,
            options.line_length,
            safe=options.safe,
            bind_operands=options.bind_operands,
        )
    except UnsafeFormat as exc:
        log = save_failure(inp.name, exc)
        reporter.message(
            f"error[internal-error]: {inp.name}: {exc.reason}; nothing was written. "
            f"Both texts are saved in {log} - please report this.",
            "bold red",
        )
        return done("failed", inp.name)
    if result.text is None:
        for diag in result.diagnostics:
            reporter.diagnostic(diag)
        reporter.message(f"error: cannot format {inp.name}", "bold red")
        return done("failed", inp.name)
    output = inp.restore(result.text)
    if output == inp.original:
        return done("unchanged", inp.name, output if task.path == STDIN and write_back else "", text_digest)
    out = ""
    if options.show_diff:
        out = unified_diff(inp.name, inp.text, inp.restore(result.text, bom=False))
    if options.check_only:
        reporter.message(f"would reformat {inp.name}")
    elif options.show_diff:
        pass
    elif task.path == STDIN:
        out = output
    else:
        try:
            write_atomic(task.path, output, inp, options.force)
        except WriteRefused as exc:
            reporter.message(f"error: {exc}", "bold red")
            return done("unwritten", inp.name)
        except OSError as exc:
            reporter.message(f"error: {task.path}: cannot write ({exc.strerror})", "bold red")
            return done("unwritten", inp.name)
        reporter.message(f"reformatted {inp.name}")
        if options.safe:  # (the written text passed the safety check: formatting it gives it back)
            from .cache import digest

            return done("changed", inp.name, out, digest(output.encode("utf-8")))
    return done("changed", inp.name, out)


@dataclass
class Totals:
    """Counts over the reports of a command."""

    files: int = 0
    errors: int = 0
    warnings: int = 0
    failed_files: int = 0
    io_errors: int = 0
    fixed: int = 0
    fixed_files: int = 0
    fixable: int = 0
    status: dict[str, int] = field(default_factory=lambda: {"changed": 0, "unchanged": 0, "failed": 0, "unwritten": 0})

    def add(self, report: FileReport) -> None:
        self.files += 1
        self.errors += report.errors
        self.warnings += report.warnings
        self.failed_files += 1 if report.errors else 0
        self.io_errors += 1 if report.io_error else 0
        self.fixed += report.fixed
        self.fixed_files += 1 if report.fixed else 0
        self.fixable += report.fixable
        if report.status:
            self.status[report.status] += 1
