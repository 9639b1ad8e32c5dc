"""A comment between two tokens never changes what a program means: after
`Constant`, `meta`, and every keyword that leads a form (`fn`, `let`, `if`,
`else`, `match`, `case`, `ref`, `def`, `type`, `data`, `extern`,
`free_var`), in every comment style."""

from __future__ import annotations

import re

import pytest

from relay_text import check
from relay_text.ir.alpha import alpha_equal_module
from relay_text.ir.expr import Constant, Tuple
from relay_text.syntax.parser import parse

COMMENTS = {"block": "/* c */", "line": "// c\n", "hash": "# c\n", "nested": "/* a /* b */ c */"}

TVM = """#[version = "0.0.5"]
type T {
  A,
  B(int32),
}
free_var %z: int32;
def @f(%x: int32) -> int32 {
  let %y = ref(%x);
  %0 = fn (%a: int32) { %a };
  %1 = match (B(1)) {
    A => 1,
    B(%v) => %v,
  };
  if (True) { %0(%1) } else { ref_read(%y) }
}
def @main() {
  (meta[relay.Constant][0], Constant(2, (2, 2), float32), @f(1))
}
add(%z, 1)
#[metadata]
{"root": 1, "nodes": [{"type_key": ""}, {"type_key": "Map", "keys": ["relay.Constant"], "data": [2]},
 {"type_key": "Array", "data": [3]},
 {"type_key": "relay.Constant", "attrs": {"_checked_type_": "0", "data": "0", "span": "0", "virtual_device_": "0"}}],
 "b64ndarrays": ["P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQACAAAAAAAAAAgAAAAAAAAAAACAPwAAAEA="],
 "attrs": {"tvm_version": "0.8.0"}}
"""

DOCS = """data D<a> {
  E : (a) -> D[a]
  F : () -> D[a]
}
extern type X
def @f<a>(%x: D[int32]) -> int32 {
  let %r = ref(1);
  let %g = fn <b>(%b: b) -> b { %b };
  match (%x) {
    case E(%v) { %g(%v) + ref_read(%r) }
    case F() { if (True) { 1 } else if (False) { 2 } else { 3 } }
  }
}
def @main() {
  (Constant(2, (2, 2), float32), @f<int32>(E(1)))
}
"""

KEYWORDS = r"\b(type|free_var|def|let|ref|fn|match|case|if|else|data|extern|Constant|meta)\b(?=[ (\[<@%A-Z])"


def _commented(text: str, comment: str) -> str:
    # Only in the program part, not in the metadata JSON.
    program, sep, rest = text.partition("#[metadata]")
    return re.sub(KEYWORDS, lambda m: m.group(1) + " " + comment, program) + sep + rest


@pytest.mark.parametrize("style", sorted(COMMENTS))
@pytest.mark.parametrize("name, text", [("tvm", TVM), ("docs", DOCS)])
def test_a_comment_after_any_keyword_keeps_the_meaning(name: str, text: str, style: str) -> None:
    text_in = text
    commented = _commented(text_in, COMMENTS[style])
    assert commented.count(COMMENTS[style]) >= 10
    plain, with_comments = check(text_in), check(commented)
    assert [str(d) for d in with_comments.diagnostics] == [str(d) for d in plain.diagnostics] == []
    assert with_comments.global_types == plain.global_types
    assert alpha_equal_module(parse(commented).module, parse(text_in).module)


@pytest.mark.parametrize("comment", list(COMMENTS.values()))
def test_constant_then_a_comment_is_a_constant(comment: str) -> None:
    checked = check(f"def @main() {{ Constant {comment} (2, (2, 2), float32) }}")
    assert checked.ok and checked.global_types == {"@main": "fn() -> Tensor[(2, 2), float32]"}
    body = checked.module.functions[checked.module.global_var("main")].body
    assert isinstance(body, Constant) and body.shape == (2, 2) and body.value == 2


@pytest.mark.parametrize("comment", list(COMMENTS.values()))
def test_meta_then_a_comment_is_a_metadata_reference(comment: str) -> None:
    text = TVM.replace("(meta[relay.Constant][0]", f"(meta {comment} [relay.Constant] {comment} [0]")
    checked = check(text)
    assert checked.ok, [str(d) for d in checked.diagnostics]
    assert checked.global_types["@main"].startswith("fn() -> (Tensor[(2), float32], Tensor[(2, 2), float32]")
    body = checked.module.functions[checked.module.global_var("main")].body
    assert isinstance(body, Tuple) and isinstance(body.fields[0], Constant) and body.fields[0].meta_index == 0
