"""An MkDocs hook: the diagnostics reference is written from the code registry.

`docs/diagnostics.md` holds the text around the reference and the marker
line below; at build time the marker becomes one section per code of
`relay_text/diagnostics/codes.py` (its severity, summary, explanation and
example: what `relay explain CODE` prints), so the site cannot disagree
with the registry. `reference()` is the generated text, which the link
test of tests/docs reads too.
"""

from __future__ import annotations

from typing import Any

MARKER = "<!-- generated: the diagnostic codes -->"


def reference() -> str:
    """A table of every code, then a section per code, in the registry's order."""
    from relay_text.diagnostics.codes import REGISTRY

    lines = ["| code | severity | summary |", "|---|---|---|"]
    for name, code in REGISTRY.items():
        lines.append(f"| [`{name}`](#{name}) | {code.severity} | {_cell(code.summary)} |")
    for name, code in REGISTRY.items():
        lines += ["", f"## `{name}`", "", f"*{code.severity}*: {code.summary}", "", code.explanation]
        if code.example:
            # An example is a fragment of Relay text or a command line.
            language = "text" if code.example.startswith("relay ") else "relay"
            lines += ["", "Example:", "", f"```{language}", code.example, "```"]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    if page.file.src_uri == "diagnostics.md":
        if MARKER not in markdown:
            raise ValueError(f"docs/diagnostics.md lost its marker line {MARKER!r}")
        return markdown.replace(MARKER, reference())
    return markdown
