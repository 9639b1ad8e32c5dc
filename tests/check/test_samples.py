"""Every sample checks clean, and each global has the type its seed document implies.

The samples are the documents' code examples as complete programs; the
types below follow what the documents state or show (e.g. seed 000
"Common ADT Uses": `@map : fn<a, b>(fn(a) -> b, List[a]) -> List[b]`;
seed 001 "Type Parameter": `@plus<s : Shape>`; seed 002 "Call": the type
arguments example returns `()`).
"""

from __future__ import annotations

import pytest

from relay_text.ir.span import Source
from relay_text.pipeline import check_source
from tests.conftest import SAMPLES, sample_files

TYPES = {
    "ackermann.rly": {
        "@ackermann": "fn(Tensor[(), int32], Tensor[(), int32]) -> Tensor[(), int32]",
        "@main": "fn() -> Tensor[(), int32]",
    },
    "adt_numbers.rly": {
        "@sum": "fn(Numbers) -> Tensor[(), int32]",
        "@main": "fn() -> (Tensor[(), int32], Tensor[(), int32], Tensor[(), int32])",
    },
    "adt_optional.rly": {
        "@inc_scalar": "fn(Optional[Tensor[(), int32]]) -> Tensor[(), int32]",
        "@main": "fn() -> (Tensor[(), int32], Tensor[(), int32])",
    },
    "call_closure.rly": {
        "@main": "fn() -> Tensor[(), float32]",
    },
    "closure_capture.rly": {
        "@main": "fn() -> Tensor[(10, 10), float32]",
    },
    "cse_graph.rly": {
        "@main": "fn(Tensor[(4), float32], Tensor[(4), float32], Tensor[(4), float32]) -> Tensor[(4), float32]",
    },
    "detection_head.rly": {
        "@main": (
            "fn(Tensor[(1, 6), float32], Tensor[(1, 6, 4), float32]) -> (Tensor[(1, 3), int32], Tensor[(1, 1), "
            "int32], Tensor[(3, 4), float32], Tensor[(1, 3), float32], Tensor[(1, 6, 6), float32], Tensor[(?, "
            "2), int32])"
        ),
        "@example_scores": "fn() -> Tensor[(1, 6), float32]",
        "@example_boxes": "fn() -> Tensor[(1, 6, 4), float32]",
    },
    "functions.rly": {
        "@main": "fn() -> (Tensor[(), int32], Tensor[(10, 10), float32])",
    },
    "graph_bindings.rly": {
        "@main": "fn(Tensor[(), int32], Tensor[(), int32]) -> Tensor[(), int32]",
    },
    "if_else.rly": {
        "@min_of": "fn(Tensor[(), float32], Tensor[(), float32]) -> Tensor[(), float32]",
        "@main": "fn() -> (Tensor[(), float32], Tensor[(), int32])",
    },
    "let_binding.rly": {
        "@main": "fn() -> Tensor[(10, 10), float32]",
    },
    "let_independent.rly": {
        "@main": "fn(Tensor[(), int32], Tensor[(), int32], Tensor[(), int32], Tensor[(), int32]) -> Tensor[(), int32]",
    },
    "let_recursion.rly": {
        "@main": "fn() -> Tensor[(), int32]",
    },
    "let_shadowing.rly": {
        "@main": "fn() -> Tensor[(), int32]",
    },
    "list_concat.rly": {
        "@foldr": "fn<a, b>(fn(a, b) -> b, b, List[a]) -> b",
        "@concat": "fn<a>(List[a], List[a]) -> List[a]",
        "@concat_fold": "fn<a>(List[a], List[a]) -> List[a]",
        "@main": "fn() -> (List[Tensor[(), int32]], List[Tensor[(), int32]])",
    },
    # seed 000, "Common ADT Uses": the document's own List, used with the Prelude's functions
    "list_copied_definition.rly": {
        "@main": "fn() -> (List[Tensor[(), int32]], Tensor[(), int32], List[(Tensor[(), int32], Tensor[(), int32])])",
    },
    "list_double.rly": {
        "@map": "fn<a, b>(fn(a) -> b, List[a]) -> List[b]",
        "@double": "fn(List[Tensor[(), int32]]) -> List[Tensor[(), int32]]",
        "@main": "fn() -> (List[Tensor[(), int32]], List[Tensor[(), int32]])",
    },
    "list_first.rly": {
        "@first": "fn<a>(List[a]) -> Optional[a]",
        "@main": "fn() -> (Optional[Tensor[(), int32]], Optional[Tensor[(), int32]])",
    },
    "list_flatten.rly": {
        "@foldl": "fn<a, b>(fn(b, a) -> b, b, List[a]) -> b",
        "@concat": "fn<a>(List[a], List[a]) -> List[a]",
        "@flatten": "fn<a>(List[List[a]]) -> List[a]",
        "@flatten_fold": "fn<a>(List[List[a]]) -> List[a]",
        "@main": "fn() -> (List[Tensor[(), int32]], List[Tensor[(), int32]])",
    },
    "list_folds.rly": {
        "@map": "fn<a, b>(fn(a) -> b, List[a]) -> List[b]",
        "@foldl": "fn<a, b>(fn(b, a) -> b, b, List[a]) -> b",
        "@foldr": "fn<a, b>(fn(a, b) -> b, b, List[a]) -> b",
        "@main": "fn() -> (List[Tensor[(), int32]], Tensor[(), int32], Tensor[(), int32])",
    },
    "list_instances.rly": {
        "@main": "fn() -> (List[Tensor[(), int32]], List[(Tensor[(), int32], Tensor[(), int32])])",
    },
    "list_sum.rly": {
        "@list_sum": "fn(List[Tensor[(), int32]]) -> Tensor[(), int32]",
        "@main": "fn() -> Tensor[(), int32]",
    },
    "match_order.rly": {
        "@match_order_beware": "fn<a>(List[a]) -> List[a]",
        "@main": "fn() -> List[Tensor[(), int32]]",
    },
    "nat.rly": {
        "@pred": "fn(Nat) -> Nat",
        "@minus_two": "fn(Nat) -> Nat",
        "@first_wins": "fn(Nat) -> Nat",
        "@main": "fn() -> (Nat, Nat, Nat, Nat)",
    },
    "polymorphism.rly": {
        "@main": "fn() -> (Tensor[(), int32], (Tensor[(), bool], Tensor[(), int32]), Tensor[(2, 3), float32])",
    },
    "rfc_syntax.rly": {
        "@add_typed": "fn(Tensor[(), int64], Tensor[(), int64]) -> Tensor[(), int64]",
        "@add_inferred": (
            "fn<a : Shape, b : BaseType, c : Shape, d : Shape>(Tensor[a, b], Tensor[c, b]) -> Tensor[d, b] "
            "where Broadcast"
        ),
        "@main": (
            "fn() -> (Tensor[(), int64], Tensor[(), int32], Tensor[(), int64], Tensor[(), int32], Tensor[(), "
            "int32], (), (Tensor[(), int32],), (Tensor[(), int32], Tensor[(), int32]))"
        ),
    },
    "rnn_bidirectional.rly": {
        "@foldl": "fn<a, b>(fn(b, a) -> b, b, List[a]) -> b",
        "@map_accumr": "fn<a, b, c>(fn(a, b) -> (a, c), a, List[b]) -> (a, List[c])",
        "@zip": "fn<a, b>(List[a], List[b]) -> List[(a, b)]",
        "@map_accuml": "fn<a, b, c, d>(fn(a, b) -> c, a, List[b]) -> (a, List[d]) where TupleGetItem, TupleGetItem",
        "@bidirectional_rnn": (
            "fn<state1_type, state2_type, in_type, out1_type, out2_type>(fn(state1_type, in_type) -> "
            "(state1_type, out1_type), fn(state2_type, in_type) -> (state2_type, out2_type), state1_type, "
            "state2_type, List[in_type]) -> List[(out1_type, out2_type)]"
        ),
        "@main": "fn() -> List[(Tensor[(), int32], Tensor[(), int32])]",
    },
    "rnn_encode.rly": {
        "@foldl": "fn<a, b>(fn(b, a) -> b, b, List[a]) -> b",
        "@linear": (
            "fn<a : Shape, b : BaseType, c : Shape, d : Shape, e : Shape>(Tensor[a, b], Tensor[c, b], "
            "Tensor[d, b]) -> Tensor[e, b] where Broadcast, Broadcast"
        ),
        "@relu_cell": (
            "fn<a, b, c : Shape, d : BaseType, e : Shape, f : Shape>(a, b, Tensor[c, d], Tensor[e, d]) -> "
            "(Tensor[c, d], Tensor[f, d]) where TupleGetItem, TupleGetItem, Broadcast, Broadcast, Broadcast, "
            "Broadcast, TupleGetItem, Broadcast, TupleGetItem"
        ),
        "@trained_cell": (
            "fn<a, b, c : Shape, d : BaseType, e : Shape, f : Shape>(a, b) -> (fn(Tensor[c, d], Tensor[e, d]) "
            "-> (Tensor[c, d], Tensor[f, d])) where TupleGetItem, TupleGetItem, Broadcast, Broadcast, "
            "Broadcast, Broadcast, TupleGetItem, Broadcast, TupleGetItem"
        ),
        "@encode": (
            "fn<state_type, in_type, out_type>(fn(state_type, in_type) -> (state_type, out_type), "
            "List[in_type], state_type) -> state_type"
        ),
        "@main": "fn() -> Tensor[(2), float32]",
    },
    "rnn_general.rly": {
        "@foldr": "fn<a, b>(fn(a, b) -> b, b, List[a]) -> b",
        "@map_accumr": "fn<a, b, c>(fn(a, b) -> (a, c), a, List[b]) -> (a, List[c])",
        "@map_accumr_fold": (
            "fn<a, b, c, d>(fn(a, b) -> c, a, List[b]) -> (a, List[d]) where TupleGetItem, TupleGetItem"
        ),
        "@general_rnn": (
            "fn<state_type, in_type, out_type>(fn(state_type, in_type) -> (state_type, out_type), state_type, "
            "List[in_type]) -> (state_type, List[out_type])"
        ),
        "@main": "fn() -> ((Tensor[(), int32], List[Tensor[(), int32]]), (Tensor[(), int32], List[Tensor[(), int32]]))",
    },
    "rnn_generator.rly": {
        "@unfoldr": "fn<a, b>(fn(b) -> Optional[(a, b)], b) -> List[a]",
        "@gen_func": (
            "fn<state_type, in_type, out_type>(fn(state_type, in_type) -> (state_type, out_type), "
            "fn(state_type) -> Optional[in_type], state_type) -> Optional[(out_type, state_type)]"
        ),
        "@generator": (
            "fn<state_type, in_type, out_type>(fn(state_type, in_type) -> (state_type, out_type), "
            "fn(state_type) -> Optional[in_type], state_type) -> List[out_type]"
        ),
        "@count_to_three": "fn(Tensor[(), int32]) -> Optional[Tensor[(), int32]]",
        "@times_ten": "fn(Tensor[(), int32], Tensor[(), int32]) -> (Tensor[(), int32], Tensor[(), int32])",
        "@main": "fn() -> List[Tensor[(), int32]]",
    },
    "second_opt.rly": {
        "@second_opt": "fn<a>(Optional[List[a]]) -> Optional[a]",
        "@main": (
            "fn() -> (Optional[Tensor[(), int32]], Optional[Tensor[(), int32]], Optional[Tensor[(), int32]], "
            "Optional[Tensor[(), int32]])"
        ),
    },
    # seed 003: t3 is the second tensor, and the second tuple (t1, t3) both tensors
    "solver_nested.rly": {
        "@pass": "fn<a>(a) -> a where Identity",
        "@same": "fn<a, b>(a, b) -> a where Identity",
        "@solve": (
            "fn(Tensor[(10, 20), float32], Tensor[(10, 1, 1), float32], Tensor[(10, 1, 1), float32], "
            "Tensor[(10, 20), float32], Tensor[(10, 1, 1), float32]) -> (Tensor[(10, 20), float32], "
            "Tensor[(10, 1, 1), float32])"
        ),
        "@main": "fn() -> (Tensor[(2), int32], Tensor[(3), int32])",
    },
    "rfc_attributes.rly": {
        "@main": "fn() -> (Tensor[(), float32], Tensor[(2), float32])",
    },
    "rfc_blocks.rly": {
        "@main": "fn() -> (Tensor[(), int32], Tensor[(), int32])",
    },
    "rfc_literals.rly": {
        "@main": (
            "fn(Tensor[(), float32], Tensor[(), float32]) -> (Tensor[(), float32], Tensor[(), float64], "
            "Tensor[(), int64], Tensor[(), bool])"
        ),
    },
    "tour.rly": {
        "@eval": "fn(Expr) -> Tensor[(), int32]",
        "@main": "fn() -> (List[Expr], List[Tensor[(), int32]])",
    },
    "shape_polymorphism.rly": {
        "@plus": "fn<s : Shape>(Tensor[s, float32], Tensor[s, float32]) -> Tensor[s, float32]",
        "@main": "fn() -> (Tensor[(10, 10), float32], Tensor[(10, 10), float32])",
    },
    "tuple_types.rly": {
        "@main": "fn() -> Tensor[(10, 10), float32]",
    },
    "tuples.rly": {
        "@pair_up": (
            "fn(Tensor[(10, 10), float32], Tensor[(), float32], Tensor[(100, 100), float32]) -> (Tensor[(10, "
            "10), float32], Tensor[(100, 100), float32])"
        ),
        "@main": "fn() -> Tensor[(10, 10), float32]",
    },
    "type_arguments.rly": {
        "@main": "fn() -> ((Tensor[(), bool], Tensor[(), bool]), ())",
    },
    # seed 002, "Call": fn<a, b, c>(a, b) -> c, explicit type arguments then inferred ones
    "type_arguments_three.rly": {
        "@call_twice": "fn(fn<a, b, c>(a, b) -> c) -> (Tensor[(), bool], ())",
        "@main": "fn() -> fn(fn<a, b, c>(a, b) -> c) -> (Tensor[(), bool], ())",
    },
    "types_catalogue.rly": {
        "@types": (
            "fn<n : ShapeVar>(fn(Tensor[(4), int32x4]) -> Tensor[(), int32], Tensor[(), uint32], Tensor[(), "
            "bool], Tensor[(n + 1, 2 * n, 4), float32], Tensor[(?, 3), float32], fn(Tensor[(), int32], "
            "Tensor[(), int32]) -> Tensor[(), int32]) -> (Tensor[(n + 1, 2 * n, 4), float32], fn(Tensor[(), "
            "int32], Tensor[(), int32]) -> Tensor[(), int32])"
        ),
        "@main": "fn() -> Tensor[(), int32]",
    },
    "vm_memory_plan.rly": {
        "@main": "fn(Tensor[(2, 3), float32], Tensor[(2, 3), float32]) -> Tensor[(3, 2), float32]",
    },
    # seed 001, "Type Relation": Flatten(Tensor(sh, bt), O) :- O = Tensor(sh[0], prod(sh[1:]))
    "where_flatten.rly": {
        "@flatten_rows": "fn<n : ShapeVar, m : ShapeVar>(Tensor[(n, m, 4), float32]) -> Tensor[(n, m * 4), float32]",
        "@main": "fn() -> (Tensor[(2, 12), float32], Tensor[(2, 12), float32])",
    },
    # seed 001, "Type Relation": Identity(I, I), on any type
    "where_identity.rly": {
        "@main": "fn() -> (Tensor[(), int32], (Tensor[(), int32], Tensor[(), bool]), List[Tensor[(), int32]])",
    },
    "where_broadcast.rly": {
        "@main": "fn(Tensor[(100, 1, 100), float32], Tensor[(100, 100), float32]) -> Tensor[(100, 100, 100), float32]",
    },
    "while_loop.rly": {
        "@main": "fn() -> Tensor[(), float32]",
    },
}


@pytest.mark.parametrize("name", sorted(TYPES))
def test_sample_types(name: str) -> None:
    path = SAMPLES / name
    result = check_source(Source(name, path.read_text()))
    assert [str(d) for d in result.diagnostics if d.is_error] == []
    assert result.global_types == TYPES[name]


def test_every_sample_is_pinned() -> None:
    assert sorted(p.name for p in sample_files()) == sorted(TYPES)
