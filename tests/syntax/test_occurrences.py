"""Where shared nodes are used: a variable's own span is its binding site,
`Module.written_at(parent, i)` is where child `i` of `parent` is written."""

from __future__ import annotations

from tests.helpers import parse_ok


def text_of(module, parent, index) -> str:
    span = module.written_at(parent, index)
    assert span is not None
    return span.text


def test_each_use_of_a_variable() -> None:
    m = parse_ok("fn (%x) { add(%x, multiply(%x, %x)) }")
    call = m.expr.body
    assert m.written_at(call, 1).start_line_col == (1, 15)
    inner = call.args[1]
    assert [m.written_at(inner, i).start_line_col for i in (1, 2)] == [(1, 28), (1, 32)]
    assert call.args[0].span.start_line_col == (1, 5)  # the binder


def test_uses_of_a_graph_bound_node() -> None:
    m = parse_ok("fn (%a) {\n  %1 = add(%a, %a);\n  multiply(%1, %1)\n}")
    mul = m.expr.body
    assert text_of(m, mul, 1) == "%1" and m.written_at(mul, 2).start_line_col == (3, 16)
    assert mul.args[0].span.text == "add(%a, %a)"  # its own span: the binding's right-hand side


def test_callee_fields_conditions_and_blocks() -> None:
    m = parse_ok("def @g(%c) { %c }\ndef @f(%c : bool, %t) { if (%c) { %t } else { @g(%t).0 } }")
    gv = m.global_var("f")
    node = m.functions[gv].body
    assert text_of(m, node, 0) == "%c"
    assert text_of(m, node, 1) == "{ %t }"
    proj = node.else_branch
    assert text_of(m, proj.tuple_value, 0) == "@g"


def test_let_values_match_data_and_clause_bodies() -> None:
    m = parse_ok("fn (%x) { let %y = %x; match (%y) { case _ { %y } } }")
    let = m.expr.body
    assert text_of(m, let, 1) == "%x"
    match = let.body
    assert text_of(m, match, 0) == "(%y)"
    assert text_of(m, match, 1) == "{ %y }"


def test_nodes_with_their_own_span_need_no_entry() -> None:
    m = parse_ok("fn (%x) { (add(%x, 1), 2) }")
    tup = m.expr.body
    assert m.written_at(tup, 0).text == "add(%x, 1)"
    assert m.positions.use(tup, 0) is None


def test_results_of_blocks_and_attribute_keys_and_heads() -> None:
    m = parse_ok(
        "def @f(%c : bool, %x) -> int32 {\n  if (%c) { let %y = 1; %y } else { %x }\n}\ndef @g(%a) { "
        "nn.relu(%a, axis=1) }"
    )
    f = m.functions[m.global_var("f")]
    branch = f.body
    assert m.positions.result(branch, 2).text == "%x"
    assert m.written_at(branch, 2).text == "{ %x }"
    assert m.positions.head(f).text == "def @f(%c : bool, %x)"
    g = m.functions[m.global_var("g")]
    assert m.positions.attr_key(g.body, "axis").text == "axis"
