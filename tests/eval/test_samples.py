"""Every runnable sample gives the result its seed document states.

The text and JSON that `relay run` prints for each sample are pinned in
`golden/` (regenerate with `RELAY_UPDATE_GOLDEN=1` after checking them by
hand). The results the seed documents state in words are also asserted
one by one below, with the section they come from.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from relay_text.eval.entry import RunRequest
from relay_text.eval.show import value_json, value_text
from relay_text.ir.span import Source
from relay_text.pipeline import run_source
from tests.conftest import SAMPLES, sample_files

GOLDEN = Path(__file__).with_name("golden")
UPDATE = bool(os.environ.get("RELAY_UPDATE_GOLDEN"))

# Arguments for samples whose @main takes parameters.
ARGS = {
    "cse_graph.rly": [
        ("x", "Constant(1, (4), float32)"),
        ("y", "Constant(2, (4), float32)"),
        ("z", "Constant(3, (4), float32)"),
    ],
    "detection_head.rly": [("scores", "@example_scores()"), ("boxes", "@example_boxes()")],
    "graph_bindings.rly": [("a", "1"), ("b", "2")],
    "let_independent.rly": [("a", "1"), ("b", "2"), ("c", "3"), ("d", "4")],
    # seed 004: the float32 literal suffixes `1.0f` and `1f32`
    "rfc_literals.rly": [("a", "1.0f"), ("b", "1f32")],
    "vm_memory_plan.rly": [("x", "Constant(1, (2, 3), float32)"), ("y", "Constant(2, (2, 3), float32)")],
    "where_broadcast.rly": [("a", "Constant(1, (100, 1, 100), float32)"), ("b", "Constant(2, (100, 100), float32)")],
}
# JSON of a result this large is checked by shape rather than pinned.
MAX_GOLDEN_JSON_ELEMENTS = 10_000


def run_sample(name: str) -> object:
    path = SAMPLES / name
    ran = run_source(Source(name, path.read_text()), RunRequest(arg_texts=ARGS.get(name, [])))
    assert ran.ok, [str(d) for d in ran.diagnostics]
    return ran.value


def check_golden(path: Path, text: str) -> None:
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"no golden file {path.name}; run with RELAY_UPDATE_GOLDEN=1"
    assert text == path.read_text()


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_sample_output_is_pinned(path: Path) -> None:
    value = run_sample(path.name)
    check_golden(GOLDEN / f"{path.stem}.txt", value_text(value) + "\n")
    as_json = value_json(value)
    parsed = json.loads(as_json)
    if isinstance(value, np.ndarray) and value.size > MAX_GOLDEN_JSON_ELEMENTS:
        assert parsed["shape"] == list(value.shape) and parsed["dtype"] == value.dtype.name
        return
    check_golden(GOLDEN / f"{path.stem}.json", as_json + "\n")


def test_every_golden_file_belongs_to_a_sample() -> None:
    stems = {p.stem for p in sample_files()}
    assert {p.stem for p in GOLDEN.iterdir()} <= stems


# ---------------------------------------------------------------- stated results


def text_of(name: str) -> str:
    return value_text(run_sample(name))


def test_adt_numbers() -> None:
    """Seed 000, "Defining and Matching on an ADT": @sum(Empty()) is 0,
    @sum(Single(3)) is 3, @sum(Pair(5, 6)) is 11."""
    assert text_of("adt_numbers.rly") == "(0, 3, 11)"


def test_second_opt() -> None:
    """Seed 000, "Pattern Matching in Match Expressions": the four results of @second_opt."""
    assert text_of("second_opt.rly") == "(None(), Some(2), None(), None())"


def test_match_order() -> None:
    """Seed 000: `case %v { %v }` matches first, so the list comes back unchanged."""
    assert text_of("match_order.rly") == "Cons(1, Cons(2, Nil()))"


def test_closure_keeps_zero_tensor() -> None:
    """Seed 002, "Closures": the result is a 10x10 tensor of zeros."""
    value = run_sample("closure_capture.rly")
    assert isinstance(value, np.ndarray) and value.shape == (10, 10) and value.dtype == np.float32
    assert not value.any()


def test_call_with_captured_constant() -> None:
    """Seed 002, "Call": `%f(10, 11)` with `%c = 1` captured evaluates to 22."""
    value = run_sample("call_closure.rly")
    assert value.dtype == np.float32 and float(value) == 22.0


def test_let_shadowing() -> None:
    """Seed 002, "Local Variable": the shadowing example has value 2 + 2 = 4."""
    assert text_of("let_shadowing.rly") == "4"


def test_let_binding_doubles() -> None:
    """Seed 002, "Let Bindings": `%x + %x` of a tensor of ones is a (10, 10) tensor of 2s."""
    value = run_sample("let_binding.rly")
    assert value.shape == (10, 10) and (value == 2).all()


def test_ackermann() -> None:
    """Seed 002, "Module and Global Functions": @ackermann; A(2, 3) = 9."""
    assert text_of("ackermann.rly") == "9"


def test_list_functions() -> None:
    """Seed 000, "Common ADT Uses": doubling, concatenating and flattening,
    written directly and with map/foldr/foldl, agree."""
    assert text_of("list_double.rly") == "(Cons(2, Cons(4, Cons(6, Nil()))), Cons(2, Cons(4, Cons(6, Nil()))))"
    assert text_of("list_concat.rly") == "(Cons(1, Cons(2, Cons(3, Nil()))), Cons(1, Cons(2, Cons(3, Nil()))))"
    assert text_of("list_flatten.rly") == "(Cons(1, Cons(2, Cons(3, Nil()))), Cons(1, Cons(2, Cons(3, Nil()))))"
    assert text_of("list_sum.rly") == "6"


def test_graph_binding_sample() -> None:
    """Seed 002, "Graph Bindings": with a = 1, b = 2: %1 = 3, %2 = 6, result 36."""
    assert text_of("graph_bindings.rly") == "36"


def test_tuple_projection() -> None:
    """Seed 002, "Tuples": `(%tup.0 + %tup.1)` of ones and 2 gives 3s."""
    value = run_sample("tuples.rly")
    assert (value == 3).all()


def test_vm_memory_plan() -> None:
    """Memory-planned VM text runs: invoke_tvm_op fills the tensors alloc_tensor made.
    tanh(1 * 2 + 1) everywhere, reshaped to (3, 2)."""
    value = run_sample("vm_memory_plan.rly")
    assert isinstance(value, np.ndarray) and value.dtype == np.float32 and value.shape == (3, 2)
    np.testing.assert_allclose(value, np.full((3, 2), np.tanh(np.float32(3)), np.float32), rtol=1e-6)


def test_copied_list_definition_uses_the_prelude() -> None:
    """Seed 000, "Common ADT Uses": the document's own `data List` with the
    Prelude's @map, @foldl and @zip."""
    assert text_of("list_copied_definition.rly") == (
        "(Cons(10, Cons(20, Nil())), 3, Cons((1, 10), Cons((2, 20), Nil())))"
    )


def test_where_identity() -> None:
    """Seed 001, "Type Relation": Identity(I, I) holds of any one type."""
    assert text_of("where_identity.rly") == "(1, (1, True), Cons(1, Nil()))"


def test_where_flatten() -> None:
    """Seed 001, "Type Relation": Flatten gives Tensor(sh[0], prod(sh[1:]))."""
    flat, rows = run_sample("where_flatten.rly")
    assert flat.shape == rows.shape == (2, 12) and flat.dtype == np.float32 and (flat == 1).all()


def test_three_explicit_type_arguments() -> None:
    """Seed 002, "Call": %f : fn<a, b, c>(a, b) -> c called with three type
    arguments and then with inferred ones; no value of that type returns, so
    the program's value is the function that makes the two calls."""
    assert text_of("type_arguments_three.rly") == "@call_twice(%f : fn<a, b, c>(a, b) -> c) -> (Tensor[(), bool], ())"


def test_solver_nested_unknowns() -> None:
    """Seed 003: the result is the second tuple, (Tensor[(10, 20), float32], Tensor[(10, 1, 1), float32])."""
    first, second = run_sample("solver_nested.rly")
    assert first.tolist() == [10, 20] and second.tolist() == [10, 1, 1]


def test_rfc_blocks_and_sequencing() -> None:
    """Seed 004, "Let Expressions and Mutation" and the block syntax:
    `{ let %x = 1; %x }` is 1; `e; 1` and `let %_ = e; 1` run e for its effect."""
    assert text_of("rfc_blocks.rly") == "(1, 11)"


def test_rfc_attributes() -> None:
    """Seed 004: `cast(%1, dtype="float32")` and `axis=[1, 2]` attribute lists."""
    total, rows = run_sample("rfc_attributes.rly")
    assert total.dtype == np.float32 and float(total) == 6.0 and rows.tolist() == [3.0, 3.0]


def test_rfc_literals() -> None:
    """Seed 004: `1.0f` and `1f32` are float32 (the arguments), `2.5f64` float64, `7i64` int64."""
    value = run_sample("rfc_literals.rly")
    assert [v.dtype.name for v in value] == ["float32", "float64", "int64", "bool"]
    assert text_of("rfc_literals.rly") == "(2.0, 3.0f64, 7i64, True)"
