"""ToANormalForm, ToGraphNormalForm and ToBasicBlockNormalForm: TVM's pairs,
every sample and corpus model, and deep programs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_corpus
from tests.passes.helpers import assert_pass_pair, assert_same_values, optimized
from tests.passes.programs import check_model, check_samples, corpus_params

# ---------------------------------------------------------------- TVM's tests, transcribed


def test_anf_binds_each_shared_value_once() -> None:
    """tests/python/relay/test_pass_to_a_normal_form.py::test_explicit_bound"""
    before = "def @main() {\n  %0 = add(1, 1);\n  %1 = add(%0, %0);\n  add(%1, %1)\n}\n"
    expected = """def @main() {
  let %a = 1;
  let %b = 1;
  let %c = add(%a, %b);
  let %d = add(%c, %c);
  let %e = add(%d, %d);
  %e
}
"""
    out = assert_pass_pair(before, expected, "ToANormalForm")
    assert_same_values(before, out)


def test_anf_orders_by_evaluation_not_construction() -> None:
    """test_pass_to_a_normal_form.py::test_order: `1 + 2 * 3`"""
    expected = """def @main() {
  let %a = 1;
  let %b = 2;
  let %c = 3;
  let %d = multiply(%b, %c);
  let %e = add(%a, %d);
  %e
}
"""
    assert_pass_pair("def @main() { add(1, multiply(2, 3)) }\n", expected, "ToANormalForm")


def test_anf_binds_in_the_branches_of_if() -> None:
    """test_pass_to_a_normal_form.py::test_if"""
    expected = """def @main() {
  let %c = True;
  let %d = if (%c) { let %a = 2; %a } else { let %b = 3; %b };
  %d
}
"""
    assert_pass_pair("def @main() { if (True) { 2 } else { 3 } }\n", expected, "ToANormalForm")


def test_anf_keeps_a_lets_variable() -> None:
    """test_pass_to_a_normal_form.py::test_let_as_subexpr, without the device
    annotation: `(let %x = 1 + 1; %x) * (same)`. TVM also binds the shared
    `let` itself to a new variable (`let %v1 = %x`); here its uses read `%x`."""
    before = "def @main() {\n  %0 = { let %x = add(1, 1); %x };\n  multiply(%0, %0)\n}\n"
    expected = """def @main() {
  let %v0 = 1;
  let %v3 = 1;
  let %x = add(%v0, %v3);
  let %v2 = multiply(%x, %x);
  %v2
}
"""
    assert_pass_pair(before, expected, "ToANormalForm")


def test_gnf_dissolves_lets() -> None:
    """test_pass_to_graph_normal_form.py::test_implicit_share, and its round trip"""
    before = "def @main() {\n  let %x = 1;\n  let %y = add(%x, %x);\n  let %z = add(%y, %y);\n  add(%z, %z)\n}\n"
    expected = "def @main() {\n  %0 = add(1, 1);\n  %1 = add(%0, %0);\n  add(%1, %1)\n}\n"
    out = assert_pass_pair(before, expected, "ToGraphNormalForm")
    assert "let" not in out
    assert_same_values(before, out)
    back = optimized(out, "ToANormalForm")
    assert_same_values(before, back)


def test_gnf_keeps_a_recursive_let_as_the_value_of_its_uses() -> None:
    before = """def @main() {
  let %f = fn (%n : int32) -> int32 { if (%n == 0) { 0 } else { %f(%n - 1) } };
  %f(3)
}
"""
    expected = """def @main() {
  %0 = { let %f = fn (%n : int32) -> int32 { if (%n == 0) { 0 } else { %f(%n - 1) } }; %f };
  %0(3)
}
"""
    out = assert_pass_pair(before, expected, "ToGraphNormalForm")
    assert_same_values(before, out)


def test_gnf_keeps_lets_whose_order_matters() -> None:
    """Unlike TVM's pass: a reference written, or a function used at two
    types, keeps its `let`."""
    before = """def @main() {
  let %r = ref(0);
  let %_ = ref_write(%r, 1);
  let %id = fn (%x) { %x };
  (ref_read(%r), %id(1), %id(True))
}
"""
    out = optimized(before, "ToGraphNormalForm")
    assert "let %r" in out and "ref_write(%r, 1)" in out and "let %id" in out
    assert_same_values(before, out)


BBNF_BEFORE = """def @main(%x : bool, %y : float32, %z : float32) {
  %0 = add(%z, %z);
  %1 = add(%y, %y);
  if (%x) {
    if (True) { add(%0, %1) } else { add(3f, %1) }
  } else {
    if (False) { %0 } else { 1f }
  }
}
"""


def test_bbnf_binds_values_shared_by_branches_where_they_meet() -> None:
    """test_pass_to_basic_block_normal_form.py::test_top_level_nested_if"""
    expected = """def @main(%x : bool, %y : float32, %z : float32) {
  let %z2 = add(%z, %z);
  if (%x) {
    let %y2 = add(%y, %y);
    if (True) { add(%z2, %y2) } else { add(3f, %y2) }
  } else {
    if (False) { %z2 } else { 1f }
  }
}
"""
    out = assert_pass_pair(BBNF_BEFORE, expected, "ToBasicBlockNormalForm")
    assert_same_values(BBNF_BEFORE, out)


def test_bbnf_nested_if() -> None:
    """test_pass_to_basic_block_normal_form.py::test_nested_if"""
    before = """def @main(%x : bool, %y : float32) {
  %0 = add(%y, %y);
  if (%x) { if (True) { %0 } else { add(3f, %0) } } else { if (False) { 2f } else { 1f } }
}
"""
    expected = """def @main(%x : bool, %y : float32) {
  if (%x) {
    let %y2 = add(%y, %y);
    if (True) { %y2 } else { add(3f, %y2) }
  } else {
    if (False) { 2f } else { 1f }
  }
}
"""
    assert_pass_pair(before, expected, "ToBasicBlockNormalForm")


def test_bbnf_leaves_a_graph_without_branches_alone() -> None:
    """test_pass_to_basic_block_normal_form.py::test_no_explicit_bind"""
    before = "def @main() {\n  %0 = add(1, 1);\n  %1 = add(%0, %0);\n  add(%1, %1)\n}\n"
    assert_pass_pair(before, before, "ToBasicBlockNormalForm")


def test_anf_keeps_primitive_functions_whole() -> None:
    before = """def @main(%x : Tensor[(3), float32]) {
  %0 = fn (%p : Tensor[(3), float32], Primitive=1) { exp(add(%p, 1f)) };
  %0(%x)
}
"""
    out = optimized(before, "ToANormalForm")
    assert "exp(add(%p, 1f))" in out
    assert_same_values(before, out)


# ---------------------------------------------------------------- samples, models, depth


@pytest.mark.parametrize(
    "passes", ["ToANormalForm", "ToGraphNormalForm", "ToBasicBlockNormalForm", "ToANormalForm,ToGraphNormalForm"]
)
def test_every_sample(passes: str) -> None:
    check_samples(passes)


@needs_corpus
@pytest.mark.parametrize("path", corpus_params())
@pytest.mark.parametrize("passes", ["ToANormalForm,ToGraphNormalForm", "ToBasicBlockNormalForm"])
def test_every_model(path: Path, passes: str) -> None:
    check_model(path, passes)


@pytest.mark.parametrize("depth", [10_000, pytest.param(100_000, marks=pytest.mark.slow)])
def test_a_deep_chain_of_calls_goes_to_anf_and_back(depth: int) -> None:
    """No recursion over the program: a chain of 100,000 calls (10,000, ten
    times Python's recursion limit, in the default run)."""
    from relay_text.ir.expr import Call, Constant, Function, Op, Var
    from relay_text.ir.module import Module
    from relay_text.passes import registry
    from relay_text.passes.context import PassContext

    x = Var("x")
    body = x
    for _ in range(depth):
        body = Call(Op("negative"), (body,))
    from relay_text.ir.expr import GlobalVar
    from relay_text.ir.ty import TensorType

    x.type_annotation = TensorType((), "float32")
    del Constant
    gv = GlobalVar("main")
    module = Module(functions={gv: Function((x,), body)}, order=[gv])
    ctx = PassContext()
    anf = registry.get("ToANormalForm")(module, ctx)  # type: ignore[misc]
    gnf = registry.get("ToGraphNormalForm")(anf, ctx)  # type: ignore[misc]
    assert type(gnf.functions[gv].body) is Call
