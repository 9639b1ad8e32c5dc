"""Parser behaviour the printer relies on, pinned where it was found wrong."""

from __future__ import annotations

from relay_text.ir.ty import TensorType, TypeCall
from tests.helpers import parse_ok


def test_bare_dtype_as_adt_argument_is_a_scalar_tensor_type() -> None:
    """A bare dtype in type position is `Tensor[(), dtype]` (seed 001, "Type
    System"); TVM's printer writes `List[float32]` for List[Tensor[(), float32]]."""
    module = parse_ok(
        '#[version = "0.0.5"]\ntype List[A] { Nil, Cons(A, List[A]), }\ndef @f(%l: List[float32]) { %l }\n'
    )
    ty = next(iter(module.functions.values())).params[0].type_annotation
    assert isinstance(ty, TypeCall)
    assert ty.args == (TensorType((), "float32"),)


def test_bare_dtype_for_a_base_type_parameter_stays_a_dtype() -> None:
    module = parse_ok(
        "data Boxed<b : BaseType> {\n  Box : (Tensor[(), b]) -> Boxed\n}\ndef @f(%x : Boxed[float32]) { %x }\n"
    )
    ty = next(iter(module.functions.values())).params[0].type_annotation
    assert ty.args == ("float32",)


def test_none_inside_an_attribute_list_is_kept() -> None:
    """`[None]` is a one-element list, not the empty list `[]`."""
    call = parse_ok("f(a=[None], b=[], c=None, d=[1, None])").expr
    assert call.attrs == (("a", (None,)), ("b", ()), ("c", None), ("d", (1, None)))


def test_float_text_of_the_largest_float32() -> None:
    """Shorter candidates round up past the largest float32; they are skipped."""
    import struct

    from relay_text.syntax.literals import float_text, parse_float

    largest = struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]
    text = float_text(largest, "float32")
    assert text == "3.4028235e+38"
    assert parse_float(text)[0] == largest


def test_a_constructor_named_where_formats_into_the_documented_form() -> None:
    """TVM's `type a { where() }` prints as `data a { where : () -> a }`,
    which reads back as the same type (the keyword `where` is only the one
    followed by a relation's name)."""
    from relay_text.formatter import format_source
    from relay_text.ir.span import Source

    result = format_source(Source("w.rly", "type a{where ( ) }"), "keep", 100)
    assert result.text == "data a {\n  where : () -> a\n}\n"


def test_a_data_type_named_where_formats_into_the_documented_form() -> None:
    """`type where {m, n}` prints its constructors as `m : () -> where`,
    followed by a name on the next line: still the type, not the keyword
    (a fuzzer finding: the output did not parse)."""
    from relay_text.formatter import format_source
    from relay_text.ir.span import Source

    result = format_source(Source("w.rly", "type where{m,n}"), "keep", 100)
    assert result.text == "data where {\n  m : () -> where\n  n : () -> where\n}\n"
