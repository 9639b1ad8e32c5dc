"""Deep programs parse and resolve without RecursionError: 100,000 nested lets, bindings and calls."""

from __future__ import annotations

from relay_text.ir import Call, Let, Tuple, post_order
from tests.helpers import body, parse_ok

N = 100_000


def test_nested_lets() -> None:
    text = "fn (%x0) {\n" + "".join(f"  let %x{i + 1} = add(%x{i}, 1);\n" for i in range(N)) + f"  %x{N}\n}}"
    f = body(text)
    let = f.body
    depth = 0
    while isinstance(let, Let):
        depth += 1
        let = let.body
    assert depth == N and let.name == f"x{N}"


def test_graph_binding_chain_without_semicolons() -> None:
    text = (
        "fn (%a) {\n  %0 = add(%a, %a)\n"
        + "".join(f"  %{i} = add(%{i - 1}, %{i - 1})\n" for i in range(1, N))
        + f"  %{N - 1}\n}}"
    )
    f = body(text)
    # Each binding is used twice but is one node: the DAG has N calls.
    calls = [n for n in post_order(f.body) if isinstance(n, Call)]
    assert len(calls) == N
    assert f.body.args[0] is f.body.args[1]


def test_nested_parentheses() -> None:
    depth = 10_000
    e = body("(" * depth + "1" + ")" * depth)
    assert e.value == 1
    e = body("(" * depth + "1" + ",)" * depth)  # (((1,),),)
    for _ in range(depth):
        assert isinstance(e, Tuple) and len(e.fields) == 1
        e = e.fields[0]
    assert e.value == 1


def test_nested_calls() -> None:
    depth = 10_000
    e = body("negative(" * depth + "1" + ")" * depth)
    assert len([n for n in post_order(e) if isinstance(n, Call)]) == depth


def test_long_module() -> None:
    text = "".join(f"def @f{i}(%x) {{ @f{i + 1}(%x) }}\n" for i in range(10_000)) + "def @f10000(%x) { %x }\n"
    assert len(parse_ok(text).functions) == 10_001
