"""The document algebra and its layout (relay_text/printer/layout.py)."""

from __future__ import annotations

from relay_text.printer.layout import (
    BREAK_PARENT,
    EOL,
    HARDLINE,
    LINE,
    MAX_INDENT,
    SOFTLINE,
    Group,
    Lazy,
    Mark,
    Nest,
    Verbatim,
    bracket,
    layout,
)


def call(name: str, *args: str):
    return [name, bracket("(", list(args), ")")]


def test_a_group_that_fits_stays_on_one_line() -> None:
    assert layout(call("f", "a", "b"), width=10) == "f(a, b)"


def test_a_group_that_does_not_fit_breaks_every_line_of_its_own() -> None:
    assert layout(call("f", "aaaa", "bbbb"), width=10) == "f(\n  aaaa,\n  bbbb\n)"


def test_the_text_after_a_group_counts_until_the_next_break() -> None:
    doc = [call("f", "a", "b"), ";;;;", HARDLINE, "x"]
    assert layout(doc, width=11) == "f(a, b);;;;\nx"
    assert layout(doc, width=10) == "f(\n  a,\n  b\n);;;;\nx"


def test_inner_groups_decide_on_their_own() -> None:
    doc = call("outer", "x" * 20, [call("g", "y")])
    assert layout(doc, width=16) == "outer(\n  xxxxxxxxxxxxxxxxxxxx,\n  g(y)\n)"


def test_a_hard_line_breaks_every_enclosing_group() -> None:
    doc = Group(["{", Nest(2, [LINE, "a", HARDLINE, "b"]), LINE, "}"])
    assert layout(doc, width=80) == "{\n  a\n  b\n}"


def test_break_parent_breaks_without_printing() -> None:
    doc = Group(["(", Nest(2, [SOFTLINE, "a", BREAK_PARENT]), SOFTLINE, ")"])
    assert layout(doc, width=80) == "(\n  a\n)"


def test_eol_puts_the_next_text_on_a_new_line() -> None:
    doc = ["x", " // note", EOL, ";"]
    assert layout(doc) == "x // note\n;"
    doc = Group(["(", Nest(2, [SOFTLINE, "a", " // c", EOL]), SOFTLINE, ")"])
    assert layout(doc) == "(\n  a // c\n)"


def test_no_trailing_spaces_on_empty_lines() -> None:
    doc = Nest(4, ["a", HARDLINE, HARDLINE, "b"])
    assert layout(doc) == "a\n\n    b"


def test_indentation_stops_growing() -> None:
    doc: list = ["x"]
    for _ in range(100):
        doc = [Nest(2, [HARDLINE, doc])]
    text = layout(doc)
    assert max(len(line) - len(line.lstrip()) for line in text.splitlines()) == MAX_INDENT


def test_documents_100000_deep_lay_out() -> None:
    doc: list = ["x"]
    for _ in range(100_000):
        doc = Group(["f(", doc, ")"])
    text = layout(doc, width=80)
    assert text == "f(" * 100_000 + "x" + ")" * 100_000


def test_verbatim_text_keeps_its_lines_and_breaks_its_group() -> None:
    doc = Group(["a", LINE, Verbatim("/* one\n   two */"), LINE, "b"])
    assert layout(doc) == "a\n/* one\n   two */\nb"


class Resolver:
    def __init__(self) -> None:
        self.events: list[str] = []

    def text(self, lazy: Lazy) -> str:
        self.events.append(f"text:{lazy.key}")
        return lazy.key.upper()

    def width(self, lazy: Lazy) -> int:
        return len(lazy.key)

    def mark(self, mark: Mark) -> None:
        self.events.append(f"mark:{mark.arg}")


def test_lazy_text_and_marks_are_resolved_in_text_order() -> None:
    res = Resolver()
    doc = Group([Lazy("name", "a"), Mark("m", 1), " ", Lazy("name", "b"), HARDLINE, Mark("m", 2), Lazy("name", "c")])
    assert layout(doc, resolver=res) == "A B\nC"
    assert res.events == ["text:a", "mark:1", "text:b", "mark:2", "text:c"]
