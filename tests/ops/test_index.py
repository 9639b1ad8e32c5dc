"""The index of operator name -> family module (`relay_text/ops/_index.py`)
is current, and looking an operator up imports only its family."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from relay_text.ops import registry
from relay_text.ops._index import INDEX

ROOT = Path(__file__).resolve().parents[2]


def test_index_is_current() -> None:
    expected = registry.index_text()
    actual = (ROOT / "relay_text" / "ops" / "_index.py").read_text(encoding="utf-8")
    assert actual == expected, "relay_text/ops/_index.py is stale: run `python -m relay_text.ops.registry`"


def test_index_names_every_operator_and_its_family() -> None:
    assert sorted(INDEX) == registry.names()
    for name, family in INDEX.items():
        assert family in registry.families(), (name, family)
        assert registry.get(name) is not None


def _imported_families(code: str) -> list[str]:
    probe = (
        "import sys\n" + code + "\n"
        "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('relay_text.ops.') "
        "and not m.rsplit('.', 1)[1].startswith('_') and m.rsplit('.', 1)[1] not in ('registry', 'relation', 'relations', 'properties')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120)
    return eval(out.stdout.strip())  # noqa: S307 - a list literal printed by the probe


def test_get_imports_only_the_family_of_the_operator() -> None:
    loaded = _imported_families("from relay_text.ops import registry\nassert registry.get('nn.conv2d') is not None")
    assert INDEX["nn.conv2d"] in loaded
    assert len(loaded) < len(registry.families()) // 2, loaded


def test_unknown_name_loads_every_family() -> None:
    loaded = _imported_families("from relay_text.ops import registry\nassert registry.get('no.such_op') is None")
    assert loaded == registry.families()


def test_checking_a_small_file_imports_few_families() -> None:
    code = (
        "from relay_text.pipeline import check_source\n"
        "from relay_text.ir.span import Source\n"
        "assert check_source(Source('x', 'def @main(%x: int32) { add(%x, 1) }')).errors == 0"
    )
    loaded = _imported_families(code)
    assert "elementwise" in loaded
    assert len(loaded) < len(registry.families()) // 2, loaded
