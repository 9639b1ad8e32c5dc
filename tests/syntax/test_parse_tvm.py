"""Each construct of TVM's printed 0.0.4/0.0.5 format parses to the expected IR.

The facts come from shared/corpus/README.md and from TVM's own parser.
"""

from __future__ import annotations

from relay_text.ir import (
    Call,
    Constant,
    Constructor,
    Function,
    Let,
    Match,
    MetaRef,
    Op,
    PatternConstructor,
    PatternTuple,
    RefCreate,
    RefRead,
    RefWrite,
    TensorType,
    Tuple,
    TupleGetItem,
    TypeCall,
    Var,
)
from tests.helpers import body, func, parse_ok

HEADER = '#[version = "0.0.5"]\n'


def test_version_headers() -> None:
    assert parse_ok(HEADER + "def @main() { 1 }").version == "0.0.5"
    assert parse_ok("v0.0.4\ndef @main() { 1 }").version == "0.0.4"
    assert parse_ok("def @main() { 1 }").version is None


def test_type_definition_with_brackets() -> None:
    m = parse_ok(HEADER + "type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}\n")
    ((gtv, data),) = m.type_defs.items()
    (a,) = data.type_params
    cons, nil = data.constructors
    assert cons.inputs == (a, TypeCall(gtv, (a,))) and nil.inputs == ()
    assert (cons.tag, nil.tag) == (0, 1)


def test_extern_type() -> None:
    m = parse_ok(HEADER + "extern type Storage\n")
    ((gtv, data),) = m.type_defs.items()
    assert gtv.name == "Storage" and data.extern and data.constructors == ()


def test_square_bracket_type_parameters() -> None:
    m = parse_ok(HEADER + "def @id[A](%x: A) -> A { %x }")
    f = func(m, "id")
    (a,) = f.type_params
    assert f.params[0].type_annotation is a
    g = body(HEADER + "fn [A](%x: A) -> A { %x }")
    assert isinstance(g, Function) and len(g.type_params) == 1


def test_match_arms_with_trailing_commas_and_partial_match() -> None:
    m = parse_ok(
        HEADER
        + "type List[A] { Cons(A, List[A]), Nil, }\n"
        + "def @hd[A](%l: List[A]) -> A {\n  match? (%l) {\n    Cons(%h, _) => %h,\n  }\n}\n"
        + (
            "def @len[A](%l: List[A]) -> int32 {\n  match (%l) {\n    Cons(_, %t) => {\n      add(1, "
            "@len(%t))\n    },\n    Nil => 0,\n  }\n}\n"
        )
    )
    hd = func(m, "hd").body
    assert isinstance(hd, Match) and not hd.complete
    length = func(m, "len").body
    assert isinstance(length, Match) and length.complete
    cons, nil = length.clauses
    assert isinstance(nil.pattern, PatternConstructor) and nil.pattern.patterns == ()
    assert isinstance(cons.body, Call)


def test_tuple_pattern_in_arm() -> None:
    e = body(HEADER + "match ((1, 2)) { (%a, %b) => %b }")
    (clause,) = e.clauses
    assert isinstance(clause.pattern, PatternTuple)


def test_type_annotation_comments_anywhere() -> None:
    e = body(HEADER + "add(1 /* ty=int32 */, 2 /* ty=int32 */, /* ty=int32 */) /* ty=int32 */")
    assert isinstance(e, Call) and [a.value for a in e.args] == [1, 2]
    m = parse_ok(HEADER + "add(1 /* ty=int32 */, 2) /* ty=int32 */")
    assert [c.text for c in m.comments] == ["/* ty=int32 */", "/* ty=int32 */"]


def test_nested_block_comments() -> None:
    m = parse_ok(HEADER + "/* outer /* inner */ still outer */ 1")
    assert m.comments[0].text == "/* outer /* inner */ still outer */"


def test_literal_suffixes() -> None:
    cases = {
        "1f": (1.0, "float32"),
        "1f64": (1.0, "float64"),
        "1f16": (1.0, "float16"),
        "1i64": (1, "int64"),
        "1i16": (1, "int16"),
        "2u8": (2, "uint8"),
        "1e-05f": (9.999999747378752e-06, "float32"),
    }
    for text, (value, dtype) in cases.items():
        c = body(HEADER + text)
        assert (c.value, c.dtype) == (value, dtype), text
    inf = body(HEADER + "-inff")
    assert inf.value == float("-inf") and inf.dtype == "float32"


def test_keyword_attributes() -> None:
    e = body(
        HEADER + 'fn (%x, %w) { nn.conv2d(%x, %w, padding=[1, 1, 1, 1], out_dtype="float32", units=None, axis=[0], '
        "rate=0.2f, keepdims=True, newshape=[-1, 32], epsilon=1e-05f) }"
    ).body
    assert e.op.name == "nn.conv2d" and len(e.args) == 2
    attrs = dict(e.attrs)
    assert attrs["padding"] == (1, 1, 1, 1)
    assert attrs["out_dtype"] == "float32"
    assert attrs["units"] is None
    assert attrs["axis"] == (0,)
    # float attributes hold the float32 value their `f` suffix denotes
    assert attrs["rate"] == 0.20000000298023224
    assert attrs["keepdims"] is True
    assert attrs["newshape"] == (-1, 32)
    assert attrs["epsilon"] == 9.999999747378752e-06
    assert [k for k, _ in e.attrs] == [
        "padding",
        "out_dtype",
        "units",
        "axis",
        "rate",
        "keepdims",
        "newshape",
        "epsilon",
    ]


def test_function_attributes_in_parameter_list() -> None:
    f = body(HEADER + "fn (%x: int32, Primitive=1) -> int32 { %x }")
    assert f.attrs == (("Primitive", 1),) and len(f.params) == 1


def test_free_var() -> None:
    m = parse_ok(HEADER + "free_var %x: Tensor[(10), float32];\nadd(%x, %x)")
    (x,) = m.free_vars
    assert x.type_annotation == TensorType((10,), "float32")
    assert m.expr.args == (x, x)


def test_references() -> None:
    e = body(HEADER + "let %r = ref(1); let %u = ref_write(%r, 2); ref_read(%r)")
    assert isinstance(e.value, RefCreate)
    assert isinstance(e.body.value, RefWrite) and e.body.value.ref is e.var
    assert isinstance(e.body.body, RefRead)


def test_meta_references_and_metadata_section() -> None:
    m = parse_ok(HEADER + 'def @main(%x) { add(%x, meta[relay.Constant][3]) }\n#[metadata]\n{"root": 1}\n')
    c = func(m).body.args[1]
    assert isinstance(c, Constant) and c.meta_index == 3 and c.value is None and c.dtype is None
    assert m.metadata is not None and m.metadata.text.strip() == '{"root": 1}'
    attr = body(HEADER + "f(%x, weight=meta[relay.Constant][0])".replace("%x", "1"))
    assert dict(attr.attrs)["weight"] == MetaRef("relay.Constant", 0)


def test_dotted_names_and_projections() -> None:
    """Corpus: v0.0.4 names `%a.15`; projections `%4.10`."""
    f = body("v0.0.4\nfn (%a.15: (int32, int32)) { %a.15 }")
    (a,) = f.params
    assert a.name == "a.15" and f.body is a
    f = body(HEADER + "fn (%x) { %4 = (%x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x); %4.10 }")
    assert isinstance(f.body, TupleGetItem) and f.body.index == 10 and isinstance(f.body.tuple_value, Tuple)


def test_parenthesised_let_and_if_in_graph_binding() -> None:
    """The shape of the v0.0.4 corpus file: `%9 = ( let ...; %while_loop );`."""
    f = body(
        "v0.0.4\nfn (%x: int32) {\n  %0 = (\n    let %loop = fn (%i: int32) -> int32 { %loop(%i) };\n    %loop\n  );\n"
        "  %1 = if (True) { %x } else { %x };\n  %0(%1)\n}"
    )
    call = f.body
    assert isinstance(call.op, Let) and isinstance(call.args[0].cond, Constant)


def test_constructors_resolve_by_definition_not_case() -> None:
    m = parse_ok(HEADER + "type T { leaf, node(T, T), }\ndef @f() { node(leaf, leaf) }")
    call = func(m, "f").body
    assert isinstance(call.op, Constructor) and isinstance(call.args[0], Constructor)
    assert isinstance(body(HEADER + "nn.relu(1f)").op, Op)


def test_scalar_dtype_type_annotation() -> None:
    f = body(HEADER + "fn (%x: int32, %y: float64) -> bool { True }")
    assert f.params[0].type_annotation == TensorType((), "int32")
    assert f.ret_type == TensorType((), "bool")


def test_let_chain_anf_style() -> None:
    f = body("fn (%x: int32) {\n  let %a: int32 = add(%x, 1) /* ty=int32 */;\n  let %b: int32 = %a;\n  %b\n}")
    assert isinstance(f.body, Let) and isinstance(f.body.body, Let)
    assert isinstance(f.body.body.body, Var)


def test_a_graph_binding_of_another_definition_brings_its_variables_out_of_scope() -> None:
    """parser.cc:307 (`graph_ctx`, one map for the whole file) and
    parser.cc:445 (LookupGraphBinding): a `%n` of another definition is that
    node; one whose value refers to that definition's parameter is an error
    naming the parameter, at the use."""
    from tests.helpers import only_diagnostic, where

    d = only_diagnostic(
        '#[version = "0.0.5"]\n'
        "def @main(%x: Tensor[(2), float32]) {\n"
        "  %0 = negative(%x);\n"
        "  %0\n"
        "}\n"
        "def @g() {\n"
        "  (%0,)\n"
        "}\n"
    )
    assert (d.code, d.message, d.label) == (
        "unbound-variable",
        "`%0` refers to `%x`, which is not in scope here",
        "`%x` is out of scope here",
    )
    assert where(d) == ("unbound-variable", 7, 4)
    assert [(lab.message, lab.span.start_line_col) for lab in d.labels] == [
        ("`%x` is bound here", (2, 11)),
        ("`%0` is bound here", (3, 3)),
    ]


def test_a_graph_binding_of_another_definition_without_variables_is_that_node() -> None:
    """parser.cc:307, parser.cc:445: the table of `%n` is the file's, not a definition's."""
    from tests.helpers import func, parse_ok

    module = parse_ok('#[version = "0.0.5"]\ndef @f() {\n  %0 = add(1, 2);\n  %0\n}\ndef @g() {\n  (%0, %0)\n}\n')
    shared = func(module, "f").body
    assert func(module, "g").body.fields == (shared, shared)
