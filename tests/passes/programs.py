"""The programs every pass is run on: the samples and the corpus.

`check_samples(passes)` runs a pass list over every sample (each must give
a well-formed program that computes the same values); `check_model(path,
passes)` does it for one corpus file (a file without an entry point, such
as TVM's own Prelude, is only checked for well-formedness). Models that
take seconds are marked slow by `corpus_params`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS, SAMPLES, corpus_present
from tests.passes.helpers import assert_same_values, assert_well_formed, attempt

# Corpus models that take more than a few seconds to run twice.
HEAVY = frozenset(
    {
        "apache-tvm-menangerie-gpt2",
        "apache-tvm-menangerie-resnet50",
        "glenside-lstm-for-pldi",
        "calyx-squeezenet-anf",
        "glenside-mobilenet",
    }
)


def sample_paths() -> list[Path]:
    return sorted(SAMPLES.glob("*.rly"))


# The samples every pass runs on in the default run, chosen to cover the
# language: tensor graphs, lets, closures, references, recursion, data types
# and the Prelude, generic functions, relations, TVM's format with vision and
# memory-planning operators. tests/passes/test_all_samples.py runs every pass
# on every sample (slow).
CORE_SAMPLES = (
    "cse_graph",
    "graph_bindings",
    "let_binding",
    "let_recursion",
    "closure_capture",
    "rfc_blocks",
    "if_else",
    "tour",
    "list_folds",
    "nat",
    "polymorphism",
    "where_broadcast",
    "tuples",
    "rnn_encode",
    "detection_head",
    "vm_memory_plan",
)


def core_sample_paths() -> list[Path]:
    return [p for p in sample_paths() if p.stem in CORE_SAMPLES]


def corpus_params(heavy_too: bool = True) -> list[Any]:
    """The corpus files as parameters, the heavy models marked slow (none
    where the corpus is absent: the tests using them are `needs_corpus`)."""
    if not corpus_present():
        return []
    out = []
    for path in sorted(CORPUS.glob("*.rly")):
        if path.stem in HEAVY:
            if heavy_too:
                out.append(pytest.param(path, marks=pytest.mark.slow, id=path.stem))
        else:
            out.append(pytest.param(path, id=path.stem))
    return out


def has_entry(text: str) -> bool:
    from relay_text.ir.span import Source
    from relay_text.pipeline import check_source

    checked = check_source(Source("x", text))
    module = checked.module
    return module is not None and (module.expr is not None or module.global_var("main") is not None)


def check_program(
    path: Path, passes: str, rtol: float = 0.0, atol: float = 0.0, entry: str | None = None
) -> str | None:
    """None when `passes` give a well-formed program computing the same
    values as `path`; else what went wrong."""
    text = path.read_text(encoding="utf-8")
    result = attempt(text, passes, name=str(path), entry=entry)
    if not result.ok:
        return "; ".join(str(d) for d in result.diagnostics if d.is_error)
    assert result.text is not None
    try:
        assert_well_formed(result.text)
        if has_entry(text) or entry is not None:
            assert_same_values(text, result.text, rtol=rtol, atol=atol, entry=entry)
    except AssertionError as exc:
        return str(exc)[:2000]
    return None


def check_samples(
    passes: str, rtol: float = 0.0, atol: float = 0.0, skip: tuple[str, ...] = (), every: bool = False
) -> None:
    """The core samples (`every`: all of them) through `passes`."""
    problems = []
    for path in sample_paths() if every else core_sample_paths():
        if path.stem in skip:
            continue
        problem = check_program(path, passes, rtol, atol)
        if problem is not None:
            problems.append(f"{path.name}: {problem}")
    assert problems == []


def check_model(path: Path, passes: str, rtol: float = 0.0, atol: float = 0.0) -> None:
    problem = check_program(path, passes, rtol, atol)
    assert problem is None, problem
