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


DECODER = """def @main(%h: Tensor[(6, 8), float32], %w: Tensor[(50000, 8), float32], %b: Tensor[(50000), float32]) {
  %0 = nn.dense(%h, %w, units=None);
  %1 = reshape(%0, newshape=[2, 3, 50000]);
  %2 = add(%1, %b);
  %3 = reshape(%2, newshape=[-1, 50000]);
  nn.log_softmax(%3, axis=1)
}
"""


def decoder_args(width: int = 50000) -> tuple[Any, ...]:
    rng = np.random.default_rng(7)
    return tuple(rng.standard_normal(s).astype(np.float32) for s in ((6, 8), (width, 8), (width,)))


def test_a_step_after_a_reshape_of_a_fresh_tensor_writes_into_it() -> None:
    fast = compiled(DECODER)
    # the dense and its reshape are kernels; the bias, the second reshape
    # and the log_softmax one call on the dense's buffer, block by block
    assert steps(fast) == ["K", "K", "I"]
    h, w, b = decoder_args()
    got = execute(fast, "@main", (h, w, b))
    plain = execute(compiled(DECODER, False), "@main", (h, w, b))
    assert got.shape == (6, 50000) and got.dtype == np.float32
    z = h @ w.T + b
    want = z - z.max(1, keepdims=True)
    want = want - np.log(np.exp(want).sum(1, keepdims=True))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert np.array_equal(got, plain)  # the same arithmetic, in blocks


def test_a_softmax_right_after_a_chain_is_fused_with_it() -> None:
    text = """def @main(%x: Tensor[(8, 40000), float32], %b: Tensor[(40000), float32]) {
  %0 = nn.relu(%x);
  %1 = add(%0, %b);
  %2 = multiply(%1, 0.5f);
  nn.softmax(%2)
}
"""
    fast = compiled(text)
    assert steps(fast) == ["K", "I"]
    rng = np.random.default_rng(8)
    x = rng.standard_normal((8, 40000)).astype(np.float32)
    b = rng.standard_normal(40000).astype(np.float32)
    got = execute(fast, "@main", (x, b))
    assert np.array_equal(got, execute(compiled(text, False), "@main", (x, b)))


def test_operands_that_are_not_rows_are_applied_before_the_softmax() -> None:
    text = """def @main(%x: Tensor[(8, 40000), float32], %c: Tensor[(8, 1), float32]) {
  %0 = nn.relu(%x);
  %1 = add(%0, %c);
  nn.log_softmax(%1)
}
"""
    fast = compiled(text)
    assert steps(fast) == ["K", "I"]
    rng = np.random.default_rng(9)
    x = rng.standard_normal((8, 40000)).astype(np.float32)
    c = rng.standard_normal((8, 1)).astype(np.float32)
    got = execute(fast, "@main", (x, c))
    assert np.array_equal(got, execute(compiled(text, False), "@main", (x, c)))


def test_a_small_fused_softmax_takes_the_whole_tensor_formula() -> None:
    small = DECODER.replace("50000", "50")
    h, w, b = decoder_args(50)
    got = execute(compiled(small), "@main", (h, w, b))
    np.testing.assert_allclose(got, execute(compiled(small, False), "@main", (h, w, b)), rtol=1e-6, atol=1e-6)


def test_a_reshape_changing_the_rows_is_not_fused() -> None:
    text = DECODER.replace("newshape=[-1, 50000]", "newshape=[-1, 25000]").replace(
        "(50000), float32]) {", "(50000), float32]) -> Tensor[(12, 25000), float32] {"
    )
    fast = compiled(text)
    assert steps(fast) == ["K", "K", "I", "K", "I"]
    h, w, b = decoder_args()
    assert np.array_equal(execute(fast, "@main", (h, w, b)), execute(compiled(text, False), "@main", (h, w, b)))


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
