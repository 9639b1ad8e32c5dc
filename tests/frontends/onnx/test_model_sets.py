"""The onnx wheel's model test sets (`simple`, `pytorch-converted`,
`pytorch-operator`: models with their input and output data), and its nine
`light` model-zoo CNNs with random weights against onnxruntime."""

from __future__ import annotations

import glob
import os

import numpy as np
import pytest

pytest.importorskip("onnx", reason="the onnx package is not installed (pip install 'relay-text[onnx]')")

import onnx
from onnx import numpy_helper
from onnx.backend.test.loader import load_model_tests
from onnx.backend.test.runner import Runner

import relay_text
import relay_text.onnx_backend as backend
from relay_text.frontends.onnx import from_onnx
from tests.frontends.onnx import light_models

# Models of these sets that use what relay-text refuses, and why.
REFUSED = {
    "test_gradient_of_add": "the ONNX operator `Gradient` of domain `ai.onnx.preview.training` is not supported",
    "test_gradient_of_add_and_mul": (
        "the ONNX operator `Gradient` of domain `ai.onnx.preview.training` is not supported"
    ),
}
STRINGS = "the ONNX operator `StringNormalizer` is not supported"  # test_strnorm_*: strings


def _sets() -> list:
    out = []
    for kind in ("simple", "pytorch-converted", "pytorch-operator"):
        out += [pytest.param(c, id=f"{kind}/{c.name}") for c in load_model_tests(kind=kind)]
    return out


def _data(directory: str, prefix: str) -> list[np.ndarray]:
    paths = sorted(glob.glob(os.path.join(directory, f"{prefix}_*.pb")), key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
    return [numpy_helper.to_array(onnx.load_tensor(p)) for p in paths]


@pytest.mark.parametrize("case", _sets())
def test_the_model_sets(case) -> None:
    model = onnx.load(os.path.join(case.model_dir, "model.onnx"))
    if case.name.startswith("test_strnorm") or case.name in REFUSED:
        with pytest.raises(backend.Unsupported) as info:
            backend.prepare(model)
        assert info.value.diagnostics[0].message == REFUSED.get(case.name, STRINGS)
        return
    rep = backend.prepare(model)
    for directory in sorted(glob.glob(os.path.join(case.model_dir, "test_data_set_*"))):
        got = rep.run(_data(directory, "input"))
        Runner.assert_similar_outputs(_data(directory, "output"), got, rtol=case.rtol, atol=case.atol)


def _light(name: str):
    model = light_models.randomized(name)
    x = light_models.random_inputs(model)
    return model, x, light_models.onnxruntime_outputs(model, x)[0]


def _compare(got: np.ndarray, expected: np.ndarray) -> None:
    """rtol 1e-4, and an absolute tolerance of 1e-4 of the largest value (logits near 0)."""
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * float(np.abs(expected).max()))


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=[] if n == "squeezenet" else [pytest.mark.slow]) for n in light_models.NAMES]
)
def test_the_light_models_match_onnxruntime_before_softmax(name: str) -> None:
    """Imported, the text checks, is what `relay fmt` writes, and runs to
    onnxruntime's values (SqueezeNet by default; all nine with --slow)."""
    pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")
    model, x, expected = _light(name)
    imported = from_onnx(model, name=f"light_{name}.onnx")
    text = imported.text()
    assert relay_text.check(text).ok
    assert relay_text.format(text) == text
    weights = imported.weights()
    got = relay_text.run(text, *x, *weights.values(), prelude=False)
    assert got.shape == expected.shape
    _compare(got, expected)
