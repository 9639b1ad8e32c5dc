"""`relay lsp` through the protocol: a real subprocess, a stdio JSON-RPC client.

Each test opens its own document (distinct URI) on the module's server and
asserts exactly what an editor would receive.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from relay_text import format as relay_format
from relay_text.std import PRELUDE_FILE

from .client import LspClient, ResponseError, position, position_of

DOC = """\
// Shapes and their areas. \N{SLIGHTLY SMILING FACE}
data Shape {
  Circle : (float32) -> Shape
  Square : (float32) -> Shape
}

# The area of a shape.
def @area(%s : Shape) -> float32 {
  match (%s) {
    case Circle(%r) { 3.14 * %r * %r }
    case Square(%side) { %side * %side }
  }
}

def @main(%x : Tensor[(1, 3, 8, 8), float32], %w : Tensor[(4, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  let %total = @area(Circle(1.0)) + @area(Square(2.0));
  (nn.relu(%0), %total, @length(Cons(%total, Nil())))
}
"""

PRELUDE_URI = PRELUDE_FILE.resolve().as_uri()
_counter = iter(range(1000))


def rng(l1: int, c1: int, l2: int, c2: int) -> dict:
    return {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}}


def open_doc(client: LspClient, text: str = DOC, name: str = "doc") -> str:
    uri = f"file:///tmp/relay-lsp-test/{name}{next(_counter)}.rly"
    mark = client.mark()
    client.open(uri, text, 1)
    client.diagnostics(uri, 1, mark)
    return uri


def at(uri: str, pos: dict) -> dict:
    return {"textDocument": {"uri": uri}, "position": pos}


def prelude_position(needle: str) -> dict:
    text = PRELUDE_FILE.read_text(encoding="utf-8")
    return position(text, text.index(needle))


# ---------------------------------------------------------------- lifecycle


def test_initialize_announces_the_features() -> None:
    c = LspClient()
    try:
        result = c.initialize()
        caps = result["capabilities"]
        assert result["serverInfo"]["name"] == "relay"
        assert caps["positionEncoding"] == "utf-16"
        assert caps["textDocumentSync"]["change"] == 2  # incremental
        assert caps["textDocumentSync"]["openClose"] is True
        for feature in (
            "hoverProvider",
            "definitionProvider",
            "referencesProvider",
            "documentSymbolProvider",
            "documentFormattingProvider",
        ):
            assert caps[feature] is True, feature
        assert caps["completionProvider"]["triggerCharacters"] == ["@", "%", "."]
        assert caps["semanticTokensProvider"]["full"] is True
        assert "enumMember" in caps["semanticTokensProvider"]["legend"]["tokenTypes"]
        assert c.shutdown() == 0
    finally:
        c.kill()


def test_shutdown_then_exit_ends_the_server() -> None:
    c = LspClient()
    try:
        c.initialize()
        assert c.request("shutdown") is None
        c.notify("exit")
        assert c.proc.wait(10) == 0
    finally:
        c.kill()


# ---------------------------------------------------------------- diagnostics


def test_open_publishes_no_diagnostics_for_a_good_file(client: LspClient) -> None:
    uri = "file:///tmp/relay-lsp-test/good.rly"
    mark = client.mark()
    client.open(uri, DOC, 1)
    assert client.diagnostics(uri, after=mark) == {"uri": uri, "version": 1, "diagnostics": []}


def test_an_edit_introducing_an_error_and_one_fixing_it(client: LspClient) -> None:
    uri = open_doc(client)
    # `3.14 * %r * %r` -> `/* 🙂 */ 3.14 * %r * %rr`: the emoji before the
    # error counts two UTF-16 units.
    mark = client.mark()
    client.change(uri, 2, [{"range": rng(9, 22, 9, 36), "text": "/* \N{SLIGHTLY SMILING FACE} */ 3.14 * %r * %rr"}])
    published = client.diagnostics(uri, 2, mark)
    where = rng(9, 43, 9, 46)
    assert published["diagnostics"] == [
        {
            "range": where,
            "message": "unbound variable `%rr`\nhelp: did you mean `%r`?",
            "severity": 1,
            "code": "unbound-variable",
            "source": "relay",
            "relatedInformation": [{"location": {"uri": uri, "range": where}, "message": "not in scope"}],
        }
    ]
    mark = client.mark()
    client.change(uri, 3, [{"range": where, "text": "%r"}])
    assert client.diagnostics(uri, 3, mark)["diagnostics"] == []


def test_changes_are_debounced_into_one_check(client: LspClient) -> None:
    uri = open_doc(client)
    mark = client.mark()
    # three quick edits: `%side` -> `%s`, `%si`, `%sid` (all unbound)
    client.change(uri, 2, [{"range": rng(10, 25, 10, 30), "text": "%s"}])
    client.change(uri, 3, [{"range": rng(10, 27, 10, 27), "text": "i"}])
    client.change(uri, 4, [{"range": rng(10, 28, 10, 28), "text": "d"}])
    published = client.diagnostics(uri, 4, mark)
    assert [d["message"].split("\n")[0] for d in published["diagnostics"]] == ["unbound variable `%sid`"]
    versions = [
        m["params"].get("version") for m in client.notifications[mark:] if m.get("params", {}).get("uri") == uri
    ]
    assert versions == [4]  # versions 2 and 3 were never checked on their own


def test_requests_answer_for_the_text_just_sent(client: LspClient) -> None:
    """A request right after an edit (before the debounced check) sees the edit."""
    uri = open_doc(client)
    renamed = DOC.replace("%total", "%sum")
    client.change(uri, 2, [{"text": renamed}])
    result = client.request("textDocument/hover", at(uri, position_of(renamed, "%sum,")))
    assert result["contents"]["value"] == "```relay\n%sum : float32\n```"
    assert client.diagnostics(uri, 2)["diagnostics"] == []


def test_a_type_error_points_into_the_prelude(client: LspClient) -> None:
    text = DOC.replace("@length(Cons(%total, Nil()))", "@length(%total)")
    uri = f"file:///tmp/relay-lsp-test/prelude_label{next(_counter)}.rly"
    mark = client.mark()
    client.open(uri, text, 1)
    (diag,) = client.diagnostics(uri, 1, mark)["diagnostics"]
    assert diag["code"] == "type-mismatch"
    assert diag["range"] == rng(17, 32, 17, 38)
    assert diag["message"] == "mismatched types: the first argument of `@length` must be `List[_]`, found `float32`"
    param = prelude_position("%l : List[a]) -> int32")  # the label covers `%l : List[a]`
    assert diag["relatedInformation"] == [
        {"location": {"uri": uri, "range": rng(17, 32, 17, 38)}, "message": "this has type `float32`"},
        {
            "location": {
                "uri": PRELUDE_URI,
                "range": {"start": param, "end": {"line": param["line"], "character": param["character"] + 12}},
            },
            "message": "parameter `%l` is declared here",
        },
    ]


def test_notes_and_helps_follow_the_message(client: LspClient) -> None:
    text = "def @main() {\n  match (Some(1)) {\n    case Some(%x) { %x }\n  }\n}\n"
    uri = f"file:///tmp/relay-lsp-test/notes{next(_counter)}.rly"
    mark = client.mark()
    client.open(uri, text, 1)
    (diag,) = client.diagnostics(uri, 1, mark)["diagnostics"]
    assert diag["code"] == "non-exhaustive-match"
    assert diag["message"] == (
        "this `match` does not cover every value: `None()` is not matched\n"
        "note: write `match?` for a match that is allowed to fail at run time\n"
        "help: add a clause for `None()`, or a final `_` clause"
    )


def test_a_syntax_error_and_a_warning(client: LspClient) -> None:
    text = "def @main() {\n  %0 = 1;\n  2\n}\ndef @f( {\n"
    uri = f"file:///tmp/relay-lsp-test/syntax{next(_counter)}.rly"
    mark = client.mark()
    client.open(uri, text, 1)
    diags = client.diagnostics(uri, 1, mark)["diagnostics"]
    assert [(d["code"], d["severity"]) for d in diags] == [("syntax-error", 1)]
    text = "def @main() {\n  %0 = 1;\n  2\n}\n"
    mark = client.mark()
    client.change(uri, 2, [{"text": text}])  # a full-text change
    (warning,) = client.diagnostics(uri, 2, mark)["diagnostics"]
    assert warning["code"] == "unused-binding"
    assert warning["severity"] == 2
    assert warning["tags"] == [1]  # unnecessary: editors fade it
    assert warning["range"] == rng(1, 2, 1, 4)


def test_close_clears_the_diagnostics(client: LspClient) -> None:
    uri = f"file:///tmp/relay-lsp-test/closed{next(_counter)}.rly"
    mark = client.mark()
    client.open(uri, "def @main() { %nope }\n", 1)
    assert client.diagnostics(uri, 1, mark)["diagnostics"]
    mark = client.mark()
    client.close(uri)
    assert client.diagnostics(uri, after=mark)["diagnostics"] == []


# ---------------------------------------------------------------- hover


HOVERS = [
    ("%r }", 0, "```relay\n%r : float32\n```", rng(9, 34, 9, 36)),
    ("%0 =", 0, "```relay\n%0 : Tensor[(1, 4, 8, 8), float32]\n```", rng(15, 2, 15, 4)),
    ("@area(Circle", 0, "```relay\n@area : fn(Shape) -> float32\n```\n\nThe area of a shape.", rng(16, 15, 16, 20)),
    (
        "@length",
        0,
        (
            "```relay\n@length : fn<a>(List[a]) -> int32\n```\n\nThe number of elements.\n\nDefined in the "
            "Prelude (`relay_text/std/prelude.rly`)."
        ),
        rng(17, 24, 17, 31),
    ),
    ("Circle(1", 0, "```relay\nCircle : fn(float32) -> Shape\n```\n\nA constructor of `Shape`.", rng(16, 21, 16, 27)),
    (
        "nn.relu",
        0,
        (
            "```relay\nnn.relu(x1)\n```\n\nmax(x, 0), elementwise.\n\nAt this call: `fn(Tensor[(1, 4, 8, 8), "
            "float32]) -> Tensor[(1, 4, 8, 8), float32]`"
        ),
        rng(17, 3, 17, 10),
    ),
    (
        "padding",
        0,
        "```relay\npadding=(0, 0)\n```\n\nAn attribute of `nn.conv2d`: a list of integers; the default is `(0, 0)`.",
        rng(15, 25, 15, 32),
    ),
    ("3.14", 0, "```relay\nfloat32\n```", rng(9, 22, 9, 26)),
    ("match", 0, "```relay\nfloat32\n```", rng(8, 2, 11, 3)),
]


@pytest.mark.parametrize(("needle", "nth", "value", "where"), HOVERS, ids=[h[0] for h in HOVERS])
def test_hover(client: LspClient, needle: str, nth: int, value: str, where: dict) -> None:
    uri = open_doc(client, name="hover")
    result = client.request("textDocument/hover", at(uri, position_of(DOC, needle, nth, 1)))
    assert result == {"contents": {"kind": "markdown", "value": value}, "range": where}


def test_hover_on_a_data_type_shows_its_definition(client: LspClient) -> None:
    uri = open_doc(client, name="hover")
    result = client.request("textDocument/hover", at(uri, position_of(DOC, "Shape)")))
    assert result["contents"]["value"].startswith(
        "```relay\ndata Shape {\n  Circle : (float32) -> Shape\n  Square : (float32) -> Shape\n}\n```"
    )


def test_hover_on_blank_space_or_a_comment_is_empty(client: LspClient) -> None:
    uri = open_doc(client, name="hover")
    assert client.request("textDocument/hover", at(uri, {"line": 0, "character": 5})) is None
    assert client.request("textDocument/hover", at(uri, {"line": 5, "character": 0})) is None


def test_hover_in_plain_text_for_a_client_without_markdown() -> None:
    c = LspClient()
    try:
        c.initialize({"textDocument": {"hover": {"contentFormat": ["plaintext"]}}})
        uri = open_doc(c, name="plain")
        result = c.request("textDocument/hover", at(uri, position_of(DOC, "%r }")))
        assert result["contents"] == {"kind": "plaintext", "value": "%r : float32"}
        c.shutdown()
    finally:
        c.kill()


# ---------------------------------------------------------------- definition and references


DEFINITIONS = [
    ("%r }", 0, rng(9, 16, 9, 18)),  # pattern variable
    ("%s)", 0, rng(7, 10, 7, 12)),  # parameter, used inside `( )`
    ("%0)", 0, rng(15, 2, 15, 4)),  # graph binding
    ("%total,", 0, rng(16, 6, 16, 12)),  # let
    ("@area(Square", 0, rng(7, 4, 7, 9)),  # global
    ("Square(2", 0, rng(3, 2, 3, 8)),  # constructor
    ("Shape)", 0, rng(1, 5, 1, 10)),  # data type
]


@pytest.mark.parametrize(("needle", "nth", "where"), DEFINITIONS, ids=[d[0] for d in DEFINITIONS])
def test_definition(client: LspClient, needle: str, nth: int, where: dict) -> None:
    uri = open_doc(client, name="definition")
    result = client.request("textDocument/definition", at(uri, position_of(DOC, needle, nth, 1)))
    assert result == [{"uri": uri, "range": where}]


def test_definition_of_a_prelude_global_and_constructor(client: LspClient) -> None:
    uri = open_doc(client, name="definition")
    result = client.request("textDocument/definition", at(uri, position_of(DOC, "@length")))
    start = prelude_position("@length<a>")
    assert result == [
        {
            "uri": PRELUDE_URI,
            "range": {"start": start, "end": {"line": start["line"], "character": start["character"] + 7}},
        }
    ]
    result = client.request("textDocument/definition", at(uri, position_of(DOC, "Nil()")))
    start = prelude_position("Nil : ")
    assert result == [
        {
            "uri": PRELUDE_URI,
            "range": {"start": start, "end": {"line": start["line"], "character": start["character"] + 3}},
        }
    ]


def test_definition_of_an_operator_is_empty(client: LspClient) -> None:
    uri = open_doc(client, name="definition")
    assert client.request("textDocument/definition", at(uri, position_of(DOC, "nn.conv2d"))) is None


def test_references_of_a_local(client: LspClient) -> None:
    uri = open_doc(client, name="references")
    params = at(uri, position_of(DOC, "%total,"))
    params["context"] = {"includeDeclaration": True}
    result = client.request("textDocument/references", params)
    assert result == [
        {"uri": uri, "range": rng(16, 6, 16, 12)},
        {"uri": uri, "range": rng(17, 16, 17, 22)},
        {"uri": uri, "range": rng(17, 37, 17, 43)},
    ]
    params["context"] = {"includeDeclaration": False}
    assert client.request("textDocument/references", params) == result[1:]


def test_references_of_a_parameter_under_shadowing() -> None:
    text = "def @f(%x : int32) {\n  let %x = %x + 1;\n  %x * 2\n}\n"
    c = LspClient()
    try:
        c.initialize()
        uri = open_doc(c, text, "shadow")
        params = at(uri, position(text, text.index("%x + 1")))
        params["context"] = {"includeDeclaration": True}
        assert c.request("textDocument/references", params) == [
            {"uri": uri, "range": rng(0, 7, 0, 9)},
            {"uri": uri, "range": rng(1, 11, 1, 13)},
        ]
        params = at(uri, position(text, text.index("%x * 2")))
        params["context"] = {"includeDeclaration": True}
        assert c.request("textDocument/references", params) == [
            {"uri": uri, "range": rng(1, 6, 1, 8)},
            {"uri": uri, "range": rng(2, 2, 2, 4)},
        ]
        c.shutdown()
    finally:
        c.kill()


def test_references_of_a_global_and_a_constructor(client: LspClient) -> None:
    uri = open_doc(client, name="references")
    params = at(uri, position_of(DOC, "@area("))
    params["context"] = {"includeDeclaration": True}
    assert client.request("textDocument/references", params) == [
        {"uri": uri, "range": rng(7, 4, 7, 9)},
        {"uri": uri, "range": rng(16, 15, 16, 20)},
        {"uri": uri, "range": rng(16, 36, 16, 41)},
    ]
    params = at(uri, position_of(DOC, "Cons"))
    params["context"] = {"includeDeclaration": True}
    start = prelude_position("Cons : ")
    assert client.request("textDocument/references", params) == [
        {
            "uri": PRELUDE_URI,
            "range": {"start": start, "end": {"line": start["line"], "character": start["character"] + 4}},
        },
        {"uri": uri, "range": rng(17, 32, 17, 36)},
    ]


# ---------------------------------------------------------------- formatting


def apply_edits(text: str, edits: list[dict]) -> str:
    """Apply LSP text edits (non-overlapping, UTF-16 positions)."""
    lines = text.split("\n")

    def offset(pos: dict) -> int:
        before = sum(len(line) + 1 for line in lines[: pos["line"]])
        line = lines[pos["line"]] if pos["line"] < len(lines) else ""
        units = 0
        col = 0
        while col < len(line) and units < pos["character"]:
            units += 2 if ord(line[col]) > 0xFFFF else 1
            col += 1
        return before + col

    spans = sorted(
        ((offset(e["range"]["start"]), offset(e["range"]["end"]), e["newText"]) for e in edits), reverse=True
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def test_formatting_edits_give_relay_fmt_output(client: LspClient) -> None:
    messy = DOC.replace(
        "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);", "  %0 =   nn.conv2d( %x,%w,padding=[1,1,1,1] ) ;"
    ).replace("    case Square(%side) { %side * %side }", "    case Square(%side) {\n %side * %side }")
    uri = open_doc(client, messy, "format")
    edits = client.request(
        "textDocument/formatting", {"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": True}}
    )
    assert edits, "the messy text should change"
    assert apply_edits(messy, edits) == relay_format(messy)
    assert all(e["range"]["start"]["line"] >= 9 for e in edits)  # untouched lines stay untouched


def test_formatting_a_formatted_file_changes_nothing(client: LspClient) -> None:
    text = relay_format(DOC)
    uri = open_doc(client, text, "format")
    assert (
        client.request(
            "textDocument/formatting", {"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": True}}
        )
        == []
    )


def test_formatting_a_file_with_errors_is_an_error(client: LspClient) -> None:
    uri = f"file:///tmp/relay-lsp-test/bad{next(_counter)}.rly"
    mark = client.mark()
    client.open(uri, "def @main() {\n  (1, \n}\n", 1)
    client.diagnostics(uri, 1, mark)
    with pytest.raises(ResponseError) as err:
        client.request(
            "textDocument/formatting", {"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": True}}
        )
    assert err.value.code == -32803
    assert err.value.message.startswith("cannot format this file: 3:1: error[syntax-error]: ")


def test_formatting_keeps_crlf_line_ends(client: LspClient) -> None:
    text = "def @main() {\r\n  1 +   2\r\n}\r\n"
    uri = open_doc(client, text, "crlf")
    edits = client.request(
        "textDocument/formatting", {"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": True}}
    )
    out = apply_edits(text.replace("\r\n", "\n"), [{**e, "newText": e["newText"].replace("\r\n", "\n")} for e in edits])
    assert out == "def @main() {\n  1 + 2\n}\n"
    assert all("\r\n" in e["newText"] or "\n" not in e["newText"] for e in edits)


# ---------------------------------------------------------------- completion


def complete(client: LspClient, uri: str, pos: dict) -> list[dict]:
    result = client.request("textDocument/completion", at(uri, pos))
    return sorted(result["items"], key=lambda i: i.get("sortText", i["label"]))


def test_completion_of_locals_in_scope(client: LspClient) -> None:
    uri = open_doc(client, name="complete")
    pos = position_of(DOC, "%total,", 0, 1)  # just after `%`
    items = complete(client, uri, pos)
    assert [i["label"] for i in items] == ["%total", "%0", "%w", "%x"]
    assert items[0]["detail"] == "float32"
    assert items[0]["textEdit"] == {"range": {"start": {"line": 17, "character": 16}, "end": pos}, "newText": "%total"}


def test_completion_of_locals_while_the_text_does_not_parse(client: LspClient) -> None:
    text = DOC.replace("  (nn.relu(%0), %total, @length(Cons(%total, Nil())))\n", "  (nn.relu(%")
    uri = f"file:///tmp/relay-lsp-test/typing{next(_counter)}.rly"
    mark = client.mark()
    client.open(uri, text, 1)
    client.diagnostics(uri, 1, mark)
    items = complete(client, uri, position(text, text.index("(nn.relu(%") + len("(nn.relu(%")))
    assert {"%total", "%0", "%x", "%w"} <= {i["label"] for i in items}
    assert not {"%s", "%r", "%side"} & {i["label"] for i in items}


def test_completion_of_globals(client: LspClient) -> None:
    uri = open_doc(client, name="complete")
    items = complete(client, uri, position_of(DOC, "@area(Circle", 0, 1))
    by_label = {i["label"]: i for i in items}
    assert by_label["@area"]["detail"] == "fn(Shape) -> float32"
    assert by_label["@map"]["detail"] == "fn<a, b>(fn(a) -> b, List[a]) -> List[b]"
    assert by_label["@map"]["labelDetails"] == {"description": "Prelude"}
    assert [i["label"] for i in items[:2]] == ["@area", "@main"]  # the file's own first


def test_completion_of_operator_attributes(client: LspClient) -> None:
    uri = open_doc(client, name="complete")
    items = complete(client, uri, position_of(DOC, "padding"))
    labels = [i["label"] for i in items]
    assert labels[:4] == ["strides", "dilation", "groups", "channels"]
    assert "padding" not in labels  # given already
    assert items[0]["textEdit"]["newText"] == "strides="
    assert items[0]["detail"] == "nn.conv2d attribute (default (1, 1))"


def test_completion_of_names_replaces_a_dotted_prefix(client: LspClient) -> None:
    uri = open_doc(client, name="complete")
    pos = position_of(DOC, "nn.relu", 0, 5)  # after `nn.re`
    items = complete(client, uri, pos)
    relu = next(i for i in items if i["label"] == "nn.relu")
    assert relu["textEdit"] == {"range": {"start": {"line": 17, "character": 3}, "end": pos}, "newText": "nn.relu"}
    assert relu["detail"] == "nn.relu(x1)"
    labels = {i["label"] for i in items}
    assert {"Circle", "Cons", "Shape", "List", "nn.conv2d", "match"} <= labels


def test_no_completion_inside_a_comment(client: LspClient) -> None:
    uri = open_doc(client, name="complete")
    assert complete(client, uri, {"line": 0, "character": 10}) == []


# ---------------------------------------------------------------- symbols and tokens


def test_document_symbols(client: LspClient) -> None:
    uri = open_doc(client, name="symbols")
    result = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [(s["name"], s["kind"], s.get("detail")) for s in result] == [
        ("Shape", 10, "data type"),
        ("@area", 12, "fn(Shape) -> float32"),
        (
            "@main",
            12,
            (
                "fn(Tensor[(1, 3, 8, 8), float32], Tensor[(4, 3, 3, 3), float32]) -> (Tensor[(1, 4, 8, 8), "
                "float32], float32, int32)"
            ),
        ),
    ]
    assert result[0]["range"] == rng(1, 0, 4, 1)
    assert result[0]["selectionRange"] == rng(1, 5, 1, 10)
    assert [(c["name"], c["kind"], c["detail"]) for c in result[0]["children"]] == [
        ("Circle", 22, "fn(float32) -> Shape"),
        ("Square", 22, "fn(float32) -> Shape"),
    ]
    assert result[1]["range"] == rng(7, 0, 12, 1)
    assert result[1]["selectionRange"] == rng(7, 4, 7, 9)


def test_document_symbols_of_a_file_that_does_not_parse(client: LspClient) -> None:
    text = DOC + "def @broken( {\n"
    uri = f"file:///tmp/relay-lsp-test/symbols_broken{next(_counter)}.rly"
    mark = client.mark()
    client.open(uri, text, 1)
    client.diagnostics(uri, 1, mark)
    result = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [s["name"] for s in result] == ["Shape", "@area", "@main", "@broken"]


def decode_tokens(data: list[int], legend: dict) -> list[tuple[int, int, int, str, set[str]]]:
    out = []
    line = col = 0
    for i in range(0, len(data), 5):
        dl, dc, length, ttype, mods = data[i : i + 5]
        line += dl
        col = col + dc if dl == 0 else dc
        names = {m for b, m in enumerate(legend["tokenModifiers"]) if mods & (1 << b)}
        out.append((line, col, length, legend["tokenTypes"][ttype], names))
    return out


def test_semantic_tokens(client: LspClient) -> None:
    c = LspClient()
    try:
        legend = c.initialize()["capabilities"]["semanticTokensProvider"]["legend"]
        uri = open_doc(c, name="tokens")
        data = c.request("textDocument/semanticTokens/full", {"textDocument": {"uri": uri}})["data"]
        tokens = {(t[0], t[1]): t[2:] for t in decode_tokens(data, legend)}
        assert tokens[(0, 0)] == (29, "comment", set())  # 28 characters, the emoji is 2 UTF-16 units
        assert tokens[(1, 0)] == (4, "keyword", set())
        assert tokens[(1, 5)] == (5, "type", {"declaration"})
        assert tokens[(2, 2)] == (6, "enumMember", {"declaration"})
        assert tokens[(2, 24)] == (5, "type", set())  # Shape
        assert tokens[(7, 4)] == (5, "function", {"declaration"})
        assert tokens[(7, 10)] == (2, "parameter", {"declaration"})
        assert tokens[(9, 16)] == (2, "variable", {"declaration"})
        assert tokens[(9, 22)] == (4, "number", set())
        assert tokens[(9, 27)] == (1, "operator", set())
        assert tokens[(15, 2)] == (2, "variable", {"declaration", "readonly"})
        assert tokens[(15, 7)] == (9, "function", {"defaultLibrary"})
        assert tokens[(15, 25)] == (7, "property", set())
        assert tokens[(17, 24)] == (7, "function", {"defaultLibrary"})
        assert tokens[(17, 32)] == (4, "enumMember", {"defaultLibrary"})
        c.shutdown()
    finally:
        c.kill()


def test_requests_on_every_sample_do_not_fail(client: LspClient) -> None:
    """Every feature on every sample (and corpus file): answers, never errors."""
    root = Path(__file__).resolve().parents[2]
    files = sorted((root / "samples").rglob("*.rly"))
    corpus = root.parent / "shared" / "corpus"
    files += sorted(corpus.glob("*.rly")) if corpus.is_dir() else []
    for path in files:
        text = path.read_text(encoding="utf-8")
        uri = path.resolve().as_uri()
        mark = client.mark()
        client.open(uri, text, 1)
        client.diagnostics(uri, 1, mark)
        doc = {"textDocument": {"uri": uri}}
        client.request("textDocument/documentSymbol", doc)
        client.request("textDocument/semanticTokens/full", doc)
        lines = text.split("\n")
        for n in range(0, len(lines), max(1, len(lines) // 15)):
            for col in range(0, min(len(lines[n]), 60), 7):
                pos = {"line": n, "character": col}
                client.request("textDocument/hover", at(uri, pos))
                client.request("textDocument/definition", at(uri, pos))
                client.request("textDocument/references", {**at(uri, pos), "context": {"includeDeclaration": True}})
        client.request("textDocument/completion", at(uri, {"line": len(lines) // 2, "character": 2}))
        client.close(uri)


def test_the_ignore_setting_silences_warnings_as_relay_check_does(client: LspClient, tmp_path: Path) -> None:
    """`[tool.relay] ignore` in the nearest pyproject.toml applies to the
    published diagnostics as to `relay check`: the listed warning is gone,
    errors and other warnings stay."""
    (tmp_path / "pyproject.toml").write_text('[tool.relay]\nignore = ["unused-binding"]\n')
    (tmp_path / "sub").mkdir()
    text = "def @main() {\n  %0 = 1;\n  2\n}\ndef @f() { %nope }\n"
    uri = (tmp_path / "sub" / "a.rly").as_uri()
    mark = client.mark()
    client.open(uri, text, 1)
    diags = client.diagnostics(uri, 1, mark)["diagnostics"]
    assert [(d["code"], d["range"]) for d in diags] == [("unbound-variable", rng(4, 11, 4, 16))]
    outside = f"file:///tmp/relay-lsp-test/noignore{next(_counter)}.rly"
    mark = client.mark()
    client.open(outside, text, 1)
    codes = [d["code"] for d in client.diagnostics(outside, 1, mark)["diagnostics"]]
    assert codes == ["unused-binding", "unbound-variable"]
