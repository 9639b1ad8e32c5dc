"""Small ONNX models built in the tests (onnx.helper), and how to run them."""

from __future__ import annotations

from typing import Any
from collections.abc import Sequence

import numpy as np

onnx = __import__("pytest").importorskip(
    "onnx", reason="the onnx package is not installed (pip install 'relay-text[onnx]')"
)
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

FLOAT = TensorProto.FLOAT


def model(
    nodes: Sequence[Any],
    inputs: Sequence[tuple[str, int, Any]],
    outputs: Sequence[tuple[str, int, Any]],
    initializers: dict[str, np.ndarray] | None = None,
    opset: int = 13,
    name: str = "g",
    extra_opsets: Sequence[tuple[str, int]] = (),
) -> Any:
    """A model of `nodes`; inputs and outputs are (name, element type, shape)."""
    inits = [numpy_helper.from_array(np.asarray(v), k) for k, v in (initializers or {}).items()]
    graph = helper.make_graph(
        list(nodes),
        name,
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        inits,
    )
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    return helper.make_model(graph, opset_imports=opsets)


def node(op: str, inputs: Sequence[str], outputs: Sequence[str], name: str = "", domain: str = "", **attrs: Any) -> Any:
    return helper.make_node(op, list(inputs), list(outputs), name=name or None, domain=domain or None, **attrs)


def onnxruntime_run(m: Any, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    ort = __import__("pytest").importorskip("onnxruntime", reason="onnxruntime is not installed")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(m.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, {i.name: v for i, v in zip(session.get_inputs(), inputs, strict=False)})


def small_cnn() -> Any:
    """Conv (padded) + Relu + GlobalAveragePool + Flatten + Gemm, with named nodes."""
    rng = np.random.default_rng(0)
    weights = {
        "conv.weight": rng.standard_normal((3, 2, 3, 3)).astype(np.float32),
        "conv.bias": rng.standard_normal(3).astype(np.float32),
        "fc.weight": rng.standard_normal((4, 3)).astype(np.float32),
        "fc.bias": rng.standard_normal(4).astype(np.float32),
    }
    nodes = [
        node("Conv", ["x", "conv.weight", "conv.bias"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        node("Relu", ["c"], ["r"], name="relu"),
        node("GlobalAveragePool", ["r"], ["p"], name="pool"),
        node("Flatten", ["p"], ["f"], name="flatten"),
        node("Gemm", ["f", "fc.weight", "fc.bias"], ["y"], name="fc", transB=1),
    ]
    return model(nodes, [("x", FLOAT, ["N", 2, 5, 5])], [("y", FLOAT, ["N", 4])], weights)
