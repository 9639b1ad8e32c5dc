"""SimplifyInference: TVM's pair (tests/python/relay/test_pass_simplify_inference.py,
transcribed), each normalization against its operator, every sample and
corpus model (within float rounding: the arithmetic is reordered)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_corpus
from tests.passes.helpers import assert_pass_pair, assert_same_values, optimized
from tests.passes.programs import check_model, check_samples, corpus_params

SIMPLIFY = "SimplifyInference"
RTOL, ATOL = 1e-5, 1e-6


def _batch_norm_program(rank: int, axis: int, steps: int, dtype: str) -> tuple[str, str]:
    """test_simplify_batchnorm's `check(dim, axis, nstep)`: batch norms (each
    followed by a dropout) on `x + 1`, and what they simplify to."""
    shape = ", ".join(["10"] * rank)
    suffix = "f16" if dtype == "float16" else "f"
    params = (
        f"%x : Tensor[({shape}), {dtype}], %beta : Tensor[(10), {dtype}], %gamma : Tensor[(10), {dtype}], "
        f"%moving_var : Tensor[(10), {dtype}], %moving_mean : Tensor[(10), {dtype}]"
    )
    before, after = "%x", "%x"
    extra = rank - axis - 1
    for _ in range(steps):
        before = (
            f"nn.dropout(nn.batch_norm(add({before}, 1{suffix}), %gamma, %beta, %moving_mean, %moving_var, "
            f"axis={axis}, epsilon=0.01f).0).0"
        )
        scale = f"multiply(divide(1{suffix}, sqrt(add(%moving_var, 0.01{suffix}))), %gamma)"
        shift = f"add(multiply(negative(%moving_mean), {scale}), %beta)"
        if extra:
            scale = f"expand_dims({scale}, axis=1, num_newaxis={extra})"
            shift = f"expand_dims({shift}, axis=1, num_newaxis={extra})"
        after = f"add(multiply(add({after}, 1{suffix}), {scale}), {shift})"
    return f"def @main({params}) {{\n  {before}\n}}\n", f"def @main({params}) {{\n  {after}\n}}\n"


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize(("rank", "axis", "steps"), [(2, 1, 1), (4, 1, 1), (4, 0, 3)])
def test_batch_norm_and_dropout(rank: int, axis: int, steps: int, dtype: str) -> None:
    """test_simplify_batchnorm (check(2, 1, 1), check(4, 1, 1), check(4, 0, 3))."""
    before, expected = _batch_norm_program(rank, axis, steps, dtype)
    out = assert_pass_pair(before, expected, SIMPLIFY)
    if dtype == "float32":
        assert_same_values(before, out, rtol=RTOL, atol=ATOL)


NORMS = {
    "layer_norm": ("Tensor[(2, 3, 4), float32]", "Tensor[(4), float32]", "nn.layer_norm(%x, %g, %b, epsilon=0.001f)"),
    "layer_norm_axis": (
        "Tensor[(2, 3, 4), float32]",
        "Tensor[(3), float32]",
        "nn.layer_norm(%x, %g, %b, axis=1, center=False)",
    ),
    "instance_norm": ("Tensor[(2, 3, 4, 5), float32]", "Tensor[(3), float32]", "nn.instance_norm(%x, %g, %b)"),
    "group_norm": ("Tensor[(2, 6, 4, 5), float32]", "Tensor[(6), float32]", "nn.group_norm(%x, %g, %b, num_groups=3)"),
}


@pytest.mark.parametrize("name", sorted(NORMS))
def test_normalizations_compute_what_their_operators_compute(name: str) -> None:
    x, v, expr = NORMS[name]
    before = f"def @main(%x : {x}, %g : {v}, %b : {v}) {{\n  {expr}\n}}\n"
    out = optimized(before, SIMPLIFY)
    assert "norm" not in out
    assert_same_values(before, out, rtol=RTOL, atol=ATOL)


def test_l2_normalize() -> None:
    before = "def @main(%x : Tensor[(2, 3), float32]) {\n  nn.l2_normalize(%x, eps=0.001f, axis=[1])\n}\n"
    expected = (
        "def @main(%x : Tensor[(2, 3), float32]) {\n"
        "  divide(%x, sqrt(maximum(sum(multiply(%x, %x), axis=[1], keepdims=True), 0.001f)))\n}\n"
    )
    out = assert_pass_pair(before, expected, SIMPLIFY)
    assert_same_values(before, out, rtol=RTOL, atol=ATOL)


def test_the_other_fields_of_a_batch_norm_stay() -> None:
    before = """def @main(%x : Tensor[(1, 2), float32], %v : Tensor[(2), float32]) {
  %0 = nn.batch_norm(%x, %v, %v, %v, %v);
  (%0.0, %0.1)
}
"""
    out = optimized(before, SIMPLIFY)
    assert "nn.batch_norm" in out and ".1" in out


def test_every_sample() -> None:
    check_samples(SIMPLIFY, rtol=RTOL, atol=ATOL)


@needs_corpus
@pytest.mark.parametrize("path", corpus_params())
def test_every_model(path: Path) -> None:
    check_model(path, SIMPLIFY, rtol=RTOL, atol=ATOL)
