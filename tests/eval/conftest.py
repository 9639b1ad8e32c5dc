"""Helpers for evaluator tests."""

from __future__ import annotations

import pytest

from relay_text.eval.ops import registry_available

# Tests that evaluate operators need the operator registry's kernels.
needs_ops = pytest.mark.skipif(not registry_available(), reason="the operator registry (relay_text.ops) is not installed")
