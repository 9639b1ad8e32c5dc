"""The VS Code extension's TextMate grammar, run by vscode-textmate in node.

Needs node and the extension's npm packages (`npm ci --prefix
editors/vscode`); skipped, saying so, without them. Every sample, every
corpus file and the two construct files must tokenize with every non-blank
piece of text scoped (more than `source.relay`) and nothing `invalid.*`;
two files have golden scope lists (regenerate with RELAY_UPDATE_GOLDEN=1
after reviewing the difference).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "editors" / "vscode"
TOKENIZE = EXTENSION / "test" / "tokenize.js"
HERE = Path(__file__).resolve().parent
CORPUS = ROOT.parent / "shared" / "corpus"
UPDATE = bool(os.environ.get("RELAY_UPDATE_GOLDEN"))

NODE = shutil.which("node")
pytestmark = [
    pytest.mark.skipif(
        NODE is None, reason="node is not installed (the TextMate grammar is tested with vscode-textmate)"
    ),
    pytest.mark.skipif(
        not (EXTENSION / "node_modules" / "vscode-textmate").is_dir(),
        reason="the extension's npm packages are not installed: run `npm ci --prefix editors/vscode`",
    ),
]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([NODE, str(TOKENIZE), *args], capture_output=True, text=True, timeout=300, cwd=EXTENSION)  # type: ignore[list-item]


def check(*paths: Path) -> dict:
    done = run("--check", *map(str, paths))
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def test_samples_and_construct_files_are_fully_scoped() -> None:
    result = check(ROOT / "samples", HERE)
    assert result["files"] >= 40
    assert result["problems"] == []


def test_corpus_files_are_fully_scoped() -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"the shared corpus is not at {CORPUS}")
    result = check(CORPUS)
    assert result["files"] == len(list(CORPUS.glob("*.rly")))
    assert result["problems"] == []


def test_unscoped_and_invalid_text_is_reported(tmp_path: Path) -> None:
    bad = tmp_path / "bad.rly"
    bad.write_text("def @main() { 1 $ 2 }\n#[frobnicate]\n", encoding="utf-8")
    problems = check(bad)["problems"]
    assert [(p["line"], p["column"], p["text"]) for p in problems] == [(1, 17, "$"), (2, 1, "#[frobnicate]")]


@pytest.mark.parametrize(
    "path", [ROOT / "samples" / "list_sum.rly", HERE / "constructs.rly"], ids=["list_sum", "constructs"]
)
def test_golden_scopes(path: Path) -> None:
    done = run("--dump", str(path))
    assert done.returncode == 0, done.stderr
    golden = HERE / "golden" / (path.stem + ".scopes")
    if UPDATE:
        golden.write_text(done.stdout, encoding="utf-8")
    assert golden.exists(), f"no golden file {golden.name}; run with RELAY_UPDATE_GOLDEN=1"
    assert done.stdout == golden.read_text(encoding="utf-8")
