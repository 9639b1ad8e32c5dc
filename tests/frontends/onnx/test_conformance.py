"""ONNX's own node conformance cases against relay_text.onnx_backend.

Every operator TVM's importer converted gets a test: by default it runs
the operator's first case; with --slow, all its cases (some 1,600). Cases
of other operators, and of dtypes Relay does not have, must end as a pass
or an `import-unsupported` diagnostic, never a crash (--slow). See
conformance.py for what must pass and the known exceptions.
"""

from __future__ import annotations

import pytest

from tests.frontends.onnx import conformance as C

pytest.importorskip("onnx", reason="the onnx package is not installed (pip install 'relay-text[onnx]')")


@pytest.fixture(scope="module", autouse=True)
def _cached_cases(request: pytest.FixtureRequest) -> None:
    cache = getattr(request.config, "cache", None)  # absent under `-p no:cacheprovider`
    if cache is not None:
        C.use_cache(cache.mkdir("onnx-node-cases"))


def _cases_of(op: str) -> list[str]:
    return [name for name, o in C.operators().items() if o == op]


def test_the_list_of_covered_operators_is_current() -> None:
    assert C.covered() == sorted(C.COVERED)


@pytest.mark.parametrize("op", C.COVERED)
def test_the_first_case_of_each_operator(op: str) -> None:
    (name,) = [name for name in C.representative() if C.operators()[name] == op]
    assert C.outcome(C.cases()[name]) == "pass", name


def test_the_list_of_random_cases_is_current() -> None:
    assert sorted(name for name, case in C.cases().items() if C.is_random(case)) == sorted(C.RANDOM_CASES)


@pytest.mark.parametrize("name", C.RANDOM_CASES)
def test_a_random_case_has_the_shape_dtype_and_range_and_is_exact_where_certain(name: str) -> None:
    """Bernoulli draws: 0 and 1 only, of the expected shape and dtype, and
    the reference's values where the probabilities are all 0 or all 1."""
    assert C.outcome(C.cases()[name]) == "random", name


@pytest.mark.slow
@pytest.mark.parametrize("op", C.COVERED)
def test_every_case_of_each_operator(op: str) -> None:
    names = [
        n
        for n in _cases_of(op)
        if C.must_pass(n) and n not in C.KNOWN and n not in C.KNOWN_UNSUPPORTED and n not in C.RANDOM_CASES
    ]
    wrong = {name: got for name in names if (got := C.outcome(C.cases()[name])) != "pass"}
    assert wrong == {}


@pytest.mark.slow
def test_the_known_exceptions_are_still_exceptions() -> None:
    """A known failure still fails (else it leaves the list); a known refusal
    is still refused, for the reason listed."""
    for name in C.KNOWN:
        assert C.outcome(C.cases()[name]).startswith("fail: "), name
    for name, reason in C.KNOWN_UNSUPPORTED.items():
        assert C.refusal(C.cases()[name]) == reason, name


@pytest.mark.slow
def test_the_other_cases_pass_or_are_refused() -> None:
    """Cases outside the must-pass set: a pass or an located refusal, never a crash."""
    crashed = {}
    for name, case in C.cases().items():
        if C.must_pass(name):
            continue
        got = C.outcome(case)
        if got not in ("pass", "random", "unsupported"):
            crashed[name] = got
    assert crashed == {}
