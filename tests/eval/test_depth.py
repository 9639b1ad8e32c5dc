"""Deep recursion runs to the end; runaway recursion stops with a located
`recursion-limit` diagnostic; large programs compile without recursion."""

from __future__ import annotations

import pytest

import relay_text
from relay_text.eval.values import Data, to_python
from relay_text.std import prelude
from relay_text.syntax.parser import parse

from .helpers import failure, located, run

MILLION = 1_000_000


@pytest.mark.slow
def test_a_million_nested_calls_complete() -> None:
    """Converting a Nat of depth 10^6 to a list recurses 10^6 calls deep."""
    src = """
    data Nat {
      Z : () -> Nat
      S : (Nat) -> Nat
    }
    def @to_list(%n : Nat) -> List[()] {
      match (%n) {
        case Z() { Nil() }
        case S(%m) { Cons((), @to_list(%m)) }
      }
    }
    def @main(%n : Nat) -> (List[()], List[()]) {
      let %l = @to_list(%n);
      (%l, @rev(%l))
    }
    """
    module = parse(src, "deep.rly", prelude().env()).module
    assert module is not None
    ctors = module.constructors()
    n: object = Data(ctors["Z"])
    for _ in range(MILLION):
        n = Data(ctors["S"], (n,))
    forward, backward = relay_text.run(module, n)
    assert len(to_python(forward)) == MILLION
    assert len(to_python(backward)) == MILLION


def test_counting_a_million_element_list_built_by_recursion() -> None:
    src = """
    def @build(%n : int32) -> List[int32] {
      if (%n == 0) { Nil() } else { Cons(%n, @build(%n - 1)) }
    }
    def @main() { let %l = @build(1000000); (@length(%l), @sum(%l), @hd(@rev(%l))) }
    """
    length, total, last = run(src)
    assert int(length) == MILLION
    assert int(total) == (MILLION * (MILLION + 1) // 2 + 2**31) % 2**32 - 2**31  # int32 wraps
    assert int(last) == 1


def test_runaway_recursion_stops_at_the_limit() -> None:
    src = "def @loop(%x : ()) -> () {\n  @loop(%x)\n}\ndef @main() { @loop(()) }\n"
    d = failure(src, max_depth=1000)
    assert located(d) == ("recursion-limit", 2, 3, 2, 11)
    assert d.message == "evaluation went deeper than 1,000 nested calls"
    assert "`@loop` (999 calls)" in d.notes[0]
    assert d.helps == ["if the recursion is meant to go this deep, raise the limit with `--max-depth`"]


def test_the_limit_counts_nested_calls_exactly() -> None:
    src = """
    data Nat {
      Z : () -> Nat
      S : (Nat) -> Nat
    }
    def @depth(%n : Nat) -> () {
      match (%n) {
        case Z() { () }
        case S(%m) { @depth(%m) }
      }
    }
    """
    module = parse(src, "deep.rly", prelude().env()).module
    assert module is not None
    ctors = module.constructors()
    n: object = Data(ctors["Z"])
    for _ in range(99):
        n = Data(ctors["S"], (n,))
    # @depth is entered 100 times: fine with 100, too deep with 99.
    assert relay_text.run(module, n, entry="depth", max_depth=100) == ()
    try:
        relay_text.run(module, n, entry="depth", max_depth=99)
    except relay_text.RelayError as exc:
        assert exc.diagnostics[0].code == "recursion-limit"
    else:
        raise AssertionError("expected recursion-limit")


def test_runaway_recursion_through_a_closure() -> None:
    src = "def @main() {\n  let %f = fn(%x : ()) -> () { %f(%x) };\n  %f(())\n}\n"
    d = failure(src, max_depth=500)
    assert located(d) == ("recursion-limit", 2, 32, 2, 37)
    assert "a closure" not in d.message and "`fn` (499 calls)" in d.notes[0]


@pytest.mark.slow
def test_long_let_chain_compiles_and_runs() -> None:
    n = 100_000
    lines = ["def @main() {", "  let %x0 = Nil(); "]
    lines += [f"  let %x{i} = Cons({i}, %x{i - 1});" for i in range(1, n)]
    lines += [f"  %x{n - 1}", "}"]
    value = to_python(run("\n".join(lines)))
    assert value == list(range(n - 1, 0, -1))


@pytest.mark.slow
def test_long_chain_of_graph_bindings_compiles_and_runs() -> None:
    n = 100_000
    lines = ['#[version = "0.0.5"]', "def @main() {", "  %0 = Cons(0, Nil);"]
    lines += [f"  %{i} = Cons({i}, %{i - 1});" for i in range(1, n)]
    lines += [f"  %{n - 1}", "}"]
    value = to_python(run("\n".join(lines)))
    assert value == list(range(n - 1, -1, -1))


def test_deeply_nested_control_flow_compiles() -> None:
    """`if` nested 2,000 deep: regions beyond the Python compiler's nesting
    limits move into functions of their own."""
    n = 2000
    src = (
        "def @main(%b : bool) -> List[()] {\n"
        + "if (%b) { Cons((), \n" * n
        + "Nil()"
        + ") } else { Nil() }\n" * n
        + "}\n"
    )
    assert len(to_python(run(src, True))) == n
    assert to_python(run(src, False)) == []


def test_deeply_nested_closures_and_matches_capture_correctly() -> None:
    """Closures nested 60 deep, each capturing every outer parameter, and a
    match inside each: the inner regions move into functions of their own
    and still see every captured value."""
    n = 60
    src = "def @main(%x : int32) -> int32 {\n"
    for i in range(1, n + 1):
        src += f"  let %f{i} = fn (%a{i} : int32) -> int32 {{\n"
        src += f"    match (Some(%a{i})) {{ case Some(%b{i}) {{\n"
    src += "    %x + " + " + ".join(f"%b{i}" for i in range(1, n + 1)) + "\n"
    for i in range(n, 0, -1):
        src += f"    }} case None() {{ 0 }} }}\n  }};\n  %f{i}({i})\n"
    src += "}\n"
    assert int(run(src, 1000)) == 1000 + n * (n + 1) // 2


def _wide_match(n: int, pick: int, catch_all: bool = False) -> str:
    constructors = ", ".join(f"C{i}" for i in range(n))
    clauses = " ".join(f"case C{i} {{ {i} }}" for i in range(n - 1 if catch_all else n))
    if catch_all:
        clauses += " case _ { -1 }"
    return (
        f"type T {{ {constructors} }}\ndef @f(%c: T) -> int32 {{ match (%c) {{ {clauses} }} }}\ndef @main() {{ "
        f"@f(C{pick}) }}\n"
    )


@pytest.mark.slow
def test_a_match_with_a_hundred_thousand_clauses_runs() -> None:
    """Python's compiler nests an `elif` chain and gives up a few thousand
    clauses deep; a wide match is a flat run of guarded `if`s instead."""
    n = 100_000
    assert int(run(_wide_match(n, n - 1))) == n - 1
    assert int(run(_wide_match(n, 0))) == 0


def test_wide_matches_pick_the_first_clause_that_matches() -> None:
    """The flat form keeps the order of the clauses: the first clause that
    matches is taken, a catch-all only when none before it does, and no
    clause matching is the located `match-failure`."""
    assert int(run(_wide_match(40, 38, catch_all=True))) == 38
    assert int(run(_wide_match(40, 39, catch_all=True))) == -1
    src = _wide_match(40, 39).replace(" case C39 { 39 }", "").replace("match (", "match? (")
    d = failure(src)
    line = src.splitlines()[1]
    column = line.index("match? (%c)") + 1
    assert located(d) == ("match-failure", 2, column, 2, column + len("match? (%c)") - 1)


def test_code_too_large_for_python_is_a_located_resource_limit(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Should Python's compiler still give up on a function's code, the run
    stops with a `resource-limit` error at that function, not an internal
    error."""
    import relay_text.eval.compile as compile_module

    real = compile

    def fragile(source: str, filename: str, mode: str):  # type: ignore[no-untyped-def]
        if "MATCHFAIL" in source:  # only @big has a match
            raise MemoryError
        return real(source, filename, mode)

    monkeypatch.setattr(compile_module, "compile", fragile, raising=False)
    src = (
        "def @small() -> int32 { 1 }\ndef @big(%o: Option[int32]) -> int32 {\n  match? (%o) { case Some(%x) { "
        "%x } }\n}\ndef @main() { @big(Some(@small())) }\n"
    )
    d = failure(src)
    assert located(d) == ("resource-limit", 2, 1, 4, 1)
    assert d.message == "this function is too large or too deeply nested for Python to compile"
