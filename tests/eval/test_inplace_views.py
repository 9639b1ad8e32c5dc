"""Elementwise steps and softmaxes written into the buffer of a reshaped
tensor (`relay_text.eval.emit`, `dead_view`): a reshape of a fresh tensor
that nothing else reads hands its buffer on, as the tensor itself would."""

from __future__ import annotations

from typing import Any

import numpy as np

from relay_text.eval.runtime import execute

from .test_optimize import compiled


def steps(program: Any) -> list[str]:
    """The calls of the compiled program: `K` a kernel (a new tensor), `I`
    a step written into an argument's buffer."""
    found = []
    for line in program.source.splitlines():
        for token in line.replace("(", " ").split():
            if token[:1] in ("K", "I") and token[1:].isdigit():
                found.append(token[0])
    return found


DECODER = """def @main(%h: Tensor[(6, 8), float32], %w: Tensor[(50, 8), float32], %b: Tensor[(50), float32]) {
  %0 = nn.dense(%h, %w, units=None);
  %1 = reshape(%0, newshape=[2, 3, 50]);
  %2 = add(%1, %b);
  %3 = reshape(%2, newshape=[-1, 50]);
  nn.log_softmax(%3, axis=1)
}
"""


def decoder_args() -> tuple[Any, ...]:
    rng = np.random.default_rng(7)
    return tuple(rng.standard_normal(s).astype(np.float32) for s in ((6, 8), (50, 8), (50,)))


def test_a_step_after_a_reshape_of_a_fresh_tensor_writes_into_it() -> None:
    fast = compiled(DECODER)
    # dense and the two reshapes are kernels; the bias and the log_softmax in place
    assert steps(fast) == ["K", "K", "I", "K", "I"]
    h, w, b = decoder_args()
    got = execute(fast, "@main", (h, w, b))
    plain = execute(compiled(DECODER, False), "@main", (h, w, b))
    assert got.shape == (6, 50) and got.dtype == np.float32
    z = h @ w.T + b
    want = z - z.max(1, keepdims=True)
    want = want - np.log(np.exp(want).sum(1, keepdims=True))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, plain, rtol=1e-6, atol=1e-6)


def test_a_reshape_whose_source_is_read_again_is_not_written() -> None:
    text = """def @main(%x: Tensor[(2, 3), float32]) {
  %0 = nn.relu(%x);
  %1 = reshape(%0, newshape=[3, 2]);
  %2 = add(%1, 10f);
  (%0, %2)
}
"""
    fast = compiled(text)
    x = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
    first, second = execute(fast, "@main", (x,))
    assert np.array_equal(first, np.maximum(x, 0))
    assert np.array_equal(second, np.maximum(x, 0).reshape(3, 2) + 10)
    assert steps(fast).count("I") == 0


def test_a_reshape_read_twice_is_not_written() -> None:
    text = """def @main(%x: Tensor[(2, 3), float32]) {
  %0 = nn.relu(%x);
  %1 = reshape(%0, newshape=[6]);
  %2 = add(%1, 10f);
  (%1, %2)
}
"""
    x = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
    first, second = execute(compiled(text), "@main", (x,))
    assert np.array_equal(first, np.maximum(x, 0).reshape(6))
    assert np.array_equal(second, np.maximum(x, 0).reshape(6) + 10)


def test_a_reshape_of_a_parameter_is_not_written() -> None:
    text = """def @main(%x: Tensor[(2, 3), float32]) {
  %0 = squeeze(expand_dims(%x, axis=0), axis=[0]);
  add(%0, 1f)
}
"""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    keep = x.copy()
    got = execute(compiled(text), "@main", (x,))
    assert np.array_equal(x, keep)
    assert np.array_equal(got, keep + 1)
