"""`relay run`: check a Relay file, evaluate a function of it and print or
write the result, within the limits of memory, depth, time and output."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

import click

from .cli import (
    EXIT_ERROR,
    EXIT_FAIL,
    EXIT_OK,
    FILES,
    Context,
    OWNS_PROCESS,
    color_option,
    emit,
    guarded,
    warnings_options,
)
from .limits import RunTimeout
from .text.wording import counted


@click.command()
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
    help=(
        "Largest tensor (or operator result) the program may allocate, such as 512M or "
        "2G [default: half the machine's memory]."
    ),
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
    help=(
        "Most text (or JSON) the result may print, such as 64M or 1G [default: 64M on a terminal; "
        "to a file, its disk's free space; to a pipe, none]."
    ),
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
    help=(
        "Print each tensor as its shape, dtype, min, max, mean, std and NaN/inf counts.  "
        "[default: for tensors over 1,000 elements on a terminal]"
    ),
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
            reporter.message(f"Found {counted(ran.errors, 'error')}; nothing was run", "bold red")
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
    if too_large is not None and disk and output_limit is not None:
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
    return Deadline(seconds, report, name, hard=OWNS_PROCESS[0])


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
            (
                f"({counted(summarised, 'large tensor')} summarised; --full prints every "
                f"element, --no-summary numpy's layout)"
            ),
            "dim",
        )
    return EXIT_OK
