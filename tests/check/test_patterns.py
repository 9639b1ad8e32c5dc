"""Exhaustiveness and redundancy by usefulness (Maranget), on a table of matches."""

from __future__ import annotations

import pytest

from relay_text.check import patterns as pat
from relay_text.ir.expr import Function, Match
from relay_text.syntax.parser import parse

ADTS = """
data Nat {
  Z : () -> Nat
  S : (Nat) -> Nat
}
data List<a> {
  Nil : () -> List
  Cons : (a, List[a]) -> List
}
data Optional<a> {
  None : () -> Optional
  Some : (a) -> Optional
}
data Color {
  Red : () -> Color
  Green : () -> Color
  Blue : () -> Color
}
data Tree<a> {
  Leaf : () -> Tree
  Node : (Tree[a], a, Tree[a]) -> Tree
}
"""

INT = "Tensor[(), int32]"


def _analyse(ty: str, cases: list[str], dialect: str = "docs") -> pat.MatchReport:
    clauses = "\n".join(f"    case {c} {{ 0 }}" for c in cases)
    text = f"{ADTS}\ndef @f(%v : {ty}) {{\n  match? (%v) {{\n{clauses}\n  }}\n}}\n"
    result = parse(text)
    assert result.ok, [str(d) for d in result.diagnostics]
    func = next(iter(result.module.functions.values()))
    assert isinstance(func, Function) and isinstance(func.body, Match)
    ctors = {c.name: data for data in result.module.type_defs.values() for c in data.constructors}

    def siblings(ctor):
        data = ctors.get(ctor.name)
        return list(data.constructors) if data is not None else None

    return pat.analyse([c.pattern for c in func.body.clauses], pat.Signatures(siblings), dialect)


CASES = [
    # (value type, clause patterns, a value no clause matches, unreachable clause indices)
    ("Nat[]", ["Z()", "S(%n)"], None, []),
    ("Nat[]", ["Z()"], "S(_)", []),
    ("Nat[]", ["S(%n)"], "Z()", []),
    ("Nat[]", ["S(S(%n))", "_"], None, []),
    ("Nat[]", ["S(S(%n))", "Z()"], "S(Z())", []),
    ("Nat[]", ["_", "S(S(%n))", "S(%n)", "Z()"], None, [1, 2, 3]),
    ("Nat[]", ["%x", "Z()"], None, [1]),
    ("Nat[]", ["Z()", "S(_)", "S(Z())"], None, [2]),
    ("Nat[]", ["Z()", "Z()", "S(_)"], None, [1]),
    ("Nat[]", [], "_", []),
    (f"List[{INT}]", ["Nil()", "Cons(%h, %t)"], None, []),
    (f"List[{INT}]", ["Cons(%h, Nil())", "Nil()"], "Cons(_, Cons(_, _))", []),
    (f"List[{INT}]", ["Cons(_, Cons(_, _))", "Nil()"], "Cons(_, Nil())", []),
    (f"List[{INT}]", ["Nil()", "Cons(_, Nil())", "Cons(_, Cons(_, _))"], None, []),
    (f"List[{INT}]", ["%v", "Cons(%h, %t)", "Nil()"], None, [1, 2]),
    (f"List[{INT}]", ["Cons(%a, _)"], "Nil()", []),
    (f"Optional[List[{INT}]]", ["Some(Cons(_, Cons(%s, _)))", "_"], None, []),
    (f"Optional[List[{INT}]]", ["Some(Cons(_, Cons(%s, _)))", "None()"], "Some(Nil())", []),
    (f"Optional[List[{INT}]]", ["None()", "Some(Nil())", "Some(Cons(_, _))"], None, []),
    ("Color[]", ["Red()", "Green()"], "Blue()", []),
    ("Color[]", ["Red()", "Green()", "Blue()", "_"], None, [3]),
    ("Color[]", ["Blue()", "_", "Red()"], None, [2]),
    ("(Nat[], Nat[])", ["(Z(), _)", "(_, Z())"], "(S(_), S(_))", []),
    ("(Nat[], Nat[])", ["(Z(), _)", "(S(_), _)"], None, []),
    ("(Nat[], Nat[])", ["(_, _)", "(Z(), Z())"], None, [1]),
    ("(Tensor[(), bool], Nat[])", ["(_, Z())", "(_, S(_))"], None, []),
    (f"Tree[{INT}]", ["Leaf()", "Node(Leaf(), _, Leaf())"], "Node(Node(_, _, _), _, _)", []),
    (f"Tree[{INT}]", ["Leaf()", "Node(%l, %x, %r)"], None, []),
    (INT, ["%x"], None, []),
    (INT, ["_", "%x"], None, [1]),
]


@pytest.mark.parametrize("ty, cases, missing, unreachable", CASES, ids=[f"{i}" for i in range(len(CASES))])
def test_usefulness_table(ty: str, cases: list[str], missing: str | None, unreachable: list[int]) -> None:
    report = _analyse(ty, cases)
    assert report.missing == missing
    assert [i for i, _ in report.unreachable] == unreachable


def test_table_is_large() -> None:
    assert len(CASES) >= 20


def test_unreachable_clause_names_a_single_clause_that_covers_it() -> None:
    report = _analyse("Nat[]", ["Z()", "_", "S(Z())"])
    assert report.unreachable == [(2, 1)]
    report = _analyse("Nat[]", ["Z()", "S(_)", "S(Z())"])
    assert report.unreachable == [(2, 1)]
    report = _analyse("Nat[]", ["S(Z())", "S(S(_))", "Z()", "S(_)"])
    assert report.unreachable == [(3, None)]  # covered by two clauses together


def test_witness_in_tvm_dialect_omits_empty_parentheses() -> None:
    report = _analyse(f"List[{INT}]", ["Cons(%h, Nil())"], dialect="tvm")
    assert report.missing == "Nil"
