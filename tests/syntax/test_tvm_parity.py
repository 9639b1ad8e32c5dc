"""TVM parity: what TVM's parser (src/relay/parser/ at commit 21095b98) reads,
relay-text reads with the same meaning; what it rejects, relay-text rejects
with a located diagnostic. One test per form of the table in docs/tvm-format.md.
"""

from __future__ import annotations

import pytest

from relay_text.formatter import format_source
from relay_text.ir.span import Source
from relay_text.pipeline import check_source
from relay_text.syntax.type_text import type_text

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
    text = roundtrips(tvm_main("(--10, ---3, - -2)"))
    assert "(10, -3, %0)" in text and "%0 = negative(-2);" in text


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
    [("int", "int32"), ("uint", "uint32"), ("float", "float32"), ("bfloat", "bfloat16"), ("int8x4", "int8x4"), ("uint1x4", "uint1x4")],
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
