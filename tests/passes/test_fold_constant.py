"""FoldConstant: TVM's pairs (tests/python/relay/test_pass_fold_constant.py,
transcribed; tensors written in a `#[metadata]` section), every sample and
corpus model, and the evaluator's use of the same pass."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from relay_text.syntax.metadata import encode_metadata
from tests.conftest import needs_corpus
from tests.passes.helpers import assert_pass_pair, assert_same_values, optimized
from tests.passes.programs import check_model, check_samples, corpus_params

FOLD = "FoldConstant"


def with_meta(text: str, *arrays: np.ndarray) -> str:
    return text + "#[metadata]\n" + encode_metadata(list(arrays)) + "\n"


C = np.array([1, 2, 3], np.float32)


def test_concatenate_of_constants() -> None:
    """test_concatenate_const"""
    data = np.array([1.0, 2.0, 3.0])
    before = with_meta("def @main() {\n  concatenate((meta[relay.Constant][0], meta[relay.Constant][0]))\n}\n", data)
    expected = with_meta("def @main() {\n  meta[relay.Constant][1]\n}\n", data, np.concatenate([data, data]))
    out = assert_pass_pair(before, expected, FOLD)
    assert_same_values(before, out)


def test_fold_const() -> None:
    """test_fold_const: `(c + c) * 2` is computed; `x + ...` and the last
    use of `c` stay."""
    before = with_meta(
        """def @main(%x : Tensor[(1, 2, 3), float32]) {
  %0 = add(meta[relay.Constant][0], meta[relay.Constant][0]);
  %1 = multiply(%0, 2f);
  add(add(%x, %1), meta[relay.Constant][0])
}
""",
        C,
    )
    expected = with_meta(
        (
            "def @main(%x : Tensor[(1, 2, 3), float32]) {\n  add(add(%x, meta[relay.Constant][1]), "
            "meta[relay.Constant][0])\n}\n"
        ),
        C,
        (C + C) * 2,
    )
    out = assert_pass_pair(before, expected, FOLD)
    assert_same_values(before, out)


def test_fold_let() -> None:
    """test_fold_let: let-bound constants are dissolved into their uses."""
    before = """def @main(%x : Tensor[(1), float32]) {
  let %t1 = 1f;
  let %t2 = add(%t1, %t1);
  let %t3 = add(%t2, %x);
  %t3
}
"""
    expected = "def @main(%x : Tensor[(1), float32]) {\n  let %t3 = add(2f, %x);\n  %t3\n}\n"
    out = assert_pass_pair(before, expected, FOLD)
    assert_same_values(before, out)


def test_fold_tuple() -> None:
    """test_fold_tuple: a projection of a tuple node is its field."""
    before = """def @main(%x : Tensor[(1), float32]) {
  %0 = (%x, 1f);
  add(add(%0.1, 1f), %0.0)
}
"""
    expected = "def @main(%x : Tensor[(1), float32]) {\n  add(2f, %x)\n}\n"
    out = assert_pass_pair(before, expected, FOLD)
    assert_same_values(before, out)


def test_fold_concat() -> None:
    """test_fold_concat"""
    data = np.array([[1, 2, 3]], np.float32)
    before = with_meta(
        "def @main() {\n  concatenate((meta[relay.Constant][0], meta[relay.Constant][0]), axis=0)\n}\n", data
    )
    expected = with_meta("def @main() {\n  meta[relay.Constant][1]\n}\n", data, np.concatenate([data, data]))
    assert_pass_pair(before, expected, FOLD)


@pytest.mark.parametrize(("cond", "op"), [("True", np.add), ("False", np.subtract)])
def test_fold_if(cond: str, op: np.ufunc) -> None:
    """test_fold_if: a constant condition picks its branch."""
    data = np.array([[1, 2, 3]], np.float32)
    before = with_meta(
        f"def @main() {{\n  if ({cond}) {{ add(meta[relay.Constant][0], meta[relay.Constant][0]) }} "
        "else { subtract(meta[relay.Constant][0], meta[relay.Constant][0]) }\n}\n",
        data,
    )
    expected = with_meta("def @main() {\n  meta[relay.Constant][1]\n}\n", data, op(data, data))
    assert_pass_pair(before, expected, FOLD)


@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_fold_shape_of(dtype: str) -> None:
    """test_fold_shape_of: the shape of a tensor of known shape, whatever its value."""
    before = (
        f"def @main(%x : Tensor[(8, 9, 10), float32], %y : Tensor[(8, 9, 10), float32]) {{\n  shape_of(add(%x, "
        f'%y), dtype="{dtype}")\n}}\n'
    )
    expected = with_meta(
        (
            "def @main(%x : Tensor[(8, 9, 10), float32], %y : Tensor[(8, 9, 10), float32]) {\n  "
            "meta[relay.Constant][0]\n}\n"
        ),
        np.array([8, 9, 10], dtype),
    )
    out = assert_pass_pair(before, expected, FOLD)
    assert_same_values(before, out)


@pytest.mark.parametrize(("dtype", "literal"), [("int32", "720"), ("float32", "720f")])
def test_fold_ndarray_size(dtype: str, literal: str) -> None:
    """test_fold_ndarray_size"""
    before = (
        f"def @main(%x : Tensor[(8, 9, 10), float32], %y : Tensor[(8, 9, 10), float32]) {{\n  "
        f'ndarray_size(add(%x, %y), dtype="{dtype}")\n}}\n'
    )
    expected = f"def @main(%x : Tensor[(8, 9, 10), float32], %y : Tensor[(8, 9, 10), float32]) {{\n  {literal}\n}}\n"
    assert_pass_pair(before, expected, FOLD)


def test_a_stateful_operator_is_not_folded() -> None:
    """test_fold_dropout: `nn.dropout` is stateful in TVM, so nothing folds."""
    data = np.arange(10, dtype=np.float32)
    before = with_meta("def @main() {\n  add(nn.dropout(meta[relay.Constant][0]).0, 1f)\n}\n", data)
    assert_pass_pair(before, before, FOLD)


def test_quantized_operators_fold_only_with_fold_qnn() -> None:
    """test_fold_quantize: `qnn.quantize` of a constant folds with `fold_qnn`."""
    data = np.array([0.5, -1.0, 2.0], np.float32)
    before = with_meta(
        'def @main() {\n  qnn.quantize(meta[relay.Constant][0], 0.5f, 0, out_dtype="int8")\n}\n',
        data,
    )
    assert_pass_pair(before, before, FOLD)
    folded = optimized(before, "FoldConstant{fold_qnn=true}")
    assert "qnn.quantize" not in folded
    assert_same_values(before, folded)


def test_calls_without_arguments_and_primitive_functions_are_left() -> None:
    before = """def @main(%x : Tensor[(2), float32]) {
  %0 = fn (%p : Tensor[(2), float32], Primitive=1) { add(%p, add(1f, 1f)) };
  (zeros(shape=[2], dtype="float32"), %0(%x))
}
"""
    assert_pass_pair(before, before, FOLD)


def test_a_dump_without_data_keeps_what_it_cannot_write() -> None:
    """Constants without a section have no values: a tensor computed from
    literals alone could not be written beside them, so it stays a call; a
    scalar becomes a literal."""
    before = """#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) {
  %0 = add(%x, meta[relay.Constant][0] /* ty=Tensor[(4), float32] */);
  %1 = broadcast_to(1f, shape=[4]);
  (add(%0, %1), multiply(2f, 3f))
}
"""
    out = optimized(before, FOLD)
    assert "broadcast_to(1f, shape=[4])" in out and "6f" in out and "#[metadata]" not in out
    assert "meta[relay.Constant][0] /* ty=Tensor[(4), float32] */" in out


def test_float16_is_computed_as_the_evaluator_computes_it() -> None:
    """float32 arithmetic rounded once to float16, as `relay run` does."""
    before = "def @main() {\n  exp(Constant(0.3, (3), float16))\n}\n"
    out = optimized(before, FOLD)
    assert "exp" not in out
    assert_same_values(before, out)


def test_every_sample() -> None:
    check_samples(FOLD)


@needs_corpus
@pytest.mark.parametrize("path", corpus_params())
def test_every_model(path: Path) -> None:
    check_model(path, FOLD)


def test_the_evaluator_runs_the_registrys_passes() -> None:
    """`relay run`'s rewrites are passes of the registry, applied in order."""
    from relay_text.eval import optimize
    from relay_text.passes import registry

    assert optimize.PASSES == ("FoldAffine", "FoldConstant", "DenseWeightLayout")
    for name in optimize.PASSES:
        found = registry.get(name)
        assert found is not None and found.evaluator is not None
