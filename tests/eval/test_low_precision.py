"""float16 (and bfloat16) programs: kernels compute in float32 and round once."""

from __future__ import annotations

import numpy as np
import pytest

import relay_text
from relay_text.eval import ops as eval_ops


def _f16(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float16)


def _f32(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32)


CASES = [
    (
        "nn.dense(%a, %b)",
        "Tensor[(16, 64), float16]",
        "Tensor[(32, 64), float16]",
        "Tensor[(16, 32), float16]",
        lambda a, b: a @ b.T,
    ),
    (
        "nn.matmul(%a, %b)",
        "Tensor[(16, 64), float16]",
        "Tensor[(64, 8), float16]",
        "Tensor[(16, 8), float16]",
        lambda a, b: a @ b,
    ),
    (
        "nn.batch_matmul(%a, %b, transpose_b=True)",
        "Tensor[(2, 16, 64), float16]",
        "Tensor[(2, 8, 64), float16]",
        "Tensor[(2, 16, 8), float16]",
        lambda a, b: a @ b.transpose(0, 2, 1),
    ),
]


@pytest.mark.parametrize("call, ta, tb, tr, reference", CASES, ids=[c[0].split("(")[0] for c in CASES])
def test_matrix_products_are_float32_rounded_once(call: str, ta: str, tb: str, tr: str, reference) -> None:
    rng = np.random.default_rng(0)
    shape = lambda t: tuple(int(d) for d in t.split("(")[1].split(")")[0].split(","))  # noqa: E731
    a, b = _f16(rng, *shape(ta)), _f16(rng, *shape(tb))
    program = f"def @main(%a : {ta}, %b : {tb}) -> {tr} {{ {call} }}"
    out = relay_text.run(program, a, b)
    assert out.dtype == np.float16
    expected = reference(_f32(a), _f32(b)).astype(np.float16)
    assert out.tobytes() == expected.tobytes()


def test_conv2d_is_float32_rounded_once() -> None:
    rng = np.random.default_rng(1)
    x, w = _f16(rng, 1, 8, 12, 12), _f16(rng, 16, 8, 3, 3)
    program = """
    def @main(%x : Tensor[(1, 8, 12, 12), float16], %w : Tensor[(16, 8, 3, 3), float16])
        -> Tensor[(1, 16, 12, 12), float16] {
      nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3])
    }"""
    out = relay_text.run(program, x, w)
    twin = program.replace("float16", "float32")
    expected = relay_text.run(twin, _f32(x), _f32(w)).astype(np.float16)
    assert out.dtype == np.float16
    assert out.tobytes() == expected.tobytes()


def test_a_chain_rounds_after_every_operator() -> None:
    """Each operator rounds its own result: softmax(dense(x)) is not the
    float32 chain rounded at the end."""
    rng = np.random.default_rng(2)
    x, w = _f16(rng, 4, 32), _f16(rng, 10, 32)
    program = """
    def @main(%x : Tensor[(4, 32), float16], %w : Tensor[(10, 32), float16]) -> Tensor[(4, 10), float16] {
      nn.softmax(nn.dense(%x, %w))
    }"""
    out = relay_text.run(program, x, w)
    logits = (_f32(x) @ _f32(w).T).astype(np.float16).astype(np.float32)
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    expected = (e / e.sum(axis=1, keepdims=True)).astype(np.float16)
    np.testing.assert_allclose(out.astype(np.float32), expected.astype(np.float32), rtol=1e-3, atol=1e-4)
    assert out.dtype == np.float16


def test_tuple_results_round_each_field() -> None:
    rng = np.random.default_rng(3)
    x = _f16(rng, 2, 3, 4, 4)
    g, b, m = (_f16(rng, 3) for _ in range(3))
    v = np.abs(_f16(rng, 3)) + np.float16(0.5)
    program = """
    def @main(%x : Tensor[(2, 3, 4, 4), float16], %g : Tensor[(3), float16], %b : Tensor[(3), float16],
              %m : Tensor[(3), float16], %v : Tensor[(3), float16]) {
      nn.batch_norm(%x, %g, %b, %m, %v)
    }"""
    out = relay_text.run(program, x, g, b, m, v)
    assert [f.dtype for f in out] == [np.float16] * 3
    twin = relay_text.run(program.replace("float16", "float32"), *(_f32(t) for t in (x, g, b, m, v)))
    for got, want in zip(out, twin, strict=False):
        assert got.tobytes() == want.astype(np.float16).tobytes()


def test_reinterpret_keeps_the_bits() -> None:
    x = np.array([1.0, -2.5, 65504.0, 6e-8, np.inf], dtype=np.float16)
    program = 'def @main(%x : Tensor[(5), float16]) -> Tensor[(5), int16] { reinterpret(%x, dtype="int16") }'
    out = relay_text.run(program, x)
    assert out.dtype == np.int16
    assert out.tobytes() == x.view(np.int16).tobytes()


def test_data_movement_keeps_float16() -> None:
    x = np.arange(24, dtype=np.float16).reshape(2, 3, 4) / np.float16(7)
    program = """
    def @main(%x : Tensor[(2, 3, 4), float16]) -> Tensor[(4, 6), float16] {
      reshape(transpose(%x, axes=[2, 0, 1]), newshape=[4, 6])
    }"""
    out = relay_text.run(program, x)
    assert out.dtype == np.float16
    assert out.tobytes() == x.transpose(2, 0, 1).reshape(4, 6).tobytes()


def test_which_operators_keep_low_precision() -> None:
    assert eval_ops.keeps_low_precision("reinterpret")
    assert eval_ops.keeps_low_precision("reshape") and eval_ops.keeps_low_precision("annotation.stop_fusion")
    assert not eval_ops.keeps_low_precision("nn.dense") and not eval_ops.keeps_low_precision("add")


def test_float16_results_are_what_numpy_float16_elementwise_gives() -> None:
    """Elementwise: one float32 operation rounded once is numpy's float16 result."""
    rng = np.random.default_rng(4)
    a, b = _f16(rng, 1000), _f16(rng, 1000)
    program = "def @main(%a : Tensor[(1000), float16], %b : Tensor[(1000), float16]) { (%a + %b, %a * %b, %a / %b) }"
    s, p, q = relay_text.run(program, a, b)
    with np.errstate(all="ignore"):
        assert (
            s.tobytes() == (a + b).tobytes() and p.tobytes() == (a * b).tobytes() and q.tobytes() == (a / b).tobytes()
        )
