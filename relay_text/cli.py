"""The `relay` command: its flags, declared with click, and the commands
that live here (check, fmt, lsp); `commands` holds what they do.

`launch` runs the common invocations of `relay check` and `relay fmt`
without importing this module (click's import is a good part of a small
file's check); any other goes through `main` below.
"""

from __future__ import annotations

import functools
import sys
from typing import Any
from collections.abc import Callable

import click

from . import __version__, commands
from .commands import (  # (the commands of other packages import these from here)
    BLAS_IDLE,
    EXIT_ERROR,
    EXIT_FAIL,
    EXIT_OK,
    OWNS_PROCESS,
    Context,
    emit,
)

__all__ = [
    "BLAS_IDLE",
    "EXIT_ERROR",
    "EXIT_FAIL",
    "EXIT_OK",
    "FILES",
    "OWNS_PROCESS",
    "Context",
    "color_option",
    "emit",
    "guarded",
    "main",
    "warnings_options",
]


def guarded(command: Callable[..., int]) -> Callable[..., None]:
    """A click command's body run by `commands.run_guarded`: its return
    value is the exit code, and an unexpected exception one line (with the
    hidden --debug flag, the traceback)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        debug = kwargs.pop("debug", False)
        commands.run_guarded(lambda: command(*args, **kwargs), debug, (click.exceptions.Exit, click.ClickException))

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


def cache_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--cache/--no-cache",
        "use_cache",
        default=True,
        help=(
            "Skip files unchanged since an earlier run with the same settings found them clean (check) or "
            "formatted (fmt); RELAY_NO_CACHE=1 also turns this off.  [default: --cache]"
        ),
    )(command)


# Paths, completed as file names by the shell (`_RELAY_COMPLETE=bash_source
# relay`, see docs/getting-started.md); nothing is checked here: reading reports problems.
FILES = click.Path()


class _Commands(click.Group):
    """The command group: the commands of this module, plus those that live
    in the package of their stage (`relay import` in `frontends/`, ...),
    named in `STAGE_COMMANDS` and imported only when they are used or
    listed, so that `relay check` does not pay for importing them."""

    def main(self, args: Any = None, *rest: Any, **kwargs: Any) -> Any:
        # Called without arguments, the group reads sys.argv: it is the
        # `relay` command, owning its process (CliRunner passes arguments).
        commands.start(owns_process=args is None)
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
@cache_option
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
    use_cache: bool,
    color: str | None,
) -> int:
    """Parse and type-check Relay files (`-` reads stdin; directories are searched for *.rly, *.relay)."""
    return commands.check(**locals())  # (the parameters, as click read them)


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
@cache_option
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
    use_cache: bool,
    color: str | None,
) -> int:
    """Format Relay files in place (`-` formats stdin to stdout; directories
    are searched for *.rly, *.relay). Settings come from [tool.relay] in the
    nearest pyproject.toml unless given here."""
    return commands.fmt(**locals())


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
