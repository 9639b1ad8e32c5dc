"""The parser grows linearly with the length of a repetition (operator
chains, argument and field lists, constructor lists): a program of 8n units
takes far less than the 64 times of quadratic growth. Linear growth gives
about 8; the bound leaves room for a loaded machine."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from relay_text.ir.expr import Call, Tuple
from relay_text.ir.span import Source
from relay_text.std import prelude
from relay_text.syntax.builder import Env
from relay_text.syntax.parser import parse_source

BOUND = 24.0


def _parse_time(text: str, env: Env | None = None) -> float:
    best = float("inf")
    for _ in range(3):  # the best of three: a collection or another process in one run is noise
        start = time.process_time()
        result = parse_source(Source("<scaling>", text), env)
        best = min(best, time.process_time() - start)
    assert result.module is not None and not [d for d in result.diagnostics if d.is_error], result.diagnostics[:1]
    return best


def operator_chain(n: int) -> str:
    return " + ".join(["1"] * n) + "\n"


def wide_data(n: int) -> str:
    return f"type T {{ {', '.join(f'C{i}' for i in range(n))} }}\nC{n - 1}\n"


def wide_tuple(n: int) -> str:
    return f"let %t = ({', '.join(str(i) for i in range(n))}); %t.{n - 1}\n"


@pytest.mark.parametrize(
    ("make", "n"),
    [(operator_chain, 5000), (wide_data, 5000), (wide_tuple, 5000)],
    ids=["operator-chain", "wide-data", "wide-tuple"],
)
def test_parsing_grows_linearly(make: Callable[[int], str], n: int) -> None:
    _parse_time(make(100))  # warm-up: the tables
    small = _parse_time(make(n))
    large = _parse_time(make(8 * n))
    assert large / max(small, 1e-3) < BOUND, (small, large)


def prelude_uses(n: int) -> str:
    """n unused definitions, each using the Prelude's `@map`: every use is
    compared with the unused definitions' names (a misspelling's shape)."""
    return "".join(f"def @f{i}(%l: List[int32]) {{ @map(fn (%x: int32) {{ %x }}, %l) }}\n" for i in range(n))


def test_uses_of_prelude_names_grow_linearly() -> None:
    env = prelude().env()
    _parse_time(prelude_uses(10), env)
    small = _parse_time(prelude_uses(250), env)
    large = _parse_time(prelude_uses(2000), env)
    assert large / max(small, 1e-3) < BOUND, (small, large)


def unbound_uses(n: int) -> str:
    body = "".join(f"  let %x{i + 1} = add(%x{i}, %y);\n" for i in range(n))
    return f"def @main() -> int32 {{\n  let %x0 = 1;\n{body}  %x{n}\n}}\n"


def _errors_time(text: str) -> float:
    start = time.process_time()
    result = parse_source(Source("<scaling>", text))
    spent = time.process_time() - start
    assert result.diagnostics and all(d.code == "unbound-variable" for d in result.diagnostics)
    return spent


def test_many_name_errors_grow_linearly() -> None:
    """Each unbound variable's "did you mean" looks at every name in scope:
    only the first errors of a file get one."""
    _errors_time(unbound_uses(10))
    small = min(_errors_time(unbound_uses(500)) for _ in range(2))
    large = min(_errors_time(unbound_uses(4000)) for _ in range(2))
    assert large / max(small, 1e-3) < BOUND, (small, large)


def test_the_first_name_errors_get_suggestions() -> None:
    from relay_text.syntax.builder import SUGGESTED_SITES

    body = "".join(f"  let %value{i + 1} = add(%value{i}, %valeu{i});\n" for i in range(SUGGESTED_SITES + 1))
    text = f"def @main() -> int32 {{\n  let %value0 = 1;\n{body}  %value{SUGGESTED_SITES + 1}\n}}\n"
    diags = parse_source(Source("<t>", text)).diagnostics
    assert len(diags) == SUGGESTED_SITES + 1
    assert diags[0].helps == ["did you mean `%value0`?"]
    assert all(d.helps for d in diags[:SUGGESTED_SITES]) and diags[-1].helps == []


def test_long_lists_keep_every_element_in_order() -> None:
    n = 3000
    fields = ", ".join(str(i) for i in range(n))
    ctors = ", ".join(f"C{i}" for i in range(n))
    result = parse_source(Source("<t>", f"type T {{ {ctors} }}\n({fields})\n"))
    module = result.module
    assert module is not None and not result.diagnostics
    (data,) = module.type_defs.values()
    assert [c.name for c in data.constructors] == [f"C{i}" for i in range(n)]
    assert isinstance(module.expr, Tuple)
    assert [f.value for f in module.expr.fields] == list(range(n))  # type: ignore[attr-defined]
    chain = parse_source(Source("<t>", " - ".join(str(i) for i in range(n)) + "\n")).module
    assert chain is not None
    # Left-associative: ((0 - 1) - 2) - ...: the right operands from the top down.
    node, seen = chain.expr, []
    while isinstance(node, Call):
        seen.append(node.args[1].value)
        node = node.args[0]
    assert [*seen[::-1], node.value] == [*list(range(1, n)), 0]
