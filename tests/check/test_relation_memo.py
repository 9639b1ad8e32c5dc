"""Operator relations remembered per signature (`check/relation_memo.py`):
a call of an operator on the same known tensors with the same attributes
gets the result the first such call gave, and nothing else changes: other
attributes give other results, errors are reported at every call, and
operator nodes of equal signatures share one function type."""

from __future__ import annotations

from relay_text.check import solver as solver_module
from relay_text.ir.expr import Call, Op
from relay_text.text.type_text import type_text

from .helpers import checked, diagnostics

CONVS = """
def @main() {
  %0 = zeros(shape=[1, 3, 8, 8], dtype="float32");
  %1 = ones(shape=[4, 3, 3, 3], dtype="float32");
  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1]);
  %3 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1]);
  %4 = nn.conv2d(%0, %1, strides=[2, 2], padding=[1, 1, 1, 1]);
  %5 = nn.relu(%2);
  %6 = nn.relu(%3);
  (%5, %6, %4)
}
"""


def _relation_runs(monkeypatch) -> list[bool]:
    """Records, for each constraint run, whether the relation function was called."""
    calls: list[bool] = []
    original = solver_module.Rel.__init__

    def counting(self, solver, c):  # type: ignore[no-untyped-def]
        calls.append(True)
        original(self, solver, c)

    monkeypatch.setattr(solver_module.Rel, "__init__", counting)
    return calls


def test_equal_signatures_get_the_first_result(monkeypatch):
    calls = _relation_runs(monkeypatch)
    result = checked(CONVS)
    assert not [d for d in result.diagnostics if d.is_error]
    assert type_text(result.expr_type or result.global_types[next(iter(result.global_types))]) == (
        "fn() -> (Tensor[(1, 4, 8, 8), float32], Tensor[(1, 4, 8, 8), float32], Tensor[(1, 4, 4, 4), float32])"
    )
    # `zeros` and `ones` run; of the conv2d the first and the strided one
    # run, the repeated one is remembered; of the relus the first runs: 5
    # relation runs for 7 calls.
    assert len(calls) == 5


def test_operator_nodes_of_one_signature_share_their_function_type():
    result = checked(CONVS)
    relus = [t for node, t in result.types.items() if type(node) is Op and node.name == "nn.relu"]
    assert len(relus) == 2
    assert relus[0] is relus[1]
    assert type_text(relus[0]) == "fn(Tensor[(1, 4, 8, 8), float32]) -> Tensor[(1, 4, 8, 8), float32]"
    calls = [t for node, t in result.types.items() if type(node) is Call]
    assert [type_text(t) for t in calls].count("Tensor[(1, 4, 8, 8), float32]") == 4


def test_results_that_carry_a_span_are_not_remembered(monkeypatch):
    """An annotated parameter's type carries the annotation's span, which
    `nn.relu` hands on in its result: such a result belongs to its call and
    is not given to another."""
    calls = _relation_runs(monkeypatch)
    text = """
def @main(%x: Tensor[(2, 3), float32]) {
  %0 = nn.relu(%x);
  %1 = nn.relu(%x);
  (%0, %1)
}
"""
    result = checked(text)
    assert type_text(result.global_types[next(iter(result.global_types))]) == (
        "fn(Tensor[(2, 3), float32]) -> (Tensor[(2, 3), float32], Tensor[(2, 3), float32])"
    )
    assert len(calls) == 2


def test_attribute_types_are_part_of_the_signature():
    text = """
def @main(%x: Tensor[(2, 6), float32]) {
  %0 = nn.relu(%x);
  %1 = split(%0, indices_or_sections=2, axis=1);
  %2 = nn.relu(%x);
  %3 = split(%2, indices_or_sections=[2], axis=1);
  (%1, %3)
}
"""
    result = checked(text)
    assert not [d for d in result.diagnostics if d.is_error]
    shown = type_text(result.global_types[next(iter(result.global_types))])
    assert shown.endswith(
        "-> ((Tensor[(2, 3), float32], Tensor[(2, 3), float32]), (Tensor[(2, 2), float32], Tensor[(2, 4), float32]))"
    )


def test_errors_are_reported_at_every_call():
    text = """
def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(4, 5), float32]) {
  %0 = nn.relu(%x);
  %1 = nn.relu(%y);
  %2 = add(%0, %1);
  %3 = nn.relu(%x);
  %4 = nn.relu(%y);
  %5 = add(%3, %4);
  (%2, %5)
}
"""
    found = [(d.code, d.span.start) for d in diagnostics(text) if d.is_error and d.span is not None]
    starts = [text.index("add(%0"), text.index("add(%3")]
    assert [code for code, _ in found] == ["shape-mismatch", "shape-mismatch"]
    assert [start for _, start in found] == starts


def test_inputs_with_a_span_are_remembered_with_it(monkeypatch):
    """A parameter used by two calls of one signature is one key (its type
    and the place it was written); another parameter of the same type is
    another key, since a relation could hand either on."""
    calls = _relation_runs(monkeypatch)
    text = """
def @main(%x: Tensor[(1, 3, 8, 8), float32], %y: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %2 = nn.conv2d(%y, %w, padding=[1, 1, 1, 1]);
  (%0, %1, %2)
}
"""
    result = checked(text)
    assert not result.diagnostics
    assert type_text(result.global_types[next(iter(result.global_types))]).endswith(
        "-> (Tensor[(1, 4, 8, 8), float32], Tensor[(1, 4, 8, 8), float32], Tensor[(1, 4, 8, 8), float32])"
    )
    assert len(calls) == 2


META_CONVS = """#[version = "0.0.5"]
def @main() {
  %0 = zeros(shape=[1, 3, 8, 8], dtype="float32");
  %1 = nn.conv2d(%0, meta[relay.Constant][0], padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %2 = nn.conv2d(%0, meta[relay.Constant][1], padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %3 = nn.conv2d(%0, meta[relay.Constant][2], padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  (%1, %2, %3)
}
"""


def test_unknown_inputs_are_remembered_with_what_the_relation_made_them(monkeypatch):
    """A constant without metadata is an unknown nothing waits on: the
    relation's refinement of it (the weight's shape from `channels` and
    `kernel_size`) is remembered with the result and given to the next
    constant of an equal call."""
    calls = _relation_runs(monkeypatch)
    result = checked(META_CONVS)
    assert not [d for d in result.diagnostics if d.is_error]
    assert {i: type_text(t) for i, t in result.meta_types.items()} == {
        0: "Tensor[(4, 3, 3, 3), float32]",
        1: "Tensor[(4, 3, 3, 3), float32]",
        2: "Tensor[(8, 3, 3, 3), float32]",
    }
    assert type_text(result.global_types[next(iter(result.global_types))]) == (
        "fn() -> (Tensor[(1, 4, 8, 8), float32], Tensor[(1, 4, 8, 8), float32], Tensor[(1, 8, 8, 8), float32])"
    )
    # zeros, the first conv2d and the one with other channels
    assert len(calls) == 3


def test_which_unknown_inputs_take_part_in_a_key():
    """An unknown input takes part as an unknown of its kind and origin, once
    per call: the same unknown at two inputs, or one a relation already
    waits on, makes a call that is not remembered."""
    from relay_text.check.origin import Origin
    from relay_text.check.relation_memo import relation_key
    from relay_text.check.types import Hole
    from relay_text.ir.ty import TensorType
    from relay_text.ops.relations import broadcast

    known = TensorType((2, 2), "float32")
    a, b = Hole(origin=Origin("meta", None, "", None, 6)), Hole(origin=Origin("meta", None, "", None, 6))
    key = relation_key(broadcast, "add", [known, a], {})
    assert key is not None
    assert key == relation_key(broadcast, "add", [known, b], {})
    assert key != relation_key(broadcast, "add", [known, Hole(origin=Origin("param", None, "", None, 5))], {})
    assert relation_key(broadcast, "add", [a, b], {}) is not None
    assert relation_key(broadcast, "add", [a, a], {}) is None
    b.triggers = [object()]
    assert relation_key(broadcast, "add", [known, b], {}) is None
    assert relation_key(broadcast, "add", [known, TensorType((2, Hole()), "float32")], {}) is None


def test_float_attributes_of_either_sign_of_zero_differ(monkeypatch):
    calls = _relation_runs(monkeypatch)
    text = """
def @main() {
  %0 = zeros(shape=[2, 2], dtype="float32");
  %1 = nn.leaky_relu(%0, alpha=0f);
  %2 = nn.leaky_relu(%0, alpha=-0f);
  %3 = nn.leaky_relu(%0, alpha=0f);
  (%1, %2, %3)
}
"""
    result = checked(text)
    assert not result.diagnostics
    assert len(calls) == 3
