"""`relay check` as a user runs it: exit codes, streams, JSON, colour, stdin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from relay_text.cli import main
from tests.conftest import corpus_files, needs_corpus, sample_files

GOOD = "def @main() { 1 }\n"
BAD = "def @main() { %x }\n"


def run(args: list[str], input: str | None = None, env: dict | None = None):
    runner = CliRunner()
    return runner.invoke(main, args, input=input, env=env or {"NO_COLOR": "1"}, catch_exceptions=False)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, text in {"good.rly": GOOD, "bad.rly": BAD}.items():
        path = tmp_path / name
        path.write_text(text)
        out[name] = path
    return out


def test_clean_file_exits_zero(files) -> None:
    result = run(["check", str(files["good.rly"])])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == "No errors in 1 file\n"


def test_errors_exit_one_with_rendered_diagnostic(files) -> None:
    path = files["bad.rly"]
    result = run(["check", str(path)])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        "error[unbound-variable]: unbound variable `%x`\n"
        f" --> {path}:1:15\n"
        "  |\n"
        "1 | def @main() { %x }\n"
        "  |               ^^ not in scope\n"
        "\n"
        "Found 1 error in 1 file\n"
    )


def test_long_source_lines_are_shown_as_a_window_around_the_label(tmp_path: Path) -> None:
    """A generated file can hold a whole program on one line: the snippet
    shows the part around the error, marked `...` where it is cut, and the
    caret still points at the offending token."""
    path = tmp_path / "long.rly"
    path.write_text("def @main() { " + "1 + " * 100 + "%y" + " + 1" * 100 + " }\n")
    result = run(["check", str(path)])
    assert result.exit_code == 1
    snippet = "...1 + 1 + 1 + 1 + 1 + %y" + " + 1" * 14 + " + ..."
    assert result.stderr == (
        "error[unbound-variable]: unbound variable `%y`\n"
        f" --> {path}:1:415\n"
        "  |\n"
        f"1 | {snippet}\n"
        "  |                        ^^ not in scope\n"
        "\n"
        "Found 1 error in 1 file\n"
    )


def test_a_label_in_another_file_gets_its_own_header(tmp_path: Path) -> None:
    """A label that points into the Prelude is shown under a `:::` header
    naming that file, after the snippet of the error's own file."""
    path = tmp_path / "calls.rly"
    call = "@iterate(fn (%x) { %x + 1 }, 0, 100000)"
    path.write_text(f"def @main() {{ {call} }}\n")
    result = run(["check", str(path)])
    assert result.exit_code == 1
    assert result.stderr == (
        "error[arity-mismatch]: `@iterate` takes 2 arguments, but 3 were given\n"
        f"   --> {path}:1:15\n"
        "    |\n"
        "  1 | def @main() { @iterate(fn (%x) { %x + 1 }, 0, 100000) }\n"
        f"    |               {'^' * len(call)} expected 2 arguments\n"
        "   ::: relay_text/std/prelude.rly:213:1\n"
        "    |\n"
        "213 | def @iterate<a>(%f : fn(a) -> a, %n : int32) -> fn(a) -> a {\n"
        "    | ------------------------------------------------------------ defined here\n"
        "\n"
        "Found 1 error in 1 file\n"
    )


def test_summary_counts_files_with_errors(files, tmp_path: Path) -> None:
    other = tmp_path / "bad2.rly"
    other.write_text("def @f() { %y + %z }\n")
    result = run(["check", str(files["good.rly"]), str(files["bad.rly"]), str(other)])
    assert result.exit_code == 1
    assert result.stderr.endswith("Found 3 errors in 2 files (3 files checked)\n")


def test_missing_file_is_an_io_error(files, tmp_path: Path) -> None:
    result = run(["check", str(files["good.rly"]), str(tmp_path / "nope.rly")])
    assert result.exit_code == 2
    assert f"error: {tmp_path / 'nope.rly'}: no such file" in result.stderr


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.rly"
    path.write_bytes(b"def @main() { 1 } # caf\xe9\n")
    result = run(["check", str(path)])
    assert result.exit_code == 2
    assert "not UTF-8 text (byte 23)" in result.stderr


def test_usage_error_exits_two() -> None:
    result = run(["check"])
    assert result.exit_code == 2
    assert "Missing argument" in result.stderr


def test_stdin() -> None:
    result = run(["check", "-"], input=BAD)
    assert result.exit_code == 1
    assert " --> <stdin>:1:15\n" in result.stderr


def test_directories_are_searched(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.rly").write_text(GOOD)
    (tmp_path / "a" / "y.relay").write_text(GOOD)
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "z.rly").write_text(BAD)
    (tmp_path / "a" / "notes.txt").write_text(BAD)
    result = run(["check", str(tmp_path)])
    assert result.exit_code == 0
    assert result.stderr == "No errors in 2 files\n"


def test_json_output(files) -> None:
    path = files["bad.rly"]
    result = run(["check", "--output-format", "json", str(path)])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["diagnostics"] == [
        {
            "code": "unbound-variable",
            "severity": "error",
            "message": "unbound variable `%x`",
            "file": str(path),
            "line": 1,
            "column": 15,
            "end_line": 1,
            "end_column": 17,
            "label": "not in scope",
            "labels": [],
            "notes": [],
            "fixes": [],
        }
    ]
    assert list(data["globals"]) == ["@main"]
    assert "error[" not in result.stderr


def test_json_labels_carry_their_own_file(tmp_path: Path) -> None:
    path = tmp_path / "calls.rly"
    path.write_text("def @main() {\n  @iterate(fn (%x) { %x }, 0, 1)\n}\n")
    result = run(["check", "--output-format", "json", str(path)])
    assert result.exit_code == 1
    (diag,) = json.loads(result.stdout)["diagnostics"]
    assert (diag["code"], diag["file"], diag["line"], diag["column"]) == ("arity-mismatch", str(path), 2, 3)
    assert diag["label"] == "expected 2 arguments"
    assert diag["labels"] == [
        {
            "file": "relay_text/std/prelude.rly",
            "line": 213,
            "column": 1,
            "end_line": 215,
            "end_column": 2,
            "message": "defined here",
        }
    ]


def test_no_color_versus_force_color(files) -> None:
    plain = run(["check", str(files["bad.rly"])], env={"NO_COLOR": "1"})
    assert "\x1b[" not in plain.stderr
    coloured = run(["check", str(files["bad.rly"])], env={"FORCE_COLOR": "1", "NO_COLOR": ""})
    assert "\x1b[" in coloured.stderr
    # source text is never read as markup: `[a]` survives
    path = files["bad.rly"]
    path.write_text("def @f[a](%x: a) { %y }\n")
    coloured = run(["check", str(path)], env={"FORCE_COLOR": "1", "NO_COLOR": ""})
    assert "@f[a](%x: a)" in coloured.stderr


def test_internal_errors_are_one_line(files, monkeypatch: pytest.MonkeyPatch) -> None:
    import relay_text.pipeline

    def boom(source):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(relay_text.pipeline, "check_source", boom)
    result = run(["check", str(files["good.rly"])])
    assert result.exit_code == 2
    assert "internal error: RuntimeError: kaboom" in result.stderr
    assert "Traceback" not in result.stderr
    debug = run(["check", "--debug", str(files["good.rly"])])
    assert debug.exit_code == 2 and "Traceback" in debug.stderr


# Samples that show clauses which can never run (seed 000's `@match_order_beware`,
# seed 002's first-clause-wins example) are expected to get these warnings.
EXPECTED_SAMPLE_WARNINGS = [
    ("match_order.rly", 11, "unreachable-clause"),
    ("match_order.rly", 12, "unreachable-clause"),
    ("nat.rly", 26, "unreachable-clause"),
    ("nat.rly", 27, "unreachable-clause"),
    ("nat.rly", 28, "unreachable-clause"),
]


def test_every_sample_checks_clean() -> None:
    import re

    files = [str(p) for p in sample_files()]
    assert len(files) >= 15
    result = run(["check", *files])
    assert result.exit_code == 0, result.stderr
    warnings = re.findall(r"^warning\[([a-z-]+)\].*\n\s*--> (\S+):(\d+):", result.stderr, re.M)
    assert sorted((Path(f).name, int(line), code) for code, f, line in warnings) == EXPECTED_SAMPLE_WARNINGS
    assert "error[" not in result.stderr
    assert result.stderr.endswith(f"No errors in {len(files)} files ({len(EXPECTED_SAMPLE_WARNINGS)} warnings)\n")


@needs_corpus
def test_every_corpus_file_checks_clean() -> None:
    files = [str(p) for p in corpus_files()]
    result = run(["check", *files])
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize(
    "annotation",
    [
        "(" * 3000 + "int32" + ",)" * 3000,
        "List[" * 2000 + "int32" + "]" * 2000,
        "fn() -> " * 2000 + "int32",
    ],
    ids=["tuple-type-3000-deep", "list-type-2000-deep", "function-type-2000-deep"],
)
def test_deeply_nested_written_types_work_in_every_command(tmp_path: Path, annotation: str) -> None:
    """Types are parsed, kind-checked, printed, compared and filled with
    random values without recursion, whatever their depth."""
    path = tmp_path / "deep.rly"
    path.write_text(f"def @main(%x : {annotation}) -> {annotation} {{ %x }}\n")
    assert run(["check", str(path)]).exit_code == 0
    types = run(["check", "--types", str(path)])
    assert types.exit_code == 0
    assert types.stdout.startswith("@main : fn(")
    formatted = run(["fmt", "--diff", str(path)])
    assert formatted.exit_code in (0, 1), formatted.stderr
    assert "internal error" not in formatted.stderr
    ran = run(["run", "--random-args", str(path)])
    assert "internal error" not in ran.stderr
    if annotation.startswith("fn"):
        assert ran.exit_code == 1
        assert "error[bad-argument]: cannot make up a value of type fn() -> fn()" in ran.stderr
    else:
        assert ran.exit_code == 0


def doubling_tuples(levels: int) -> str:
    """`%a_i = (%a_{i-1}, %a_{i-1})`: a value and a type with `levels` distinct
    parts whose expansion has 2^levels leaves."""
    lines = ["def @main(%x : int32) {", "  let %a0 = (%x, %x);"]
    lines += [f"  let %a{i} = (%a{i - 1}, %a{i - 1});" for i in range(1, levels)]
    lines += [f"  %a{levels - 1}", "}"]
    return "\n".join(lines) + "\n"


def test_types_that_share_parts_check_in_time_linear_in_their_parts(tmp_path: Path) -> None:
    """The checker walks, unifies, resolves and generalizes a type once per
    distinct part; a type too long to write out is cut in `--types`."""
    path = tmp_path / "dag.rly"
    text = doubling_tuples(40)
    # a second, separately built copy, unified with the first by the `if`
    copy = [line.replace("%a", "%b") for line in text.splitlines()[1:-2]]
    lines = text.splitlines()
    lines[0] = "def @main(%x : int32, %c : bool) {"
    lines[-2] = "  if (%c) { %a39 } else { %b39 }"
    path.write_text("\n".join(lines[:-2] + copy + lines[-2:]) + "\n")
    result = run(["check", "--types", str(path)])
    assert result.exit_code == 0
    line = result.stdout.rstrip("\n")
    assert line.startswith("@main : fn(Tensor[(), int32], Tensor[(), bool]) -> ((((")
    assert line.endswith(" ...")
    assert len(line) == len("@main : ") + 100_000 + len(" ...")
