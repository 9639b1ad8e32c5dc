"""TVM parity: what TVM's parser (src/relay/parser/ at commit 21095b98) reads,
relay-text reads with the same meaning; what it rejects, relay-text rejects
with a located diagnostic. One test per form of the table in docs/tvm-format.md.
"""

from __future__ import annotations

import pytest

from relay_text.formatter import format_source
from relay_text.ir.span import Source
from relay_text.pipeline import check_source
from relay_text.text.type_text import type_text

HEADER = '#[version = "0.0.5"]\n'


def checked(text: str, name: str = "t.rly"):
    return check_source(Source(name, text))


def main_type(text: str) -> str:
    """The type of `@main`, for a text that must check cleanly."""
    result = checked(text)
    assert [str(d) for d in result.diagnostics] == []
    return result.global_types["@main"]


def tvm_main(body: str, params: str = "") -> str:
    return f"{HEADER}def @main({params}) {{\n  {body}\n}}\n"


def roundtrips(text: str) -> str:
    """`relay fmt` output (keep dialect), which must check to the same types,
    and go through the documented dialect and back to the same types."""
    before = checked(text).global_types
    formatted = format_source(Source("t.rly", text))
    assert [str(d) for d in formatted.diagnostics] == [] and formatted.text is not None
    assert checked(formatted.text).global_types == before
    docs = format_source(Source("t.rly", text), dialect="docs").text
    assert docs is not None and checked(docs).global_types == before
    back = format_source(Source("t.rly", docs), dialect="tvm").text
    assert back is not None and checked(back).global_types == before
    return formatted.text


def only_error(text: str):
    result = checked(text)
    assert len(result.diagnostics) == 1, [str(d) for d in result.diagnostics]
    return result.diagnostics[0]


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    "literal, value_type",
    [
        ("--10", "Tensor[(), int32]"),  # tokenizer.h: a run of `-` before a digit folds into the number
        ("-42i", "Tensor[(), int32]"),  # tokenizer.h ParseNumber: an `i` suffix without width is 32 bits
        ("2147483648", "Tensor[(), int64]"),  # tokenizer.h: an unsuffixed int that does not fit 32 bits is int64
        ("7i16", "Tensor[(), int16]"),
        ("1.5f16", "Tensor[(), float16]"),
        ("-inff", "Tensor[(), float32]"),
    ],
)
def test_number_spellings(literal: str, value_type: str) -> None:
    assert main_type(tvm_main(literal)) == f"fn() -> {value_type}"


def test_a_run_of_minus_signs_folds_into_the_literal() -> None:
    """`--10` is the literal 10 (TVM's tokenizer counts the signs), `---3` is -3;
    with a space between the signs the first is the operator `negative`."""
    source = tvm_main("(--10, ---3, - -2)")
    text = roundtrips(source)
    assert "(--10, ---3, - -2)" in text  # `relay fmt` keeps the author's spelling
    bound = format_source(Source("t.rly", source), bind_operands=True).text
    assert bound is not None and "(10, -3, %0)" in bound and "%0 = negative(-2);" in bound


@pytest.mark.parametrize(
    "literal, message",
    [
        ("65505f16", "`65505f16` is out of the range of float16 (its largest finite magnitude is 65504)"),
        ("2147483648i32", "`2147483648i32` does not fit in int32 (-2147483648 to 2147483647)"),
        ("4e38f", "`4e38f` is out of the range of float32 (its largest finite magnitude is 3.40282347e+38)"),
    ],
)
def test_numbers_out_of_their_range_are_errors(literal: str, message: str) -> None:
    """support/scalars.cc ValueToIntImm/ValueToFloatImm: out of range is "unrepresentable"."""
    diag = only_error(tvm_main(literal))
    assert (diag.code, diag.message, diag.span.text) == ("invalid-literal", message, literal)


# ---------------------------------------------------------------- dtypes


@pytest.mark.parametrize(
    "written, canonical",
    [
        ("int", "int32"),
        ("uint", "uint32"),
        ("float", "float32"),
        ("bfloat", "bfloat16"),
        ("int8x4", "int8x4"),
        ("uint1x4", "uint1x4"),
    ],
)
def test_dtype_spellings_of_tvms_datatype_parser(written: str, canonical: str) -> None:
    """include/tvm/runtime/data_type.h String2DLDataType: a bare code has its default width."""
    text = tvm_main("%x", f"%x: {written}, %y: Tensor[(2), {written}]")
    assert main_type(text) == f"fn(Tensor[(), {canonical}], Tensor[(2), {canonical}]) -> Tensor[(), {canonical}]"


def test_dtype_attribute_spellings() -> None:
    assert main_type(tvm_main('cast(%x, dtype="float")', "%x: int")) == "fn(Tensor[(), int32]) -> Tensor[(), float32]"


def test_a_dtype_that_does_not_exist() -> None:
    diag = only_error(tvm_main("%x", "%x: Tensor[(2), float8]"))
    assert (diag.code, diag.message, diag.span.text) == ("unknown-type", "unknown dtype `float8`", "float8")


def test_a_dtype_attribute_that_does_not_exist() -> None:
    diag = only_error(tvm_main('cast(%x, dtype="float8")', "%x: int32"))
    assert (diag.code, diag.span.text) == ("type-mismatch", "dtype")


# ---------------------------------------------------------------- names and arrows


def test_local_names_may_contain_a_slash() -> None:
    """tokenizer.h IsIdentLetter: `/` is a letter in TVM names (TensorFlow-imported
    parameters); the documented dialect, where `/` divides, renames such a variable."""
    text = tvm_main("multiply(%conv1/weights, 2f)", "%conv1/weights: Tensor[(2), float32]")
    assert main_type(text) == "fn(Tensor[(2), float32]) -> Tensor[(2), float32]"
    assert "%conv1/weights: Tensor[(2), float32]" in roundtrips(text)
    docs = format_source(Source("t.rly", text), dialect="docs").text
    assert "%conv1_weights_1 : Tensor[(2), float32]" in docs


def test_in_the_documented_dialect_a_slash_divides() -> None:
    text = "def @main(%a : float32, %b : float32) { %a/%b }"
    assert main_type(text) == "fn(Tensor[(), float32], Tensor[(), float32]) -> Tensor[(), float32]"


def test_an_arrow_written_as_two_tokens() -> None:
    """parser.cc ParseFunctionDef/ParseFunctionType match `-` then `>`."""
    text = f"{HEADER}def @main(%f: fn (int32) - > int32) - > int32 {{\n  %f(1)\n}}\n"
    assert main_type(text) == "fn(fn(Tensor[(), int32]) -> Tensor[(), int32]) -> Tensor[(), int32]"


# ---------------------------------------------------------------- attributes


def test_parameter_attributes_in_braces() -> None:
    """parser.cc ParseFunctionDef: `{...}` after a parameter's name holds its
    attributes (TVM prints `virtual_device` there after device planning)."""
    text = tvm_main(
        "add(%x, %y)",
        "%x {virtual_device=meta[VirtualDevice][0]}: Tensor[(2), float32], %y {a=1, b=[1, 2]}: Tensor[(2), float32]",
    )
    assert main_type(text) == "fn(Tensor[(2), float32], Tensor[(2), float32]) -> Tensor[(2), float32]"
    formatted = roundtrips(text)
    assert (
        "  %x {virtual_device=meta[VirtualDevice][0]}: Tensor[(2), float32],\n  %y {a=1, b=[1, 2]}: "
        "Tensor[(2), float32]\n"
    ) in formatted
    docs = format_source(Source("t.rly", text), dialect="docs").text
    assert "%x {virtual_device=meta[VirtualDevice][0]} : Tensor[(2), float32]" in docs


METADATA_ATTRS = """#[metadata]
{"root": 1, "nodes": [{"type_key": ""},
  {"type_key": "Map", "keys": ["relay.attrs.BatchMatmulAttrs", "VirtualDevice"], "data": [2, 4]},
  {"type_key": "Array", "data": [3]},
  {"type_key": "relay.attrs.BatchMatmulAttrs",
   "attrs": {"out_dtype": "float64", "transpose_a": "0", "transpose_b": "1"}},
  {"type_key": "Array", "data": [5]},
  {"type_key": "VirtualDevice", "attrs": {"device_type_int": "1", "virtual_device_id": "0"}}],
 "b64ndarrays": [], "attrs": {"tvm_version": "0.9.0"}}
"""


def test_attributes_by_reference_to_the_metadata_section() -> None:
    """parser.cc ParseCallArgs: a `meta[...]` ending the arguments, whose entry
    is an attributes object, gives the call its attributes."""
    text = (
        tvm_main(
            "nn.batch_matmul(%a, %b, meta[relay.attrs.BatchMatmulAttrs][0])",
            "%a {virtual_device=meta[VirtualDevice][0]}: Tensor[(2, 3, 4), float32], %b: Tensor[(2, 5, 4), float32]",
        )
        + METADATA_ATTRS
    )
    assert main_type(text) == "fn(Tensor[(2, 3, 4), float32], Tensor[(2, 5, 4), float32]) -> Tensor[(2, 3, 5), float64]"
    formatted = roundtrips(text)
    assert "nn.batch_matmul(%a, %b, meta[relay.attrs.BatchMatmulAttrs][0])" in formatted
    assert formatted.endswith(METADATA_ATTRS)


def test_a_metadata_reference_that_the_section_lacks() -> None:
    text = tvm_main(
        "nn.batch_matmul(%a, %b, meta[relay.attrs.BatchMatmulAttrs][1])",
        "%a: Tensor[(2, 3, 4), float32], %b: Tensor[(2, 4, 5), float32]",
    )
    diag = only_error(text + METADATA_ATTRS)
    assert (diag.code, diag.message, diag.span.text) == (
        "bad-metadata",
        "`meta[relay.attrs.BatchMatmulAttrs][1]` is not in the metadata section",
        "meta[relay.attrs.BatchMatmulAttrs][1]",
    )
    diag = only_error(tvm_main("%x", "%x {virtual_device=meta[VirtualDevice][3]}: int32") + METADATA_ATTRS)
    assert (diag.code, diag.span.text) == ("bad-metadata", "meta[VirtualDevice][3]")


def test_attributes_in_a_missing_metadata_section_are_unknown_and_said_once() -> None:
    """parser.cc:628 (ParseMetaRef: no entry in the meta table is an error in
    TVM; a dump printed with `show_meta_data=False` has none). The
    attributes are unknown: nothing is guessed (defaults would give wrong
    shapes and errors of their own, as a YOLO dump's `coord_start` did);
    the rest is checked, and one warning says so for the whole file."""
    call = "nn.batch_matmul(%a, %b, meta[relay.attrs.BatchMatmulAttrs][0])"
    nms = "vision.non_max_suppression(%c, %d, %e, -1, 0.5f, meta[relay.attrs.NonMaximumSuppressionAttrs][0])"
    params = (
        "%a: Tensor[(2, 3, 4), float32], %b: Tensor[(2, 5, 4), float32], %c: Tensor[(1, 4, 6), float32], %d: "
        "Tensor[(1), int32], %e: Tensor[(1, 4), int32]"
    )
    text = tvm_main(f"%0 = {call};\n  %1 = {call};\n  %2 = {nms};\n  (add(%0, %1), %2)", params)
    result = checked(text)
    assert [(d.code, d.severity, d.message, d.span.text) for d in result.diagnostics] == [
        (
            "bad-metadata",
            "warning",
            (
                "the attributes of 3 calls of `nn.batch_matmul` and `vision.non_max_suppression` are in a "
                "`#[metadata]` section this file does not have"
            ),
            "meta[relay.attrs.BatchMatmulAttrs][0]",
        )
    ]
    assert result.diagnostics[0].notes == [
        "their attributes are unknown: the results of those calls are not checked "
        "(their types are what their uses make them), and the file cannot be run"
    ]
    # what does not depend on the attributes is still checked: the arguments
    bad = tvm_main(
        "nn.batch_matmul(add(%a, %x), %b, meta[relay.attrs.BatchMatmulAttrs][0])",
        "%a: Tensor[(2, 3, 4), float32], %b: Tensor[(2, 5, 4), float32], %x: Tensor[(2, 3, 4), int32]",
    )
    assert [(d.code, d.span.text) for d in checked(bad).diagnostics] == [
        ("type-mismatch", "%x"),
        ("bad-metadata", "meta[relay.attrs.BatchMatmulAttrs][0]"),
    ]
    from relay_text.ir.span import Source
    from relay_text.pipeline import run_source
    from relay_text.eval.entry import RunRequest

    ran = run_source(Source("t.rly", text), RunRequest(random_args=True))
    errors = [d for d in ran.diagnostics if d.is_error]
    assert (errors[0].code, errors[0].message) == (
        "bad-metadata",
        "cannot run `nn.batch_matmul`: its attributes are in a `#[metadata]` section this file does not have",
    )


def test_a_metadata_entry_used_as_a_value() -> None:
    """Only `meta[relay.Constant][i]` is a value; the message names what was written."""
    diag = only_error(tvm_main("add(meta[relay.attrs.DenseAttrs][0], %x)", "%x: float32"))
    assert (diag.code, diag.message, diag.span.text) == (
        "bad-metadata",
        "`meta[relay.attrs.DenseAttrs][0]` cannot be used as a value",
        "meta[relay.attrs.DenseAttrs][0]",
    )


def test_attributes_on_a_call_of_a_function_value() -> None:
    """parser.cc ParseCallArgs: attributes of a call of a non-operator need
    `attrs_type_key`, otherwise TVM rejects them."""
    params = "%f: fn (int32) -> int32, %x: int32"
    assert main_type(tvm_main('%f(%x, attrs_type_key="DictAttrs", name="a")', params)).endswith("-> Tensor[(), int32]")
    diag = only_error(tvm_main('%f(%x, name="a")', params))
    assert (diag.code, diag.message, diag.span.text) == (
        "unknown-attribute",
        "`%f` is not an operator and takes no attributes",
        "name",
    )


# ---------------------------------------------------------------- graph bindings


IF_SCOPE = """#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32], %c: bool) {
  %1 = if (%c) {
    %0 = add(%x, 1f);
    multiply(%0, 2f)
  } else {
    %x
  };
  add(%1, %0)
}
"""


def test_a_graph_binding_used_after_the_branch_that_bound_it() -> None:
    """parser.cc AddGraphBinding/LookupGraphBinding: one table of `%n` per file."""
    assert main_type(IF_SCOPE) == "fn(Tensor[(2), float32], Tensor[(), bool]) -> Tensor[(2), float32]"
    roundtrips(IF_SCOPE)


def test_the_documented_dialect_does_not_scope_graph_bindings_either() -> None:
    """parser.cc:307 (one `graph_ctx` per file), document 002 (a graph
    binding's temporary variable is not scoped): the same in a file without
    a version header."""
    text = IF_SCOPE.replace('#[version = "0.0.5"]\n', "").replace("1f", "1.0").replace("2f", "2.0")
    assert main_type(text) == "fn(Tensor[(2), float32], Tensor[(), bool]) -> Tensor[(2), float32]"
    roundtrips(text)


@pytest.mark.parametrize("header", [HEADER, ""])
def test_a_graph_binding_whose_parameter_is_out_of_scope_is_a_located_error(header: str) -> None:
    """parser.cc:445 (LookupGraphBinding finds `%0` anywhere in the file);
    its value refers to the closure's `%y`, which does not exist after it."""
    text = header + (
        "def @main(%x: Tensor[(2), float32]) {\n"
        "  %1 = fn (%y: Tensor[(2), float32]) {\n"
        "    %0 = add(%y, %x);\n"
        "    %0\n"
        "  };\n"
        "  add(%1(%x), %0)\n"
        "}\n"
    )
    diag = only_error(text)
    line = 7 if header else 6
    assert (diag.code, diag.message, diag.span.text, diag.location()[1:3]) == (
        "unbound-variable",
        "`%0` refers to `%y`, which is not in scope here",
        "%0",
        (line, 15),
    )
    assert [lab.message for lab in diag.labels] == ["`%y` is bound here", "`%0` is bound here"]


def test_an_unknown_operator_is_reported_once_per_name() -> None:
    text = tvm_main("%0 = frobnicate(%x);\n  %1 = frobnicate(%0);\n  frobnicate(%1)", "%x: float32")
    diag = only_error(text)
    assert (diag.code, diag.message, diag.label, diag.location()[1:3]) == (
        "unknown-operator",
        "unknown operator `frobnicate`",
        "not an operator (3 uses; this is the first)",
        (3, 8),
    )


# ---------------------------------------------------------------- typing where the documents are silent

POLY = """#[version = "0.0.5"]
def @simple(%f: fn (Tensor[(2), float32]) -> Tensor[(2), float32], %x: Tensor[(2), float32]) {
  %f(%x)
}
def @twice[B](%g: fn [A](A) -> A, %y: B) -> (B, int32) {
  (%g(%y), %g(1))
}
def @main(%x: Tensor[(2), float32]) {
  %0 = fn [A](%a: A) -> A { %a };
  %1 = @simple(%0, %x);
  %2 = @simple(fn [C](%c: C) -> C { %c }, %1);
  %3 = @simple(@id, %2);
  (%0(%3), @twice(%0, %x), @twice(@id, 2))
}
"""


def test_polymorphic_function_values_are_instantiated_where_a_monomorphic_one_is_expected() -> None:
    """TVM's type solver instantiates a polymorphic function passed where a
    monomorphic function type is expected (tests/python/relay/
    test_pass_defunctionalization.py, test_pass_eta_expand.py): a graph-bound
    `fn [A]`, an inline one, and the Prelude's `@id`; a parameter of type
    `fn [A](A) -> A` takes such functions as they are."""
    result = checked(POLY)
    assert [str(d) for d in result.diagnostics] == []
    assert result.global_types["@twice"] == "fn<B>(fn<A>(A) -> A, B) -> (B, Tensor[(), int32])"
    assert result.global_types["@main"] == (
        "fn(Tensor[(2), float32]) -> (Tensor[(2), float32], (Tensor[(2), float32], Tensor[(), int32]),"
        " (Tensor[(), int32], Tensor[(), int32]))"
    )


def test_a_monomorphic_function_is_not_polymorphic_enough() -> None:
    text = POLY.split("def @main")[0] + "def @main() {\n  @twice(fn (%x: int32) { %x }, 2)\n}\n"
    diag = only_error(text)
    assert (diag.code, diag.message, diag.span.text) == (
        "type-mismatch",
        "mismatched types: the first argument of `@twice` must be `fn [A](A) -> A`, found `fn (int32) -> int32`",
        "fn (%x: int32) { %x }",
    )


# ---------------------------------------------------------------- the table of forms (docs/tvm-format.md)

FORMS = [
    # (form, body of @main, parameters, type of @main)
    ("block", "{ 1 }", "", "fn() -> Tensor[(), int32]"),
    ("sequence", "add(%x, 1); %x", "%x: int32", "fn(Tensor[(), int32]) -> Tensor[(), int32]"),
    ("let", "let %y: int32 = add(%x, 1); %y", "%x: int32", "fn(Tensor[(), int32]) -> Tensor[(), int32]"),
    (
        "graph binding",
        "%0 = add(%x, 1);\n  multiply(%0, %0)",
        "%x: int32",
        "fn(Tensor[(), int32]) -> Tensor[(), int32]",
    ),
    ("binary operators", "(1 * 2 + 3 < 4) == (5 != 6)", "", "fn() -> Tensor[(), bool]"),
    ("unit, parenthesis, 1-tuple", "((), (1), (1,))", "", "fn() -> ((), Tensor[(), int32], (Tensor[(), int32],))"),
    ("projection", "(1, 2f).1", "", "fn() -> Tensor[(), float32]"),
    (
        "curried call",
        "%f(1)(2)",
        "%f: fn (int32) -> fn (int32) -> int32",
        "fn(fn(Tensor[(), int32]) -> fn(Tensor[(), int32]) -> Tensor[(), int32]) -> Tensor[(), int32]",
    ),
    ("fn with type parameters", "fn [A](%a: A) -> A { %a }", "", "fn() -> fn<A>(A) -> A"),
    ("fn attributes", "fn (%a: int32, Primitive=1) { %a }", "", "fn() -> fn(Tensor[(), int32]) -> Tensor[(), int32]"),
    ("if", "if (%c) { 1 } else { 2 }", "%c: bool", "fn(Tensor[(), bool]) -> Tensor[(), int32]"),
    ("references", "%0 = ref(1);\n  ref_write(%0, 2);\n  ref_read(%0)", "", "fn() -> Tensor[(), int32]"),
    (
        "match on an atom",
        "match %l { Cons(%h, _) => %h, Nil => 0 }",
        "%l: List[int32]",
        "fn(List[Tensor[(), int32]]) -> Tensor[(), int32]",
    ),
    (
        "partial match",
        "match? (%l) { Cons(%h, _) => %h }",
        "%l: List[int32]",
        "fn(List[Tensor[(), int32]]) -> Tensor[(), int32]",
    ),
    ("nullary constructor", "Nil", "", "fn<a>() -> List[a]"),
    ("tuple pattern", "match ((%x, %x)) { (%a, _) => %a }", "%x: int32", "fn(Tensor[(), int32]) -> Tensor[(), int32]"),
    (
        "attribute values",
        'nn.conv2d(%x, %w, strides=(1), padding=[1, 1], channels=4, kernel_size=[3, 3], out_dtype="")',
        "%x: Tensor[(1, 2, 5, 5), float32], %w: Tensor[(4, 2, 3, 3), float32]",
        "fn(Tensor[(1, 2, 5, 5), float32], Tensor[(4, 2, 3, 3), float32]) -> Tensor[(1, 4, 5, 5), float32]",
    ),
    (
        "null attribute values",
        "nn.dense(%x, %w, units=nullptr)",
        "%x: Tensor[(2, 3), float32], %w: Tensor[(4, 3), float32]",
        "fn(Tensor[(2, 3), float32], Tensor[(4, 3), float32]) -> Tensor[(2, 4), float32]",
    ),
    ("tensor types", "%x", "%x: Tensor[(?, 3), float32]", "fn(Tensor[(?, 3), float32]) -> Tensor[(?, 3), float32]"),
    (
        "tuple and function types",
        "%x",
        "%x: (int32, fn (int32) -> bool)",
        (
            "fn((Tensor[(), int32], fn(Tensor[(), int32]) -> Tensor[(), bool])) -> (Tensor[(), int32], "
            "fn(Tensor[(), int32]) -> Tensor[(), bool])"
        ),
    ),
    # (generalized: a deliberate difference, TVM leaves `_` unsolved)
    ("incomplete type", "add(%x, 1f)", "%x: _", "fn<a : Shape>(Tensor[a, float32]) -> Tensor[a, float32]"),
]


@pytest.mark.parametrize("form, body, params, expected", FORMS, ids=[f[0] for f in FORMS])
def test_every_form_of_tvms_grammar_reads_checks_and_round_trips(
    form: str, body: str, params: str, expected: str
) -> None:
    """parser.cc: ParseExpr, ParseBindingExpr, ParseExprBinOp, ParseCallExpr, ParseAtomicExpr,
    ParseAttributeValue, ParseType; each form checks to the type TVM gives it and
    formats to itself and through the documented dialect and back."""
    text = tvm_main(body, params)
    assert main_type(text) == expected
    roundtrips(text)


def test_definitions_extern_types_and_metadata_round_trip() -> None:
    text = f"""{HEADER}type Box[A] {{
  Box(A),
}}

extern type Opaque

def @unbox[A](%b: Box[A]) -> A {{
  match (%b) {{
    Box(%x) => %x,
  }}
}}

def @main() {{
  @unbox(Box(meta[relay.Constant][0]))
}}
"""
    from relay_text.syntax.metadata import encode_metadata
    import numpy as np

    text += "#[metadata]\n" + encode_metadata([np.arange(3, dtype=np.int64)]) + "\n"
    assert main_type(text) == "fn() -> Tensor[(3), int64]"
    assert roundtrips(text).endswith(text[text.index("#[metadata]") :])


# ---------------------------------------------------------------- v0.0.4


def test_v004_positional_dtype_sequencing_and_metadata() -> None:
    """TVM's v0.0.4 parser (python/tvm/relay/_parser.py, Relay.g4 before TVM 0.8) called
    `relay.cast(data, dtype)` with positional arguments, read `e1 ;; e2` as a
    sequence, and ended a module with `METADATA:` and the JSON table."""
    from relay_text.syntax.metadata import encode_metadata
    import numpy as np

    text = (
        "v0.0.4\n"
        "def @main(%x: float32) {\n"
        '  add(%x, %x);; add(cast(%x, "int16"), meta[relay.Constant][0])\n'
        "}\n"
        "METADATA:\n" + encode_metadata([np.array(3, np.int16)], tvm_version="0.6.0") + "\n"
    )
    assert main_type(text) == "fn(Tensor[(), float32]) -> Tensor[(), int16]"
    formatted = format_source(Source("t.rly", text)).text
    assert formatted is not None and formatted.startswith("v0.0.4\n") and "\nMETADATA:\n" in formatted
    assert 'cast(%x, dtype="int16")' in formatted
    assert checked(formatted).global_types == {"@main": "fn(Tensor[(), float32]) -> Tensor[(), int16]"}
    diag = only_error('v0.0.4\ndef @main(%x: float32) {\n  add(%x, "int16")\n}\n')
    assert (diag.code, diag.message, diag.span.text) == ("syntax-error", "a string is not a value", '"int16"')


def test_a_number_as_a_type_argument_formats() -> None:
    """`@g<3>(...)` passes a dimension (document 002, "Call"); the formatter writes it back."""
    text = (
        "def @g<n : ShapeVar>(%x : Tensor[(n), float32]) {\n  %x\n}\n\ndef @main(%y : Tensor[(3), float32]) "
        "{\n  @g<3>(%y)\n}\n"
    )
    assert format_source(Source("t.rly", text)).text == text


# ---------------------------------------------------------------- free variables

NESTED_FREE_VARS = """#[version = "0.0.5"]
free_var %c: bool;
if (%c) {
  free_var %z: float32;
  %0 = add(%z, %z);
  free_var %y: float32;
  %1 = add(%y, %y);
  add(%0, %1)
} else {
  3f
}
"""


def test_a_free_var_declared_inside_a_block() -> None:
    """parser.cc ParseExpr: `free_var %x: T;` may open any statement of a
    sequence, and the variable is an input of the file like one declared at
    the top (BindFreeVar keeps one table per file)."""
    result = checked(NESTED_FREE_VARS)
    assert [str(d) for d in result.diagnostics] == []
    assert [v.name for v in result.module.free_vars] == ["c", "z", "y"]
    formatted = roundtrips(NESTED_FREE_VARS)
    assert formatted.startswith(
        '#[version = "0.0.5"]\nfree_var %c: bool;\nfree_var %z: float32;\nfree_var %y: float32;\n'
    )


def test_a_free_var_declared_inside_a_block_runs() -> None:
    from relay_text.eval.entry import RunRequest
    from relay_text.eval.show import value_text
    from relay_text.pipeline import run_source

    args = [("c", "True"), ("z", "1f"), ("y", "2f")]
    ran = run_source(Source("t.rly", NESTED_FREE_VARS), RunRequest(arg_texts=args))
    assert [str(d) for d in ran.diagnostics] == []
    assert value_text(ran.value) == "6.0"


def test_a_binding_in_scope_hides_a_free_var_of_the_same_name() -> None:
    """parser.cc LookupLocal: the scopes are searched before the free variables."""
    text = HEADER + "let %f = fn (%x: int32) { free_var %x: bool; %x };\n%f(1)\n"
    result = checked(text)
    assert [str(d) for d in result.diagnostics] == []
    assert type_text(result.result.expr_type) == "Tensor[(), int32]"
    assert [v.name for v in result.module.free_vars] == ["x"]


def test_a_global_function_that_uses_a_free_var_is_an_error() -> None:
    """ir/module.cc IRModuleNode::Add: a function added to a module must have no free variables."""
    text = HEADER + "free_var %x: float32;\ndef @f() {\n  add(%x, 1f)\n}\n@f()\n"
    diag = only_error(text)
    assert (diag.code, diag.span.text, diag.location()[1:3]) == ("free-variable-in-global", "%x", (4, 7))
    assert diag.message == "`@f` uses the free variable `%x`; a global function must be closed"
    assert [(label.span.text, label.message) for label in diag.labels] == [("%x", "declared here")]


def test_a_free_var_declared_inside_a_global_function_is_an_error() -> None:
    diag = only_error(tvm_main("free_var %x: float32;\n  %x"))
    assert (diag.code, diag.location()[1:3]) == ("free-variable-in-global", (4, 3))


def test_an_attribute_value_that_is_an_expression_is_a_syntax_error() -> None:
    """parser.cc ParseAttributeValue falls back to an atomic expression; no
    operator's attributes hold one, so the error names what a value may be."""
    diag = only_error(tvm_main("sum(%x, axis=%x)", "%x: Tensor[(2), float32]"))
    assert (diag.code, diag.span.text, diag.location()[1:3]) == ("syntax-error", "%x", (3, 16))
    assert diag.message.startswith("expected an attribute value (a number, a string, `True`")


def test_an_attribute_number_out_of_its_range_is_an_invalid_literal() -> None:
    """tokenizer.h: a float16 literal beyond 65504 is an error, in an attribute value too."""
    diags = checked(tvm_main("nn.leaky_relu(%x, alpha=70000f16)", "%x: float32")).diagnostics
    assert [(d.code, d.span.text, d.location()[1:3]) for d in diags] == [("invalid-literal", "70000f16", (3, 27))]


def test_a_negative_attribute_number_is_checked_with_its_sign() -> None:
    """A suffixed integer in an attribute holds its dtype's range, sign
    included (`channels=-1u8` was read as -1; a fuzzer finding)."""
    diags = checked(tvm_main("nn.leaky_relu(%x, alpha=-1u8)", "%x: float32")).diagnostics
    assert [(d.code, d.span.text, d.message) for d in diags] == [
        ("invalid-literal", "-1u8", "`-1u8` does not fit in uint8 (0 to 255)")
    ]
    assert checked(tvm_main("nn.leaky_relu(%x, alpha=-1i8)", "%x: float32")).diagnostics == []


def test_an_attribute_integer_beyond_int64_is_an_invalid_literal_and_nothing_more() -> None:
    """An unsuffixed attribute integer is held to int64 as well (it reached
    the kernel before, where numpy could not take it), and the call's own
    checks do not report the placeholder left in its place
    (`strides must be positive, found [0, 1]`)."""
    x = "%x: Tensor[(1, 1, 4, 4), float32]"
    diags = checked(tvm_main("nn.max_pool2d(%x, pool_size=[1, 1], strides=[99999999999999999999, 1])", x)).diagnostics
    assert [(d.code, d.span.text, d.message) for d in diags] == [
        (
            "invalid-literal",
            "99999999999999999999",
            "`99999999999999999999` does not fit in int64 (-9223372036854775808 to 9223372036854775807)",
        )
    ]
    assert (
        checked(tvm_main("nn.max_pool2d(%x, pool_size=[1, 1], strides=[9223372036854775807, 1])", x)).diagnostics == []
    )
    # the call's other attributes are still checked
    diags = checked(tvm_main("nn.max_pool2d(%x, strides=[99999999999999999999, 1])", x)).diagnostics
    assert [(d.code, d.message) for d in diags] == [
        ("missing-attribute", "`nn.max_pool2d` needs the attribute `pool_size`"),
        (
            "invalid-literal",
            "`99999999999999999999` does not fit in int64 (-9223372036854775808 to 9223372036854775807)",
        ),
    ]


def test_a_name_as_an_attribute_value_is_one_syntax_error() -> None:
    """`axis=foo` is reported where it is written, once: the attribute's
    kind is not then checked against the string it is not."""
    diags = checked(tvm_main("sum(%x, axis=foo)", "%x: Tensor[(2), float32]")).diagnostics
    assert [(d.code, d.span.text, d.message) for d in diags] == [
        ("syntax-error", "foo", "`foo` is not an attribute value")
    ]


# ---------------------------------------------------------------- printing what TVM reads


def test_an_infinite_attribute_is_written_inff() -> None:
    """tokenizer.h:423: `inff` is the only infinity TVM's tokenizer reads
    (`inff64` is no token); an attribute holds infinity at any width. A
    written `-inff` is kept; one without source text (a conversion) is
    written `inff` too."""
    text = tvm_main("clip(%x, a_min=-inff, a_max=inff)", "%x: Tensor[(2), float32]")
    assert roundtrips(text) == text
    docs = format_source(Source("t.rly", text), dialect="docs").text
    assert docs is not None and "clip(%x, a_min=-inff, a_max=inff)" in docs
    from relay_text.syntax.spelling import attr_text

    assert [attr_text(v, tvm) for v in (float("inf"), float("-inf")) for tvm in (True, False)] == [
        "inff",
        "inff",
        "-inff",
        "-inff",
    ]


def test_a_comment_after_a_function_attribute_stays_there() -> None:
    """parser.cc:1112: function attributes follow the parameters
    (ParseAttrs); a comment written after one belongs to it, not to the body."""
    text = HEADER + 'def @f(%x: int32, Primitive=1 /* fused */, Compiler="c") -> int32 {\n  %x\n}\n'
    assert roundtrips(text) == text
    broken = HEADER + 'def @f(\n  %x: int32,\n  Primitive=1,  // the first\n  Compiler="c" /* second */\n) {\n  %x\n}\n'
    assert roundtrips(broken) == broken


@pytest.mark.parametrize("spelling", ["Nat", "Nat[]"])
def test_a_data_type_without_arguments_keeps_its_spelling(spelling: str) -> None:
    """parser.cc:1771: a type name may be followed by `[...]` or not; both
    mean the same type, and `relay fmt` keeps what was written (the
    documents write `Nat[]`)."""
    text = (
        f"data Nat {{\n  Z : () -> Nat\n  S : (Nat) -> Nat\n}}\n\ndef @pred(%n : {spelling}) -> {spelling} "
        f"{{\n  match (%n) {{\n    case Z() {{ Z() }}\n    case S(%m) {{ %m }}\n  }}\n}}\n"
    )
    formatted = format_source(Source("t.rly", text)).text
    assert formatted == text
