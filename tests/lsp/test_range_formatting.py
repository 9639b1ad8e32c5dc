"""textDocument/rangeFormatting through the protocol: the top-level
definitions the range touches are formatted whole, as `relay fmt` formats
them; the rest of the file (and the comments between definitions) stays
as written."""

from __future__ import annotations

import pytest

from .client import LspClient, ResponseError
from .test_server import _counter, open_doc, rng

TEXT = """\
// header comment
data Shape {
  Circle : (float32) -> Shape
    Square:(float32)->Shape
}

# doc of f
def @f(%x: float32) -> float32 {
    %x+1f   // keep me
}  // after f
//   between
def @main() {
  let %y=@f(2f);
  %y
}
"""

OPTIONS = {"tabSize": 2, "insertSpaces": True}
SHAPE = "data Shape {\n  Circle : (float32) -> Shape\n  Square : (float32) -> Shape\n}"
F = "def @f(%x : float32) -> float32 {\n  %x + 1f  // keep me\n}"
MAIN = "def @main() {\n  let %y = @f(2f);\n  %y\n}"


def range_format(client: LspClient, uri: str, where: dict) -> list[tuple[dict, str]]:
    result = client.request(
        "textDocument/rangeFormatting", {"textDocument": {"uri": uri}, "range": where, "options": OPTIONS}
    )
    return [(e["range"], e["newText"]) for e in result]


@pytest.fixture(scope="module")
def doc(client: LspClient) -> str:
    return open_doc(client, TEXT, "range_format")


def test_a_cursor_in_a_definition_formats_that_definition(client: LspClient, doc: str) -> None:
    # from `def` to its closing brace; the comment after it stays
    assert range_format(client, doc, rng(8, 2, 8, 3)) == [(rng(7, 0, 9, 1), F)]


def test_a_range_over_two_definitions_formats_both(client: LspClient, doc: str) -> None:
    assert range_format(client, doc, rng(2, 0, 8, 0)) == [(rng(1, 0, 4, 1), SHAPE), (rng(7, 0, 9, 1), F)]


def test_the_last_definition(client: LspClient, doc: str) -> None:
    assert range_format(client, doc, rng(12, 0, 12, 5)) == [(rng(11, 0, 14, 1), MAIN)]


def test_a_range_between_definitions_formats_nothing(client: LspClient, doc: str) -> None:
    assert range_format(client, doc, rng(5, 0, 5, 0)) == []
    assert range_format(client, doc, rng(10, 3, 10, 8)) == []  # the comment `//   between` is left alone


def test_a_definition_already_formatted_gets_no_edit(client: LspClient) -> None:
    text = TEXT.replace("def @main() {\n  let %y=@f(2f);", "def @main() {\n  let %y = @f(2f);")
    uri = open_doc(client, text, "range_format")
    assert range_format(client, uri, rng(12, 0, 12, 5)) == []


def test_applying_every_range_gives_what_formatting_the_file_gives(client: LspClient, doc: str) -> None:
    edits = range_format(client, doc, rng(0, 0, 15, 0))
    assert [e[1] for e in edits] == [SHAPE, F, MAIN]
    lines = TEXT.split("\n")
    # apply bottom-up (the edits cover whole lines here, or end at a `}`)
    for where, new in reversed(edits):
        s, e = where["start"], where["end"]
        head = "\n".join([*lines[: s["line"]], lines[s["line"]][: s["character"]]])
        tail = lines[e["line"]][e["character"] :]
        lines = (head + new + tail + "\n" + "\n".join(lines[e["line"] + 1 :])).split("\n")
    result = "\n".join(lines)
    assert result == TEXT.replace(TEXT[TEXT.index("data") : TEXT.index("}\n\n") + 1], SHAPE).replace(
        "def @f(%x: float32) -> float32 {\n    %x+1f   // keep me\n}", F
    ).replace("def @main() {\n  let %y=@f(2f);\n  %y\n}", MAIN)


def test_crlf_line_ends_are_kept(client: LspClient) -> None:
    text = "def @f() {\r\n    1+2\r\n}\r\n"
    uri = open_doc(client, text, "range_crlf")
    assert range_format(client, uri, rng(1, 0, 1, 0)) == [(rng(0, 0, 2, 1), "def @f() {\r\n  1 + 2\r\n}")]


BROKEN = TEXT.replace("  %y\n}", "  %y +\n}")  # `@main` does not parse


def test_the_definitions_that_parse_in_a_file_with_syntax_errors(client: LspClient) -> None:
    """`@main` is broken: `Shape` and `@f` are formatted all the same."""
    uri = f"file:///tmp/relay-lsp-test/range_broken{next(_counter)}.rly"
    mark = client.mark()
    client.open(uri, BROKEN, 1)
    assert [d["code"] for d in client.diagnostics(uri, 1, mark)["diagnostics"]] == ["syntax-error"]
    assert range_format(client, uri, rng(2, 0, 8, 0)) == [(rng(1, 0, 4, 1), SHAPE), (rng(7, 0, 9, 1), F)]
    # a range over the broken `@main` and the end of `@f`: `@f` only
    assert range_format(client, uri, rng(9, 0, 13, 0)) == [(rng(7, 0, 9, 1), F)]
    with pytest.raises(ResponseError) as err:
        client.request(
            "textDocument/rangeFormatting",
            {"textDocument": {"uri": uri}, "range": rng(12, 2, 12, 5), "options": OPTIONS},
        )
    assert err.value.code == -32803
    assert err.value.message == "cannot format here: this definition has syntax errors (fix them to format it)"


def test_a_range_in_the_only_definition_which_is_broken(client: LspClient) -> None:
    uri = f"file:///tmp/relay-lsp-test/range_bad{next(_counter)}.rly"
    mark = client.mark()
    client.open(uri, "def @f() {\n  (1,\n}\n", 1)
    client.diagnostics(uri, 1, mark)
    with pytest.raises(ResponseError) as err:
        client.request(
            "textDocument/rangeFormatting", {"textDocument": {"uri": uri}, "range": rng(1, 0, 1, 1), "options": OPTIONS}
        )
    assert err.value.code == -32803
    assert err.value.message == "cannot format here: this definition has syntax errors (fix them to format it)"


def test_the_server_announces_range_formatting() -> None:
    c = LspClient()
    try:
        assert c.initialize()["capabilities"]["documentRangeFormattingProvider"] is True
    finally:
        c.kill()
