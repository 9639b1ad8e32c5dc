"""Every registered operator is tested against a reference: either in the
PyTorch table of `test_against_torch.py` or by the test module of its family
(`tests/ops/<group>/test_<module>.py`, see `tests/ops/family.py`)."""

from __future__ import annotations

import importlib
import pkgutil

import tests.ops
from relay_text.ops import names
from tests.ops.family import Family


def families() -> dict[str, Family]:
    """The `FAMILY` of every test module under tests/ops, by module name
    (`tests.ops.nn.test_pool`)."""
    out: dict[str, Family] = {}
    for info in pkgutil.walk_packages(tests.ops.__path__, "tests.ops."):
        if info.name.rpartition(".")[2].startswith("test_"):
            family = getattr(importlib.import_module(info.name), "FAMILY", None)
            if isinstance(family, Family):
                out[info.name] = family
    return out


def family_operators() -> set[str]:
    """The operators named by the `FAMILY` of every test module in tests/ops."""
    return {name for family in families().values() for name in family.names}


def test_every_operator_is_tested_against_a_reference() -> None:
    """Catches an operator registered without a test of its own: e.g.
    `nn.hardswish` added to ops/nn/activations.py, with neither a row in
    test_against_torch.py's CASES nor a place in the `FAMILY` of
    tests/ops/nn/test_<module>.py, fails here naming it."""
    from tests.ops.test_against_torch import CASES

    covered = {op for op, _, _ in CASES} | family_operators()
    assert sorted(set(names()) - covered) == []
