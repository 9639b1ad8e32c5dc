"""`relay viz FILE`: draw a module's dataflow graph (HTML viewer, SVG, DOT)."""

from __future__ import annotations

import os

import click

from ..cli import EXIT_ERROR, EXIT_OK, color_option, emit, guarded

FORMATS = {".html": "html", ".htm": "html", ".svg": "svg", ".dot": "dot", ".gv": "dot"}
FOLDABLE = ("fn", "if", "match")


def _folds(text: str) -> list[str]:
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    if "all" in kinds:
        return list(FOLDABLE)
    if "none" in kinds:
        return []
    wrong = [k for k in kinds if k not in FOLDABLE]
    if wrong:
        raise click.BadParameter(
            f"unknown group kind `{wrong[0]}`: use fn, if, match, all or none", param_hint="--collapse"
        )
    return kinds


@click.command()
@click.argument("path")
@click.option(
    "-o",
    "--output",
    "output",
    metavar="FILE",
    help="Write to FILE: .html, .svg or .dot (`-`: standard output). [default: NAME.html here]",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["html", "svg", "dot"]),
    default=None,
    help="The output's format. [default: from FILE's extension, else html]",
)
@click.option(
    "--entry",
    metavar="@NAME",
    help=(
        "The function shown first (HTML) or alone (SVG, DOT). [default: @main, else the trailing expression; "
        "SVG and DOT: every function]"
    ),
)
@click.option(
    "--collapse",
    "collapse",
    metavar="KINDS",
    default="none",
    help="Groups drawn folded: a list of fn, if, match, or all, none.  [default: none]",
)
@click.option(
    "--edges",
    type=click.Choice(["orthogonal", "straight"]),
    default="orthogonal",
    show_default=True,
    help="Edges with right angles, or straight lines.",
)
@click.option("--open", "open_page", is_flag=True, help="Open what was written in a web browser.")
@click.option("--no-prelude", is_flag=True, help="Do not load the Prelude.")
@color_option
@guarded
def viz(
    path: str,
    output: str | None,
    fmt: str | None,
    entry: str | None,
    collapse: str,
    edges: str,
    open_page: bool,
    no_prelude: bool,
    color: str | None,
) -> int:
    """Draw the dataflow graph of a Relay file: an interactive page (pan,
    zoom, search, details of every node, folding groups), a static SVG, or
    Graphviz DOT."""
    from ..summary.cli import checked_file
    from . import VizError, find_entry, folded, graph_of, to_dot, to_html, to_svg

    kinds = _folds(collapse)
    if output is not None and output != "-":
        ext = os.path.splitext(output)[1].lower()
        guessed = FORMATS.get(ext)
        if fmt is None:
            if guessed is None:
                raise click.BadParameter(
                    f"cannot tell the format of `{output}` from its extension: use .html, .svg or .dot, or --format",
                    param_hint="-o",
                )
            fmt = guessed
        elif guessed is not None and guessed != fmt:
            raise click.BadParameter(f"`{output}` is named as {guessed}, but --format says {fmt}", param_hint="-o")
    fmt = fmt or "html"
    ctx, checked, status = checked_file(path, color, not no_prelude, "nothing was drawn")
    if checked is None:
        return status
    graph = graph_of(checked.module, checked.result)
    chosen: int | None = None
    if entry is not None:
        try:
            chosen = find_entry(graph, entry)
        except VizError as exc:
            ctx.reporter.message(f"error: {exc}", "bold red")
            return EXIT_ERROR
        graph.entry = chosen
    folds = folded(graph, kinds)
    orthogonal = edges == "orthogonal"
    if fmt == "html":
        text = to_html(graph, collapsed=folds, orthogonal=orthogonal)
    elif fmt == "svg":
        text = to_svg(graph, entry=chosen, collapsed=folds, orthogonal=orthogonal)
    else:
        text = to_dot(graph, entry=chosen)
    if output is None:
        if path == "-":
            output = "-"
        else:
            stem = os.path.splitext(os.path.basename(path))[0] or "graph"
            output = f"{stem}.{fmt}"
    if output == "-":
        emit(text)
        return EXIT_OK
    from ..writing import WriteRefused, write_output

    try:
        write_output(output, text.encode("utf-8"))
    except WriteRefused as exc:
        ctx.reporter.message(f"error: {exc}", "bold red")
        return EXIT_ERROR
    except OSError as exc:
        ctx.reporter.message(f"error: {output}: cannot write ({exc.strerror})", "bold red")
        return EXIT_ERROR
    shown = (
        graph.nodes if chosen is None or fmt == "html" else [n for n in graph.nodes if _top(graph, n.group) == chosen]
    )
    functions = len(graph.functions()) if chosen is None or fmt == "html" else 1
    ctx.reporter.message(
        f"wrote {output} ({len(shown):,} nodes in {functions} function{'s' if functions != 1 else ''})"
    )
    if open_page:
        import pathlib
        import webbrowser

        webbrowser.open(pathlib.Path(output).resolve().as_uri())
    return EXIT_OK


def _top(graph: object, gid: int) -> int:
    groups = graph.groups  # type: ignore[attr-defined]
    while groups[gid].parent >= 0:
        gid = groups[gid].parent
    return gid


__all__ = ["viz"]
