"""Every rule of grammar/relay.lark that builds something has its method on
the builder (relay_text/syntax/builder.py).

The parser (relay_text/syntax/lalr.py) calls, on each reduction, the
builder's method named after the rule or its alias; when there is none it
passes the rule's children on as a Python list, which then reaches the IR
where an expression or a type was expected, and nothing says so. These
tests make that omission fail at once, naming the rule."""

from __future__ import annotations

from relay_text.syntax import parser, tables
from relay_text.syntax.builder import Builder


def _rules() -> list[tuple]:
    return tables.load(parser.grammar_path().read_text(encoding="utf-8"))["rules"]


def _passes_its_child_through(rule: tuple) -> bool:
    """A `?rule` alternative with one child and nothing to fill in: the
    parser hands the child on and never calls the builder."""
    _, _, _, expand1, keep, append_none = rule
    return bool(expand1) and len(keep) == 1 and not keep[0][1] and not keep[0][2] and not append_none


def rules_without_method(rules: list[tuple]) -> list[str]:
    """The rules (by alias, else name) the parser would call a missing
    builder method for."""
    building = [r for r in rules if not r[0].startswith("_") and not _passes_its_child_through(r)]
    return sorted(
        {alias or origin for origin, alias, *_ in building if not callable(getattr(Builder, alias or origin, None))}
    )


def test_every_rule_that_builds_has_a_builder_method() -> None:
    """Catches a rule added to the grammar without its builder method: e.g.
    `?atom: ... | "[" expr ("," expr)* "]" -> list_literal` added to
    grammar/relay.lark with no `Builder.list_literal` gives `%x + [1, 2]` a
    Python list for its right operand; this test fails naming
    `list_literal`. (Inline `_rules` and `?rule` alternatives with a single
    child build nothing and need no method.)"""
    assert rules_without_method(_rules()) == []


def test_a_rule_without_its_method_is_named() -> None:
    """The break described above, made on the compiled tables: the
    `list_literal` alternative of `atom` (two kept children: no pass-through)
    is reported; a single-child `?atom` alternative is not."""
    rules = _rules()
    assert len([r for r in rules if not r[0].startswith("_") and not _passes_its_child_through(r)]) > 100
    added = ("atom", "list_literal", 4, True, ((1, False, 0), (2, True, 0)), 0)
    passing = ("atom", None, 1, True, ((0, False, 0),), 0)
    assert rules_without_method([*rules, added, passing]) == ["list_literal"]
