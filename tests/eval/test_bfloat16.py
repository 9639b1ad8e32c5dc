"""bfloat16 through the optional `ml_dtypes` package (`relay-text[bfloat16]`)."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from click.testing import CliRunner

import relay_text
from relay_text.cli import main
from relay_text.eval.numbers import block_text, bfloat16_text
from relay_text.eval.show import value_json, value_text
from relay_text.syntax.metadata import decode_ndarray, encode_metadata, encode_ndarray

ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = ml_dtypes.bfloat16


def bf(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float32).astype(BF16)


def test_a_bfloat16_program_computes_in_float32_and_rounds_once() -> None:
    rng = np.random.default_rng(0)
    x, w = bf(rng.standard_normal((4, 16))), bf(rng.standard_normal((8, 16)))
    program = """
    def @main(%x : Tensor[(4, 16), bfloat16], %w : Tensor[(8, 16), bfloat16]) -> Tensor[(4, 8), bfloat16] {
      nn.relu(nn.dense(%x, %w))
    }"""
    out = relay_text.run(program, x, w)
    assert out.dtype == BF16
    dense = (x.astype(np.float32) @ w.astype(np.float32).T).astype(BF16)
    assert out.tobytes() == np.maximum(dense.astype(np.float32), 0).astype(BF16).tobytes()


def test_casts_and_creation_make_bfloat16() -> None:
    program = """
    def @main(%x : Tensor[(3), float32]) {
      let %b = cast(%x, dtype="bfloat16");
      (%b, sum(%b), cast(%b, dtype="float32"), zeros(shape=[2], dtype="bfloat16"), reshape(%b, newshape=[3, 1]))
    }"""
    x = np.array([0.1, 1.0 / 3, 300.7], dtype=np.float32)
    b, total, back, zeros, col = relay_text.run(program, x)
    assert b.dtype == BF16 and b.tobytes() == x.astype(BF16).tobytes()
    assert total.dtype == BF16 and float(total) == float(np.float32(b.astype(np.float32).sum()).astype(BF16))
    assert back.dtype == np.float32 and back.tobytes() == b.astype(np.float32).tobytes()
    assert zeros.dtype == BF16 and col.shape == (3, 1)


def test_metadata_tensors_of_type_code_4_decode() -> None:
    values = bf([[1.5, -2.0, 0.1], [3.0, 1e20, -0.0]])
    blob = encode_ndarray(values)
    tensor = decode_ndarray(blob)
    assert (tensor.dtype, tensor.shape) == ("bfloat16", (2, 3))
    assert tensor.array().tobytes() == values.tobytes()
    text = (
        '#[version = "0.0.5"]\n'
        "def @main() -> Tensor[(2, 3), bfloat16] {\n"
        "  add(meta[relay.Constant][0] /* ty=Tensor[(2, 3), bfloat16] */, meta[relay.Constant][0])\n"
        "}\n"
        "#[metadata]\n" + encode_metadata([values]) + "\n"
    )
    out = relay_text.run(text)
    assert out.dtype == BF16
    assert out.tobytes() == (values.astype(np.float32) * 2).astype(BF16).tobytes()


def test_output_text_and_json() -> None:
    value = bf([0.1, 3.140625, 65504.0])
    data = json.loads(value_json(value))
    assert data == {"tensor": [0.1, 3.14, 65500.0], "dtype": "bfloat16", "shape": [3]}
    assert np.array(data["tensor"], dtype=np.float32).astype(BF16).tobytes() == value.tobytes()
    assert json.loads(value_json(value[0])) == {"tensor": 0.1, "dtype": "bfloat16", "shape": []}
    assert value_text(value[1]) == 'cast(3.140625f, "bfloat16")'
    assert value_text(value).startswith("Tensor[(3), bfloat16]")


def test_every_bfloat16_text_is_the_shortest_that_reads_back() -> None:
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(BF16)
    finite = every[np.isfinite(every.astype(np.float32))]
    texts = json.loads(block_text(finite))
    assert np.array(texts, dtype=np.float32).astype(BF16).tobytes() == finite.tobytes()
    assert bfloat16_text(BF16(0.1)) == "0.1" and bfloat16_text(BF16(-2.0)) == "-2.0"


def _without_ml_dtypes(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # `import ml_dtypes` raises ImportError


@pytest.mark.parametrize(
    "program, where",
    [
        ("def @main(%x : Tensor[(2), bfloat16]) { %x }", "1:11"),
        ('def @main(%x : Tensor[(2), float32]) {\n  cast(%x, dtype="bfloat16")\n}', "2:3"),
    ],
)
def test_without_ml_dtypes_a_located_error_names_the_extra(tmp_path, monkeypatch, program: str, where: str) -> None:
    _without_ml_dtypes(monkeypatch)
    path = tmp_path / "bf.rly"
    path.write_text(program + "\n")
    result = CliRunner().invoke(main, ["run", "--random-args", str(path)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "bfloat16 tensors need the `ml_dtypes` package" in result.output
    assert f"bf.rly:{where}" in result.output
    assert "pip install 'relay-text[bfloat16]'" in result.output


def test_without_ml_dtypes_metadata_tensors_are_a_located_error(tmp_path, monkeypatch) -> None:
    text = (
        '#[version = "0.0.5"]\n'
        "def @main() {\n  meta[relay.Constant][0]\n}\n"
        "#[metadata]\n" + encode_metadata([bf([1.0, 2.0])]) + "\n"
    )
    _without_ml_dtypes(monkeypatch)
    path = tmp_path / "meta.rly"
    path.write_text(text)
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "bfloat16 tensors need the `ml_dtypes` package" in result.output and "meta.rly:5:1" in result.output
