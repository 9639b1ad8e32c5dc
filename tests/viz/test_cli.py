"""`relay viz` as a user runs it: the file it writes, its message, exit
0 / 1 (the file has errors) / 2 (usage, files)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from relay_text.cli import main
from tests.viz.helpers import PROGRAM


def viz(args: list[str], cwd: Path | None = None):
    runner = CliRunner()
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return runner.invoke(main, ["viz", *args], env={"NO_COLOR": "1"}, catch_exceptions=False)
    finally:
        os.chdir(old)


def write(tmp_path: Path, text: str = PROGRAM, name: str = "prog.rly") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_writes_a_page_named_after_the_file(tmp_path: Path) -> None:
    src = write(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    result = viz([src], cwd=out)
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == "wrote prog.html (18 nodes in 3 functions)\n"
    assert (out / "prog.html").read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize(
    "name, start", [("g.svg", "<?xml"), ("g.dot", "digraph"), ("g.gv", "digraph"), ("g.HTML", "<!DOCTYPE")]
)
def test_the_format_follows_the_extension(tmp_path: Path, name: str, start: str) -> None:
    result = viz([write(tmp_path), "-o", str(tmp_path / name)])
    assert result.exit_code == 0
    assert (tmp_path / name).read_text().startswith(start)


def test_standard_output(tmp_path: Path) -> None:
    result = viz([write(tmp_path), "-o", "-", "--format", "dot", "--entry", "@f"])
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout.startswith('digraph "') and result.stdout.count("subgraph") == 1


def test_entry_alone_in_svg(tmp_path: Path) -> None:
    result = viz([write(tmp_path), "-o", str(tmp_path / "g.svg"), "--entry", "g"])
    assert result.stderr == f"wrote {tmp_path / 'g.svg'} (6 nodes in 1 function)\n"


def test_unknown_entry(tmp_path: Path) -> None:
    result = viz([write(tmp_path), "--entry", "@mian"], cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr == "error: `@mian` is not a function of this file; did you mean `@main`?\n"
    assert not (tmp_path / "prog.html").exists()


def test_an_unknown_extension(tmp_path: Path) -> None:
    result = viz([write(tmp_path), "-o", str(tmp_path / "g.png")])
    assert result.exit_code == 2
    assert "cannot tell the format of" in result.stderr and "use .html, .svg or .dot, or --format" in result.stderr


def test_a_format_that_contradicts_the_extension(tmp_path: Path) -> None:
    result = viz([write(tmp_path), "-o", str(tmp_path / "g.svg"), "--format", "dot"])
    assert result.exit_code == 2 and "is named as svg, but --format says dot" in result.stderr
    assert not (tmp_path / "g.svg").exists()


def test_collapse_kinds(tmp_path: Path) -> None:
    svg = tmp_path / "g.svg"
    assert viz([write(tmp_path), "-o", str(svg), "--collapse", "if,match"]).exit_code == 0
    text = svg.read_text()
    assert "if ▸" in text and "match ▸" in text and "then" not in text
    wrong = viz([write(tmp_path), "-o", str(svg), "--collapse", "loop"])
    assert wrong.exit_code == 2 and "unknown group kind `loop`: use fn, if, match, all or none" in wrong.stderr


def test_a_file_with_errors_draws_nothing(tmp_path: Path) -> None:
    result = viz([write(tmp_path, "def @main(%x: int32) { %x + %y }\n")], cwd=tmp_path)
    assert result.exit_code == 1 and result.stdout == ""
    assert "error[unbound-variable]" in result.stderr
    assert result.stderr.endswith("Found 1 error; nothing was drawn\n")
    assert not (tmp_path / "prog.html").exists()


def test_a_missing_file(tmp_path: Path) -> None:
    result = viz([str(tmp_path / "nope.rly")])
    assert result.exit_code == 2 and "nope.rly" in result.stderr


def test_an_unwritable_output(tmp_path: Path) -> None:
    result = viz([write(tmp_path), "-o", str(tmp_path / "no" / "such" / "dir.html")])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {tmp_path / 'no' / 'such' / 'dir.html'}: cannot write (")


def test_standard_input(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["viz", "-", "--format", "svg"], input=PROGRAM, env={"NO_COLOR": "1"})
    assert result.exit_code == 0 and result.stdout.startswith("<?xml")


def test_help_lists_the_commands() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert "  summary " in result.stdout and "  viz " in result.stdout
