"""Reshaping operators whose result has a dimension known only at run time
(`?`), and reshapes to shapes with a dimension of size 0: exported, run on
onnxruntime, equal to the numpy engine."""

from __future__ import annotations

import pytest

from .helpers import agree, export, export_errors

DYNAMIC = {
    "expand_dims-last": "def @main(%a: Tensor[(?, 3), float32]) { expand_dims(%a, axis=-1, num_newaxis=2) }",
    "expand_dims-first": "def @main(%a: Tensor[(?, 3), int64]) { expand_dims(%a, axis=0) }",
    "squeeze-axis": "def @main(%a: Tensor[(?, 1, 3, 1), float32]) { squeeze(%a, axis=[-1, 1]) }",
    "reshape-copy-and-rest": "def @main(%a: Tensor[(?, 6), float32]) { reshape(%a, newshape=[0, 2, -1]) }",
    "reshape-flat": "def @main(%a: Tensor[(?, 6), float32]) { reshape(%a, newshape=[-1]) }",
}


@pytest.mark.parametrize("name", sorted(DYNAMIC))
def test_a_reshape_of_a_dynamic_shape(name: str) -> None:
    assert agree(DYNAMIC[name]) == 0.0


def test_expand_dims_of_a_dynamic_shape_is_an_unsqueeze() -> None:
    model = export(DYNAMIC["expand_dims-last"])
    assert [n.op_type for n in model.graph.node if n.op_type != "Identity"] == ["Unsqueeze"]


def test_special_values_without_an_onnx_meaning_stay_refused() -> None:
    """-2 (copy the remaining dimensions) has no ONNX equivalent when the
    result's shape is not static."""
    (error,) = export_errors("def @main(%a: Tensor[(?, 2, 3), float32]) { reshape(%a, newshape=[-1, -2]) }")
    assert (
        error.message
        == "`reshape` cannot be exported here: the shape of the result is not static (Tensor[(?, 2, 3), float32])"
    )


def test_a_reshape_to_a_dimension_of_size_zero() -> None:
    """A 0 in ONNX's Reshape copies the input's dimension unless `allowzero`
    is set: the exporter sets it for a result with a dimension of size 0."""
    text = "def @main(%a: Tensor[(0, 3, 4), float32]) { reshape(%a, newshape=[3, 4, 0], allowzero=True) }"
    assert agree(text) == 0.0
    (node,) = [n for n in export(text).graph.node if n.op_type == "Reshape"]
    assert [(a.name, a.i) for a in node.attribute] == [("allowzero", 1)]
    (error,) = export_errors(text, opset=13)
    assert error.message.endswith(
        "a reshape to a shape with a dimension of size 0 needs opset 14 (Reshape's allowzero)"
    )


def test_a_reshape_to_a_shape_read_at_run_time_keeps_allowzero() -> None:
    """`dyn.reshape(..., allowzero=True)`: the shape (3, 4, 0) read at run
    time gives a dimension of size 0, as in Relay, not a copy of the input's."""
    import numpy as np

    from relay_text.eval.entry import RunRequest
    from relay_text.export.engine import onnxruntime_engine
    from relay_text.ir.span import Source
    from relay_text.pipeline import run_source

    text = "def @main(%a: Tensor[(0, 3, 4), float32], %s: Tensor[(3), int64]) { dyn.reshape(%a, %s, allowzero=True) }"
    (node,) = [n for n in export(text).graph.node if n.op_type == "Reshape"]
    assert [(a.name, a.i) for a in node.attribute] == [("allowzero", 1)]
    values = (np.zeros((0, 3, 4), np.float32), np.array([3, 4, 0], np.int64))
    for engine in (None, onnxruntime_engine()):
        ran = run_source(Source("t.rly", text), RunRequest(values=values, engine=engine))
        assert ran.ok, [str(d) for d in ran.diagnostics]
        assert ran.value.shape == (3, 4, 0)
