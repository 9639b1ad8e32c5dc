"""The type errors among the seed documents' examples (samples/errors/), pinned.

seeds/README.md lists them: `@gen_func` called with two arguments though it
takes one (seed 000, "Implementing Neural Nets Using ADTs"), `@fact`'s
condition compares a 10x10 tensor (seed 002, "Functions"), and globals
called without their sigil: `inc_scalar(%one)` (seed 000, "Type-Checking
ADTs and Polymorphism") and `plus<(10, 10)>(...)` (seed 001, "Type
Parameter"). Each file gives exactly one diagnostic.

Also the programs the documents themselves say are rejected: a second data
type with the same constructors as `Numbers` (seed 000, "Defining and
Matching on an ADT"), and the two lists whose elements do not agree (seed
001, "Example: List ADT").
"""

from __future__ import annotations

import pytest

from relay_text.ir.span import Source
from relay_text.pipeline import check_source
from tests.conftest import SAMPLES

# file -> (code, line, column, message, labels [(line, column, text)], notes, helps)
GOLDEN = {
    "call_arity.rly": (
        "arity-mismatch",
        12,
        3,
        "`@gen_func` takes 1 argument, but 2 were given",
        [(7, 1, "defined here")],
        [],
        [],
    ),
    "if_tensor_condition.rly": (
        "type-mismatch",
        5,
        9,
        "the condition of `if` must be a single bool `Tensor[(), bool]`, found `Tensor[(10, 10), bool]`",
        [],
        [
            "the shapes differ: expected `()` (0 dimensions), found `(10, 10)` (2 dimensions)",
            "`==` compares tensors element by element, giving one bool per element",
        ],
        ["reduce it to one value first, e.g. `all(...)` or `any(...)`"],
    ),
    "global_missing_sigil.rly": (
        "unknown-operator",
        16,
        14,
        "unknown operator `inc_scalar`",
        [],
        [],
        ["did you mean `@inc_scalar`? Global functions are called with the `@` sigil"],
    ),
    "adt_same_constructors.rly": (
        "type-mismatch",
        24,
        8,
        "mismatched types: the first argument of `@sum` must be `Numbers`, found `Numbers2`",
        [(15, 10, "parameter `%n` is declared here")],
        [
            "`Numbers` and `Numbers2` are different data types: data types are told apart by name, "
            "even when their constructors look alike"
        ],
        [],
    ),
    "list_mixed_elements.rly": (
        "type-mismatch",
        4,
        11,
        "mismatched types: the second argument of `Cons` must be `List[Tensor[(), int32]]`, "
        "found `List[(Tensor[(), int32], Tensor[(), int32])]`",
        [(12, 3, "`Cons` is defined here")],
        ["in particular, expected `Tensor[(), int32]`, found `(Tensor[(), int32], Tensor[(), int32])`"],
        [],
    ),
    "list_of_lists_mixed.rly": (
        "type-mismatch",
        4,
        33,
        "mismatched types: the second argument of `Cons` must be `List[List[Tensor[(), int32]]]`, "
        "found `List[List[(Tensor[(), int32], Tensor[(), int32])]]`",
        [(12, 3, "`Cons` is defined here")],
        ["in particular, expected `Tensor[(), int32]`, found `(Tensor[(), int32], Tensor[(), int32])`"],
        [],
    ),
    "type_call_missing_sigil.rly": (
        "unknown-operator",
        7,
        3,
        "unknown operator `plus`",
        [],
        [],
        ["did you mean `@plus`? Global functions are called with the `@` sigil"],
    ),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_seed_type_error(name: str) -> None:
    path = SAMPLES / "errors" / name
    result = check_source(Source(name, path.read_text()))
    assert len(result.diagnostics) == 1, [str(d) for d in result.diagnostics]
    d = result.diagnostics[0]
    code, line, col, message, labels, notes, helps = GOLDEN[name]
    assert (d.code, *d.location()[1:3], d.message) == (code, line, col, message)
    assert [(*lab.span.start_line_col, lab.message) for lab in d.labels] == labels
    assert d.notes == notes
    assert d.helps == helps


def test_pattern_without_sigil_is_reported_once() -> None:
    """seed 000's `case Single(x) { x }`: the pattern's error says it all; `x` in the body is not reported again."""
    path = SAMPLES / "errors" / "pattern_missing_sigil.rly"
    result = check_source(Source(path.name, path.read_text()))
    assert [(d.code, *d.location()[1:3]) for d in result.diagnostics] == [("unknown-constructor", 11, 17)]
