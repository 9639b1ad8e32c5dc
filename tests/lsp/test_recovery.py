"""The editor keeps helping while a file has syntax errors.

Hover, go to definition, references, document symbols and completion
answer from the definitions that still parse (the file checked with its
broken definitions blanked) and, inside a broken definition, from the
last version of the document that parsed where its text is unchanged.
"""

from __future__ import annotations

from .client import LspClient, position, position_of
from .test_server import DOC, _counter, at, open_doc, rng

# `@area`'s first match arm loses its closing brace: a syntax error at the
# next `case` (line 10), in `@area` only.
BROKEN = DOC.replace("{ 3.14 * %r * %r }", "{ 3.14 * %r * ")


def edited(client: LspClient, text: str = BROKEN) -> str:
    """A document opened as DOC (which parses), then edited to `text`."""
    uri = open_doc(client, name="recover")
    mark = client.mark()
    client.change(uri, 2, [{"text": text}])
    diags = client.diagnostics(uri, 2, mark)["diagnostics"]
    assert [d["code"] for d in diags] == ["syntax-error"]
    return uri


def opened_broken(client: LspClient, text: str) -> str:
    """A document that never parsed."""
    uri = f"file:///tmp/relay-lsp-test/never{next(_counter)}.rly"
    mark = client.mark()
    client.open(uri, text, 1)
    assert [d["code"] for d in client.diagnostics(uri, 1, mark)["diagnostics"]] == ["syntax-error"]
    return uri


def hover_value(client: LspClient, uri: str, pos: dict) -> tuple[str, dict] | None:
    result = client.request("textDocument/hover", at(uri, pos))
    return None if result is None else (result["contents"]["value"], result["range"])


def test_the_broken_file_reports_its_syntax_error(client: LspClient) -> None:
    uri = open_doc(client, name="recover")
    mark = client.mark()
    client.change(uri, 2, [{"text": BROKEN}])
    (diag,) = client.diagnostics(uri, 2, mark)["diagnostics"]
    assert (diag["message"], diag["range"]) == ("expected an expression, found `case`", rng(10, 4, 10, 8))


def test_hover_in_a_definition_that_parses(client: LspClient) -> None:
    uri = edited(client)
    assert hover_value(client, uri, position_of(BROKEN, "%0 =")) == (
        "```relay\n%0 : Tensor[(1, 4, 8, 8), float32]\n```",
        rng(15, 2, 15, 4),
    )
    assert hover_value(client, uri, position_of(BROKEN, "Circle(1")) == (
        "```relay\nCircle : fn(float32) -> Shape\n```\n\nA constructor of `Shape`.",
        rng(16, 21, 16, 27),
    )


def test_hover_on_what_depends_on_the_broken_definition_takes_the_last_good_type(client: LspClient) -> None:
    """`%total` calls the broken `@area`: the recovered check cannot type it
    (it would show `_`); the version that parsed knew `float32`."""
    uri = edited(client)
    assert hover_value(client, uri, position_of(BROKEN, "%total =")) == (
        "```relay\n%total : float32\n```",
        rng(16, 6, 16, 12),
    )
    assert hover_value(client, uri, position_of(BROKEN, "@area(Square")) == (
        "```relay\n@area : fn(Shape) -> float32\n```\n\nThe area of a shape.",
        rng(16, 36, 16, 41),
    )


def test_hover_inside_the_broken_definition_uses_the_last_good_version(client: LspClient) -> None:
    uri = edited(client)
    assert hover_value(client, uri, position_of(BROKEN, "%side *")) == (
        "```relay\n%side : float32\n```",
        rng(10, 25, 10, 30),
    )
    assert hover_value(client, uri, position_of(BROKEN, "%r * ")) == ("```relay\n%r : float32\n```", rng(9, 29, 9, 31))


def test_definition_and_references_while_broken(client: LspClient) -> None:
    uri = edited(client)
    assert client.request("textDocument/definition", at(uri, position_of(BROKEN, "@area(Circle"))) == [
        {"uri": uri, "range": rng(7, 4, 7, 9)}
    ]
    assert client.request("textDocument/definition", at(uri, position_of(BROKEN, "%total,"))) == [
        {"uri": uri, "range": rng(16, 6, 16, 12)}
    ]
    # in the broken definition: `%r` is bound by its pattern
    assert client.request("textDocument/definition", at(uri, position_of(BROKEN, "%r * "))) == [
        {"uri": uri, "range": rng(9, 16, 9, 18)}
    ]
    params = at(uri, position_of(BROKEN, "%total,"))
    params["context"] = {"includeDeclaration": True}
    assert client.request("textDocument/references", params) == [
        {"uri": uri, "range": rng(16, 6, 16, 12)},
        {"uri": uri, "range": rng(17, 16, 17, 22)},
        {"uri": uri, "range": rng(17, 37, 17, 43)},
    ]


def test_document_symbols_while_broken(client: LspClient) -> None:
    """The broken `@area` ends at its last token, not at the end of the file
    (its unclosed braces do not swallow `@main`)."""
    uri = edited(client)
    result = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [(s["name"], s["kind"], s["range"], s["selectionRange"], s.get("detail")) for s in result] == [
        ("Shape", 10, rng(1, 0, 4, 1), rng(1, 5, 1, 10), "data type"),
        ("@area", 12, rng(7, 0, 12, 1), rng(7, 4, 7, 9), "fn(Shape) -> float32"),
        (
            "@main",
            12,
            rng(14, 0, 18, 1),
            rng(14, 4, 14, 9),
            (
                "fn(Tensor[(1, 3, 8, 8), float32], Tensor[(4, 3, 3, 3), float32]) -> (Tensor[(1, 4, 8, 8), "
                "float32], float32, int32)"
            ),
        ),
    ]
    assert [c["name"] for c in result[0]["children"]] == ["Circle", "Square"]


def test_completion_while_broken(client: LspClient) -> None:
    uri = edited(client)
    result = client.request("textDocument/completion", at(uri, position_of(BROKEN, "%total,", 0, 1)))
    items = sorted(result["items"], key=lambda i: i["sortText"])
    assert [(i["label"], i.get("detail")) for i in items] == [
        ("%total", "float32"),
        ("%0", "Tensor[(1, 4, 8, 8), float32]"),
        ("%w", "Tensor[(4, 3, 3, 3), float32]"),
        ("%x", "Tensor[(1, 3, 8, 8), float32]"),
    ]
    result = client.request("textDocument/completion", at(uri, position_of(BROKEN, "@area(Circle", 0, 1)))
    details = {i["label"]: i.get("detail") for i in result["items"]}
    assert details["@area"] == "fn(Shape) -> float32"
    assert details["@main"].endswith("-> (Tensor[(1, 4, 8, 8), float32], float32, int32)")


NEVER = (
    "def @f(%a: int32) -> int32 {\n  %a + 1\n}\n\ndef @g(%b: int32) {\n  let %c = @f(%b);\n  %c +\n}\n\ndef "
    "@h() {\n  @f(2)\n}\n"
)


def test_a_file_that_never_parsed(client: LspClient) -> None:
    """No good version to fall back on: the definitions that parse still
    answer; the broken one has its names from its tokens."""
    uri = opened_broken(client, NEVER)
    assert hover_value(client, uri, position_of(NEVER, "@f(2")) == (
        "```relay\n@f : fn(int32) -> int32\n```",
        rng(10, 2, 10, 4),
    )
    assert hover_value(client, uri, position_of(NEVER, "@f(%b")) == (
        "```relay\n@f : fn(int32) -> int32\n```",
        rng(5, 11, 5, 13),
    )
    assert hover_value(client, uri, position_of(NEVER, "%c +")) is None  # its `let` never checked
    assert client.request("textDocument/definition", at(uri, position_of(NEVER, "%c +"))) == [
        {"uri": uri, "range": rng(5, 6, 5, 8)}
    ]
    result = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [(s["name"], s["range"], s.get("detail")) for s in result] == [
        ("@f", rng(0, 0, 2, 1), "fn(int32) -> int32"),
        ("@g", rng(4, 0, 7, 1), None),
        ("@h", rng(9, 0, 11, 1), "fn() -> int32"),
    ]
    pos = position(NEVER, NEVER.index("%c +") + 1)
    labels = [
        i["label"]
        for i in client.request("textDocument/completion", at(uri, pos))["items"]
        if i["label"].startswith("%")
    ]
    assert sorted(labels) == ["%b", "%c"]


FIRST_BROKEN = (
    '#[version = "0.0.5"]\n// the first definition is broken\ndef @f(%a : int32) {\n  (%a,\n}\n\ndef @g(%b : '
    "int32) {\n  %b * 2\n}\n"
)


def test_the_first_definition_broken_after_the_header(client: LspClient) -> None:
    """The header and the comment before a broken first definition stay
    (the file keeps its dialect); the definition is left out whole."""
    uri = opened_broken(client, FIRST_BROKEN)
    assert hover_value(client, uri, position_of(FIRST_BROKEN, "%b * 2")) == (
        "```relay\n%b : int32\n```",
        rng(7, 2, 7, 4),
    )
    result = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [(s["name"], s["range"], s.get("detail")) for s in result] == [
        ("@f", rng(2, 0, 4, 1), None),
        ("@g", rng(6, 0, 8, 1), "fn(int32) -> int32"),
    ]
