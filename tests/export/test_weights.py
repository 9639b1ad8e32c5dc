"""Where an exported model's weights go: into the model, or into a data file beside it.

A model is one protobuf message, which cannot reach 2 GiB; weights that
would not fit (or all weights, with `--external-data`) go to `OUT.onnx.data`
as ONNX external data (docs/commands/export.md, "Large models"). The tests
lower the limit (`weights.INLINE_LIMIT`) instead of making gigabytes.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tests.export.helpers import export, export_errors, onnx, ort
from tests.helpers import where

from relay_text.cli import main
from relay_text.export import weights
from relay_text.export.weights import ALIGN

# Two weights of 16 KiB and 4 KiB (to the data file), one bias of 64 bytes (stays in the model).
MLP = """\
def @main(%x: Tensor[(1, 64), float32]) -> Tensor[(1, 16), float32] {
  %0 = nn.dense(%x, meta[relay.Constant][0] /* ty=Tensor[(64, 64), float32] */, units=64);
  %1 = nn.relu(%0);
  %2 = nn.dense(%1, meta[relay.Constant][1] /* ty=Tensor[(16, 64), float32] */, units=16);
  add(%2, meta[relay.Constant][2] /* ty=Tensor[(16), float32] */)
}
"""


def run_export(tmp_path: Path, *options: str) -> tuple[object, Path]:
    src = tmp_path / "mlp.rly"
    src.write_text(MLP)
    out = tmp_path / "mlp.onnx"
    result = CliRunner().invoke(main, ["export", str(src), "-o", str(out), "--random-consts", *options])
    return result, out


def outputs(path: Path) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(1, 64)
    return session.run(None, {"x": x})[0]


def locations(path: Path) -> dict[str, dict[str, str]]:
    """Each external initializer's external_data entries, by name (the model read without its data)."""
    model = onnx.load(str(path), load_external_data=False)
    return {
        t.name: {e.key: e.value for e in t.external_data}
        for t in model.graph.initializer
        if t.data_location == onnx.TensorProto.EXTERNAL
    }


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".relay-export-"))


def test_external_data_puts_the_large_weights_beside_the_model(tmp_path: Path) -> None:
    inline, inline_out = run_export(tmp_path)
    assert inline.exit_code == 0, inline.output
    expected = outputs(inline_out)
    inline_out.rename(tmp_path / "inline.onnx")

    result, out = run_export(tmp_path, "--external-data")
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"wrote {out}: 7 nodes, 1 input, 1 output, 3 initializers (opset 18); 2 weights (20 KiB) in {out}.data\n"
    )
    found = locations(out)
    assert sorted(found) == ["meta0", "meta1"]  # the 64-byte bias stays in the model
    assert {f["location"] for f in found.values()} == {"mlp.onnx.data"}
    spans = sorted((int(f["offset"]), int(f["length"])) for f in found.values())
    assert spans == [(0, 64 * 64 * 4), (ALIGN * 4, 16 * 64 * 4)]  # each weight starts on a page
    assert (tmp_path / "mlp.onnx.data").stat().st_size == ALIGN * 4 + 16 * 64 * 4
    onnx.checker.check_model(str(out), full_check=True)
    np.testing.assert_array_equal(outputs(out), expected)
    # the same weights, byte for byte, as the model that holds them
    held = {t.name: t.raw_data for t in onnx.load(str(tmp_path / "inline.onnx")).graph.initializer}
    assert {t.name: t.raw_data for t in onnx.load(str(out)).graph.initializer} == held
    assert leftovers(tmp_path) == []


def test_the_data_file_gets_the_permissions_a_new_file_gets(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        result, out = run_export(tmp_path, "--external-data")
    finally:
        os.umask(old)
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE((tmp_path / "mlp.onnx.data").stat().st_mode) == 0o640
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


def test_weights_that_do_not_fit_in_the_model_go_beside_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(weights, "INLINE_LIMIT", 20 * 1024)  # the three weights take 20,544 bytes
    result, out = run_export(tmp_path)
    assert result.exit_code == 0, result.output
    assert result.output.endswith(f"; 2 weights (20 KiB) in {out}.data\n")
    assert sorted(locations(out)) == ["meta0", "meta1"]


def test_weights_that_fit_stay_in_the_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(weights, "INLINE_LIMIT", 20 * 1024 + 64)
    result, out = run_export(tmp_path)
    assert result.exit_code == 0, result.output
    assert result.output == f"wrote {out}: 7 nodes, 1 input, 1 output, 3 initializers (opset 18)\n"
    assert locations(out) == {}
    assert not (tmp_path / "mlp.onnx.data").exists()


def test_no_weight_large_enough_leaves_no_data_file(tmp_path: Path) -> None:
    src = tmp_path / "small.rly"
    src.write_text(
        "def @main(%x: Tensor[(4), float32]) { add(%x, meta[relay.Constant][0] /* ty=Tensor[(4), float32] */) }"
    )
    out = tmp_path / "small.onnx"
    result = CliRunner().invoke(main, ["export", str(src), "-o", str(out), "--random-consts", "--external-data"])
    assert result.exit_code == 0, result.output
    assert result.output == f"wrote {out}: 2 nodes, 1 input, 1 output, 1 initializer (opset 18)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.onnx", "small.rly"]


def test_without_a_place_for_them_too_large_weights_are_a_located_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Python API builds the model in memory (unless given a place for
    the weights): weights past the limit are a resource-limit error at the entry."""
    monkeypatch.setattr(weights, "INLINE_LIMIT", 1024)
    [d] = export_errors(MLP, random_consts=True)
    assert (d.code, d.message, d.label) == (
        "resource-limit",
        "the model's weights take 20.1 KiB: an ONNX model holds less than 2 GiB in one piece",
        "the exported function",
    )
    assert where(d) == ("resource-limit", 1, 5)
    assert d.helps == ["`relay export -o FILE.onnx` writes weights this large beside the model, to FILE.onnx.data"]


def test_a_model_that_fits_is_the_same_with_the_weights_written_in_place() -> None:
    """The weights are written into the model one at a time, as arrays, not
    built as tensors first: the model holds the same initializers."""
    model = export(MLP, random_consts=True)
    [w0, w1, bias] = model.graph.initializer
    assert [(t.name, list(t.dims), t.data_type) for t in (w0, w1, bias)] == [
        ("meta0", [64, 64], 1),
        ("meta1", [16, 64], 1),
        ("meta2", [16], 1),
    ]
    assert len(w0.raw_data) == 64 * 64 * 4 and not w0.float_data and not w0.external_data


def test_a_read_only_data_file_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    data = tmp_path / "mlp.onnx.data"
    data.write_bytes(b"an earlier export's weights")
    data.chmod(0o444)
    result, out = run_export(tmp_path, "--external-data")
    assert result.exit_code == 2
    assert result.output == f"error: {data}: is read-only; nothing was written\n"
    assert not out.exists()
    assert data.read_bytes() == b"an earlier export's weights"
    assert leftovers(tmp_path) == []


def test_weights_cannot_go_beside_a_stream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    src = tmp_path / "mlp.rly"
    src.write_text(MLP)
    monkeypatch.setattr(weights, "INLINE_LIMIT", 1024)
    result = CliRunner().invoke(main, ["export", str(src), "-o", str(fifo), "--random-consts"])
    assert result.exit_code == 2
    assert result.output == (
        f"error: the weights (20.1 KiB) go to a file beside the model, but {fifo} is a FIFO (named pipe): "
        "give -o a file name\n"
    )
    assert leftovers(tmp_path) == []


def test_a_failed_export_leaves_an_earlier_data_file_alone(tmp_path: Path) -> None:
    data = tmp_path / "bad.onnx.data"
    data.write_bytes(b"kept")
    src = tmp_path / "bad.rly"
    src.write_text("def @main(%x: Tensor[(2), float32]) { ref(%x) }")
    result = CliRunner().invoke(main, ["export", str(src), "-o", str(tmp_path / "bad.onnx"), "--external-data"])
    assert result.exit_code == 1
    assert data.read_bytes() == b"kept"
    assert not (tmp_path / "bad.onnx").exists()
    assert leftovers(tmp_path) == []


def test_an_earlier_data_file_is_replaced_whole(tmp_path: Path) -> None:
    (tmp_path / "mlp.onnx.data").write_bytes(b"x" * 100_000)
    result, out = run_export(tmp_path, "--external-data")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "mlp.onnx.data").stat().st_size == ALIGN * 4 + 16 * 64 * 4
    onnx.checker.check_model(str(out), full_check=True)


def test_a_data_file_the_new_model_does_not_use_is_named(tmp_path: Path) -> None:
    """An export that keeps its weights in the model leaves an earlier
    OUT.onnx.data alone (it is not the command's to delete) and says so."""
    result, out = run_export(tmp_path, "--external-data")
    assert result.exit_code == 0, result.output
    again, _ = run_export(tmp_path)
    assert again.exit_code == 0, again.output
    assert again.output == (
        f"wrote {out}: 7 nodes, 1 input, 1 output, 3 initializers (opset 18)\n"
        f"note: {out}.data is left from an earlier export; {out} does not use it "
        "(delete it unless something else does)\n"
    )
    assert locations(out) == {}
    assert (tmp_path / "mlp.onnx.data").stat().st_size == ALIGN * 4 + 16 * 64 * 4
    (tmp_path / "mlp.onnx.data").unlink()
    third, _ = run_export(tmp_path)
    assert third.output == f"wrote {out}: 7 nodes, 1 input, 1 output, 3 initializers (opset 18)\n"


def test_relay_import_reads_a_model_with_external_data(tmp_path: Path) -> None:
    """The weights are mapped from the data file, not loaded into the model
    first: the same text and the same weights as from the model that holds them."""
    inline, inline_out = run_export(tmp_path)
    assert inline.exit_code == 0, inline.output
    held = inline_out.rename(tmp_path / "held.onnx")
    result, out = run_export(tmp_path, "--external-data")
    assert result.exit_code == 0, result.output
    for model in (held, out):
        imported = CliRunner().invoke(main, ["import", str(model), "-o", str(tmp_path / f"{model.stem}.rly")])
        assert imported.exit_code == 0, imported.output
    assert (tmp_path / "mlp.rly").read_text() == (tmp_path / "held.rly").read_text()
    beside, within = np.load(tmp_path / "mlp.params.npz"), np.load(tmp_path / "held.params.npz")
    assert sorted(beside) == sorted(within) and len(beside) == 3
    for name in within:
        assert beside[name].dtype == within[name].dtype and beside[name].tobytes() == within[name].tobytes()


def rewrite_record(path: Path, **changes: str) -> None:
    """Change the external-data record of the model's first external weight."""
    model = onnx.load(str(path), load_external_data=False)
    tensor = next(t for t in model.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL)
    for entry in tensor.external_data:
        if entry.key in changes:
            entry.value = changes[entry.key]
    path.write_bytes(model.SerializeToString())


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"location": "../mlp.onnx.data"},
            "tensor `meta0`: its data file `../mlp.onnx.data` is not a file in the model's folder",
        ),
        (
            {"location": "/etc/passwd"},
            "tensor `meta0`: its data file `/etc/passwd` is not a file in the model's folder",
        ),
        (
            {"length": "100"},
            "tensor `meta0`: it needs 16,384 bytes at offset 0 of {data}, which holds 20,480 (the record says 100)",
        ),
        (
            {"offset": "8192"},
            "tensor `meta0`: it needs 16,384 bytes at offset 8,192 of {data}, which holds 20,480 "
            "(the record says 16,384)",
        ),
        ({"offset": "x"}, "tensor `meta0`: its offset or length in `mlp.onnx.data` is not a number"),
        (
            {"location": "gone.data"},
            "tensor `meta0`: its data file {folder}/gone.data cannot be read (No such file or directory)",
        ),
    ],
)
def test_a_bad_external_data_record_is_an_import_error(tmp_path: Path, changes: dict[str, str], message: str) -> None:
    result, out = run_export(tmp_path, "--external-data")
    assert result.exit_code == 0, result.output
    rewrite_record(out, **changes)
    imported = CliRunner().invoke(main, ["import", str(out), "-o", str(tmp_path / "back.rly"), "--color", "never"])
    assert imported.exit_code == 1
    expected = message.format(data=tmp_path / "mlp.onnx.data", folder=tmp_path)
    assert imported.output.startswith(f"error[import-invalid]: {expected}\n"), imported.output
    assert not (tmp_path / "back.rly").exists()


def test_a_model_given_without_its_folder_cannot_read_its_external_data(tmp_path: Path) -> None:
    from relay_text.frontends.errors import ImportFailure
    from relay_text.frontends.onnx import from_onnx, load_model

    result, out = run_export(tmp_path, "--external-data")
    assert result.exit_code == 0, result.output
    with pytest.raises(ImportFailure) as failed:
        from_onnx(load_model(str(out), mapped=True))
    [d] = failed.value.diagnostics
    assert (d.code, d.message) == (
        "import-invalid",
        "tensor `meta0`: its data is in `mlp.onnx.data`, and the model's folder is not known (load it from a path)",
    )
    assert sorted(a.shape for a in from_onnx(str(out)).weights().values()) == [(16,), (16, 64), (64, 64)]
    loaded = from_onnx(load_model(str(out))).weights()  # (read whole, as onnx.load reads it)
    assert sorted(a.shape for a in loaded.values()) == [(16,), (16, 64), (64, 64)]


def test_the_onnxruntime_engine_runs_a_model_whose_weights_go_beside_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """`relay run --engine onnxruntime` saves such a model in a temporary
    folder with its weights beside it, and onnxruntime loads it from there."""
    from relay_text.eval.entry import RunRequest
    from relay_text.export.engine import onnxruntime_engine
    from relay_text.ir.span import Source
    from relay_text.pipeline import run_source

    saved: list[str] = []
    real = ort.InferenceSession

    def session(model: object, *args: object, **kwargs: object) -> object:
        saved.append(model if isinstance(model, str) else "bytes")
        return real(model, *args, **kwargs)

    monkeypatch.setattr(ort, "InferenceSession", session)
    values = []
    for limit, engine in ((weights.INLINE_LIMIT, None), (1024, onnxruntime_engine()), (2**31, onnxruntime_engine())):
        monkeypatch.setattr(weights, "INLINE_LIMIT", limit)
        ran = run_source(Source("mlp.rly", MLP), RunRequest(random_args=True, random_consts=True, engine=engine))
        assert ran.ok, [str(d) for d in ran.diagnostics]
        values.append(np.asarray(ran.value))
    assert len(saved) == 2 and saved[0].endswith("model.onnx") and saved[1] == "bytes"
    assert not os.path.exists(os.path.dirname(saved[0]))  # the temporary folder is gone
    np.testing.assert_allclose(values[1], values[0], rtol=1e-5, atol=1e-6)
    assert values[1].tobytes() == values[2].tobytes()
