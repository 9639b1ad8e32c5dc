"""Alpha-equivalence: structure up to bound-variable names, ignoring spans and sharing."""

from __future__ import annotations

from relay_text.ir import Call, Constant, Let, Op, Tuple, Var, alpha_equal, alpha_equal_module, types_alpha_equal
from relay_text.ir.ty import FuncType, TensorType, TypeVar
from tests.helpers import body, parse_ok


def test_renamed_binders_are_equal() -> None:
    assert alpha_equal(body("fn (%x) { let %y = %x; %y }"), body("fn (%a) { let %b = %a; %b }"))


def test_different_structure_is_not_equal() -> None:
    assert not alpha_equal(body("fn (%x, %y) { %x }"), body("fn (%x, %y) { %y }"))
    assert not alpha_equal(body("add(1, 2)"), body("add(2, 1)"))
    assert not alpha_equal(body("add(1, 2)"), body("subtract(1, 2)"))


def test_literal_types_matter() -> None:
    assert not alpha_equal(body("1"), body("1i64"))
    assert not alpha_equal(body("1"), body("1.0"))
    assert not alpha_equal(body("1.0"), body("1f64"))
    assert alpha_equal(body("1.0"), body("1f"))


def test_sharing_and_spans_are_ignored() -> None:
    shared = body("fn (%a) { %1 = add(%a, %a); multiply(%1, %1) }")
    tree = body("fn (%b) {\n  multiply(add(%b, %b), add(%b, %b))\n}")
    assert alpha_equal(shared, tree)


def test_free_variables_match_by_name() -> None:
    assert alpha_equal(Var("x"), Var("x"))
    assert not alpha_equal(Var("x"), Var("y"))


def test_a_binder_cannot_match_two_binders() -> None:
    assert not alpha_equal(body("fn (%x, %y) { (%x, %x) }"), body("fn (%a, %b) { (%a, %b) }"))


def test_type_annotations_and_type_params() -> None:
    assert alpha_equal(body("fn <a>(%x : a) -> a { %x }"), body("fn <b>(%y : b) -> b { %y }"))
    assert not alpha_equal(body("fn (%x : int32) { %x }"), body("fn (%x : int64) { %x }"))
    a, b = TypeVar("a"), TypeVar("b")
    assert types_alpha_equal(FuncType((a,), a, (a,)), FuncType((b,), b, (b,)))
    assert not types_alpha_equal(FuncType((a,), a, (a,)), FuncType((b,), TensorType((), "int32"), (b,)))


def test_attributes_compare_exactly() -> None:
    assert alpha_equal(body("nn.relu(1f, axis=[1, 2])"), body("nn.relu(1f, axis=[1, 2])"))
    assert not alpha_equal(body("nn.relu(1f, axis=[1, 2])"), body("nn.relu(1f, axis=[2, 1])"))
    assert not alpha_equal(body("f(1, units=None)"), body("f(1, units=0)"))


def test_modules() -> None:
    a = parse_ok("data L<a> { N : () -> L }\ndef @f(%x) { %x }\ndef @main() { @f(1) }")
    b = parse_ok("def @main() { @f(1) }\ndef @f(%y) { %y }\ndata L<b> { N : () -> L }")
    assert alpha_equal_module(a, b)
    c = parse_ok("def @main() { @f(2) }\ndef @f(%y) { %y }\ndata L<b> { N : () -> L }")
    assert not alpha_equal_module(a, c)


def test_deep_chains_compare_without_recursion() -> None:
    def chain(n: int) -> Let:
        v = Var("v0")
        expr = v
        lets = []
        for i in range(n):
            nv = Var(f"v{i + 1}")
            lets.append((nv, Call(Op("add"), (expr, Constant(1, "int32")))))
            expr = nv
        for var, value in reversed(lets):
            expr = Let(var, value, expr)
        return expr

    assert alpha_equal(chain(100_000), chain(100_000))
    assert not alpha_equal(chain(1000), Tuple(()))
