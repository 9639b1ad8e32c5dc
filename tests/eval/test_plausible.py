"""Random values shaped by their use (`--random-args`, `--random-consts`), and
`relay run` on the tensors of a `#[metadata]` section."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relay_text.eval.args import _standard_normal
from relay_text.eval.entry import RunRequest
from relay_text.eval.ops import numpy_dtype
from relay_text.eval.plausible import Role, roles, shape_role
from relay_text.ir.span import Source
from relay_text.pipeline import check_source, run_source
from relay_text.syntax.metadata import encode_metadata

MODEL = """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %ids: Tensor[(5), int32],
          %table: Tensor[(7, 2), float32], %a: Tensor[(6, 1), float32], %b: Tensor[(6, 1), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.batch_norm(%0, meta[relay.Constant][0], meta[relay.Constant][1],
                     meta[relay.Constant][2], meta[relay.Constant][3]);
  %2 = take(%table, %ids, axis=0);
  %3 = (%a, %b);
  %4 = nn.dense(%2, concatenate(%3, axis=1), units=None);
  (%1.0, %4)
}
"""


def test_roles_from_uses() -> None:
    checked = check_source(Source("m.rly", MODEL))
    assert [str(d) for d in checked.diagnostics if d.is_error] == []
    found = roles(checked.module, checked.result.type_of)
    by_name = {getattr(k, "name", k): v for k, v in found.items()}
    assert by_name == {
        "w": Role("weight", 27),  # 3 input channels x 3 x 3
        ("meta", 0): Role("scale"),
        ("meta", 1): Role("shift"),
        ("meta", 2): Role("shift"),
        ("meta", 3): Role("variance"),
        "ids": Role("index", 7),
        "a": Role("weight", 2),  # concatenated weights: fan-in of the whole
        "b": Role("weight", 2),
    }


def test_shapes_of_roles() -> None:
    draw = np.array([-2.0, 0.0, 3.0], dtype=np.float32)
    np.testing.assert_allclose(shape_role(draw, Role("weight", 12)), draw / 6)
    np.testing.assert_allclose(shape_role(draw, Role("variance")), [1.5, 0.5, 2.0])
    np.testing.assert_allclose(shape_role(draw, Role("scale")), [0.8, 1.0, 1.3])
    np.testing.assert_allclose(shape_role(draw, Role("shift")), [-0.2, 0.0, 0.3])
    assert shape_role(draw, Role("variance")).dtype == np.float32
    assert shape_role(np.array([-3, 9, 4], dtype=np.int32), Role("index", 4)).tolist() == [1, 1, 0]
    assert shape_role(draw, None) is draw


def test_model_runs_to_finite_values() -> None:
    ran = run_source(Source("m.rly", MODEL), RunRequest(random_args=True, random_consts=True, seed=3))
    assert [str(d) for d in ran.diagnostics if d.is_error] == []
    image, dense = ran.value
    assert image.shape == (1, 4, 8, 8) and dense.shape == (5, 6)
    assert np.isfinite(image).all() and np.isfinite(dense).all()


def test_metadata_tensors_are_the_values() -> None:
    program = (
        '#[version = "0.0.5"]\ndef @main() {\n  add(meta[relay.Constant][0], meta[relay.Constant][1])\n}\n#[metadata]\n'
    )
    section = encode_metadata([np.array([1, 2, 3], dtype=np.int32), np.array([10, 20, 30], dtype=np.int32)])
    ran = run_source(Source("m.rly", program + section), RunRequest())
    assert [str(d) for d in ran.diagnostics] == []
    assert ran.value.dtype == np.int32
    assert ran.value.tolist() == [11, 22, 33]


@settings(max_examples=60, deadline=None)
@given(
    shape=st.lists(st.integers(0, 40), min_size=0, max_size=3),
    piece=st.integers(1, 300),
    dtype=st.sampled_from(["float16", "float32", "float64", "bfloat16"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_floats_drawn_a_piece_at_a_time_are_the_whole_draw(shape: list[int], piece: int, dtype: str, seed: int) -> None:
    """A float tensor is drawn into its result a piece at a time (a 2 GiB
    weight needs no float64 draw of 4 GiB beside it): the values are those
    of one float64 draw converted, whatever the piece size."""
    from relay_text.eval import args

    saved, args.DRAW_PIECE = args.DRAW_PIECE, piece
    try:
        got = _standard_normal(np.random.default_rng(seed), shape, numpy_dtype(dtype))
    finally:
        args.DRAW_PIECE = saved
    whole = np.random.default_rng(seed).standard_normal(shape).astype(numpy_dtype(dtype))
    assert got.dtype == whole.dtype and got.shape == whole.shape
    assert got.tobytes() == whole.tobytes()


@pytest.mark.parametrize("role", [Role("weight", 27), Role("variance"), Role("scale"), Role("shift"), Role("index", 5)])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_a_fresh_draw_is_shaped_in_place_to_the_same_values(role: Role, dtype: str) -> None:
    draw = np.random.default_rng(4).standard_normal((5, 9)).astype(dtype)
    copied = shape_role(draw.copy(), role)
    in_place = shape_role(draw, role, fresh=True)
    assert in_place is draw  # (no second tensor of the draw's size)
    assert in_place.dtype == copied.dtype and in_place.tobytes() == copied.tobytes()
