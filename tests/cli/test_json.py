"""JSON output: one object per file for several files, a `List` as an array,
and both outputs valid against the schemas shipped in relay_text/schemas."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from relay_text.cli import main
from relay_text.diagnostics.codes import REGISTRY
from tests.conftest import ROOT, SAMPLES

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is in the test extra: pip install -e '.[test]'")

GOOD = "def @main() { 1 }\n"
BAD = "def @main() { %x }\n"


def schema(name: str) -> dict:
    text = resources.files("relay_text").joinpath("schemas", f"{name}.schema.json").read_text(encoding="utf-8")
    data = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(data)
    return data


def validate(document: object, name: str) -> None:
    jsonschema.Draft202012Validator(schema(name)).validate(document)


def invoke(args: list[str], input: str | None = None):
    return CliRunner().invoke(main, args, input=input, env={"NO_COLOR": "1"}, catch_exceptions=False)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_one_file_keeps_the_one_object_form(tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.rly", BAD)
    result = invoke(["check", "--output-format", "json", str(bad)])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert list(data) == ["diagnostics", "globals"]
    assert [d["code"] for d in data["diagnostics"]] == ["unbound-variable"]
    validate(data, "check")


def test_several_files_get_one_object_each_in_order(tmp_path: Path) -> None:
    good = write(tmp_path / "good.rly", GOOD)
    bad = write(tmp_path / "bad.rly", BAD)
    missing = tmp_path / "missing.rly"
    result = invoke(["check", "--output-format", "json", str(good), str(bad), str(missing)])
    assert result.exit_code == 2  # the missing file
    data = json.loads(result.stdout)
    validate(data, "check")
    assert [entry["file"] for entry in data["files"]] == [str(good), str(bad), str(missing)]
    first, second, third = data["files"]
    assert first == {"file": str(good), "diagnostics": [], "globals": {"@main": "fn() -> Tensor[(), int32]"}}
    assert [(d["code"], d["file"], d["line"]) for d in second["diagnostics"]] == [("unbound-variable", str(bad), 1)]
    assert third == {"file": str(missing), "error": f"{missing}: no such file", "diagnostics": [], "globals": {}}
    assert result.stderr == f"error: {missing}: no such file\nFound 1 error in 1 file (3 files checked)\n"


def test_a_directory_gets_the_several_files_form_even_for_one_file(tmp_path: Path) -> None:
    write(tmp_path / "d" / "only.rly", GOOD)
    data = json.loads(invoke(["check", "--output-format", "json", str(tmp_path / "d")]).stdout)
    assert [entry["file"] for entry in data["files"]] == [str(tmp_path / "d" / "only.rly")]


def test_every_sample_and_error_sample_validates(tmp_path: Path) -> None:
    result = invoke(["check", "--output-format", "json", str(SAMPLES)])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    validate(data, "check")
    codes = {d["code"] for entry in data["files"] for d in entry["diagnostics"]}
    assert {"syntax-error", "unreachable-clause", "type-mismatch"} <= codes


def test_types_are_prefixed_by_their_file_when_there_are_several(tmp_path: Path) -> None:
    a = write(tmp_path / "a.rly", "def @f(%x : int32) { %x }\n")
    b = write(tmp_path / "b.rly", GOOD)
    several = invoke(["check", "--types", str(a), str(b)])
    assert (several.exit_code, several.stdout) == (
        0,
        f"{a}: @f : fn(Tensor[(), int32]) -> Tensor[(), int32]\n{b}: @main : fn() -> Tensor[(), int32]\n",
    )
    one = invoke(["check", "--types", str(a)])
    assert one.stdout == "@f : fn(Tensor[(), int32]) -> Tensor[(), int32]\n"


def test_the_schema_lists_every_diagnostic_code() -> None:
    assert schema("check")["$defs"]["code"]["enum"] == list(REGISTRY)


LONG_LIST = """\
def @build(%n : int32, %acc : List[int32]) -> List[int32] {
  if (%n == 0) { %acc } else { @build(%n - 1, Cons(%n, %acc)) }
}
def @main() { @build(100000, Nil()) }
"""


def test_a_list_is_a_json_array_that_reads_back_without_nesting(tmp_path: Path) -> None:
    path = write(tmp_path / "long.rly", LONG_LIST)
    result = invoke(["run", "--output-format", "json", str(path)])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)  # 100,000 levels of objects would exceed the reader's recursion
    assert len(data) == 100_000
    assert data[0] == {"tensor": 1, "dtype": "int32", "shape": []}
    assert data[-1] == {"tensor": 100_000, "dtype": "int32", "shape": []}


def test_other_data_keep_constructor_and_fields_and_lists_nest(tmp_path: Path) -> None:
    path = write(
        tmp_path / "mixed.rly",
        "def @main() { (Some(Cons(1, Nil())), Nil(), Cons(Cons(2, Nil()), Nil()), None()) }\n",
    )
    result = invoke(["run", "--output-format", "json", str(path)])
    one = {"tensor": 1, "dtype": "int32", "shape": []}
    two = {"tensor": 2, "dtype": "int32", "shape": []}
    data = json.loads(result.stdout)
    assert data == {
        "tuple": [{"constructor": "Some", "fields": [[one]]}, [], [[two]], {"constructor": "None", "fields": []}]
    }
    validate(data, "run")


def test_tvm_lists_are_arrays_too(tmp_path: Path) -> None:
    path = write(
        tmp_path / "tvm.rly",
        '#[version = "0.0.5"]\n'
        "type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}\n"
        "def @main() -> List[int32] {\n  Cons(1, Cons(2, Nil))\n}\n",
    )
    result = invoke(["run", "--output-format", "json", str(path)])
    assert result.exit_code == 0, result.stderr
    assert [x["tensor"] for x in json.loads(result.stdout)] == [1, 2]


def test_every_sample_result_validates() -> None:
    golden = sorted((ROOT / "tests" / "eval" / "golden").glob("*.json"))
    assert len(golden) > 20
    validator = jsonschema.Draft202012Validator(schema("run"))
    for path in golden:
        validator.validate(json.loads(path.read_text()))


def test_the_schemas_ship_in_the_package() -> None:
    names = sorted(
        p.name for p in resources.files("relay_text").joinpath("schemas").iterdir() if p.name.endswith(".json")
    )
    assert names == ["check.schema.json", "run.schema.json", "summary.schema.json"]
