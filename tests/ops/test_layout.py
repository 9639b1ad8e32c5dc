"""The tests of the operators are laid out like the operators: the test
module of a family lives in `tests/ops/<group>/`, beside the operators'
group `relay_text/ops/<group>/` (`nn`, `tensor`, `qnn`, ...), and covers
operators of that group only. Tests of every operator at once (the
PyTorch table, the relation and kernel tables, the consistency draws) stay
at the top of `tests/ops/`."""

from __future__ import annotations

from pathlib import Path

from relay_text.ops._index import INDEX
from tests.ops.test_coverage import families

ROOT = Path(__file__).resolve().parents[2]
OPS = ROOT / "relay_text" / "ops"
TESTS = ROOT / "tests" / "ops"


def _groups(base: Path) -> set[str]:
    return {p.parent.name for p in base.glob("*/__init__.py")}


def test_the_test_groups_are_the_operator_groups() -> None:
    """Catches a group of operators without its test directory, or a test
    directory no group has: e.g. `relay_text/ops/contrib/` added with its
    tests left in `tests/ops/test_contrib.py`, or `tests/ops/vison/`."""
    assert sorted(_groups(TESTS)) == sorted(_groups(OPS))


def test_a_family_test_covers_operators_of_its_own_group() -> None:
    """Catches a test module filed under the wrong group: e.g.
    `tests/ops/tensor/test_sort.py` with `FAMILY = Family("sort", ...)`,
    whose operators `relay_text/ops/algorithm/sort.py` registers."""
    wrong = {}
    for module, family in families().items():
        parts = module.split(".")  # tests.ops.<group>.test_<name>
        assert len(parts) == 4, f"{module}: a family's tests live in tests/ops/<group>/, not at the top"
        group = parts[2]
        elsewhere = sorted(n for n in family.names if INDEX[n].split(".")[0] != group)
        if elsewhere:
            wrong[module] = elsewhere
    assert wrong == {}


def test_a_test_named_for_a_module_tests_that_module() -> None:
    """`tests/ops/<group>/test_<module>.py` covers operators of
    `relay_text/ops/<group>/<module>.py`: e.g. `tests/ops/nn/test_pool.py`
    naming only `nn.max_pool3d` (of `pool1d3d`) would claim a module it does
    not test."""
    wrong = {}
    for module, family in families().items():
        _, _, group, name = module.split(".")
        target = f"{group}.{name.removeprefix('test_')}"
        if (OPS / group / f"{name.removeprefix('test_')}.py").is_file() and target not in {
            INDEX[n] for n in family.names
        }:
            wrong[module] = target
    assert wrong == {}
