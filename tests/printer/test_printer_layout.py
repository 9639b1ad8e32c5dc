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
    Stream,
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


# ---- streams: a document given part by part while it is laid out


def _statements(n: int) -> list:
    return [[call(f"f{i}", "aaaa", "bbbb"), ";", HARDLINE] for i in range(n)]


def test_a_stream_lays_out_as_its_parts_written_in_one_document() -> None:
    """Parts, a hole filled inside a part, indentation and groups: the same
    text as the whole document given at once."""
    whole = ["def {", Nest(2, [HARDLINE, _statements(3), "tail"]), HARDLINE, "}", HARDLINE, "after"]

    def produce(stream: Stream) -> None:
        hole = stream.hole()
        stream.put(["def {", Nest(2, [HARDLINE, hole]), HARDLINE, "}"])
        stream.flush()
        for part in _statements(3):
            hole.put(part)
            hole.flush()
        hole.put("tail")
        hole.close()
        stream.close()

    streamed = [Stream(produce), HARDLINE, "after"]
    assert (
        layout(streamed, width=10)
        == layout(whole, width=10)
        == (
            "def {\n  f0(\n    aaaa,\n    bbbb\n  );\n  f1(\n    aaaa,\n    bbbb\n  );\n"
            "  f2(\n    aaaa,\n    bbbb\n  );\n  tail\n}\nafter"
        )
    )


class _Recorder:
    """A resolver that records where the layout stands."""

    def __init__(self, events: list[str]) -> None:
        self.events = events

    def text(self, lazy: Lazy) -> str:
        return ""

    def width(self, lazy: Lazy) -> int:
        return 0

    def mark(self, mark: Mark) -> None:
        self.events.append(f"laid out {mark.arg}")


def test_each_part_is_laid_out_before_the_producer_makes_the_next() -> None:
    events: list[str] = []

    def produce(stream: Stream) -> None:
        for i in range(3):
            events.append(f"made {i}")
            stream.put([Mark("part", i), f"s{i}", HARDLINE])
            stream.flush()
        stream.close()

    assert layout([Stream(produce), "end"], resolver=_Recorder(events)) == "s0\ns1\ns2\nend"
    assert events == ["made 0", "laid out 0", "made 1", "laid out 1", "made 2", "laid out 2"]


def test_a_stream_left_open_is_an_error_not_a_truncated_text() -> None:
    def forgetful(stream: Stream) -> None:
        stream.put("x")

    def leaves_a_hole_open(stream: Stream) -> None:
        hole = stream.hole()
        stream.put(["{", hole, "}"])
        stream.close()

    for produce in (forgetful, leaves_a_hole_open):
        try:
            layout([Stream(produce), HARDLINE, "y"])
        except RuntimeError as exc:
            assert str(exc) == "a stream was left open by its producer"
        else:
            raise AssertionError(f"{produce.__name__}: no error")


def test_a_look_ahead_stops_at_a_stream_as_at_a_line_break() -> None:
    """A group before a stream is measured up to the stream (whose parts
    follow a line break): the producer starts only when the layout reaches
    the stream, never for a measurement."""
    started: list[int] = []

    def produce(stream: Stream) -> None:
        started.append(1)
        stream.put([HARDLINE, "a very long line of text"])
        stream.close()

    assert layout([call("f", "a", "b"), Stream(produce)], width=8) == "f(a, b)\na very long line of text"
    assert started == [1]
