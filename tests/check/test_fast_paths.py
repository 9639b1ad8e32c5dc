"""The checker's shortcuts for the common case give what the general code
gives: the holes of a tensor type in the generic walk's order, an unknown
met by a type bound at once (its waiting relations woken), and an operator
call on the very type objects of an earlier one answered by identity."""

from __future__ import annotations

import pytest

from relay_text.check.infer import Checker
from relay_text.check.types import Hole, find, holes, tensor_parts, walk
from relay_text.check.unify import Unifier, UnifyError
from relay_text.ir.expr import Call
from relay_text.ir.ty import DimBinOp, Kind, TensorType, TupleType
from relay_text.syntax.parser import parse
from relay_text.text.type_text import type_text


def _walked_holes(t: object) -> list[Hole]:
    """`holes` by the generic walk (the definition the shortcut must match)."""
    out: list[Hole] = []
    for node in walk(t):
        if type(node) is Hole and all(h is not node for h in out):
            out.append(node)
    return out


def _cases() -> list[tuple[str, object]]:
    n, m, d = Hole(Kind.SHAPE_VAR), Hole(Kind.SHAPE_VAR), Hole(Kind.BASE_TYPE)
    solved = Hole(Kind.SHAPE_VAR)
    solved.link = 7
    shape = Hole(Kind.SHAPE)
    bound_shape = Hole(Kind.SHAPE)
    bound_shape.link = (2, n)
    whole = Hole()
    whole.link = TensorType((n, 3, m), d)
    return [
        ("known", TensorType((1, 2), "float32")),
        ("dims and dtype", TensorType((1, n, m, n), d)),
        ("a solved dimension", TensorType((solved, m), "int8")),
        ("unknown shape", TensorType(shape, d)),
        ("solved shape", TensorType(bound_shape, "float32")),
        ("a solved unknown", whole),
        ("an unknown", Hole()),
        ("a dimension expression", TensorType((DimBinOp("+", n, 1), m), d)),
        ("a tuple", TupleType((TensorType((n,), d), TensorType((m,), d)))),
    ]


@pytest.mark.parametrize(("what", "t"), _cases(), ids=[c[0] for c in _cases()])
def test_holes_are_the_walks_holes_in_its_order(what: str, t: object) -> None:
    assert holes(t) == _walked_holes(t)
    assert [h.uid for h in holes(t)] == [h.uid for h in _walked_holes(t)]


def test_tensor_parts_leave_dimension_expressions_to_the_walk() -> None:
    n = Hole(Kind.SHAPE_VAR)
    assert tensor_parts(TensorType((DimBinOp("*", n, 2),), "float32")) is None
    d = Hole(Kind.BASE_TYPE)
    assert tensor_parts(TensorType((n, 4), d)) == [d, (n, 4), 4, n]


def test_an_unknown_met_by_a_type_is_bound_and_its_relations_woken() -> None:
    woken: list[object] = []
    u = Unifier(woken.extend, lambda a, b: None)
    a, b = Hole(), Hole()
    u.unify(a, b)
    root = find(a)
    root.triggers = ["relation"]
    t = TensorType((2, 3), "float32")
    u.unify(b, t)  # (the hole on the expected side)
    assert find(a) is t and find(b) is t
    assert woken == ["relation"]
    c = Hole()
    u.unify(t, c)  # (and on the found side)
    assert find(c) is t
    with pytest.raises(UnifyError) as err:
        e = Hole()
        u.unify(e, TupleType((e,)))
    assert err.value.reason == "occurs"


PROGRAM = """
def @main(%x: Tensor[(2, 3), float32]) {
  %0 = exp(%x);
  %1 = isnan(%x);
  %2 = isnan(%x);
  %3 = exp(%x);
  %4 = isnan(%x);
  (%0, %1, %2, %3, %4)
}
"""


def test_calls_on_the_same_type_objects_are_answered_by_identity() -> None:
    """Two operators without attributes on the same input are told apart
    (their attributes are alike, their names and definitions are not)."""
    module = parse(PROGRAM).module
    assert module is not None
    checker = Checker(module)
    result = checker.check_module()
    assert not result.diagnostics
    calls = sorted((n for n in result.types if type(n) is Call), key=lambda c: c.span.start)
    assert [type_text(result.types[c]) for c in calls] == [
        "Tensor[(2, 3), float32]",
        "Tensor[(2, 3), bool]",
        "Tensor[(2, 3), bool]",
        "Tensor[(2, 3), float32]",
        "Tensor[(2, 3), bool]",
    ]
    # The second `isnan` finds the memo's outcome by its key, the third by identity.
    names = sorted(key[0] for key in checker.operators._known)
    assert names == ["isnan"]
