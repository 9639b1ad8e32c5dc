"""The project's LALR driver against Lark's engines (lark-cython's, compiled
with Cython, and Lark's own, pure Python) on grammar/relay.lark and the
same tokens.

    pip install lark-cython      # optional: without it, Lark's pure engine only
    python benchmarks/lalr_engines.py [--size-mb 1]

The text is a TVM-format dump of the corpus models (`_common.model_dump`);
it is tokenized once by relay_text's lexer and every engine is fed that
token list, so that only the engines differ. Each engine's reductions
build plain lists (relay_text's driver: its rule actions with `list` for
every builder method; Lark: a `list` callback for every rule), and Lark's
engines once more with the parse trees Lark builds itself. CPU seconds,
best of 3, with the load average.
"""

from __future__ import annotations

import argparse
import gc
import os
import time
from typing import Any
from collections.abc import Callable

from _common import model_dump

from relay_text.ir.span import Source
from relay_text.syntax import parser as relay_parser
from relay_text.syntax.lalr import Driver
from relay_text.syntax.lexer import Tokens
from relay_text.syntax.tables import load as load_tables


def best(fn: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


class _Lists:
    """A builder whose every method makes a list of the children."""

    def __getattr__(self, name: str) -> Any:
        return list


def lark_engines(grammar: str, toks: list, text: str) -> list[tuple[str, float, float]]:
    """(engine, seconds with list callbacks, seconds building Lark's trees)."""
    from lark import Lark
    from lark.lexer import Lexer, Token

    class Unused(Lexer):  # tokens come from the list below
        def __init__(self, conf: Any) -> None:
            pass

        def lex(self, state: Any, parser_state: Any) -> Any:  # pragma: no cover
            raise NotImplementedError

    rows = []
    try:
        import lark_cython
        import lark_cython.lark_cython as cy
    except ImportError:
        print("lark-cython is not installed (pip install lark-cython): Lark's pure engine only")
        lark_cython = None
    # Lark's pure engine reads `lexer.lex(parser_state)`; lark-cython's asks
    # `next_token(parser_state)` until EOFError.
    lark_tokens = [Token(t.type, t.value, t.start_pos) for t in toks]

    class PureFeed:
        def lex(self, parser_state: Any) -> Any:
            return iter(lark_tokens)

    lark = Lark(grammar, parser="lalr", lexer=Unused, maybe_placeholders=True)
    engine = lark.parser.parser
    lists = type(engine.parser)(engine._parse_table, {rule: list for rule in lark.rules})
    rows.append(
        (
            "lark (pure Python)",
            best(lambda: lists.parse(PureFeed(), "start")),
            best(lambda: engine.parse(PureFeed(), "start")),
        )
    )
    if lark_cython is not None:
        cy_tokens = [cy.Token(t.type, t.value, t.start_pos) for t in toks]

        class CythonFeed(cy.LexerThread):
            def next_token(self, parser_state: Any) -> Any:
                for tok in self.it:
                    return tok
                raise EOFError

        def feed() -> Any:
            thread = CythonFeed.__new__(CythonFeed)
            thread.it = iter(cy_tokens)
            return thread

        lark = Lark(grammar, parser="lalr", lexer=Unused, maybe_placeholders=True, _plugins=lark_cython.plugins)
        engine = lark.parser.parser
        lists = cy._Parser(engine._parse_table, {rule: list for rule in lark.rules})
        rows.append(
            ("lark-cython", best(lambda: lists.parse(feed(), "start")), best(lambda: engine.parse(feed(), "start")))
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mb", type=float, default=1.0)
    options = ap.parse_args()
    text = model_dump(int(options.size_mb * 1e6))
    grammar = relay_parser.grammar_path().read_text()
    relay_parser.parse("def @f() { 1 }")
    kinds = relay_parser._parser()[2]
    toks = list(Tokens(Source("<dump>", text), kinds))
    mb = len(text.encode()) / 1e6
    load = os.getloadavg()[0]
    gc.disable()
    driver = Driver(load_tables(grammar), _Lists())
    ours = best(lambda: driver.parse(toks, len(text)))
    rows = lark_engines(grammar, toks, text)
    gc.enable()
    print(
        f"LALR engines on grammar/relay.lark: {mb:.2f} MB dump, {len(toks):,} tokens (CPU s, best of 3; "
        f"load {load:.2f} -> {os.getloadavg()[0]:.2f})"
    )
    print(f"  {'relay_text driver':20} lists {ours:6.3f} s  {mb / ours:5.2f} MB/s")
    for name, plain, trees in rows:
        print(
            f"  {name:20} lists {plain:6.3f} s  {mb / plain:5.2f} MB/s   Lark trees {trees:6.3f} s   "
            f"{plain / ours:.1f}x the driver's time"
        )


if __name__ == "__main__":
    main()
