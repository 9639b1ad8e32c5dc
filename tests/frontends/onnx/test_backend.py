"""relay_text.onnx_backend: ONNX's Backend interface (prepare, run, run_node)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.frontends.onnx.models import FLOAT, TensorProto, model, node, onnxruntime_run, small_cnn

import relay_text.onnx_backend as backend


def test_prepare_and_run() -> None:
    m = small_cnn()
    rep = backend.prepare(m)
    x = np.random.default_rng(0).standard_normal((1, 2, 5, 5)).astype(np.float32)
    (got,) = rep.run([x])
    assert got.dtype == np.float32 and got.shape == (1, 4)
    np.testing.assert_allclose(got, onnxruntime_run(m, [x])[0], rtol=1e-5, atol=1e-6)
    (by_name,) = rep.run({"x": x})
    np.testing.assert_array_equal(by_name, got)


def test_each_input_shape_is_imported_once() -> None:
    rep = backend.prepare(small_cnn())
    a = np.ones((1, 2, 5, 5), np.float32)
    b = np.ones((3, 2, 5, 5), np.float32)
    assert rep.run([a])[0].shape == (1, 4)
    assert rep.run([b])[0].shape == (3, 4)
    rep.run([a])
    assert len(rep._programs) == 2


def test_small_inputs_are_specialised_on() -> None:
    """An axis given as an input is used as an attribute, for the value it has in each run."""
    m = model(
        [node("ReduceSum", ["x", "axes"], ["y"], keepdims=0)],
        [("x", FLOAT, [2, 3]), ("axes", TensorProto.INT64, [1])],
        [("y", FLOAT, None)],
    )
    rep = backend.prepare(m)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(rep.run([x, np.array([0])])[0], [3, 5, 7])
    np.testing.assert_array_equal(rep.run([x, np.array([1])])[0], [3, 12])


def test_run_model_and_run_node() -> None:
    x = np.array([[-1.0, 2.0]], np.float32)
    np.testing.assert_array_equal(backend.run_model(small_cnn(), [np.zeros((1, 2, 5, 5), np.float32)])[0].shape, (1, 4))
    (y,) = backend.run_node(node("LeakyRelu", ["x"], ["y"], alpha=0.5), [x])
    np.testing.assert_array_equal(y, [[-0.5, 2.0]])


def test_unsupported_models_are_refused_at_prepare() -> None:
    m = model([node("Det", ["x"], ["y"], name="det")], [("x", FLOAT, [2, 2])], [("y", FLOAT, None)])
    with pytest.raises(backend.Unsupported) as info:
        backend.prepare(m)
    assert isinstance(info.value, NotImplementedError)
    assert [d.code for d in info.value.diagnostics] == ["import-unsupported"]
    assert str(info.value) == "the ONNX operator `Det` is not supported"
    assert not backend.is_compatible(m)
    assert backend.is_compatible(small_cnn())


def test_devices() -> None:
    assert backend.supports_device("CPU")
    assert not backend.supports_device("CUDA")
