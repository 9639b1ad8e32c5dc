"""Every option of every command is documented: named on the command's
page, or elsewhere in docs/ (a setting's page, another topic's page)."""

from __future__ import annotations

import re

import click
import pytest

from relay_text.cli import main
from tests.docs.pages import DOCS

CONTEXT = click.Context(main)


def options(name: str) -> list[str]:
    command = main.get_command(CONTEXT, name)
    assert command is not None
    found = []
    for param in command.params:
        if isinstance(param, click.Option):
            found += [o for o in param.opts + param.secondary_opts if o.startswith("--") and o != "--help"]
    return found


@pytest.mark.parametrize("name", main.list_commands(CONTEXT))
def test_every_option_is_documented(name: str) -> None:
    page = DOCS / "commands" / f"{name}.md"
    assert page.is_file(), f"no page docs/commands/{name}.md"
    everywhere = "\n".join(p.read_text(encoding="utf-8") for p in DOCS.rglob("*.md"))
    assert f"relay {name}" in page.read_text(encoding="utf-8")
    assert [o for o in options(name) if not re.search(re.escape(o) + r"(?![\w-])", everywhere)] == []
