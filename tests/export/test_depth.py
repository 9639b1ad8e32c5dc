"""Deep programs export without recursion: long let chains, chained calls of
operators, globals, closures and loops, deeply nested tuples. `if`s nested
more deeply than ONNX models can hold are a located `export-unsupported`
error, never a traceback. The default run uses 1,200 levels (past
Python's recursion limit of 1,000; 400 chained loops, each of which took
several frames); the slow tests use 100,000, through the command line as
a user would."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from relay_text.cli import main
from relay_text.export.graph import MAX_SUBGRAPH_DEPTH

from .helpers import export, export_errors, ort

DEEP = 1_200
VERY_DEEP = 100_000
X = "Tensor[(2), float32]"


def let_chain(n: int) -> str:
    lines = [f"def @main(%x: {X}) {{", "  let %v0 = add(%x, 1f);"]
    lines += [f"  let %v{i} = add(%v{i - 1}, 1f);" for i in range(1, n)]
    return "\n".join([*lines, f"  %v{n - 1}", "}"]) + "\n"


def graph_chain(n: int) -> str:
    lines = ['#[version = "0.0.5"]', f"def @main(%x: {X}) {{", "  %0 = add(%x, 1f);"]
    lines += [f"  %{i} = add(%{i - 1}, 1f);" for i in range(1, n)]
    return "\n".join([*lines, f"  %{n - 1}", "}"]) + "\n"


def nested_calls(n: int) -> str:
    return f"def @main(%x: {X}) {{\n  " + "add(" * n + "%x" + ", 1f)" * n + "\n}\n"


def global_chain(n: int) -> str:
    """@f{i} calls @f{i-1} and adds 1 to its result: n inlined calls nested in one another."""
    lines = [f"def @f0(%x: {X}) {{ add(%x, 1f) }}"]
    lines += [f"def @f{i}(%x: {X}) {{ add(@f{i - 1}(%x), 1f) }}" for i in range(1, n)]
    return "\n".join([*lines, f"def @main(%x: {X}) {{ @f{n - 1}(%x) }}"]) + "\n"


def closure_chain(n: int) -> str:
    lines = [f"def @main(%x: {X}) {{", f"  let %f0 = fn (%y: {X}) {{ add(%y, 1f) }};"]
    lines += [f"  let %f{i} = fn (%y: {X}) {{ add(%f{i - 1}(%y), 1f) }};" for i in range(1, n)]
    return "\n".join([*lines, f"  %f{n - 1}(%x)", "}"]) + "\n"


def loop_chain(n: int) -> str:
    """n loops, each counting to 3 and leaving through a call of the next."""
    lines = [f"def @l0(%i: int32, %x: {X}) -> {X} {{ if (%i < 3) {{ @l0(%i + 1, add(%x, 1f)) }} else {{ %x }} }}"]
    lines += [
        f"def @l{k}(%i: int32, %x: {X}) -> {X} "
        f"{{ if (%i < 3) {{ @l{k}(%i + 1, add(%x, 1f)) }} else {{ @l{k - 1}(0, %x) }} }}"
        for k in range(1, n)
    ]
    return "\n".join([*lines, f"def @main(%x: {X}) {{ @l{n - 1}(0, %x) }}"]) + "\n"


def nested_ifs(n: int) -> str:
    """`if`s nested n deep in their then-branches; the innermost negates %x."""
    return f"def @main(%b: bool, %x: {X}) {{\n" + "if (%b) { negative(\n" * n + "%x" + ") } else { %x }\n" * n + "}\n"


def run_model(model, **inputs):  # type: ignore[no-untyped-def]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, inputs)


ONES = np.ones(2, np.float32)


@pytest.mark.parametrize(
    "program, nodes",
    [
        pytest.param(let_chain, DEEP, id="let-chain"),
        pytest.param(graph_chain, DEEP, id="graph-bindings"),
        pytest.param(nested_calls, DEEP, id="nested-operator-calls"),
        pytest.param(global_chain, DEEP, id="chained-global-calls"),
        pytest.param(closure_chain, DEEP, id="chained-closure-calls"),
    ],
)
def test_a_deep_chain_exports_and_adds_one_per_level(program, nodes: int) -> None:  # type: ignore[no-untyped-def]
    model = export(program(DEEP))
    assert [n.op_type for n in model.graph.node].count("Add") == nodes
    [out] = run_model(model, x=ONES)
    np.testing.assert_array_equal(out, ONES + DEEP)


def test_chained_loops_export_as_one_loop_each() -> None:
    """400 loops, each leaving through the next: exporting a loop took
    several Python frames, so this chain passed the recursion limit."""
    n = 400
    model = export(loop_chain(n))
    assert [node.op_type for node in model.graph.node].count("Loop") == n
    [out] = run_model(model, x=ONES)
    np.testing.assert_array_equal(out, ONES + 3 * n)


def test_a_deeply_nested_tuple_exports() -> None:
    text = f"def @main(%x: {X}) {{\n  " + "(" * DEEP + "%x" + ",)" * DEEP + "\n}\n"
    model = export(text)
    [out] = model.graph.output
    assert out.name == "out0" + "_0" * (DEEP - 1)


def test_ifs_nested_as_deep_as_onnx_allows_export_and_run() -> None:
    model = export(nested_ifs(MAX_SUBGRAPH_DEPTH))
    assert run_model(model, b=np.array(True), x=ONES)[0].tolist() == [-1.0, -1.0]
    assert run_model(model, b=np.array(False), x=ONES)[0].tolist() == [1.0, 1.0]


def test_an_if_nested_too_deeply_is_reported_where_it_is() -> None:
    [d] = export_errors(nested_ifs(DEEP))
    _, line, column, _, _ = d.location()
    deepest = MAX_SUBGRAPH_DEPTH + 1  # the first `if` whose branches would be too deep
    assert (d.code, line, column) == ("export-unsupported", deepest + 1, 1)
    assert d.message == (
        f"this `if` cannot be exported: its subgraphs would be nested {deepest} deep, and ONNX readers accept at "
        f"most {MAX_SUBGRAPH_DEPTH}"
    )
    assert d.label == f"inside {MAX_SUBGRAPH_DEPTH} other `if`s or loops"


def test_a_loop_nested_too_deeply_is_reported_at_its_call() -> None:
    text = (
        f"def @count(%i: int32, %x: {X}) -> {X} {{ if (%i < 3) {{ @count(%i + 1, add(%x, 1f)) }} else {{ %x }} }}\n"
        f"def @main(%b: bool, %x: {X}) {{\n"
        + "if (%b) { negative(\n" * MAX_SUBGRAPH_DEPTH
        + "@count(0, %x)"
        + ") } else { %x }\n" * MAX_SUBGRAPH_DEPTH
        + "}\n"
    )
    [d] = export_errors(text)
    _, line, column, _, _ = d.location()
    assert (d.code, line, column) == ("export-unsupported", MAX_SUBGRAPH_DEPTH + 3, 1)
    assert d.message.startswith(
        f"this loop cannot be exported: its subgraphs would be nested {MAX_SUBGRAPH_DEPTH + 1} deep"
    )


def test_mutual_recursion_through_loops_is_reported() -> None:
    text = (
        f"def @a(%i: int32, %x: {X}) -> {X} {{ if (%i < 3) {{ @a(%i + 1, %x) }} else {{ @b(0, %x) }} }}\n"
        f"def @b(%i: int32, %x: {X}) -> {X} {{ if (%i < 3) {{ @b(%i + 1, %x) }} else {{ @a(0, %x) }} }}\n"
        f"def @main(%x: {X}) {{ @a(0, %x) }}\n"
    )
    [d] = export_errors(text)
    _, line, column, _, _ = d.location()
    assert (d.code, line, column) == ("export-unsupported", 2, text.splitlines()[1].index("@a(0, %x)") + 1)
    assert d.message == "`@a` calls itself through another function: ONNX graphs cannot recurse"


# ---- 100,000 levels, through the command line ---------------------------------


def _cli_export(tmp_path: Path, text: str) -> tuple[int, str, Path]:
    src = tmp_path / "deep.rly"
    src.write_text(text)
    out = tmp_path / "deep.onnx"
    result = CliRunner().invoke(main, ["export", str(src), "-o", str(out), "--color", "never"])
    assert "internal error" not in result.output and "Traceback" not in result.output, result.output[-2000:]
    return result.exit_code, result.output, out


@pytest.mark.slow
@pytest.mark.parametrize(
    "program",
    [let_chain, nested_calls, global_chain],
    ids=["let-chain", "nested-operator-calls", "chained-global-calls"],
)
def test_100000_levels_export_from_the_command_line(tmp_path: Path, program) -> None:  # type: ignore[no-untyped-def]
    code, output, out = _cli_export(tmp_path, program(VERY_DEEP))
    assert code == 0, output[-2000:]
    assert output.startswith(f"wrote {out}: {VERY_DEEP + 1} nodes, 1 input, 1 output")
    [result] = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"]).run(None, {"x": ONES})
    np.testing.assert_array_equal(result, ONES + VERY_DEEP)


@pytest.mark.slow
def test_100000_nested_ifs_are_refused_from_the_command_line(tmp_path: Path) -> None:
    code, output, out = _cli_export(tmp_path, nested_ifs(VERY_DEEP))
    assert code == 1
    assert f"deep.rly:{MAX_SUBGRAPH_DEPTH + 2}:1" in output
    assert "error[export-unsupported]: this `if` cannot be exported" in output
    assert output.rstrip().endswith("Found 1 error; nothing was exported")
    assert not out.exists()


@pytest.mark.slow
def test_100000_let_chain_runs_on_onnxruntime_from_the_command_line(tmp_path: Path) -> None:
    src = tmp_path / "deep.rly"
    src.write_text(let_chain(VERY_DEEP))
    np.save(tmp_path / "x.npy", ONES)
    result = CliRunner().invoke(
        main,
        ["run", str(src), "--engine", "onnxruntime", "--arg", f"x=@{tmp_path / 'x.npy'}", "--output-format", "json"],
    )
    assert result.exit_code == 0, result.output[-2000:]
    assert "100001.0" in result.output
