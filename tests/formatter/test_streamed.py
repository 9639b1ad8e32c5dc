"""`render_module` prints a file one definition's document at a time; the
text must be the one the whole file's document gives (`render_whole`), for
every sample, corpus file and Relay program of the tests, in each dialect,
with and without comments."""

from __future__ import annotations

from pathlib import Path

import pytest

from relay_text.ir.expr import Call, Constant, Function, GlobalVar, Let, Op, Var
from relay_text.ir.module import Module
from relay_text.ir.span import Source
from relay_text.printer.comments import attach
from relay_text.printer.dialects import DOCS, TVM, PrintError, header_for
from relay_text.printer.render import render_module, render_whole
from relay_text.syntax.parser import parse_source
from tests.conftest import CORPUS, ROOT, SAMPLES


def _programs() -> list[Path]:
    found = sorted(SAMPLES.rglob("*.rly"))
    found += sorted(CORPUS.glob("*.rly")) if CORPUS.is_dir() else []
    found += sorted((ROOT / "tests").rglob("*.rly"))
    return found


def _both(module, dialect: str, width: int, commented: bool) -> tuple[object, object]:
    results = []
    for render in (render_module, render_whole):
        comments = attach(module) if commented else None
        try:
            printed = render(module, dialect, width, comments, header_for(module, dialect))
            results.append((printed.text, printed.comment_order))
        except PrintError as exc:
            results.append(("error", exc.message))
    return results[0], results[1]


@pytest.fixture(scope="module")
def modules() -> list[tuple[str, object]]:
    out = []
    for path in _programs():
        text = path.read_text(encoding="utf-8", errors="replace")
        module = parse_source(Source(str(path), text)).module
        if module is not None:
            out.append((path.name, module))
    return out


def test_there_are_programs(modules: list[tuple[str, object]]) -> None:
    assert len(modules) > 50


@pytest.mark.parametrize("dialect", [DOCS, TVM])
@pytest.mark.parametrize("commented", [True, False])
def test_streamed_text_is_the_whole_files_text(
    modules: list[tuple[str, object]], dialect: str, commented: bool
) -> None:
    differ = []
    for name, module in modules:
        width = 60 if len(name) % 2 else 100
        streamed, whole = _both(module, dialect, width, commented)
        if streamed != whole:
            differ.append(name)
    assert differ == []


def test_a_renamed_binder_prints_the_whole_file_again() -> None:
    """A `let` that would capture a use under it is renamed (`%x_1`): the
    streamed printing notices and gives the whole file's text."""
    outer, inner, a = Var("x"), Var("x"), Var("a")
    one, two = Constant(1, "int32"), Constant(2, "int32")
    body = Let(inner, two, Call(Op("multiply"), (Call(Op("add"), (outer, one)), inner)))
    f, g = GlobalVar("f"), GlobalVar("g")
    module = Module(functions={f: Function((outer,), body), g: Function((a,), a)}, order=[f, g])
    streamed, whole = _both(module, DOCS, 100, False)
    assert streamed == whole
    assert streamed[0] == ("def @f(%x) {\n  let %x_1 = 2;\n  multiply(add(%x, 1), %x_1)\n}\n\ndef @g(%a) {\n  %a\n}\n")
