"""The checker grows linearly with the size of each construct that once made
it quadratic (benchmarks/scaling.py measures every construct and stage).

Each test times a program of n units and one of 8n (CPU time, best of two)
and asserts the ratio stays far below the 64 of quadratic growth: linear
growth gives about 8, and the bound leaves room for a loaded machine."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from relay_text.check import check_module
from relay_text.ir.span import Source
from relay_text.pipeline import check_source
from relay_text.std import prelude
from relay_text.syntax.parser import parse_source

BOUND = 24.0


def _check_time(text: str) -> float:
    std = prelude()
    module = parse_source(Source("<scaling>", text), std.env()).module
    assert module is not None
    best = float("inf")
    for _ in range(2):
        start = time.process_time()
        result = check_module(module, std.module)
        best = min(best, time.process_time() - start)
    assert not [d for d in result.diagnostics if d.is_error], result.diagnostics[:1]
    return best


def nested_fns(n: int) -> str:
    head = "".join(f"fn (%a{i}: int32) {{ " for i in range(n))
    return f"let %f = {head}%a{n - 1}{' }' * n};\n%f" + "".join(f"({i})" for i in range(n)) + "\n"


def wide_match(n: int) -> str:
    constructors = ", ".join(f"C{i}" for i in range(n))
    clauses = " ".join(f"case C{i} {{ {i} }}" for i in range(n))
    return f"type T {{ {constructors} }}\ndef @f(%c: T) -> int32 {{ match (%c) {{ {clauses} }} }}\n@f(C{n - 1})\n"


@pytest.mark.parametrize(
    ("make", "n"),
    [(nested_fns, 300), (wide_match, 500)],
    ids=["nested-fns-curried-calls", "wide-match"],
)
def test_checking_grows_linearly(make: Callable[[int], str], n: int) -> None:
    _check_time(make(n))  # warm-up: the Prelude, the operator families
    small = _check_time(make(n))
    large = _check_time(make(8 * n))
    assert large / max(small, 1e-3) < BOUND, (small, large)


def test_nested_fn_results_are_the_inner_types() -> None:
    checked = check_source(Source("<t>", "def @main() { fn (%a: int32) { fn (%b: float32) { (%a, %b) } } }\n"))
    assert checked.errors == 0
    assert checked.global_types["@main"] == (
        "fn() -> fn(Tensor[(), int32]) -> fn(Tensor[(), float32]) -> (Tensor[(), int32], Tensor[(), float32])"
    )


def test_wide_match_reports_missing_and_unreachable_clauses() -> None:
    constructors = ", ".join(f"C{i}" for i in range(2000))
    clauses = " ".join(f"case C{i} {{ {i} }}" for i in range(1999)) + " case C5 { 0 } case _ { 1 } case _ { 2 }"
    text = f"type T {{ {constructors} }}\ndef @f(%c: T) -> int32 {{ match (%c) {{ {clauses} }} }}\n"
    checked = check_source(Source("<t>", text))
    codes = [d.code for d in checked.diagnostics]
    assert codes.count("unreachable-clause") == 2, codes
    missing = check_source(Source("<t>", text.replace(" case _ { 1 } case _ { 2 }", "")))
    assert [d.code for d in missing.diagnostics if d.is_error] == ["non-exhaustive-match"]
    assert "C1999" in missing.diagnostics[0].message
