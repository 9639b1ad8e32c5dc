"""`relay summary FILE`: per function, its calls with their outputs, its
weights and its multiply-accumulates, as a table or as JSON."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..cli import EXIT_ERROR, EXIT_FAIL, EXIT_OK, Context, color_option, emit, guarded
from ..text.wording import counted


def checked_file(path: str, color: str | None, use_prelude: bool, what: str) -> tuple[Context, Any, int]:
    """Read and check one file for a command that needs a correct program:
    the command's context, the `pipeline.Checked` result (None if it
    cannot go on) and the exit status to end with then. Diagnostics are
    reported on standard error; `what` ends the message of a file with
    errors ("nothing was drawn")."""
    from ..files import InputError, read
    from ..ir.span import Source
    from ..pipeline import check_source

    ctx = Context([path], color)
    if not ctx.start():
        return ctx, None, EXIT_ERROR
    try:
        inp = read(path)
    except InputError as exc:
        ctx.reporter.message(f"error: {exc}", "bold red")
        return ctx, None, EXIT_ERROR
    checked = check_source(Source(inp.name, inp.text), use_prelude=use_prelude)
    for diag in checked.diagnostics:
        ctx.reporter.diagnostic(diag)
    if not checked.ok or checked.module is None or checked.result is None:
        ctx.reporter.message(f"Found {counted(checked.errors, 'error')}; {what}", "bold red")
        return ctx, None, EXIT_FAIL
    return ctx, checked, EXIT_OK


def _names(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [n.strip().lstrip("%") for n in text.split(",") if n.strip()]


@click.command()
@click.argument("path")
@click.option("--entry", metavar="@NAME", help="Summarise this function only (default: every function).")
@click.option(
    "--group", is_flag=True, help="One row per operator (calls, weights, MACs, share of MACs) instead of one per call."
)
@click.option(
    "--inputs",
    "inputs",
    metavar="NAMES",
    help=(
        "The parameters that are inputs (`data,hidden0`); every other tensor parameter is a weight. [default: "
        "told apart by how they are used]"
    ),
)
@click.option(
    "--output-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: tables; json: one JSON object (relay_text/schemas/summary.schema.json).",
)
@click.option("--no-prelude", is_flag=True, help="Do not load the Prelude.")
@color_option
@guarded
def summary(
    path: str,
    entry: str | None,
    group: bool,
    inputs: str | None,
    output_format: str,
    no_prelude: bool,
    color: str | None,
) -> int:
    """Per function: every call in order (or grouped by operator) with its
    output's shape and dtype, the weights (count and bytes) and the
    multiply-accumulates of convolutions and matrix products, with totals."""
    from .count import module_summary
    from .render import print_text, summary_json

    ctx, checked, status = checked_file(path, color, not no_prelude, "nothing was counted")
    if checked is None:
        return status
    try:
        result = checked.result
        summaries = module_summary(checked.module, result.types.get, entry, _names(inputs), result.global_types)
    except KeyError:
        from ..text.suggest import close_names, or_list

        names = ["@" + gv.name for gv in checked.module.functions]
        want = entry if entry and entry.startswith("@") else f"@{entry}"
        guesses = close_names(want, names)
        hint = (
            f"; did you mean {or_list([f'`{g}`' for g in guesses])}?"
            if guesses
            else (f"; it defines {', '.join(names)}" if names else "")
        )
        ctx.reporter.message(f"error: `{want}` is not a function of {checked.source.name}{hint}", "bold red")
        return EXIT_ERROR
    if output_format == "json":
        import json

        emit(json.dumps(summary_json(checked.source.name, summaries), indent=2) + "\n")
        return EXIT_OK
    if not summaries:
        emit("This file defines no functions: there is nothing to count.\n")
        return EXIT_OK
    import io

    from rich.console import Console

    from ..diagnostics.render import use_color

    # Rendered into a buffer, then written with `emit`: a reader that stops
    # early (`| head`) ends the command quietly, as for every command.
    colored = use_color(sys.stdout, color, ctx.settings.get("color"))
    buffer = io.StringIO()
    console = Console(file=buffer, highlight=False, force_terminal=colored, no_color=not colored, width=_width())
    print_text(console, summaries, group)
    emit(buffer.getvalue())
    return EXIT_OK


def _width() -> int:
    """The terminal's width, or wide enough for the table when writing to a file or pipe."""
    import shutil

    return shutil.get_terminal_size((160, 24)).columns if sys.stdout.isatty() else 160
