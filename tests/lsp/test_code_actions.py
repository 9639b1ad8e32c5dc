"""textDocument/codeAction through the protocol: the fixes diagnostics
carry (those `relay check --fix` applies) as quick fixes, every safe fix
at once (`source.fixAll`, resolved lazily), and "show graph"."""

from __future__ import annotations

import pytest

from .client import LspClient, ResponseError, default_capabilities
from .test_server import _counter, rng

MISSING_SEMICOLON = "def @f() {\n  let %a = 1\n  let %b = 2;\n  %b\n}\n"
MISSPELT = "def @inc(%x : int32) {\n  %x + 1\n}\n\ndef @main() {\n  @incc(2)\n}\n"
TWO = "def @f(%x : int32) {\n  let %a = 1\n  let %b = %x;\n  if (%b = %a) { 2 } else { 3 }\n}\n"


# the `;` and the `==`, one edit a changed line
EDITS = [
    {"range": rng(1, 0, 2, 0), "newText": "  let %a = 1;\n"},
    {"range": rng(3, 0, 4, 0), "newText": "  if (%b == %a) { 2 } else { 3 }\n"},
]


def opened(client: LspClient, text: str) -> tuple[str, list[dict]]:
    uri = f"file:///tmp/relay-lsp-test/actions{next(_counter)}.rly"
    mark = client.mark()
    client.open(uri, text, 1)
    return uri, client.diagnostics(uri, 1, mark)["diagnostics"]


def code_actions(
    client: LspClient, uri: str, where: dict, diagnostics: list[dict], only: list[str] | None = None
) -> list[dict]:
    context: dict = {"diagnostics": diagnostics}
    if only is not None:
        context["only"] = only
    return (
        client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": where, "context": context})
        or []
    )


def test_a_safe_fix_is_the_preferred_quick_fix(client: LspClient) -> None:
    uri, diags = opened(client, MISSING_SEMICOLON)
    (diag,) = diags
    assert diag["range"] == rng(1, 12, 1, 12)  # where the `;` goes
    actions = code_actions(client, uri, rng(1, 12, 1, 12), diags, ["quickfix"])
    assert actions == [
        {
            "title": "Add the missing `;`",
            "kind": "quickfix",
            "diagnostics": [diag],
            "isPreferred": True,
            "edit": {"changes": {uri: [{"range": rng(1, 12, 1, 12), "newText": ";"}]}},
        }
    ]


def test_a_guess_among_close_names_is_offered_not_preferred(client: LspClient) -> None:
    uri, diags = opened(client, MISSPELT)
    (diag,) = diags
    assert diag["code"] == "unknown-global" and diag["range"] == rng(5, 2, 5, 7)
    actions = code_actions(client, uri, rng(5, 3, 5, 3), diags, ["quickfix"])
    assert actions == [
        {
            "title": "Replace with `@inc`",
            "kind": "quickfix",
            "diagnostics": [diag],
            "isPreferred": False,
            "edit": {"changes": {uri: [{"range": rng(5, 2, 5, 7), "newText": "@inc"}]}},
        }
    ]


def test_only_the_fixes_of_diagnostics_in_the_range(client: LspClient) -> None:
    uri, diags = opened(client, MISSPELT)
    assert code_actions(client, uri, rng(1, 0, 1, 3), diags, ["quickfix"]) == []


def test_every_safe_fix_at_once(client: LspClient) -> None:
    """A client that cannot resolve an action's edit gets it at once: the
    `;` and the `==`, as `relay check --fix` applies them."""
    uri, diags = opened(client, TWO)
    assert [d["code"] for d in diags] == ["syntax-error", "syntax-error"]
    actions = code_actions(client, uri, rng(0, 0, 0, 0), diags, ["source.fixAll"])
    assert actions == [
        {
            "title": "Apply every safe fix (`relay check --fix`)",
            "kind": "source.fixAll",
            "edit": {"changes": {uri: EDITS}},
        }
    ]


def test_no_fix_all_without_a_safe_fix(client: LspClient) -> None:
    uri, diags = opened(client, MISSPELT)
    assert code_actions(client, uri, rng(0, 0, 0, 0), diags, ["source.fixAll"]) == []


def test_fix_all_is_resolved_when_picked() -> None:
    caps = default_capabilities()
    caps["textDocument"]["codeAction"] = {"resolveSupport": {"properties": ["edit"]}, "dataSupport": True}
    c = LspClient()
    try:
        c.initialize(caps)
        uri, diags = opened(c, TWO)
        (action,) = code_actions(c, uri, rng(0, 0, 0, 0), diags, ["source.fixAll"])
        assert action == {
            "title": "Apply every safe fix (`relay check --fix`)",
            "kind": "source.fixAll",
            "data": {"uri": uri, "version": 1},
        }
        resolved = c.request("codeAction/resolve", action)
        assert resolved["edit"] == {"changes": {uri: EDITS}}
        # the file changed since: the fix is not applied to another text
        mark = c.mark()
        c.change(uri, 2, [{"range": rng(4, 1, 4, 1), "text": "\n"}])
        c.diagnostics(uri, 2, mark)
        with pytest.raises(ResponseError) as err:
            c.request("codeAction/resolve", action)
        assert err.value.code == -32803
        assert err.value.message == "the file changed since this fix was offered: ask for it again"
    finally:
        c.kill()


def test_all_kinds_when_none_is_asked_for(client: LspClient) -> None:
    uri, diags = opened(client, MISSPELT)
    actions = code_actions(client, uri, rng(5, 3, 5, 3), diags)
    assert [(a["kind"], a["title"]) for a in actions] == [
        ("quickfix", "Replace with `@inc`"),
        ("source", "Show the graph of @main"),
    ]
