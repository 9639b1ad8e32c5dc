"""textDocument/inlayHint through the protocol: the inferred type after
each `let` binding written without a type and each graph binding."""

from __future__ import annotations

from .client import LspClient
from .test_server import _counter, open_doc, rng


def hints(client: LspClient, uri: str, where: dict) -> list[tuple[dict, str, int]]:
    result = client.request("textDocument/inlayHint", {"textDocument": {"uri": uri}, "range": where})
    return [(h["position"], h["label"], h["kind"]) for h in result]


def pos(line: int, character: int) -> dict:
    return {"line": line, "character": character}


TYPE = 1  # InlayHintKind.Type


def test_let_and_graph_bindings_get_their_types(client: LspClient) -> None:
    uri = open_doc(client, name="inlay")
    assert hints(client, uri, rng(0, 0, 19, 0)) == [
        (pos(15, 4), ": Tensor[(1, 4, 8, 8), float32]", TYPE),  # after `%0`
        (pos(16, 12), ": float32", TYPE),  # after `let %total`; the file writes scalars as dtypes
    ]


def test_only_the_bindings_in_the_range(client: LspClient) -> None:
    uri = open_doc(client, name="inlay")
    assert hints(client, uri, rng(16, 0, 17, 0)) == [(pos(16, 12), ": float32", TYPE)]
    assert hints(client, uri, rng(0, 0, 14, 0)) == []


ANNOTATED = """\
def @main(%x : Tensor[(2, 3), float32]) {
  %0 = add(%x, %x) /* ty=Tensor[(2, 3), float32] */;
  %1 = sum(%0, axis=[1]);
  let %s : Tensor[(2), float32] = %1;
  let %t = (%s, 1);
  match (Some(%t)) {
    case Some(%u) { %u }
    case None { %t }
  }
}
"""


def test_no_hint_where_the_type_is_written(client: LspClient) -> None:
    """`%0` has TVM's type comment, `%s` its annotation; pattern variables
    (`%u`) and parameters get no hint."""
    uri = open_doc(client, ANNOTATED, "inlay")
    assert hints(client, uri, rng(0, 0, 10, 0)) == [
        (pos(2, 4), ": Tensor[(2), float32]", TYPE),
        (pos(4, 8), ": (Tensor[(2), float32], Tensor[(), int32])", TYPE),
    ]


def test_long_types_are_cut(client: LspClient) -> None:
    text = "def @main(%x : Tensor[(1, 2, 3, 4, 5, 6, 7, 8), float32]) {\n  %0 = (%x, %x, %x, %x);\n  %0\n}\n"
    uri = open_doc(client, text, "inlay")
    ((where, label, _kind),) = hints(client, uri, rng(0, 0, 4, 0))
    assert where == pos(1, 4)
    assert label.startswith(": (Tensor[(1, 2, 3, 4, 5, 6, 7, 8), float32], Tensor[(1, 2, 3, 4, 5")
    assert label.endswith(" ...")
    assert len(label) <= 2 + 80 + 4


def test_hints_while_another_definition_is_broken(client: LspClient) -> None:
    """`@f` does not parse; `@main`'s bindings still get their hints, where
    their types do not depend on `@f`."""
    text = (
        "def @f(%a : int32) {\n  %a +\n}\n\ndef @main(%x : int32) {\n  let %y = %x * 2;\n  %0 = @f(%y);\n  "
        "(%y, %0)\n}\n"
    )
    uri = f"file:///tmp/relay-lsp-test/inlay_broken{next(_counter)}.rly"
    mark = client.mark()
    client.open(uri, text, 1)
    assert [d["code"] for d in client.diagnostics(uri, 1, mark)["diagnostics"]] == ["syntax-error"]
    assert hints(client, uri, rng(0, 0, 9, 0)) == [(pos(5, 8), ": int32", TYPE)]  # `%0`'s type is unknown: no hint


def test_the_server_announces_inlay_hints() -> None:
    c = LspClient()
    try:
        assert c.initialize()["capabilities"]["inlayHintProvider"] == {"resolveProvider": False}
    finally:
        c.kill()
