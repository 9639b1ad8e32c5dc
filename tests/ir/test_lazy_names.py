"""`relay_text.ir` names its parts three times: the imports a type checker
reads, the table its `__getattr__` loads from, and `__all__`. They must
agree, or a name would type-check and fail when read (or the reverse)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import relay_text.ir as ir

SOURCE = Path(ir.__file__).read_text()


def _checked_imports() -> dict[str, str]:
    """Name -> module of the imports under `if TYPE_CHECKING:`."""
    tree = ast.parse(SOURCE)
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
    )
    found: dict[str, str] = {}
    for stmt in block.body:
        assert isinstance(stmt, ast.ImportFrom) and stmt.level == 1 and stmt.module is not None
        for alias in stmt.names:
            found[alias.asname or alias.name] = stmt.module
    return found


def test_the_type_checkers_imports_are_the_lazy_table() -> None:
    assert _checked_imports() == ir._WHERE


def test_all_lists_exactly_the_lazy_names() -> None:
    assert sorted(ir.__all__) == sorted(ir._WHERE)
    assert len(ir.__all__) == len(set(ir.__all__))


@pytest.mark.parametrize("name", sorted(ir._WHERE))
def test_each_name_is_the_object_its_module_defines(name: str) -> None:
    module = importlib.import_module(f"relay_text.ir.{ir._WHERE[name]}")
    assert getattr(ir, name) is getattr(module, name)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError) as raised:
        ir.Nope  # noqa: B018
    assert str(raised.value) == "module 'relay_text.ir' has no attribute 'Nope'"
