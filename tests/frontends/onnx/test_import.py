"""`relay import MODEL.onnx`: the text, the weights, the diagnostics."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import relay_text
from relay_text.cli import main
from tests.frontends.onnx.models import FLOAT, TensorProto, model, node, onnxruntime_run, small_cnn

from relay_text.frontends.onnx import ImportFailure, from_onnx

CNN_TEXT = """\
#[version = "0.0.5"]
def @main(
  %x: Tensor[(?, 2, 5, 5), float32],
  %conv.weight: Tensor[(3, 2, 3, 3), float32],
  %conv.bias: Tensor[(3), float32],
  %fc.weight: Tensor[(4, 3), float32],
  %fc.bias: Tensor[(4), float32]
) -> Tensor[(?, 4), float32] {
  %0 = nn.conv2d(%x, %conv.weight, padding=[1, 1, 1, 1], kernel_size=[3, 3], channels=3);
  %1 = nn.bias_add(%0, %conv.bias) /* conv: Conv */;
  %2 = nn.relu(%1) /* relu: Relu */;
  %3 = nn.global_avg_pool2d(%2) /* pool: GlobalAveragePool */;
  %4 = nn.batch_flatten(%3) /* flatten: Flatten */;
  %5 = nn.dense(%4, %fc.weight, units=4);
  add(%5, %fc.bias) /* fc: Gemm */
}
"""


def cli(args: list[str], cwd: Path | None = None):
    runner = CliRunner()
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return runner.invoke(main, ["import", *args], env={"NO_COLOR": "1"}, catch_exceptions=False)
    finally:
        os.chdir(old)


def save(m, path: Path) -> str:
    import onnx

    onnx.save(m, str(path))
    return str(path)


def test_the_text_of_a_small_cnn() -> None:
    """TVM's 0.0.5 format: the weights are parameters after the input (TVM's
    `mod, params`), an open dimension is `?`, each node's name stands
    beside the call that computes it, and attributes at their defaults are
    left out."""
    assert from_onnx(small_cnn()).text() == CNN_TEXT


def test_the_text_is_what_fmt_writes_and_it_checks() -> None:
    imported = from_onnx(small_cnn())
    for text in (imported.text(), imported.text("docs"), imported.text(embed=True)):
        assert relay_text.format(text) == text
        checked = relay_text.check(text)
        assert checked.ok, checked.diagnostics
    assert imported.text("docs").startswith("def @main(\n  %x : Tensor[(?, 2, 5, 5), float32],")


def test_the_program_computes_what_onnxruntime_computes() -> None:
    m = small_cnn()
    x = np.random.default_rng(1).standard_normal((2, 2, 5, 5)).astype(np.float32)
    imported = from_onnx(m)
    weights = imported.weights()
    assert list(weights) == ["conv.weight", "conv.bias", "fc.weight", "fc.bias"]
    got = relay_text.run(imported.text(), x, *weights.values())
    np.testing.assert_allclose(got, onnxruntime_run(m, [x])[0], rtol=1e-5, atol=1e-6)


def test_embedded_weights_are_a_metadata_section() -> None:
    m = small_cnn()
    text = from_onnx(m).text(embed=True)
    assert text.startswith(
        '#[version = "0.0.5"]\ndef @main(%x: Tensor[(?, 2, 5, 5), float32]) -> Tensor[(?, 4), float32] {\n'
    )
    assert "nn.conv2d(%x, meta[relay.Constant][0], padding=[1, 1, 1, 1]" in text
    assert "\n}\n#[metadata]\n{\n" in text
    x = np.ones((1, 2, 5, 5), np.float32)
    np.testing.assert_allclose(relay_text.run(text, x), onnxruntime_run(m, [x])[0], rtol=1e-5, atol=1e-6)


def test_input_shape_fixes_open_dimensions() -> None:
    text = from_onnx(small_cnn(), {"x": (1, 2, 5, 5)}).text()
    assert "%x: Tensor[(1, 2, 5, 5), float32]" in text and ") -> Tensor[(1, 4), float32] {" in text


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        ({"y": (1,)}, "`--input-shape y=...`: the model has no input `y`"),
        ({"x": (1, 2)}, "`--input-shape x`: the input has 4 dimensions, 2 were given"),
        ({"x": (1, 3, 5, 5)}, "`--input-shape x`: dimension 1 of the input is 2, not 3"),
    ],
)
def test_input_shape_mistakes(shapes: dict, message: str) -> None:
    with pytest.raises(ImportFailure) as info:
        from_onnx(small_cnn(), shapes)
    assert info.value.diagnostics[0].message == message
    assert info.value.diagnostics[0].code == "import-unsupported"


def test_the_command_writes_the_text_and_the_weights(tmp_path: Path) -> None:
    """`relay import model.onnx` writes model.rly and model.params.npz here;
    `relay run --args` takes the weights as they are."""
    src = save(small_cnn(), tmp_path / "cnn.onnx")
    result = cli([src, "--input-shape", "x=1,2,5,5"], cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith(f"Imported {src} -> cnn.rly, weights in cnn.params.npz (4 tensors, 292 B) in ")
    text = (tmp_path / "cnn.rly").read_text()
    assert text == CNN_TEXT.replace("?", "1")
    assert (tmp_path / "cnn.rly").stat().st_mode & 0o777 == 0o666 & ~_umask()
    with np.load(tmp_path / "cnn.params.npz") as npz:
        assert sorted(npz.files) == ["conv.bias", "conv.weight", "fc.bias", "fc.weight"]
    x = np.ones((1, 2, 5, 5), np.float32)
    np.save(tmp_path / "x.npy", x)
    ran = CliRunner().invoke(
        main,
        [
            "run",
            str(tmp_path / "cnn.rly"),
            "--args",
            str(tmp_path / "cnn.params.npz"),
            "--arg",
            f"x=@{tmp_path / 'x.npy'}",
            "--output-format",
            "json",
        ],
        catch_exceptions=False,
    )
    assert ran.exit_code == 0, ran.output
    got = np.array(json.loads(ran.stdout)["tensor"], np.float32)
    np.testing.assert_allclose(got, onnxruntime_run(small_cnn(), [x])[0], rtol=1e-5, atol=1e-5)
    fmt = CliRunner().invoke(main, ["fmt", "--check", str(tmp_path / "cnn.rly")], catch_exceptions=False)
    assert fmt.exit_code == 0


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_output_to_stdout_and_named_files(tmp_path: Path) -> None:
    src = save(small_cnn(), tmp_path / "cnn.onnx")
    result = cli([src, "-o", "-", "--dialect", "docs"], cwd=tmp_path)
    assert result.exit_code == 0
    assert result.stdout == from_onnx(small_cnn()).text("docs")
    assert (tmp_path / "cnn.params.npz").exists()
    result = cli([src, "-o", str(tmp_path / "out" / "net.rly")], cwd=tmp_path)
    assert result.exit_code == 2 and "error: " in result.stderr  # no such directory
    (tmp_path / "out").mkdir()
    result = cli([src, "-o", str(tmp_path / "out" / "net.rly")], cwd=tmp_path)
    assert result.exit_code == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["net.params.npz", "net.rly"]


def test_embed_weights_writes_one_file(tmp_path: Path) -> None:
    src = save(small_cnn(), tmp_path / "cnn.onnx")
    result = cli([src, "--embed-weights"], cwd=tmp_path)
    assert result.exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cnn.onnx", "cnn.rly"]
    assert result.stderr.startswith(f"Imported {src} -> cnn.rly in ")


def unsupported_model():
    nodes = [
        node("Relu", ["x"], ["a"], name="first"),
        node("STFT", ["a", "step"], ["b"], name="stft_0"),
        node("Det", ["a"], ["c"]),
        node("Add", ["b", "c"], ["y"], name="sum"),
    ]
    return model(nodes, [("x", FLOAT, [2, 2]), ("step", TensorProto.INT64, [])], [("y", FLOAT, None)], opset=17)


def test_every_unsupported_operator_is_reported_at_its_node(tmp_path: Path) -> None:
    src = save(unsupported_model(), tmp_path / "m.onnx")
    result = cli([src], cwd=tmp_path)
    assert result.exit_code == 1
    assert result.stderr == (
        "error[import-unsupported]: the ONNX operator `STFT` is not supported\n"
        f" --> {src}:3:19\n"
        "  |\n"
        '3 | [1] "stft_0": b = STFT (a, step)\n'
        "  |                   ^^^^ node `stft_0` (STFT, opset 17)\n"
        "  |\n"
        "  = note: relay-text converts the operators TVM's ONNX importer converted, and this is not one of them\n"
        f"  = note: the line is in the model's node listing: `relay import --list-nodes {src}`\n"
        "\n"
        "error[import-unsupported]: the ONNX operator `Det` is not supported\n"
        f" --> {src}:4:16\n"
        "  |\n"
        "4 | [2] Det_0: c = Det (a)\n"
        "  |                ^^^ node `Det_0` (Det, opset 17)\n"
        "  |\n"
        "  = note: relay-text converts the operators TVM's ONNX importer converted, and this is not one of them\n"
        f"  = note: the line is in the model's node listing: `relay import --list-nodes {src}`\n"
        "\n"
        f"Could not import {src}: 2 problems\n"
    )
    assert not (tmp_path / "m.rly").exists()
    listing = cli([src, "--list-nodes"], cwd=tmp_path)
    assert listing.stdout.splitlines()[2] == '[1] "stft_0": b = STFT (a, step)'


def test_an_attribute_value_is_reported_at_the_attribute() -> None:
    m = model(
        [node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2], storage_order=1)],
        [("x", FLOAT, [1, 1, 4, 4])],
        [("y", FLOAT, None)],
    )
    with pytest.raises(ImportFailure) as info:
        from_onnx(m, name="m.onnx")
    (diag,) = info.value.diagnostics
    assert diag.message == "`storage_order` = 1 (column-major indices) is not supported"
    assert diag.label == "node `pool` (MaxPool, opset 13)"
    assert diag.span.text == "storage_order"
    assert diag.span.source.line_text(diag.span.start_line_col[0]).startswith('[0] "pool": y = MaxPool <')


def test_an_attribute_no_converter_reads_is_refused() -> None:
    m = model([node("Relu", ["x"], ["y"], name="r", alpha=0.5)], [("x", FLOAT, [2])], [("y", FLOAT, None)])
    with pytest.raises(ImportFailure) as info:
        from_onnx(m)
    assert info.value.diagnostics[0].message == "the attribute `alpha` of `Relu` is not supported"
    assert info.value.diagnostics[0].span.text == "alpha"


def test_an_opset_outside_the_converters_range() -> None:
    m = model([node("Trilu", ["x"], ["y"], name="t")], [("x", FLOAT, [2, 2])], [("y", FLOAT, None)], opset=12)
    with pytest.raises(ImportFailure) as info:
        from_onnx(m)
    (diag,) = info.value.diagnostics
    assert diag.message == "the ONNX operator `Trilu` is not supported at opset 12"
    assert diag.notes[0] == "`Trilu` is supported at opsets 14+"


def test_a_value_computed_at_run_time_where_one_is_needed() -> None:
    m = model(
        [node("TopK", ["x", "k"], ["v", "i"], name="top")],
        [("x", FLOAT, [5]), ("k", TensorProto.INT64, [1])],
        [("v", FLOAT, None), ("i", TensorProto.INT64, None)],
    )
    with pytest.raises(ImportFailure) as info:
        from_onnx(m)
    assert info.value.diagnostics[0].message == "`k` must be known when the model is imported"


def test_a_file_that_is_no_model(tmp_path: Path) -> None:
    bad = tmp_path / "notes.onnx"
    bad.write_bytes(b"\xff\xfe not protobuf at all")
    result = cli([str(bad)], cwd=tmp_path)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error[import-invalid]: {bad}: not an ONNX model (")
    assert cli([str(tmp_path / "missing.onnx")]).exit_code == 2


def test_input_shape_syntax_is_checked(tmp_path: Path) -> None:
    src = save(small_cnn(), tmp_path / "cnn.onnx")
    result = cli([src, "--input-shape", "x=1,a"])
    assert result.exit_code == 2 and "the dimensions of 'x' must be whole numbers separated by commas" in result.output
    result = cli([src, "--input-shape", "x=1,2"])
    assert result.exit_code == 2
    assert result.stderr == "error[import-unsupported]: `--input-shape x`: the input has 4 dimensions, 2 were given\n\n"


def test_names_become_relay_names() -> None:
    """An ONNX name is kept where Relay can write it; other characters become
    `_`, a leading digit gets a `v`, and the weights are keyed by the new names."""
    weights = {"1": np.ones(2, np.float32), "layer.0.w": np.ones(2, np.float32), "a/b:0": np.ones(2, np.float32)}
    nodes = [
        node("Add", ["input.1", "1"], ["t"]),
        node("Add", ["t", "layer.0.w"], ["u"]),
        node("Add", ["u", "a/b:0"], ["y"]),
    ]
    imported = from_onnx(model(nodes, [("input.1", FLOAT, [2])], [("y", FLOAT, None)], weights))
    assert list(imported.weights()) == ["v1", "layer_0.w", "a_b_0"]
    assert imported.text().splitlines()[1:6] == [
        "def @main(",
        "  %input_1: Tensor[(2), float32],",
        "  %v1: Tensor[(2), float32],",
        "  %layer_0.w: Tensor[(2), float32],",
        "  %a_b_0: Tensor[(2), float32]",
    ]


def test_a_deep_model_imports_without_recursion() -> None:
    """5,000 nodes in a chain: conversion, printing and checking never recurse per node."""
    nodes = [node("Relu" if i % 2 else "Neg", [f"t{i}"], [f"t{i + 1}"]) for i in range(5000)]
    m = model(nodes, [("t0", FLOAT, [3])], [("t5000", FLOAT, None)])
    text = from_onnx(m).text()
    assert text.count("\n") == 5003
    assert relay_text.check(text).ok
    # relu(-relu(-x)) = relu(min(x, 0)) = 0 after the first two pairs
    np.testing.assert_array_equal(relay_text.run(text, np.array([-1, 0, 2], np.float32)), [0, 0, 0])


def test_an_importer_bug_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from relay_text.diagnostics import Diagnostic, codes
    from relay_text.frontends import verify

    monkeypatch.setattr(verify, "verify_text", lambda *a: [Diagnostic(codes.TYPE_MISMATCH, "planted", None)])
    src = save(small_cnn(), tmp_path / "cnn.onnx")
    result = cli([src], cwd=tmp_path)
    assert result.exit_code == 2
    assert "Nothing was written" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cnn.onnx"]


def test_a_float16_softmax_is_imported_as_its_steps() -> None:
    """ONNX's Softmax is defined by a function (ReduceMax, Sub, Exp,
    ReduceSum, Div), each step giving a tensor of the input's type: on
    float16 the exponentials are rounded to float16 before the sum. The
    import writes those steps, which the evaluator rounds one by one;
    float32 stays one `nn.softmax`."""
    half = TensorProto.FLOAT16
    m16 = model([node("Softmax", ["x"], ["y"])], [("x", half, [2, 3])], [("y", half, [2, 3])])
    text = from_onnx(m16).text()
    assert "nn.softmax" not in text
    assert "max(%x, axis=[1], keepdims=True)" in text and "exp(" in text and "sum(" in text and "divide(" in text
    m32 = model([node("Softmax", ["x"], ["y"])], [("x", FLOAT, [2, 3])], [("y", FLOAT, [2, 3])])
    assert "nn.softmax(%x, axis=1)" in from_onnx(m32).text()
    # values where one rounding and per-step rounding part: the float16
    # steps as numpy computes them (ONNX's reference implementation)
    x = np.array([[0.1, 0.7, 0.35], [3.0, -1.25, 0.5]], dtype=np.float16)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    got = relay_text.run(from_onnx(m16).text(), x)
    assert got.dtype == np.float16
    assert got.tobytes() == expected.tobytes()


def _with_local_function():
    """`y = scaled(x, 2)` where the model-local function `scaled(a, k) = a * k + a`."""
    from onnx import helper

    body = [helper.make_node("Mul", ["a", "k"], ["m"]), helper.make_node("Add", ["m", "a"], ["r"])]
    fn = helper.make_function("local.fns", "scaled", ["a", "k"], ["r"], body, [helper.make_opsetid("", 13)])
    m = model(
        [node("scaled", ["x", "two"], ["y"], name="call", domain="local.fns")],
        [("x", FLOAT, [2])],
        [("y", FLOAT, [2])],
        {"two": np.array([2, 2], np.float32)},
        extra_opsets=[("local.fns", 1)],
    )
    m.functions.append(fn)
    return m


def test_local_functions_are_inlined(tmp_path: Path) -> None:
    """Calls of a model's local functions (what `relay export --functions`
    writes) become the functions' nodes."""
    m = _with_local_function()
    text = from_onnx(m).text()
    assert "multiply(%x, %two)" in text and "add(" in text
    np.testing.assert_array_equal(
        relay_text.run(text, np.array([1, 3], np.float32), np.array([2, 2], np.float32)), [3, 9]
    )
    src = save(m, tmp_path / "fn.onnx")
    listed = cli(["--list-nodes", src])
    assert listed.exit_code == 0, listed.output
    assert "Mul" in listed.output and "scaled" not in listed.output


INT64 = TensorProto.INT64


def test_scalar_initializers_are_literals() -> None:
    """A 0-d initializer (an epsilon, a bound) is written as a literal, not
    a weight: `relay export` writes its scalars as initializers."""
    weights = {"eps": np.array(1e-5, np.float32), "n": np.array(3, np.int64), "w": np.array([0.1, 0.3], np.float32)}
    nodes = [node("Add", ["x", "eps"], ["a"]), node("Mul", ["a", "w"], ["y"]), node("Add", ["k", "n"], ["z"])]
    m = model(nodes, [("x", FLOAT, [2]), ("k", INT64, [])], [("y", FLOAT, None), ("z", INT64, None)], weights)
    imported = from_onnx(m)
    text = imported.text()
    assert list(imported.weights()) == ["w"]
    assert "add(%x, 1e-05f)" in text and "add(%k, 3i64)" in text
    x, k = np.array([1, 2], np.float32), np.array(4, np.int64)
    got = relay_text.run(text, x, k, imported.weights()["w"])
    want = onnxruntime_run(m, [x, k])
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] == 7
