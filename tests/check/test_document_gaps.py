"""The last claims of the five documents the checker had not met, one group per claim.

Each test names the document (seed 000 to 004, /work/shared/seeds) and the
section it follows.
"""

from __future__ import annotations

import pytest

import relay_text
from relay_text.check import dims
from relay_text.check.types import Hole, find
from relay_text.eval.entry import RunRequest
from relay_text.eval.show import value_text
from relay_text.ir.span import Source
from relay_text.ir.ty import DimBinOp, Kind, TypeVar
from relay_text.pipeline import check_source, run_source
from relay_text.syntax.parser import parse
from relay_text.text.suggest import close_names, near_miss
from tests.check.helpers import diagnostics, only

LIST = """
data List<a> {
  Nil : () -> List
  Cons : (a, List[a]) -> List
}
"""


def types_of(text: str) -> dict[str, str | None]:
    result = check_source(Source("test.rly", text))
    assert [str(d) for d in result.diagnostics if d.is_error] == []
    return result.global_types


def value_of(text: str, args: list[tuple[str, str]] | None = None) -> str:
    ran = run_source(Source("test.rly", text), RunRequest(arg_texts=args or []))
    assert ran.ok, [str(d) for d in ran.diagnostics]
    return value_text(ran.value)


# ---------------------------------------------------------------- 1. a copied data definition


def test_a_copied_list_is_the_preludes() -> None:
    """Seed 000, "Recursion with ADTs" defines `List`; "Common ADT Uses" then
    applies the Prelude's @map, @foldl to such lists. A definition identical
    to the Prelude's is the Prelude's type."""
    text = (
        LIST
        + """
def @main() {
  let %l = Cons(1, Cons(2, Nil()));
  (@map(fn (%x) { %x + 1 }, %l), @foldl(fn (%s, %x) { %s + %x }, 0, %l), @zip(%l, %l))
}
"""
    )
    assert types_of(text)["@main"] == (
        "fn() -> (List[Tensor[(), int32]], Tensor[(), int32], List[(Tensor[(), int32], Tensor[(), int32])])"
    )
    assert value_of(text) == "(Cons(2, Cons(3, Nil())), 3, Cons((1, 1), Cons((2, 2), Nil())))"


def test_identical_means_up_to_names_of_parameters_and_order_of_constructors() -> None:
    """Seed 001, "Type Call": an ADT is its name, parameters and constructors;
    renaming the parameter or listing Cons first defines the same type, and a
    `Tree` of such lists is the Prelude's `Tree` too."""
    text = """
data Tree<t> {
  Rose : (t, List[Tree[t]]) -> Tree
}

data List<e> {
  Cons : (e, List[e]) -> List
  Nil : () -> List
}

def @main() {
  (@size(Rose(1, Cons(Rose(2, Nil()), Nil()))), @length(Cons(1, Nil())))
}
"""
    assert value_of(text) == "(2, 1)"


def test_tvm_spelling_of_the_same_definition() -> None:
    """TVM's prelude writes `type List[A] { Cons(A, List[A]), Nil }`: the same type."""
    text = (
        '#[version = "0.0.5"]\ntype List[A] {\n  Cons(A, List[A]),\n  Nil,\n}\n\ndef @main() {\n  '
        "@length(Cons(1, Cons(2, Nil)))\n}\n"
    )
    assert value_of(text) == "2"


def test_a_copied_list_as_an_argument() -> None:
    """`--arg l=Cons(...)` builds the Prelude's list for a program whose `List` is the Prelude's."""
    text = LIST + "def @main(%l : List[int32]) {\n  @length(%l)\n}\n"
    assert value_of(text, [("l", "Cons(1, Cons(2, Cons(3, Nil())))")]) == "3"


def test_the_copied_definition_is_formatted_as_written() -> None:
    text = LIST.lstrip() + "\ndef @main() {\n  @length(Cons(1, Nil()))\n}\n"
    assert relay_text.format(text) == text


def test_a_different_definition_shadows_the_preludes_and_says_so() -> None:
    """Seed 001, "Global Type Variable": ADTs with different handles are
    different types. A file's other `List` hides the Prelude's; a Prelude
    function that needs the Prelude's then fails, naming both definitions."""
    text = """data List<a> {
  Nil : () -> List
  Cons : (List[a], a) -> List
}

def @main() {
  @length(Cons(Nil(), 1))
}
"""
    d = only(text)
    assert d.code == "type-mismatch"
    assert (
        d.message
        == "mismatched types: the first argument of `@length` must be `List[_]`, found `List[Tensor[(), int32]]`"
    )
    labels = [(lab.span.source.name, *lab.span.start_line_col, lab.message) for lab in d.labels]
    assert ("test.rly", 1, 6, "this `List` is defined here") in labels
    assert ("relay_text/std/prelude.rly", 10, 6, "the Prelude's `List` is defined here") in labels
    assert d.notes == ["the two definitions differ: field 1 of `Cons` is `List[a]` in this file and `a` in the Prelude"]
    assert d.helps == [
        "the Prelude's functions take the Prelude's `List`: define `List` exactly as the Prelude does "
        "(it is then the Prelude's type), or give yours another name"
    ]


def test_a_distinct_name_stays_a_distinct_type() -> None:
    """Seed 000, "Defining and Matching on an ADT": structurally identical
    constructors under another name are another type (samples/errors/adt_same_constructors.rly)."""
    text = LIST.replace("List", "Seq").replace("Nil", "Empty").replace("Cons", "More") + (
        "def @main() {\n  @length(More(1, Empty()))\n}\n"
    )
    assert only(text).code == "type-mismatch"


# ---------------------------------------------------------------- 2. relations on any kind


def test_identity_relates_any_types() -> None:
    """Seed 001, "Type Relation": Identity(I, I) :- true, over any types;
    seed 002, "Functions": `fn(%x, %y) where ...` relates both parameters and the result."""
    text = """
def @main() {
  let %same = fn (%x, %y) where Identity { %x };
  (%same((1, 2), (3, 4)), %same(Nil(), Cons(1, Nil())), %same(fn (%z : int32) { %z }, fn (%w) { %w + 1 }))
}
"""
    assert types_of(text)["@main"] == (
        "fn() -> ((Tensor[(), int32], Tensor[(), int32]), List[Tensor[(), int32]], "
        "fn(Tensor[(), int32]) -> Tensor[(), int32])"
    )


def test_identity_failure_is_located() -> None:
    d = only("def @same<a, b>(%x : a, %y : b) -> a where Identity { %x }\ndef @main() {\n  @same(1, (1, 2))\n}\n")
    assert (d.code, *d.location()[1:3]) == ("type-mismatch", 3, 12)
    assert d.message == (
        "mismatched types: the second argument of `@same` must be `Tensor[(), int32]`, "
        "found `(Tensor[(), int32], Tensor[(), int32])`"
    )


def test_the_solver_example_of_document_003() -> None:
    """Seed 003, the test case "that first failed" (test_backward_solving_after_child_update),
    written in Relay (samples/solver_nested.rly): t3 resolves to the second
    tensor and t5 to (tensor1, tensor2)."""
    text = relay_text.__file__.rsplit("/", 2)[0] + "/samples/solver_nested.rly"
    with open(text) as f:
        types = types_of(f.read())
    t1, t2, t3 = "Tensor[(10, 20), float32]", "Tensor[(10, 1, 1), float32]", "Tensor[(10, 1, 1), float32]"
    assert types["@solve"] == f"fn({t1}, {t2}, {t3}, {t1}, {t2}) -> ({t1}, {t2})"


def test_where_relations_of_a_polymorphic_let_hold_at_each_call() -> None:
    """Seed 002, "Call": "all type relations in the function type must hold at each call site"."""
    d = only(
        "def @main() {\n  let %same = fn <a, b>(%x : a, %y : b) -> a where Identity { %x };\n  %same(1, True)\n}\n"
    )
    assert (d.code, *d.location()[1:3]) == ("type-mismatch", 3, 12)


def test_flatten_keeps_the_product_of_shape_variables() -> None:
    """Seed 001, "Type Relation": Flatten(Tensor(sh, bt), O) :- O = Tensor(sh[0], prod(sh[1:]))."""
    text = """
def @flat<n : ShapeVar, m : ShapeVar>(%x : Tensor[(n, m, 5), float32]) {
  let %f = fn (%t) where Flatten { nn.batch_flatten(%t) };
  %f(%x)
}
"""
    assert (
        types_of(text)["@flat"]
        == "fn<n : ShapeVar, m : ShapeVar>(Tensor[(n, m, 5), float32]) -> Tensor[(n, m * 5), float32]"
    )


# ---------------------------------------------------------------- 3. operators as values


def test_operators_are_function_values() -> None:
    """Seed 002, "Operators": "an operator is a function, so operators may be
    called like any other function and have function types"."""
    text = """
def @main() {
  let %l = Cons(1, Cons(2, Cons(3, Nil())));
  (@foldl(add, 0, %l), @map(negative, %l), @foldr(multiply, 1, %l))
}
"""
    assert types_of(text)["@main"] == "fn() -> (Tensor[(), int32], List[Tensor[(), int32]], Tensor[(), int32])"
    assert value_of(text) == "(6, Cons(-1, Cons(-2, Cons(-3, Nil()))), 6)"


def test_an_operator_value_is_typed_where_it_is_used() -> None:
    """Each use gets its own instance of the operator's relation: float and int calls coexist."""
    text = (
        "def @apply(%f, %x, %y) { %f(%x, %y) }\ndef @main() {\n  (@apply(maximum, 1, 2), @apply(maximum, 1.5f, "
        "0.5f))\n}\n"
    )
    assert value_of(text) == "(2, 1.5)"


def test_an_operator_value_whose_types_never_become_known() -> None:
    d = only("def @main() -> () {\n  let %f = add;\n  ()\n}\n")
    assert (d.code, *d.location()[1:3]) == ("unresolved-type", 2, 12)
    assert d.message == "cannot infer the type of `add` used as a value"


def test_an_operator_value_of_the_wrong_arity() -> None:
    d = only("def @main() {\n  @map(add, Cons(1, Nil()))\n}\n")
    assert d.code == "type-mismatch"
    assert d.notes[-1] == "expected a function of 1 parameter, found one of 2"


def test_an_operator_value_needing_attributes() -> None:
    d = only("def @main(%x : Tensor[(2, 2), float32]) -> Tensor[(4), float32] {\n  let %f = reshape;\n  %f(%x)\n}\n")
    assert d.code == "missing-attribute"
    assert d.message.startswith("operator `reshape` is used as a value, but it needs attributes")


# ---------------------------------------------------------------- 4. shape arithmetic


SQUARE = "def @square<n : ShapeVar>(%x : Tensor[(n * n), float32]) -> Tensor[(n * n), float32] { %x }\n"


def test_an_impossible_product_is_a_mismatch_at_the_argument() -> None:
    """Seed 001, "Tensor Type": the solver must find values of the shape
    variables that make all shapes concrete; no whole n has n * n = 5."""
    d = only(SQUARE + "def @main() {\n  @square(Constant(0, (5), float32))\n}\n")
    assert (d.code, *d.location()[1:3]) == ("type-mismatch", 3, 11)
    assert d.message == (
        "mismatched types: the first argument of `@square` must be `Tensor[(n * n), float32]`, found "
        "`Tensor[(5), float32]`"
    )
    assert d.notes == ["the shapes differ at axis 0: no whole-number size of `n` makes `n * n` equal `5`"]


def test_a_product_with_one_solution_is_solved() -> None:
    assert (
        types_of(SQUARE + "def @main() {\n  @square(Constant(0, (9), float32))\n}\n")["@main"]
        == "fn() -> Tensor[(9), float32]"
    )


def test_an_equation_left_open_at_generalization_is_an_error() -> None:
    """Seed 001, "Type Relation": a fixpoint with shape variables left "is either
    a type error or more type annotations may be needed": a type cannot carry it."""
    text = (
        "def @rows<a : ShapeVar, b : ShapeVar>(%x : Tensor[(a * b), float32]) -> Tensor[(a * b), float32] { %x }\n"
        "def @k(%x : Tensor[(6), float32]) {\n  @rows(%x)\n}\n"
    )
    d = only(text)
    assert (d.code, *d.location()[1:3]) == ("unresolved-type", 3, 9)
    assert d.message == (
        "cannot infer type argument `a` of `@rows` and type argument `b` of `@rows`: "
        "nothing decides the dimensions in `a * b = 6`"
    )
    assert d.helps == ["give the type arguments explicitly, e.g. `@rows<3, 3>(...)` (`a` is a dimension (ShapeVar))"]


def test_an_equation_the_signature_states_is_solved() -> None:
    """The same call, from a function whose signature writes the size as `n * m`."""
    text = (
        "def @rows<a : ShapeVar, b : ShapeVar>(%x : Tensor[(a * b), float32]) -> Tensor[(a * b), float32] { %x }\n"
        "def @k<n : ShapeVar, m : ShapeVar>(%x : Tensor[(n * m), float32]) {\n  @rows(%x)\n}\n"
        "def @sq<n : ShapeVar>(%x : Tensor[(n * n), float32]) {\n  @square(%x)\n}\n"
    )
    types = types_of(SQUARE + text)
    assert types["@k"] == "fn<n : ShapeVar, m : ShapeVar>(Tensor[(n * m), float32]) -> Tensor[(n * m), float32]"
    assert types["@sq"] == "fn<n : ShapeVar>(Tensor[(n * n), float32]) -> Tensor[(n * n), float32]"


def test_unannotated_main_no_longer_hides_an_equation() -> None:
    """The issue's example: `@main` used to become `fn<a : ShapeVar>() -> ... where DimEq`."""
    result = check_source(Source("t.rly", SQUARE + "def @main() {\n  @square(Constant(0, (5), float32))\n}\n"))
    assert "DimEq" not in (result.global_types["@main"] or "")


@pytest.mark.parametrize(
    "lhs, rhs, status, value",
    [
        ("h*h", 5, dims.FAILED, None),
        ("h*h", 9, dims.SOLVED, 3),
        ("h*h*3", 150528, dims.SOLVED, 224),
        ("h*h", "h", dims.WAIT, None),  # 0 and 1
        ("n*m", "m*n", dims.SOLVED, None),
        ("n*m", 6, dims.FAILED, None),
    ],
)
def test_polynomial_dimensions(lhs: str, rhs: object, status: str, value: object) -> None:
    h = Hole(Kind.SHAPE_VAR)
    n, m = TypeVar("n", Kind.SHAPE_VAR), TypeVar("m", Kind.SHAPE_VAR)
    atoms = {"h": h, "n": n, "m": m}

    def build(text: object) -> object:
        if not isinstance(text, str):
            return text
        parts = [atoms[p] if p in atoms else int(p) for p in text.split("*")]
        out = parts[0]
        for p in parts[1:]:
            out = DimBinOp("*", out, p)
        return out

    got_status, hole, got = dims.solve(build(lhs), build(rhs))
    assert got_status == status
    if value is not None:
        assert hole is h and got == value


def test_a_root_among_the_parts_of_the_equation() -> None:
    h = Hole(Kind.SHAPE_VAR)
    n = TypeVar("n", Kind.SHAPE_VAR)
    status, hole, value = dims.solve(DimBinOp("*", h, h), DimBinOp("*", n, n))
    assert (status, hole, value) == (dims.SOLVED, h, n)
    assert find(h) is h  # solve decides; the caller binds


# ---------------------------------------------------------------- 5. numeric type arguments


def test_a_number_after_a_callees_angle_is_a_type_argument() -> None:
    """Seed 002, "Call" (explicit type arguments) and seed 001, "Type Parameter"
    (`plus<(10, 10)>`): a dimension argument may be written bare, `@g<3>(...)`."""
    text = (
        "def @g<n : ShapeVar>(%x : Tensor[(n), float32]) -> Tensor[(n), float32] { %x }\ndef @main() {\n  "
        "@g<3>(Constant(0, (3), float32))\n}\n"
    )
    assert types_of(text)["@main"] == "fn() -> Tensor[(3), float32]"
    d = only(text.replace("@g<3>", "@g<4>"))
    assert (d.code, *d.location()[1:3]) == ("type-mismatch", 3, 9)


def test_help_for_an_unknown_type_argument_has_the_right_kind() -> None:
    text = (
        "def @g<n : ShapeVar, d : BaseType>(%x : Tensor[(n), d]) -> Tensor[(n), d] { %x }\ndef @main() -> () "
        "{\n  let %h = @g;\n  ()\n}\n"
    )
    helps = [h for d in diagnostics(text) for h in d.helps]
    assert "give the type arguments explicitly, e.g. `@g<3, float32>(...)` (`n` is a dimension (ShapeVar))" in helps


# ---------------------------------------------------------------- 6. near misses


@pytest.mark.parametrize(
    "text, help",
    [
        ("def @main() { true }", "did you mean `True`? Booleans are written `True` and `False`, as in Python"),
        ("def @main() { False && TRUE }", "did you mean `True`? Booleans are written `True` and `False`, as in Python"),
        (
            "def @main(%x : Float32) { %x }",
            "did you mean `float32`? dtypes are written in lower case, as numpy spells them",
        ),
        ("def @main(%x : double) { %x }", "did you mean `float64`? dtypes name their width, as numpy spells them"),
        (
            "def @main(%x : Tensor[(2, 3, 4), float32]) { flatten(%x) }",
            "did you mean `nn.batch_flatten`? that is Relay's name for this operator",
        ),
        (
            "def @main() { float32(1) }",
            'a float32 literal is written `1f32`; convert a value with `cast(x, dtype="float32")`',
        ),
        (
            "def @main(%x : Tensor[(2, 2), float32]) { nn.softmax(%x, axis=true) }",
            "attribute values are numbers, strings, True, False, None or lists; did you mean `True`?",
        ),
    ],
)
def test_near_misses(text: str, help: str) -> None:
    """Seed 004, "Keyword Proposal": `True` and `False` for booleans, numpy's
    dtype names (`float32`, not `Float32`); seed 001, "Type Relation": the
    Flatten relation types `flatten`, which Relay calls `nn.batch_flatten`."""
    assert help in [h for d in diagnostics(text) for h in d.helps]


def test_the_table_is_shared_and_knows_where_each_kind_fits() -> None:
    assert near_miss("true", ("keyword",)) == ("True", "Booleans are written `True` and `False`, as in Python")
    assert near_miss("true", ("dtype",)) is None  # not where a type is written
    assert near_miss("flatten", ("operator",), ["negative"]) is None  # only a candidate is offered
    assert close_names("flatten", ["nn.batch_flatten", "flip", "floor"]) == ["nn.batch_flatten"]
    assert close_names("mul", ["multiply", "max"]) == ["multiply"]


def test_a_parse_of_true_is_still_an_operator_reference() -> None:
    """`true` is no keyword: it parses (as an operator name) and the checker explains."""
    assert parse("def @main() { true }").ok


def test_identity_on_a_function_without_type_parameters_constrains_it_at_once() -> None:
    """Seed 002, "Functions": the relation holds of the function's own parameter and result types."""
    d = only("def @main() {\n  let %f = fn (%x : int32, %y : (int32, int32)) where Identity { %x };\n  %f\n}\n")
    assert (d.code, *d.location()[1:3]) == ("type-mismatch", 2, 55)
    assert d.message == ("`Identity` relates types that must be one type: expected `int32`, found `(int32, int32)`")


def test_another_spelling_of_a_prelude_name_stays_the_files_type() -> None:
    """`Option` is accepted for the Prelude's `Optional`, but a file that
    defines `Option` (TVM's prelude does) defines a type of that name."""
    text = '#[version = "0.0.5"]\ntype Option[A] {\n  Some(A),\n  None,\n}\n\ndef @main() {\n  Some(1)\n}\n'
    assert types_of(text)["@main"] == "fn() -> Option[Tensor[(), int32]]"


def test_a_signature_of_type_parameters_where_broadcast() -> None:
    """Seed 001, "Type Relation": `add : fn<t1 : Type, t2 : Type, t3 : Type>(t1, t2) -> t3
    where Broadcast`. Broadcast relates parameters of kind Type; the body may
    rely on it, and each call must satisfy it."""
    text = (
        "def @plus<t1 : Type, t2 : Type, t3 : Type>(%x : t1, %y : t2) -> t3 where Broadcast {\n  add(%x, %y)\n}\n"
        "def @main() {\n  @plus(Constant(1, (3, 1), float32), Constant(2, (4), float32))\n}\n"
    )
    types = types_of(text)
    assert types["@plus"] == "fn<t1, t2, t3>(t1, t2) -> t3 where Broadcast"
    assert types["@main"] == "fn() -> Tensor[(3, 4), float32]"
    d = only(text.replace("add(%x, %y)", "add(%x, %x)"))
    assert (d.code, *d.location()[1:3]) == ("type-mismatch", 2, 7)
    d = only(text.replace("(4), float32)", "(5, 4), float32)").replace("(3, 1)", "(3, 2)"))
    assert d.code == "shape-mismatch"
