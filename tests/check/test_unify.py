"""Unification: union-find over holes, the occurs check, nested unknowns, dimensions."""

from __future__ import annotations

import pytest

from relay_text.check.types import Hole, find, resolve
from relay_text.check.unify import Unifier, UnifyError
from relay_text.ir.ty import AnyDim, DimBinOp, FuncType, GlobalTypeVar, Kind, TensorType, TupleType, TypeCall, TypeVar

F32 = "float32"


def _unifier() -> tuple[Unifier, list, list]:
    woken: list = []
    deferred: list = []
    return Unifier(woken.extend, lambda a, b: deferred.append((a, b))), woken, deferred


def test_two_holes_then_a_type_solve_both() -> None:
    """seed 003: if ?a and ?b are unified and ?b later meets a type, both are that type."""
    u, _, _ = _unifier()
    a, b = Hole(), Hole()
    u.unify(a, b)
    assert find(a) is find(b)
    u.unify(b, TensorType((10, 10), F32))
    assert resolve(a) == TensorType((10, 10), F32)
    assert resolve(b) == TensorType((10, 10), F32)


def test_tuples_of_unknowns_unify_part_by_part() -> None:
    """seed 003: Unify((?a, ?b), (?c, ?d)) implies ?a = ?c and ?b = ?d."""
    u, _, _ = _unifier()
    a, b, c, d = Hole(), Hole(), Hole(), Hole()
    u.unify(TupleType((a, b)), TupleType((c, d)))
    assert find(a) is find(c)
    assert find(b) is find(d)
    t = TensorType(Hole(Kind.SHAPE), Hole(Kind.BASE_TYPE))
    u.unify(TupleType((a, b)), TupleType((TensorType((10,), F32), t)))
    assert resolve(c) == TensorType((10,), F32)
    assert resolve(d) is t or resolve(d) == t


def test_occurs_check_rejects_a_type_containing_itself() -> None:
    """seed 003: Unify(?a, (?a, ?b)) is invalid."""
    u, _, _ = _unifier()
    a, b = Hole(), Hole()
    with pytest.raises(UnifyError) as info:
        u.unify(a, TupleType((a, b)))
    assert info.value.reason == "occurs"
    assert find(a) is a  # left unsolved


def test_occurs_check_sees_through_solved_holes() -> None:
    u, _, _ = _unifier()
    a, b = Hole(), Hole()
    u.unify(b, FuncType((a,), Hole()))
    with pytest.raises(UnifyError) as info:
        u.unify(a, TupleType((b,)))
    assert info.value.reason == "occurs"


def test_solving_a_hole_wakes_its_relations_and_hands_them_to_nested_holes() -> None:
    """seed 003 (tqchen's case): R on ?d, then ?d := (?c1, ?c2); refining ?c1 must wake R."""
    u, woken, _ = _unifier()
    d = Hole()
    marker = object()
    d.triggers = [marker]
    c1, c2 = Hole(), Hole()
    u.unify(d, TupleType((c1, c2)))
    assert woken == [marker]
    assert c1.triggers == [marker] and c2.triggers == [marker]
    woken.clear()
    u.unify(c1, TensorType((2,), F32))
    assert woken == [marker]


def test_merging_holes_keeps_both_trigger_lists() -> None:
    u, woken, _ = _unifier()
    a, b = Hole(), Hole()
    ra, rb = object(), object()
    a.triggers, b.triggers = [ra], [rb]
    u.unify(a, b)
    root = find(a)
    assert set(map(id, root.triggers)) == {id(ra), id(rb)}
    assert {id(x) for x in woken} == {id(ra), id(rb)}


def test_merging_with_a_fresh_hole_wakes_nobody() -> None:
    u, woken, _ = _unifier()
    a = Hole()
    a.triggers = [object()]
    u.unify(a, Hole())
    assert woken == []


def test_levels_are_lowered_when_a_hole_is_solved() -> None:
    u, _, _ = _unifier()
    outer = Hole(level=0)
    inner = Hole(level=2)
    u.unify(outer, TupleType((inner,)))
    assert inner.level == 0


@pytest.mark.parametrize(
    "expected, found, reason",
    [
        (TensorType((10, 10), F32), TensorType((10, 5), F32), "dim"),
        (TensorType((10, 10), F32), TensorType((10,), F32), "rank"),
        (TensorType((), F32), TensorType((), "int32"), "dtype"),
        (TupleType((TensorType((), F32),)), TupleType(()), "arity"),
        (FuncType((TensorType((), F32),), TensorType((), F32)), FuncType((), TensorType((), F32)), "arity"),
        (TensorType((), F32), TupleType(()), "mismatch"),
    ],
)
def test_failures_name_the_innermost_difference(expected, found, reason) -> None:
    u, _, _ = _unifier()
    with pytest.raises(UnifyError) as info:
        u.unify(expected, found)
    assert info.value.reason == reason


def test_dimension_mismatch_names_the_axis() -> None:
    u, _, _ = _unifier()
    with pytest.raises(UnifyError) as info:
        u.unify(TensorType((1, 2, 3), F32), TensorType((1, 2, 4), F32))
    assert (info.value.expected, info.value.found, info.value.index) == (3, 4, 2)


def test_data_types_are_nominal() -> None:
    """seed 001 "Global Type Variable": different handles are different types."""
    u, _, _ = _unifier()
    a, b = GlobalTypeVar("Numbers"), GlobalTypeVar("Numbers")
    u.unify(TypeCall(a, ()), TypeCall(a, ()))
    with pytest.raises(UnifyError):
        u.unify(TypeCall(a, ()), TypeCall(b, ()))


def test_type_parameters_are_rigid() -> None:
    u, _, _ = _unifier()
    t = TypeVar("t")
    u.unify(t, t)
    with pytest.raises(UnifyError):
        u.unify(t, TensorType((), F32))
    with pytest.raises(UnifyError):
        u.unify(t, TypeVar("t"))


def test_linear_dimension_with_one_unknown_is_solved() -> None:
    u, _, _ = _unifier()
    n = Hole(Kind.SHAPE_VAR)
    u.unify(TensorType((DimBinOp("*", 2, n),), F32), TensorType((10,), F32))
    assert find(n) == 5
    m = Hole(Kind.SHAPE_VAR)
    u.unify(TensorType((DimBinOp("+", m, 1),), F32), TensorType((7,), F32))
    assert find(m) == 6


def test_dimension_in_terms_of_a_shape_variable() -> None:
    u, _, _ = _unifier()
    n = TypeVar("n", Kind.SHAPE_VAR)
    h = Hole(Kind.SHAPE_VAR)
    u.unify(DimBinOp("+", h, 1), n)
    assert resolve(h) == DimBinOp("-", n, 1)
    assert resolve(DimBinOp("+", h, 1)) is n


def test_impossible_dimensions_fail() -> None:
    u, _, _ = _unifier()
    n = Hole(Kind.SHAPE_VAR)
    with pytest.raises(UnifyError):
        u.unify(DimBinOp("*", 2, n), 7)  # no integer n
    with pytest.raises(UnifyError):
        u.unify(DimBinOp("+", TypeVar("n", Kind.SHAPE_VAR), 1), TypeVar("n", Kind.SHAPE_VAR))


def test_equal_symbolic_dimensions_unify() -> None:
    u, _, _ = _unifier()
    n = TypeVar("n", Kind.SHAPE_VAR)
    u.unify(DimBinOp("+", n, 1), DimBinOp("+", 1, n))


def test_two_unknowns_in_one_dimension_wait() -> None:
    u, _, deferred = _unifier()
    a, b = Hole(Kind.SHAPE_VAR), Hole(Kind.SHAPE_VAR)
    u.unify(DimBinOp("+", a, b), 10)
    assert len(deferred) == 1


def test_any_dimension_fits_every_size() -> None:
    u, _, _ = _unifier()
    u.unify(TensorType((AnyDim(), 3), F32), TensorType((7, 3), F32))
    with pytest.raises(UnifyError):
        u.unify(TensorType((AnyDim(), 3), F32), TensorType((7, 4), F32))


def test_deep_types_unify_without_recursion() -> None:
    u, _, _ = _unifier()
    a: object = TensorType((), F32)
    b: object = Hole()
    deepest = b
    for _ in range(20_000):
        a = TupleType((a,))
        b = TupleType((b,))
    u.unify(a, b)
    assert resolve(deepest) == TensorType((), F32)
