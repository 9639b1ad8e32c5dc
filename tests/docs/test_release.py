"""The version is one: pyproject.toml, `relay_text.__version__` (what `relay
--version` prints) and the pre-commit `rev:` the documentation shows (the
release tag, `v` and the version) agree."""

from __future__ import annotations

import re
import sys

import relay_text
from tests.conftest import ROOT
from tests.docs.pages import DOCS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def test_one_version_everywhere() -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert relay_text.__version__ == version
    shown = re.findall(r"rev: (\S+)", (DOCS / "configuration.md").read_text(encoding="utf-8"))
    shown += re.findall(r"rev: (\S+)", (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    shown += re.findall(r"`rev: (\S+)`", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(shown) == 3 and set(shown) == {f"v{version}"}, shown
