"""A Pygments lexer for Relay text, both dialects.

Registered under the `pygments.lexers` entry point, so after
`pip install 'relay-text[pygments]'`:

    pygmentize -l relay model.rly
    pygmentize -f html -O full -o model.html model.rly

and in Sphinx (```` ```relay ```` in MyST, `.. code-block:: relay` in reST)
or MkDocs (pymdownx.highlight), which highlight through Pygments.

Token types: keywords (`def`, `fn`, `let`, `match`, `case`, `data`, `type`,
`extern`, ...), `%locals` (Name.Variable), `@globals` (Name.Function),
operators such as `nn.conv2d` (Name.Builtin), constructors and data types
(Name.Class), attribute keys in `key=value` (Name.Attribute), dtypes and
`Tensor` (Keyword.Type), numbers with their suffixes, strings, `//`, `#`
and nested `/* */` comments, the `#[version = ...]` header and the
`#[metadata]` section, whose JSON is highlighted by Pygments' JSON lexer.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pygments.lexer import RegexLexer, bygroups, include, using  # type: ignore[import-untyped]  # Pygments has no type hints
from pygments.lexers.data import JsonLexer  # type: ignore[import-untyped]  # Pygments has no type hints
from pygments.token import (  # type: ignore[import-untyped]  # Pygments has no type hints
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
    Whitespace,
)

__all__ = ["RelayLexer"]

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


class RelayLexer(RegexLexer):  # type: ignore[misc]  # pygments ships no type information
    """Relay IR text: the documented syntax and TVM's 0.0.4/0.0.5 format."""

    name = "Relay"
    aliases: ClassVar[list[str]] = ["relay"]
    filenames: ClassVar[list[str]] = ["*.rly", "*.relay"]
    mimetypes: ClassVar[list[str]] = ["text/x-relay"]
    url = "https://tvm.apache.org/docs/arch/relay_intro.html"
    version_added = ""

    tokens: ClassVar[dict[str, list[Any]]] = {
        "root": [
            (r"\s+", Whitespace),
            (
                r"(#\[)(\s*)(metadata)(\s*)(\])([\s\S]*)",
                bygroups(Comment.Preproc, Whitespace, Comment.Preproc, Whitespace, Comment.Preproc, using(JsonLexer)),
            ),
            (r"^(METADATA)(:)([\s\S]*)", bygroups(Comment.Preproc, Punctuation, using(JsonLexer))),
            (
                r'(#\[)(\s*)(version)(\s*)(=)(\s*)("[^"\n]*")(\s*)(\])',
                bygroups(
                    Comment.Preproc,
                    Whitespace,
                    Comment.Preproc,
                    Whitespace,
                    Operator,
                    Whitespace,
                    String.Double,
                    Whitespace,
                    Comment.Preproc,
                ),
            ),
            (r"^v0\.0\.[0-9]+(?=\s|$)", Comment.Preproc),
            include("comments"),
            (r'"', String.Double, "string"),
            # `key=value` in a call or parameter list (not `==`, not `=>`)
            (r"(" + _IDENT + r")(\s*)(=)(?![=>])", bygroups(Name.Attribute, Whitespace, Operator)),
            (r"(def)(\s+)(@" + _IDENT + ")", bygroups(Keyword.Declaration, Whitespace, Name.Function)),
            (
                r"(extern)(\s+)(type)(\s+)(" + _IDENT + ")",
                bygroups(Keyword.Declaration, Whitespace, Keyword.Declaration, Whitespace, Name.Class),
            ),
            (r"(data|type)(\s+)(" + _IDENT + ")", bygroups(Keyword.Declaration, Whitespace, Name.Class)),
            (r"match\?", Keyword),
            (r"(if|else|match|case|let)\b", Keyword),
            (r"where\b(?!\s*\()", Keyword),
            (r"(def|fn|free_var)\b", Keyword.Declaration),
            (r"(True|False)\b", Keyword.Constant),
            (r"(ref|ref_read|ref_write|Constant)\b(?=\s*\()", Name.Builtin),
            (
                r"(meta)(\s*)(\[)(\s*)(" + _IDENT + r"(?:\." + _IDENT + r")*)(\s*)(\])",
                bygroups(Keyword.Pseudo, Whitespace, Punctuation, Whitespace, Name.Namespace, Whitespace, Punctuation),
            ),
            (r"Tensor\b", Keyword.Type),
            (r"((?:b?float|u?int)[0-9]+(?:x[0-9]+)?|bool|handle)\b", Keyword.Type),
            (r"(Type|BaseType|Shape|ShapeVar)\b(?!\s*\()", Keyword.Type),
            (r"%[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+|/[A-Za-z_][A-Za-z0-9_]*)*", Name.Variable),
            (r"@" + _IDENT, Name.Function),
            (_IDENT + r"(?:\." + _IDENT + r")+", Name.Builtin),  # nn.conv2d
            (r"[A-Z][A-Za-z0-9_]*", Name.Class),  # constructors and data types
            (r"_(?![A-Za-z0-9_])", Keyword.Pseudo),  # the wildcard pattern
            (_IDENT + r"(?=\s*(?:\(|<[^\s=]))", Name.Builtin),  # add(...), an operator call
            (_IDENT, Name),
            (r"(\.)([0-9]+)", bygroups(Punctuation, Number.Integer)),  # projection
            (
                r"([0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)(f(?:16|32|64)?)?(?![A-Za-z0-9_])",
                Number.Float,
            ),
            (r"(?:[0-9]+|inf|nan)f(?:16|32|64)?(?![A-Za-z0-9_])", Number.Float),
            (r"[0-9]+(?:i(?:8|16|32|64)?|u(?:8|16|32|64))?(?![A-Za-z0-9_])", Number.Integer),
            (r"->|=>|==|!=|<=|>=|&&|\|\||[-+*/<>=?!]", Operator),
            (r"[(){}\[\],;:.]", Punctuation),
        ],
        "comments": [
            (r"//.*?$", Comment.Single),
            (r"#(?!\[).*?$", Comment.Single),
            (r"/\*", Comment.Multiline, "block_comment"),
        ],
        "block_comment": [
            (r"[^/*]+", Comment.Multiline),
            (r"/\*", Comment.Multiline, "#push"),
            (r"\*/", Comment.Multiline, "#pop"),
            (r"[/*]", Comment.Multiline),
        ],
        "string": [
            (r"\\.", String.Escape),
            (r'[^"\\\n]+', String.Double),
            (r'"', String.Double, "#pop"),
            (r"\n", Text, "#pop"),  # an unterminated string ends at its line
        ],
    }

    def analyse_text(text: str) -> float:
        if text.lstrip().startswith('#[version = "0.0.'):
            return 0.9
        if "def @" in text and ("%" in text or "fn" in text):
            return 0.3
        return 0.0
