"""isinf and isfinite of 16-bit floats: ONNX's IsInf takes them only from
opset 20 and onnxruntime not at all, so they are widened to float32 first
(exactly); the model passes the full check and runs."""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.eval.entry import RunRequest
from relay_text.export.engine import onnxruntime_engine
from relay_text.ir.span import Source
from relay_text.pipeline import run_source

from .helpers import export

PROGRAM = """\
def @main(%a: Tensor[(6), {dtype}]) {{
  (isinf(%a), isfinite(%a), isnan(%a))
}}
"""


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_infinities_of_16_bit_floats(dtype: str) -> None:
    text = PROGRAM.format(dtype=dtype)
    model = export(text)
    casts = [n for n in model.graph.node if n.op_type == "Cast"]
    assert len(casts) == 2 and [n.op_type for n in model.graph.node].count("IsInf") == 2
    if dtype == "bfloat16":
        return  # onnxruntime's CPU kernels have no bfloat16 IsNaN
    a = np.array([1, np.inf, -np.inf, np.nan, 65504, 0], np.float16)
    ran = run_source(Source("t.rly", text), RunRequest(values=(a,), engine=onnxruntime_engine()))
    assert ran.ok, [str(d) for d in ran.diagnostics]
    inf, finite, nan = ran.value
    np.testing.assert_array_equal(inf, [False, True, True, False, False, False])
    np.testing.assert_array_equal(finite, [True, False, False, False, True, True])
    np.testing.assert_array_equal(nan, [False, False, False, True, False, False])
