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

# unit (a package or a top-level module of relay_text) -> the units it may import (besides itself).
# Every package and top-level module has a row: a new one without a row fails
# `test_every_package_and_module_has_a_row`.
ALLOWED = {
    "ir": {"text"},  # `str()` of nodes and types prints through `printer` lazily: see below
    "text": {"ir"},
    "diagnostics": {"ir"},
    "ops": {"ir", "text", "diagnostics", "limits", "compiled"},
    "check": {"ir", "text", "diagnostics", "ops", "limits"},
    "eval": {"ir", "text", "diagnostics", "ops", "passes", "limits", "compiled"},
    "passes": {
        "ir",
        "text",
        "diagnostics",
        "ops",
        "check",
        "syntax",
        "printer",
        "cli",
        "files",
        "formatter",
        "pipeline",
        "writing",
    },
    "syntax": {"ir", "text", "diagnostics", "limits", "cache"},
    "printer": {"ir", "text", "syntax"},
    "export": {"ir", "text", "diagnostics", "ops", "eval", "cli", "files", "limits", "pipeline", "suppress", "writing"},
    "frontends": {
        "ir",
        "text",
        "diagnostics",
        "ops",
        "check",
        "syntax",
        "printer",
        "cli",
        "formatter",
        "pipeline",
        "writing",
    },
    "summary": {"ir", "text", "diagnostics", "ops", "cli", "files", "pipeline"},
    "viz": {"ir", "text", "diagnostics", "ops", "check", "std", "summary", "cli", "writing"},
    "std": {"ir", "diagnostics", "check", "syntax"},
    "lsp": {"ir", "text", "diagnostics", "ops", "check", "syntax", "std", "viz"}
    | {"config", "files", "fixes", "formatter", "pipeline", "suppress"},
    # top-level modules: services first, then what chains the stages, then the front doors
    "interrupts": set(),
    "limits": set(),
    "compiled": set(),
    "record": set(),
    "cache": set(),
    "pygments": set(),
    "writing": {"interrupts"},
    "files": {"writing"},
    "discovery": {"files"},
    "config": {"limits", "text"},
    "fixes": {"ir", "diagnostics"},
    "suppress": {"ir", "text", "diagnostics"},
    "formatter": {"ir", "diagnostics", "syntax", "printer", "std", "files"},
    "pipeline": {"ir", "text", "diagnostics", "syntax", "check", "std", "eval", "viz", "suppress"},
    "onnx_backend": {"ir", "frontends"},
    "batch": {"ir", "diagnostics", "syntax", "std", "pipeline", "formatter"}
    | {"cache", "files", "fixes", "interrupts", "suppress", "writing"},
    "commands": {"text", "diagnostics", "batch", "cache", "config", "discovery", "files", "interrupts", "suppress"},
    "cli": {"ir", "text", "diagnostics", "eval", "export", "lsp", "pipeline", "batch", "commands"}
    | {"config", "discovery", "files", "interrupts", "limits", "suppress"},
    "run_command": {"ir", "text", "diagnostics", "eval", "export", "pipeline", "cli"}
    | {"config", "files", "limits", "suppress"},
    "explain_command": {"diagnostics", "text", "cli"},
    "__init__": {"ir", "diagnostics", "syntax", "check", "std", "eval", "pipeline", "formatter", "suppress"},
    "launch": {"commands", "cli"},
    "__main__": {"launch"},
}
# Below every unit: any may import these (relay_text/record.py makes the
# record classes of all of them, as `dataclasses` would).
EVERYWHERE = {"record"}
# `ir` nodes print themselves with the printer, imported when `str()` is called;
# a module draws itself in a notebook (`_repr_html_`) with `viz`; `check` still
# answers `check.check_text` (moved to the pipeline) for older callers.
LAZY_EXCEPTIONS = {("ir", "printer"), ("ir", "viz"), ("check", "pipeline")}
# Directories of relay_text that hold no Python (data shipped with the package).
DATA = {"schemas"}


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


def units() -> list[str]:
    """Every package (a directory with Python modules) and top-level module of relay_text."""
    out = {p.stem for p in PACKAGE.glob("*.py")}
    out |= {p.name for p in PACKAGE.iterdir() if p.is_dir() and any(p.rglob("*.py"))}
    return sorted(out)


def sources(unit: str) -> list[Path]:
    path = PACKAGE / unit
    return sorted(path.rglob("*.py")) if path.is_dir() else [path.with_suffix(".py")]


def test_every_package_and_module_has_a_row() -> None:
    """Catches a package or top-level module the layering table does not
    place: e.g. a new `relay_text/printer/` package (or `relay_text/cache.py`)
    without a row in `ALLOWED` would import anything unchecked; this names it."""
    assert [u for u in units() if u not in ALLOWED] == []
    assert sorted(set(ALLOWED) - set(units())) == [], "a row names a unit that no longer exists"
    assert [
        d.name for d in PACKAGE.iterdir() if d.is_dir() and d.name not in ALLOWED and d.name != "__pycache__"
    ] == sorted(DATA)


@pytest.mark.parametrize("unit", units())
def test_a_unit_imports_only_what_is_upstream(unit: str) -> None:
    """Catches an import against the table: e.g. `from ..cli import guarded`
    in relay_text/check/explain.py (the checker reaching up to the command
    line), or `from .pipeline import check_source` in relay_text/writing.py."""
    known = set(units())
    wrong = []
    for path in sources(unit):
        for imported, _ in imports_of(path):
            if imported == unit or imported not in known or imported in EVERYWHERE:
                continue  # `from .. import run` names a function of __init__, not a unit
            if imported not in ALLOWED.get(unit, set()) and (unit, imported) not in LAZY_EXCEPTIONS:
                wrong.append(f"{path.relative_to(PACKAGE)} imports {imported}")
    assert wrong == []


def test_checker_operators_and_evaluator_never_import_the_front_end() -> None:
    """The issue's rule, stated directly: no `syntax` from check, ops or eval."""
    for stage in ("check", "ops", "eval"):
        for path in (PACKAGE / stage).rglob("*.py"):
            assert "syntax" not in {i for i, _ in imports_of(path)}, path
