"""Shared fixtures and helpers for the test suite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
CORPUS = ROOT.parent / "shared" / "corpus"


CORPUS_MISSING = (
    f"the shared corpus is not at {CORPUS}: it sits beside the repository (../shared/corpus) "
    "in the project's workspace and is not part of a plain clone"
)


def corpus_present() -> bool:
    return any(CORPUS.glob("*.rly"))


# For tests (or whole modules, as `pytestmark`) that need the corpus: they
# are skipped, with the reason above, where it is absent.
needs_corpus = pytest.mark.skipif(not corpus_present(), reason=CORPUS_MISSING)


def corpus_files() -> list[Path]:
    """The corpus files; none where the corpus is absent (a test that needs
    them is marked `needs_corpus`)."""
    return sorted(CORPUS.glob("*.rly"))


def sample_files() -> list[Path]:
    return sorted(SAMPLES.glob("*.rly"))


@pytest.fixture(autouse=True)
def _no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see plain text unless they ask for colour."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    if "RELAY_DEBUG" in os.environ:
        monkeypatch.delenv("RELAY_DEBUG")
