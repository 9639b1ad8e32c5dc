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


if __name__ == "__main__":  # pragma: no cover
    main()
