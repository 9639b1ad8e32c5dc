"""The printer on IR built directly: where temporaries go, which names are
used, literals, what a dialect cannot write, and programs too deep to
recurse over."""

from __future__ import annotations

import math
import struct
import time

import pytest

from relay_text.diagnostics import RelayError
from relay_text.formatter import format
from relay_text.ir.alpha import alpha_equal, alpha_equal_module
from relay_text.ir.expr import (
    Call,
    Clause,
    Constant,
    Constructor,
    Function,
    GlobalVar,
    If,
    Let,
    Match,
    MetaRef,
    Op,
    Tuple,
    TupleGetItem,
    Var,
)
from relay_text.ir.module import Module
from relay_text.ir.pattern import PatternConstructor, PatternVar
from relay_text.ir.ty import GlobalTypeVar, TensorType
from relay_text.syntax.parser import parse
from relay_text.printer.dialects import PrintError
from relay_text.printer.render import print_expr, print_module
from relay_text.syntax.spelling import attr_text, literal_text, quote
from tests.helpers import parse_ok

ADD = Op("add")


def add(a, b, infix: str | None = "+"):
    return Call(ADD, (a, b), infix=infix)


def free_vars(expr) -> list[Var]:
    """Variables used in `expr` but bound nowhere in it, in order of use."""
    from relay_text.ir.pattern import pattern_vars
    from relay_text.ir.visitor import post_order

    nodes = post_order(expr)
    bound: set = set()
    for node in nodes:
        if isinstance(node, Let):
            bound.add(node.var)
        elif isinstance(node, Function):
            bound.update(node.params)
        elif isinstance(node, Match):
            for clause in node.clauses:
                bound.update(pattern_vars(clause.pattern))
    out: list[Var] = []
    for node in nodes:
        if isinstance(node, Var) and node not in bound and node not in out:
            out.append(node)
    return out


def round_trips(expr, dialect: str = "docs") -> str:
    """Print `expr`; check that it reads back (its free variables declared)."""
    text = print_expr(expr, dialect)
    header = '#[version = "0.0.5"]\n' if dialect == "tvm" else ""
    declared = "".join(f"free_var %{v.name};\n" for v in free_vars(expr))
    result = parse(header + declared + text, "printed.rly")
    assert result.ok, [str(d) for d in result.diagnostics]
    assert alpha_equal(expr, result.module.expr), text
    return text


# ---------------------------------------------------------------- sharing


def test_a_diamond_prints_each_node_once() -> None:
    """Seed 004 (RFC "Relay IR Text Format"): shared nodes print as `%n = ...`."""
    x = Var("x")
    top = add(x, x)
    expr = Tuple((Call(Op("negative"), (top,)), Call(Op("exp"), (top,)), top))
    assert round_trips(expr) == "%0 = %x + %x;\n(negative(%0), exp(%0), %0)"


def test_a_node_used_by_both_branches_is_bound_before_the_if() -> None:
    c, x = Var("c"), Var("x")
    shared = add(x, x)
    expr = If(c, add(shared, shared), Call(Op("exp"), (shared,)))
    assert round_trips(expr) == "%0 = %x + %x;\nif (%c) { %0 + %0 } else { exp(%0) }"


def test_a_node_used_twice_in_one_branch_is_bound_inside_it() -> None:
    """The innermost scope that holds every use: the branch, not the function."""
    c, x = Var("c"), Var("x")
    shared = add(x, x)
    expr = If(c, add(shared, shared), x)
    assert round_trips(expr) == "if (%c) {\n  %0 = %x + %x;\n  %0 + %0\n} else {\n  %x\n}"


def test_a_node_used_inside_and_outside_a_closure_is_bound_outside() -> None:
    x, y = Var("x"), Var("y")
    shared = Call(Op("exp"), (x,))
    f = Function((y,), add(y, shared))
    expr = Tuple((f, shared))
    assert round_trips(expr) == "%0 = exp(%x);\n(fn (%y) { %y + %0 }, %0)"


def test_a_node_used_only_inside_a_closure_is_bound_in_its_body() -> None:
    x, y = Var("x"), Var("y")
    shared = Call(Op("exp"), (y,))
    f = Function((y,), add(shared, shared))
    assert round_trips(Tuple((f, x))) == "(\n  fn (%y) {\n    %0 = exp(%y);\n    %0 + %0\n  },\n  %x\n)"


def test_a_node_shared_in_a_match_arm_is_bound_in_that_arm() -> None:
    adt = GlobalTypeVar("Opt")
    some = Constructor("Some", (TensorType((), "int32"),), adt, 0)
    v, o = Var("v"), Var("o")
    sq = Call(Op("multiply"), (v, v), infix="*")
    expr = Match(o, (Clause(PatternConstructor(some, (PatternVar(v),)), add(sq, sq)),))
    assert print_expr(expr) == "match (%o) {\n  case Some(%v) {\n    %0 = %v * %v;\n    %0 + %0\n  }\n}"


def test_a_deep_diamond_chain_prints_in_linear_time() -> None:
    """`%i = add(%i-1, %i-1)` for 10,000 steps: a tree would have 2^10000 nodes."""
    x = Var("x")
    node = x
    for _ in range(10_000):
        node = add(node, node, infix=None)
    start = time.perf_counter()
    text = print_expr(node, "tvm")
    elapsed = time.perf_counter() - start
    lines = text.splitlines()
    assert len(lines) == 10_000
    assert lines[0] == "%0 = add(%x, %x);"
    assert lines[-2] == "%9998 = add(%9997, %9997);"
    assert lines[-1] == "add(%9998, %9998)"
    assert elapsed < 5, elapsed  # generous: milliseconds per thousand nodes on a quiet machine


def test_programs_100000_deep_print_without_recursion() -> None:
    x = Var("x")
    calls = x
    for _ in range(100_000):
        calls = Call(Op("negative"), (calls,))
    text = print_expr(calls)
    # Nested more than a dozen operands deep, the chain is cut into temporaries.
    assert text.count(" = ") == 100_000 // 14
    assert text.endswith(")")
    vars_ = [Var(f"v{i}") for i in range(100_001)]
    body = vars_[-1]
    for i in range(100_000, 0, -1):
        body = Let(vars_[i], add(vars_[i - 1], Constant(1, "int32")), body)
    lets = print_expr(Let(vars_[0], Constant(0, "int32"), body))
    assert lets.count("\n") == 100_001
    assert lets.splitlines()[1] == "let %v1 = %v0 + 1;"


# ---------------------------------------------------------------- names


def test_temporaries_skip_numbers_that_user_variables_use() -> None:
    zero, three = Var("0"), Var("1.5")
    shared = add(zero, three)
    text = round_trips(Tuple((shared, shared)))
    assert text == "%2 = %0 + %1.5;\n(%2, %2)"


def test_a_shadowing_let_is_renamed_when_it_would_capture() -> None:
    """Inlining `%x + 1` below `let %x` would read the inner %x."""
    outer, inner = Var("x"), Var("x")
    expr = Let(inner, Constant(2, "int32"), Call(Op("multiply"), (add(outer, Constant(1, "int32")), inner)))
    assert round_trips(expr) == "let %x_1 = 2;\nmultiply(%x + 1, %x_1)"


def test_shadowing_that_reads_correctly_is_kept() -> None:
    """Seed 002 ("Let Bindings"): a second `let %a` shadows the first."""
    a1, a2 = Var("a"), Var("a")
    expr = Let(a1, Constant(1, "int32"), Let(a2, add(a1, a1), a2))
    assert round_trips(expr) == "let %a = 1;\nlet %a = %a + %a;\n%a"


def test_duplicate_parameter_names_are_made_distinct() -> None:
    p1, p2 = Var("x"), Var("x")
    f = Function((p1, p2), Tuple((p1, p2)))
    assert round_trips(f) == "fn (%x, %x_1) { (%x, %x_1) }"


def test_a_used_sequencing_binder_gets_a_name() -> None:
    seq = Var("")
    expr = Let(seq, Constant(1, "int32"), add(seq, seq))
    assert round_trips(expr) == "let %v_1 = 1;\n%v_1 + %v_1"


def test_an_unused_sequencing_binder_prints_as_a_statement() -> None:
    """Seed 004 ("Side Effects Only"): `e; body` is a let of an unused variable."""
    expr = Let(Var(""), Call(Op("print"), ()), Constant(1, "int32"))
    assert round_trips(expr) == "print();\n1"


def test_a_projection_is_not_read_as_a_dotted_name() -> None:
    """With a variable called `%t.0` in the program, `%t` projected is `(%t).0`."""
    t, dotted = Var("t"), Var("t.0")
    expr = Let(
        t, Tuple((Constant(1, "int32"),)), Let(dotted, Constant(5, "int32"), Tuple((TupleGetItem(t, 0), dotted)))
    )
    assert round_trips(expr) == "let %t = (1,);\nlet %t.0 = 5;\n((%t).0, %t.0)"


def test_a_recursive_let_keeps_its_name_in_scope() -> None:
    f, n = Var("f"), Var("n")
    fn = Function((n,), Call(f, (n,)))
    assert round_trips(Let(f, fn, f)) == "let %f = fn (%n) { %f(%n) };\n%f"


def test_names_that_cannot_be_written_are_replaced() -> None:
    odd = Var("not a name")
    assert round_trips(Function((odd,), odd)) == "fn (%not_a_name_1) { %not_a_name_1 }"


def test_a_global_name_that_cannot_be_written_is_an_error() -> None:
    module = Module()
    gv = GlobalVar("bad name")
    module.functions[gv] = Function((), Constant(1, "int32"))
    module.order.append(gv)
    with pytest.raises(PrintError, match="the global name `bad name` cannot be written"):
        print_module(module)


# ---------------------------------------------------------------- literals and attributes


@pytest.mark.parametrize(
    ("value", "dtype", "docs", "tvm"),
    [
        (True, "bool", "True", "True"),
        (-7, "int32", "-7", "-7"),
        (7, "int64", "7i64", "7i64"),
        (255, "uint8", "255u8", "255u8"),
        (1.0, "float32", "1.0", "1f"),
        (0.5, "float64", "0.5f64", "0.5f64"),
        (1.0, "float16", "1.0f16", "1f16"),
        (math.inf, "float32", "inff", "inff"),
        (-math.inf, "float64", "-inff64", "-inff64"),
        (-0.0, "float32", "-0.0", "-0f"),
        (1, "bfloat16", None, None),
        (1, "int32x4", None, None),
    ],
)
def test_literal_text(value, dtype, docs, tvm) -> None:
    assert literal_text(value, dtype, tvm=False) == docs
    assert literal_text(value, dtype, tvm=True) == tvm


def test_floats_print_exactly_not_to_six_digits() -> None:
    """TVM printed 6 significant digits; 0.1f must come back as the same float32."""
    v = struct.unpack("<f", struct.pack("<f", 0.123456789))[0]
    text = literal_text(v, "float32", tvm=True)
    assert text == "0.12345679f"
    assert parse_ok(f'#[version = "0.0.5"]\n{text}').expr.value == v


@pytest.mark.parametrize(
    ("value", "docs", "tvm"),
    [
        (None, "None", "None"),
        (False, "False", "False"),
        (-3, "-3", "-3"),
        (0.5, "0.5", "0.5f"),
        (struct.unpack("<f", struct.pack("<f", 0.2))[0], "0.2f", "0.2f"),
        (0.1, "0.1", "0.1f64"),
        ("NCHW", '"NCHW"', '"NCHW"'),
        ('a "b"\\\n', '"a \\"b\\"\\\\\\n"', '"a \\"b\\"\\\\\\n"'),
        ((1, (2, None)), "[1, [2, None]]", "[1, [2, None]]"),
        (MetaRef("Array", 3), "meta[Array][3]", "meta[Array][3]"),
    ],
)
def test_attribute_text(value, docs, tvm) -> None:
    assert attr_text(value, tvm=False) == docs
    assert attr_text(value, tvm=True) == tvm


def test_strings_read_back() -> None:
    for s in ['"', "\\", "\n\t\r", "\x01", "é€", "plain"]:
        call = parse_ok(f"f(a={quote(s)})").expr
        assert call.attrs == (("a", s),)


def test_unary_minus_on_a_literal_becomes_a_call() -> None:
    """`-1` is the literal -1; negating the literal 1 must stay a call."""
    expr = Call(Op("negative"), (Constant(1, "int32"),), infix="-")
    assert round_trips(expr) == "negative(1)"
    assert round_trips(Call(Op("negative"), (Constant(-1, "int32"),), infix="-")) == "- -1"


# ---------------------------------------------------------------- dialects


def test_tvm_dialect_spells_operators_as_calls() -> None:
    a, b, p = Var("a"), Var("b"), Var("p")
    expr = Tuple((Call(Op("logical_and"), (p, p), infix="&&"), Call(Op("negative"), (a,), infix="-"), add(a, b)))
    assert round_trips(expr, "tvm") == "%0 = logical_and(%p, %p);\n%1 = negative(%a);\n%2 = add(%a, %b);\n(%0, %1, %2)"


def test_graph_bindings_keep_their_names_and_tvm_conversion_numbers_across_the_file() -> None:
    """`relay fmt` never renames what the user wrote; converting to TVM's
    format numbers temporaries once per file, as TVM's parser needs."""
    text = "def @f(%x) { %1 = %x + %x; (%1, %1) }\ndef @g(%y) { %1 = %y + %y; (%1, %1) }\n"
    assert format(text).count("%1 = ") == 2
    tvm = format(text, dialect="tvm")
    assert "%0 = add(%x, %x);" in tvm and "%1 = add(%y, %y);" in tvm


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        ("def @f(%a, %b) where Broadcast { %a }", "a `where` clause cannot be written in TVM's format", 1, 22),
        (
            "def @f(%g : fn (int32, int32) -> int32 where Broadcast) { %g }",
            "a `where` clause cannot be written in TVM's format",
            1,
            46,
        ),
        ("def @f<s : Shape>(%a : Tensor[s, float32]) { %a }", "the type parameter `s : Shape` cannot be written", 1, 8),
        ("def @f<a>(%x : a) { %x }\ndef @main() { @f<int32>(1) }", "explicit type arguments cannot be written", 2, 15),
        (
            "def @main() { Constant(1, (2, 2), float32) }",
            "the constant `Constant(..., float32)` cannot be written",
            1,
            15,
        ),
    ],
)
def test_what_tvm_cannot_express_is_a_located_error(text: str, message: str, line: int, column: int) -> None:
    with pytest.raises(RelayError) as info:
        format(text, dialect="tvm")
    diag = info.value.diagnostics[0]
    assert diag.code == "unformattable"
    assert message in diag.message
    _, at_line, at_column, _, _ = diag.location()
    assert (at_line, at_column) == (line, column)


@pytest.mark.parametrize(
    "text",
    [
        '#[version = "0.0.5"]\nfree_var %s: fn (int32, int32) -> int32 where Broadcast;\n\n%s\n',
        '#[version = "0.0.5"]\ndef @f(%g: fn (int32, int32) -> int32 where Broadcast) {\n  %g\n}\n',
    ],
)
def test_a_function_type_keeps_its_where_clause_in_a_tvm_file(text: str) -> None:
    """The reader takes `where` in either dialect, so keeping a TVM file
    keeps it (it was dropped: a different program, refused; a fuzzer finding)."""
    assert format(text) == text


def test_explicit_type_arguments_need_a_named_callee() -> None:
    f = Function((Var("x"),), Constant(1, "int32"))
    with pytest.raises(PrintError, match="explicit type arguments need a callee written as a name"):
        print_expr(Call(f, (Constant(1, "int32"),), (), (TensorType((), "int32"),)))


def test_keep_mode_keeps_each_header() -> None:
    """A `v0.0.4` file keeps its header; converting to "tvm" writes 0.0.5."""
    old = "v0.0.4\ndef @f(%x) { %x }\n"
    assert format(old).startswith("v0.0.4\n")
    assert format(old, dialect="tvm").startswith('#[version = "0.0.5"]\n')
    assert format('#[version = "0.0.5"]\ndef @f(%x) { %x }').startswith('#[version = "0.0.5"]\n')


def test_str_of_ir_objects() -> None:
    x = Var("x")
    assert str(add(x, x)) == "%x + %x"
    assert str(TensorType((2, 3), "float32")) == "Tensor[(2, 3), float32]"
    module = parse_ok("def @f(%a) {%a}")
    assert str(module) == "def @f(%a) {\n  %a\n}\n"
    assert alpha_equal_module(module, parse_ok(str(module)))


def test_kinded_type_parameters_survive_in_tvm_text() -> None:
    """TVM wrote `[A]`; a kind given in a TVM file is kept in the same brackets."""
    source = '#[version = "0.0.5"]\ndef @f[s : Shape](%x: Tensor[s, float32]) {\n  %x\n}\n'
    assert format(source) == source


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("", ""),
        ("\n\n  \n", ""),
        ('#[version = "0.0.5"]\n\n', '#[version = "0.0.5"]\n'),
        ("// only this", "// only this\n"),
    ],
)
def test_empty_files_stay_empty(source: str, expected: str) -> None:
    assert format(source) == expected


def test_a_file_whose_expression_is_a_tensor_constant() -> None:
    assert format("Constant(0, (1), float32)") == "Constant(0, (1), float32)\n"
