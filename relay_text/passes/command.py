"""`relay opt`: run passes over a file and print the program they give."""

from __future__ import annotations

import json
import sys
import textwrap

import click

from ..cli import EXIT_ERROR, EXIT_FAIL, EXIT_OK, Context, color_option, emit, guarded
from .registry import Pass


@click.command("opt")
@click.argument("path", required=False)
@click.option(
    "--passes",
    "passes",
    metavar="A,B{opt=value},C",
    help="The passes to run, in order (`relay opt --list` lists them).",
)
@click.option(
    "-o", "--output", "output_path", metavar="FILE", help="Write the program to FILE instead of standard output."
)
@click.option(
    "--entry", metavar="@NAME", help="The function a whole-function pass such as `gradient` works on [default: @main]."
)
@click.option(
    "--dialect",
    type=click.Choice(["keep", "docs", "tvm"]),
    default="keep",
    show_default=True,
    help="keep: the file's own dialect; docs: the documented syntax; tvm: TVM's 0.0.5 format.",
)
@click.option("--line-length", type=click.IntRange(min=1), default=None, help="Columns to fit code in.  [default: 100]")
@click.option(
    "--output-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: the program on stdout, diagnostics on stderr; json: one JSON object on stdout.",
)
@click.option("--list", "list_passes", is_flag=True, help="List the passes with their options and stop.")
@color_option
@guarded
def opt(
    path: str | None,
    passes: str | None,
    output_path: str | None,
    entry: str | None,
    dialect: str,
    line_length: int | None,
    output_format: str,
    list_passes: bool,
    color: str | None,
) -> int:
    """Transform a Relay file with TVM's passes (`-` reads stdin) and print the result."""
    from .registry import PipelineError, all_passes, parse_pipeline

    if list_passes:
        emit(_listing(all_passes()))
        return EXIT_OK
    if path is None:
        raise click.UsageError("give a file (or `-` for standard input), or --list")
    if not passes:
        raise click.UsageError(
            "--passes is required: e.g. --passes InferType,FoldConstant (`relay opt --list` lists them)"
        )
    try:
        steps = parse_pipeline(passes)
    except PipelineError as exc:
        raise click.BadParameter(exc.message + (f"; {exc.help}" if exc.help else ""), param_hint="--passes") from None
    ctx = Context([path], color)
    if not ctx.start():
        return EXIT_ERROR
    reporter = ctx.reporter
    from ..files import InputError, read
    from ..ir.span import Source
    from .pipeline import optimize_source

    try:
        inp = read(path)
    except InputError as exc:
        reporter.message(f"error: {exc}", "bold red")
        return EXIT_ERROR
    width = line_length or ctx.settings.get("line_length", 100)
    result = optimize_source(Source(inp.name, inp.text), steps, dialect, entry, width)
    if output_format == "json":
        from ..diagnostics.render import diagnostic_json

        document = {
            "program": result.text,
            "diagnostics": [diagnostic_json(d) for d in result.diagnostics],
            "passes": [{"name": name, "seconds": round(seconds, 6)} for name, seconds in result.timings],
        }
        if result.text is not None and output_path:
            if not _write(output_path, result.text, reporter):
                return EXIT_ERROR
            document["program"] = None
            document["output"] = output_path
        emit(json.dumps(document, indent=2) + "\n")
        return EXIT_OK if result.ok else EXIT_FAIL
    for diag in result.diagnostics:
        reporter.diagnostic(diag)
    if not result.ok:
        errors = sum(1 for d in result.diagnostics if d.is_error)
        reporter.message(f"Found {errors} error{'s' if errors != 1 else ''}; nothing was written", "bold red")
        return EXIT_FAIL
    assert result.text is not None
    if output_path:
        return EXIT_OK if _write(output_path, result.text, reporter) else EXIT_ERROR
    emit(result.text)
    return EXIT_OK


def _write(path: str, text: str, reporter: object) -> bool:
    from ..writing import WriteRefused, write_output

    try:
        write_output(path, text.encode("utf-8"))
    except WriteRefused as exc:
        reporter.message(f"error: {exc}", "bold red")  # type: ignore[attr-defined]
        return False
    except OSError as exc:
        reporter.message(f"error: {path}: cannot write ({exc.strerror})", "bold red")  # type: ignore[attr-defined]
        return False
    return True


def _listing(passes: list[Pass]) -> str:
    width = max(len(p.name) for p in passes)
    lines = []
    for p in passes:
        lines.append(f"{p.name:<{width}}  {p.summary}")
        for option in p.options:
            doc = textwrap.shorten(option.doc, 90)
            lines.append(f"{'':<{width}}    {option.describe()}  {doc}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(opt())
