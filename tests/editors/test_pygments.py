"""The Pygments lexer (`relay_text.pygments.RelayLexer`).

Every sample, corpus file and construct file lexes without an `Error`
token; one small file has a golden token stream (regenerate with
RELAY_UPDATE_GOLDEN=1 after reviewing the difference); the lexer is
registered under the `pygments.lexers` entry point.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygments", reason="the lexer needs pygments: pip install -e '.[pygments]' (the test extra has it)")

from pygments.token import Error, Whitespace

from relay_text.pygments import RelayLexer

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CORPUS = ROOT.parent / "shared" / "corpus"
UPDATE = bool(os.environ.get("RELAY_UPDATE_GOLDEN"))


def files() -> list[Path]:
    found = sorted((ROOT / "samples").rglob("*.rly")) + sorted(HERE.glob("*.rly"))
    if CORPUS.is_dir():
        found += sorted(CORPUS.glob("*.rly"))
    return found


@pytest.mark.parametrize("path", files(), ids=lambda p: p.name)
def test_no_error_tokens(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    tokens = list(RelayLexer().get_tokens(text))
    errors = [value for kind, value in tokens if kind in Error]
    assert errors == []
    assert "".join(value for _, value in tokens) == text if text.endswith("\n") else text + "\n"


def test_corpus_is_present_or_skipped() -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"the shared corpus is not at {CORPUS}")
    assert len([p for p in files() if p.parent == CORPUS]) == len(list(CORPUS.glob("*.rly")))


def token_stream(path: Path) -> str:
    lines = []
    for kind, value in RelayLexer().get_tokens(path.read_text(encoding="utf-8")):
        if kind in Whitespace or not value.strip():
            continue
        lines.append(f"{str(kind).removeprefix('Token.')}\t{value!r}")
    return "\n".join(lines) + "\n"


def test_golden_token_stream() -> None:
    path = ROOT / "samples" / "list_sum.rly"
    golden = HERE / "golden" / "list_sum.pygments"
    stream = token_stream(path)
    if UPDATE:
        golden.write_text(stream, encoding="utf-8")
    assert golden.exists(), f"no golden file {golden.name}; run with RELAY_UPDATE_GOLDEN=1"
    assert stream == golden.read_text(encoding="utf-8")


def test_metadata_json_and_nested_comments() -> None:
    text = '#[version = "0.0.5"]\n/* a /* b */ c */ def @f() { 1f }\n#[metadata]\n{"root": 1}\n'
    kinds = [(str(k), v) for k, v in RelayLexer().get_tokens(text) if v.strip()]
    assert kinds[:5] == [
        ("Token.Comment.Preproc", "#["),
        ("Token.Comment.Preproc", "version"),
        ("Token.Operator", "="),
        ("Token.Literal.String.Double", '"0.0.5"'),
        ("Token.Comment.Preproc", "]"),
    ]
    comment = "".join(v for k, v in RelayLexer().get_tokens(text) if "Comment.Multiline" in str(k))
    assert comment == "/* a /* b */ c */"
    assert ("Token.Name.Tag", '"root"') in kinds  # Pygments' JSON lexer took over


def test_pyproject_registers_the_entry_point() -> None:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        pytest.skip("tomllib is Python 3.11+")
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert data["project"]["entry-points"]["pygments.lexers"] == {"relay": "relay_text.pygments:RelayLexer"}
    assert "pygments>=2.15" in data["project"]["optional-dependencies"]["pygments"]


def _registered() -> bool:
    from importlib.metadata import entry_points

    return any(ep.name == "relay" for ep in entry_points(group="pygments.lexers"))


@pytest.mark.skipif(
    not _registered(), reason="the installed relay-text predates the entry point: pip install -e '.[pygments]'"
)
def test_pygmentize_finds_the_lexer() -> None:
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename

    assert isinstance(get_lexer_by_name("relay"), RelayLexer)
    assert get_lexer_for_filename("model.relay").name == "Relay"
    pygmentize = shutil.which("pygmentize", path=os.path.dirname(sys.executable)) or shutil.which("pygmentize")
    if pygmentize is None:
        pytest.skip("pygmentize is not on the PATH")
    done = subprocess.run(
        [pygmentize, "-l", "relay", "-f", "raw", str(ROOT / "samples" / "list_sum.rly")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Token.Name.Function\t'@list_sum'" in done.stdout
