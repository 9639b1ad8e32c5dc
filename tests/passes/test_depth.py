"""Every pass on a deep program: a chain of calls deeper than Python's
recursion limit (1,100 in the default run, the passes and the checks after
them; 100,000 with --slow, through the whole of `relay opt`: read, check,
pass, check, print, read back)."""

from __future__ import annotations

import pytest

from relay_text.passes.registry import all_passes
from tests.passes.helpers import attempt


def chain(depth: int) -> str:
    lines = ["def @main(%x : Tensor[(2), float32]) {", "  %0 = negative(%x);"]
    lines += [f"  %{i} = add(%{i - 1}, 1f);" for i in range(1, depth)]
    lines += [f"  exp(%{depth - 1})", "}"]
    return "\n".join(lines) + "\n"


def _names() -> list[str]:
    return [p.name for p in all_passes()]


@pytest.mark.parametrize("name", _names())
def test_a_chain_deeper_than_the_recursion_limit(name: str) -> None:
    from relay_text.ir.span import Source
    from relay_text.passes.context import PassContext
    from relay_text.passes.pipeline import run_passes
    from relay_text.passes.registry import parse_pipeline
    from relay_text.pipeline import check_source

    checked = check_source(Source("chain.rly", chain(1_100)))
    assert checked.module is not None and checked.ok
    run_passes(checked.module, parse_pipeline(name), PassContext())


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "ToANormalForm",
        "ToGraphNormalForm",
        "FuseOps",
        "FoldConstant",
        "InferType",
        "DeadCodeElimination",
        "EliminateCommonSubexpr",
        "SimplifyExpr",
    ],
)
def test_a_chain_of_100000_calls(name: str) -> None:
    result = attempt(chain(100_000), name)
    assert result.ok, [str(d) for d in result.diagnostics]
