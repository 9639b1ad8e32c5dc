"""Each construct of the documented syntax parses to the expected IR."""

from __future__ import annotations

import pytest

from relay_text.ir import (
    AnyDim,
    Call,
    Constant,
    Constructor,
    DimBinOp,
    FuncType,
    Function,
    GlobalVar,
    If,
    Kind,
    Let,
    Match,
    Op,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    TypeCall,
    TypeVar,
    Var,
)
from tests.helpers import body, func, parse_ok


def op_name(e) -> str:
    assert isinstance(e, Call) and isinstance(e.op, Op), e
    return e.op.name


class TestDefinitions:
    def test_def_with_kinded_type_params(self) -> None:
        """Seed 001, "Type Parameter": `def @plus<s : Shape>(...)`."""
        m = parse_ok("def @f<a, s : Shape, bt : BaseType, n : ShapeVar>(%x : Tensor[s, bt], %y : a) -> a { %y }")
        f = func(m, "f")
        assert [(t.name, t.kind) for t in f.type_params] == [
            ("a", Kind.TYPE),
            ("s", Kind.SHAPE),
            ("bt", Kind.BASE_TYPE),
            ("n", Kind.SHAPE_VAR),
        ]
        a, s, bt, _ = f.type_params
        assert f.params[0].type_annotation == TensorType(s, bt)
        assert f.params[1].type_annotation is a
        assert f.ret_type is a
        assert f.body is f.params[1]

    def test_fn_with_where_relation(self) -> None:
        """Seed 002, "Polymorphism and Type Relations": `fn(%x, %y) where Broadcast`."""
        f = body("fn (%x, %y) where Broadcast { add(%x, %y) }")
        assert isinstance(f, Function)
        assert [r.name for r in f.relations] == ["Broadcast"]
        assert f.params[0].type_annotation is None and f.ret_type is None
        assert op_name(f.body) == "add" and f.body.args == f.params

    def test_fn_type_parameters(self) -> None:
        f = body("fn<t : Type>(%x : t) -> t { %x }")
        assert isinstance(f, Function)
        (t,) = f.type_params
        assert t.kind == Kind.TYPE and f.params[0].type_annotation is t and f.ret_type is t

    def test_data_definition(self) -> None:
        """Seed 000: constructors one per line, recursive type call."""
        m = parse_ok("data List<a> {\n  Nil : () -> List\n  Cons : (a, List[a]) -> List\n}")
        ((gtv, data),) = m.type_defs.items()
        assert gtv.name == "List"
        (a,) = data.type_params
        nil, cons = data.constructors
        assert (nil.name, nil.inputs, nil.tag, nil.belong_to) == ("Nil", (), 0, gtv)
        assert cons.name == "Cons" and cons.tag == 1
        assert cons.inputs == (a, TypeCall(gtv, (a,)))

    def test_bare_adt_name_is_an_empty_type_call(self) -> None:
        m = parse_ok("data Nat { Z : () -> Nat  S : (Nat) -> Nat }\ndef @f(%n : Nat[], %m : Nat) { %n }")
        (gtv,) = m.type_defs
        f = func(m, "f")
        assert f.params[0].type_annotation == TypeCall(gtv, ())
        assert f.params[1].type_annotation == TypeCall(gtv, ())

    def test_constructor_used_before_its_definition(self) -> None:
        m = parse_ok("def @f() { Some(1) }\ndata Optional<a> { None : () -> Optional  Some : (a) -> Optional }")
        call = func(m, "f").body
        assert isinstance(call.op, Constructor) and call.op.name == "Some"
        assert call.op.belong_to is next(iter(m.type_defs))


class TestMatch:
    def test_patterns(self) -> None:
        """Seed 000, "Pattern Matching": constructor, wildcard, variable, nested."""
        m = parse_ok(
            "data L { N : () -> L  C : (Tensor[(), int32], L) -> L }\n"
            "def @f(%l : L) { match (%l) { case C(_, C(%s, _)) { %s } case N() { 0 } case %v { 1 } } }"
        )
        match = func(m, "f").body
        assert isinstance(match, Match) and match.complete
        nested, nil, var = match.clauses
        p = nested.pattern
        assert isinstance(p, PatternConstructor) and p.constructor.name == "C"
        assert isinstance(p.patterns[0], PatternWildcard)
        inner = p.patterns[1]
        assert isinstance(inner, PatternConstructor) and isinstance(inner.patterns[0], PatternVar)
        assert nested.body is inner.patterns[0].var
        assert nil.pattern.constructor.name == "N" and nil.pattern.patterns == ()
        assert isinstance(var.pattern, PatternVar) and var.body.value == 1

    def test_tuple_pattern(self) -> None:
        match = body("match ((1, 2)) { case (%a, %b) { %b } }")
        (clause,) = match.clauses
        assert isinstance(clause.pattern, PatternTuple)
        assert clause.body is clause.pattern.patterns[1].var

    def test_match_as_a_let_value(self) -> None:
        """DESIGN.md: `match` as the value of a let must parse (TVM issue #13620)."""
        let = body("let %x = match ((1, 2)) { case (%a, %b) { %a } }; %x")
        assert isinstance(let, Let) and isinstance(let.value, Match) and let.body is let.var


class TestBindings:
    def test_let_with_annotation(self) -> None:
        let = body("let %x : Tensor[(10, 10), float32] = Constant(1, (10, 10), float32); %x")
        assert isinstance(let, Let)
        assert let.var.type_annotation == TensorType((10, 10), "float32")
        assert let.value.value == 1.0 and let.value.shape == (10, 10) and let.value.dtype == "float32"
        assert let.body is let.var

    def test_shadowing(self) -> None:
        """Seed 002, "Local Variable": the inner %a is a new variable."""
        let1 = body("let %a = 1; let %a = %a + %a; %a")
        let2 = let1.body
        assert let2.var is not let1.var
        assert let2.value.args == (let1.var, let1.var)
        assert let2.body is let2.var

    def test_recursive_let_bound_function_sees_itself(self) -> None:
        let = body("let %f = fn (%x) { %f(%x) }; %f")
        assert let.value.body.op is let.var

    def test_non_function_let_value_sees_the_outer_name(self) -> None:
        outer = body("let %x = 1; let %x = (%x, 2); %x")
        inner = outer.body
        assert inner.value.fields[0] is outer.var

    @pytest.mark.parametrize("sep", [";", ""])
    def test_graph_bindings_share_nodes(self, sep: str) -> None:
        """Seed 002, "Graph Bindings": `%1` is one node used twice."""
        text = f"fn (%a, %b) {{\n  %1 = %a + %b{sep}\n  %2 = %1 + %1{sep}\n  %2 * %2\n}}"
        f = body(text)
        mul = f.body
        assert op_name(mul) == "multiply"
        two = mul.args[0]
        assert mul.args[1] is two
        assert two.args[0] is two.args[1]
        assert op_name(two.args[0]) == "add"

    def test_sequence_is_a_let_of_an_anonymous_variable(self) -> None:
        let = body("(); 1")
        assert isinstance(let, Let) and let.var.name == "" and isinstance(let.value, Tuple)

    def test_block_expression(self) -> None:
        e = body("({ let %x = 1; %x }, 2)")
        assert isinstance(e, Tuple) and isinstance(e.fields[0], Let)


class TestExpressions:
    def test_if_else_if(self) -> None:
        e = body("fn (%m, %n) { if (%m == 0) { 1 } else if (%n == 0) { 2 } else { 3 } }").body
        assert isinstance(e, If) and isinstance(e.else_branch, If)
        assert e.else_branch.else_branch.value == 3

    def test_explicit_type_arguments(self) -> None:
        m = parse_ok("def @plus<s : Shape>(%a : Tensor[s, float32]) { %a }\ndef @main(%x) { @plus<(10, 10)>(%x) }")
        call = func(m).body
        assert isinstance(call.op, GlobalVar) and call.type_args == ((10, 10),)

    def test_explicit_type_arguments_on_a_local(self) -> None:
        call = body("fn (%f) { %f<Tensor[(), bool], float32, (int32, bool), (2, 3), ()>(True) }").body
        ty, dtype, tup, shape, unit = call.type_args
        assert ty == TensorType((), "bool")
        assert dtype == "float32"  # a dtype argument, for a BaseType parameter
        assert tup == TupleType((TensorType((), "int32"), TensorType((), "bool")))
        assert shape == (2, 3)  # a shape argument, for a Shape parameter
        assert unit == TupleType(())

    def test_constant_syntax(self) -> None:
        c = body("Constant(-2, (), int8)")
        assert (c.value, c.shape, c.dtype) == (-2, (), "int8")
        c = body("Constant(True, (3), bool)")
        assert (c.value, c.shape, c.dtype) == (True, (3,), "bool")

    def test_tuples(self) -> None:
        assert body("()").fields == ()
        (one,) = body("(1,)").fields
        assert one.value == 1
        assert [f.value for f in body("(1, 2)").fields] == [1, 2]
        assert body("(1)").value == 1  # parentheses, not a tuple

    def test_projection(self) -> None:
        let = body("let %t = (1, 2); %t.1")
        assert isinstance(let.body, TupleGetItem) and let.body.index == 1 and let.body.tuple_value is let.var

    def test_projection_after_a_call_and_chained(self) -> None:
        f = body("fn (%f, %x) { %f(%x).0.1 }")
        outer = f.body
        assert outer.index == 1 and outer.tuple_value.index == 0
        assert isinstance(outer.tuple_value.tuple_value, Call)

    def test_tuple_literal_projection(self) -> None:
        e = body("fn (%a, %b, %c) { (%a, %b, %c).1 }")
        assert e.body.index == 1 and isinstance(e.body.tuple_value, Tuple)

    def test_precedence(self) -> None:
        e = body("1 + 2 * 3 - 4")
        assert op_name(e) == "subtract"
        add = e.args[0]
        assert op_name(add) == "add" and op_name(add.args[1]) == "multiply"

    def test_comparison_and_logic_precedence(self) -> None:
        e = body("fn (%m, %n) { %m > 0 && %n == 0 || %m < %n }").body
        assert op_name(e) == "logical_or"
        assert op_name(e.args[0]) == "logical_and"
        assert [op_name(a) for a in e.args[0].args] == ["greater", "equal"]
        assert op_name(e.args[1]) == "less"

    def test_infix_spelling_is_remembered(self) -> None:
        e = body("1 + 2")
        assert e.infix == "+"
        assert body("add(1, 2)").infix is None

    def test_unary_minus(self) -> None:
        e = body("fn (%x) { -%x }").body
        assert op_name(e) == "negative" and e.infix == "-"
        c = body("-1")
        assert isinstance(c, Constant) and c.value == -1 and c.dtype == "int32"

    def test_minus_without_spaces_is_subtraction(self) -> None:
        """DESIGN.md, grammar traps: `1-2` and `1 - 2` are both subtraction."""
        for text in ("1-2", "1 - 2"):
            e = body(text)
            assert op_name(e) == "subtract" and [a.value for a in e.args] == [1, 2]

    def test_literals(self) -> None:
        assert (body("True").value, body("True").dtype) == (True, "bool")
        assert (body("1.0").value, body("1.0").dtype) == (1.0, "float32")
        assert body("0.1").value == 0.10000000149011612  # rounded to float32
        assert body("0.1f64").value == 0.1
        assert (body("3000000000").dtype) == "int64"
        assert (body("3i64").value, body("3i64").dtype) == (3, "int64")
        assert body("-2147483648").dtype == "int32"

    def test_free_type_variables_in_dims(self) -> None:
        f = parse_ok("def @f<n : ShapeVar>(%x : Tensor[(n + 1, 2 * n, ?), float32]) { %x }").functions
        (fn,) = f.values()
        (n,) = fn.type_params
        shape = fn.params[0].type_annotation.shape
        assert shape[0] == DimBinOp("+", n, 1)
        assert shape[1] == DimBinOp("*", 2, n)
        assert isinstance(shape[2], AnyDim)

    def test_function_and_tuple_types(self) -> None:
        fn = body("fn (%f : fn (int32, (bool, float32)) -> (int32,)) { %f }")
        ty = fn.params[0].type_annotation
        assert isinstance(ty, FuncType)
        assert ty.arg_types == (TensorType((), "int32"), TupleType((TensorType((), "bool"), TensorType((), "float32"))))
        assert ty.ret_type == TupleType((TensorType((), "int32"),))

    def test_vector_dtype(self) -> None:
        fn = body("fn (%v : Tensor[(4), int32x4]) { %v }")
        assert fn.params[0].type_annotation == TensorType((4,), "int32x4")

    def test_comments_are_collected(self) -> None:
        m = parse_ok("# one\ndef @f() { // two\n  1 /* three */\n}")
        assert [c.text for c in m.comments] == ["# one", "// two", "/* three */"]

    def test_parameters_are_vars_with_spans(self) -> None:
        f = body("fn (%x : int32) { %x }")
        (x,) = f.params
        assert isinstance(x, Var) and x.span is not None and x.span.text == "%x"
        assert isinstance(f.params[0].type_annotation, TensorType)

    def test_type_variable_identity(self) -> None:
        f = parse_ok("def @f<a>(%x : a) -> a { %x }\ndef @g<a>(%x : a) -> a { %x }").functions
        fa, ga = (fn.type_params[0] for fn in f.values())
        assert isinstance(fa, TypeVar) and fa is not ga
