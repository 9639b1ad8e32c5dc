"""`relay check` type-checks: --types, JSON globals, exit codes, rendered diagnostics."""

from __future__ import annotations

import json

from click.testing import CliRunner

from relay_text.cli import main

PROGRAM = """data List<a> {
  Nil : () -> List
  Cons : (a, List[a]) -> List
}

def @length<a>(%l : List[a]) -> Tensor[(), int32] {
  match (%l) {
    case Nil() { 0 }
    case Cons(_, %t) { 1 + @length(%t) }
  }
}

def @swap(%p) { (%p.1, %p.0) }

def @main() { @length(Cons(1, Nil())) }
"""

BAD = """def @f(%x : Tensor[(10, 10), float32]) -> Tensor[(10, 10), float32] {
  if (%x == Constant(0, (10, 10), float32)) { %x } else { %x }
}
"""


def _write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_types_lists_every_global(tmp_path) -> None:
    path = _write(tmp_path, "p.rly", PROGRAM)
    result = CliRunner().invoke(main, ["check", "--types", path], env={"NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "@length : fn<a>(List[a]) -> Tensor[(), int32]",
        "@swap : fn<a, b, c>(a) -> (b, c) where TupleGetItem, TupleGetItem",
        "@main : fn() -> Tensor[(), int32]",
    ]


def test_json_globals_in_documented_syntax(tmp_path) -> None:
    path = _write(tmp_path, "p.rly", PROGRAM)
    result = CliRunner().invoke(main, ["check", "--output-format", "json", path])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["diagnostics"] == []
    assert data["globals"] == {
        "@length": "fn<a>(List[a]) -> Tensor[(), int32]",
        "@swap": "fn<a, b, c>(a) -> (b, c) where TupleGetItem, TupleGetItem",
        "@main": "fn() -> Tensor[(), int32]",
    }


def test_type_error_exits_1_with_located_json(tmp_path) -> None:
    path = _write(tmp_path, "bad.rly", BAD)
    result = CliRunner().invoke(main, ["check", "--output-format", "json", path])
    assert result.exit_code == 1
    (diag,) = json.loads(result.stdout)["diagnostics"]
    assert diag["code"] == "type-mismatch"
    assert (diag["line"], diag["column"], diag["end_line"], diag["end_column"]) == (2, 7, 2, 43)
    assert (
        diag["message"]
        == "the condition of `if` must be a single bool `Tensor[(), bool]`, found `Tensor[(10, 10), bool]`"
    )
    assert "`==` compares tensors element by element, giving one bool per element" in diag["notes"]


def test_rendered_diagnostic(tmp_path) -> None:
    path = _write(tmp_path, "bad.rly", BAD)
    result = CliRunner().invoke(main, ["check", path], env={"NO_COLOR": "1"})
    assert result.exit_code == 1
    assert result.stderr == (
        "error[type-mismatch]: the condition of `if` must be a single bool `Tensor[(), bool]`, found "
        "`Tensor[(10, 10), bool]`\n"
        f" --> {path}:2:7\n"
        "  |\n"
        "2 |   if (%x == Constant(0, (10, 10), float32)) { %x } else { %x }\n"
        "  |       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ this has type `Tensor[(10, 10), bool]`\n"
        "  |\n"
        "  = note: the shapes differ: expected `()` (0 dimensions), found `(10, 10)` (2 dimensions)\n"
        "  = note: `==` compares tensors element by element, giving one bool per element\n"
        "  = help: reduce it to one value first, e.g. `all(...)` or `any(...)`\n"
        "\n"
        "Found 1 error in 1 file\n"
    )


def test_independent_errors_are_all_reported(tmp_path) -> None:
    text = (
        "def @a() { 1 + 1f }\ndef @b() { nn.relu(1, 2) }\ndef @c(%x : Tensor[(2), float32]) -> Tensor[(3), "
        "float32] { %x }\n"
    )
    path = _write(tmp_path, "many.rly", text)
    result = CliRunner().invoke(main, ["check", "--output-format", "json", path])
    codes = [(d["code"], d["line"]) for d in json.loads(result.stdout)["diagnostics"]]
    assert codes == [("type-mismatch", 1), ("arity-mismatch", 2), ("type-mismatch", 3)]


def test_tvm_file_messages_use_tvm_type_syntax(tmp_path) -> None:
    text = '#[version = "0.0.5"]\ndef @main(%x: int32) -> float32 {\n  %x\n}\n'
    path = _write(tmp_path, "tvm.rly", text)
    result = CliRunner().invoke(main, ["check", "--output-format", "json", path])
    (diag,) = json.loads(result.stdout)["diagnostics"]
    assert diag["message"] == "mismatched types: expected `float32`, found `int32`"
