"""Name resolution: scopes, graph-binding visibility and the diagnostics for names."""

from __future__ import annotations

from tests.helpers import body, diagnostics, only_diagnostic, parse_ok, where


def test_unbound_variable_with_suggestion() -> None:
    d = only_diagnostic("fn (%value) { %valeu }")
    assert where(d) == ("unbound-variable", 1, 15)
    assert d.message == "unbound variable `%valeu`"
    assert d.helps == ["did you mean `%value`?"]


def test_graph_binding_used_before_its_definition() -> None:
    """A graph binding is visible only after it, within its block."""
    d = only_diagnostic("fn (%a) {\n  %2 = %1 + %a;\n  %1 = %a;\n  %2\n}")
    assert where(d) == ("unbound-variable", 2, 8)
    assert [lab.message for lab in d.labels] == ["bound here, after its use"]
    assert d.labels[0].span.start_line_col == (3, 3)


def test_graph_binding_used_outside_its_block() -> None:
    """Document 002: a graph binding binds a temporary variable which is not
    scoped. Used after the block that bound it, it is that node."""
    module = parse_ok("fn (%a) {\n  let %f = fn () { %1 = add(%a, 1); %1 };\n  %1\n}")
    fn = module.expr
    assert fn.body.body is fn.body.value.body  # the same node, not a copy


def test_graph_binding_whose_variable_is_out_of_scope() -> None:
    d = only_diagnostic("fn (%a) {\n  let %f = fn (%b) { %1 = add(%a, %b); %1 };\n  %1\n}")
    assert where(d) == ("unbound-variable", 3, 3)
    assert d.message == "`%1` refers to `%b`, which is not in scope here"
    assert [(lab.message, lab.span.start_line_col) for lab in d.labels] == [
        ("`%b` is bound here", (2, 16)),
        ("`%1` is bound here", (2, 22)),
    ]
    assert d.notes == [
        (
            "a graph binding may be used anywhere after it in the file, but only where the variables its value "
            "refers to are in scope"
        )
    ]


def test_graph_binding_inside_parentheses_is_local_to_them() -> None:
    ds = diagnostics("fn (%a) { (%1 = %a; %1, %1) }")
    assert [where(d) for d in ds] == [("syntax-error", 1, 23)]


def test_pattern_variables_are_scoped_to_their_clause() -> None:
    d = only_diagnostic("match ((1, 2)) { case (%a, _) { %a } case _ { %a } }")
    assert where(d) == ("unbound-variable", 1, 47)


def test_let_binder_not_visible_in_its_own_non_function_value() -> None:
    d = only_diagnostic("let %x = %x; %x")
    assert where(d) == ("unbound-variable", 1, 10)


def test_unknown_global_with_suggestion() -> None:
    d = only_diagnostic("def @map_accmul() { 1 }\ndef @main() { @map_accuml() }")
    assert where(d) == ("unknown-global", 2, 15)
    assert d.helps == ["did you mean `@map_accmul`?"]


def test_globals_may_be_used_before_definition() -> None:
    parse_ok("def @a() { @b() }\ndef @b() { @a() }")


def test_duplicate_global() -> None:
    d = only_diagnostic("def @f() { 1 }\ndef @f() { 2 }")
    assert where(d) == ("duplicate-definition", 2, 5)
    assert d.labels[0].span.start_line_col == (1, 5)


def test_duplicate_parameter() -> None:
    d = only_diagnostic("fn (%x, %x) { %x }")
    assert where(d) == ("duplicate-definition", 1, 9)


def test_duplicate_pattern_variable() -> None:
    d = only_diagnostic("match ((1, 2)) { case (%a, %a) { %a } }")
    assert where(d) == ("duplicate-definition", 1, 28)


def test_duplicate_constructor_and_type() -> None:
    ds = diagnostics("data A { C : () -> A }\ndata B { C : () -> B }")
    assert [where(d) for d in ds] == [("duplicate-definition", 2, 10)]


def test_duplicate_attribute() -> None:
    d = only_diagnostic("nn.relu(1f, axis=1, axis=2)")
    assert where(d) == ("duplicate-definition", 1, 21)


def test_unknown_type_with_suggestion() -> None:
    d = only_diagnostic("data Numbers { E : () -> Numbers }\ndef @f(%n : Nubmers) { %n }")
    assert where(d) == ("unknown-type", 2, 13)
    assert d.helps == ["did you mean `Numbers`?"]


def test_unknown_dtype_and_kind() -> None:
    d = only_diagnostic("fn (%x : Tensor[(1), floaty32]) { %x }")
    assert where(d) == ("unknown-type", 1, 22)
    d = only_diagnostic("fn <s : Shapes>(%x : s) { %x }")
    assert where(d) == ("unknown-type", 1, 9)
    assert "Type, BaseType, Shape and ShapeVar" in d.notes[0]


def test_undeclared_dimension_variable() -> None:
    d = only_diagnostic("fn (%x : Tensor[(n, 3), float32]) { %x }")
    assert where(d) == ("unknown-type", 1, 18)
    assert d.helps == ["declare it as a type parameter: `<n : ShapeVar>`"]


def test_unknown_constructor_in_pattern() -> None:
    d = only_diagnostic("data O { None : () -> O }\ndef @f(%o : O) { match (%o) { case Non() { 1 } } }")
    assert where(d) == ("unknown-constructor", 2, 36)
    assert d.helps == ["did you mean `None`?"]


def test_pattern_variable_without_sigil() -> None:
    """Seeds README: `case Single(x) { x }` should be `%x`."""
    d = only_diagnostic("data N { S : (int32) -> N }\ndef @f(%n : N) { match (%n) { case S(x) { 1 } } }")
    assert where(d) == ("unknown-constructor", 2, 38)
    assert d.helps == ["to bind a variable, write `%x`"]


def test_unused_graph_binding_is_kept_as_a_statement() -> None:
    ds = diagnostics("fn (%a) {\n  %0 = add(%a, %a);\n  %a\n}")
    assert [(d.severity, *where(d)) for d in ds] == [("warning", "unused-binding", 2, 3)]
    from relay_text.syntax.parser import parse

    f = parse("fn (%a) {\n  %0 = add(%a, %a);\n  %a\n}").module.expr
    assert f.body.var.name == "" and f.body.value.op.name == "add"


def test_invalid_literals() -> None:
    assert where(only_diagnostic("300i8")) == ("invalid-literal", 1, 1)
    assert where(only_diagnostic("-129i8")) == ("invalid-literal", 1, 1)
    assert body("-128i8").value == -128
    d = only_diagnostic("Constant(1.5, (2), int32)")
    assert where(d) == ("invalid-literal", 1, 1)
    assert where(only_diagnostic("Constant(1, (2), intt32)")) == ("unknown-type", 1, 18)


def test_float_without_suffix_in_a_tvm_file_is_a_warning() -> None:
    """`1.0` in a 0.0.5 file gets a hint to write `1f`."""
    d = only_diagnostic('#[version = "0.0.5"]\nadd(1.0, 2f)')
    assert (d.severity, *where(d)) == ("warning", "invalid-literal", 2, 5)
    assert d.helps == ["write `1.0f` for a float32 literal in a TVM-format file"]


def test_unsupported_version() -> None:
    ds = diagnostics('#[version = "0.0.9"]\n1')
    assert [where(d) for d in ds] == [("unsupported-version", 1, 1)]


def test_meta_reference_of_another_kind() -> None:
    d = only_diagnostic('#[version = "0.0.5"]\nmeta[relay.Function][0]')
    assert where(d) == ("bad-metadata", 2, 1)


def test_shadowing_in_nested_functions() -> None:
    f = body("fn (%x) { fn (%x) { %x } }")
    inner = f.body
    assert inner.body is inner.params[0] and inner.params[0] is not f.params[0]


def test_constructor_must_return_its_adt() -> None:
    d = only_diagnostic("data A { C : () -> A }\ndata B { D : (int32) -> A }")
    assert where(d) == ("type-mismatch", 2, 25)
    assert d.message == "constructor `D` must return `B`"
