"""Relay -> ONNX -> Relay: `relay export`, then `relay import` of the model,
gives a program that checks, is what `relay fmt` writes, and runs (numpy
engine) to the value of the original on the same random arguments and
constants.

Tolerances: the samples' tensor programs and the operator programs come
back exact (the same kernels run the same operators); the corpus models
within rtol 1e-5 / atol 1e-6 (measured: ResNet-50 2.4e-7, MobileNet 2.3e-10,
the others 0)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import CORPUS, needs_corpus

from .helpers import RELAY_ATOL, RELAY_RTOL, export_then_import, leaves_difference

ROOT = Path(__file__).resolve().parents[2]

# samples/ programs over tensors; the others use data types, references,
# recursion other than a loop, or return a function, which ONNX cannot hold
# (tests/export/test_export.py pins those diagnostics).
TENSOR_SAMPLES = [
    "call_closure", "closure_capture", "cse_graph", "functions", "graph_bindings", "if_else", "let_binding",
    "let_independent", "let_shadowing", "polymorphism", "rfc_attributes", "rfc_literals", "rfc_syntax",
    "shape_polymorphism", "solver_nested", "tuple_types", "tuples", "type_arguments", "types_catalogue",
    "where_broadcast", "where_flatten",
]  # fmt: skip

CORPUS_MODELS = [
    pytest.param("apache-tvm-issue13031-broadcast-argmax.rly", id="broadcast-argmax"),
    pytest.param("masahi-torchscript-to-tvm-loop-readme.rly", id="loop"),
    pytest.param("calyx-squeezenet-anf.rly", id="squeezenet"),
    pytest.param("glenside-mobilenet.rly", id="mobilenet"),
    pytest.param("glenside-lstm-for-pldi.rly", id="lstm", marks=pytest.mark.slow),
    pytest.param("apache-tvm-menangerie-resnet50.rly", id="resnet50", marks=pytest.mark.slow),
    pytest.param("apache-tvm-menangerie-gpt2.rly", id="gpt2", marks=pytest.mark.slow),
]


def sample(name: str) -> tuple[str, str]:
    path = ROOT / "samples" / f"{name}.rly"
    return path.read_text(), str(path)


@pytest.mark.parametrize("name", TENSOR_SAMPLES)
def test_sample_comes_back_with_its_values(name: str) -> None:
    text, path = sample(name)
    trip = export_then_import(text, path)
    assert leaves_difference(trip.expected, trip.got, rtol=0, atol=0) == 0.0


@pytest.mark.parametrize("name", ["cse_graph", "let_independent", "where_broadcast"])
@pytest.mark.parametrize("seed", [1, 7])
def test_sample_with_parameters_on_other_seeds(name: str, seed: int) -> None:
    text, path = sample(name)
    trip = export_then_import(text, path, seed=seed)
    assert trip.params and len(trip.model.graph.input) == len(trip.params)
    assert leaves_difference(trip.expected, trip.got, rtol=0, atol=0) == 0.0


@pytest.mark.parametrize(
    "name", ["if_else", "rfc_syntax", "shape_polymorphism", "solver_nested", "tuples", "where_flatten"]
)
def test_sample_exported_with_local_functions_comes_back(name: str) -> None:
    """`relay export --functions` writes ONNX local functions; the importer inlines them."""
    text, path = sample(name)
    trip = export_then_import(text, path, functions=True)
    assert len(trip.model.functions) >= 1
    assert leaves_difference(trip.expected, trip.got, rtol=0, atol=0) == 0.0


@needs_corpus
@pytest.mark.parametrize("name", CORPUS_MODELS)
def test_corpus_model_comes_back_with_its_values(name: str) -> None:
    path = CORPUS / name
    trip = export_then_import(path.read_text(), str(path), random_consts=True)
    leaves_difference(trip.expected, trip.got, rtol=RELAY_RTOL, atol=RELAY_ATOL)


@needs_corpus
def test_weights_bound_by_args_come_back_as_weights() -> None:
    """`relay export --args`: the weights become initializers, which the
    importer makes parameters after the input, with their values (the
    scalars the exporter writes as initializers, such as an epsilon, come
    back as literals)."""
    path = CORPUS / "glenside-mobilenet.rly"
    text = path.read_text()
    from .helpers import random_run

    params = random_run(text, str(path))[0]
    trip = export_then_import(text, str(path), bind=params[1:])
    assert [i.name for i in trip.model.graph.input] == ["data"]
    assert list(trip.weights) == params[1:]
    for name, value in zip(trip.params[1:], trip.args[1:], strict=False):
        np.testing.assert_array_equal(trip.weights[name], value)
    leaves_difference(trip.expected, trip.got, rtol=RELAY_RTOL, atol=RELAY_ATOL)


@needs_corpus
def test_the_loop_comes_back_as_a_loop() -> None:
    """The looping program is an ONNX `Loop`; the importer makes it a
    recursive local function again, which runs to the same value."""
    path = CORPUS / "masahi-torchscript-to-tvm-loop-readme.rly"
    trip = export_then_import(path.read_text(), str(path))
    assert [n.op_type for n in trip.model.graph.node].count("Loop") == 1
    assert "%while_loop" in trip.text or "fn (" in trip.text
    leaves_difference(trip.expected, trip.got, rtol=0, atol=0)


@pytest.mark.parametrize("opset", [13, 17])
def test_older_opsets_come_back(opset: int) -> None:
    text, path = sample("where_broadcast")
    trip = export_then_import(text, path, opset=opset)
    assert trip.model.opset_import[0].version == opset
    assert leaves_difference(trip.expected, trip.got, rtol=0, atol=0) == 0.0


def _operator_programs() -> dict[str, str]:
    from tests.export.test_operators import CASES
    from tests.export.test_operators_more import CASES as MORE

    return {**CASES, **{(f"{k} (more)" if k in CASES else k): v for k, v in MORE.items()}}


OPERATOR_PROGRAMS = _operator_programs()
OPERATOR_SAMPLE = [
    "add", "nn.conv2d", "nn.batch_norm", "nn.max_pool2d", "image.resize", "dyn.nn.upsampling", "nn.softmax",
    "concatenate", "strided_slice", "take", "argmax", "where", "cast", "nn.dense", "split", "topk",
]  # fmt: skip


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=[] if n in OPERATOR_SAMPLE else [pytest.mark.slow]) for n in sorted(OPERATOR_PROGRAMS)],
)
def test_an_operator_program_comes_back(name: str) -> None:
    """The programs of the export tests (one or more calls of every
    exported operator). Most come back exact; operators that the export
    spells as a composition (log2, the normalisations, adaptive pools, the
    fast_* approximations) differ by a float32 rounding or two."""
    trip = export_then_import(OPERATOR_PROGRAMS[name], f"{name}.rly")
    leaves_difference(trip.expected, trip.got, rtol=RELAY_RTOL, atol=RELAY_ATOL)
