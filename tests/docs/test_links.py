"""Every relative link of README.md and the documentation site leads
somewhere: to a file that exists and, with a `#fragment`, to a heading of
that page. (`mkdocs build --strict`, in test_site.py, checks the site's
own links too, where MkDocs is installed; this test needs nothing.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.docs.pages import DOCS, README, anchors, nav_pages, pages, prose, slug, text

_CODE_SPAN = re.compile(r"`+[^`]*`+")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")


def links(path: Path) -> list[tuple[int, str]]:
    found = []
    for number, line in prose(text(path)):
        for match in _LINK.finditer(_CODE_SPAN.sub("", line)):
            found.append((number, match.group(1)))
    return found


def broken(path: Path, root: Path = ROOT) -> list[str]:
    problems = []
    for number, target in links(path):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file, _, fragment = target.partition("#")
        where = (path.parent / file).resolve() if file else path
        if not where.exists():
            problems.append(f"{path.relative_to(root)}:{number}: {target}: no file {file}")
        elif fragment and where.suffix == ".md" and fragment not in anchors(where):
            problems.append(
                f"{path.relative_to(root)}:{number}: {target}: no heading #{fragment} in {file or path.name}"
            )
    return problems


@pytest.mark.parametrize("path", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading(path: Path) -> None:
    assert broken(path) == []


def test_the_link_check_finds_broken_links(tmp_path: Path) -> None:
    """The check itself: a missing file and a missing heading are found, code is not read as links."""
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n\n## `relay check`\n")
    page.write_text(
        "# Page\n\n[ok](other.md#relay-check) [self](#page) [web](https://example.org/x)\n"
        "[gone](missing.md) [no anchor](other.md#nowhere)\n\n"
        "```\n[in code](missing.md)\n```\n\n`[span](missing.md)`\n"
    )
    assert [problem.split(": ", 1)[1] for problem in broken(page, tmp_path)] == [
        "missing.md: no file missing.md",
        "other.md#nowhere: no heading #nowhere in other.md",
    ]


def test_slugs_follow_python_markdown() -> None:
    assert slug("`relay check`") == "relay-check"
    assert slug("TVM's format, form by form") == "tvms-format-form-by-form"
    assert slug("Documentation: Sphinx and MkDocs") == "documentation-sphinx-and-mkdocs"
    assert slug("`syntax-error`") == "syntax-error"


def test_every_page_is_in_the_sites_navigation() -> None:
    """A page missing from `nav` in mkdocs.yml is built but hard to find."""
    listed = set(nav_pages())
    missing = [str(p.relative_to(DOCS)) for p in pages() if p != README and str(p.relative_to(DOCS)) not in listed]
    assert missing == [], f"add these pages to `nav` in mkdocs.yml: {missing}"
    assert all((DOCS / page).is_file() for page in listed)


def test_readme_links_into_every_command_page() -> None:
    """The README's tour names each command with a link to its page."""
    readme = README.read_text(encoding="utf-8")
    commands = sorted(p.stem for p in (DOCS / "commands").glob("*.md"))
    assert commands == ["check", "explain", "export", "fmt", "import", "lsp", "opt", "run", "summary", "viz"]
    for command in commands:
        assert f"(docs/commands/{command}.md)" in readme, command
