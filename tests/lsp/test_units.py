"""The plain-Python parts of the language server: positions and tokens."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from relay_text.lsp import tokens as tk
from relay_text.lsp.positions import UTF8, UTF16, UTF32, LineIndex

ROOT = Path(__file__).resolve().parents[2]


def test_positions_in_each_encoding() -> None:
    text = "a\N{SLIGHTLY SMILING FACE}b\u00e9c\nxyz"
    offset = text.index("c")
    assert LineIndex(text, UTF16).position(offset) == (0, 5)  # the emoji is a surrogate pair
    assert LineIndex(text, UTF8).position(offset) == (0, 8)  # 1 + 4 + 1 + 2
    assert LineIndex(text, UTF32).position(offset) == (0, 4)
    for enc, col in ((UTF16, 5), (UTF8, 8), (UTF32, 4)):
        assert LineIndex(text, enc).offset(0, col) == offset
    # inside the surrogate pair: before the emoji; past the line's end: its end
    assert LineIndex(text, UTF16).offset(0, 2) == 1
    assert LineIndex(text, UTF16).offset(0, 99) == text.index("\n")
    assert LineIndex(text, UTF16).offset(1, 2) == text.index("z")
    assert LineIndex(text, UTF16).offset(7, 0) == len(text)


def test_positions_with_crlf_and_lone_cr() -> None:
    text = "ab\r\ncd\ref\n"
    index = LineIndex(text)
    assert index.position(text.index("c")) == (1, 0)
    assert index.position(text.index("e")) == (2, 0)
    assert index.offset(0, 10) == 2  # before `\r\n`
    assert index.end_position() == (3, 0)


def test_scan_never_fails_on_text_being_typed() -> None:
    text = 'def @f(%x: float32) { nn.conv2d(%x, axis=1, s="ab /* not a comment\n  /* open /* nested */ still'
    kinds = [(t.kind, t.text) for t in tk.scan(text)]
    assert (tk.GLOBAL, "@f") in kinds
    assert (tk.IDENT, "nn.conv2d") in kinds
    assert (tk.ATTR_KEY, "axis") in kinds
    assert (tk.STRING, '"ab /* not a comment') in kinds
    assert kinds[-1] == (tk.COMMENT, "/* open /* nested */ still")


def test_scan_reads_tvm_names_headers_and_metadata() -> None:
    text = (
        '#[version = "0.0.5"]\ndef @main(%conv1/weights: Tensor[(1), float32]) { where(%c, 1i64, 2.5f) '
        '}\n#[metadata]\n{"a": 1}'
    )
    toks = tk.scan(text)
    assert [t.kind for t in toks][:1] == [tk.HEADER]
    assert (tk.LOCAL, "%conv1/weights") in [(t.kind, t.text) for t in toks]
    assert (tk.IDENT, "where") in [(t.kind, t.text) for t in toks]  # the operator, not the keyword
    assert [(t.kind, t.text) for t in toks if t.kind == tk.NUMBER] == [
        (tk.NUMBER, "1"),
        (tk.NUMBER, "1i64"),
        (tk.NUMBER, "2.5f"),
    ]
    assert toks[-1].kind == tk.METADATA and toks[-1].text.startswith("#[metadata]")
    # the documented syntax: `/` divides
    docs = [(t.kind, t.text) for t in tk.scan("%a/%b")]
    assert docs == [(tk.LOCAL, "%a"), (tk.PUNCT, "/"), (tk.LOCAL, "%b")]


def test_relay_lsp_without_pygls_says_what_to_install(tmp_path: Path) -> None:
    fake = tmp_path / "pygls"
    fake.mkdir()
    (fake / "__init__.py").write_text('raise ImportError("no pygls here", name="pygls")\n', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "relay_text.cli", "lsp"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == "error: relay lsp needs pygls 2 (cannot import pygls): pip install 'relay-text[lsp]'\n"
