"""A lone carriage return ends a line everywhere, as `\\n` and `\\r\\n` do (as
in Python, C and JavaScript, and as every editor shows it): a `//` or `#`
comment stops there, a string cannot run past it, and line numbers in
diagnostics, `relay: ignore` comments, `relay fmt` and the language server
all count it. (Before, `%x // note\\r  + %y` ran the comment to the next
`\\n`: `relay run` returned `%x` alone while editors showed `+ %y`.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import relay_text
from relay_text.cli import main
from relay_text.files import Input
from relay_text.ir.span import Source
from relay_text.pipeline import check_source

ADD = "def @main(%x: int32, %y: int32) {\n  %x // note\r  + %y\n}\n"


@pytest.mark.parametrize("comment", ["// note", "# note", "// relay: ignore", "//"])
def test_a_line_comment_ends_at_a_lone_cr(comment: str) -> None:
    text = ADD.replace("// note", comment)
    assert relay_text.run(text, np.int32(1), np.int32(2)) == 3
    checked = check_source(Source("t.rly", text))
    assert checked.ok
    assert [c.text for c in checked.module.comments] == [comment]


def test_a_string_ends_at_a_lone_cr() -> None:
    text = (
        'def @main(%x: Tensor[(1, 2, 2, 1), float32]) {\n  nn.relu(layout_transform(%x, src_layout="NHWC\r", '
        'dst_layout="NCHW"))\n}\n'
    )
    (diag,) = [d for d in check_source(Source("t.rly", text)).diagnostics if d.is_error]
    assert diag.code == "syntax-error"
    assert diag.span is not None and diag.span.start_line_col[0] == 2


def test_diagnostics_count_lone_cr_lines() -> None:
    text = "def @main() {\r  let %a = 1;\r  %b\r}\r"
    checked = check_source(Source("t.rly", text))
    (diag,) = checked.diagnostics
    assert diag.code == "unbound-variable"
    assert diag.span is not None
    assert (diag.span.start_line_col, diag.span.end_line_col) == ((3, 3), (3, 4))
    assert diag.span.source.line_text(3) == "  %b"
    assert diag.span.source.line_count == 5


def test_lines_ending_in_crlf_and_lone_cr_together() -> None:
    source = Source("t", "a\r\nb\rc\nd")
    assert source.line_starts == [0, 3, 5, 7]
    assert [source.line_text(i) for i in (1, 2, 3, 4)] == ["a", "b", "c", "d"]
    assert source.line_col(source.text.index("c")) == (3, 1)


def test_the_rendered_diagnostic_shows_the_right_line() -> None:
    result = CliRunner().invoke(main, ["check", "-"], input="def @main() {\r  %b\r}\r", env={"NO_COLOR": "1"})
    assert result.exit_code == 1
    assert " --> <stdin>:2:3\n  |\n2 |   %b\n  |   ^^ not in scope\n" in result.stderr


def test_an_ignore_comment_on_a_lone_cr_line_covers_the_next_line() -> None:
    text = "def @main() {\r  // relay: ignore[unused-binding]\r  %0 = 1;\r  2\r}\r"
    assert check_source(Source("t.rly", text)).diagnostics == []
    plain = text.replace("  // relay: ignore[unused-binding]\r", "")
    assert [d.code for d in check_source(Source("t.rly", plain)).diagnostics] == ["unused-binding"]


def test_a_paragraph_break_of_lone_crs_is_kept_by_fmt() -> None:
    text = "def @f() {\r  1\r}\r\r// two\rdef @g() {\r  2\r}\r"
    result = CliRunner().invoke(main, ["fmt", "-"], input=text, env={"NO_COLOR": "1"})
    assert result.exit_code == 0
    assert result.stdout == text  # (already in normal form, with its line ends)


def test_fmt_keeps_lone_cr_line_ends(tmp_path: Path) -> None:
    path = tmp_path / "m.rly"
    path.write_bytes(ADD.replace("\n", "\r").encode())
    result = CliRunner().invoke(main, ["fmt", str(path)], env={"NO_COLOR": "1"})
    assert result.exit_code == 0, result.stderr
    out = path.read_bytes().decode()
    assert "\n" not in out
    assert out.split("\r")[:3] == ["def @main(%x : int32, %y : int32) {", "  %x  // note", "   +"]
    assert relay_text.run(out, np.int32(1), np.int32(2)) == 3


def test_input_line_conventions() -> None:
    assert Input("a", "x\ry\r").newline == "\r"
    assert Input("a", "x\r\ny").newline == "\r\n"
    assert Input("a", "x\ny\rz").newline == "\n"
    assert Input("a", "x\ry\r\nz\n").lf_text == "x\ny\nz\n"
    assert Input("a", "x\ry").restore("x\ny\n") == "x\ry"


def test_the_diff_of_a_lone_cr_file_has_one_line_per_line() -> None:
    from relay_text.formatter import unified_diff

    diff = unified_diff("m.rly", "a\rb\r", "a\rc\r")
    assert diff.split("\n")[2:-1] == ["@@ -1,2 +1,2 @@", " a\r", "-b\r", "+c\r"]


# ---------------------------------------------------------------- the language server

lsp = pytest.importorskip("lsprotocol")


def test_lsp_positions_semantic_tokens_symbols_and_hover_count_lone_crs() -> None:
    from relay_text.lsp.document import Analysis
    from relay_text.lsp.hover import doc_comment
    from relay_text.lsp.semantic_tokens import encode
    from relay_text.lsp.symbols import document_symbols
    from relay_text.lsp.views import Views

    text = "/* a\rb */\r// adds one\rdef @f(%x: int32) {\r  %x + 1 // after\r  + 2\r}\r"
    analysis = Analysis("file:///t.rly", text)
    assert analysis.checked.ok
    lines = analysis.lines("utf-16")
    assert lines.position(text.index("def")) == (3, 0)
    assert lines.position(text.index("+ 2")) == (5, 2)
    (symbol,) = document_symbols(Views(analysis))
    assert (symbol.range.start.line, symbol.range.start.character) == (3, 0)
    assert (symbol.selection_range.start.line, symbol.selection_range.start.character) == (3, 4)
    assert doc_comment(analysis.source, text.index("def")) == "adds one"
    data = encode(analysis)
    starts = []
    line = col = 0
    for i in range(0, len(data), 5):
        dl, dc, length = data[i : i + 3]
        line, col = (line + dl, dc) if dl else (line, col + dc)
        starts.append((line, col, length))
    # the block comment is one token per line; `// after` stops at its `\r`
    assert (0, 0, 4) in starts and (1, 0, 4) in starts
    assert (4, 9, 8) in starts
