"""Weights mapped from the model file itself (`frontends/onnx/mapped.py`):
`relay import` reads the same model as `onnx.load`, without holding the
weights twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx extra: pip install -e '.[onnx]'")

from onnx import numpy_helper  # noqa: E402

from relay_text.frontends.errors import ImportFailure  # noqa: E402
from relay_text.frontends.onnx import from_onnx, load_model  # noqa: E402
from relay_text.frontends.onnx.external import EXTERNAL_DIR  # noqa: E402
from relay_text.frontends.onnx.mapped import MAPPED_MIN, read_mapped  # noqa: E402
from relay_text.frontends.onnx.node import tensor_array  # noqa: E402
from tests.frontends.onnx import light_models  # noqa: E402


def light(name: str) -> Any:
    """A light model-zoo CNN with random weights (its final shape comes from onnxruntime)."""
    pytest.importorskip("onnxruntime", reason="the onnxruntime extra: pip install -e '.[onnxruntime]'")
    return light_models.randomized(name)


def saved(model: Any, folder: Path, name: str = "m.onnx") -> Path:
    path = folder / name
    path.write_bytes(model.SerializeToString())
    return path


def arrays_of(model: Any, folder: Path) -> dict[str, np.ndarray]:
    token = EXTERNAL_DIR.set(str(folder))
    try:
        return {t.name: np.array(tensor_array(t)) for t in model.graph.initializer}
    finally:
        EXTERNAL_DIR.reset(token)


def strip_weights(model: Any) -> Any:
    """The model without its initializers' values (what stays in memory when they are mapped)."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for t in copy.graph.initializer:
        for field in ("raw_data", "external_data", "data_location"):
            t.ClearField(field)
    return copy


@pytest.mark.parametrize("name", ["squeezenet", "resnet50", "inception_v1"])
def test_a_model_read_mapped_is_the_model_onnx_loads(tmp_path: Path, name: str) -> None:
    model = light(name)
    path = saved(model, tmp_path)
    mapped = load_model(str(path), mapped=True)
    plain = onnx.load(str(path))
    assert load_model(str(path)) == plain  # (without `mapped`, as onnx.load reads it)
    large = [t.name for t in plain.graph.initializer if len(t.raw_data) >= MAPPED_MIN]
    assert len(large) > 10
    records = {t.name for t in mapped.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL}
    assert records == set(large)  # every large weight mapped, every small one kept
    assert mapped.ByteSize() < plain.ByteSize() // 50
    got = arrays_of(mapped, tmp_path)
    assert list(got) == [t.name for t in plain.graph.initializer]
    for t in plain.graph.initializer:
        want = numpy_helper.to_array(t)
        assert got[t.name].dtype == want.dtype and got[t.name].shape == want.shape
        assert got[t.name].tobytes() == want.tobytes(), t.name
    assert strip_weights(mapped) == strip_weights(plain)


def test_an_import_from_the_mapped_file_is_the_same(tmp_path: Path) -> None:
    model = light("squeezenet")
    path = saved(model, tmp_path)
    from_file = from_onnx(str(path))
    in_memory = from_onnx(onnx.load(str(path)))
    assert from_file.text() == in_memory.text()
    a, b = from_file.weights(), in_memory.weights()
    assert list(a) == list(b)
    assert all(a[k].dtype == b[k].dtype and a[k].tobytes() == b[k].tobytes() for k in a)


def test_a_model_without_large_weights_is_read_as_it_is(tmp_path: Path) -> None:
    from onnx import helper

    w = numpy_helper.from_array(np.ones((4, 4), np.float32), "w")  # 64 bytes
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", 1, [1, 4])],
        [helper.make_tensor_value_info("y", 1, [1, 4])],
        [w],
    )
    path = saved(helper.make_model(graph), tmp_path)
    assert read_mapped(str(path)) is None
    assert load_model(str(path), mapped=True).graph.initializer[0].raw_data == w.raw_data


@pytest.mark.parametrize("cut", [1, 7, 1000, -1])
def test_a_truncated_file_is_an_import_error_as_before(tmp_path: Path, cut: int) -> None:
    """A file cut short is not mapped: `onnx.load` reads it and says what is wrong."""
    path = saved(light("squeezenet"), tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[:cut])
    assert read_mapped(str(path)) is None
    with pytest.raises(ImportFailure) as failed:
        load_model(str(path), mapped=True)
    [d] = failed.value.diagnostics
    assert d.code == "import-invalid" and d.message.startswith(f"{path}: not an ONNX model (")


def test_an_empty_file_is_not_mapped(tmp_path: Path) -> None:
    path = tmp_path / "empty.onnx"
    path.write_bytes(b"")
    assert read_mapped(str(path)) is None
