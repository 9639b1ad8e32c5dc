"""`relay summary` as a user runs it: tables or JSON on stdout, problems on
stderr, exit 0 / 1 (the file has errors) / 2 (usage, files)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from relay_text.cli import main
from tests.conftest import CORPUS, needs_corpus

MODEL = """
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w);
  %1 = nn.bias_add(%0, %b);
  nn.relu(%1)
}
"""


def summary(args: list[str]):
    return CliRunner().invoke(main, ["summary", *args], env={"NO_COLOR": "1"}, catch_exceptions=False)


def write(tmp_path: Path, text: str, name: str = "model.rly") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_table_per_function(tmp_path: Path) -> None:
    result = summary([write(tmp_path, MODEL)])
    assert result.exit_code == 0 and result.stderr == ""
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    assert lines[0] == (
        "@main  fn(Tensor[(1, 3, 8, 8), float32], Tensor[(4, 3, 3, 3), float32], Tensor[(4), float32]) -> "
        "Tensor[(1, 4, 6, 6), float32]"
    )
    assert lines[1] == "  input  %x: Tensor[(1, 3, 8, 8), float32]"
    rows = [line.split() for line in lines if line.strip()[:1].isdigit() and "calls" not in line]
    assert rows == [
        ["1", "%0", "nn.conv2d", "1×4×6×6", "float32", "108", "3,888"],  # noqa: RUF001 (the multiplication sign separates dimensions in the output)
        ["2", "%1", "nn.bias_add", "1×4×6×6", "float32", "4", "-"],  # noqa: RUF001 (the multiplication sign separates dimensions in the output)
        ["3", "nn.relu", "1×4×6×6", "float32", "-", "-"],  # noqa: RUF001 (the multiplication sign separates dimensions in the output)
    ]
    assert lines[-1] == "  3 calls · 112 weights (448 B) in 2 tensors · 3,888 MACs (3.89 k)"


def test_grouped(tmp_path: Path) -> None:
    result = summary([write(tmp_path, MODEL), "--group"])
    rows = [line.split() for line in result.stdout.splitlines() if line.startswith("nn.")]
    assert rows == [
        ["nn.conv2d", "1", "108", "3,888", "100.0", "%"],
        ["nn.bias_add", "1", "4", "-", "-"],
        ["nn.relu", "1", "-", "-", "-"],
    ]


def schema() -> dict:
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is in the test extra: pip install -e '.[test]'")
    data = json.loads(
        resources.files("relay_text").joinpath("schemas", "summary.schema.json").read_text(encoding="utf-8")
    )
    jsonschema.Draft202012Validator.check_schema(data)
    return data


def test_json(tmp_path: Path) -> None:
    import jsonschema

    path = write(tmp_path, MODEL)
    result = summary([path, "--output-format", "json"])
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    jsonschema.Draft202012Validator(schema()).validate(document)
    (fn,) = document["functions"]
    assert document["file"] == path
    assert [c["op"] for c in fn["calls"]] == ["nn.conv2d", "nn.bias_add", "nn.relu"]
    assert fn["calls"][0] == {
        "index": 1,
        "name": "%0",
        "op": "nn.conv2d",
        "kind": "operator",
        "type": "Tensor[(1, 4, 6, 6), float32]",
        "output": "1×4×6×6 float32",  # noqa: RUF001 (the multiplication sign separates dimensions in the output)
        "shape": [1, 4, 6, 6],
        "dtype": "float32",
        "weights": 108,
        "weight_bytes": 432,
        "macs": 3888,
        "line": 3,
    }
    assert fn["weights"][1] == {
        "name": "%b",
        "type": "Tensor[(4), float32]",
        "shape": [4],
        "dtype": "float32",
        "count": 4,
        "bytes": 16,
        "kind": "parameter",
    }
    assert document["totals"] == {
        "operators": 3,
        "weights": 112,
        "weight_tensors": 2,
        "weight_bytes": 448,
        "weights_complete": True,
        "macs": 3888,
        "macs_complete": True,
    }


@needs_corpus
@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.rly")), ids=lambda p: p.stem)
def test_json_of_every_corpus_file_follows_the_schema(path: Path) -> None:
    import jsonschema

    result = summary([str(path), "--output-format", "json"])
    assert result.exit_code == 0, result.stderr
    jsonschema.Draft202012Validator(schema()).validate(json.loads(result.stdout))


@needs_corpus
def test_resnet50_totals() -> None:
    result = summary([str(CORPUS / "apache-tvm-menangerie-resnet50.rly"), "--group"])
    assert result.stdout.splitlines()[-1].strip() == (
        "175 calls · 25,595,060 weights (25.6 M, 97.6 MiB) in 259 tensors · 4,089,184,256 MACs (4.09 G)"
    )


def test_inputs_option(tmp_path: Path) -> None:
    result = summary([write(tmp_path, MODEL), "--inputs", "x,w", "--output-format", "json"])
    (fn,) = json.loads(result.stdout)["functions"]
    assert [i["name"] for i in fn["inputs"]] == ["%x", "%w"] and [w["name"] for w in fn["weights"]] == ["%b"]


def test_entry(tmp_path: Path) -> None:
    path = write(tmp_path, "def @helper(%x: int32) { %x + 1 }\n" + MODEL)
    result = summary([path, "--entry", "@helper", "--output-format", "json"])
    assert [f["name"] for f in json.loads(result.stdout)["functions"]] == ["@helper"]
    wrong = summary([path, "--entry", "@mian"])
    assert wrong.exit_code == 2 and wrong.stdout == ""
    assert wrong.stderr == f"error: `@mian` is not a function of {path}; did you mean `@main`?\n"


def test_a_file_with_errors(tmp_path: Path) -> None:
    result = summary([write(tmp_path, "def @main(%x: int32) { %y }\n")])
    assert result.exit_code == 1 and result.stdout == ""
    assert "error[unbound-variable]" in result.stderr
    assert result.stderr.endswith("Found 1 error; nothing was counted\n")


def test_a_missing_file(tmp_path: Path) -> None:
    result = summary([str(tmp_path / "nope.rly")])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("error: ") and "nope.rly" in result.stderr


def test_no_functions(tmp_path: Path) -> None:
    result = summary([write(tmp_path, "type T { A }\n")])
    assert (result.exit_code, result.stdout) == (0, "This file defines no functions: there is nothing to count.\n")


@needs_corpus
def test_a_reader_that_stops_early_ends_the_command_quietly() -> None:
    import subprocess
    import sys

    shell = f"{sys.executable} -m relay_text.cli summary {CORPUS / 'apache-tvm-menangerie-gpt2.rly'} | head -1"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("@main  fn(Tensor[(1, 50, 32), int64])")
