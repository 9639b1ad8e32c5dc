"""`DenseWeightLayout`, the rewrite by which `relay run` lays constant dense
weights out column-major (the text does not change)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from relay_text.eval.compile import compile_program
from relay_text.ir.span import Source
from relay_text.passes import dense_weight_layout
from relay_text.pipeline import _type_lookup, check_source

DENSE = """\
def @main(%x: Tensor[(2, 8), float32]) -> Tensor[(2, 4), float32] {
  nn.dense(%x, meta[relay.Constant][0] /* ty=Tensor[(4, 8), float32] */, units=4)
}
"""


def weights_in(program: Any) -> list[np.ndarray]:
    """The (4, 8) arrays the compiled program holds."""
    return [v for v in program.namespace.values() if isinstance(v, np.ndarray) and v.shape == (4, 8)]


def compiled(weight: np.ndarray) -> Any:
    checked = check_source(Source("d.rly", DENSE), use_prelude=False)
    module = checked.module
    assert module is not None and not checked.errors
    return compile_program(
        module,
        globals_=[module.global_var("main")],
        type_of=_type_lookup(checked.result, None),
        constants={0: weight},
    )


def test_a_constant_weight_is_read_column_major() -> None:
    weight = np.arange(32, dtype=np.float32).reshape(4, 8)
    [laid_out] = [w for w in weights_in(compiled(weight)) if w.flags.f_contiguous]
    assert not laid_out.flags.c_contiguous and np.array_equal(laid_out, weight)


@pytest.mark.parametrize("largest", [32 * 4 - 1, 0])
def test_a_weight_larger_than_largest_keeps_its_layout(monkeypatch: pytest.MonkeyPatch, largest: int) -> None:
    """A copy of a large weight would hold its memory twice: above `LARGEST`
    bytes (256 MiB) the product reads the weight as it is."""
    monkeypatch.setattr(dense_weight_layout, "LARGEST", largest)
    weight = np.arange(32, dtype=np.float32).reshape(4, 8)
    held = weights_in(compiled(weight))
    assert held and all(w.flags.c_contiguous and not w.flags.f_contiguous for w in held)


def test_largest_is_256_mib() -> None:
    assert dense_weight_layout.LARGEST == 256 * 2**20
