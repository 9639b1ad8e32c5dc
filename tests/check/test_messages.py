"""What the diagnostics say: expected vs found in program syntax, where the expectation came from."""

from __future__ import annotations

from .helpers import diagnostics, only


def _labels(d) -> list[tuple[int, int, str]]:
    return [(*lab.span.start_line_col, lab.message) for lab in d.labels]


def test_argument_mismatch_points_at_the_parameter() -> None:
    d = only("def @one(%x : Tensor[(), float32]) -> Tensor[(), float32] { %x }\ndef @main() { @one(1) }")
    assert (
        d.message
        == "mismatched types: the first argument of `@one` must be `Tensor[(), float32]`, found `Tensor[(), int32]`"
    )
    assert d.location()[1:3] == (2, 20)
    assert d.label == "this has type `Tensor[(), int32]`"
    assert _labels(d) == [(1, 10, "parameter `%x` is declared here")]
    assert d.helps == ["write `1.0` for a float32 literal"]


def test_tvm_literal_spelling() -> None:
    d = only('#[version = "0.0.5"]\ndef @f(%x: float16) -> float16 { %x }\ndef @main() { @f(1) }')
    assert d.message == "mismatched types: the first argument of `@f` must be `float16`, found `int32`"
    assert d.helps == ["write `1.0f16` for a float16 literal"]


def test_annotation_is_the_origin_of_a_let_mismatch() -> None:
    d = only("def @main() {\n  let %x : Tensor[(), bool] = 1;\n  %x\n}")
    assert d.message == "mismatched types: expected `Tensor[(), bool]`, found `Tensor[(), int32]`"
    assert d.location()[1:3] == (2, 31)
    assert _labels(d) == [(2, 7, "expected because of this annotation")]


def test_return_type_is_the_origin_of_a_body_mismatch() -> None:
    d = only("def @f(%x : Tensor[(2), float32]) -> Tensor[(3), float32] {\n  %x\n}")
    assert d.location()[1:3] == (2, 3)
    assert _labels(d) == [(1, 38, "expected because of this return type")]
    assert d.notes == ["the shapes differ at axis 0: expected size 3, found size 2"]


def test_if_branches_name_each_other() -> None:
    d = only("def @f(%c : Tensor[(), bool]) {\n  if (%c) { (1, 2) } else { (1, 2, 3) }\n}")
    assert d.message == (
        "`if` and `else` have different types: expected `(Tensor[(), int32], Tensor[(), int32])`, "
        "found `(Tensor[(), int32], Tensor[(), int32], Tensor[(), int32])`"
    )
    assert _labels(d) == [(2, 13, "the `then` branch has type `(Tensor[(), int32], Tensor[(), int32])`")]
    assert d.notes == ["expected a tuple of 2 fields, found one of 3"]


def test_broadcast_names_the_axis_and_sizes() -> None:
    d = only("def @f(%a : Tensor[(4, 3), float32], %b : Tensor[(5), float32]) { add(%a, %b) }")
    assert (d.code, d.message) == ("shape-mismatch", "cannot broadcast shapes (4, 3) and (5)")
    assert d.notes == [
        "axis 1 of the first operand has size 3, axis 0 of the second has size 5; sizes must be equal or one of them 1"
    ]


def test_conv2d_names_the_channels() -> None:
    d = only("def @f(%x : Tensor[(1, 3, 8, 8), float32], %w : Tensor[(8, 4, 3, 3), float32]) { nn.conv2d(%x, %w) }")
    assert (d.code, d.message) == (
        "shape-mismatch",
        "`nn.conv2d`: the data has 3 channels, but the weight expects 4 (groups=1)",
    )
    assert d.location()[1:3] == (1, 96)
    assert _labels(d) == [(1, 82, "in this call of `nn.conv2d`")]


def test_reshape_counts_elements() -> None:
    d = only("def @f(%x : Tensor[(2, 3), float32]) { reshape(%x, newshape=[4, 2]) }")
    assert d.message == "cannot reshape (2, 3) (6 elements) into (4, 2) (8 elements)"


def test_unknown_operator_suggests_close_names() -> None:
    d = only("def @f(%x : Tensor[(2), float32]) { nn.sofmax(%x) }")
    assert (d.code, d.message, d.helps) == (
        "unknown-operator",
        "unknown operator `nn.sofmax`",
        ["did you mean `nn.softmax`?"],
    )


def test_unknown_operator_that_is_a_local() -> None:
    d = only("def @f(%x : Tensor[(2), float32]) { add(x, %x) }")
    assert d.helps == ["did you mean `%x`? Local variables are written with the `%` sigil"]


def test_occurs_check_explains() -> None:
    d = only("def @f(%g) { %g(%g) }")
    assert d.code == "occurs-check"
    assert d.message == "this expression's type would have to contain itself: `t = fn(t) -> t1`"


def test_kind_error_shows_the_declaration() -> None:
    d = only("def @f<t>(%x : Tensor[(2), t]) { %x }")
    assert d.message == "`t` is a type parameter of kind Type, but a dtype is expected here"
    assert _labels(d) == [(1, 8, "`t` is declared here")]
    assert d.helps == ["declare it as `t : BaseType`"]


def test_non_exhaustive_names_the_missing_value() -> None:
    text = (
        "data L { N : () -> L\n C : (L) -> L }\ndef @f(%l : L[]) -> Tensor[(), int32] {\n  match (%l) {\n    "
        "case C(N()) { 1 }\n    case N() { 0 }\n  }\n}"
    )
    d = only(text)
    assert d.message == "this `match` does not cover every value: `C(C(_))` is not matched"
    assert d.location()[1:5] == (4, 3, 4, 12)


def test_type_parameter_is_rigid_and_says_so() -> None:
    d = only("def @f<a>(%x : a) -> Tensor[(), int32] { %x }")
    assert d.message == "mismatched types: expected `Tensor[(), int32]`, found `a`"
    assert d.notes == [
        (
            "`a` is a type parameter: the code must work for every type it stands for, so it cannot be assumed "
            "to be `Tensor[(), int32]`"
        )
    ]


def test_errors_in_independent_definitions_are_all_reported() -> None:
    ds = diagnostics(
        "def @a() { 1 + True }\ndef @b(%x : Tensor[(2), float32]) { sum(%x, axis=[3]) }\ndef @c() { @a(1) }"
    )
    assert [(d.code, d.location()[1]) for d in ds] == [
        ("type-mismatch", 1),
        ("shape-mismatch", 2),
        ("arity-mismatch", 3),
    ]


def test_scalar_types_are_written_as_the_file_writes_them() -> None:
    """A file that writes scalar types as dtypes (`%x : int32`) reads them
    so in its messages; one that writes `Tensor[(), int32]` reads that."""
    short = only("def @f(%x : int32) -> int32 { %x }\ndef @main() { @f(1.5f) }")
    assert short.message == "mismatched types: the first argument of `@f` must be `int32`, found `float32`"
    assert short.label == "this has type `float32`"
    long = only("def @f(%x : Tensor[(), int32]) -> Tensor[(), int32] { %x }\ndef @main() { @f(1.5f) }")
    assert (
        long.message
        == "mismatched types: the first argument of `@f` must be `Tensor[(), int32]`, found `Tensor[(), float32]`"
    )
    tuple_type = only("def @f(%x : float32) -> (int32, float32) { (%x, %x) }")
    assert tuple_type.message == "mismatched types: expected `(int32, float32)`, found `(float32, float32)`"


def test_scalar_style() -> None:
    from relay_text.check.state import scalar_style

    assert scalar_style("def @f(%x : int32) -> float32 { ... }") is True
    assert scalar_style("def @f(%l : List[int32]) { ... }") is True
    assert scalar_style("def @f(%x : Tensor[(), int32]) { ... }") is False
    # Both, or neither: the dialect decides. Tensor's own dtype and
    # attribute strings do not count.
    assert scalar_style("def @f(%x : Tensor[(), int32], %y : bool) { ... }") is None
    assert scalar_style('def @f(%x : Tensor[(2), float32]) { cast(%x, dtype="int32") }') is None
