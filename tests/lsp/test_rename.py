"""textDocument/prepareRename and textDocument/rename through the protocol.

Every accepted rename is checked to keep the program's meaning (the same
names refer to the same things, no new error); the refused ones fail with
LSP's RequestFailed and a message saying why.
"""

from __future__ import annotations

import pytest

from .client import LspClient, ResponseError, position_of
from .test_server import DOC, _counter, at, open_doc, rng


def prepare(client: LspClient, uri: str, pos: dict) -> dict:
    return client.request("textDocument/prepareRename", at(uri, pos))


def rename(client: LspClient, uri: str, pos: dict, new_name: str) -> list[tuple[dict, str]]:
    result = client.request("textDocument/rename", {**at(uri, pos), "newName": new_name})
    assert list(result["changes"]) == [uri]
    return [(e["range"], e["newText"]) for e in result["changes"][uri]]


def refused(client: LspClient, method: str, uri: str, pos: dict, new_name: str | None = None) -> str:
    params = at(uri, pos)
    if new_name is not None:
        params["newName"] = new_name
    with pytest.raises(ResponseError) as err:
        client.request(method, params)
    assert err.value.code == -32803  # RequestFailed
    return err.value.message


@pytest.fixture(scope="module")
def doc(client: LspClient) -> str:
    return open_doc(client, name="rename")


def test_prepare_gives_the_whole_name_with_its_sigil(client: LspClient, doc: str) -> None:
    assert prepare(client, doc, position_of(DOC, "%total,", 0, 3)) == {
        "range": rng(17, 16, 17, 22),
        "placeholder": "%total",
    }
    assert prepare(client, doc, position_of(DOC, "@area(Square")) == {
        "range": rng(16, 36, 16, 41),
        "placeholder": "@area",
    }
    assert prepare(client, doc, position_of(DOC, "Shape {")) == {"range": rng(1, 5, 1, 10), "placeholder": "Shape"}


def test_rename_a_let_variable_without_its_sigil(client: LspClient, doc: str) -> None:
    assert rename(client, doc, position_of(DOC, "%total ="), "sum") == [
        (rng(16, 6, 16, 12), "%sum"),
        (rng(17, 16, 17, 22), "%sum"),
        (rng(17, 37, 17, 43), "%sum"),
    ]


def test_rename_a_graph_binding(client: LspClient, doc: str) -> None:
    assert rename(client, doc, position_of(DOC, "%0)"), "%conv") == [
        (rng(15, 2, 15, 4), "%conv"),
        (rng(17, 11, 17, 13), "%conv"),
    ]


def test_rename_a_pattern_variable(client: LspClient, doc: str) -> None:
    assert rename(client, doc, position_of(DOC, "%r }"), "%radius") == [
        (rng(9, 16, 9, 18), "%radius"),
        (rng(9, 29, 9, 31), "%radius"),
        (rng(9, 34, 9, 36), "%radius"),
    ]


def test_rename_a_global(client: LspClient, doc: str) -> None:
    assert rename(client, doc, position_of(DOC, "@area(Circle"), "@area_of") == [
        (rng(7, 4, 7, 9), "@area_of"),
        (rng(16, 15, 16, 20), "@area_of"),
        (rng(16, 36, 16, 41), "@area_of"),
    ]


def test_rename_a_constructor(client: LspClient, doc: str) -> None:
    assert rename(client, doc, position_of(DOC, "Circle : "), "Disc") == [
        (rng(2, 2, 2, 8), "Disc"),
        (rng(9, 9, 9, 15), "Disc"),
        (rng(16, 21, 16, 27), "Disc"),
    ]


def test_rename_a_data_type(client: LspClient, doc: str) -> None:
    assert rename(client, doc, position_of(DOC, "Shape)"), "Figure") == [
        (rng(1, 5, 1, 10), "Figure"),
        (rng(2, 24, 2, 29), "Figure"),
        (rng(3, 24, 3, 29), "Figure"),
        (rng(7, 15, 7, 20), "Figure"),
    ]


def test_rename_to_the_same_name_is_no_edit(client: LspClient, doc: str) -> None:
    assert rename(client, doc, position_of(DOC, "%total ="), "%total") == []


REFUSED_NAMES = [
    ("Circle : ", "let", "`let` is a keyword: it cannot name a constructor"),
    ("Shape)", "match", "`match` is a keyword: it cannot name a data type"),
    ("Shape)", "float32", "`float32` is a dtype: it cannot name a data type"),
    ("Shape)", "%Shape", "`%Shape` cannot name a data type: it takes no sigil"),
    ("%total =", "1 + x", "`1 + x` is not a valid variable name (expected `%` then letters, digits and `_`)"),
    ("%total =", "@total", "`@total` cannot name a variable: its name begins with `%`"),
    (
        "@area(Circle",
        "@9lives",
        (
            "`@9lives` is not a valid global function name (expected `@` then a letter or `_`, then letters, "
            "digits and `_`)"
        ),
    ),
    (
        "@area(Circle",
        "@main",
        "renaming `@area` to `@main` would give an error: `@main` is defined more than once [duplicate-definition]",
    ),
    (
        "Circle : ",
        "Square",
        (
            "renaming `Circle` to `Square` would give an error: constructor `Square` is defined more than once "
            "[duplicate-definition]"
        ),
    ),
    ("@area(Circle", "@map", "the Prelude defines `@map`: a global function of that name would hide it"),
    ("Shape)", "List", "the Prelude defines `List`: a data type of that name would hide it"),
    ("Circle : ", "Cons", "the Prelude defines `Cons`: a constructor of that name would hide it"),
]


@pytest.mark.parametrize(
    ("needle", "new_name", "message"), REFUSED_NAMES, ids=[f"{n[0]}->{n[1]}" for n in REFUSED_NAMES]
)
def test_refused_names(client: LspClient, doc: str, needle: str, new_name: str, message: str) -> None:
    assert refused(client, "textDocument/rename", doc, position_of(DOC, needle), new_name) == message


NOT_RENAMABLE = [
    ("nn.relu", "`nn.relu` is an operator: operators cannot be renamed"),
    ("@length", "`@length` is defined in the Prelude: it cannot be renamed here"),
    ("Nil()", "`Nil` is defined in the Prelude: it cannot be renamed here"),
    ("def @main", "there is no name here to rename"),
]


@pytest.mark.parametrize(("needle", "message"), NOT_RENAMABLE, ids=[n[0] for n in NOT_RENAMABLE])
def test_prepare_refuses(client: LspClient, doc: str, needle: str, message: str) -> None:
    assert refused(client, "textDocument/prepareRename", doc, position_of(DOC, needle)) == message
    assert refused(client, "textDocument/rename", doc, position_of(DOC, needle), "anything") == message


CAPTURE = "def @f(%x : int32) {\n  let %y = 1;\n  %x + %y\n}\n"


def test_a_name_another_binding_would_capture_is_refused(client: LspClient) -> None:
    uri = open_doc(client, CAPTURE, "capture")
    message = refused(client, "textDocument/rename", uri, position_of(CAPTURE, "%x +"), "%y")
    assert message == "renaming `%x` to `%y` would change what names refer to: `%y` is already bound (line 2)"
    # the other way round: `%x` would hide the parameter
    message = refused(client, "textDocument/rename", uri, position_of(CAPTURE, "%y ="), "x")
    assert message == "renaming `%y` to `%x` would change what names refer to: `%x` is already bound (line 1)"


def test_shadowing_after_the_last_use_is_allowed(client: LspClient) -> None:
    """`%x` is not used after `let %y`: naming it `%x` hides nothing used."""
    text = "def @f(%x : int32) {\n  let %y = %x * 2;\n  %y + 1\n}\n"
    uri = open_doc(client, text, "shadow")
    assert rename(client, uri, position_of(text, "%y +"), "%x") == [(rng(1, 6, 1, 8), "%x"), (rng(2, 2, 2, 4), "%x")]


def test_no_rename_while_the_file_has_syntax_errors(client: LspClient) -> None:
    text = "def @f(%x : int32) {\n  %x +\n}\n"
    uri = f"file:///tmp/relay-lsp-test/rename_broken{next(_counter)}.rly"
    mark = client.mark()
    client.open(uri, text, 1)
    client.diagnostics(uri, 1, mark)
    message = refused(client, "textDocument/prepareRename", uri, position_of(text, "%x +"))
    assert (
        message
        == "cannot rename while the file has syntax errors: fix them first (a rename is checked against the whole file)"
    )


def test_the_server_announces_prepare_rename() -> None:
    """RenameOptions only for a client that says it supports prepareRename (LSP 3.17)."""
    for capabilities, provider in ((None, {"prepareProvider": True}), ({}, True)):
        c = LspClient()
        try:
            assert c.initialize(capabilities)["capabilities"]["renameProvider"] == provider
        finally:
            c.kill()
