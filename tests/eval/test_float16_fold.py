"""float16 batch norms and per-channel scales folded into convolutions
(`relay run`'s FoldAffine): the folded weights are computed in float32 and
rounded once, the convolution's float32 sum is shifted (and a relu after it
applied, which commutes with rounding) and rounded once. The documented
promise (docs/commands/run.md, "Semantics") is pinned exactly here, and the
result stays within float16 rounding of the program run as written."""

from __future__ import annotations

from typing import Any

import numpy as np

from relay_text.eval.runtime import execute
from tests.eval.test_optimize import compiled, kernel_calls

EPS = np.float32(1e-5)

CONV_BN_RELU = """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 8, 8), float16]) -> Tensor[(1, 4, 8, 8), float16] {
  %0 = nn.conv2d(%x, meta[relay.Constant][0], padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = nn.batch_norm(%0, meta[relay.Constant][1], meta[relay.Constant][2],
                     meta[relay.Constant][3], meta[relay.Constant][4]);
  nn.relu(%1.0)
}
"""

BN_RELU = """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 4, 5, 5), float16]) -> Tensor[(1, 4, 5, 5), float16] {
  %0 = nn.batch_norm(%x, meta[relay.Constant][1], meta[relay.Constant][2],
                     meta[relay.Constant][3], meta[relay.Constant][4]);
  nn.relu(%0.0)
}
"""


def constants() -> dict[int, np.ndarray]:
    rng = np.random.default_rng(5)
    return {
        0: rng.standard_normal((4, 3, 3, 3)).astype(np.float16),
        1: rng.standard_normal(4).astype(np.float16),
        2: rng.standard_normal(4).astype(np.float16),
        3: rng.standard_normal(4).astype(np.float16),
        4: rng.uniform(0.5, 2.0, 4).astype(np.float16),
    }


def scale_shift(c: dict[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The batch norm as x * s + shift, in float32 from the float16 vectors."""
    gamma, beta, mean, var = (c[i].astype(np.float32) for i in (1, 2, 3, 4))
    s = gamma / np.sqrt(var + EPS)
    return s, beta - mean * s


def run(text: str, optimize: bool, x: np.ndarray, consts: dict[int, np.ndarray]) -> Any:
    return execute(compiled(text, optimize, consts), "@main", (x,))


CONV32 = """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3])
}
"""


def conv32(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The float32 convolution the evaluator runs (its float32 kernel)."""
    out: np.ndarray = execute(compiled(CONV32, False), "@main", (x, w))
    assert out.dtype == np.float32
    return out


def test_conv_batch_norm_relu_runs_as_one_folded_convolution_rounded_once() -> None:
    c = constants()
    x = np.random.default_rng(6).standard_normal((1, 3, 8, 8)).astype(np.float16)
    program = compiled(CONV_BN_RELU, True, c)
    calls = kernel_calls(program)
    assert "batch_norm" not in calls and calls.count("conv2d") == 1
    assert "relu" not in calls  # applied in place on the float32 sum
    out = execute(program, "@main", (x,))
    s, shift = scale_shift(c)
    weight = (c[0].astype(np.float32) * s.reshape(-1, 1, 1, 1)).astype(np.float16)  # rounded once
    total = conv32(x.astype(np.float32), weight.astype(np.float32)) + shift.reshape(1, -1, 1, 1)
    expected = np.maximum(total, np.float32(0)).astype(np.float16)
    assert out.dtype == np.float16 and out.shape == (1, 4, 8, 8)
    assert out.tobytes() == expected.tobytes()


def test_the_fold_stays_within_float16_rounding_of_the_program_as_written() -> None:
    c = constants()
    x = np.random.default_rng(7).standard_normal((1, 3, 8, 8)).astype(np.float16)
    folded = run(CONV_BN_RELU, True, x, c).astype(np.float32)
    written = run(CONV_BN_RELU, False, x, c)
    assert written.dtype == np.float16
    twin = run(
        CONV_BN_RELU.replace("float16", "float32"),
        False,
        x.astype(np.float32),
        {i: v.astype(np.float32) for i, v in c.items()},
    )
    scale = float(np.abs(twin).max())
    # a few float16 steps (2^-11 relative each) of the largest value
    np.testing.assert_allclose(folded, written.astype(np.float32), rtol=0, atol=4e-3 * scale)
    np.testing.assert_allclose(folded, twin, rtol=0, atol=4e-3 * scale)


def test_a_batch_norm_alone_and_its_relu_are_computed_in_float32_and_rounded_once() -> None:
    c = constants()
    x = np.random.default_rng(8).standard_normal((1, 4, 5, 5)).astype(np.float16)
    program = compiled(BN_RELU, True, c)
    assert "batch_norm" not in kernel_calls(program)
    out = execute(program, "@main", (x,))
    s, shift = scale_shift(c)
    total = x.astype(np.float32) * s.reshape(1, -1, 1, 1) + shift.reshape(1, -1, 1, 1)
    expected = np.maximum(total, np.float32(0)).astype(np.float16)
    assert out.dtype == np.float16
    assert out.tobytes() == expected.tobytes()
    written = run(BN_RELU, False, x, c)
    np.testing.assert_allclose(out.astype(np.float32), written.astype(np.float32), rtol=2e-3, atol=2e-3)


def test_float32_programs_keep_their_fold() -> None:
    c = {i: v.astype(np.float32) for i, v in constants().items()}
    calls = kernel_calls(compiled(CONV_BN_RELU.replace("float16", "float32"), True, c))
    assert "batch_norm" not in calls and "cast" not in calls and calls.count("conv2d") == 1


DENSE_BIAS = """def @main(%x: Tensor[(4, 8), float16], %w: Tensor[(16, 8), float16], %b: Tensor[(16), float16]) {
  nn.relu(nn.bias_add(nn.dense(%x, %w), %b, axis=-1))
}
"""

DENSE32 = """def @main(%x: Tensor[(4, 8), float32], %w: Tensor[(16, 8), float32]) {
  nn.dense(%x, %w)
}
"""


def test_a_float16_bias_after_a_dense_layer_is_added_to_its_float32_sum() -> None:
    """Weights that are parameters too (nothing is scaled: only the rounding moves)."""
    rng = np.random.default_rng(9)
    x, w, b = (rng.standard_normal(s).astype(np.float16) for s in ((4, 8), (16, 8), (16,)))
    program = compiled(DENSE_BIAS, True)
    calls = kernel_calls(program)
    assert calls[0] == "dense" and calls[-1] == "cast" and "relu" not in calls  # one rounding, at the end
    out = execute(program, "@main", (x, w, b))
    total = execute(compiled(DENSE32, False), "@main", (x.astype(np.float32), w.astype(np.float32)))
    expected = np.maximum(total + b.astype(np.float32), np.float32(0)).astype(np.float16)
    assert out.dtype == np.float16 and out.tobytes() == expected.tobytes()
    written = execute(compiled(DENSE_BIAS, False), "@main", (x, w, b))
    np.testing.assert_allclose(out.astype(np.float32), written.astype(np.float32), rtol=2e-3, atol=2e-3)
