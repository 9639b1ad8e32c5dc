"""Kinds: Type, BaseType, Shape, ShapeVar in annotations and explicit type arguments (seed 001, "Type Parameter")."""

from __future__ import annotations

import pytest

from relay_text.check.kinds import KindChecker
from relay_text.ir.ty import AnyDim, DimBinOp, GlobalTypeVar, Kind, TensorType, TupleType, TypeCall, TypeVar

KC = KindChecker(lambda gtv: None, "docs")
F32 = TensorType((), "float32")


@pytest.mark.parametrize(
    "kind, arg, expected",
    [
        (Kind.TYPE, F32, F32),
        (Kind.TYPE, "bool", TensorType((), "bool")),
        (Kind.TYPE, TupleType(()), TupleType(())),
        (Kind.BASE_TYPE, "float16", "float16"),
        (Kind.BASE_TYPE, TensorType((), "int8"), "int8"),
        (Kind.SHAPE, (10, 10), (10, 10)),
        (Kind.SHAPE, TupleType(()), ()),
        (Kind.SHAPE_VAR, 4, 4),
        (Kind.SHAPE_VAR, (4,), 4),
        (Kind.SHAPE_VAR, AnyDim(), AnyDim()),
    ],
)
def test_type_argument_of_each_kind(kind: Kind, arg, expected) -> None:
    value, errors = KC.convert_type_arg(arg, TypeVar("p", kind), None)
    assert errors == [] and value == expected


@pytest.mark.parametrize(
    "kind, arg, said",
    [
        (Kind.TYPE, (10, 10), "type parameter `p` is a type, but the shape `(10, 10)` was given"),
        (Kind.TYPE, 3, "type parameter `p` is a type, but the dimension `3` was given"),
        (Kind.BASE_TYPE, (1,), "type parameter `p` is a dtype (BaseType), but the shape `(1)` was given"),
        (Kind.SHAPE, "float32", "type parameter `p` is a shape (Shape), but the dtype `float32` was given"),
        (
            Kind.SHAPE_VAR,
            F32,
            "type parameter `p` is a dimension (ShapeVar), but the type `Tensor[(), float32]` was given",
        ),
        (
            Kind.SHAPE,
            TypeVar("q", Kind.TYPE),
            "type parameter `p` is a shape (Shape), but the Type parameter `q` was given",
        ),
    ],
)
def test_type_argument_of_the_wrong_kind(kind: Kind, arg, said: str) -> None:
    value, errors = KC.convert_type_arg(arg, TypeVar("p", kind), None)
    assert value is None
    assert [(d.code, d.message) for d in errors] == [("kind-error", said)]


def test_annotation_positions() -> None:
    s, bt, n, t = TypeVar("s", Kind.SHAPE), TypeVar("bt", Kind.BASE_TYPE), TypeVar("n", Kind.SHAPE_VAR), TypeVar("t")
    ok = [TensorType(s, bt), TensorType((n, DimBinOp("+", n, 1), AnyDim()), "float32"), TupleType((t, F32))]
    for ty in ok:
        checked, errors = KC.check(ty)
        assert errors == [] and checked == ty
    bad = [
        TensorType(t, "float32"),
        TensorType((s,), "float32"),
        TensorType((), n),
        TupleType((s,)),
        TensorType((DimBinOp("*", 2, bt),), "int8"),
    ]
    for ty in bad:
        checked, errors = KC.check(ty)
        assert checked is None and [d.code for d in errors] == ["kind-error"], ty


def test_type_call_arity() -> None:
    from relay_text.ir.adt import TypeData

    lst = GlobalTypeVar("List")
    data = TypeData(lst, (TypeVar("a"),), ())
    kc = KindChecker({lst: data}.get, "docs")
    assert kc.check(TypeCall(lst, (F32,)))[1] == []
    _, errors = kc.check(TypeCall(lst, ()))
    assert [d.message for d in errors] == ["`List` takes 1 type argument, but 0 were given"]
    _, errors = kc.check(TypeCall(lst, (F32, F32)))
    assert [d.message for d in errors] == ["`List` takes 1 type argument, but 2 were given"]
    checked, errors = kc.check(TypeCall(lst, ("int32",)))
    assert errors == [] and checked == TypeCall(lst, (TensorType((), "int32"),))
