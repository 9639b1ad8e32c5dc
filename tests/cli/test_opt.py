"""`relay opt` on the command line: listing, pass lists, files, streams,
dialects, JSON, errors."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from relay_text.cli import main

PROGRAM = "def @main(%x : Tensor[(2), float32]) {\n  let %unused = add(%x, 1f);\n  multiply(%x, add(1f, 2f))\n}\n"


def invoke(*args: str, input: str | None = None) -> object:
    return CliRunner().invoke(main, list(args), input=input)


def test_list_shows_every_pass_with_its_summary_and_options() -> None:
    from relay_text.passes.registry import all_passes

    result = invoke("opt", "--list")
    assert result.exit_code == 0  # type: ignore[attr-defined]
    out = result.stdout  # type: ignore[attr-defined]
    for p in all_passes():
        assert f"{p.name}  " in out or out.startswith(p.name)
        assert p.summary in out
    assert "inline_once=false" in out and "fuse_opt_level=2" in out


def test_the_issue_list_of_passes_is_registered() -> None:
    from relay_text.passes.registry import get

    wanted = [
        "InferType",
        "FoldConstant",
        "SimplifyInference",
        "DeadCodeElimination",
        "EliminateCommonSubexpr",
        "ToANormalForm",
        "ToGraphNormalForm",
        "ToBasicBlockNormalForm",
        "Inline",
        "FuseOps",
        "DefuseOps",
        "DynamicToStatic",
        "SimplifyExpr",
        "LambdaLift",
        "Defunctionalization",
        "ToMixedPrecision",
        "FoldScaleAxis",
        "BackwardFoldScaleAxis",
        "ForwardFoldScaleAxis",
        "gradient",
        "FoldAffine",
        "DenseWeightLayout",
    ]
    assert [name for name in wanted if get(name) is None] == []


def test_a_file_to_standard_output(tmp_path: Path) -> None:
    path = tmp_path / "p.rly"
    path.write_text(PROGRAM)
    result = invoke("opt", str(path), "--passes", "DeadCodeElimination,FoldConstant")
    assert result.exit_code == 0  # type: ignore[attr-defined]
    assert result.stdout == "def @main(%x : Tensor[(2), float32]) {\n  multiply(%x, 3.0)\n}\n"  # type: ignore[attr-defined]


def test_standard_input_to_a_file_in_tvms_dialect(tmp_path: Path) -> None:
    out = tmp_path / "out.rly"
    result = invoke("opt", "-", "--passes", "FoldConstant", "--dialect", "tvm", "-o", str(out), input=PROGRAM)
    assert result.exit_code == 0 and result.stdout == ""  # type: ignore[attr-defined]
    assert out.read_text().startswith('#[version = "0.0.5"]\ndef @main(%x: Tensor[(2), float32]) {')
    assert "multiply(%x, 3f)" in out.read_text()


def test_json_output_carries_the_program_diagnostics_and_timings() -> None:
    result = invoke("opt", "-", "--passes", "InferType", "--output-format", "json", input=PROGRAM)
    doc = json.loads(result.stdout)  # type: ignore[attr-defined]
    assert result.exit_code == 0  # type: ignore[attr-defined]
    assert doc["diagnostics"] == []
    assert "let %unused : Tensor[(2), float32]" in doc["program"]
    assert [p["name"] for p in doc["passes"]] == ["InferType"]


def test_an_unknown_pass_is_a_usage_error_with_a_suggestion() -> None:
    result = invoke("opt", "-", "--passes", "FoldConstants", input=PROGRAM)
    assert result.exit_code == 2  # type: ignore[attr-defined]
    assert "unknown pass `FoldConstants`; did you mean `FoldConstant`?" in result.stderr  # type: ignore[attr-defined]


def test_a_bad_option_is_a_usage_error_naming_the_options() -> None:
    result = invoke("opt", "-", "--passes", "DeadCodeElimination{inline=1}", input=PROGRAM)
    assert result.exit_code == 2  # type: ignore[attr-defined]
    assert "`DeadCodeElimination` has no option `inline`" in result.stderr  # type: ignore[attr-defined]
    assert "inline_once=false" in result.stderr  # type: ignore[attr-defined]
    result = invoke("opt", "-", "--passes", "FuseOps{max_depth=many}", input=PROGRAM)
    assert "option `max_depth` takes an integer, not `many`" in result.stderr  # type: ignore[attr-defined]


def test_a_program_with_errors_is_reported_and_nothing_is_written() -> None:
    result = invoke("opt", "-", "--passes", "InferType", "--color", "never", input="def @main() { add(1, True) }\n")
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert result.stdout == ""  # type: ignore[attr-defined]
    assert "error[" in result.stderr and "nothing was written" in result.stderr  # type: ignore[attr-defined]


def test_passes_are_required() -> None:
    result = invoke("opt", "-", input=PROGRAM)
    assert result.exit_code == 2 and "--passes is required" in result.stderr  # type: ignore[attr-defined]


def test_a_missing_file() -> None:
    result = invoke("opt", "/no/such/file.rly", "--passes", "InferType", "--color", "never")
    assert result.exit_code == 2  # type: ignore[attr-defined]
    assert "no such file" in result.stderr  # type: ignore[attr-defined]


def test_what_the_tvm_dialect_cannot_write_is_reported() -> None:
    text = "def @main() {\n  Constant(1, (2, 2), float32)\n}\n"
    result = invoke("opt", "-", "--passes", "InferType", "--dialect", "tvm", "--color", "never", input=text)
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert "error[unformattable]" in result.stderr  # type: ignore[attr-defined]
