"""A nullary constructor written without `()` is its value (TVM's reading)."""

from __future__ import annotations

from relay_text.check import check_text
from relay_text.text.type_text import type_text

TVM = """#[version = "0.0.5"]
type List[A] {
  Cons(A, List[A]),
  Nil,
}

def @map[A, B](%f: fn (A) -> B, %xs: List[A]) -> List[B] {
  match (%xs) {
    Cons(%x, %rest) => Cons(%f(%x), @map(%f, %rest)),
    Nil => Nil,
  }
}

def @main() {
  (Cons(1, Nil), Nil(), @map(fn (%x: int32) { %x }, Nil))
}
"""


def test_bare_nullary_constructor_is_a_value() -> None:
    result = check_text(TVM)
    assert [str(d) for d in result.diagnostics] == []
    assert (
        type_text(result.global_type("main"))
        == "fn<a>() -> (List[Tensor[(), int32]], List[a], List[Tensor[(), int32]])"
    )
