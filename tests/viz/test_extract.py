"""From a checked module to its dataflow graph: which nodes, in which
groups, joined by which edges."""

from __future__ import annotations

import pytest

from relay_text.viz.model import PARAM
from tests.conftest import CORPUS, needs_corpus
from tests.viz.helpers import PROGRAM, edge_table, graph, graph_of_file, node_table


def test_groups_nest_as_the_scopes_do() -> None:
    g = graph(PROGRAM)
    assert [(gr.kind, gr.label, gr.parent, gr.name) for gr in g.groups] == [
        ("function", "@f", -1, "@f"),
        ("function", "@main", -1, "@main"),
        ("if", "if", 1, ""),
        ("then", "then", 2, ""),
        ("else", "else", 2, ""),
        ("fn", "fn %k(%y)", 1, ""),  # a let-bound function is named by its variable
        ("function", "@g", -1, "@g"),
        ("match", "match", 6, ""),
        ("clause", "case Cons(%h, Cons(_, %t))", 7, ""),
        ("clause", "case _", 7, ""),
    ]
    assert g.groups[1].type == "fn(Tensor[(), int32], Tensor[(), bool]) -> Tensor[(), int32]"
    assert g.entry == 1  # @main


def test_nodes_sit_in_the_innermost_scope_of_their_uses() -> None:
    """`%1` is used in both branches: it stays in @main; `%2` is used in
    `then` only: it is drawn there. The closure's body is in its group, the
    pattern variables in their clause."""
    assert node_table(graph(PROGRAM)) == [
        ("param", "%a", "@f", "", "int32"),
        ("const", "2", "@f", "", "int32"),
        ("op", "multiply", "@f", "", "int32"),
        ("param", "%x", "@main", "", "int32"),
        ("param", "%c", "@main", "", "bool"),
        ("param", "%y", "fn %k(%y)", "", "int32"),
        ("call", "@f", "@main", "%0", "int32"),
        ("const", "1", "@main", "", "int32"),
        ("op", "add", "@main", "%1", "int32"),
        ("op", "add", "fn %k(%y)", "", "int32"),
        ("call", "%k(…)", "then", "%2", "int32"),
        ("op", "add", "then", "", "int32"),
        ("param", "%l", "@g", "", "List[Tensor[(), int32]]"),
        ("pattern", "%h", "case Cons(%h, Cons(_, %t))", "", "int32"),
        ("pattern", "%t", "case Cons(%h, Cons(_, %t))", "", "List[Tensor[(), int32]]"),
        ("call", "@g", "case Cons(%h, Cons(_, %t))", "", "int32"),
        ("op", "add", "case Cons(%h, Cons(_, %t))", "", "int32"),
        ("const", "0", "case _", "", "int32"),
    ]


def test_edges_carry_values_into_and_out_of_groups() -> None:
    """Arguments in order; a closure is the callee of its calls; an `if`
    reads its condition and a `match` its data as groups; each branch's
    value is its group's result, and each branch the result of its `if`."""
    assert edge_table(graph(PROGRAM)) == [
        ("%a", "multiply", 0, "arg"),
        ("2", "multiply", 1, "arg"),
        ("multiply", "[@f]", 0, "result"),
        ("%x", "%0", 0, "arg"),
        ("%0", "%1", 0, "arg"),
        ("1", "%1", 1, "arg"),
        ("%y", "add", 0, "arg"),
        ("%1", "add", 1, "arg"),
        ("add", "[fn %k(%y)]", 0, "result"),
        ("[fn %k(%y)]", "%2", 0, "callee"),
        ("%1", "%2", 0, "arg"),
        ("%2", "add", 0, "arg"),
        ("%2", "add", 1, "arg"),
        ("%c", "[if]", 0, "cond"),
        ("add", "[then]", 0, "result"),
        ("%1", "[else]", 0, "result"),
        ("[then]", "[if]", 0, "result"),
        ("[else]", "[if]", 1, "result"),
        ("[if]", "[@main]", 0, "result"),
        ("%t", "@g", 0, "arg"),
        ("%h", "add", 0, "arg"),
        ("@g", "add", 1, "arg"),
        ("%l", "[match]", 0, "data"),
        ("add", "[case Cons(%h, Cons(_, %t))]", 0, "result"),
        ("[case Cons(%h, Cons(_, %t))]", "[match]", 0, "result"),
        ("0", "[case _]", 0, "result"),
        ("[case _]", "[match]", 1, "result"),
        ("[match]", "[@g]", 0, "result"),
    ]


def test_details_of_a_node() -> None:
    g = graph(PROGRAM)
    call = next(n for n in g.nodes if n.label == "@f")
    assert (call.link, call.op, call.type, call.shape, call.dtype) == ("@f", "@f", "Tensor[(), int32]", "", "int32")
    assert (call.where.line, call.where.column, call.where.end_line, call.where.end_column) == (3, 8, 3, 14)
    assert g.lines[3] == "  %0 = @f(%x);"


def test_operator_attributes_and_costs() -> None:
    g = graph(
        "def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {\n"
        '  nn.conv2d(%x, %w, padding=[1, 1], out_dtype="float32")\n'
        "}\n"
    )
    conv = g.nodes[-1]
    assert (conv.kind, conv.label, conv.op) == ("op", "nn.conv2d", "nn.conv2d")
    assert conv.attrs == [("padding", "[1, 1]"), ("out_dtype", '"float32"')]
    assert (conv.shape, conv.dtype, conv.caption) == ("1×4×8×8", "float32", "1×4×8×8")  # noqa: RUF001 (the multiplication sign separates dimensions in the output)
    assert conv.macs == 4 * 64 * 27


def test_a_closure_that_calls_itself_links_to_its_group() -> None:
    """A recursive local function: the call inside it links to its group
    instead of an edge from the group into itself."""
    g = graph(
        "def @main(%n: int32) -> int32 {\n"
        "  let %loop = fn (%i: int32) -> int32 { if (%i > 0) { %loop(%i - 1) } else { %i } };\n"
        "  %loop(%n)\n"
        "}\n"
    )
    (fn,) = [gr for gr in g.groups if gr.kind == "fn"]
    inner, outer = [n for n in g.nodes if n.label == "%loop(…)"]
    assert inner.link == f"group:{fn.id}" and outer.link == ""
    callees = [(e.src, e.dst) for e in g.edges if e.role == "callee"]
    assert callees == [(~fn.id, outer.id)]


def test_a_global_used_as_a_value_is_a_node_per_use() -> None:
    g = graph(
        "def @inc(%x: int32) -> int32 { %x + 1 }\ndef @main(%l: List[int32]) { (@map(@inc, %l), @map(@inc, Nil)) }\n"
    )
    refs = [n for n in g.nodes if n.kind == "global"]
    assert [(n.label, n.link, n.type) for n in refs] == [
        ("@inc", "@inc", "fn(Tensor[(), int32]) -> Tensor[(), int32]")
    ] * 2
    calls = [n for n in g.nodes if n.label == "@map"]
    assert [n.link for n in calls] == ["@map", "@map"]  # a Prelude function: linked, drawn elsewhere


def test_lets_are_not_drawn() -> None:
    """A let-bound value is its node (named by the variable), its uses are
    edges from it; in A-normal form a model is the same graph as with graph
    bindings."""
    lets = graph("def @main(%x: float32) {\n  let %a = %x * 2f;\n  let %b = %a + %a;\n  let %c = %b;\n  %c - %a\n}\n")
    assert node_table(lets) == [
        ("param", "%x", "@main", "", "float32"),
        ("const", "2f", "@main", "", "float32"),
        ("op", "multiply", "@main", "%a", "float32"),
        ("op", "add", "@main", "%b", "float32"),
        ("op", "subtract", "@main", "", "float32"),
    ]
    assert edge_table(lets)[2:] == [
        ("%a", "%b", 0, "arg"),
        ("%a", "%b", 1, "arg"),
        ("%b", "subtract", 0, "arg"),
        ("%a", "subtract", 1, "arg"),
        ("subtract", "[@main]", 0, "result"),
    ]


def test_the_trailing_expression_and_free_variables() -> None:
    g = graph("free_var %z: int32\n%z + 1\n")
    assert [(gr.kind, gr.label, gr.name) for gr in g.groups] == [("function", "expression", "")]
    assert [(n.kind, n.label) for n in g.nodes] == [("param", "%z"), ("const", "1"), ("op", "add")]
    assert g.entry == 0


@needs_corpus
@pytest.mark.parametrize(
    "name, nodes, kinds",
    [
        ("apache-tvm-menangerie-resnet50.rly", 486, {"param": 1, "const": 259, "op": 175, "project": 51}),
        ("apache-tvm-menangerie-gpt2.rly", 1214, {"param": 1, "const": 296, "op": 868, "project": 36, "tuple": 13}),
        ("glenside-lstm-for-pldi.rly", 885, {"param": 10, "op": 577, "project": 219, "tuple": 79}),
        ("calyx-squeezenet-anf.rly", 152, {"param": 53, "op": 91, "tuple": 8}),
    ],
)
def test_corpus_models(name: str, nodes: int, kinds: dict[str, int]) -> None:
    """Every call, projection, tuple, parameter and constant once (ResNet-50:
    486, GPT-2: 1,214, the LSTM: 885 nodes)."""
    g = graph_of_file(CORPUS / name)
    assert len(g.nodes) == nodes
    counts: dict[str, int] = {}
    for n in g.nodes:
        counts[n.kind] = counts.get(n.kind, 0) + 1
    assert counts == kinds
    assert [gr.kind for gr in g.groups] == ["function"]
    assert all(n.type for n in g.nodes)


@pytest.mark.parametrize("n", [3_000, pytest.param(100_000, marks=pytest.mark.slow)])
def test_a_long_let_chain(n: int) -> None:
    """Nested lets, far deeper than Python's recursion limit: no recursion
    in extraction or layout."""
    from relay_text.viz.coords import place
    from relay_text.viz.layout import layered

    text = "def @main(%x0: float32) {\n" + "".join(f"let %x{i + 1} = %x{i} + 1f;\n" for i in range(n)) + f"%x{n}\n}}\n"
    g = graph(text)
    assert len(g.nodes) == 2 * n + 1
    placed = place(layered(g))
    assert placed.height > n * 20 and all(placed.shown_nodes)
    assert sum(1 for n in g.nodes if n.kind == PARAM) == 1
