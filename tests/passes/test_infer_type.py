"""InferType: the types written in, as annotations and (on request) as TVM's
`/* ty=... */` comments; every sample and corpus model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_corpus
from tests.passes.helpers import assert_pass_pair, assert_same_values, assert_well_formed, optimized
from tests.passes.programs import check_model, check_samples, corpus_params


def test_binders_and_results_get_their_types() -> None:
    """tests/python/relay/test_type_infer.py::test_let and test_monomorphic_let,
    written out: each `let` variable and function result gets its type."""
    before = """def @main(%x : Tensor[(2), float32]) {
  let %y = add(%x, 1f);
  let %f = fn (%a : Tensor[(2), float32]) { multiply(%a, %y) };
  (%f(%x), %y)
}
"""
    expected = """def @main(%x : Tensor[(2), float32]) -> (Tensor[(2), float32], Tensor[(2), float32]) {
  let %y : Tensor[(2), float32] = add(%x, 1f);
  let %f : fn(Tensor[(2), float32]) -> Tensor[(2), float32] =
    fn (%a : Tensor[(2), float32]) -> Tensor[(2), float32] { multiply(%a, %y) };
  (%f(%x), %y)
}
"""
    out = assert_pass_pair(before, expected, "InferType")
    assert_same_values(before, out)


def test_a_generic_function_is_left_generic() -> None:
    """A function whose parameters stay type variables is not given them:
    the text could not say what constrains them."""
    before = "def @id(%x) { %x }\n\ndef @main() { (@id(1), @id(True)) }\n"
    out = optimized(before, "InferType")
    assert "def @id(%x) {" in out
    assert "def @main() -> (int32, bool)" in out


def test_type_comments_as_tvm_printed_them() -> None:
    """`comments=true`: `/* ty=... */` after each call and projection, as in
    TVM's dumps (the corpus ResNet-50 shows the style)."""
    before = (
        '#[version = "0.0.5"]\ndef @main(%x: Tensor[(1, 3), float32]) {\n  %0 = (%x, %x);\n  exp(add(%0.0, 1f))\n}\n'
    )
    out = optimized(before, "InferType{comments=true}")
    assert out == (
        '#[version = "0.0.5"]\n'
        "def @main(%x: Tensor[(1, 3), float32]) -> Tensor[(1, 3), float32] {\n"
        "  %0 = (%x, %x);\n"
        "  %1 = %0.0 /* ty=Tensor[(1, 3), float32] */;\n"
        "  %2 = add(%1, 1f) /* ty=Tensor[(1, 3), float32] */;\n"
        "  exp(%2) /* ty=Tensor[(1, 3), float32] */\n"
        "}\n"
    )
    assert_well_formed(out)


def test_every_sample() -> None:
    check_samples("InferType")


@pytest.mark.parametrize("name", ["cse_graph", "tour"])
def test_comments_on_samples(name: str) -> None:
    from tests.conftest import SAMPLES

    text = (SAMPLES / f"{name}.rly").read_text()
    out = optimized(text, "InferType{comments=true}")
    assert "/* ty=" in out
    assert_well_formed(out)


@needs_corpus
@pytest.mark.parametrize("path", corpus_params())
def test_every_model(path: Path) -> None:
    check_model(path, "InferType{comments=true}")
