"""DynamicToStatic: TVM's cases (tests/python/relay/test_pass_dynamic_to_static.py,
transcribed), every sample and corpus model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_corpus
from tests.passes.helpers import assert_pass_pair, assert_same_values
from tests.passes.programs import check_model, check_samples, corpus_params

X = "%x : Tensor[(2, 3, 4), float32]"
CASES = {
    # test_dynamic_to_static_reshape: the shape of another tensor
    "reshape": (f"{X}, %y : Tensor[(8, 3), float32]", "dyn.reshape(%x, shape_of(%y))", "reshape(%x, newshape=[8, 3])"),
    # test_dynamic_to_static_double_reshape
    "double_reshape": (
        f"{X}, %y : Tensor[(8, 3), float32]",
        "dyn.reshape(dyn.reshape(%x, shape_of(%y)), shape_of(%x))",
        "reshape(reshape(%x, newshape=[8, 3]), newshape=[2, 3, 4])",
    ),
    # test_dynamic_to_static_squeeze
    "squeeze": (
        "%x : Tensor[(1, 3, 1, 4), float32]",
        "dyn.squeeze(%x, Constant(2, (1), int64))",
        "squeeze(%x, axis=[2])",
    ),
    # test_dynamic_to_static_tile
    "tile": (f"{X}, %y : Tensor[(2, 1, 3), float32]", "dyn.tile(%x, shape_of(%y))", "tile(%x, reps=[2, 1, 3])"),
    # test_dynamic_to_static_topk
    "topk": ("%x : Tensor[(10), float32]", 'dyn.topk(%x, 3, ret_type="values")', 'topk(%x, k=3, ret_type="values")'),
    # test_dynamic_to_static_broadcast_to
    "broadcast_to": (
        "%x : Tensor[(3, 1), float32], %y : Tensor[(3, 4), float32]",
        "dyn.broadcast_to(%x, shape_of(%y))",
        "broadcast_to(%x, shape=[3, 4])",
    ),
    # test_dynamic_to_static_full
    "full": (
        "%v : float32, %y : Tensor[(3, 4), float32]",
        'dyn.full(%v, shape_of(%y), dtype="float32")',
        'full(%v, shape=[3, 4], dtype="float32")',
    ),
    # test_dynamic_to_static_one_hot
    "one_hot": (
        "%i : Tensor[(4), int32]",
        'dyn.one_hot(%i, 1f, 0f, 5, axis=-1, dtype="float32")',
        'one_hot(%i, 1f, 0f, depth=5, axis=-1, dtype="float32")',
    ),
    # test_dynamic_to_static_upsampling
    "upsampling": (
        "%x : Tensor[(1, 2, 3, 3), float32]",
        "dyn.nn.upsampling(%x, 2f, 3f)",
        "nn.upsampling(%x, scale_h=2f, scale_w=3f)",
    ),
    # test_dynamic_to_static_pad
    "pad": (
        "%x : Tensor[(2, 3), float32]",
        "dyn.nn.pad(%x, Constant(1, (2, 2), int64), 0f)",
        "nn.pad(%x, 0f, pad_width=[[1, 1], [1, 1]])",
    ),
    # test_dynamic_to_static_strided_slice
    "strided_slice": (
        X,
        "dyn.strided_slice(%x, Constant(0, (3), int64), Constant(2, (3), int64), Constant(1, (3), int64))",
        "strided_slice(%x, begin=[0, 0, 0], end=[2, 2, 2], strides=[1, 1, 1])",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_dynamic_operators_become_static(name: str) -> None:
    params, before_expr, after_expr = CASES[name]
    before = f"def @main({params}) {{\n  {before_expr}\n}}\n"
    expected = f"def @main({params}) {{\n  {after_expr}\n}}\n"
    out = assert_pass_pair(before, expected, "DynamicToStatic")
    assert_same_values(before, out)


def test_a_shape_that_depends_on_data_stays_dynamic() -> None:
    """test_dynamic_to_static_dynamic_rank: the shape is a parameter."""
    before = f"def @main({X}, %s : Tensor[(2), int64]) {{\n  dyn.reshape(%x, %s)\n}}\n"
    assert_pass_pair(before, before, "DynamicToStatic")


def test_every_sample() -> None:
    check_samples("DynamicToStatic")


@needs_corpus
@pytest.mark.parametrize("path", corpus_params(heavy_too=False))
def test_every_model(path: Path) -> None:
    check_model(path, "DynamicToStatic")
