"""`relay explain CODE`: the registry's summary, explanation and example."""

from __future__ import annotations

from click.testing import CliRunner

from relay_text.cli import main
from relay_text.diagnostics.codes import REGISTRY


def explain(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, ["explain", *args], env=env or {"NO_COLOR": "1"}, catch_exceptions=False)


def test_a_code_is_explained_with_its_example() -> None:
    result = explain("unused-binding")
    assert result.exit_code == 0
    assert result.stderr == ""
    assert result.stdout == (
        "warning[unused-binding]: a graph binding is never used (it is kept as a statement)\n"
        "\n"
        "A graph binding `%n = e` that nothing refers to is evaluated for its effects\n"
        "only, as `e;` would be.\n"
        "\n"
        "Example:\n"
        "\n"
        "    %0 = add(%x, 1f);  %x\n"
    )


def test_the_code_as_diagnostics_print_it_works_too() -> None:
    assert explain("error[type-mismatch]").stdout == explain("type-mismatch").stdout


def test_an_unknown_code_gets_a_suggestion_and_exit_2() -> None:
    result = explain("unused-bindng")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "error: `unused-bindng` is not a diagnostic code; did you mean `unused-binding`?\n"
    far = explain("frobnicate")
    assert (far.exit_code, far.stderr) == (
        2,
        "error: `frobnicate` is not a diagnostic code; `relay explain` lists them\n",
    )


def test_without_a_code_every_code_is_listed_with_its_summary() -> None:
    result = explain()
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert len(lines) == len(REGISTRY)
    width = max(map(len, REGISTRY))
    for line, (name, code) in zip(lines, REGISTRY.items(), strict=False):
        assert line == f"{name:<{width}}  {code.severity:<7}  {code.summary}"


def test_every_code_can_be_explained() -> None:
    for name, code in REGISTRY.items():
        result = explain(name)
        assert result.exit_code == 0
        assert result.stdout.startswith(f"{code.severity}[{name}]: {code.summary}\n\n")
        assert (code.example == "") == ("Example:" not in result.stdout)


def test_colour_when_asked() -> None:
    assert "\x1b[" in explain("--color", "always", "type-mismatch").stdout
    assert "\x1b[" not in explain("--color", "never", "type-mismatch", env={"FORCE_COLOR": "1"}).stdout


def test_options_and_names_are_never_split_across_lines() -> None:
    """A reader copies `--max-memory` from the text: wrapping keeps each
    word whole, hyphens included, and no line passes 79 columns unless one
    word alone does."""
    text = explain("resource-limit").stdout
    assert "`relay run\n--max-memory`" in text
    for name in REGISTRY:
        lines = explain(name).stdout.split("\nExample:")[0].splitlines()
        for line in lines[2:]:
            assert not line.endswith("-") or line.endswith(" -"), (name, line)
            assert len(line) <= 79 or " " not in line.strip(), (name, line)
