"""What every pass test checks, written once.

* `optimized(text, passes)`: the pass list run through the library as
  `relay opt` runs it; the result must exist.
* `assert_well_formed(text)`: the output type-checks on its own, and is in
  the formatter's normal form (`relay fmt` leaves it unchanged).
* `assert_same_values(before, after)`: both programs run on the same values,
  drawn once from the program *before* the passes exactly as `relay run
  --random-args --random-consts` draws them (a pass changes how a constant
  is used, and `--random-consts` shapes its draw by its use: a batch norm's
  variance is drawn positive), and give the same result: bit for bit by
  default, within float rounding (`rtol`) for passes that reorder
  arithmetic. They run as written (`relay run --no-opt`): the evaluator's
  own rewrites depend on the program's shape, and would round differently
  before and after.
* `assert_pass_pair(before, expected, passes)`: a transcription of a
  before/expected pair of TVM's tests, compared up to renaming.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from relay_text.eval.entry import RunRequest
from relay_text.eval.values import Data
from relay_text.ir.span import Source
from relay_text.passes.pipeline import Optimized, optimize_source
from relay_text.pipeline import Ran, check_source, run_source


def optimized(text: str, passes: str, name: str = "test.rly", dialect: str = "keep", entry: str | None = None) -> str:
    result = optimize_source(Source(name, text), passes, dialect=dialect, entry=entry)
    assert result.ok, [str(d) for d in result.diagnostics]
    assert result.text is not None
    return result.text


def attempt(text: str, passes: str, name: str = "test.rly", entry: str | None = None) -> Optimized:
    return optimize_source(Source(name, text), passes, entry=entry)


def assert_well_formed(text: str, name: str = "out.rly") -> None:
    checked = check_source(Source(name, text))
    assert checked.ok, [str(d) for d in checked.diagnostics if d.is_error]
    from relay_text.formatter import format_source

    formatted = format_source(Source(name, text))
    assert formatted.text == text, "the output is not in the formatter's normal form"


def run(text: str, request: RunRequest, name: str = "test.rly") -> Ran:
    ran = run_source(Source(name, text), request)
    assert ran.ok, [str(d) for d in ran.diagnostics if d.is_error]
    return ran


def assert_same_values(
    before: str,
    after: str,
    seed: int = 0,
    entry: str | None = None,
    rtol: float = 0.0,
    atol: float = 0.0,
    optimize: bool = False,
) -> Any:
    """Run both on the values `before` draws; compare the results. Returns
    the result of `before`."""
    first = run(before, RunRequest(entry=entry, random_args=True, random_consts=True, seed=seed, optimize=optimize))
    outcome = first.outcome
    values = tuple(outcome.args[p.name] for p in outcome.entry.params)
    second = run(after, RunRequest(entry=entry, values=values, constants=dict(outcome.constants), optimize=optimize))
    assert_close(first.value, second.value, rtol, atol)
    return first.value


def assert_close(a: Any, b: Any, rtol: float = 0.0, atol: float = 0.0, where: str = "result") -> None:
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), f"{where}: {a!r} vs {b!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            assert_close(x, y, rtol, atol, f"{where}.{i}")
        return
    if isinstance(a, Data):
        assert isinstance(b, Data) and a.con.name == b.con.name, f"{where}: {a} vs {b}"
        assert_close(tuple(a.fields), tuple(b.fields), rtol, atol, where)
        return
    if isinstance(a, (np.ndarray, np.generic)):
        x, y = np.asarray(a), np.asarray(b)
        assert x.dtype == y.dtype and x.shape == y.shape, f"{where}: {x.dtype}{x.shape} vs {y.dtype}{y.shape}"
        if rtol or atol:
            assert np.allclose(x.astype(np.float64), y.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True), (
                f"{where}: largest difference {np.nanmax(np.abs(x.astype(np.float64) - y.astype(np.float64)))}"
            )
        else:
            assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), f"{where}: values differ"
        return
    assert type(a) is type(b), f"{where}: {a!r} vs {b!r}"


def assert_pass_pair(before: str, expected: str, passes: str, entry: str | None = None) -> str:
    """`before` through `passes` is `expected` up to the names of bound
    variables (alpha-equality); returns the output."""
    from relay_text.ir.alpha import alpha_equal_module

    out = optimized(before, passes, entry=entry)
    got = check_source(Source("out.rly", out))
    want = check_source(Source("expected.rly", expected))
    assert got.module is not None and want.module is not None
    assert want.ok, [str(d) for d in want.diagnostics]
    assert alpha_equal_module(got.module, want.module), f"got:\n{out}\nexpected:\n{expected}"
    return out
