"""arange of element types ONNX's Range does not take (float16, bfloat16,
8-bit and unsigned integers): counted in float64 or int64, then cast, as
the numpy kernel computes them; the model passes the full check."""

from __future__ import annotations

import pytest

from .helpers import agree, export


@pytest.mark.parametrize("dtype", ["float16", "int8", "uint8", "uint32", "bfloat16"])
def test_arange_of_a_type_range_lacks(dtype: str) -> None:
    text = f'def @main() {{ arange(1, 9, 2, dtype="{dtype}") }}'
    model = export(text)
    ops = [n.op_type for n in model.graph.node if n.op_type in ("Range", "Cast")]
    assert "Range" in ops and ops[-1] == "Cast"
    if dtype != "bfloat16":  # onnxruntime has no bfloat16 Cast from float64
        assert agree(text) == 0.0
