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
    from .formatter import UnsafeFormat, format_source, newline_style, save_failure, unified_diff, write_atomic
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
