"""max and min of booleans (any and all): ReduceMax and ReduceMin take bool
only from opset 20, so the values are reduced as int32 and cast back."""

from __future__ import annotations

import pytest

from .helpers import agree, export


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_and_min_of_booleans(op: str) -> None:
    text = (
        f"def @main(%a: Tensor[(3, 4), bool]) {{ ({op}(%a, axis=[1]), {op}(%a, axis=[0], keepdims=True), {op}(%a)) }}"
    )
    assert agree(text) == 0.0
    casts = [n for n in export(text).graph.node if n.op_type == "Cast"]
    assert len(casts) == 6
