"""floor_mod of floats as numpy computes it: the exact fmod, moved by the
divisor where its sign differs; x mod ±inf is x or ±inf, not NaN."""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.eval.entry import RunRequest
from relay_text.export.engine import onnxruntime_engine
from relay_text.ir.span import Source
from relay_text.pipeline import run_source

from .helpers import export

A = [0.0, -0.0, -3, 3, -1, 1, np.inf, -np.inf, 1, np.nan, 1, 7.5, -7.5, 1e10, -2.5]
B = [-2.0, 2, np.inf, np.inf, -np.inf, -np.inf, 2, 2, 0, 2, np.nan, -2, 2, 3, -0.5]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_floor_mod_of_edge_values(dtype: str) -> None:
    text = f"def @main(%a: Tensor[({len(A)}), {dtype}], %b: Tensor[({len(B)}), {dtype}]) {{ floor_mod(%a, %b) }}"
    export(text)
    a, b = np.array(A, dtype), np.array(B, dtype)
    with np.errstate(all="ignore"):
        want = np.mod(a, b)
    for engine in (None, onnxruntime_engine()):
        ran = run_source(Source("t.rly", text), RunRequest(values=(a, b), engine=engine))
        assert ran.ok, [str(d) for d in ran.diagnostics]
        np.testing.assert_array_equal(ran.value, want)
