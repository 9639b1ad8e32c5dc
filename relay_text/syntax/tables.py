"""The parser's tables, compiled once from grammar/relay.lark and cached.

Lark analyses the grammar into LALR(1) tables. This module turns its result
into plain data (dicts, tuples, ints and strings) and stores it with
`marshal` in the user's cache directory, keyed by a hash of the grammar, so
that a command loads the tables in a few milliseconds and never imports
Lark unless the grammar changed.

The data:

    states[state][symbol] = (None, next_state)   shift (or goto)
                          = (rule_index,)         reduce
    rules[i] = (origin, alias, size, expand1, keep, append_none)

`keep` lists, for each child the rule's callback receives, the position in
the expansion, whether it is an inlined `_rule` to splice in, and how many
`None`s (for missing `[optional]` parts) go before it - the same filtering
Lark applies before calling a transformer.
"""

from __future__ import annotations

import marshal
import zlib
from pathlib import Path
from typing import Any
from collections.abc import Iterator

FORMAT = 1  # bump when the layout of the cached data changes


def _cache_dir() -> Path:
    from ..cache import user_folder

    return Path(user_folder())


def _build(grammar: str) -> dict[str, Any]:
    from lark import Lark
    from lark.lexer import Lexer
    from lark.parsers.lalr_analysis import Shift

    class TokensOnly(Lexer):
        """Lark needs a lexer to build a parser; the tokens come from lexer.py."""

        def __init__(self, lexer_conf: Any) -> None:
            pass

        def lex(self, lexer_state: Any, parser_state: Any) -> Any:  # pragma: no cover
            raise NotImplementedError

    lark = Lark(grammar, parser="lalr", lexer=TokensOnly, maybe_placeholders=True)
    table = lark.parser.parser._parse_table
    rule_index: dict[Any, int] = {}
    rules: list[tuple[Any, ...]] = []
    for rule in lark.rules:
        rule_index[rule] = len(rules)
        expansion = rule.expansion
        empty = rule.options.empty_indices
        if empty:
            bits = "".join(str(int(b)) for b in empty)
            nones_before = [len(ones) for ones in bits.split("0")]
        else:
            nones_before = [0] * (len(expansion) + 1)
        keep = []
        pending = 0
        for i, sym in enumerate(expansion):
            pending += nones_before[i]
            if rule.options.keep_all_tokens or not (sym.is_term and getattr(sym, "filter_out", False)):
                splice = (not sym.is_term) and sym.name.startswith("_")
                keep.append((i, splice, pending))
                pending = 0
        pending += nones_before[len(expansion)]
        rules.append(
            (
                str(rule.origin.name),
                str(rule.alias or ""),
                len(expansion),
                bool(rule.options.expand1 and not rule.alias),
                tuple(keep),
                pending,
            )
        )
    states: dict[int, dict[str, tuple[Any, ...]]] = {}
    for state, actions in table.states.items():
        row = {}
        for symbol, (action, arg) in actions.items():
            row[str(symbol)] = (None, int(arg)) if action is Shift else (rule_index[arg],)
        states[int(state)] = row
    literals = {}
    from lark.lexer import PatternStr

    for term in lark.terminals:
        if isinstance(term.pattern, PatternStr):
            literals[str(term.pattern.value)] = str(term.name)
    return {
        "states": states,
        "rules": rules,
        "start": int(table.start_states["start"]),
        "end": int(table.end_states["start"]),
        "literals": literals,
    }


def _folders() -> Iterator[Path]:
    """The user's cache directory, then one in the temporary directory
    (tempfile is imported only when the first will not do)."""
    yield _cache_dir()
    import tempfile

    yield Path(tempfile.gettempdir()) / "relay-text"


def load(grammar: str) -> dict[str, Any]:
    """The compiled tables for `grammar`, from the cache if possible."""
    # Two checksums and the length name the grammar (zlib is already loaded
    # by the interpreter; hashlib costs a command milliseconds to import).
    data_bytes = f"{FORMAT}\0{grammar}".encode()
    digest = f"{zlib.crc32(data_bytes):08x}{zlib.adler32(data_bytes):08x}{len(data_bytes):x}"
    name = f"tables-{digest}.marshal"
    for folder in _folders():
        try:
            loaded: dict[str, Any] = marshal.loads((folder / name).read_bytes())
            return loaded
        except (OSError, ValueError, EOFError, TypeError):
            continue
    from ..cache import store

    data = _build(grammar)
    blob = marshal.dumps(data)
    for folder in _folders():
        if store(str(folder / name), blob):
            break
    return data
