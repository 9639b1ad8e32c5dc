"""`Resize` of the axes between the first and the last (data laid out with
the channels last, NWC / NHWC / NDHWC): imported as a resize with that
layout, equal to onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest

import relay_text
from tests.frontends.onnx.models import FLOAT, model, node, onnxruntime_run

from relay_text.frontends.onnx import ImportFailure, from_onnx

X = np.random.default_rng(0).standard_normal((1, 4, 5, 3)).astype(np.float32)


def resize(mode: str, sizes=None, scales=None, **attrs):
    inputs, weights = ["x", "", ""], {}
    if sizes is not None:
        inputs.append("sizes")
        weights["sizes"] = np.array(sizes, np.int64)
    else:
        inputs[2] = "scales"
        weights["scales"] = np.array(scales, np.float32)
    return model(
        [node("Resize", inputs, ["y"], mode=mode, **attrs)],
        [("x", FLOAT, list(X.shape))],
        [("y", FLOAT, None)],
        weights,
    )


CASES = {
    "linear-sizes-down": resize("linear", sizes=[1, 7, 3, 3]),
    "linear-sizes-up": resize("linear", sizes=[1, 8, 10, 3]),
    "linear-align-corners": resize("linear", sizes=[1, 7, 9, 3], coordinate_transformation_mode="align_corners"),
    "nearest-scales": resize("nearest", scales=[1, 2, 2, 1]),
    "cubic-up": resize("cubic", sizes=[1, 8, 10, 3]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_resize_of_channels_last_data(name: str) -> None:
    m = CASES[name]
    imported = from_onnx(m)
    text = imported.text()
    assert 'layout="NHWC"' in text
    got = relay_text.run(text, X, *imported.weights().values())
    np.testing.assert_allclose(got, onnxruntime_run(m, [X])[0], rtol=1e-5, atol=1e-5)


def test_resizing_the_first_or_the_last_axis_stays_refused() -> None:
    with pytest.raises(ImportFailure) as info:
        from_onnx(resize("linear", sizes=[1, 8, 10, 6]))
    assert info.value.diagnostics[0].message == "resizing the batch or channel axis is not supported"
