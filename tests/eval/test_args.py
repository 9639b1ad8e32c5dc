"""Arguments of the entry point: text values, files, random values, checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import relay_text
from relay_text.eval.entry import RunRequest
from relay_text.eval.show import value_text
from relay_text.ir.span import Source
from relay_text.pipeline import Ran, run_source

from .helpers import located

PROGRAM = """data Pair {
  MkPair : (Tensor[(), int32], Tensor[(), int32]) -> Pair
}
def @main(%x : Tensor[(2, 2), float32], %l : List[int32], %p : Pair) {
  (%x, %l, %p)
}
"""


def run_request(text: str, **kwargs: object) -> Ran:
    return run_source(Source("prog.rly", text), RunRequest(**kwargs))  # type: ignore[arg-type]


def errors(ran: Ran) -> list:
    return [d for d in ran.diagnostics if d.is_error]


def test_text_arguments() -> None:
    ran = run_request(
        PROGRAM,
        arg_texts=[("x", "Constant(1.5, (2, 2), float32)"), ("l", "Cons(1, Cons(-2, Nil()))"), ("p", "MkPair(5, 6)")],
    )
    assert ran.ok, [str(d) for d in ran.diagnostics]
    x, lst, pair = ran.value
    assert x.dtype == np.float32 and x.shape == (2, 2) and (x == 1.5).all()
    assert value_text((lst, pair)) == "(Cons(1, Cons(-2, Nil())), MkPair(5, 6))"


def test_argument_values_may_use_globals_and_the_prelude() -> None:
    ran = run_request(
        "def @two() -> int32 { 2 }\ndef @main(%l : List[int32]) { %l }",
        arg_texts=[("l", "@rev(Cons(1, Cons(@two(), Nil())))")],
    )
    assert ran.ok and value_text(ran.value) == "Cons(2, Cons(1, Nil()))"


def test_wrong_shape_is_located_in_the_argument_text() -> None:
    ran = run_request(PROGRAM, arg_texts=[("x", "Constant(1, (3), float32)"), ("l", "Nil()"), ("p", "MkPair(1, 2)")])
    (d,) = errors(ran)
    assert located(d) == ("bad-argument", 1, 1, 1, 25)
    assert d.span.source.name == "--arg x"
    assert d.message == (
        "argument `x` does not fit parameter `%x : Tensor[(2, 2), float32]`: expected shape (2, 2), found "
        "(3) (rank 2 vs 1)"
    )
    assert d.notes == ["`%x` is declared at prog.rly:4:11"]


def test_wrong_dtype_and_wrong_element() -> None:
    ran = run_request(
        PROGRAM,
        arg_texts=[("x", "Constant(1, (2, 2), int32)"), ("l", "Cons(1, Cons(True, Nil()))"), ("p", "MkPair(1, 2)")],
    )
    x_error, l_error = errors(ran)
    assert x_error.message.endswith(": expected dtype float32, found int32")
    assert l_error.message.endswith(": expected dtype int32, found bool (in element 1 of the list)")


def test_wrong_constructor() -> None:
    ran = run_request(
        PROGRAM, arg_texts=[("x", "Constant(1, (2, 2), float32)"), ("l", "Some(1)"), ("p", "MkPair(1, 2)")]
    )
    (d,) = errors(ran)
    assert d.message == (
        "argument `l` does not fit parameter `%l : List[Tensor[(), int32]]`: "
        "expected a value of List[Tensor[(), int32]], found `Some(...)` of type Optional"
    )


def test_missing_argument_names_the_parameter_and_its_type() -> None:
    ran = run_request(PROGRAM, arg_texts=[("x", "Constant(1, (2, 2), float32)"), ("p", "MkPair(1, 2)")])
    (d,) = errors(ran)
    assert located(d) == ("bad-argument", 4, 41, 4, 42)
    assert d.message == "missing argument for parameter `%l : List[Tensor[(), int32]]`"
    assert d.helps == ["pass `--arg l=VALUE` (or `--args FILE.npz`, or `--random-args`)"]


def test_unknown_parameter() -> None:
    ran = run_request("def @main(%a : int32) { %a }", arg_texts=[("a", "1"), ("b", "2")])
    (d,) = errors(ran)
    assert d.code == "bad-argument"
    assert d.message == "`--arg b=...`: `@main` has no parameter `%b`"
    assert d.helps == []
    assert d.notes == ["its parameters are: %a"]


def test_misspelled_parameter_gets_a_suggestion() -> None:
    ran = run_request("def @main(%count : int32) { %count }", arg_texts=[("conut", "1")])
    (d,) = errors(ran)
    assert d.code == "bad-argument"
    assert d.message == "`--arg conut=...`: `@main` has no parameter `%conut`"
    assert d.helps == ["did you mean `count`?"]


def test_argument_text_must_be_a_closed_expression() -> None:
    ran = run_request("def @main(%a : int32) { %a }", arg_texts=[("a", "%y")])
    (d,) = errors(ran)
    assert (d.code, d.span.source.name) == ("unbound-variable", "--arg a")
    ran = run_request("def @main(%a : int32) { %a }", arg_texts=[("a", "def @f() { 1 }")])
    (d,) = errors(ran)
    assert d.message == "the value of `--arg a` must be one expression"


def test_npy_and_npz_files(tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.full((2, 2), 3, np.float32))
    ran = run_request("def @main(%x : Tensor[(2, 2), float32]) { %x }", arg_texts=[("x", f"@{tmp_path / 'x.npy'}")])
    assert ran.ok and (ran.value == 3).all()
    np.savez(tmp_path / "args.npz", x=np.zeros((2, 2), np.float32), y=np.int32(4))
    ran = run_request(
        "def @main(%x : Tensor[(2, 2), float32], %y : int32) { (%x, %y) }", args_file=str(tmp_path / "args.npz")
    )
    assert ran.ok and int(ran.value[1]) == 4 and ran.value[0].shape == (2, 2)
    ran = run_request("def @main(%x : Tensor[(3), float32]) { %x }", args_file=str(tmp_path / "args.npz"))
    messages = [d.message for d in errors(ran)]
    assert any("has an array named `y`" in m for m in messages)
    ran = run_request("def @main(%x : int32) { %x }", arg_texts=[("x", f"@{tmp_path / 'missing.npy'}")])
    assert [d.message for d in errors(ran)] == [f"argument `x`: {tmp_path / 'missing.npy'}: no such file"]


def test_npz_member_that_is_not_an_array_is_an_argument_error(tmp_path: Path) -> None:
    """An archive member other than `NAME.npy` (numpy hands it back as bytes)
    is refused by name, not an internal error."""
    import zipfile

    np.savez(tmp_path / "good.npz", x=np.ones(2, np.float32))
    with zipfile.ZipFile(tmp_path / "good.npz", "a") as archive:
        archive.writestr("notes.txt", "weights of run 3")
    ran = run_request("def @main(%x : Tensor[(2), float32]) { %x }", args_file=str(tmp_path / "good.npz"))
    (d,) = errors(ran)
    assert d.code == "bad-argument"
    assert d.message == f"{tmp_path / 'good.npz'}: `notes.txt` is not an array (an .npz holds NAME.npy files)"


def test_npz_array_of_the_wrong_shape_is_located_at_the_parameter(tmp_path: Path) -> None:
    np.savez(tmp_path / "a.npz", x=np.zeros(3, np.float32))
    ran = run_request("def @main(%x : Tensor[(2), float32]) { %x }", args_file=str(tmp_path / "a.npz"))
    (d,) = errors(ran)
    assert located(d) == ("bad-argument", 1, 11, 1, 12)
    assert d.message == (
        f"argument `x` (from {tmp_path / 'a.npz'}) does not fit parameter `%x : Tensor[(2), float32]`: "
        f"expected shape (2), found (3) (axis 0 is 3, not 2)"
    )


def test_random_arguments_are_reproducible_and_typed() -> None:
    first = run_request(PROGRAM, random_args=True, seed=7)
    again = run_request(PROGRAM, random_args=True, seed=7)
    other = run_request(PROGRAM, random_args=True, seed=8)
    assert first.ok and again.ok and other.ok
    assert value_text(first.value) == value_text(again.value)
    assert value_text(first.value) != value_text(other.value)
    x, _lst, pair = first.value
    assert x.dtype == np.float32 and x.shape == (2, 2)
    assert pair.con.name == "MkPair" and all(f.dtype == np.int32 for f in pair.fields)


def test_random_arguments_fill_only_what_is_missing() -> None:
    ran = run_request(PROGRAM, random_args=True, arg_texts=[("l", "Nil()")])
    assert ran.ok and value_text(ran.value[1]) == "Nil()"


def test_shape_variables_bind_consistently() -> None:
    src = "def @main<n : ShapeVar>(%a : Tensor[(n, n), float32]) { %a }"
    ran = run_request(src, arg_texts=[("a", "Constant(0, (2, 3), float32)")])
    (d,) = errors(ran)
    assert d.message.endswith("expected shape (n, n), found (2, 3) (`n` is 2 elsewhere, 3 on axis 1)")
    ran = run_request(src, random_args=True)
    assert ran.ok and ran.value.shape[0] == ran.value.shape[1]


def test_functions_cannot_be_made_up() -> None:
    ran = run_request("def @main(%f : fn(int32) -> int32) { %f }", random_args=True)
    (d,) = errors(ran)
    assert located(d)[:3] == ("bad-argument", 1, 11)
    assert d.message == "cannot make up a value of type fn(Tensor[(), int32]) -> Tensor[(), int32] for `f`"


def test_python_values_are_converted_to_the_parameter_types() -> None:
    value = relay_text.run("def @main(%x : Tensor[(2), float64], %n : int64) { (%x, %n) }", [1, 2], 3)
    assert value[0].dtype == np.float64 and value[0].tolist() == [1.0, 2.0]
    assert value[1].dtype == np.int64 and int(value[1]) == 3
    with pytest.raises(relay_text.RelayError, match="expected shape"):
        relay_text.run("def @main(%x : Tensor[(2), float64]) { %x }", [1, 2, 3])


def test_entry_selection() -> None:
    src = "def @f(%x : bool) -> bool { %x }\ndef @main() { 1 }"
    assert value_text(run_request(src).value) == "1"
    assert value_text(run_request(src, entry="@f", arg_texts=[("x", "True")]).value) == "True"
    assert value_text(run_request(src, entry="f", arg_texts=[("x", "False")]).value) == "False"
    (d,) = errors(run_request(src, entry="@g"))
    assert (d.message, d.helps) == ("`@g` is not defined in this file", ["the file defines @f, @main"])
    (d,) = errors(run_request("def @f() { 1 }"))
    assert d.message == "nothing to run: the file defines no `@main` and ends with no expression"
    assert d.helps == ["choose one of its functions with `--entry`: @f"]


def test_bare_function_file_takes_the_arguments() -> None:
    """A TVM dump may hold a single top-level `fn`: its parameters are the entry's."""
    ran = run_request(
        '#[version = "0.0.5"]\nfn (%a: int32, %b: (int32, bool)) {\n  (%b, %a)\n}\n',
        arg_texts=[("a", "1"), ("b", "(2, True)")],
    )
    assert ran.ok and value_text(ran.value) == "((2, True), 1)"


META = """#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32]) {
  add(%x, meta[relay.Constant][0] /* ty=Tensor[(3), float32] */)
}
"""


def test_constants_without_data_need_random_consts() -> None:
    (d,) = errors(run_request(META, random_args=True))
    assert located(d) == ("bad-metadata", 3, 11, 3, 33)
    assert d.message == "`meta[relay.Constant][0]` has no value to run with"
    assert d.helps == ["`relay run --random-consts` fills constants whose types are known with random values"]


def test_random_consts_are_reproducible_and_independent_of_the_arguments() -> None:
    src = META.replace("  add(", "  (%x, add(").replace("*/)\n", "*/))\n")
    first = run_request(src, random_args=True, random_consts=True, seed=3)
    again = run_request(src, random_args=True, random_consts=True, seed=3)
    assert first.ok and again.ok, [str(d) for d in first.diagnostics]
    x, total = first.value
    assert np.array_equal(total, again.value[1]) and total.shape == (2, 3) and total.dtype == np.float32
    # The constant is one row added to each row of %x ...
    const = total - x
    assert np.allclose(const[0], const[1])
    # ... and making it up leaves the random arguments as they were.
    alone = run_request(
        '#[version = "0.0.5"]\ndef @main(%x: Tensor[(2, 3), float32]) { %x }\n', random_args=True, seed=3
    )
    assert np.array_equal(alone.value, x)


def test_an_argument_that_names_no_operator_is_reported_with_a_hint() -> None:
    """`--arg` text is not type-checked; a bare name is still reported as the checker would."""
    ran = run_request("def @main(%c: bool) { %c }", arg_texts=[("c", "true")])
    (diag,) = errors(ran)
    assert (diag.code, diag.message, diag.span.text) == ("unknown-operator", "unknown operator `true`", "true")
    assert diag.helps == ["did you mean `True`? Booleans are written `True` and `False`, as in Python"]
