"""The index of operator name -> family module (`relay_text/ops/_index.py`)
is current, and looking an operator up imports only its family."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from relay_text.ops import registry
from relay_text.ops._index import INDEX

ROOT = Path(__file__).resolve().parents[2]


def test_index_is_current() -> None:
    """Catches an operator added, renamed or moved without regenerating the
    index: e.g. `@register("nn.hardswish", ...)` added to `ops/nn/activations.py`
    leaves `_index.py` without `'nn.hardswish': 'nn.activations'`."""
    expected = registry.index_text()
    actual = (ROOT / "relay_text" / "ops" / "_index.py").read_text(encoding="utf-8")
    assert actual == expected, "relay_text/ops/_index.py is stale: run `python -m relay_text.ops`"


def test_index_names_every_operator_and_its_family() -> None:
    assert sorted(INDEX) == registry.names()
    for name, family in INDEX.items():
        assert family in registry.families(), (name, family)
        assert registry.get(name) is not None


def _imported_families(code: str) -> list[str]:
    probe = (
        "import sys\n" + code + "\n"
        "from relay_text.ops import registry\n"
        "print(sorted(set(registry.families()) & {m[len('relay_text.ops.'):] for m in sys.modules}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120
    )
    return eval(out.stdout.strip())


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork to import each family into a fresh registry")
def test_importing_the_family_the_index_names_registers_the_operator() -> None:
    """The index names the module whose body registers each operator, even
    through a helper of another family: with `acos` indexed under
    `elementwise` (whose `unary_math` `trig` calls), `get("acos")` imported
    `elementwise`, found nothing and loaded all ~75 families."""
    probe = (
        "import importlib, os, sys\n"
        "from relay_text.ops import registry\n"
        "from relay_text.ops._index import INDEX\n"
        "bad = []\n"
        "for family in registry.families():\n"
        "    r, w = os.pipe()\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        importlib.import_module('relay_text.ops.' + family)\n"
        "        missing = [n for n, f in INDEX.items() if f == family and n not in registry._OPS]\n"
        "        os.write(w, repr(missing).encode()); os._exit(0)\n"
        "    os.close(w)\n"
        "    with os.fdopen(r) as f: missing = f.read()\n"
        "    os.waitpid(pid, 0)\n"
        "    if missing != '[]': bad.append((family, missing))\n"
        "print(bad)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True, timeout=300
    )
    assert out.stdout.strip() == "[]", out.stdout


def test_every_family_registers_an_operator() -> None:
    """A module of `relay_text/ops/` that registers nothing is a helper and is
    named `_like_this`: e.g. `ops/nn/conv_util.py` holding only padding
    helpers would be imported by `relay check` for every unknown name."""
    assert sorted(set(registry.families()) - set(INDEX.values())) == []


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
    assert INDEX["add"] in loaded
    assert len(loaded) < len(registry.families()) // 2, loaded
