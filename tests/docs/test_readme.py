"""The README: its first block holds the two commands a newcomer runs on a
fresh machine (install and run a sample; install and run the tests), and
what it shows the commands print is what they print."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from relay_text.cli import main
from tests.conftest import ROOT
from tests.docs.pages import DOCS, README

FIRST_BLOCK = (
    "```sh\n"
    "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/relay run samples/tour.rly\n"
    'python3 -m venv .venv && .venv/bin/pip install -e ".[test]" && .venv/bin/python -m pytest\n'
    "```\n"
)


def invoke(args: list[str]):
    return CliRunner().invoke(main, args, env={"NO_COLOR": "1"}, catch_exceptions=False)


def shown(page: str, command: str) -> str:
    """What a page shows after `$ command`, up to the next `$ ` line or the block's end."""
    start = page.index(f"$ {command}\n") + len(f"$ {command}\n")
    block = page[start : page.index("```", start)]
    return re.split(r"^\$ ", block, flags=re.M)[0]


def test_the_readme_starts_with_the_two_commands() -> None:
    """They are the README's first block, before any section, as written here."""
    readme = README.read_text(encoding="utf-8")
    first = readme.index("```")
    assert readme[first:].startswith(FIRST_BLOCK)
    assert "\n## " not in readme[:first] and readme[:first].count("\n") <= 4


def test_the_tour_prints_what_the_readme_says(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = invoke(["run", "samples/tour.rly"])
    readme = README.read_text(encoding="utf-8")
    assert result.exit_code == 0
    assert f"\n    {result.stdout}" in readme
    assert f"\n    {result.stdout}" in (DOCS / "getting-started.md").read_text(encoding="utf-8")


def test_the_readme_examples_print_what_it_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    readme = README.read_text(encoding="utf-8")
    check = invoke(["check", "samples/errors/global_missing_sigil.rly"])
    assert check.exit_code == 1
    assert check.stderr.startswith(shown(readme, "relay check samples/errors/global_missing_sigil.rly").rstrip("\n"))
    run = invoke(["run", "samples/list_folds.rly"])
    assert run.stdout == shown(readme, "relay run samples/list_folds.rly")


def test_the_getting_started_walk_through(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command of docs/getting-started.md's walk-through, on the files it shows, prints what it shows."""
    page = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    walk = page[page.index("## Check, fix, run, format") :]
    blocks = re.findall(r"```relay\n(.*?)```", walk, re.S)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sum.rly").write_text(blocks[0])
    (tmp_path / "tidy.rly").write_text(shown(walk, "cat tidy.rly"))

    def output(command: str) -> str:
        result = invoke(command.split()[1:])
        return result.stdout + result.stderr

    def lines(text: str) -> list[str]:
        return [line.rstrip() for line in text.splitlines()]

    for command in [
        "relay check sum.rly",
        "relay check --diff sum.rly",
        "relay check --fix sum.rly",
        "relay run sum.rly",
    ]:
        assert lines(output(command)) == lines(shown(walk, command)), command
    assert "if (%n == 0) { 0 } else { %n + @sum_to(%n - 1) }" in (tmp_path / "sum.rly").read_text()
    assert output("relay fmt tidy.rly") == shown(walk, "relay fmt tidy.rly")
    after = walk[walk.index("$ relay fmt tidy.rly") :]
    assert (tmp_path / "tidy.rly").read_text() == shown(after, "cat tidy.rly")
