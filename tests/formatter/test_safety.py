"""The safety check of `relay fmt` catches a printer that changes one
definition, on the path of small inputs and on the one of big inputs (from
`formatter._RELEASE_ABOVE` bytes: the input's node positions are let go
before the output is read back, and a coarser placement of comments reads
the input again): nothing is returned, nothing written."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import tempfile

import pytest
from click.testing import CliRunner

from relay_text import formatter
from relay_text.cli import main
from relay_text.formatter import UnsafeFormat, format_source
from relay_text.ir.expr import Function, GlobalVar
from relay_text.ir.span import Source
from relay_text.printer.definitions import Printer
from relay_text.printer.state import PrinterState

TEXT = """\
// the first definition
def @f(%a, %b) {
  %a + %b  // their sum
}

# the second definition
def @g(%a, %b) {
  // what it gives
  %a - %b
}

def @h(%x) {
  %x
}
"""

# A text that needs formatting (so that the output is verified at all)
UNFORMATTED = TEXT.replace("  %a - %b", "  %a   -   %b")


@pytest.fixture(params=["small", "big"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "big":
        monkeypatch.setattr(formatter, "_RELEASE_ABOVE", 0)
    return str(request.param)


def _swap_parameters_of_g(monkeypatch: pytest.MonkeyPatch) -> None:
    """A printer bug: `@g`'s parameters are written in the other order."""
    original = Printer._def

    def buggy(self: Printer, gv: GlobalVar, func: Function) -> Any:
        if gv.name == "g":
            func = replace(func, params=func.params[::-1])
        return original(self, gv, func)

    monkeypatch.setattr(Printer, "_def", buggy)


def _drop_comments_of_g(monkeypatch: pytest.MonkeyPatch) -> None:
    """A printer bug: the comments inside `@g` are not written."""
    original = PrinterState._take

    def buggy(self: PrinterState, key: Any) -> Any:
        taken = original(self, key)
        return None if self.def_name == "g" else taken

    monkeypatch.setattr(PrinterState, "_take", buggy)


def test_the_text_formats_without_a_bug(path: str) -> None:
    formatted = format_source(Source("t.rly", UNFORMATTED))
    assert formatted.text == TEXT


@pytest.mark.parametrize("commented", [True, False])
def test_a_definition_printed_differently_is_refused(
    path: str, commented: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    _swap_parameters_of_g(monkeypatch)
    text = (
        UNFORMATTED
        if commented
        else "".join(line.split("//")[0].split("#")[0].rstrip() + "\n" for line in UNFORMATTED.splitlines())
    )
    with pytest.raises(UnsafeFormat) as caught:
        format_source(Source("t.rly", text))
    assert caught.value.reason == "the formatted text is a different program"
    assert caught.value.original == text
    assert "def @g(%b, %a)" in caught.value.output


def test_comments_dropped_in_one_definition_are_refused(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _drop_comments_of_g(monkeypatch)
    with pytest.raises(UnsafeFormat) as caught:
        format_source(Source("t.rly", UNFORMATTED))
    assert caught.value.reason == "a comment was lost or repeated"
    assert "what it gives" not in caught.value.output


def test_fmt_writes_nothing_and_says_why(path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _swap_parameters_of_g(monkeypatch)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    file = tmp_path / "t.rly"
    file.write_text(UNFORMATTED)
    result = CliRunner().invoke(main, ["fmt", str(file)], env={"NO_COLOR": "1"}, catch_exceptions=False)
    assert result.exit_code == 2
    assert file.read_text() == UNFORMATTED
    message, summary = result.output.strip().split("\n")
    (log,) = tmp_path.glob("relay-fmt-*.log")
    assert message == (
        f"error[internal-error]: {file}: the formatted text is a different program; nothing was written. "
        f"Both texts are saved in {log} - please report this."
    )
    assert summary == "1 file failed to reformat"
    assert log.read_text().startswith(f"relay fmt: {file}: the formatted text is a different program\n")
