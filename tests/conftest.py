"""Shared fixtures and helpers for the test suite."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
CORPUS = ROOT.parent / "shared" / "corpus"


# `relay check` and `relay fmt` remember clean files between runs
# (relay_text/cache.py): tests see every run do its work, the commands they
# start included. tests/cli/test_cache.py turns it on where it tests it.
os.environ["RELAY_NO_CACHE"] = "1"

CORPUS_MISSING = (
    f"the shared corpus is not at {CORPUS}: it sits beside the repository (../shared/corpus) "
    "in the project's workspace and is not part of a plain clone"
)


# Hypothesis profiles. "ci" (the default) is derandomized: every run sees
# the same examples, so CI is reproducible. "nightly" draws fresh random
# examples, ten times as many, and keeps failures in .hypothesis/ to replay:
#     HYPOTHESIS_PROFILE=nightly python -m pytest tests/syntax tests/eval
# A property test asks for its CI count through `examples(n)`, which the
# profile scales.
BASE_EXAMPLES = 100
settings.register_profile(
    "ci",
    max_examples=BASE_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.register_profile(
    "nightly",
    max_examples=10 * BASE_EXAMPLES,
    derandomize=False,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def examples(n: int) -> int:
    """`n` examples under the "ci" profile, scaled to the loaded one."""
    return max(1, n * settings.default.max_examples // BASE_EXAMPLES)


def corpus_present() -> bool:
    return any(CORPUS.glob("*.rly"))


# For tests (or whole modules, as `pytestmark`) that need the corpus: they
# are skipped, with the reason above, where it is absent.
needs_corpus = pytest.mark.skipif(not corpus_present(), reason=CORPUS_MISSING)


def corpus_files() -> list[Path]:
    """The corpus files; none where the corpus is absent (a test that needs
    them is marked `needs_corpus`)."""
    return sorted(CORPUS.glob("*.rly"))


# Models whose runs take more than a few seconds and a gigabyte or more.
SLOW_MODELS = frozenset({"apache-tvm-menangerie-gpt2"})


def model_params(paths: list[Path]) -> list[Any]:
    """`paths` as parameters, the slow models marked slow (for tests that run them)."""
    return [pytest.param(p, marks=pytest.mark.slow) if p.stem in SLOW_MODELS else p for p in paths]


def sample_files() -> list[Path]:
    return sorted(SAMPLES.glob("*.rly"))


@pytest.fixture(autouse=True)
def _no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see plain text unless they ask for colour."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    if "RELAY_DEBUG" in os.environ:
        monkeypatch.delenv("RELAY_DEBUG")


# Slow tests (each more than about five seconds, or more than a gigabyte of
# memory) are marked `@pytest.mark.slow`. The default run leaves them out so
# that `python -m pytest` stays quick on a small machine; `--slow` runs them
# too, and CI runs them all. A slow test named on the command line
# (`pytest tests/eval/test_depth.py::test_long_let_chain_compiles_and_runs`)
# runs without `--slow`.
def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", help="also run the tests marked slow (CI does)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: takes more than a few seconds or a lot of memory; runs with --slow")


def _named_explicitly(item: pytest.Item, args: list[str]) -> bool:
    return any(
        "::" in arg and item.nodeid.startswith(arg.split("[")[0].replace(str(ROOT) + os.sep, "")) for arg in args
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--slow"):
        return
    args = [str(a) for a in config.args]
    keep, slow = [], []
    for item in items:
        if item.get_closest_marker("slow") and not _named_explicitly(item, args):
            slow.append(item)
        else:
            keep.append(item)
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = keep


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if not config.getoption("--slow"):
        terminalreporter.write_line(
            "tests marked slow were left out: `python -m pytest --slow` runs them too (CI does)"
        )


# A test process runs many heavy tests one after another (model runs,
# million-element lists, deep chains); freed memory stays with the process
# unless it is given back, and each heavy test would start from the last
# one's high-water mark. After a test that left the process holding 64 MiB
# more than after the last give-back, collect and return free memory to the
# system (reading the size is cheap; the collection runs rarely).
_HELD = [0]


@pytest.fixture(autouse=True)
def _give_back_memory() -> Any:
    yield
    from relay_text.eval.inplace import RELEASE_AFTER, give_back_memory
    from relay_text.limits import resident

    if resident() - _HELD[0] >= RELEASE_AFTER:
        give_back_memory()
        _HELD[0] = resident()
