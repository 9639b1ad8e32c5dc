"""Rendering diagnostics on a terminal: carets under wide characters,
and no colour for a terminal that cannot show it."""

from __future__ import annotations

import io

import pytest

from relay_text.diagnostics import Diagnostic, codes
from relay_text.diagnostics.render import render_text, use_color
from relay_text.ir.span import Source, Span


def test_carets_line_up_under_wide_characters() -> None:
    """Each CJK character takes two columns on a terminal: the carets after
    (and under) them move by two columns a character."""
    text = "def @main() {\n  /* 変数の名前 */ %y + %名\n}\n"
    source = Source("w.rly", text)
    start = text.index("%y")
    diag = Diagnostic(
        codes.UNBOUND_VARIABLE, "unbound variable `%y`", Span(source, start, start + 2), label="not in scope"
    )
    lines = render_text(diag).splitlines()
    assert lines[3] == "2 |   /* 変数の名前 */ %y + %名"
    assert lines[4] == "  |                    ^^ not in scope"
    wide = text.index("%名")
    diag = Diagnostic(codes.UNBOUND_VARIABLE, "x", Span(source, wide, wide + 2), label="here")
    assert render_text(diag).splitlines()[4] == "  |                         ^^^ here"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_dumb_terminal_gets_no_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert use_color(_Terminal())
    monkeypatch.setenv("TERM", "dumb")
    assert not use_color(_Terminal())
    # Asked for explicitly, it is given.
    assert use_color(_Terminal(), "always") and use_color(_Terminal(), None, "always")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert use_color(_Terminal())
