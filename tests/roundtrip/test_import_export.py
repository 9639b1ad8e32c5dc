"""ONNX -> Relay -> ONNX: `relay import`, then `relay export` of the program
(its weights back as initializers through `--args`, or embedded as
`#[metadata]` constants), gives a model that passes the full ONNX check and
that onnxruntime runs to the values of the original model on the same
inputs (rtol 1e-5 / atol 1e-6; integers and booleans equal)."""

from __future__ import annotations

import numpy as np
import pytest

from .helpers import ONNX_ATOL, ONNX_RTOL, import_then_export, max_difference

from tests.frontends.onnx import light_models
from tests.frontends.onnx.models import FLOAT, TensorProto, model, node, small_cnn

INT64 = TensorProto.INT64


def agree(m, inputs, **options) -> float:
    trip = import_then_export(m, inputs, **options)
    return max_difference(trip.expected, trip.got, ONNX_RTOL, ONNX_ATOL)


def rand(*shape: int, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("embed", [False, True], ids=["weights-as-args", "weights-embedded"])
def test_a_small_cnn_with_an_open_batch(embed: bool) -> None:
    """The batch stays open (`?` in Relay, a symbolic dimension in ONNX):
    the export runs on batches of 1 and 3."""
    m = small_cnn()
    for batch in (1, 3):
        trip = import_then_export(m, [rand(batch, 2, 5, 5)], embed=embed, fix_shapes=False)
        max_difference(trip.expected, trip.got, ONNX_RTOL, ONNX_ATOL)
    dims = trip.model.graph.input[0].type.tensor_type.shape.dim
    assert not dims[0].HasField("dim_value") and [d.dim_value for d in dims[1:]] == [2, 5, 5]
    assert len(trip.model.graph.initializer) >= 4


def test_an_lstm() -> None:
    rng = np.random.default_rng(0)
    hidden, inputs, seq, batch = 4, 3, 5, 2
    weights = {
        "W": rng.standard_normal((1, 4 * hidden, inputs)).astype(np.float32),
        "R": rng.standard_normal((1, 4 * hidden, hidden)).astype(np.float32),
        "B": rng.standard_normal((1, 8 * hidden)).astype(np.float32),
    }
    m = model(
        [node("LSTM", ["x", "W", "R", "B"], ["y", "h", "c"], hidden_size=hidden)],
        [("x", FLOAT, [seq, batch, inputs])],
        [("y", FLOAT, None), ("h", FLOAT, None), ("c", FLOAT, None)],
        weights,
    )
    assert agree(m, [rand(seq, batch, inputs)]) < 1e-5


def test_an_if_on_an_input() -> None:
    from onnx import helper

    then = helper.make_graph([node("Relu", ["x"], ["t"])], "then", [], [helper.make_tensor_value_info("t", FLOAT, [3])])
    other = helper.make_graph([node("Neg", ["x"], ["e"])], "else", [], [helper.make_tensor_value_info("e", FLOAT, [3])])
    m = model(
        [
            node("ReduceSum", ["x"], ["s"], keepdims=0),
            node("Greater", ["s", "zero"], ["c"]),
            node("If", ["c"], ["y"], then_branch=then, else_branch=other),
        ],
        [("x", FLOAT, [3])],
        [("y", FLOAT, [3])],
        {"zero": np.array(0, np.float32)},
    )
    for x in (np.array([1, -2, 3], np.float32), np.array([-1, -2, 3], np.float32)):
        trip = import_then_export(m, [x])
        assert max_difference(trip.expected, trip.got, 0, 0) == 0.0
    assert "If" in [n.op_type for n in trip.model.graph.node]


def test_a_loop_accumulating_a_sum() -> None:
    from onnx import helper

    body = helper.make_graph(
        [node("Identity", ["cond"], ["cond_out"]), node("Add", ["acc", "x"], ["acc_out"])],
        "body",
        [
            helper.make_tensor_value_info("i", INT64, []),
            helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc", FLOAT, [2]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_out", FLOAT, [2]),
        ],
    )
    m = model(
        [node("Loop", ["n", "", "init"], ["y"], body=body)],
        [("x", FLOAT, [2]), ("init", FLOAT, [2])],
        [("y", FLOAT, [2])],
        {"n": np.array(4, np.int64)},
    )
    trip = import_then_export(m, [np.array([1.5, -2], np.float32), np.array([0.25, 1], np.float32)])
    assert max_difference(trip.expected, trip.got, 0, 0) == 0.0
    np.testing.assert_array_equal(trip.got[0], [6.25, -7])


def test_integer_indices_and_an_argmax() -> None:
    """Gather with int64 indices, ArgMax (int64), a Cast and a comparison: exact."""
    m = model(
        [
            node("Gather", ["table", "idx"], ["rows"], axis=0),
            node("ArgMax", ["rows"], ["best"], axis=1, keepdims=0),
            node("ReduceSum", ["rows", "one"], ["rowsum"], keepdims=0),
            node("Cast", ["best"], ["bestf"], to=FLOAT),
            node("Less", ["bestf", "rowsum"], ["flag"]),
        ],
        [("table", FLOAT, [5, 4]), ("idx", INT64, [3])],
        [("best", INT64, [3]), ("flag", TensorProto.BOOL, [3])],
        {"one": np.array([1], np.int64)},
    )
    trip = import_then_export(m, [rand(5, 4), np.array([4, 0, 2], np.int64)])
    assert max_difference(trip.expected, trip.got, 0, 0) == 0.0


def test_a_transformer_block() -> None:
    """MatMul, Softmax, LayerNormalization, Transpose, Reshape, Split, Concat, Gelu-as-Erf."""
    rng = np.random.default_rng(3)
    d, heads, seq = 8, 2, 4
    w = {
        "wqkv": (rng.standard_normal((d, 3 * d)) * 0.3).astype(np.float32),
        "scale": np.array(1 / np.sqrt(d // heads), np.float32),
        "gamma": rng.uniform(0.5, 1.5, d).astype(np.float32),
        "beta": (rng.standard_normal(d) * 0.1).astype(np.float32),
        "heads_shape": np.array([seq, heads, d // heads], np.int64),
        "back_shape": np.array([seq, d], np.int64),
        "half": np.array(0.5, np.float32),
        "one": np.array(1, np.float32),
        "sqrt2": np.array(np.sqrt(2), np.float32),
    }
    nodes = [
        node("MatMul", ["x", "wqkv"], ["qkv"]),
        node("Split", ["qkv"], ["q", "k", "v"], axis=1),
        node("Reshape", ["q", "heads_shape"], ["q3"]),
        node("Reshape", ["k", "heads_shape"], ["k3"]),
        node("Reshape", ["v", "heads_shape"], ["v3"]),
        node("Transpose", ["q3"], ["qh"], perm=[1, 0, 2]),
        node("Transpose", ["k3"], ["kt"], perm=[1, 2, 0]),
        node("Transpose", ["v3"], ["vh"], perm=[1, 0, 2]),
        node("MatMul", ["qh", "kt"], ["scores"]),
        node("Mul", ["scores", "scale"], ["scaled"]),
        node("Softmax", ["scaled"], ["attn"], axis=-1),
        node("MatMul", ["attn", "vh"], ["ctx"]),
        node("Transpose", ["ctx"], ["ctx_t"], perm=[1, 0, 2]),
        node("Reshape", ["ctx_t", "back_shape"], ["merged"]),
        node("Add", ["merged", "x"], ["res"]),
        node("LayerNormalization", ["res", "gamma", "beta"], ["ln"], axis=-1),
        node("Div", ["ln", "sqrt2"], ["z"]),
        node("Erf", ["z"], ["erf"]),
        node("Add", ["erf", "one"], ["erf1"]),
        node("Mul", ["ln", "erf1"], ["g0"]),
        node("Mul", ["g0", "half"], ["y"]),
        node("Concat", ["y", "attn_sum"], ["out"], axis=0),
        node("ReduceMean", ["attn"], ["attn_mean"], axes=[0], keepdims=0),
        node("MatMul", ["attn_mean", "x"], ["attn_sum"]),
    ]
    order = nodes[:21] + nodes[22:] + nodes[21:22]
    m = model(order, [("x", FLOAT, [seq, d])], [("out", FLOAT, [2 * seq, d])], w, opset=17)
    assert agree(m, [rand(seq, d)]) < 1e-5


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=[] if n == "squeezenet" else [pytest.mark.slow]) for n in light_models.NAMES]
)
def test_a_light_model_zoo_cnn(name: str) -> None:
    """The onnx wheel's model-zoo CNNs with seeded random weights (SqueezeNet
    by default, all nine with --slow); the batch left as the model has it.
    Random weights make some logits large (ShuffleNet's reach 4e5): the
    absolute tolerance is 1e-6 of the largest."""
    m = light_models.randomized(name)
    trip = import_then_export(m, light_models.random_inputs(m), fix_shapes=False)
    scale = float(np.max(np.abs(trip.expected[0])))
    max_difference(trip.expected, trip.got, ONNX_RTOL, ONNX_ATOL * max(scale, 1.0))
