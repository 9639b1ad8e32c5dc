"""TVM's standard library files, as TVM shipped them (../shared/corpus/tvm-std-*.rly).

Each opens with the Apache licence comment *before* its `#[version =
"0.0.5"]` header, which TVM's tokenizer skips. Each must check with a type
for every global, format to itself and back through the documented dialect,
and (except `core.rly`, which only declares `extern type Storage`) run a
small program of ours that calls what it defines.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from relay_text.eval.values import to_python
from relay_text.formatter import format_source
from relay_text.ir.span import Source
from relay_text.pipeline import check_source, run_source
from tests.conftest import CORPUS, CORPUS_MISSING

STD = ["tvm-std-prelude", "tvm-std-nat", "tvm-std-core", "tvm-std-gradient"]

# A few inferred global types per file, in the documented syntax.
GLOBALS = {
    "tvm-std-prelude": {
        "@compose": "fn<A, B, C>(fn(B) -> C, fn(A) -> B) -> fn(A) -> C",
        "@sum": "fn(List[Tensor[(), int32]]) -> Tensor[(), int32]",
        "@unfoldr": "fn<A, B>(fn(A) -> Option[(A, B)], A) -> List[B]",
    },
    "tvm-std-nat": {
        "@nat_add": "fn(nat, nat) -> nat",
        "@nat_iterate": "fn<A>(fn(A) -> A, nat) -> fn(A) -> A",
    },
    "tvm-std-core": {},
    "tvm-std-gradient": {
        "@AddGradCell": "fn<T>(fn(T, T) -> T, GradCell[T], GradCell[T]) -> GradCell[T]",
    },
}

# A `@main` appended to the file, and what it evaluates to.
PROGRAMS = {
    "tvm-std-prelude": (
        "def @main() { @sum(@map(fn (%x: int32) { add(%x, 1) }, Cons(1, Cons(2, Cons(3, Nil))))) }",
        9,
    ),
    "tvm-std-nat": (
        "def @main() { @nat_nth(Cons(10, Cons(20, Cons(30, Nil))), @nat_add(succ(zero), succ(zero))) }",
        30,
    ),
    "tvm-std-gradient": (
        "def @main() {\n"
        "  %0 = fn (%a: int32, %b: int32) { multiply(%a, %b) };\n"
        "  (@FromGradCell(@MultiplyGradCell(%0, Raw(6), Raw(7))),\n"
        "   @FromGradCell(@MultiplyGradCell(%0, One(fn () { 1 }), Raw(5))),\n"
        "   @FromGradCell(@AddGradCell(%0, Zero(fn () { 0 }), Raw(4))))\n"
        "}",
        (42, 5, 4),
    ),
}


def path_of(stem: str) -> Path:
    path = CORPUS / f"{stem}.rly"
    if not path.is_file():
        pytest.skip(CORPUS_MISSING)
    return path


@pytest.mark.parametrize("stem", STD)
def test_checks_clean_with_the_expected_types(stem: str) -> None:
    path = path_of(stem)
    checked = check_source(Source(path.name, path.read_text()))
    assert [str(d) for d in checked.diagnostics] == []
    assert checked.module is not None and checked.module.version == "0.0.5"
    assert all(ty is not None for ty in checked.global_types.values())
    for name, ty in GLOBALS[stem].items():
        assert checked.global_types[name] == ty


@pytest.mark.parametrize("stem", STD)
def test_formats_in_place_and_through_the_documented_dialect(stem: str) -> None:
    """The licence comment stays above the header; `--dialect docs` and back
    to `tvm` gives a file that checks to the same global types."""
    path = path_of(stem)
    text = path.read_text()
    formatted = format_source(Source(path.name, text))
    assert [str(d) for d in formatted.diagnostics] == [] and formatted.text is not None
    assert formatted.text.startswith("/*\n * Licensed to the Apache Software Foundation")
    assert formatted.text.index("*/") < formatted.text.index('#[version = "0.0.5"]')
    assert format_source(Source("again.rly", formatted.text)).text == formatted.text
    docs = format_source(Source("docs.rly", text), dialect="docs")
    assert docs.text is not None and "#[version" not in docs.text
    assert docs.text.startswith("/*\n * Licensed")
    back = format_source(Source("back.rly", docs.text), dialect="tvm")
    assert back.text is not None
    expected = check_source(Source(path.name, text)).global_types
    for version in (docs.text, back.text):
        checked = check_source(Source("round.rly", version))
        assert [str(d) for d in checked.diagnostics] == []
        assert checked.global_types == expected


@pytest.mark.parametrize("stem", sorted(PROGRAMS))
def test_a_program_using_the_library_runs(stem: str) -> None:
    path = path_of(stem)
    main, expected = PROGRAMS[stem]
    ran = run_source(Source(path.name, path.read_text() + "\n" + main + "\n"))
    assert [str(d) for d in ran.diagnostics] == []
    assert to_python(ran.value) == expected
