"""Inputs made from nothing: the grammar (hypothesis `from_lark`) and the IR strategy.

Hypothesis draws the values; `drive` feeds them to a callback, seeded, until
the callback says stop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st


class _Stop(Exception):
    pass


def drive(strategy: st.SearchStrategy, seed: int, handle: Callable[[Any], bool]) -> None:
    """Draw from `strategy` (seeded) and pass each value to `handle` until it returns False."""
    stopped = False

    @settings(
        max_examples=10**7,
        database=None,
        deadline=None,
        derandomize=False,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
    )
    @hypothesis_seed(seed)
    @given(strategy)
    def loop(value: Any) -> None:
        nonlocal stopped
        if stopped or not handle(value):
            stopped = True
            raise _Stop

    round_seed = seed
    while not stopped:
        try:
            loop()
        except _Stop:
            return
        round_seed += 1  # the strategy ran out of examples: go on with another seed
        loop = hypothesis_seed(round_seed)(loop)


# ---------------------------------------------------------------- the grammar

_NAMES = ["x", "y", "f", "0", "1", "a.1", "x_1", "main", "add", "nn.conv2d", "nn.relu", "Cons", "Nil", "List", "Some",
          "Optional", "float32", "int32", "int64", "bool", "a", "b", "Tensor", "axis", "shape", "Broadcast", "zeros",
          "where", "sum", "concatenate", "data", "A", "n"]  # fmt: skip


def _space(strategy: st.SearchStrategy) -> st.SearchStrategy:
    return strategy.map(lambda t: t + " ")


def grammar_programs() -> st.SearchStrategy:
    """Texts of the grammar of relay_text/syntax (grammar/relay.lark), with
    the lexer's terminals drawn from plausible spellings."""
    import lark
    from hypothesis.extra.lark import from_lark
    from lark.lexer import Lexer

    from relay_text.syntax.parser import grammar_path

    class TokensOnly(Lexer):
        def __init__(self, conf: Any) -> None:
            pass

        def lex(self, *args: Any) -> Any:  # pragma: no cover - never lexes
            raise NotImplementedError

    grammar = lark.Lark(grammar_path().read_text(), parser="lalr", lexer=TokensOnly, maybe_placeholders=True)
    names = st.sampled_from(_NAMES)
    ints = st.one_of(
        st.sampled_from(["0", "1", "2", "3", "-1", "42i64", "7u8", "2147483648", "1i8", "64", "0i64", "65536"]),
        st.integers(0, 2**70).map(str),
    )
    floats = st.sampled_from(["1.0", "1e-5", "1f", "2.5f64", "inff", "-inff", "nanf", "0.5f16", "1e308", "3.5e38f"])
    explicit = {t.name: st.just(t.pattern.value + " ") for t in grammar.terminals}
    explicit.update(
        {
            "LOCAL": _space(names.map(lambda n: "%" + n)),
            "GLOBAL": _space(names.map(lambda n: "@" + n)),
            "IDENT": _space(names),
            "ATTR_KEY": names.map(lambda n: n.replace(".", "_")),
            "INT": _space(ints),
            "FLOAT": _space(floats),
            "PROJ": _space(st.sampled_from([".0", ".1", ".2", ".12"])),
            "STRING": _space(st.sampled_from(['"float32"', '""', '"NCHW"', '"int32"', '"x"'])),
            "LANGLE": st.just("<"),
            "LT": st.just(" < "),
            "WHERE": st.just(" where "),
            "MATCH": st.sampled_from(["match ", "match? "]),
            "VERSION": st.sampled_from(['#[version = "0.0.5"]\n', '#[version = "0.0.4"]\n', "v0.0.4\n"]),
            "METADATA": st.sampled_from(
                ["\n#[metadata]\n{}\n", '\n#[metadata]\n{"root": 1, "nodes": [{}], "b64ndarrays": []}\n']
            ),
        }
    )
    return from_lark(grammar, explicit=explicit)


# ---------------------------------------------------------------- the IR strategy


@st.composite
def printed_programs(draw: Any) -> str:
    """A module of fuzz/programs.py printed in the documented or TVM dialect."""
    from relay_text.formatter import tvm_problems
    from relay_text.printer.render import print_module

    from .programs import modules

    portable = draw(st.booleans())
    module = draw(modules(portable=portable))
    dialect = "tvm" if portable and not tvm_problems(module) and draw(st.booleans()) else "docs"
    return print_module(module, dialect, draw(st.sampled_from([100, 100, 40, 1])))
