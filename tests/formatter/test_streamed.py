"""`render_module` prints a file one definition's document at a time; the
text must be the one the whole file's document gives (`render_whole`), for
every sample, corpus file and Relay program of the tests, in each dialect,
with and without comments."""

from __future__ import annotations

from pathlib import Path

import pytest

from relay_text import formatter
from relay_text.formatter import UnsafeFormat, format_source
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


def _formatted(path: Path) -> tuple[object, ...]:
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        result = format_source(Source(str(path), text))
    except UnsafeFormat as exc:
        return ("unsafe", exc.reason, exc.output)
    return (result.text, [str(d) for d in result.diagnostics], result.comment_order)


@pytest.mark.parametrize("group", ["samples", "corpus", "tests"])
def test_big_inputs_are_formatted_as_small_ones(group: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """From `_RELEASE_ABOVE` bytes on, the input's node positions are let go
    before the output is read back (and the input read again when the
    comments need a coarser placement): the same outcome as for a small input."""
    paths = [p for p in _programs() if group in p.parts or (group == "corpus" and CORPUS in p.parents)]
    paths = [p for p in paths if not (group == "tests" and SAMPLES in p.parents)]
    assert paths
    small = [_formatted(p) for p in paths]
    monkeypatch.setattr(formatter, "_RELEASE_ABOVE", 0)
    big = [_formatted(p) for p in paths]
    assert [p.name for p, a, b in zip(paths, small, big, strict=True) if a != b] == []


# Comments whose places do not survive a second pass: the safe mode moves
# them before the definition (a coarser placement, which reads a big input again)
UNSTABLE = "def @main(%a : Tensor[(1\n// c3\n, 1), float32]\n\n// c4\n\n, %b : float32) {\n  %a\n}\n"


def test_a_big_input_is_read_again_for_a_coarser_placement(monkeypatch: pytest.MonkeyPatch) -> None:
    expected = "// c3\n\n// c4\ndef @main(%a : Tensor[(1, 1), float32], %b : float32) {\n  %a\n}\n"
    assert format_source(Source("t.rly", UNSTABLE)).text == expected
    monkeypatch.setattr(formatter, "_RELEASE_ABOVE", 0)
    reread = formatter._reread
    calls: list[str] = []

    def counted(source: Source, env: object) -> object:
        calls.append(source.name)
        return reread(source, env)

    monkeypatch.setattr(formatter, "_reread", counted)
    assert format_source(Source("t.rly", UNSTABLE)).text == expected
    assert calls == ["t.rly"]


@pytest.mark.parametrize("every", [1, 2])
@pytest.mark.parametrize("dialect", [DOCS, TVM])
def test_a_definition_is_laid_out_a_few_statements_at_a_time(
    dialect: str, every: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A definition's body goes to the layout `_FLUSH_EVERY` statements at a
    time: those are written (their temporaries named) before the next one is
    printed, so that a function of many bindings is never held as one
    document."""
    from relay_text.printer import blocks
    from relay_text.printer.naming import Names

    events: list[str] = []
    append = blocks.StreamedStatements.append
    text = Names.text

    def appended(self: blocks.StreamedStatements, stmt: object) -> None:
        events.append("printed")
        append(self, stmt)  # type: ignore[arg-type]

    def named(self: Names, lazy: object) -> str:
        got = text(self, lazy)  # type: ignore[arg-type]
        if getattr(lazy, "kind", "") == "tmpdef" or got in ("%0", "%1", "%2"):
            events.append("written")
        return got

    monkeypatch.setattr(blocks, "_FLUSH_EVERY", every)
    monkeypatch.setattr(blocks.StreamedStatements, "append", appended)
    monkeypatch.setattr(Names, "text", named)
    source = '#[version = "0.0.5"]\n' if dialect == TVM else ""
    source += "def @f(%x: float32) {" if dialect == TVM else "def @f(%x : float32) {"
    source += "\n  %0 = add(%x, 1f);\n  %1 = multiply(%0, 2f);\n  %2 = add(%1, %0);\n  %2\n}\n"
    module = parse_source(Source("t.rly", source)).module
    assert module is not None
    printed = render_module(module, dialect, 100, attach(module))
    assert printed.text == source
    # `every` statements are written (names, then uses) before the next is printed
    assert events[: every + 1] == ["printed"] * every + ["written"]
    assert events.index("printed", every) > every  # and only then is the next one printed
    assert events.count("printed") == 3
    assert events[-1] == "written"  # the final `%2`


def test_an_anchor_holds_a_list_only_for_the_kinds_of_notes_it_has() -> None:
    """The notes of an anchor, by where they are printed, in the order
    given; a kind without notes is an empty tuple (no list per anchor)."""
    from relay_text.printer.comments import Attached
    from relay_text.printer.trivia import Note

    first, second = (Note(i, f"/* {i} */", own_line=False, line=False, blank_before=False) for i in range(2))
    entry = Attached()
    assert (entry.before, entry.after, entry.after_term) == ((), (), ())
    entry.add("after", first)
    assert entry.after == (first,)  # one note: a tuple of one
    entry.add("after", second)
    assert entry.after == [first, second]
    assert type(entry.after) is list
    assert (entry.before, entry.after_term) == ((), ())
    assert entry.all() == [first, second]


def test_the_lexers_comment_sites_are_let_go_once_read() -> None:
    """What the lexer saw around each comment is read into trivia once;
    the sites (with the tokens after each comment) are then let go, and
    attaching again reads the same trivia."""
    text = "def @f(%x: float32) {\n  // lead\n  %0 = add(%x, 1f) /* tail */;\n  %0\n}\n"
    module = parse_source(Source("t.rly", text)).module
    assert module is not None
    assert len(module.positions.comment_sites) == 2
    first = render_module(module, DOCS, 100, attach(module)).text
    assert module.positions.comment_sites == []
    again = render_module(module, DOCS, 100, attach(module)).text
    assert first == again == "def @f(%x : float32) {\n  // lead\n  %0 = add(%x, 1f) /* tail */;\n  %0\n}\n"
