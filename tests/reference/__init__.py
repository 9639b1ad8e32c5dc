"""Independent implementations of the operators, for comparing numerics.

`torch_ops` runs every operator on PyTorch (CPU), installed by the optional
`reference` extra (`pip install -e ".[test,reference]"`). Tests that need it
call `torch_reference()`, which skips them, with the reason, when PyTorch is
absent; the small hand-computed references in tests/ops always run.
"""

from __future__ import annotations

from types import ModuleType

SKIP_REASON = 'PyTorch is not installed (pip install -e ".[test,reference]")'


def torch_reference() -> ModuleType:
    """The PyTorch reference module, or skip the calling test."""
    import pytest

    pytest.importorskip("torch", reason=SKIP_REASON)
    from . import torch_ops

    return torch_ops
