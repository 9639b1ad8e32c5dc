"""The `relay` command: thin wrappers that parse flags and call the library.

Exit codes: 0 success, 1 the input has errors (or would be reformatted),
2 usage, input/output or internal errors, 130 interrupted.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import traceback
from typing import Any, Callable

import click

from . import __version__

EXIT_OK, EXIT_FAIL, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def guarded(command: Callable[..., int]) -> Callable[..., None]:
    """Run a command body; turn its return value into the exit code, and any
    unexpected exception into one line (the traceback only with --debug or
    RELAY_DEBUG=1), so that a user never sees a Python traceback."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        debug = kwargs.pop("debug", False) or bool(os.environ.get("RELAY_DEBUG"))
        try:
            code = command(*args, **kwargs)
        except KeyboardInterrupt:
            sys.stderr.write("interrupted\n")
            sys.exit(EXIT_INTERRUPTED)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except BaseException as exc:  # noqa: BLE001 - the last line of defence
            if debug:
                traceback.print_exc()
            sys.stderr.write(f"internal error: {type(exc).__name__}: {exc}\n")
            sys.stderr.write("this is a bug in relay-text; please report it with the input that caused it\n")
            if not debug:
                sys.stderr.write("(run with --debug or RELAY_DEBUG=1 to see the traceback)\n")
            sys.exit(EXIT_ERROR)
        sys.exit(code)

    return click.option("--debug", is_flag=True, hidden=True, help="Show tracebacks of internal errors.")(wrapper)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="relay")
def main() -> None:
    """Tools for the Relay IR text format: check, format and run programs."""


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--output-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: diagnostics on stderr; json: one JSON object on stdout.",
)
@click.option("--types", "show_types", is_flag=True, help="Print every global with its type.")
@guarded
def check(paths: tuple[str, ...], output_format: str, show_types: bool) -> int:
    """Parse and type-check Relay files (`-` reads stdin; directories are searched for *.rly, *.relay)."""
    from .diagnostics.render import Reporter, diagnostic_json
    from .files import InputError, collect, read
    from .ir.span import Source
    from .pipeline import check_source

    reporter = Reporter(sys.stderr)
    files = collect(list(paths))
    io_failed = False
    errors = warnings = 0
    failed_files = 0
    all_diags: list = []
    all_globals: dict[str, Any] = {}
    for path in files:
        try:
            inp = read(path)
        except InputError as exc:
            reporter.message(f"error: {exc}", "bold red")
            io_failed = True
            continue
        result = check_source(Source(inp.name, inp.text))
        errors += result.errors
        warnings += result.warnings
        failed_files += 1 if result.errors else 0
        if output_format == "json":
            all_diags.extend(diagnostic_json(d) for d in result.diagnostics)
            for name, ty in result.global_types.items():
                all_globals.setdefault(name, ty)
            continue
        for diag in result.diagnostics:
            reporter.diagnostic(diag)
        if show_types:
            for name, ty in result.global_types.items():
                click.echo(f"{name} : {ty if ty is not None else '?'}")
    if output_format == "json":
        click.echo(json.dumps({"diagnostics": all_diags, "globals": all_globals}, indent=2))
    checked = len(files) - (1 if io_failed else 0)
    if errors:
        tail = f" and {_plural(warnings, 'warning')}" if warnings else ""
        reporter.message(f"Found {_plural(errors, 'error')}{tail} in {_plural(failed_files, 'file')}", "bold red")
    elif not io_failed:
        tail = f" ({_plural(warnings, 'warning')})" if warnings else ""
        reporter.message(f"No errors in {_plural(len(files), 'file')}{tail}", "bold green")
    del checked
    if io_failed:
        return EXIT_ERROR
    return EXIT_FAIL if errors else EXIT_OK


@main.command()
@click.argument("path")
@click.option("--entry", metavar="@NAME", help="Function to run (default: the file's trailing expression, else @main).")
@click.option("--arg", "arg_texts", multiple=True, metavar="NAME=VALUE", help="An argument: Relay text such as 3, (1, 2), Cons(1, Nil()), or @file.npy.")
@click.option("--args", "args_file", metavar="FILE.npz", help="Arguments from an .npz file whose keys are parameter names.")
@click.option("--random-args", is_flag=True, help="Fill every parameter without a value with random data of its type.")
@click.option("--random-consts", is_flag=True, help="Fill meta[relay.Constant][i] that have no data with random values of their inferred types.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for --random-args and --random-consts.")
@click.option("--max-depth", type=click.IntRange(min=1), default=None, metavar="N", help="Most nested calls allowed [default: 2,000,000].")
@click.option("--no-prelude", is_flag=True, help="Do not load the Prelude (List, Optional, map, foldl, ...).")
@click.option(
    "--output-format",
    type=click.Choice(["text", "json", "npz"]),
    default="text",
    show_default=True,
    help="text: Relay-style value; json: one JSON value; npz: the result's tensors (needs --output).",
)
@click.option("--output", "output_path", metavar="FILE", help="Write the result to FILE instead of stdout.")
@click.option("--full", is_flag=True, help="Print every element of large tensors.")
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
    no_prelude: bool,
    output_format: str,
    output_path: str | None,
    full: bool,
) -> int:
    """Type-check a Relay file, then evaluate @main (or --entry) and print the result."""
    from .diagnostics.render import Reporter
    from .eval.entry import RunRequest
    from .eval.runtime import DEFAULT_MAX_DEPTH
    from .files import InputError, read
    from .ir.span import Source
    from .pipeline import run_source

    reporter = Reporter(sys.stderr)
    if output_format == "npz" and not output_path:
        raise click.UsageError("--output-format npz needs --output FILE")
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
    request = RunRequest(
        entry=entry,
        arg_texts=pairs,
        args_file=args_file,
        random_args=random_args,
        random_consts=random_consts,
        seed=seed,
        max_depth=max_depth or DEFAULT_MAX_DEPTH,
    )
    ran = run_source(Source(inp.name, inp.text), request, use_prelude=not no_prelude)
    for diag in ran.diagnostics:
        reporter.diagnostic(diag)
    if not ran.ok:
        if ran.started:
            reporter.message("The program stopped with an error", "bold red")
        else:
            reporter.message(f"Found {_plural(ran.errors, 'error')}; nothing was run", "bold red")
        return EXIT_FAIL
    return _write_result(ran.value, output_format, output_path, full, reporter)


def _write_result(value: Any, output_format: str, output_path: str | None, full: bool, reporter: Any) -> int:
    from .eval.show import check_json_size, flatten_tensors, value_text, write_value_json

    if output_format == "npz":
        import numpy as np

        try:
            arrays = flatten_tensors(value)
        except ValueError as exc:
            reporter.message(f"error: cannot write the result as .npz: {exc}", "bold red")
            return EXIT_ERROR
        try:
            with open(output_path, "wb") as fh:  # type: ignore[arg-type]
                np.savez(fh, **arrays)
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
        stream = sys.stdout
        write_value_json(value, stream.write)
        stream.write("\n")
        stream.flush()
        return EXIT_OK
    try:
        text = value_text(value, full=full)
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
    click.echo(text)
    return EXIT_OK


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--check", "check_only", is_flag=True, help="Write nothing; list files that would change and exit 1 if any.")
@click.option("--diff", "show_diff", is_flag=True, help="Write nothing; print a unified diff of the changes and exit 1 if any.")
@click.option("--line-length", type=click.IntRange(min=1), default=None, help="Columns to fit code in.  [default: 100]")
@click.option(
    "--dialect",
    type=click.Choice(["keep", "docs", "tvm"]),
    default=None,
    help="keep: each file's own dialect; docs: the documented syntax; tvm: TVM's 0.0.5 format.  [default: keep]",
)
@click.option("--fast", is_flag=True, help="Skip the safety checks (re-parse and compare, format twice).")
@guarded
def fmt(paths: tuple[str, ...], check_only: bool, show_diff: bool, line_length: int | None, dialect: str | None, fast: bool) -> int:
    """Format Relay files in place (`-` formats stdin to stdout; directories
    are searched for *.rly, *.relay). Settings come from [tool.relay] in the
    nearest pyproject.toml unless given here."""
    from .config import ConfigError, find_pyproject, fmt_settings, load
    from .diagnostics.render import Reporter
    from .files import InputError, collect, read
    from .formatter import (
        UnsafeFormat,
        format_source,
        newline_style,
        save_failure,
        unified_diff,
        write_atomic,
    )
    from .ir.span import Source

    reporter = Reporter(sys.stderr)
    settings: dict[str, Any] = {}
    pyproject = find_pyproject(list(paths))
    if pyproject is not None:
        try:
            settings = fmt_settings(load(pyproject), pyproject)
        except ConfigError as exc:
            reporter.message(f"error: {exc}", "bold red")
            return EXIT_ERROR
    if line_length is None:
        line_length = settings.get("line_length", 100)
    if dialect is None:
        dialect = settings.get("dialect", "keep")
    write_back = not (check_only or show_diff)
    changed = unchanged = failed = 0
    for path in collect(list(paths)):
        try:
            inp = read(path)
        except InputError as exc:
            reporter.message(f"error: {exc}", "bold red")
            failed += 1
            continue
        newline = newline_style(inp.text)
        text = inp.text.replace("\r\n", "\n") if newline == "\r\n" else inp.text
        try:
            result = format_source(Source(inp.name, text), dialect, line_length, safe=not fast)
        except UnsafeFormat as exc:
            log = save_failure(inp.name, exc)
            reporter.message(
                f"error[internal-error]: {inp.name}: {exc.reason}; nothing was written. "
                f"Both texts are saved in {log} - please report this.",
                "bold red",
            )
            failed += 1
            continue
        if result.text is None:
            for diag in result.diagnostics:
                reporter.diagnostic(diag)
            reporter.message(f"error: cannot format {inp.name}", "bold red")
            failed += 1
            continue
        output = result.text.replace("\n", "\r\n") if newline == "\r\n" else result.text
        if output == inp.text:
            unchanged += 1
            if path == "-" and write_back:
                click.echo(output, nl=False)
            continue
        changed += 1
        if show_diff:
            click.echo(unified_diff(inp.name, inp.text, output), nl=False)
        if check_only:
            reporter.message(f"would reformat {inp.name}")
        elif show_diff:
            pass
        elif path == "-":
            click.echo(output, nl=False)
        else:
            try:
                write_atomic(path, output)
            except OSError as exc:
                reporter.message(f"error: {path}: cannot write ({exc.strerror})", "bold red")
                changed -= 1
                failed += 1
                continue
            reporter.message(f"reformatted {inp.name}")
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


if __name__ == "__main__":  # pragma: no cover
    main()
