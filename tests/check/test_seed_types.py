"""Types the seed documents state, pinned.

Each test cites the document and section the type comes from.
"""

from __future__ import annotations

from relay_text.ir.expr import Let, TupleGetItem, Var
from relay_text.text.type_text import type_text

from .helpers import checked, global_types

LIST = """
data List<a> {
  Nil : () -> List
  Cons : (a, List[a]) -> List
}
"""
OPTIONAL = """
data Optional<a> {
  None : () -> Optional
  Some : (a) -> Optional
}
"""


def _let_types(text: str) -> dict[str, str]:
    """Types of let-bound variables of the module's trailing expression or @main."""
    result = checked(text)
    out = {}
    for node, ty in result.types.items():
        if isinstance(node, Var) and node.name:
            out[f"%{node.name}"] = type_text(ty)
    return out


def test_tuple_type_and_projection() -> None:
    """seed 001, "Tuple Type": %t and %c."""
    types = _let_types(
        """
def @main() {
  let %t = (False, Constant(1, (10, 10), float32));
  let %c = %t.1;
  %c
}
"""
    )
    assert types["%t"] == "(Tensor[(), bool], Tensor[(10, 10), float32])"
    assert types["%c"] == "Tensor[(10, 10), float32]"


def test_list_constructors() -> None:
    """seed 001, "Example: List ADT": Nil and Cons signatures."""
    result = checked(LIST + "def @main() { Nil() }")
    ctors = {c.name: type_text(t) for c, t in result.constructor_types.items()}
    assert ctors == {"Nil": "fn<a>() -> List[a]", "Cons": "fn<a>(a, List[a]) -> List[a]"}


def test_list_instances() -> None:
    """seed 001, "Example: List ADT": the two well-typed lists."""
    types = global_types(
        LIST
        + """
def @ints() { Cons(1, Cons(2, Nil())) }
def @pairs() { Cons((1, 1), Cons((2, 2), Nil())) }
"""
    )
    assert types["@ints"] == "fn() -> List[Tensor[(), int32]]"
    assert types["@pairs"] == "fn() -> List[(Tensor[(), int32], Tensor[(), int32])]"


def test_optional_constructors() -> None:
    """seed 000, "Type-Checking ADTs and Polymorphism": Some and None."""
    result = checked(OPTIONAL + "def @main() { None() }")
    ctors = {c.name: type_text(t) for c, t in result.constructor_types.items()}
    assert ctors == {"None": "fn<a>() -> Optional[a]", "Some": "fn<a>(a) -> Optional[a]"}


def test_constructor_of_two_parameter_type() -> None:
    """seed 002, "ADT Constructors": C1 : fun<a, b>(a, b) -> D[a, b], C2 : fun<a, b>() -> D[a, b]."""
    result = checked("data D<a, b> {\n  C1 : (a, b) -> D\n  C2 : () -> D\n}\ndef @main() { C2() }")
    ctors = {c.name: type_text(t) for c, t in result.constructor_types.items()}
    assert ctors == {"C1": "fn<a, b>(a, b) -> D[a, b]", "C2": "fn<a, b>() -> D[a, b]"}


def test_polymorphic_identity_and_tensor_functions() -> None:
    """seed 002, "Polymorphism and Type Relations": the two polymorphic definitions."""
    types = global_types(
        """
def @id<t : Type>(%x : t) -> t { %x }
def @tensors<s : Shape, bt : BaseType>(%x : Tensor[s, bt]) { %x }
"""
    )
    assert types["@id"] == "fn<t>(t) -> t"
    assert types["@tensors"] == "fn<s : Shape, bt : BaseType>(Tensor[s, bt]) -> Tensor[s, bt]"


def test_explicit_and_inferred_type_arguments() -> None:
    """seed 002, "Call": %x1 is Tensor[(), bool]; %x2 is () with arguments <bool, bool, ()>."""
    text = """
def @main(%f : fn<a : Type, b : Type, c : Type>(a, b) -> c) {
  let %x1 = %f<Tensor[(), bool], Tensor[(), bool], Tensor[(), bool]>(True, False);
  let %x2 : () = %f(%x1, %x1);
  %x2
}
"""
    result = checked(text)
    assert not result.diagnostics
    types = {n.name: type_text(t) for n, t in result.types.items() if isinstance(n, Var)}
    assert types["x1"] == "Tensor[(), bool]"
    assert types["x2"] == "()"
    args = sorted((call.span.start, [type_text(a) for a in targs]) for call, targs in result.type_args.items())
    assert args == [
        (args[0][0], ["Tensor[(), bool]", "Tensor[(), bool]", "Tensor[(), bool]"]),
        (args[1][0], ["Tensor[(), bool]", "Tensor[(), bool]", "()"]),
    ]


def test_shape_parameter_substituted_at_call_site() -> None:
    """seed 001, "Type Parameter": s is substituted with (10, 10)."""
    text = """
def @plus<s : Shape>(%t1 : Tensor[s, float32], %t2 : Tensor[s, float32]) {
  add(%t1, %t2)
}
def @main(%a : Tensor[(10, 10), float32], %b : Tensor[(10, 10), float32]) {
  @plus<(10, 10)>(%a, %b)
}
"""
    result = checked(text)
    assert not result.diagnostics
    assert (
        type_text(result.global_type("plus"))
        == "fn<s : Shape>(Tensor[s, float32], Tensor[s, float32]) -> Tensor[s, float32]"
    )
    assert (
        type_text(result.global_type("main"))
        == "fn(Tensor[(10, 10), float32], Tensor[(10, 10), float32]) -> Tensor[(10, 10), float32]"
    )
    (targs,) = result.type_args.values()
    assert [type_text(a) for a in targs] == ["(10, 10)"]


def test_broadcast_relation_types_add() -> None:
    """seed 002, "Polymorphism and Type Relations": fn(%x, %y) where Broadcast."""
    types = global_types("def @f(%x, %y) where Broadcast { add(%x, %y) }")
    assert types["@f"] == (
        "fn<a : Shape, b : BaseType, c : Shape, d : Shape>(Tensor[a, b], Tensor[c, b]) -> Tensor[d, b] where Broadcast"
    )


def test_annotated_result_of_broadcast_call() -> None:
    """seed 002, "Call": `let %x : Tensor[(100, 100, 100), float32] = %f(%a, %b)`."""
    text = """
def @f(%x, %y) where Broadcast { add(%x, %y) }
def @main(%a : Tensor[(100, 1, 100), float32], %b : Tensor[(100, 1), float32]) {
  let %x : Tensor[(100, 100, 100), float32] = @f(%a, %b);
  %x
}
"""
    assert global_types(text)["@main"].endswith("-> Tensor[(100, 100, 100), float32]")


def test_closure_example() -> None:
    """seed 002, "Closures": %f is a function of one 10x10 tensor."""
    text = """
def @main() {
  let %g = fn () {
    let %x = Constant(0, (10, 10), float32);
    fn (%y) { %y * %x }
  };
  let %f = %g();
  let %x = Constant(1, (10, 10), float32);
  %f(%x)
}
"""
    assert global_types(text)["@main"] == "fn() -> Tensor[(10, 10), float32]"


def test_let_shadowing() -> None:
    """seed 002, "Local Variable": %a + %b is an int32 scalar."""
    text = "def @main() {\n  let %a = 1;\n  let %b = 2 * %a;\n  let %a = %a + %a;\n  %a + %b\n}"
    assert global_types(text)["@main"] == "fn() -> Tensor[(), int32]"


def test_graph_bindings() -> None:
    """seed 002, "Graph Bindings": %1, %2 and the result share the operands' type."""
    text = (
        "def @main(%a : Tensor[(2, 2), float32], %b : Tensor[(2, 2), float32]) {\n  %1 = %a + %b\n  %2 = %1 + "
        "%1\n  %2 * %2\n}"
    )
    assert global_types(text)["@main"].endswith("-> Tensor[(2, 2), float32]")


def test_tuple_projection_in_a_function() -> None:
    """seed 002, "Tuples": ((%tup.0 + %tup.1), %c)."""
    text = """
def @main(%a : Tensor[(10, 10), float32], %b : float32, %c : Tensor[(100, 100), float32]) {
  let %tup = (%a, %b);
  ((%tup.0 + %tup.1), %c)
}
"""
    result = checked(text)
    assert not result.diagnostics
    tup = next(t for n, t in result.types.items() if isinstance(n, Var) and n.name == "tup")
    assert type_text(tup) == "(Tensor[(10, 10), float32], Tensor[(), float32])"
    assert type_text(result.global_type("main")).endswith("-> (Tensor[(10, 10), float32], Tensor[(100, 100), float32])")


def test_ackermann() -> None:
    """seed 002, "Module and Global Functions"."""
    text = """
def @ackermann(%m : Tensor[(), int32], %n : Tensor[(), int32]) -> Tensor[(), int32] {
  if (%m == 0) {
    %n + 1
  } else if (%m > 0 && %n == 0) {
    @ackermann(%m - 1, 1)
  } else {
    @ackermann(%m - 1, @ackermann(%m, %n - 1))
  }
}
"""
    assert global_types(text)["@ackermann"] == "fn(Tensor[(), int32], Tensor[(), int32]) -> Tensor[(), int32]"


def test_prelude_functions() -> None:
    """seed 000, "Common ADT Uses": the list functions' most general types."""
    text = (
        LIST
        + OPTIONAL
        + """
def @map<a, b>(%f : fn(a) -> b, %l : List[a]) -> List[b] {
  match (%l) {
    case Nil() { Nil() }
    case Cons(%h, %t) { Cons(%f(%h), @map(%f, %t)) }
  }
}
def @foldl<a, b>(%f : fn(b, a) -> b, %z : b, %l : List[a]) -> b {
  match (%l) {
    case Nil() { %z }
    case Cons(%h, %t) { @foldl(%f, %f(%z, %h), %t) }
  }
}
def @concat<a>(%l1 : List[a], %l2 : List[a]) -> List[a] {
  match (%l1) {
    case Nil() { %l2 }
    case Cons(%h, %t) { Cons(%h, @concat(%t, %l2)) }
  }
}
def @flatten(%ll) { @foldl(@concat, Nil(), %ll) }
def @double(%l) { @map(fn (%i) { %i * 2 }, %l) }
def @second_opt<a>(%ll : Optional[List[a]]) -> Optional[a] {
  match (%ll) {
    case Some(Cons(_, Cons(%s, _))) { Some(%s) }
    case _ { None() }
  }
}
def @zip<a, b>(%l : List[a], %m : List[b]) -> List[(a, b)] {
  match (%l) {
    case Nil() { Nil() }
    case Cons(%a, %t1) {
      match (%m) {
        case Nil() { Nil() }
        case Cons(%b, %t2) { Cons((%a, %b), @zip(%t1, %t2)) }
      }
    }
  }
}
def @map_accumr<a, b, c>(%f : fn(a, b) -> (a, c), %acc : a, %l : List[b]) -> (a, List[c]) {
  match (%l) {
    case Nil() { (%acc, Nil()) }
    case Cons(%b, %t) {
      let %update = %f(%acc, %b);
      let %rest = @map_accumr(%f, %update.0, %t);
      (%rest.0, Cons(%update.1, %rest.1))
    }
  }
}
def @main() { @second_opt(Some(Cons(1, Cons(2, Nil())))) }
"""
    )
    types = global_types(text)
    assert types["@map"] == "fn<a, b>(fn(a) -> b, List[a]) -> List[b]"
    assert types["@foldl"] == "fn<a, b>(fn(b, a) -> b, b, List[a]) -> b"
    assert types["@concat"] == "fn<a>(List[a], List[a]) -> List[a]"
    assert types["@flatten"] == "fn<a>(List[List[a]]) -> List[a]"
    assert types["@double"] == "fn<a : Shape>(List[Tensor[a, int32]]) -> List[Tensor[a, int32]]"
    assert types["@zip"] == "fn<a, b>(List[a], List[b]) -> List[(a, b)]"
    assert types["@map_accumr"] == "fn<a, b, c>(fn(a, b) -> (a, c), a, List[b]) -> (a, List[c])"
    assert types["@main"] == "fn() -> Optional[Tensor[(), int32]]"


def test_sum_of_numbers() -> None:
    """seed 000, "Defining and Matching on an ADT": @sum returns an int32 scalar."""
    text = """
data Numbers {
  Empty : () -> Numbers
  Single : (Tensor[(), int32]) -> Numbers
  Pair : (Tensor[(), int32], Tensor[(), int32]) -> Numbers
}
def @sum(%n : Numbers[]) -> Tensor[(), int32] {
  match (%n) {
    case Empty() { 0 }
    case Single(%x) { %x }
    case Pair(%x, %y) { %x + %y }
  }
}
def @main() { (@sum(Empty()), @sum(Single(3)), @sum(Pair(5, 6))) }
"""
    types = global_types(text)
    assert types["@main"] == "fn() -> (Tensor[(), int32], Tensor[(), int32], Tensor[(), int32])"


def test_literals() -> None:
    """Literal types: int32 (int64 when too large), float32, suffixes, bool, Constant(...)."""
    text = """
def @main() {
  (1, 3000000000, 1.0, 1f, 1f16, 1f64, 2i64, 3i16, True, Constant(1, (2, 3), float64), 1.5f32)
}
"""
    types = global_types(text)
    assert types["@main"] == (
        "fn() -> (Tensor[(), int32], Tensor[(), int64], Tensor[(), float32], Tensor[(), float32], "
        "Tensor[(), float16], Tensor[(), float64], Tensor[(), int64], Tensor[(), int16], Tensor[(), bool], "
        "Tensor[(2, 3), float64], Tensor[(), float32])"
    )


def test_every_node_has_a_type() -> None:
    """Per-node types are exposed, keyed by node identity (also projections)."""
    result = checked("def @main(%t : (Tensor[(), int32], Tensor[(), bool])) { let %x = %t.1; %x }")
    func = next(iter(result.module.functions.values()))
    let = func.body
    assert isinstance(let, Let) and isinstance(let.value, TupleGetItem)
    assert type_text(result.types[let.value]) == "Tensor[(), bool]"
    assert type_text(result.types[let]) == "Tensor[(), bool]"
