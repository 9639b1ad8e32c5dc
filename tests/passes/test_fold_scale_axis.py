"""FoldScaleAxis (and its backward and forward halves): TVM's pairs
(tests/python/relay/test_pass_fold_scale_axis.py, the NCHW cases,
transcribed), every sample and corpus model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import needs_corpus
from tests.passes.helpers import assert_pass_pair, assert_same_values
from tests.passes.programs import check_model, check_samples, corpus_params
from tests.passes.test_fold_constant import with_meta

POSITIVE = np.array([0.5, 1.5, 2.0, 0.25], np.float32)
PARAMS = (
    "%x : Tensor[(2, 4, 10, 10), float32], %weight : Tensor[(8, 4, 3, 3), float32], %in_bias : Tensor[(4, 1, "
    "1), float32]"
)


def test_fold_fwd_simple() -> None:
    """test_fold_fwd_simple: x * s, relu, + bias, conv2d."""
    before = with_meta(
        f"""def @main({PARAMS}) {{
  %0 = add(nn.relu(multiply(%x, meta[relay.Constant][0])), %in_bias);
  nn.conv2d(%0, %weight, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3])
}}
""",
        POSITIVE.reshape(4, 1, 1),
    )
    expected = with_meta(
        f"""def @main({PARAMS}) {{
  %0 = squeeze(meta[relay.Constant][0], axis=[1, 2]);
  %1 = add(nn.relu(%x), divide(%in_bias, expand_dims(%0, axis=1, num_newaxis=2)));
  nn.conv2d(%1, multiply(%weight, expand_dims(%0, axis=1, num_newaxis=2)),
            padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3])
}}
""",
        POSITIVE.reshape(4, 1, 1),
    )
    out = assert_pass_pair(before, expected, "ForwardFoldScaleAxis")
    assert_same_values(before, out, rtol=1e-5, atol=1e-5)


BWD = "%x : Tensor[(2, 4, 10, 10), float32], %weight : Tensor[(8, 4, 3, 3), float32], %out_bias : Tensor[(8), float32]"
SCALE8 = np.linspace(0.5, 2.0, 8).astype(np.float32)


def test_fold_bwd_simple() -> None:
    """test_fold_bwd_simple: conv2d, + bias, relu, * s."""
    before = with_meta(
        f"""def @main({BWD}) {{
  %0 = nn.conv2d(%x, %weight, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  %1 = nn.relu(add(%0, expand_dims(%out_bias, axis=1, num_newaxis=2)));
  multiply(%1, meta[relay.Constant][0])
}}
""",
        SCALE8.reshape(8, 1, 1),
    )
    expected = with_meta(
        f"""def @main({BWD}) {{
  %0 = squeeze(meta[relay.Constant][0], axis=[1, 2]);
  %1 = nn.conv2d(%x, multiply(%weight, expand_dims(%0, axis=1, num_newaxis=3)),
                 padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  nn.relu(add(%1, multiply(expand_dims(%out_bias, axis=1, num_newaxis=2), expand_dims(%0, axis=1, num_newaxis=2))))
}}
""",
        SCALE8.reshape(8, 1, 1),
    )
    out = assert_pass_pair(before, expected, "BackwardFoldScaleAxis")
    assert_same_values(before, out, rtol=1e-5, atol=1e-5)


DENSE = "%x : Tensor[(2, 4), float32], %weight : Tensor[(3, 4), float32], %in_bias : Tensor[({n}), float32]"


def test_fold_bwd_dense() -> None:
    """test_fold_bwd_dense"""
    scale = np.array([0.5, 1.0, 2.0], np.float32)
    params = DENSE.format(n=3)
    before = with_meta(
        (
            f"def @main({params}) {{\n  multiply(nn.relu(add(nn.dense(%x, %weight), %in_bias)), "
            f"meta[relay.Constant][0])\n}}\n"
        ),
        scale,
    )
    expected = with_meta(
        f"def @main({params}) {{\n  nn.relu(add(nn.dense(%x, multiply(%weight, "
        f"expand_dims(meta[relay.Constant][0], axis=1))), "
        "multiply(%in_bias, meta[relay.Constant][0])))\n}\n",
        scale,
    )
    out = assert_pass_pair(before, expected, "BackwardFoldScaleAxis")
    assert_same_values(before, out, rtol=1e-5, atol=1e-5)


def test_fold_fwd_dense() -> None:
    """test_fold_fwd_dense"""
    params = DENSE.format(n=4)
    before = with_meta(
        (
            f"def @main({params}) {{\n  nn.dense(add(nn.relu(multiply(%x, meta[relay.Constant][0])), "
            f"%in_bias), %weight)\n}}\n"
        ),
        POSITIVE,
    )
    expected = with_meta(
        f"def @main({params}) {{\n  nn.dense(add(nn.relu(%x), divide(%in_bias, meta[relay.Constant][0])), "
        "multiply(%weight, meta[relay.Constant][0]))\n}\n",
        POSITIVE,
    )
    out = assert_pass_pair(before, expected, "ForwardFoldScaleAxis")
    assert_same_values(before, out, rtol=1e-5, atol=1e-5)


def test_a_negative_scale_does_not_pass_relu() -> None:
    """test_fold_fwd_relu_fail / test_fold_bwd_relu_fail"""
    scale = np.array([0.5, -1.0, 2.0], np.float32)
    params = DENSE.format(n=3)
    before = with_meta(
        f"def @main({params}) {{\n  multiply(nn.relu(nn.dense(%x, %weight)), meta[relay.Constant][0])\n}}\n", scale
    )
    assert_pass_pair(before, before, "BackwardFoldScaleAxis")


def test_fold_scale_axis_folds_constant_weights() -> None:
    """test_fold_constant.py::test_fold_batch_norm's pipeline on constant
    weights: the scaled weight is computed."""
    weight = np.ones((3, 4), np.float32)
    scale = np.array([0.5, 1.0, 2.0], np.float32)
    before = with_meta(
        (
            "def @main(%x : Tensor[(2, 4), float32]) {\n  multiply(nn.dense(%x, meta[relay.Constant][0]), "
            "meta[relay.Constant][1])\n}\n"
        ),
        weight,
        scale,
    )
    expected = with_meta(
        "def @main(%x : Tensor[(2, 4), float32]) {\n  nn.dense(%x, meta[relay.Constant][2])\n}\n",
        weight,
        scale,
        weight * scale[:, None],
    )
    out = assert_pass_pair(before, expected, "FoldScaleAxis")
    assert_same_values(before, out, rtol=1e-6)


def test_every_sample() -> None:
    check_samples("FoldScaleAxis", rtol=1e-5, atol=1e-5)


@needs_corpus
@pytest.mark.parametrize("path", corpus_params())
def test_every_model(path: Path) -> None:
    check_model(path, "SimplifyInference,FoldScaleAxis", rtol=1e-4, atol=1e-4)
