"""The documentation site builds with `mkdocs build --strict` (a broken link
or anchor, a missing page or a bad setting fails it), and its diagnostics
reference is written from the code registry. The build is slow (CI runs
it, `--slow`); tests/docs/test_links.py checks the links without MkDocs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from relay_text.diagnostics.codes import REGISTRY
from tests.conftest import ROOT
from tests.docs.pages import DOCS, hook


@pytest.mark.slow  # about 4 s on an idle 2-core machine, more when it is shared
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="MkDocs is not installed (pip install -e '.[docs]')")
    pytest.importorskip("material", reason="the Material theme is not installed (pip install -e '.[docs]')")
    site = tmp_path / "site"
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=os.environ | {"NO_MKDOCS_2_WARNING": "1", "NO_COLOR": "1"},
    )
    assert build.returncode == 0, build.stderr
    assert "WARNING" not in build.stderr, build.stderr
    page = (site / "diagnostics" / "index.html").read_text(encoding="utf-8")
    for name in REGISTRY:
        assert f'id="{name}"' in page, name
    # Code blocks marked `relay` are highlighted by the project's lexer.
    tutorial = (site / "getting-started" / "index.html").read_text(encoding="utf-8")
    assert '<span class="nv">%n</span>' in tutorial
    assert (site / "viz-resnet50.png").is_file() and not (site / "hooks").exists()


def test_the_reference_has_every_code_with_its_texts() -> None:
    reference = hook().reference()
    for name, code in REGISTRY.items():
        section = reference[reference.index(f"## `{name}`\n") :]
        section = section[: section.find("\n## ", 1) if "\n## " in section[1:] else len(section)]
        assert f"*{code.severity}*: {code.summary}" in section
        assert code.explanation in section
        if code.example:
            assert f"\n{code.example}\n" in section
    assert reference.count("\n## `") == len(REGISTRY)


def test_the_diagnostics_page_keeps_its_marker() -> None:
    module = hook()
    assert (DOCS / "diagnostics.md").read_text(encoding="utf-8").count(module.MARKER) == 1
