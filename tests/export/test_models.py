"""Every corpus model without data types and every tensor program of
samples/: exported (ONNX checker, full check), run on onnxruntime, and
equal to `relay run`'s result on the same random arguments and constants
(rtol 1e-4, atol 1e-5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CORPUS, needs_corpus

from .helpers import agree, export

ROOT = Path(__file__).resolve().parents[2]

CORPUS_MODELS = [
    pytest.param("apache-tvm-issue13031-broadcast-argmax.rly", id="broadcast-argmax"),
    pytest.param("masahi-torchscript-to-tvm-loop-readme.rly", id="loop"),
    pytest.param("calyx-squeezenet-anf.rly", id="squeezenet"),
    pytest.param("glenside-mobilenet.rly", id="mobilenet"),
    pytest.param("glenside-lstm-for-pldi.rly", id="lstm"),
    pytest.param("apache-tvm-menangerie-resnet50.rly", id="resnet50", marks=pytest.mark.slow),
    pytest.param("apache-tvm-menangerie-gpt2.rly", id="gpt2", marks=pytest.mark.slow),
]

# samples/ programs over tensors (the others use data types, references or
# non-loop recursion, which ONNX cannot express: see test_export.py)
TENSOR_SAMPLES = [
    "call_closure", "closure_capture", "cse_graph", "functions", "graph_bindings", "if_else", "let_binding",
    "let_independent", "let_shadowing", "polymorphism", "rfc_attributes", "rfc_literals", "rfc_syntax",
    "shape_polymorphism", "solver_nested", "tuple_types", "tuples", "type_arguments", "types_catalogue",
    "where_broadcast", "where_flatten",
]  # fmt: skip


@needs_corpus
@pytest.mark.parametrize("name", CORPUS_MODELS)
def test_corpus_model_agrees_with_the_numpy_engine(name: str) -> None:
    path = CORPUS / name
    agree(path.read_text(), name=str(path), random_consts=True)


@pytest.mark.parametrize("name", TENSOR_SAMPLES)
def test_sample_agrees_with_the_numpy_engine(name: str) -> None:
    path = ROOT / "samples" / f"{name}.rly"
    agree(path.read_text(), name=str(path))


@pytest.mark.parametrize(
    "name", ["if_else", "rfc_syntax", "shape_polymorphism", "solver_nested", "tuples", "where_flatten"]
)
def test_sample_with_local_functions_agrees_with_the_numpy_engine(name: str) -> None:
    """The samples whose globals `--functions` writes as ONNX local functions."""
    path = ROOT / "samples" / f"{name}.rly"
    agree(path.read_text(), name=str(path), functions=True)
    assert len(export(path.read_text(), name=str(path), functions=True).functions) >= 1


@needs_corpus
def test_the_looping_program_is_an_onnx_loop_with_an_if_inside() -> None:
    model = export((CORPUS / "masahi-torchscript-to-tvm-loop-readme.rly").read_text())
    ops = [n.op_type for n in model.graph.node]
    assert ops.count("Loop") == 1
    loop = next(n for n in model.graph.node if n.op_type == "Loop")
    body = loop.attribute[0].g
    assert [i.name for i in body.input][2:] == ["i", "a.15"]
    assert "If" in [n.op_type for n in body.node]


@needs_corpus
def test_types_of_the_checker_become_value_info() -> None:
    model = export((CORPUS / "calyx-squeezenet-anf.rly").read_text(), random_consts=True)
    infos = {v.name: v for v in model.graph.value_info}
    assert len(infos) > 50
    out = model.graph.output[0].type.tensor_type
    assert [d.dim_value for d in out.shape.dim] == [1, 1000]
