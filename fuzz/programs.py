"""A hypothesis strategy for Relay modules built directly as IR (not from text).

`modules()` draws well-scoped modules with every kind of node: shared
subexpressions (a DAG, including diamonds), shadowed and oddly named
variables (`%0`, `%a.1`, `%x_1`, sequencing binders), recursive lets,
closures, ADTs with nested patterns, references, attributes of every kind,
literals of every dtype (including NaN, infinities and -0.0), explicit type
arguments, `where` relations and kinded type parameters (the last three only
where the documented dialect is the target; `modules(portable=True)` leaves
them out). The round-trip property tests (tests/printer/test_roundtrip.py)
and the fuzzer's `typed` mode both draw from it.
"""

from __future__ import annotations

import struct

from hypothesis import strategies as st

from relay_text.ir.adt import TypeData
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
from relay_text.ir.pattern import (
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
)
from relay_text.ir.ty import (
    AnyDim,
    FuncType,
    GlobalTypeVar,
    Kind,
    TensorType,
    TupleType,
    TypeCall,
    TypeVar,
)

NAMES = ["x", "y", "f", "t", "0", "1", "a.1", "x_1", "acc", "loop"]
BINARY = [
    ("+", "add"),
    ("-", "subtract"),
    ("*", "multiply"),
    ("/", "divide"),
    ("==", "equal"),
    ("!=", "not_equal"),
    ("<", "less"),
    (">", "greater"),
    ("<=", "less_equal"),
    (">=", "greater_equal"),
    ("&&", "logical_and"),
    ("||", "logical_or"),
]
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
            return FuncType(
                tuple(self.type(depth - 1, tvars) for _ in range(self.draw(st.integers(0, 2)))),
                self.type(depth - 1, tvars),
            )
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
            node = Call(
                Op(name),
                (self.expr(env, depth - 1), self.expr(env, depth - 1)),
                infix=sym if self.chance(0.8) else None,
            )
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
            body_env = [*env, var] if self.chance(0.1) else env  # rarely, a sequencing binder is used
            return Let(var, value, self.expr(body_env, depth - 1))
        var = self.var()
        value = self.expr(env, depth - 1)
        return Let(var, value, self.expr([*env, var], depth - 1))

    def recursive_let(self, env: list[Var], depth: int) -> Let:
        f = Var(self.pick(["loop", "f", "go"]))
        n = Var(self.pick(NAMES))
        inner = [*env, f, n]
        body = If(self.expr(inner, depth - 2), Call(f, (self.expr(inner, depth - 2),)), self.expr(inner, depth - 2))
        func = Function((n,), body)
        return Let(f, func, self.expr([*env, f], depth - 1))

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
