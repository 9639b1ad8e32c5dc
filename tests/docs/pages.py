"""The documentation's files, as the tests of tests/docs read them."""

from __future__ import annotations

import importlib.util
import re
import unicodedata
from pathlib import Path
from types import ModuleType

from tests.conftest import ROOT

DOCS = ROOT / "docs"
README = ROOT / "README.md"
MKDOCS_YML = ROOT / "mkdocs.yml"
HOOK = DOCS / "hooks" / "diagnostics_page.py"

_FENCE = re.compile(r"^(```|~~~)")


def pages() -> list[Path]:
    """README.md and every Markdown page of the site."""
    return [README, *sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.relative_to(DOCS).parts)]


def hook() -> ModuleType:
    """docs/hooks/diagnostics_page.py, the MkDocs hook that writes the codes' reference."""
    spec = importlib.util.spec_from_file_location("diagnostics_page", HOOK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def text(path: Path) -> str:
    """A page's Markdown as the site builds it (the diagnostics page with its generated part)."""
    source = path.read_text(encoding="utf-8")
    if path == DOCS / "diagnostics.md":
        module = hook()
        source = source.replace(module.MARKER, module.reference())
    return source


def prose(markdown: str) -> list[tuple[int, str]]:
    """The lines outside fenced and indented code blocks, numbered from 1."""
    out, fenced, previous_blank = [], False, True
    for number, line in enumerate(markdown.split("\n"), 1):
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        indented = line.startswith("    ") and previous_blank
        if not fenced and not indented:
            out.append((number, line))
        previous_blank = (not line.strip()) or (indented and previous_blank)
    return out


def slug(heading: str) -> str:
    """The anchor of a heading, as Python-Markdown's `toc` extension (MkDocs) makes it."""
    value = re.sub(r"[`*]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading)
    value = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(r"[-\s]+", "-", value)


def anchors(path: Path) -> set[str]:
    return {slug(line.lstrip("#").strip()) for _, line in prose(text(path)) if re.match(r"#{1,6} ", line)}


def nav_pages() -> list[str]:
    """The pages mkdocs.yml's `nav` names, relative to docs/."""
    return re.findall(r":\s*(\S+\.md)\s*$", MKDOCS_YML.read_text(encoding="utf-8"), re.M)
