"""Shared fixtures and helpers for the test suite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
CORPUS = ROOT.parent / "shared" / "corpus"


def corpus_files() -> list[Path]:
    files = sorted(CORPUS.glob("*.rly"))
    assert files, f"the shared corpus is expected at {CORPUS}"
    return files


def sample_files() -> list[Path]:
    return sorted(SAMPLES.glob("*.rly"))


@pytest.fixture(autouse=True)
def _no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see plain text unless they ask for colour."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    if "RELAY_DEBUG" in os.environ:
        monkeypatch.delenv("RELAY_DEBUG")
