"""Every registered operator is tested against a reference: either in the
PyTorch table of `test_against_torch.py` or by the test module of its family
(`tests/ops/test_<family>.py`, see `tests/ops/family.py`)."""

from __future__ import annotations

import importlib
import pkgutil

import tests.ops
from relay_text.ops import names
from tests.ops.family import Family


def family_operators() -> set[str]:
    """The operators named by the `FAMILY` of every test module in tests/ops."""
    out: set[str] = set()
    for info in pkgutil.iter_modules(tests.ops.__path__):
        if info.name.startswith("test_"):
            module = importlib.import_module(f"tests.ops.{info.name}")
            family = getattr(module, "FAMILY", None)
            if isinstance(family, Family):
                out |= family.names
    return out


def test_every_operator_is_tested_against_a_reference() -> None:
    from tests.ops.test_against_torch import CASES

    covered = {op for op, _, _ in CASES} | family_operators()
    assert sorted(set(names()) - covered) == []
