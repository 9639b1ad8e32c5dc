"""Warnings: `relay: ignore` comments silence them, `--warnings-as-errors`
(`-W error`) counts them as errors, in every command and in JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from relay_text.cli import main

UNUSED = "def @main(%x : int32) {\n  %0 = add(%x, 1);\n  %x\n}\n"


def invoke(args: list[str]):
    return CliRunner().invoke(main, args, env={"NO_COLOR": "1"}, catch_exceptions=False)


def write(tmp_path: Path, text: str, name: str = "m.rly") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_warning_alone_passes(tmp_path: Path) -> None:
    path = write(tmp_path, UNUSED)
    result = invoke(["check", path])
    assert result.exit_code == 0
    assert result.stderr.startswith("warning[unused-binding]: graph binding `%0` is never used\n")
    assert result.stderr.endswith("No errors in 1 file (1 warning)\n")


@pytest.mark.parametrize("flag", [["--warnings-as-errors"], ["-W", "error"], ["-Werror"]])
def test_warnings_as_errors_in_check(tmp_path: Path, flag: list[str]) -> None:
    path = write(tmp_path, UNUSED)
    result = invoke(["check", *flag, path])
    assert result.exit_code == 1
    assert result.stderr == (
        "error[unused-binding]: graph binding `%0` is never used\n"
        f" --> {path}:2:3\n"
        "  |\n"
        "2 |   %0 = add(%x, 1);\n"
        "  |   ^^ bound here\n"
        "  |\n"
        "  = note: it is evaluated for its effects only, as `e;` would be\n"
        "  = note: this warning counts as an error (--warnings-as-errors)\n"
        "\n"
        "Found 1 error in 1 file\n"
    )


def test_warnings_as_errors_in_json(tmp_path: Path) -> None:
    path = write(tmp_path, UNUSED)
    result = invoke(["check", "-W", "error", "--output-format", "json", path])
    assert result.exit_code == 1
    (diag,) = json.loads(result.stdout)["diagnostics"]
    assert (diag["code"], diag["severity"]) == ("unused-binding", "error")


def test_warnings_as_errors_in_run_stop_the_program(tmp_path: Path) -> None:
    path = write(tmp_path, UNUSED)
    assert invoke(["run", "--arg", "x=3", path]).stdout == "3\n"
    result = invoke(["run", "-W", "error", "--arg", "x=3", path])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith("error[unused-binding]")
    assert result.stderr.endswith("Found 1 error; nothing was run\n")


def test_warnings_as_errors_from_pyproject_and_its_override(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.relay]\nwarnings-as-errors = true\n")
    path = write(tmp_path, UNUSED)
    assert invoke(["check", path]).exit_code == 1
    assert invoke(["run", "--arg", "x=3", path]).exit_code == 1
    assert invoke(["check", "--no-warnings-as-errors", path]).exit_code == 0


IGNORED = """\
def @main(%x : int32) {
  %0 = add(%x, 1);  // relay: ignore[unused-binding]
  // relay: ignore[unused-binding]
  %1 = add(%x, 2);
  %2 = add(%x, 3);  # relay: ignore
  %3 = add(%x, 4);  /* relay: ignore[unreachable-clause, unused-binding] */
  %4 = add(%x, 5);  // relay: ignore[unreachable-clause]
  %5 = add(%x, 6);
  %x
}
"""


def test_ignore_comments_silence_warnings_on_their_line_or_the_next(tmp_path: Path) -> None:
    path = write(tmp_path, IGNORED)
    result = invoke(["check", path])
    assert result.exit_code == 0
    # `%4`: the comment names another code; `%5`: a trailing comment on the
    # line before does not reach down.
    assert [line for line in result.stderr.splitlines() if line.startswith("warning")] == [
        "warning[unused-binding]: graph binding `%4` is never used",
        "warning[unused-binding]: graph binding `%5` is never used",
    ]
    data = json.loads(invoke(["check", "--output-format", "json", path]).stdout)
    assert [d["line"] for d in data["diagnostics"]] == [7, 8]
    assert invoke(["check", "-W", "error", path]).stderr.endswith("Found 2 errors in 1 file\n")


def test_ignore_comments_never_silence_errors(tmp_path: Path) -> None:
    path = write(
        tmp_path, "def @main() {\n  %y  // relay: ignore\n}\ndef @f() { %z }  // relay: ignore[unbound-variable]\n"
    )
    result = invoke(["check", path])
    assert result.exit_code == 1
    assert result.stderr.endswith("Found 2 errors in 1 file\n")


def test_a_name_that_is_not_a_code_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "def @main(%x : int32) {\n  %0 = add(%x, 1);  // relay: ignore[unused-bindng]\n  %x\n}\n")
    result = invoke(["check", path])
    assert result.exit_code == 0
    assert result.stderr == (
        "warning[unused-binding]: graph binding `%0` is never used\n"
        f" --> {path}:2:3\n"
        "  |\n"
        "2 |   %0 = add(%x, 1);  // relay: ignore[unused-bindng]\n"
        "  |   ^^ bound here\n"
        "  |\n"
        "  = note: it is evaluated for its effects only, as `e;` would be\n"
        "\n"
        "warning[invalid-ignore]: `unused-bindng` is not a diagnostic code\n"
        f" --> {path}:2:38\n"
        "  |\n"
        "2 |   %0 = add(%x, 1);  // relay: ignore[unused-bindng]\n"
        "  |                                      ^^^^^^^^^^^^^ silences nothing\n"
        "  |\n"
        "  = help: did you mean `unused-binding`?\n"
        "\n"
        "No errors in 1 file (2 warnings)\n"
    )


def test_ignore_comments_hold_for_run_and_the_python_api(tmp_path: Path) -> None:
    import relay_text

    path = write(
        tmp_path,
        IGNORED.replace("  %5 = add(%x, 6);\n", "").replace(
            "  %4 = add(%x, 5);  // relay: ignore[unreachable-clause]\n", ""
        ),
    )
    result = invoke(["run", "-W", "error", "--arg", "x=3", path])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "3\n", "")
    assert relay_text.check(Path(path).read_text()).diagnostics == []
