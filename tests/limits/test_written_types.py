"""A tensor type written in the program is held to the static limits
(relay_text.limits: MAX_RANK dimensions, MAX_STATIC_ELEMENTS elements):
`relay check` reports a `resource-limit` error at the written shape,
wherever the type is written, in both dialects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from relay_text import limits
from relay_text.cli import main

TVM = '#[version = "0.0.5"]\n'
RANK_33 = "(" + ", ".join(["2"] * 33) + ")"
TOO_MANY_DIMS = "a tensor type of 33 dimensions has more than the limit of 32"


def check_json(tmp_path: Path, text: str) -> tuple[int, list[dict]]:
    prog = tmp_path / "prog.rly"
    prog.write_text(text)
    result = CliRunner().invoke(main, ["check", "--output-format", "json", str(prog)], env={"NO_COLOR": "1"})
    return result.exit_code, json.loads(result.stdout)["diagnostics"]


def where(d: dict) -> tuple[int, int, int, int]:
    return d["line"], d["column"], d["end_line"], d["end_column"]


@pytest.mark.parametrize(
    "text",
    [
        # a function's parameter, in both dialects
        "def @f(%x: Tensor[SHAPE, float32]) { %x }\n",
        TVM + "def @f(%x: Tensor[SHAPE, float32]) { %x }\n",
        # a function's result
        "def @f(%x: int32) -> Tensor[SHAPE, float32] { %x }\n",
        # a let annotation
        "def @f() { let %x: Tensor[SHAPE, float32] = 1f; %x }\n",
        TVM + "def @f() { let %x: Tensor[SHAPE, float32] = 1f; %x }\n",
        # a type definition, in both dialects
        "data D { C : (Tensor[SHAPE, float32]) -> D }\n",
        TVM + "type D { C(Tensor[SHAPE, float32]) }\n",
        # inside a tuple type, a data type's argument and a function type
        "def @f(%x: List[(int32, Tensor[SHAPE, float32])]) { %x }\n",
        "def @f(%g: fn (Tensor[SHAPE, float32]) -> int32) { %g }\n",
        # an explicit type argument
        "def @id<t>(%x: t) { %x }\ndef @f() { @id<Tensor[SHAPE, float32]>(1) }\n",
    ],
)
def test_a_written_tensor_type_of_33_dimensions_is_a_resource_limit(tmp_path: Path, text: str) -> None:
    status, diags = check_json(tmp_path, text.replace("SHAPE", RANK_33))
    errors = [d for d in diags if d["severity"] == "error"]
    assert status == 1
    assert [(d["code"], d["message"], d["label"]) for d in errors] == [("resource-limit", TOO_MANY_DIMS, "too large")]
    line_text = text.replace("SHAPE", RANK_33).splitlines()[errors[0]["line"] - 1]
    column = line_text.index(RANK_33) + 1
    assert where(errors[0])[1:] == (column, errors[0]["line"], column + len(RANK_33))


def test_the_rank_limit_is_exact_and_counts_symbolic_dimensions(tmp_path: Path) -> None:
    at_limit = "(" + ", ".join(["1"] * limits.MAX_RANK) + ")"
    assert check_json(tmp_path, f"def @f(%x: Tensor[{at_limit}, float32]) {{ %x }}\n") == (0, [])
    symbolic = "(n, ?, " + ", ".join(["1"] * (limits.MAX_RANK - 1)) + ")"
    status, diags = check_json(tmp_path, f"def @f<n : ShapeVar>(%x: Tensor[{symbolic}, float32]) {{ %x }}\n")
    assert status == 1
    assert [(d["code"], d["message"]) for d in diags] == [
        ("resource-limit", "a tensor type of 33 dimensions has more than the limit of 32")
    ]
    assert where(diags[0]) == (1, 33, 1, 33 + len(symbolic))


def test_a_written_tensor_type_with_too_many_elements_is_a_resource_limit(tmp_path: Path) -> None:
    status, diags = check_json(tmp_path, "def @main(%x: Tensor[(1048576, 1048576, 2), float32]) { %x }\n")
    assert status == 1
    assert [(d["code"], d["message"], d["label"]) for d in diags] == [
        (
            "resource-limit",
            "a tensor type of 2,199,023,255,552 elements has more than the limit of 1,099,511,627,776 (2^40)",
            "too large",
        )
    ]
    assert where(diags[0]) == (1, 22, 1, 43)
    # exactly 2^40 elements is within the limit; a symbolic dimension is not counted
    assert check_json(tmp_path, "def @main(%x: Tensor[(1048576, 1048576), float32]) { %x }\n") == (0, [])
    assert check_json(tmp_path, "def @main(%x: Tensor[(1048576, 1048576, ?), float32]) { %x }\n") == (0, [])


def test_relay_run_stops_before_running_a_program_with_such_a_type(tmp_path: Path) -> None:
    prog = tmp_path / "prog.rly"
    prog.write_text(f"def @main(%x: Tensor[{RANK_33}, float32]) {{ %x }}\n")
    result = CliRunner().invoke(main, ["run", "--random-args", str(prog)], env={"NO_COLOR": "1"})
    assert result.exit_code == 1
    assert result.stderr.splitlines()[:2] == [f"error[resource-limit]: {TOO_MANY_DIMS}", f" --> {prog}:1:22"]
    assert result.stderr.splitlines()[-1] == "Found 1 error; nothing was run"


@pytest.mark.parametrize(
    "call, message",
    [
        (
            "expand_dims(%x, axis=0, num_newaxis=40)",
            "`expand_dims` would produce a tensor of 42 dimensions, more than the limit of 32",
        ),
        (
            'zeros(shape=[1048576, 1048576, 4], dtype="float32")',
            (
                "`zeros` would produce a tensor of 4,398,046,511,104 elements, more than the limit of "
                "1,099,511,627,776 (2^40)"
            ),
        ),
        (
            # built before the result's rank was checked: 2^31 dimensions of
            # size 1 ran the machine out of memory (found by sweeping every
            # integer attribute of every operator with huge values)
            "expand_dims(%x, axis=0, num_newaxis=2147483647)",
            "`expand_dims` would produce a tensor of 2,147,483,649 dimensions, more than the limit of 32",
        ),
        (
            "dyn.expand_dims(%x, 0, num_newaxis=9223372036854775807)",
            (
                "`dyn.expand_dims` would produce a tensor of 9,223,372,036,854,775,809 dimensions, more than "
                "the limit of 32"
            ),
        ),
    ],
    ids=["rank", "elements", "rank-from-a-huge-attribute", "dynamic-rank-from-a-huge-attribute"],
)
def test_an_operator_result_beyond_the_limits_is_reported_at_the_call(tmp_path: Path, call: str, message: str) -> None:
    """The result type of an operator is held to the same limits as a written
    type: `check` reports the call, and `run` does not start."""
    text = f"def @main(%x: Tensor[(2, 3), float32]) {{\n  {call}\n}}\n"
    status, diags = check_json(tmp_path, text)
    assert status == 1
    assert [(d["code"], d["message"], where(d)) for d in diags] == [
        ("resource-limit", message, (2, 3, 2, 3 + len(call)))
    ]
    prog = tmp_path / "prog.rly"
    result = CliRunner().invoke(main, ["run", str(prog)], env={"NO_COLOR": "1"})
    assert result.exit_code == 1 and "nothing was run" in result.stderr
