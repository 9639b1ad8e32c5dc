"""Property tests: IR programs built directly (not from text) print to text
that parses back to the same program, formats stably and keeps comments.

The strategy builds well-scoped modules with every kind of node: shared
subexpressions (a DAG, including diamonds), shadowed and oddly named
variables (`%0`, `%a.1`, `%x_1`, sequencing binders), recursive lets,
closures, ADTs with nested patterns, references, attributes of every kind,
literals of every dtype (including NaN, infinities and -0.0), explicit
type arguments, `where` relations and kinded type parameters (the last three
only where the documented dialect is the target).

Runs follow the hypothesis profile of tests/conftest.py: derandomized in CI,
random and ten times as many with HYPOTHESIS_PROFILE=nightly.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.programs import f32, modules
from relay_text.formatter import UnsafeFormat, format_source
from relay_text.ir.alpha import alpha_equal_module
from relay_text.ir.expr import Constant
from relay_text.ir.module import Module
from relay_text.ir.span import Source
from relay_text.syntax.lexer import Tokens
from relay_text.syntax.parser import _parser, parse
from relay_text.printer.render import print_module
from tests.conftest import examples

EXAMPLES = examples(1000)
PROFILE = settings(max_examples=EXAMPLES)


def reparse(text: str) -> Module:
    result = parse(text, "printed.rly")
    errors = [str(d) for d in result.diagnostics if d.is_error]
    assert result.module is not None and not errors, (errors, text)
    return result.module


@PROFILE
@given(modules())
def test_documented_dialect_round_trips(module: Module) -> None:
    """print -> parse gives an alpha-equivalent module; printing that again gives the same text."""
    text = print_module(module, "docs")
    again = reparse(text)
    assert alpha_equal_module(module, again), text
    assert print_module(again, "docs") == text


@PROFILE
@given(modules(portable=True))
def test_tvm_dialect_round_trips_and_converts_back(module: Module) -> None:
    """docs -> tvm -> docs returns the same program, and each text is a fixed point.

    (Bindings that do not depend on each other follow the order of the text
    they were read from, so the second TVM text may order them differently.)
    """
    tvm_text = print_module(module, "tvm")
    assert tvm_text.startswith('#[version = "0.0.5"]\n')
    from_tvm = reparse(tvm_text)
    assert alpha_equal_module(module, from_tvm), tvm_text
    assert print_module(from_tvm) == tvm_text
    docs_text = print_module(from_tvm, "docs")
    back = reparse(docs_text)
    assert alpha_equal_module(module, back), docs_text
    assert print_module(back, "docs") == docs_text
    again = print_module(back, "tvm")
    assert alpha_equal_module(module, reparse(again)), again


def _comment_slots(text: str) -> list[int]:
    """Offsets after every token: a comment there never changes what the text means
    (the lexer's lookaheads skip comments), so any of them may take one."""
    tokens = list(Tokens(Source("t", text), _parser()[2]))
    return [tok.end_pos for tok in tokens if tok.type not in ("METADATA", "VERSION")]


@pytest.mark.slow
@PROFILE
@given(modules(), st.data())
def test_formatting_keeps_comments_in_place(module: Module, data) -> None:
    """Comments placed after arbitrary tokens survive formatting, in order,
    and the result is stable (format_source's safe mode checks both)."""
    dialect = data.draw(st.sampled_from(["docs", "tvm"])) if not _needs_docs(module) else "docs"
    text = print_module(module, dialect)
    slots = _comment_slots(text)
    chosen = sorted(set(data.draw(st.lists(st.sampled_from(slots), max_size=6)))) if slots else []
    pieces = []
    last = 0
    for i, pos in enumerate(chosen):
        pieces.append(text[last:pos])
        style = data.draw(st.integers(0, 3))
        if text.startswith("<", pos) and not text[pos - 1 : pos].isspace():
            pieces.append(f"/* c{i} */")  # a space before a glued `<` would make it less-than
        elif style == 0:
            pieces.append(f" /* c{i} */")
        elif style == 1:
            pieces.append(f"  // c{i}\n")
        elif style == 2:
            pieces.append(f"\n/* c{i} */\n")
        else:
            pieces.append(f"  # c{i}\n")  # `//` in TVM text
        last = pos
    pieces.append(text[last:])
    commented = "".join(pieces)
    width = data.draw(st.sampled_from([40, 100]))
    try:
        result = format_source(Source("commented.rly", commented), "keep", width)
    except UnsafeFormat as exc:  # show both texts
        raise AssertionError(f"{exc.reason}\n--- input:\n{exc.original}\n--- output:\n{exc.output}") from None
    assert result.text is not None, [str(d) for d in result.diagnostics]
    assert [c for c in result.text.split() if c.startswith("c") and c[1:].isdigit()] == [
        f"c{i}" for i in range(len(chosen))
    ]


@pytest.mark.slow
@PROFILE
@given(modules(), st.data())
def test_a_comment_between_every_pair_of_tokens_is_kept(module: Module, data) -> None:
    """The extreme case: a comment after every token. Safe mode never refuses
    (where a comment's precise place cannot be kept, it moves to its
    statement), every comment is kept in order and the result is stable."""
    dialect = data.draw(st.sampled_from(["docs", "tvm"])) if not _needs_docs(module) else "docs"
    text = print_module(module, dialect)
    style = data.draw(st.sampled_from([" /* c{} */", "/* c{} */", "  // c{}\n", "\n\n/* c{} */\n"]))
    slots = _comment_slots(text)
    pieces, last = [], 0
    for i, pos in enumerate(slots):
        # (a space before a `<` glued to a callee would make it less-than:
        # there the comment is glued too)
        glued = text.startswith("<", pos) and not text[pos - 1 : pos].isspace()
        comment = ("/* c{} */" if glued else style).format(i)
        if text[pos - 1 : pos] == "/" and comment.startswith("/"):
            comment = " " + comment  # `//*` would start a line comment
        pieces += [text[last:pos], comment]
        last = pos
    pieces.append(text[last:])
    commented = "".join(pieces)
    try:
        result = format_source(Source("commented.rly", commented), "keep", 100)
    except UnsafeFormat as exc:
        raise AssertionError(f"{exc.reason}\n--- input:\n{exc.original}\n--- output:\n{exc.output}") from None
    assert result.text is not None, [str(d) for d in result.diagnostics]
    found = [c.rstrip("*/") for c in result.text.replace("*/", " */").split() if c.startswith("c") and c[1:].isdigit()]
    assert found == [f"c{i}" for i in range(len(slots))]


def _needs_docs(module: Module) -> bool:
    from relay_text.formatter import tvm_problems

    return bool(tvm_problems(module))


@pytest.mark.parametrize("width", [1, 20, 60])
@settings(max_examples=examples(60), suppress_health_check=list(HealthCheck))
@given(module=modules())
def test_narrow_widths_still_round_trip(module: Module, width: int) -> None:
    text = print_module(module, "docs", width)
    assert alpha_equal_module(module, reparse(text)), text
    assert print_module(reparse(text), "docs", width) == text


def test_float_literals_are_exact() -> None:
    """Each float prints as the shortest text that reads back to the same bits."""
    for value in [0.1, 1 / 3, 1e-45, 3.4028234663852886e38, -0.0, math.inf, -math.inf, 1e16, 123456.789]:
        for dtype in ("float32", "float64"):
            v = f32(value) if dtype == "float32" else value
            module = Module(expr=Constant(v, dtype))
            again = reparse(print_module(module))
            assert alpha_equal_module(module, again), print_module(module)
