"""Every Prelude function, with a value (relay_text/std/prelude.rly).

The seed 000 ("Common ADT Uses" and the RNN examples) defines map, foldl,
foldr, unfoldr, zip, map_accumr and map_accuml; the others have their
usual functional-programming meaning.
"""

from __future__ import annotations

import pytest

from relay_text.std import prelude

from .helpers import failure, located, show

L = "Cons(10, Cons(20, Cons(30, Nil())))"


def value(expr: str) -> str:
    return show(f"def @main() {{\n  {expr}\n}}")


@pytest.mark.parametrize(
    "expr, expected",
    [
        ("@id(Some(3))", "Some(3)"),
        ("@compose(fn (%x : int32) { %x * 2 }, fn (%x : int32) { %x + 1 })(5)", "12"),
        ("@flip(fn (%a : int32, %b : int32) { %a - %b })(1, 10)", "9"),
        (f"@hd({L})", "10"),
        (f"@tl({L})", "Cons(20, Cons(30, Nil()))"),
        (f"@nth({L}, 2)", "30"),
        (f"@update({L}, 1, 99)", "Cons(10, Cons(99, Cons(30, Nil())))"),
        (f"(@length({L}), @length(Cons(True, Nil())))", "(3, 1)"),
        (f"@map(fn (%x : int32) {{ %x * %x }}, {L})", "Cons(100, Cons(400, Cons(900, Nil())))"),
        # ((0 - 10) - 20) - 30
        (f"@foldl(fn (%acc : int32, %x : int32) {{ %acc - %x }}, 0, {L})", "-60"),
        # 10 - (20 - (30 - 0))
        (f"@foldr(fn (%x : int32, %acc : int32) {{ %x - %acc }}, 0, {L})", "20"),
        # 10 - (20 - 30)
        (f"@foldr1(fn (%x : int32, %y : int32) {{ %x - %y }}, {L})", "20"),
        (f"@sum({L})", "60"),
        (f"@concat({L}, Cons(1, Nil()))", "Cons(10, Cons(20, Cons(30, Cons(1, Nil()))))"),
        (f"@filter(fn (%x : int32) {{ %x > 15 }}, {L})", "Cons(20, Cons(30, Nil()))"),
        (f"@zip({L}, Cons(True, Cons(False, Nil())))", "Cons((10, True), Cons((20, False), Nil()))"),
        (f"@rev({L})", "Cons(30, Cons(20, Cons(10, Nil())))"),
        # Right to left: 30 sees 0, 20 sees 30, 10 sees 50; outputs in element order.
        (
            f"@map_accumr(fn (%acc : int32, %x : int32) {{ (%acc + %x, %acc) }}, 0, {L})",
            "(60, Cons(50, Cons(30, Cons(0, Nil()))))",
        ),
        # Left to right: 10 sees 0, 20 sees 10, 30 sees 30; the last output comes first.
        (
            f"@map_accuml(fn (%acc : int32, %x : int32) {{ (%acc + %x, %acc) }}, 0, {L})",
            "(60, Cons(30, Cons(10, Cons(0, Nil()))))",
        ),
        (
            "@unfoldr(fn (%n : int32) { if (%n == 0) { None() } else { Some((%n, %n - 1)) } }, 3)",
            "Cons(3, Cons(2, Cons(1, Nil())))",
        ),
        (
            "@unfoldl(fn (%n : int32) { if (%n == 0) { None() } else { Some((%n, %n - 1)) } }, 3)",
            "Cons(1, Cons(2, Cons(3, Nil())))",
        ),
        (
            (
                "@tmap(fn (%x : int32) { %x * 10 }, Rose(1, Cons(Rose(2, Nil()), Cons(Rose(3, Cons(Rose(4, "
                "Nil()), Nil())), Nil()))))"
            ),
            "Rose(10, Cons(Rose(20, Nil()), Cons(Rose(30, Cons(Rose(40, Nil()), Nil())), Nil())))",
        ),
        ("@size(Rose(1, Cons(Rose(2, Nil()), Cons(Rose(3, Cons(Rose(4, Nil()), Nil())), Nil()))))", "4"),
        ("(@iterate(fn (%x : int32) { %x * 2 }, 5)(1), @iterate(fn (%x : int32) { %x * 2 }, 0)(7))", "(32, 7)"),
    ],
)
def test_prelude_function(expr: str, expected: str) -> None:
    assert value(expr) == expected


def test_every_prelude_function_is_tested() -> None:
    tested = " ".join(case[0] for case in test_prelude_function.pytestmark[0].args[1])  # type: ignore[attr-defined]
    assert {name for name in prelude().globals if f"@{name}(" not in tested} == set()


def test_prelude_types_and_constructors() -> None:
    p = prelude()
    assert sorted(p.constructors) == ["Cons", "Nil", "None", "Rose", "Some"]
    assert p.adts["Option"] is p.adts["Optional"]
    assert p.checked().ok


def test_option_is_tvms_name_for_optional() -> None:
    src = """
    def @get(%o : Option[int32]) -> int32 {
      match (%o) {
        case Some(%x) { %x }
        case None() { 0 }
      }
    }
    def @main() { (@get(Some(4)), @get(None())) }
    """
    assert show(src) == "(4, 0)"


@pytest.mark.parametrize(
    "expr, result, line",
    [
        ("@hd(Nil())", "int32", 45),
        ("@tl(Nil())", "List[int32]", 52),
        ("@nth(Cons(1, Nil()), 3)", "int32", 60),
        ("@update(Nil(), 0, 1)", "List[int32]", 69),
        ("@foldr1(fn (%x : int32, %y : int32) { %x }, Nil())", "int32", 115),
    ],
)
def test_partial_functions_fail_with_a_match_failure(expr: str, result: str, line: int) -> None:
    d = failure(f"def @main() -> {result} {{\n  {expr}\n}}")
    assert located(d)[:3] == ("match-failure", line, 3)
    assert d.span.source.name == "relay_text/std/prelude.rly"
    assert d.message == "no clause matches the value `Nil()`"
    assert d.notes[-1].endswith("was called at <string>:2:3, in `@main`")
