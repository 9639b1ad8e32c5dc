"""The stages import only what is upstream of them (docs/architecture.md).

Every `import` in the package (at any depth: lazy imports count) is read
from the source; a stage may use `ir`, `text`, `diagnostics` and the stages
listed for it, never one downstream or the front end (`syntax`) from the
checker, the operators or the evaluator."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "relay_text"

# stage -> the stages of relay_text it may import (besides itself)
ALLOWED = {
    "ir": {"text"},  # `str()` of nodes and types prints through `printer` lazily: see below
    "text": {"ir"},
    "diagnostics": {"ir"},
    "ops": {"ir", "text", "diagnostics"},
    "check": {"ir", "text", "diagnostics", "ops"},
    "eval": {"ir", "text", "diagnostics", "ops", "passes"},
    "passes": {"ir", "text", "diagnostics", "ops", "check", "syntax", "printer"},
    "syntax": {"ir", "text", "diagnostics"},
    "printer": {"ir", "text", "syntax"},
    "export": {"ir", "text", "diagnostics", "ops", "eval"},
    "frontends": {"ir", "text", "diagnostics", "ops", "check", "syntax", "printer"},
    "summary": {"ir", "text", "diagnostics", "ops"},
    "viz": {"ir", "text", "diagnostics", "ops", "check", "std", "summary"},
}
# `ir` nodes print themselves with the printer, imported when `str()` is called;
# a module draws itself in a notebook (`_repr_html_`) with `viz`.
LAZY_EXCEPTIONS = {("ir", "printer"), ("ir", "viz")}


def imports_of(path: Path) -> set[tuple[str, bool]]:
    """(stage imported, at module level?) for every relative or absolute import of relay_text."""
    tree = ast.parse(path.read_text())
    top = {id(node) for node in tree.body}
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = path.relative_to(PACKAGE).parts[: -node.level]
                base = list(parts) + (node.module.split(".") if node.module else [])
            elif node.module and node.module.startswith("relay_text."):
                base = node.module.split(".")[1:]
            else:
                continue
            if base:
                out.add((base[0], id(node) in top))
            else:  # `from .. import pipeline`
                out.update((alias.name, id(node) in top) for alias in node.names)
    return out


def stages() -> list[str]:
    return sorted(ALLOWED)


@pytest.mark.parametrize("stage", stages())
def test_a_stage_imports_only_what_is_upstream(stage: str) -> None:
    wrong = []
    for path in sorted((PACKAGE / stage).rglob("*.py")):
        for imported, _ in imports_of(path):
            if imported == stage or imported.endswith(".py") or not (PACKAGE / imported).is_dir():
                continue
            if imported not in ALLOWED[stage] and (stage, imported) not in LAZY_EXCEPTIONS:
                wrong.append(f"{path.relative_to(PACKAGE)} imports {imported}")
    assert wrong == []


def test_checker_operators_and_evaluator_never_import_the_front_end() -> None:
    """The issue's rule, stated directly: no `syntax` from check, ops or eval."""
    for stage in ("check", "ops", "eval"):
        for path in (PACKAGE / stage).rglob("*.py"):
            assert "syntax" not in {i for i, _ in imports_of(path)}, path
