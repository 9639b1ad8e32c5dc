"""TextMap: offsets of a document's last good text in its current text."""

from __future__ import annotations

from relay_text.lsp.textmap import TextMap, common_prefix, common_suffix


def test_one_edit_maps_what_is_before_and_after_it() -> None:
    old = "let %a = 1;\nlet %b = %a;\n"
    new = "let %a = 1 +;\nlet %b = %a;\n"
    m = TextMap(old, new)
    assert m.runs == [(0, 0, 10), (10, 12, 15)]
    assert m.forward(4) == 4  # `%a` before the edit
    assert m.forward(old.index("%b")) == new.index("%b")  # shifted by the two characters typed
    assert m.backward(new.index("+")) is None  # typed since
    assert m.span_forward(old.index("%a;"), old.index("%a;") + 2) == (new.index("%a;"), new.index("%a;") + 2)


def test_a_deletion() -> None:
    old = "def @f() { 1 }\ndef @g() { 2 }\n"
    new = "def @f() { 1 \ndef @g() { 2 }\n"
    m = TextMap(old, new)
    assert m.forward(old.index("@g")) == new.index("@g")
    assert m.forward(old.index("}")) == 13  # the end of the shared run (a cursor after it)
    assert m.span_forward(old.index("}"), old.index("}") + 1) is None  # deleted


def test_edits_at_several_places() -> None:
    old = "a\nbb\ncc\ndd\nee\n"
    new = "a\nbX\ncc\ndd\nYe\n"
    m = TextMap(old, new)
    assert m.forward(old.index("cc")) == new.index("cc")
    assert m.forward(old.index("dd")) == new.index("dd")
    x, y = new.index("X"), new.index("Y")
    assert m.span_backward(x, x + 1) is None  # typed since
    assert m.span_backward(y, y + 1) is None
    assert m.backward(x) == old.index("b") + 1  # a cursor just after the `b` kept
    assert m.backward(new.index("b")) == old.index("b")  # the beginning of an edited line is kept


def test_the_same_text_is_the_identity() -> None:
    m = TextMap("abc", "abc")
    assert m.identity
    assert m.forward(2) == 2 and m.backward(3) == 3


def test_common_prefix_and_suffix_across_chunks() -> None:
    a = "x" * 10_000 + "A" + "y" * 5000
    b = "x" * 10_000 + "B" + "y" * 5000
    assert common_prefix(a, b) == 10_000
    assert common_suffix(a, b, len(a), len(b), len(a)) == 5000
