"""`relay explain`: what a diagnostic code means, with an example; without
a code, every code with its severity and summary."""

from __future__ import annotations

import sys
from typing import Any

import click

from .cli import EXIT_ERROR, EXIT_OK, color_option, guarded


def _complete_code(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """`relay explain <TAB>`: the diagnostic codes, with their summaries."""
    from click.shell_completion import CompletionItem

    from .diagnostics.codes import REGISTRY

    return [CompletionItem(name, help=entry.summary) for name, entry in REGISTRY.items() if name.startswith(incomplete)]


@click.command()
@click.argument("code", required=False, shell_complete=_complete_code)
@color_option
@guarded
def explain(code: str | None, color: str | None) -> int:
    """Explain a diagnostic code (`relay explain unused-binding`); without
    one, list every code with its summary."""
    import textwrap

    from .diagnostics.codes import REGISTRY
    from .diagnostics.render import Reporter, use_color
    from .text.suggest import close_names, or_list

    out = Reporter(sys.stdout, color=use_color(sys.stdout, color))
    if code is None:
        width = max(len(name) for name in REGISTRY)
        for name, entry in REGISTRY.items():
            out.message(f"{name:<{width}}  {entry.severity:<7}  {entry.summary}")
        return EXIT_OK
    name = code.strip()
    if "[" in name and name.endswith("]"):  # `error[unused-binding]`, as printed
        name = name[name.index("[") + 1 : -1]
    found = REGISTRY.get(name)
    if found is None:
        err = Reporter(sys.stderr, color=use_color(sys.stderr, color))
        guesses = close_names(name, REGISTRY)
        hint = f"; did you mean {or_list([f'`{g}`' for g in guesses])}?" if guesses else "; `relay explain` lists them"
        err.message(f"error: `{code}` is not a diagnostic code{hint}", "bold red")
        return EXIT_ERROR
    entry = found
    style = "bold red" if entry.severity == "error" else "bold yellow"
    out.message(f"{entry.severity}[{entry}]: {entry.summary}", style)
    out.message("")
    # Options and names (`--max-memory`, `meta[relay.Constant]`) are never
    # split across lines: a reader copies them.
    wrap = textwrap.TextWrapper(width=79, break_on_hyphens=False, break_long_words=False)
    out.message(wrap.fill(entry.explanation))
    if entry.warning_when:
        out.message(wrap.fill(f"A warning, not an error, when {entry.warning_when}."))
    if entry.example:
        out.message("")
        out.message("Example:", "bold")
        out.message("")
        out.message(textwrap.indent(entry.example, "    "))
    return EXIT_OK
