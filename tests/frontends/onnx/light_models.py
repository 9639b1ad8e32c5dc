"""The `light` model-zoo CNNs of the onnx wheel, with seeded random weights.

The wheel ships AlexNet, DenseNet-121, Inception v1/v2, ResNet-50,
ShuffleNet, SqueezeNet, VGG-19 and ZFNet-512 with every weight filled with
one constant (`ConstantOfShape` nodes and constant initializers), so their
shipped outputs are uniform and prove little. `randomized(name)` gives the
model with each of those weights replaced by a seeded random initializer
(He-scaled for convolution and dense weights, near 1 for scales and
variances, small for biases and means), cut before its final softmax, and
`random_input(model)` an input; tests and benchmarks/onnx.py compare
relay-text with onnxruntime on them.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

NAMES = (
    "bvlc_alexnet",
    "densenet121",
    "inception_v1",
    "inception_v2",
    "resnet50",
    "shufflenet",
    "squeezenet",
    "vgg19",
    "zfnet512",
)


def path(name: str) -> str:
    import onnx

    return os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light", f"light_{name}.onnx")


def _consumers(graph: Any) -> dict[str, list[tuple[Any, int]]]:
    out: dict[str, list[tuple[Any, int]]] = {}
    for node in graph.node:
        for i, name in enumerate(node.input):
            out.setdefault(name, []).append((node, i))
    return out


def _near_one(name: str, users: dict[str, list[tuple[Any, int]]]) -> bool:
    """A scale or variance: read by BatchNormalization at 1 or 4, or multiplied in (through Unsqueeze)."""
    for node, i in users.get(name, []):
        if node.op_type == "BatchNormalization" and i in (1, 4):
            return True
        if node.op_type == "Mul":
            return True
        if node.op_type == "Unsqueeze" and _near_one(node.output[0], users):
            return True
    return False


def _random(shape: tuple[int, ...], dtype: Any, name: str, users: dict, rng: Any) -> np.ndarray:
    if len(shape) >= 2:
        fan_in = int(np.prod(shape[1:]))
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(dtype)
    if _near_one(name, users):
        return rng.uniform(0.5, 1.5, shape).astype(dtype)
    return (rng.standard_normal(shape) * 0.1).astype(dtype)


def randomized(name: str, seed: int = 0) -> Any:
    """The light model `name` with random weights, its output the input of its final Softmax."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(path(name))
    graph = model.graph
    rng = np.random.default_rng(seed)
    users = _consumers(graph)
    inits = {t.name: t for t in graph.initializer}
    kept, added = [], []
    for node in graph.node:
        if node.op_type == "ConstantOfShape" and node.input[0] in inits:
            shape = tuple(int(d) for d in numpy_helper.to_array(inits[node.input[0]]))
            value = next((a.t for a in node.attribute if a.name == "value"), None)
            dtype = numpy_helper.to_array(value).dtype if value is not None else np.float32
            added.append(numpy_helper.from_array(_random(shape, dtype, node.output[0], users, rng), node.output[0]))
        else:
            kept.append(node)
    fresh = []
    for t in graph.initializer:
        array = numpy_helper.to_array(t)
        if array.dtype.kind == "f":
            array = _random(array.shape, array.dtype, t.name, users, rng)
        fresh.append(numpy_helper.from_array(array, t.name))
    del graph.initializer[:]
    graph.initializer.extend(fresh + added)
    del graph.node[:]
    graph.node.extend(kept)
    if model.ir_version < 4:  # initializers must also be graph inputs then
        graph.input.extend(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in added)
    softmax = [n for n in graph.node if n.op_type == "Softmax" and n.output[0] in {o.name for o in graph.output}]
    if softmax:
        logits = softmax[0].input[0]
        graph.node.remove(softmax[0])
        del graph.output[:]
        graph.output.extend([helper.make_tensor_value_info(logits, onnx.TensorProto.FLOAT, None)])
        # the output's shape, which the ONNX checker wants written: from a run
        shape = onnxruntime_outputs(model, random_inputs(model))[0].shape
        del graph.output[:]
        graph.output.extend([helper.make_tensor_value_info(logits, onnx.TensorProto.FLOAT, list(shape))])
    return model


def data_input(model: Any) -> Any:
    """The model's one real input (the image): a graph input that is no initializer."""
    inits = {t.name for t in model.graph.initializer}
    return [vi for vi in model.graph.input if vi.name not in inits]


def random_inputs(model: Any, seed: int = 1) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for vi in data_input(model):
        shape = tuple(d.dim_value for d in vi.type.tensor_type.shape.dim)
        out.append(rng.standard_normal(shape).astype(np.float32))
    return out


def onnxruntime_outputs(model: Any, inputs: list[np.ndarray], threads: int = 1) -> list[np.ndarray]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    return session.run(None, dict(zip(names, inputs, strict=False)))
