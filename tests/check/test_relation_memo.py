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


def test_inputs_with_a_span_are_not_remembered(monkeypatch):
    """An annotated parameter's type carries the annotation's span, which a
    relation may hand on in its result: such calls always run."""
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
