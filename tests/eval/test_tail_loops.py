"""A function that calls itself as the last thing it does (a loop written
as recursion, like the `%while_loop` closures of converted models) runs
those calls as iterations: each iteration's tensors are released in the
next, each iteration still counts towards `--max-depth`, and diagnostics
name the calls the iterations stand for. docs/commands/run.md, "Errors
while running"."""

from __future__ import annotations

import re
import tracemalloc
from pathlib import Path

import numpy as np
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from relay_text.cli import main
from relay_text.eval.values import to_python
from tests.conftest import examples

from .helpers import failure, located, run

# 200 iterations on a 256 KiB tensor, each making three more of them.
CLOSURE_LOOP = """
def @main(%x: Tensor[(256, 256), float32]) -> float32 {
  let %loop = fn (%i: int32, %a: Tensor[(256, 256), float32]) -> Tensor[(256, 256), float32] {
    if (%i >= 200) { %a } else { %loop(%i + 1, tanh(multiply(%a, 0.5f) + %a)) }
  };
  sum(%loop(0, %x))
}
"""

GLOBAL_LOOP = """
def @repeat(%n: int32, %a: Tensor[(256, 256), float32]) -> Tensor[(256, 256), float32] {
  if (%n == 0) {
    %a
  } else {
    let %b = multiply(%a, 0.5f);
    @repeat(%n - 1, tanh(%b + %a))
  }
}
def @main(%x: Tensor[(256, 256), float32]) -> float32 { sum(@repeat(200, %x)) }
"""


def _expected(x: np.ndarray) -> np.float32:
    a = x
    for _ in range(200):
        a = np.tanh(a * np.float32(0.5) + a)
    return np.float32(a.sum(dtype=np.float32))


def _peak(text: str, x: np.ndarray) -> tuple[float, int]:
    """The program's value and the peak of memory its second run allocates
    (the first loads what every run shares, such as the Prelude)."""
    run(text, x)
    tracemalloc.start()
    try:
        value = run(text, x)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return float(value), peak


def test_a_closure_loop_holds_one_iterations_tensors() -> None:
    """Held call by call, the 200 iterations' tensors took over 50 MB."""
    x = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)
    value, peak = _peak(CLOSURE_LOOP, x)
    assert np.isclose(value, _expected(x), rtol=1e-5)
    assert peak < 4 * 2**20, peak


def test_a_global_function_loop_holds_one_iterations_tensors() -> None:
    x = np.random.default_rng(1).standard_normal((256, 256)).astype(np.float32)
    value, peak = _peak(GLOBAL_LOOP, x)
    assert np.isclose(value, _expected(x), rtol=1e-5)
    assert peak < 4 * 2**20, peak


def test_the_arguments_are_passed_all_at_once() -> None:
    """`@swap(%n - 1, %b, %a)`: each new argument is computed from the old parameters."""
    src = """
    def @swap(%n: int32, %a: int32, %b: int32) -> (int32, int32) {
      if (%n == 0) { (%a, %b) } else { @swap(%n - 1, %b, %a) }
    }
    def @main() { (@swap(3, 1, 2), @swap(4, 1, 2)) }
    """
    assert to_python(run(src)) == ((2, 1), (1, 2))


def test_closures_made_in_a_loop_keep_their_own_iterations_values() -> None:
    """A closure holds the values of the iteration that made it, not the
    loop's last ones (as a closure made in a Python loop would)."""
    src = """
    def @collect(%i: int32, %acc: List[fn () -> int32]) -> List[fn () -> int32] {
      if (%i == 3) { %acc } else { @collect(%i + 1, Cons(fn () -> int32 { %i * 10 }, %acc)) }
    }
    def @main() -> List[int32] { @map(fn (%f: fn () -> int32) -> int32 { %f() }, @collect(0, Nil)) }
    """
    assert to_python(run(src)) == [20, 10, 0]


def test_nested_loops_hold_one_iteration_of_each() -> None:
    """A loop whose body makes another loop (a closure, as converted models
    nest `while` loops) runs both as loops: the outer one's 100 iterations
    on a 256 KiB tensor are not held."""
    src = """
    def @main(%x: Tensor[(256, 256), float32]) -> float32 {
      let %outer = fn (%i: int32, %a: Tensor[(256, 256), float32]) -> Tensor[(256, 256), float32] {
        if (%i == 100) { %a } else {
          let %inner = fn (%j: int32, %b: Tensor[(256, 256), float32]) -> Tensor[(256, 256), float32] {
            if (%j == 3) { %b } else { %inner(%j + 1, tanh(%b + %a)) }
          };
          %outer(%i + 1, %inner(0, multiply(%a, 0.5f)))
        }
      };
      sum(%outer(0, %x))
    }
    """
    x = np.random.default_rng(2).standard_normal((256, 256)).astype(np.float32)
    a = x
    for _ in range(100):
        b = a * np.float32(0.5)
        for _ in range(3):
            b = np.tanh(b + a)
        a = b
    value, peak = _peak(src, x)
    assert np.isclose(value, a.sum(dtype=np.float32), rtol=1e-5)
    assert peak < 4 * 2**20, peak


def test_a_match_clause_and_nested_branches_loop_too() -> None:
    src = """
    def @count(%l: List[int32], %evens: int32, %odds: int32) -> (int32, int32) {
      match (%l) {
        case Nil { (%evens, %odds) }
        case Cons(%x, %rest) {
          if (mod(%x, 2) == 0) { @count(%rest, %evens + 1, %odds) } else { @count(%rest, %evens, %odds + 1) }
        }
      }
    }
    def @main() { @count(Cons(1, Cons(2, Cons(4, Cons(7, Cons(9, Nil))))), 0, 0) }
    """
    assert to_python(run(src)) == (2, 3)


def test_each_iteration_counts_as_a_nested_call() -> None:
    """`--max-depth` means the same with or without the loop: `@main` and
    100 entries of `@down` fit in 101 and not in 100, which stops at the
    self call with the calls in progress counted."""
    src = "def @down(%n: int32) -> int32 {\n  if (%n == 0) { 7 } else { @down(%n - 1) }\n}\ndef @main() { @down(99) }\n"
    assert int(run(src, max_depth=101)) == 7
    d = failure(src, max_depth=100)
    assert located(d) == ("recursion-limit", 2, 29, 2, 41)
    assert d.message == "evaluation went deeper than 100 nested calls"
    assert d.notes == [
        "the calls in progress were mostly `@down` (99 calls) and `@main` (1 call)",
        "`@down` calls itself last, as a loop: a higher limit lets it run longer, not hold more memory",
    ]


def test_an_error_names_the_calls_the_iterations_stand_for() -> None:
    src = """def @walk(%i: int32, %x: int32) -> int32 {
  if (%i == 50) { %x / (%x - %x) } else { @walk(%i + 1, %x + 1) }
}
def @main() -> int32 { @walk(0, 1) }
"""
    d = failure(src)
    assert located(d) == ("division-by-zero", 2, 19, 2, 32)
    assert d.notes == [
        "`@walk` was called at <string>:2:43, in `@walk`",
        "... the same call 49 more times",
        "`@walk` was called at <string>:4:24, in `@main`",
    ]


def test_with_several_self_calls_the_latest_run_is_named_and_the_rest_counted() -> None:
    """The loop records where its latest self calls were made, not every one."""
    src = """def @walk(%i: int32, %x: int32) -> int32 {
  if (%i == 50) { %x / (%x - %x) }
  else if (%i < 20) { @walk(%i + 1, %x + 1) }
  else { @walk(%i + 1, %x + 2) }
}
def @main() -> int32 { @walk(0, 1) }
"""
    d = failure(src)
    assert located(d)[:2] == ("division-by-zero", 2)
    assert d.notes == [
        "`@walk` was called at <string>:4:10, in `@walk`",
        "... the same call 29 more times",
        "... and 20 more calls of `@walk` by itself before that",
        "`@walk` was called at <string>:6:24, in `@main`",
    ]


def test_a_result_checked_against_its_annotation_is_still_checked() -> None:
    """A `let` annotated with sizes the value's type leaves open is checked
    after the call returns: that call is made as a call, and the check fails."""
    src = """def @grow(%n: int32, %x: Tensor[(?), float32]) -> Tensor[(?), float32] {
  if (%n == 0) { %x } else {
    let %r: Tensor[(4), float32] = @grow(%n - 1, concatenate((%x, %x)));
    %r
  }
}
def @main() { @grow(3, ones(shape=[1], dtype="float32")) }
"""
    d = failure(src)
    assert d.code == "runtime-error"
    assert d.message.endswith("has shape (8), but its declared type needs (4)")


def test_a_timeout_in_a_loop_counts_its_iterations(tmp_path: Path) -> None:
    prog = tmp_path / "spin.rly"
    prog.write_text("def @spin(%i: int32) -> int32 {\n  @spin(%i + 1)\n}\ndef @main() -> int32 { @spin(0) }\n")
    result = CliRunner().invoke(
        main, ["run", "--timeout", "1", "--max-depth", "1000000000", str(prog)], env={"NO_COLOR": "1"}
    )
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0] == "error[resource-limit]: the run took longer than the limit of 1 s (--timeout)"
    notes = [line for line in lines if line.startswith("  = note:")]
    assert notes[0] == f"  = note: `@spin` was called at {prog}:2:3, in `@spin`"
    assert re.fullmatch(r"  = note: \.\.\. the same call [0-9,]+ more times", notes[1])
    assert int(notes[1].split()[6].replace(",", "")) > 1000
    assert notes[2] == f"  = note: `@spin` was called at {prog}:4:24, in `@main`"


# ---------------------------------------------------------------- the same values as recursion

FLOATS = ["%a", "%c", "tanh(%a)", "multiply(%a, 0.5f)", "%a + %c", "negative(%c)", "%c - %a", "%g(%a)", "%g(%c)"]
INTS = ["%b", "%b + %i", "%b * 2 - 3", "%i", "0 - %b"]
CONDS = ["%b > 10", "%i < 4", "sum(%a) > 0f", "mod(%b, 3) == 0"]


@st.composite
def loop_bodies(draw: st.DrawFn, depth: int = 0) -> str:
    """The `else` side of a loop over (%i, %a, %b, %h): `if`s down to calls
    of `CALL` (the loop itself, with %i one higher, and as %h the closure
    passed in or %g, made in this iteration) or a result."""
    if depth < 2 and draw(st.booleans()):
        cond = draw(st.sampled_from(CONDS))
        return f"if ({cond}) {{ {draw(loop_bodies(depth + 1))} }} else {{ {draw(loop_bodies(depth + 1))} }}"
    floats, ints = draw(st.sampled_from(FLOATS)), draw(st.sampled_from(INTS))
    if draw(st.integers(0, 4)) == 0:
        return f"(%h({floats}), {ints})"
    return f"CALL(%i + 1, {floats}, {ints}, {draw(st.sampled_from(['%g', '%h']))})"


def loop_program(body: str, closure: bool, tail: bool) -> str:
    """A program running `body` as a global function or a closure; with
    `tail`, its self calls are last, else each is wrapped so that it is not
    (`(call,).0`: a real call)."""
    call = "%loop" if closure else "@loop"
    inner = body.replace("CALL(", f"{call}(")
    if not tail:
        # `(f(...),).0`: the call's result is taken out of a tuple
        inner = re.sub(rf"{re.escape(call)}\(([^()]*(?:\([^()]*\)[^()]*)*)\)", rf"({call}(\1),).0", inner)
    fn_type = "fn (Tensor[(4), float32]) -> Tensor[(4), float32]"
    head = f"(%i: int32, %a: Tensor[(4), float32], %b: int32, %h: {fn_type}) -> (Tensor[(4), float32], int32)"
    # %g: a closure made in each iteration, holding that iteration's %a and %c
    closure_g = "let %g = fn (%y: Tensor[(4), float32]) -> Tensor[(4), float32] { %y * %c + %a };"
    loop_body = f"if (%i >= 9) {{ (%h(%a), %b) }} else {{ let %c = %a * 2f - 1f; {closure_g} {inner} }}"
    start = "(0, %x, 5, fn (%y: Tensor[(4), float32]) -> Tensor[(4), float32] { %y })"
    if closure:
        return f"def @main(%x: Tensor[(4), float32]) {{ let %loop = fn {head} {{ {loop_body} }}; %loop{start} }}"
    return f"def @loop{head} {{ {loop_body} }}\ndef @main(%x: Tensor[(4), float32]) {{ @loop{start} }}"


@settings(max_examples=examples(60))
@given(body=loop_bodies(), closure=st.booleans())
def test_a_loop_computes_what_the_recursion_computes(body: str, closure: bool) -> None:
    x = np.array([0.5, -1.25, 2.0, 0.0], dtype=np.float32)
    looped = loop_program(body, closure, tail=True)
    recursive = loop_program(body, closure, tail=False)
    assert "(%loop(" in recursive or "(@loop(" in recursive or "CALL" not in body
    got, want = run(looped, x), run(recursive, x)
    assert got[0].tobytes() == want[0].tobytes() and int(got[1]) == int(want[1]), (looped, got, want)


def test_a_runaway_closure_made_in_a_loop_stops_at_the_limit() -> None:
    """A closure whose body is only its self call, made in each iteration
    of another loop: its loop never ends, and stops at the limit."""
    src = """def @main() -> int32 {
  let %outer = fn (%i: int32) -> int32 {
    let %spin = fn (%j: int32) -> int32 { %spin(%j + %i) };
    if (%i == 2) { %spin(0) } else { %outer(%i + 1) }
  };
  %outer(0)
}
"""
    d = failure(src, max_depth=5000)
    assert located(d) == ("recursion-limit", 3, 43, 3, 56)
    # @main, 3 iterations of %outer and 4,996 of %spin (both closures: `fn`)
    assert d.notes == [
        "the calls in progress were mostly `fn` (4,999 calls) and `@main` (1 call)",
        "the closure calls itself last, as a loop: a higher limit lets it run longer, not hold more memory",
    ]


def test_a_match_of_many_clauses_loops() -> None:
    """A match of more clauses than an `elif` chain holds (a flat run of
    `if`s): each clause's self call continues the loop."""
    ctors = "\n".join(f"  C{i} : () -> T" for i in range(20))
    clauses = "\n".join(f"    case C{i} {{ @walk(%n - 1, %acc + {i}, C{(i * 7 + 3) % 20}()) }}" for i in range(20))
    src = f"""data T {{
{ctors}
}}
def @walk(%n: int32, %acc: int32, %t: T) -> int32 {{
  if (%n == 0) {{ %acc }} else {{ match (%t) {{
{clauses}
  }} }}
}}
def @main() -> int32 {{ @walk(50000, 0, C0()) }}
"""
    acc, t = 0, 0
    for _ in range(50000):
        acc, t = acc + t, (t * 7 + 3) % 20
    assert int(run(src, max_depth=50002)) == acc
    assert failure(src, max_depth=50001).code == "recursion-limit"
