"""A `relay lsp` subprocess per test module, driven by tests/lsp/client.py."""

from __future__ import annotations

import pytest

pytest.importorskip("pygls", reason="relay lsp needs pygls: pip install -e '.[lsp]' (the test extra has it)")

from .client import LspClient


@pytest.fixture(scope="module")
def client():
    c = LspClient()
    c.initialize()
    yield c
    c.kill()
