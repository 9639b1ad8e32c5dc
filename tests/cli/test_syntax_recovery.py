"""Every independent syntax error of a file is reported (the parser reads
on after the next `;`, `}` or top-level definition), each with a help line
for the common slips."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from relay_text.cli import main

THREE = """\
def @f(%x : int32) {
  if (%x = 1) { 2 } else { 3 }
}

def @g() {
  let x = 1;
  x
}

def h(%a) { %a }
"""


def check(path: Path, *options: str):
    return CliRunner().invoke(main, ["check", *options, str(path)], env={"NO_COLOR": "1"}, catch_exceptions=False)


def test_three_independent_errors_get_three_located_diagnostics(tmp_path: Path) -> None:
    path = tmp_path / "three.rly"
    path.write_text(THREE)
    result = check(path)
    assert result.exit_code == 1
    assert result.stderr == (
        "error[syntax-error]: expected an operator, `)`, `<`, `(` or a projection (`.0`), found `=`\n"
        f" --> {path}:2:10\n"
        "  |\n"
        "2 |   if (%x = 1) { 2 } else { 3 }\n"
        "  |          ^ unexpected token\n"
        "  |\n"
        "  = help: to compare, write `==`; `=` only binds (`let %x = ...`, `%0 = ...`)\n"
        "\n"
        "error[syntax-error]: expected a local variable (`%x`), found `x`\n"
        f" --> {path}:6:7\n"
        "  |\n"
        "6 |   let x = 1;\n"
        "  |       ^ unexpected token\n"
        "  |\n"
        "  = help: local variables start with `%`: `%x`\n"
        "\n"
        "error[syntax-error]: expected a global (`@f`), found `h`\n"
        f"  --> {path}:10:5\n"
        "   |\n"
        "10 | def h(%a) { %a }\n"
        "   |     ^ unexpected token\n"
        "   |\n"
        "   = help: global functions start with `@`: `@h`\n"
        "\n"
        "Found 3 errors in 1 file (3 fixable with `relay check --fix`)\n"
    )
    data = json.loads(check(path, "--output-format", "json").stdout)
    assert [(d["code"], d["line"], d["column"]) for d in data["diagnostics"]] == [
        ("syntax-error", 2, 10),
        ("syntax-error", 6, 7),
        ("syntax-error", 10, 5),
    ]


@pytest.mark.parametrize(
    "text, where, help_line",
    [
        # (the caret is where the `;` is missing, at the end of the line)
        ("def @main() {\n  let %x = 1\n  let %y = 2;\n  %y\n}\n", "2:13", "add the missing `;`"),
        ("def @main() {\n  let %x = 1\n  %x\n}\n", "2:13", "add the missing `;`"),
        (
            "def @main(%x : int32) {\n  return %x;\n}\n",
            "2:10",
            "Relay has no `return`: a function's value is the last expression of its body",
        ),
        ("def @main(x : int32) { 1 }\n", "1:11", "local variables start with `%`: `%x`"),
        ("def @main(%x : int32) {\n  %x = 1\n}\n", "3:1", None),  # a graph binding needs a body after it
        (
            "def @main(%x : int32) { if (%x = 0) { 1 } else { 2 } }\n",
            "1:32",
            "to compare, write `==`; `=` only binds (`let %x = ...`, `%0 = ...`)",
        ),
    ],
    ids=["missing-semicolon-let", "missing-semicolon-body", "return", "missing-percent", "graph-binding", "equals"],
)
def test_help_lines_for_common_slips(tmp_path: Path, text: str, where: str, help_line: str | None) -> None:
    path = tmp_path / "slip.rly"
    path.write_text(text)
    result = check(path)
    assert result.exit_code == 1
    assert f" --> {path}:{where}\n" in result.stderr
    if help_line is not None:
        assert f"= help: {help_line}\n" in result.stderr
    assert result.stderr.count("error[syntax-error]") == 1


def test_an_error_right_after_another_is_not_reported_twice(tmp_path: Path) -> None:
    path = tmp_path / "cascade.rly"
    path.write_text("def @main() {\n  let %x = (1, 2;\n  %x\n}\n")
    result = check(path)
    assert result.stderr.count("error[syntax-error]") == 1


def test_errors_in_many_definitions_are_all_found(tmp_path: Path) -> None:
    path = tmp_path / "many.rly"
    path.write_text("".join(f"def @f{i}() {{ let %x = ; %x }}\n" for i in range(50)))
    result = check(path)
    assert result.stderr.count("error[syntax-error]: expected an expression, found `;`") == 50
    assert result.stderr.endswith("Found 50 errors in 1 file\n")


def _long_block(bindings: int) -> str:
    """A TVM-format function of many graph bindings, the second with a stray `)`."""
    body = "".join(f"  %{i} = add(%{i - 1}, 1f);\n" for i in range(2, bindings))
    return (
        '#[version = "0.0.5"]\n'
        "def @main(%x: Tensor[(2), float32]) {\n"
        "  %0 = negative(%x);\n"
        "  %1 = add(%0, %x));\n"
        f"{body}  %{bindings - 1}\n}}\n"
    )


def test_a_stray_closing_bracket_is_one_error_not_a_cascade(tmp_path: Path) -> None:
    """The `)` closes nothing, so reading goes on after it inside the same
    block: the `}` that ends the function is not reported as well."""
    path = tmp_path / "stray.rly"
    path.write_text(_long_block(50))
    result = check(path)
    assert result.exit_code == 1
    assert result.stderr.count("error[syntax-error]") == 1
    assert f"error[syntax-error]: unmatched closing delimiter `)`\n --> {path}:4:19\n" in result.stderr


def test_recovery_work_grows_linearly_with_the_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """Looking for a place to read on from tries the parser's states one by
    one; in a block of n bindings that used to cost about n^2 parser steps.
    The steps recovery spends are bounded by a budget per token."""
    from relay_text.ir.span import Source
    from relay_text.syntax import lalr
    from relay_text.syntax.parser import parse_source

    spent: list[int] = []
    recover = lalr.Driver.recover

    def measured(self, tokens, failed, stack, text_length):  # type: ignore[no-untyped-def]
        errors = recover(self, tokens, failed, stack, text_length)
        spent.append(max(lalr.RECOVERY_MIN_STEPS, lalr.RECOVERY_STEPS_PER_TOKEN * len(tokens)) - self._steps)
        return errors

    monkeypatch.setattr(lalr.Driver, "recover", measured)
    # without the stray bracket's special case: a resume point is searched
    # through every state of the block's stack
    monkeypatch.setattr(lalr, "_unmatched_closer", lambda tokens, index: False)
    for n in (1000, 4000):
        parse_source(Source("long.rly", _long_block(n)))
    assert len(spent) == 2 and spent[0] > 0
    assert spent[1] / spent[0] <= 4.5  # four times the block, at most about four times the work
