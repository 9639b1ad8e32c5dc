"""docs/architecture.md's table of stages says what
tests/architecture/test_imports.py enforces: the same stages, each allowed
the same imports, and one row per stage."""

from __future__ import annotations

import re

from tests.architecture.test_imports import ALLOWED
from tests.docs.pages import DOCS


def table() -> list[tuple[str, set[str]]]:
    rows = []
    for line in (DOCS / "architecture.md").read_text(encoding="utf-8").splitlines():
        match = re.match(r"\| `(\w+)/` \|.*\| ([^|]*) \|$", line)
        if match:
            rows.append((match.group(1), set(re.findall(r"`(\w+)`", match.group(2)))))
    return rows


def test_the_table_of_stages_is_the_enforced_one() -> None:
    rows = table()
    stages = [stage for stage, _ in rows]
    assert len(stages) == len(set(stages)), f"a stage has two rows: {stages}"
    # the Prelude, the language server and the top-level modules share the row "anything"
    assert dict(rows) == {unit: allowed for unit, allowed in ALLOWED.items() if unit in stages}
    assert sorted(set(ALLOWED) - set(stages)) == sorted(
        unit for unit in ALLOWED if unit in ("std", "lsp") or (DOCS.parent / "relay_text" / f"{unit}.py").exists()
    )
