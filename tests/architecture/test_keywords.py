"""The keywords every editor integration knows are the grammar's keywords.

The grammar (grammar/relay.lark) is the one list: its quoted words (`"def"`,
`"ref_read"`, ...) and the keyword terminals the lexer decides by context
(`MATCH`: `match`/`match?`, `WHERE`: `where` not followed by `(`). The
language server's tokenizer, its completion list, the Pygments lexer and the
TextMate grammar of editors/vscode are checked against it both ways: a
keyword added to the grammar and forgotten by an editor fails here, and so
does an editor word the grammar does not have."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GRAMMAR = ROOT / "grammar" / "relay.lark"
TEXTMATE = ROOT / "editors" / "vscode" / "syntaxes" / "relay.tmLanguage.json"

# Terminals the lexer gives by context (`%declare`d in the grammar) and the words they stand for.
CONTEXTUAL = {"MATCH": ("match", "match?"), "WHERE": ("where",)}
# Words the completion list leaves out, with the reason: completion offers what begins a construct.
NOT_COMPLETED = {
    "match?": "completing `match` gives it: the `?` is typed after",
    "where": "follows a signature's types, not a completion position",
    "meta": "written by printers with metadata, not by hand",
    "True": "a literal, not a construct",
    "False": "a literal, not a construct",
    "_": "the wildcard pattern: one character",
}
# Where a word is a keyword only in a context, the text it is tried in.
IN_CONTEXT = {
    "ref": "ref(%x)",
    "ref_read": "ref_read(%r)",
    "ref_write": "ref_write(%r, 1)",
    "Constant": "Constant(0, (), int32)",
    "meta": "meta[relay.Constant][0]",
    "where": "where Broadcast",
    "_": "_ => 1",
    "data": "data List",
    "type": "type T",
    "extern": "extern type T",
}


def grammar_keywords() -> set[str]:
    """The grammar's keywords: quoted words outside comments, and the contextual terminals."""
    text = "\n".join(line.split("//", 1)[0] for line in GRAMMAR.read_text(encoding="utf-8").splitlines())
    words = set(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', text))
    declared = set(re.search(r"^%declare (.*)$", text, re.MULTILINE).group(1).split())  # type: ignore[union-attr]
    for terminal, spelled in CONTEXTUAL.items():
        assert terminal in declared, f"grammar/relay.lark no longer declares {terminal}: update CONTEXTUAL"
        words.update(spelled)
    return words


KEYWORDS = sorted(grammar_keywords())


def test_the_grammar_has_the_keywords_the_documentation_names() -> None:
    assert {"def", "fn", "let", "if", "else", "match", "match?", "case", "data", "type", "extern"} <= set(KEYWORDS)


def test_the_language_server_tokenizer_knows_exactly_the_grammar_keywords() -> None:
    """Catches a keyword added to the grammar only: e.g. a `"loop"` rule in
    relay.lark leaves `loop` an identifier to rename, hover and colour in
    the editor (relay_text/lsp/tokens.py `KEYWORDS`), and `"repeat"` added
    to `KEYWORDS` alone makes a valid variable name unrenameable."""
    from relay_text.lsp.tokens import KEYWORDS as LSP_KEYWORDS

    assert sorted(LSP_KEYWORDS) == KEYWORDS


def test_completion_offers_every_keyword_that_begins_a_construct() -> None:
    """Catches a keyword the completion list forgets or invents: e.g. deleting
    `"extern"` from relay_text/lsp/completion.py `_KEYWORDS` fails here, and
    so does adding `"while"` (no such keyword) to it."""
    from relay_text.lsp.completion import _KEYWORDS

    assert set(_KEYWORDS) <= set(KEYWORDS), sorted(set(_KEYWORDS) - set(KEYWORDS))
    assert sorted(set(KEYWORDS) - set(_KEYWORDS)) == sorted(NOT_COMPLETED)
    assert len(_KEYWORDS) == len(set(_KEYWORDS))


@pytest.mark.parametrize("word", KEYWORDS)
def test_pygments_highlights_every_keyword(word: str) -> None:
    """Catches a keyword the Pygments lexer (relay_text/pygments.py) shows as
    a plain name: e.g. `(r"(def|fn|free_var)\\b", ...)` without `free_var`
    leaves `free_var %x: int32;` uncoloured in the documentation."""
    pygments = pytest.importorskip("pygments")
    from pygments.token import Keyword, Name

    from relay_text.pygments import RelayLexer

    del pygments
    text = IN_CONTEXT.get(word, word + " ")
    token, value = next(iter(RelayLexer().get_tokens(text)))
    assert value == word
    assert token in Keyword or token in Name.Builtin, (word, token)


def _textmate_patterns() -> list[tuple[re.Pattern[str], str]]:
    repository = json.loads(TEXTMATE.read_text(encoding="utf-8"))["repository"]
    out = []
    for group in ("keywords", "types"):
        for pattern in repository[group]["patterns"]:
            name = pattern.get("name") or pattern["captures"]["1"]["name"]
            out.append((re.compile(pattern["match"]), name))
    return out


@pytest.mark.parametrize("word", KEYWORDS)
def test_the_textmate_grammar_scopes_every_keyword(word: str) -> None:
    """Catches a keyword the VS Code grammar (editors/vscode/syntaxes/
    relay.tmLanguage.json) leaves to the catch-all name rule: e.g. dropping
    `extern` from `\\b(?:data|type|extern)\\b` scopes `extern type T;` as a
    variable."""
    text = IN_CONTEXT.get(word, word + " ")
    scopes = [
        name for pattern, name in _textmate_patterns() if (m := pattern.match(text)) and m.group(0).startswith(word)
    ]
    assert scopes, word
    assert scopes[0].split(".")[0] in ("keyword", "storage", "constant", "support", "variable"), (word, scopes)


def test_every_textmate_keyword_is_a_grammar_keyword() -> None:
    """Catches a word the VS Code grammar colours as a keyword the language
    does not have: e.g. `\\b(?:if|else|match|case|let|while)\\b`."""
    repository = json.loads(TEXTMATE.read_text(encoding="utf-8"))["repository"]
    words: set[str] = set()
    for pattern in repository["keywords"]["patterns"]:
        words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*\??", pattern["match"].replace("\\b", " ").replace("\\s", " ")))
    words -= {"A", "Za", "z0", "z", "z_", "Z", "Z0", "9_", "_"}  # character classes
    assert sorted(w for w in words if w.rstrip("?") not in KEYWORDS and w not in KEYWORDS) == []
