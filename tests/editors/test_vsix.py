"""The VS Code extension packages as a .vsix (`npm run package` in
editors/vscode, which runs `@vscode/vsce package` through npx).

Slow (npx fetches vsce the first time); needs node, npx and the
extension's npm packages (`npm ci --prefix editors/vscode`), skipped,
saying so, without them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "editors" / "vscode"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("npm") is None or shutil.which("npx") is None,
        reason="npm is not installed (the .vsix is built with npx @vscode/vsce)",
    ),
    pytest.mark.skipif(
        not (EXTENSION / "node_modules" / "vscode-languageclient").is_dir(),
        reason="the extension's npm packages are not installed: run `npm ci --prefix editors/vscode`",
    ),
]


def test_the_extension_packages(tmp_path: Path) -> None:
    out = tmp_path / "relay-text.vsix"
    done = subprocess.run(
        ["npm", "run", "package", "--", "--out", str(out)], cwd=EXTENSION, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (EXTENSION / "LICENSE").exists()  # copied in for the package only
    with zipfile.ZipFile(out) as vsix:
        names = set(vsix.namelist())
        manifest = json.loads(vsix.read("extension/package.json"))
        readme = vsix.read("extension/readme.md").decode()
    for name in (
        "extension/extension.js",
        "extension/syntaxes/relay.tmLanguage.json",
        "extension/language-configuration.json",
        "extension/LICENSE.txt",
        "extension/node_modules/vscode-languageclient/package.json",
    ):
        assert name in names, name
    # neither the tests nor the development packages
    assert not [
        n
        for n in names
        if n.startswith(
            ("extension/test/", "extension/node_modules/vscode-textmate/", "extension/node_modules/vscode-oniguruma/")
        )
    ]
    assert "extension/package.js" not in names
    assert manifest["contributes"]["grammars"][0]["path"] == "./syntaxes/relay.tmLanguage.json"
    assert manifest["contributes"]["languages"][0]["extensions"] == [".rly", ".relay"]
    assert "pip install 'relay-text[lsp]'" in readme
