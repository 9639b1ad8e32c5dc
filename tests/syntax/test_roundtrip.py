"""Property tests: IR programs built directly (not from text) print to text
that parses back to the same program, formats stably and keeps comments.

The strategy builds well-scoped modules with every kind of node: shared
subexpressions (a DAG, including diamonds), shadowed and oddly named
variables (`%0`, `%a.1`, `%x_1`, sequencing binders), recursive lets,
closures, ADTs with nested patterns, references, attributes of every kind,
literals of every dtype (including NaN, infinities and -0.0), explicit
type arguments, `where` relations and kinded type parameters (the last three
only where the documented dialect is the target).

Runs are derandomized (a fixed seed), so CI sees the same examples.
"""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relay_text.formatter import UnsafeFormat, format_source
from relay_text.ir.adt import TypeData
from relay_text.ir.alpha import alpha_equal_module
from relay_text.ir.expr import (
    Call,
    Clause,
    Constant,
    Constructor,
    Expr,
    Function,
    GlobalVar,
    If,
    Let,
    Match,
    MetaRef,
    Op,
    RefCreate,
    RefRead,
    RefWrite,
    RelationRef,
    Tuple,
    TupleGetItem,
    Var,
)
from relay_text.ir.module import Module
from relay_text.ir.pattern import PatternConstructor, PatternTuple, PatternVar, PatternWildcard
from relay_text.ir.span import Source
from relay_text.ir.ty import AnyDim, FuncType, GlobalTypeVar, Kind, TensorType, TupleType, TypeCall, TypeVar
from relay_text.syntax.lexer import Tokens
from relay_text.syntax.parser import _parser, parse
from relay_text.syntax.printer import print_module

EXAMPLES = 1000
PROFILE = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

NAMES = ["x", "y", "f", "t", "0", "1", "a.1", "x_1", "acc", "loop"]
BINARY = [("+", "add"), ("-", "subtract"), ("*", "multiply"), ("/", "divide"), ("==", "equal"), ("!=", "not_equal"),
          ("<", "less"), (">", "greater"), ("<=", "less_equal"), (">=", "greater_equal"), ("&&", "logical_and"),
          ("||", "logical_or")]
OPS = ["nn.conv2d", "concatenate", "sum", "split", "nn.relu", "zeros"]
ATTR_KEYS = ["axis", "padding", "dtype", "rate", "units", "layout"]


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f16(x: float) -> float:
    return struct.unpack("<e", struct.pack("<e", x))[0]


class Builder:
    """Draws a module. `portable` restricts it to what TVM's format can write."""

    def __init__(self, draw, portable: bool) -> None:
        self.draw = draw
        self.portable = portable
        self.pool: list[tuple[Expr, frozenset]] = []  # reusable nodes with their free variables
        self.globals: list[GlobalVar] = []
        self.list_adt = GlobalTypeVar("List")
        a = TypeVar("a")
        self.nil = Constructor("Nil", (), self.list_adt, 0)
        self.cons = Constructor("Cons", (a, TypeCall(self.list_adt, (a,))), self.list_adt, 1)
        self.list_data = TypeData(self.list_adt, (a,), (self.nil, self.cons))
        self.pair_adt = GlobalTypeVar("Pair")
        self.pair = Constructor("MkPair", (TensorType((), "int32"), TensorType((), "float32")), self.pair_adt, 0)
        self.pair_data = TypeData(self.pair_adt, (), (self.pair,))
        self.meta = 0

    def pick(self, seq):
        return self.draw(st.sampled_from(seq))

    def chance(self, p: float = 0.5) -> bool:
        return self.draw(st.floats(0, 1)) < p

    # ---- types ---------------------------------------------------------------

    def dtype(self) -> str:
        return self.pick(["float32", "int32", "bool", "int64", "float64", "uint8", "float16"])

    def type(self, depth: int = 2, tvars: tuple = ()):
        choice = self.draw(st.integers(0, 6 if depth > 0 else 2))
        if choice == 0:
            return TensorType((), self.dtype())
        if choice == 1:
            dims = self.draw(st.lists(st.one_of(st.integers(1, 64), st.just(AnyDim())), max_size=3))
            return TensorType(tuple(dims), self.dtype())
        if choice == 2 and tvars:
            return self.pick(list(tvars))
        if choice == 2:
            return TypeCall(self.pair_adt, ())
        if choice == 3:
            return TupleType(tuple(self.type(depth - 1, tvars) for _ in range(self.draw(st.integers(0, 3)))))
        if choice == 4:
            return FuncType(tuple(self.type(depth - 1, tvars) for _ in range(self.draw(st.integers(0, 2)))), self.type(depth - 1, tvars))
        if choice == 5:
            return TypeCall(self.list_adt, (self.type(depth - 1, tvars),))
        return TensorType((2, 3), "float32")

    # ---- leaves --------------------------------------------------------------

    def constant(self) -> Constant:
        kind = self.draw(st.integers(0, 9))
        if kind == 0:
            return Constant(self.draw(st.booleans()), "bool")
        if kind == 1:
            return Constant(self.draw(st.integers(-(2**31), 2**31 - 1)), "int32")
        if kind == 2:
            return Constant(self.draw(st.integers(-(2**63), 2**63 - 1)), "int64")
        if kind == 3:
            return Constant(f32(self.draw(st.floats(width=32))), "float32")
        if kind == 4:
            return Constant(self.draw(st.floats()), "float64")
        if kind == 5:
            return Constant(f16(self.draw(st.floats(width=16))), "float16")
        if kind == 6:
            return Constant(self.draw(st.integers(0, 255)), "uint8")
        if kind == 7:
            self.meta += 1
            return Constant(None, None, None, self.draw(st.integers(0, 300)))
        if kind == 8 and not self.portable:
            dtype = self.pick(["float32", "int32", "bool", "float64", "int8"])
            shape = tuple(self.draw(st.lists(st.integers(1, 5), max_size=3)))
            if dtype == "float32":
                value = f32(self.draw(st.floats(width=32)))
            elif dtype == "float64":
                value = self.draw(st.floats())
            elif dtype == "bool":
                value = self.draw(st.booleans())
            elif dtype == "int8":
                value = self.draw(st.integers(-128, 127))
            else:
                value = self.draw(st.integers(-(2**31), 2**31 - 1))
            return Constant(value, dtype, shape)
        return Constant(self.draw(st.integers(0, 9)), "int32")

    def attr_value(self, depth: int = 2):
        kind = self.draw(st.integers(0, 7 if depth > 0 else 6))
        if kind == 0:
            return None
        if kind == 1:
            return self.draw(st.booleans())
        if kind == 2:
            return self.draw(st.integers(-(2**40), 2**40))
        if kind == 3:
            return f32(self.draw(st.floats(width=32)))
        if kind == 4:
            return self.draw(st.floats())
        if kind == 5:
            return self.draw(st.text(max_size=6))
        if kind == 6:
            return MetaRef(self.pick(["relay.attrs.Conv2DAttrs", "Array"]), self.draw(st.integers(0, 9)))
        return tuple(self.attr_value(depth - 1) for _ in range(self.draw(st.integers(0, 3))))

    def attrs(self) -> tuple:
        keys = self.draw(st.lists(st.sampled_from(ATTR_KEYS), max_size=2, unique=True))
        return tuple((k, self.attr_value()) for k in keys)

    # ---- expressions ---------------------------------------------------------

    def var(self, annotate: bool = True) -> Var:
        name = self.pick(NAMES)
        ty = self.type() if annotate and self.chance(0.3) else None
        return Var(name, ty)

    def expr(self, env: list[Var], depth: int) -> Expr:
        """An expression whose free variables are all in `env`."""
        envset = frozenset(env)
        if self.pool and self.chance(0.25):
            usable = [n for n, fv in self.pool if fv <= envset]
            if usable:
                return self.pick(usable)
        if depth <= 0:
            return self.leaf(env)
        kind = self.draw(st.integers(0, 14))
        node: Expr
        if kind <= 1:
            node = self.leaf(env)
        elif kind == 2:
            node = self.call(env, depth)
        elif kind == 3:
            sym, name = self.pick(BINARY)
            node = Call(Op(name), (self.expr(env, depth - 1), self.expr(env, depth - 1)), infix=sym if self.chance(0.8) else None)
        elif kind == 4:
            node = Call(Op("negative"), (self.expr(env, depth - 1),), infix="-" if self.chance(0.8) else None)
        elif kind == 5:
            node = Tuple(tuple(self.expr(env, depth - 1) for _ in range(self.draw(st.integers(0, 3)))))
        elif kind == 6:
            node = TupleGetItem(self.expr(env, depth - 1), self.draw(st.integers(0, 3)))
        elif kind == 7:
            node = self.let(env, depth)
        elif kind == 8:
            node = If(self.expr(env, depth - 1), self.expr(env, depth - 1), self.expr(env, depth - 1))
        elif kind == 9:
            node = self.match(env, depth)
        elif kind == 10:
            node = self.function(env, depth)
        elif kind == 11:
            choice = self.draw(st.integers(0, 2))
            if choice == 0:
                node = RefCreate(self.expr(env, depth - 1))
            elif choice == 1:
                node = RefRead(self.expr(env, depth - 1))
            else:
                node = RefWrite(self.expr(env, depth - 1), self.expr(env, depth - 1))
        elif kind == 12:
            ctor = self.pick([self.nil, self.cons, self.pair])
            node = Call(ctor, tuple(self.expr(env, depth - 1) for _ in ctor.inputs))
        elif kind == 13:
            node = self.recursive_let(env, depth)
        else:
            node = self.expr(env, depth - 1)
        if not isinstance(node, (Var, GlobalVar, Op, Constructor)):
            self.pool.append((node, self.free_vars(node, envset)))
        return node

    @staticmethod
    def free_vars(node: Expr, envset: frozenset) -> frozenset:
        # Conservative: a node may use any variable in scope where it was built.
        return envset

    def leaf(self, env: list[Var]) -> Expr:
        choice = self.draw(st.integers(0, 4))
        if choice <= 1 and env:
            return self.pick(env)
        if choice == 2 and self.globals:
            return self.pick(self.globals)
        if choice == 3:
            return self.pick([self.nil, self.cons, self.pair])
        return self.constant()

    def call(self, env: list[Var], depth: int) -> Call:
        callee_kind = self.draw(st.integers(0, 3))
        if callee_kind == 0 and self.globals:
            op: Expr = self.pick(self.globals)
        elif callee_kind == 1 and env:
            op = self.pick(env)
        elif callee_kind == 2:
            op = self.expr(env, depth - 1)
        else:
            op = Op(self.pick(OPS))
        args = tuple(self.expr(env, depth - 1) for _ in range(self.draw(st.integers(0, 3))))
        type_args: tuple = ()
        if not self.portable and isinstance(op, (Var, GlobalVar)) and self.chance(0.2):
            type_args = tuple(self.type(1) for _ in range(self.draw(st.integers(1, 2))))
        return Call(op, args, self.attrs(), type_args)

    def let(self, env: list[Var], depth: int) -> Let:
        if self.chance(0.2):
            var = Var("")  # `e; body`
            value = self.expr(env, depth - 1)
            body_env = env + [var] if self.chance(0.1) else env  # rarely, a sequencing binder is used
            return Let(var, value, self.expr(body_env, depth - 1))
        var = self.var()
        value = self.expr(env, depth - 1)
        return Let(var, value, self.expr(env + [var], depth - 1))

    def recursive_let(self, env: list[Var], depth: int) -> Let:
        f = Var(self.pick(["loop", "f", "go"]))
        n = Var(self.pick(NAMES))
        inner = env + [f, n]
        body = If(self.expr(inner, depth - 2), Call(f, (self.expr(inner, depth - 2),)), self.expr(inner, depth - 2))
        func = Function((n,), body)
        return Let(f, func, self.expr(env + [f], depth - 1))

    def pattern(self, depth: int, out: list[Var]):
        choice = self.draw(st.integers(0, 3 if depth > 0 else 1))
        if choice == 0:
            return PatternWildcard()
        if choice == 1:
            v = self.var()
            out.append(v)
            return PatternVar(v)
        if choice == 2:
            ctor = self.pick([self.nil, self.cons, self.pair])
            return PatternConstructor(ctor, tuple(self.pattern(depth - 1, out) for _ in ctor.inputs))
        return PatternTuple(tuple(self.pattern(depth - 1, out) for _ in range(self.draw(st.integers(0, 3)))))

    def match(self, env: list[Var], depth: int) -> Match:
        data = self.expr(env, depth - 1)
        clauses = []
        for _ in range(self.draw(st.integers(0, 3))):
            bound: list[Var] = []
            pattern = self.pattern(2, bound)
            clauses.append(Clause(pattern, self.expr(env + bound, depth - 1)))
        return Match(data, tuple(clauses), self.draw(st.booleans()))

    def function(self, env: list[Var], depth: int) -> Function:
        tparams: tuple = ()
        if self.chance(0.2):
            kinds = [Kind.TYPE] if self.portable else list(Kind)
            tparams = tuple(TypeVar(name, self.pick(kinds)) for name in ["a", "b"][: self.draw(st.integers(1, 2))])
        params = []
        for _ in range(self.draw(st.integers(0, 3))):
            ty = None
            if self.chance(0.4):
                usable = tuple(t for t in tparams if t.kind == Kind.TYPE)
                ty = self.type(1, usable)
            params.append(Var(self.pick(NAMES), ty))
        ret = self.type(1) if self.chance(0.3) else None
        relations: tuple = ()
        if not self.portable and self.chance(0.1):
            relations = (RelationRef("Broadcast"),)
        attrs = (("Primitive", 1),) if self.chance(0.1) else ()
        body = self.expr(env + params, depth - 1)
        return Function(tuple(params), body, ret, tparams, relations, attrs)

    # ---- module --------------------------------------------------------------

    def module(self) -> Module:
        module = Module()
        module.type_defs[self.list_adt] = self.list_data
        module.type_defs[self.pair_adt] = self.pair_data
        module.order += [self.list_adt, self.pair_adt]
        count = self.draw(st.integers(1, 3))
        self.globals = [GlobalVar(f"f{i}") for i in range(count)]
        free = tuple(Var(self.pick(NAMES)) for _ in range(self.draw(st.integers(0, 1))))
        module.free_vars = free
        for gv in self.globals:
            self.pool = []
            func = self.function([], self.draw(st.integers(1, 5)))  # a global function is closed
            module.functions[gv] = func
            module.order.append(gv)
        if self.chance(0.3):
            self.pool = []
            module.expr = self.expr(list(free), 3)
        return module


@st.composite
def modules(draw, portable: bool = False) -> Module:
    return Builder(draw, portable).module()


def reparse(text: str) -> Module:
    result = parse(text, "printed.rly")
    errors = [str(d) for d in result.diagnostics if d.is_error]
    assert result.module is not None and not errors, (errors, text)
    return result.module


@PROFILE
@given(modules())
def test_documented_dialect_round_trips(module: Module) -> None:
    """print -> parse gives an alpha-equivalent module; printing that again gives the same text."""
    text = print_module(module, "docs")
    again = reparse(text)
    assert alpha_equal_module(module, again), text
    assert print_module(again, "docs") == text


@PROFILE
@given(modules(portable=True))
def test_tvm_dialect_round_trips_and_converts_back(module: Module) -> None:
    """docs -> tvm -> docs returns the same program, and each text is a fixed point.

    (Bindings that do not depend on each other follow the order of the text
    they were read from, so the second TVM text may order them differently.)
    """
    tvm_text = print_module(module, "tvm")
    assert tvm_text.startswith('#[version = "0.0.5"]\n')
    from_tvm = reparse(tvm_text)
    assert alpha_equal_module(module, from_tvm), tvm_text
    assert print_module(from_tvm) == tvm_text
    docs_text = print_module(from_tvm, "docs")
    back = reparse(docs_text)
    assert alpha_equal_module(module, back), docs_text
    assert print_module(back, "docs") == docs_text
    again = print_module(back, "tvm")
    assert alpha_equal_module(module, reparse(again)), again


def _comment_slots(text: str) -> list[int]:
    """Offsets after every token: a comment there never changes what the text means
    (the lexer's lookaheads skip comments), so any of them may take one."""
    tokens = list(Tokens(Source("t", text), _parser()[2]))
    return [tok.end_pos for tok in tokens if tok.type not in ("METADATA", "VERSION")]


@PROFILE
@given(modules(), st.data())
def test_formatting_keeps_comments_in_place(module: Module, data) -> None:
    """Comments placed after arbitrary tokens survive formatting, in order,
    and the result is stable (format_source's safe mode checks both)."""
    dialect = data.draw(st.sampled_from(["docs", "tvm"])) if not _needs_docs(module) else "docs"
    text = print_module(module, dialect)
    slots = _comment_slots(text)
    chosen = sorted(set(data.draw(st.lists(st.sampled_from(slots), max_size=6)))) if slots else []
    pieces = []
    last = 0
    for i, pos in enumerate(chosen):
        pieces.append(text[last:pos])
        style = data.draw(st.integers(0, 3))
        if text.startswith("<", pos) and not text[pos - 1 : pos].isspace():
            pieces.append(f"/* c{i} */")  # a space before a glued `<` would make it less-than
        elif style == 0:
            pieces.append(f" /* c{i} */")
        elif style == 1:
            pieces.append(f"  // c{i}\n")
        elif style == 2:
            pieces.append(f"\n/* c{i} */\n")
        else:
            pieces.append(f"  # c{i}\n")  # `//` in TVM text
        last = pos
    pieces.append(text[last:])
    commented = "".join(pieces)
    width = data.draw(st.sampled_from([40, 100]))
    try:
        result = format_source(Source("commented.rly", commented), "keep", width)
    except UnsafeFormat as exc:  # show both texts
        raise AssertionError(f"{exc.reason}\n--- input:\n{exc.original}\n--- output:\n{exc.output}") from None
    assert result.text is not None, [str(d) for d in result.diagnostics]
    assert [c for c in result.text.split() if c.startswith("c") and c[1:].isdigit()] == [f"c{i}" for i in range(len(chosen))]


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
@given(modules(), st.data())
def test_a_comment_between_every_pair_of_tokens_is_kept(module: Module, data) -> None:
    """The extreme case: a comment after every token. Safe mode never refuses
    (where a comment's precise place cannot be kept, it moves to its
    statement), every comment is kept in order and the result is stable."""
    dialect = data.draw(st.sampled_from(["docs", "tvm"])) if not _needs_docs(module) else "docs"
    text = print_module(module, dialect)
    style = data.draw(st.sampled_from([" /* c{} */", "/* c{} */", "  // c{}\n", "\n\n/* c{} */\n"]))
    slots = _comment_slots(text)
    pieces, last = [], 0
    for i, pos in enumerate(slots):
        # (a space before a `<` glued to a callee would make it less-than:
        # there the comment is glued too)
        glued = text.startswith("<", pos) and not text[pos - 1 : pos].isspace()
        comment = ("/* c{} */" if glued else style).format(i)
        if text[pos - 1 : pos] == "/" and comment.startswith("/"):
            comment = " " + comment  # `//*` would start a line comment
        pieces += [text[last:pos], comment]
        last = pos
    pieces.append(text[last:])
    commented = "".join(pieces)
    try:
        result = format_source(Source("commented.rly", commented), "keep", 100)
    except UnsafeFormat as exc:
        raise AssertionError(f"{exc.reason}\n--- input:\n{exc.original}\n--- output:\n{exc.output}") from None
    assert result.text is not None, [str(d) for d in result.diagnostics]
    found = [c.rstrip("*/") for c in result.text.replace("*/", " */").split() if c.startswith("c") and c[1:].isdigit()]
    assert found == [f"c{i}" for i in range(len(slots))]


def _needs_docs(module: Module) -> bool:
    from relay_text.formatter import tvm_problems

    return bool(tvm_problems(module))


@pytest.mark.parametrize("width", [1, 20, 60])
@settings(max_examples=60, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(module=modules())
def test_narrow_widths_still_round_trip(module: Module, width: int) -> None:
    text = print_module(module, "docs", width)
    assert alpha_equal_module(module, reparse(text)), text
    assert print_module(reparse(text), "docs", width) == text


def test_float_literals_are_exact() -> None:
    """Each float prints as the shortest text that reads back to the same bits."""
    for value in [0.1, 1 / 3, 1e-45, 3.4028234663852886e38, -0.0, math.inf, -math.inf, 1e16, 123456.789]:
        for dtype in ("float32", "float64"):
            v = f32(value) if dtype == "float32" else value
            module = Module(expr=Constant(v, dtype))
            again = reparse(print_module(module))
            assert alpha_equal_module(module, again), print_module(module)
