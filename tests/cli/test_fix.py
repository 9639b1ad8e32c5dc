"""Fixes that apply: help lines that name a replacement carry it as edits
(in the Diagnostic record and in the JSON output), `relay check --fix`
applies the safe ones and re-checks, `--diff` shows them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from relay_text.cli import main
from relay_text.diagnostics import SAFE, UNSAFE, Diagnostic, Edit, Fix, codes
from relay_text.fixes import applicable, edits_text, fix_source
from relay_text.ir.span import Source, Span
from relay_text.pipeline import check_source


def run(args: list[str], input: str | None = None):
    return CliRunner().invoke(main, args, input=input, env={"NO_COLOR": "1"}, catch_exceptions=False)


def fixes_of(text: str) -> list[tuple[str, str, list[tuple[int, int, int, int, str]]]]:
    """(code, applicability, edits as (line, column, end line, end column, text))
    of each fix of `relay check --output-format json`, in order."""
    result = run(["check", "--output-format", "json", "-"], input=text)
    out = []
    for diag in json.loads(result.stdout)["diagnostics"]:
        for fix in diag["fixes"]:
            edits = [(e["line"], e["column"], e["end_line"], e["end_column"], e["text"]) for e in fix["edits"]]
            out.append((diag["code"], fix["applicability"], edits))
    return out


# ---------------------------------------------------------------- the edits each help carries


@pytest.mark.parametrize(
    "text, fixes",
    [
        # `=` for `==`
        ("def @f(%x : int32) { if (%x = 1) { 2 } else { 3 } }", [("syntax-error", SAFE, [(1, 29, 1, 30, "==")])]),
        # a local without `%`, a global without `@`: the sigil is inserted
        ("def @f() {\n  let x = 1;\n  0\n}", [("syntax-error", SAFE, [(2, 7, 2, 7, "%")])]),
        ("def f(%a) { %a }", [("syntax-error", SAFE, [(1, 5, 1, 5, "@")])]),
        # `:` for `->`; `return` removed with the space after it
        ("def @f(%x : int32) : int32 { %x }", [("syntax-error", SAFE, [(1, 20, 1, 21, "->")])]),
        ("def @f(%x : int32) {\n  return %x\n}", [("syntax-error", SAFE, [(2, 3, 2, 10, "")])]),
        # a `;` missing at the end of the line: inserted there
        ("def @f() {\n  let %a = 1\n  let %b = 2;\n  %b\n}", [("syntax-error", SAFE, [(2, 13, 2, 13, ";")])]),
        # a TVM float literal without its suffix (a warning)
        ('#[version = "0.0.5"]\ndef @main() -> float32 { 1.5 }', [("invalid-literal", SAFE, [(2, 26, 2, 29, "1.5f")])]),
    ],
)
def test_syntax_helps_carry_their_edit(text: str, fixes: list) -> None:
    assert fixes_of(text) == fixes


def test_checker_helps_carry_their_edit() -> None:
    text = (
        "def @inc(%x : int32) -> int32 { %x + 1 }\n"
        "def @half(%x : float32) -> float32 { %x / 2f }\n"
        "def @main(%y : float32, %z : Float32) {\n"
        "  let %w = mul(%y, %y);\n"
        "  (inc(1), @half(2), nn.softmax(%w, axs=0), %yy)\n"
        "}\n"
    )
    assert fixes_of(text) == [
        # a dtype misspelt in a known way: certain
        ("unknown-type", SAFE, [(3, 30, 3, 37, "float32")]),
        # another framework's name for an operator: certain
        ("unknown-operator", SAFE, [(4, 12, 4, 15, "multiply")]),
        # a global called without `@`
        ("unknown-operator", SAFE, [(5, 4, 5, 7, "@inc")]),
        # an int literal where a float is expected: written as one
        ("type-mismatch", SAFE, [(5, 18, 5, 19, "2.0")]),
        # guesses among close names: unsafe
        ("unknown-attribute", UNSAFE, [(5, 37, 5, 40, "axis")]),
        ("unbound-variable", UNSAFE, [(5, 45, 5, 48, "%y")]),
    ]


def test_several_candidates_are_one_unsafe_fix_each() -> None:
    diag = Diagnostic(codes.UNBOUND_VARIABLE, "unbound variable `%ab`", None)
    source = Source("t.rly", "%ab")
    diag.with_choices("did you mean `%a` or `%b`?", Span(source, 0, 3), ["%a", "%b"])
    assert diag.helps == ["did you mean `%a` or `%b`?"]
    assert [(f.message, f.applicability, [e.text for e in f.edits]) for f in diag.fixes] == [
        ("replace with `%a`", UNSAFE, ["%a"]),
        ("replace with `%b`", UNSAFE, ["%b"]),
    ]


def test_json_fixes_follow_the_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parents[2] / "relay_text/schemas/check.schema.json").read_text())
    result = run(["check", "--output-format", "json", "-"], input="def @f(%x : int32) : int32 { %x }")
    document = json.loads(result.stdout)
    jsonschema.validate(document, schema)
    assert document["diagnostics"][0]["fixes"] == [
        {
            "message": "a return type is introduced by `->`, not `:`",
            "applicability": "safe",
            "edits": [{"file": "<stdin>", "line": 1, "column": 20, "end_line": 1, "end_column": 21, "text": "->"}],
        }
    ]


# ---------------------------------------------------------------- applying them

BROKEN = "def @f(%x : int32) : int32 {\n  let %a = 1\n  let %b = x;\n  return %a + %b\n}\n"
FIXED = "def @f(%x : int32) -> int32 {\n  let %a = 1;\n  let %b = %x;\n  %a + %b\n}\n"


def test_fix_applies_round_after_round_and_rechecks(tmp_path: Path) -> None:
    """Each fix lets the parser read further, to the next slip and its fix."""
    path = tmp_path / "f.rly"
    path.write_text(BROKEN)
    result = run(["check", "--fix", str(path)])
    assert path.read_text() == FIXED
    assert (result.exit_code, result.stderr) == (
        0,
        f"fixed 4 problems in {path}\nNo errors in 1 file; fixed 4 problems\n",
    )


def test_fix_reports_what_remains(tmp_path: Path) -> None:
    path = tmp_path / "f.rly"
    path.write_text("def @main() {\n  let %a = 1\n  let %b = %aa;\n  %b\n}\n")
    result = run(["check", "--fix", str(path)])
    assert path.read_text() == "def @main() {\n  let %a = 1;\n  let %b = %aa;\n  %b\n}\n"
    assert result.exit_code == 1
    assert "error[unbound-variable]: unbound variable `%aa`" in result.stderr
    assert result.stderr.endswith("Found 1 error in 1 file; fixed 1 problem\n")
    # The guess is applied only when asked.
    result = run(["check", "--fix", "--unsafe-fixes", str(path)])
    assert path.read_text() == "def @main() {\n  let %a = 1;\n  let %b = %a;\n  %b\n}\n"
    assert result.exit_code == 0


def test_fix_keeps_line_endings_and_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "f.rly"
    path.write_bytes("\ufeff".encode() + BROKEN.replace("\n", "\r\n").encode())
    assert run(["check", "--fix", str(path)]).exit_code == 0
    assert path.read_bytes() == "\ufeff".encode() + FIXED.replace("\n", "\r\n").encode()


def test_diff_shows_the_fixes_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "f.rly"
    path.write_text(BROKEN)
    result = run(["check", "--diff", str(path)])
    assert path.read_text() == BROKEN
    assert result.exit_code == 1
    assert result.stdout == (
        f"--- {path}\n+++ {path} (fixed)\n@@ -1,5 +1,5 @@\n"
        "-def @f(%x : int32) : int32 {\n-  let %a = 1\n-  let %b = x;\n-  return %a + %b\n"
        "+def @f(%x : int32) -> int32 {\n+  let %a = 1;\n+  let %b = %x;\n+  %a + %b\n }\n"
    )
    assert result.stderr == "Would fix 4 problems in 1 file\n"
    clean = tmp_path / "clean.rly"
    clean.write_text(FIXED)
    result = run(["check", "--diff", str(clean)])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "No fixes to apply\n")


def test_fix_of_standard_input_prints_the_fixed_text() -> None:
    result = run(["check", "--fix", "-"], input=BROKEN)
    assert result.exit_code == 0
    assert result.stdout == FIXED


def test_the_summary_counts_what_fix_would_do(tmp_path: Path) -> None:
    path = tmp_path / "f.rly"
    path.write_text("def @f(%x : int32) : int32 { %x }\n")
    assert run(["check", str(path)]).stderr.endswith("Found 1 error in 1 file (1 fixable with `relay check --fix`)\n")


# ---------------------------------------------------------------- the pieces


def _fix(source: Source, start: int, end: int, text: str, safe: bool = True) -> Diagnostic:
    diag = Diagnostic(codes.TYPE_MISMATCH, "x", Span(source, start, end))
    diag.fixes.append(Fix("help", [Edit(Span(source, start, end), text)], SAFE if safe else UNSAFE))
    return diag


def test_overlapping_fixes_wait_for_the_next_round() -> None:
    source = Source("t.rly", "abcdef")
    other = Source("prelude.rly", "xyz")
    diags = [
        _fix(source, 0, 2, "A"),
        _fix(source, 1, 3, "B"),
        _fix(source, 4, 4, "+"),
        _fix(source, 4, 4, "-"),
        _fix(source, 5, 6, "F", safe=False),
        _fix(other, 0, 1, "X"),
    ]
    chosen = applicable(diags, source)
    assert [f.edits[0].text for f in chosen] == ["A", "+"]
    assert [f.edits[0].text for f in applicable(diags, source, unsafe=True)] == ["A", "+", "F"]
    assert edits_text(source.text, [e for f in chosen for e in f.edits]) == "Acd+ef"


def test_a_round_that_makes_a_syntax_error_is_undone() -> None:
    """A fix must not make a file that parsed fail to parse."""

    class Checked:
        def __init__(self, source: Source, diagnostics: list[Diagnostic]) -> None:
            self.source, self.diagnostics = source, diagnostics

        @property
        def errors(self) -> int:
            return len(self.diagnostics)

    def check(source: Source) -> Checked:
        if source.text == "good":
            return Checked(source, [_fix(source, 0, 4, "(bad")])
        return Checked(source, [Diagnostic(codes.SYNTAX_ERROR, "x", None)])

    outcome = fix_source(Source("t.rly", "good"), check)
    assert (outcome.text, outcome.applied, outcome.undone) == ("good", [], True)
    real = fix_source(Source("t.rly", "def @f() : int32 { 1 }"), check_source)
    assert (real.text, len(real.applied), real.undone) == ("def @f() -> int32 { 1 }", 1, False)


def test_kind_and_condition_helps_carry_their_edits() -> None:
    """A type parameter declared with the wrong kind is redeclared (safe); a
    tensor condition is reduced with `all` or `any`, the writer's choice
    (two unsafe fixes)."""
    kinds = "def @f<n>(%x : Tensor[(n), float32]) { %x }\ndef @g<m : Shape>(%x : Tensor[(m), float32]) { %x }\n"
    assert fixes_of(kinds) == [
        ("kind-error", SAFE, [(1, 8, 1, 9, "n : ShapeVar")]),
        ("kind-error", SAFE, [(2, 8, 2, 17, "m : ShapeVar")]),
    ]
    condition = "def @f(%x : Tensor[(2), float32]) { if (%x == 0f) { 1 } else { 2 } }\n"
    assert fixes_of(condition) == [
        ("type-mismatch", UNSAFE, [(1, 41, 1, 41, "all("), (1, 49, 1, 49, ")")]),
        ("type-mismatch", UNSAFE, [(1, 41, 1, 41, "any("), (1, 49, 1, 49, ")")]),
    ]
