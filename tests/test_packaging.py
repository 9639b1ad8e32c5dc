"""What ships beside the code: the license, the pre-commit hooks."""

from __future__ import annotations

import re

from tests.conftest import ROOT


def test_the_license_is_the_apache_license_2_0() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert text.lstrip().startswith("Apache License\n                           Version 2.0, January 2004")
    assert "END OF TERMS AND CONDITIONS" in text and "APPENDIX: How to apply the Apache License to your work." in text
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'license = "Apache-2.0"' in pyproject and 'license-files = ["LICENSE"]' in pyproject


def test_pre_commit_hooks() -> None:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    hooks = {}
    for block in re.split(r"^- ", text, flags=re.M)[1:]:
        fields = dict(
            re.findall(r"^\s*(\w+): (.*)$", "id: " + block.split("\n", 1)[0].split(": ", 1)[1] + "\n" + block, re.M)
        )
        hooks[fields["id"]] = fields
    assert sorted(hooks) == ["relay-check", "relay-fmt"]
    assert (
        hooks["relay-fmt"]["entry"] == "relay fmt --force-exclude"
    )  # the project's exclude patterns hold for the files pre-commit names
    assert hooks["relay-check"]["entry"] == "relay check --force-exclude"
    for hook in hooks.values():
        assert hook["language"] == "python"
        files = re.compile(hook["files"])
        assert files.search("models/resnet.rly") and files.search("a/b.relay")
        assert not files.search("notes.rly.txt") and not files.search("main.rs")
