"""`relay export` and `relay run --engine onnxruntime`: what cannot be
exported is a located diagnostic; weights become initializers; the command
line writes a model onnxruntime runs as the numpy engine does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from relay_text.cli import main

from .helpers import export, export_errors, onnx


def located(d):  # (code, line, column) of a diagnostic
    _, line, col, _, _ = d.location()
    return d.code, line, col


def test_a_match_is_reported_where_it_is() -> None:
    text = (
        "type Opt { Yes(Tensor[(), float32]), No }\ndef @main(%x: float32) {\n  match (Yes(%x)) { Yes(%y) => "
        "%y, No => 0f }\n}\n"
    )
    [d] = export_errors(text)
    assert located(d) == ("export-unsupported", 3, 3)
    assert "pattern matching" in d.message


def test_a_constructor_is_reported() -> None:
    [d] = export_errors("type Opt { Yes(float32), No }\ndef @main(%x: float32) -> Opt {\n  Yes(%x)\n}\n")
    assert located(d) == ("export-unsupported", 3, 3)
    assert "constructor `Yes`" in d.message


def test_a_reference_is_reported() -> None:
    [d] = export_errors("def @main(%x: float32) {\n  let %r = ref(%x);\n  %r\n}\n")
    assert located(d) == ("export-unsupported", 2, 12)
    assert "references" in d.message


def test_recursion_that_is_not_a_loop_is_reported_at_the_call() -> None:
    text = (
        "def @fact(%n: int32) -> int32 {\n  if (%n <= 1) { 1 } else { %n * @fact(%n - 1) }\n}\n"
        "def @main(%n: int32) -> int32 {\n  @fact(%n)\n}\n"
    )
    [d] = export_errors(text)
    assert located(d) == ("export-unsupported", 5, 3)
    assert d.message.startswith("`@fact` is recursive and ONNX graphs cannot recurse")


def test_an_escaping_closure_is_reported() -> None:
    [d] = export_errors("def @main(%x: float32) {\n  fn (%y: float32) { %x + %y }\n}\n")
    assert d.code == "export-unsupported" and "result is a function" in d.message


def test_every_unsupported_operator_is_reported_once_with_its_reason() -> None:
    text = (
        "def @main(%k: Tensor[(10), uint64], %x: Tensor[(1, 4, 5, 5), float32], %w: Tensor[(2, 4, 3, 3), float32]) {\n"
        "  %0 = random.uniform(%k, 0f, 1f, out_shape=[1, 18, 3, 3]);\n"
        "  %1 = random.uniform(%0.0, 0f, 1f, out_shape=[1, 18, 3, 3]);\n"
        "  nn.deformable_conv2d(%x, %0.1 + %1.1, %w)\n}\n"
    )
    ds = export_errors(text)
    assert [located(d) for d in ds] == [("export-unsupported", 2, 8), ("export-unsupported", 4, 3)]
    assert ds[0].message.startswith("`random.uniform` cannot be exported: not converted yet: TVM's Threefry generator")
    assert ds[0].notes == ["`random.uniform` is called 2 times in the exported program"]
    assert ds[1].message.startswith("`nn.deformable_conv2d` cannot be exported: not converted yet")


def test_vm_instructions_have_no_onnx_equivalent() -> None:
    text = (
        "def @main(%x: Tensor[(4), float32]) {\n  let %s = memory.alloc_storage(16i64, shape_of(%x), 64i64);\n  %x\n}\n"
    )
    [d] = export_errors(text)
    assert located(d) == ("export-unsupported", 2, 12)
    assert d.message.startswith(
        "`memory.alloc_storage` has no ONNX equivalent: an instruction of TVM's virtual machine"
    )


def test_an_operator_needing_a_later_opset_sets_the_opset_or_is_reported() -> None:
    text = "def @main(%x: Tensor[(4), float32]) {\n  cumprod(%x)\n}\n"
    assert export(text).opset_import[0].version == 26
    [d] = export_errors(text, opset=18)
    assert located(d) == ("export-unsupported", 2, 3)
    assert d.message == "`cumprod` needs ONNX opset 26 or later, and this export writes opset 18"
    assert d.helps == [
        "export with `--opset 26` (or without `--opset`: the exporter then writes the opset the program needs)"
    ]


def test_call_lowered_is_exported_as_the_call() -> None:
    from .helpers import agree

    text = (
        "def @f(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32] { add(%x, %y) }\n"
        "def @main(%a: Tensor[(2, 3), float32]) {\n  %g = fn (%z: Tensor[(2, 3), float32]) { negative(%z) };\n"
        "  (call_lowered(@f, (%a, %a)), call_lowered(%g, (%a,)))\n}\n"
    )
    agree(text)
    assert [n.op_type for n in export(text).graph.node].count("Add") == 1


def test_a_recursive_global_loop_is_an_onnx_loop() -> None:
    text = (
        "def @count(%i: int32, %acc: Tensor[(3), float32]) -> Tensor[(3), float32] {\n"
        "  if (%i < 5) { @count(%i + 1, %acc * 2f) } else { %acc + 1f }\n}\n"
        "def @main(%x: Tensor[(3), float32]) { @count(0, %x) }\n"
    )
    from .helpers import agree

    agree(text)
    assert [n.op_type for n in export(text).graph.node].count("Loop") == 1


def test_if_on_a_scalar_is_an_onnx_if() -> None:
    text = "def @main(%c: bool, %x: Tensor[(2), float32]) {\n  if (%c) { (%x, 1f) } else { (negative(%x), 2f) }\n}\n"
    from .helpers import agree

    agree(text)
    assert [n.op_type for n in export(text).graph.node].count("If") == 1


def test_shared_nodes_are_exported_once() -> None:
    text = (
        "def @main(%x: Tensor[(2), float32]) {\n  %0 = exp(%x);\n  %1 = add(%0, %0);\n  %2 = add(%1, %1);\n  "
        "add(%2, %2)\n}\n"
    )
    ops = [n.op_type for n in export(text).graph.node]
    assert ops.count("Exp") == 1 and ops.count("Add") == 3


WEIGHTS = "def @main(%x: Tensor[(1, 4), float32], %w: Tensor[(3, 4), float32]) {\n  nn.dense(%x, %w, units=3)\n}\n"


def test_args_become_initializers(tmp_path: Path) -> None:
    params = tmp_path / "w.npz"
    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.savez(params, w=w)
    model = export(WEIGHTS, args_file=str(params))
    assert [i.name for i in model.graph.input] == ["x"]
    from onnx import numpy_helper

    assert any(np.array_equal(numpy_helper.to_array(t), w) for t in model.graph.initializer)


def test_args_that_do_not_fit_are_bad_arguments(tmp_path: Path) -> None:
    params = tmp_path / "w.npz"
    np.savez(params, w=np.zeros((4, 4), np.float32), v=np.zeros(1))
    ds = export_errors(WEIGHTS, args_file=str(params))
    assert sorted(d.code for d in ds) == ["bad-argument", "bad-argument"]


META = "def @main(%x: Tensor[(2, 3), float32]) {\n  add(%x, meta[relay.Constant][0])\n}\n"


def test_constants_without_data_need_random_consts() -> None:
    [d] = export_errors(META)
    assert located(d) == ("bad-metadata", 2, 11)


def test_random_consts_are_the_values_relay_run_uses(tmp_path: Path) -> None:
    src = tmp_path / "m.rly"
    src.write_text(META)
    out = tmp_path / "m.onnx"
    result = CliRunner().invoke(main, ["export", str(src), "-o", str(out), "--random-consts", "--seed", "3"])
    assert result.exit_code == 0, result.output
    x = np.ones((2, 3), np.float32)
    np.save(tmp_path / "x.npy", x)
    ran = CliRunner().invoke(
        main,
        [
            "run",
            str(src),
            "--random-consts",
            "--seed",
            "3",
            "--arg",
            f"x=@{tmp_path / 'x.npy'}",
            "--output-format",
            "npz",
            "--output",
            str(tmp_path / "r.npz"),
        ],
    )
    assert ran.exit_code == 0, ran.output
    import onnxruntime as ort

    got = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_array_equal(got, np.load(tmp_path / "r.npz")["out0"])


def test_the_command_writes_a_checked_model(tmp_path: Path) -> None:
    src = tmp_path / "p.rly"
    src.write_text(WEIGHTS)
    out = tmp_path / "p.onnx"
    result = CliRunner().invoke(main, ["export", str(src), "-o", str(out), "--opset", "17"])
    assert result.exit_code == 0
    assert "wrote" in result.output
    model = onnx.load(str(out))
    onnx.checker.check_model(model, full_check=True)
    assert model.opset_import[0].version == 17
    assert [o.name for o in model.graph.output] == ["out0"]


def test_the_command_fails_on_what_cannot_be_exported(tmp_path: Path) -> None:
    src = tmp_path / "p.rly"
    src.write_text("def @main(%x: float32) {\n  let %r = ref(%x);\n  %r\n}\n")
    result = CliRunner().invoke(main, ["export", str(src), "-o", str(tmp_path / "p.onnx"), "--color", "never"])
    assert result.exit_code == 1
    assert "error[export-unsupported]" in result.output and "nothing was exported" in result.output
    assert not (tmp_path / "p.onnx").exists()


def test_an_opset_out_of_range_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "p.rly"
    src.write_text(WEIGHTS)
    result = CliRunner().invoke(main, ["export", str(src), "-o", str(tmp_path / "p.onnx"), "--opset", "9"])
    assert result.exit_code == 1 and "--opset 9 is outside" in result.output


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_run_on_onnxruntime_prints_what_the_numpy_engine_prints(tmp_path: Path, fmt: str) -> None:
    src = tmp_path / "p.rly"
    src.write_text("def @main(%x: Tensor[(2, 2), int32]) {\n  (add(%x, 1), sum(%x))\n}\n")
    base = ["run", str(src), "--random-args", "--seed", "5", "--output-format", fmt]
    numpy_out = CliRunner().invoke(main, base)
    ort_out = CliRunner().invoke(main, [*base, "--engine", "onnxruntime"])
    assert numpy_out.exit_code == ort_out.exit_code == 0
    assert ort_out.output == numpy_out.output


def test_run_on_onnxruntime_reports_what_cannot_be_exported(tmp_path: Path) -> None:
    src = tmp_path / "p.rly"
    src.write_text(
        "def @main(%x: Tensor[(4), float32]) {\n  let %s = memory.alloc_storage(16i64, shape_of(%x), 64i64);\n  %x\n}\n"
    )
    result = CliRunner().invoke(main, ["run", str(src), "--random-args", "--engine", "onnxruntime", "--color", "never"])
    assert result.exit_code == 1
    assert "error[export-unsupported]: `memory.alloc_storage` has no ONNX equivalent" in result.output


def test_max_memory_bounds_onnxruntime_s_tensors(tmp_path: Path) -> None:
    """A tensor whose size only the run knows: onnxruntime's arena refuses
    it before allocating, and the run stops at the call that asked."""
    from relay_text import limits

    src = tmp_path / "p.rly"
    src.write_text('def @main(%s: Tensor[(1), int64]) {\n  let %big = dyn.ones(%s, dtype="float32");\n  sum(%big)\n}\n')
    np.save(tmp_path / "s.npy", np.array([32 * 2**20], np.int64))  # 128 MiB of float32
    base = ["run", str(src), "--arg", f"s=@{tmp_path / 's.npy'}", "--engine", "onnxruntime", "--color", "never"]
    held = limits.resident()
    small = CliRunner().invoke(main, [*base, "--max-memory", str(held + 64 * 2**20)])
    assert small.exit_code == 1, small.output
    assert (
        "error[resource-limit]: this call needs 128 MiB, more than onnxruntime may still take under the memory limit of"
        in small.output
    )
    assert "p.rly:2:14" in small.output
    big = CliRunner().invoke(main, [*base, "--max-memory", str(held + 2**30)])
    assert big.exit_code == 0, big.output
    assert big.output.splitlines()[-1] == "3.3554432e+07"
