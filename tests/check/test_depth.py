"""Deep programs check without recursion errors (the traversal and the type walks are iterative)."""

from __future__ import annotations

import pytest

from relay_text.check import check_module
from relay_text.syntax.parser import parse
from relay_text.text.type_text import type_text

N = 100_000


def _check(text: str):
    parsed = parse(text)
    assert parsed.ok, [str(d) for d in parsed.diagnostics[:3]]
    result = check_module(parsed.module)
    assert not result.diagnostics, [str(d) for d in result.diagnostics[:3]]
    return result


@pytest.mark.slow
def test_100000_nested_lets() -> None:
    lets = "".join(f"  let %v{i + 1} = add(%v{i}, 1f);\n" for i in range(N))
    result = _check(f"def @main(%v0: Tensor[(2), float32]) {{\n{lets}  %v{N}\n}}\n")
    assert type_text(result.global_type("main")) == "fn(Tensor[(2), float32]) -> Tensor[(2), float32]"


@pytest.mark.slow
def test_100000_chained_graph_bindings() -> None:
    body = "".join(f"  %{i + 1} = multiply(%{i}, %x);\n" for i in range(1, N))
    result = _check(f"def @main(%x: Tensor[(3), float32]) {{\n  %1 = nn.relu(%x);\n{body}  %{N}\n}}\n")
    assert type_text(result.global_type("main")) == "fn(Tensor[(3), float32]) -> Tensor[(3), float32]"


def test_100000_nested_calls() -> None:
    text = "def @main(%x: Tensor[(), int32]) {\n  " + "negative(" * N + "%x" + ")" * N + "\n}\n"
    result = _check(text)
    assert type_text(result.global_type("main")) == "fn(Tensor[(), int32]) -> Tensor[(), int32]"


def test_20000_let_bound_functions_each_generalized() -> None:
    lets = "".join(f"  let %f{i} = fn (%x) {{ (%x, %x) }};\n" for i in range(20_000))
    result = _check(f"def @main() {{\n{lets}  %f19999(1)\n}}\n")
    assert type_text(result.global_type("main")) == "fn() -> (Tensor[(), int32], Tensor[(), int32])"


def test_deeply_nested_tuple_type() -> None:
    depth = 5_000
    text = "def @main(%x: Tensor[(), int32]) {\n  " + "(" * depth + "%x" + ",)" * depth + "\n}\n"
    result = _check(text)
    ret = result.global_type("main").ret_type
    for _ in range(depth):
        ret = ret.fields[0]
    assert type_text(ret) == "Tensor[(), int32]"


def test_1000_nested_functions() -> None:
    depth = 1_000
    text = "def @main() {\n  " + "fn (%x) { " * depth + "%x" + " }" * depth + "\n}\n"
    parsed = parse(text)
    assert parsed.ok
    result = check_module(parsed.module)
    assert not result.diagnostics
