"""Compiling a program into Python functions, once, before it runs.

Every Relay function (each `def`, each `fn`) becomes one Python function
whose body is straight-line code: one assignment per compound expression,
in evaluation order, with `if`/`elif` for `if` and `match`. A `let` costs
nothing (its variable is another name for its value), a graph-bound node
is computed once (see `plan`), an operator call is a call of the kernel the
registry gave for that call site, a constructor call builds a `Data`, a
nested `fn` is a nested Python function, so closures capture exactly the
values in scope where they are created. Nothing at run time looks at the
type of an IR node.

    def @fib(%n : int32) -> int32 {          def g1_fib(v1):
      if (%n < 2) { %n }                          global DEPTH
      else { @fib(%n - 1) + @fib(%n - 2) }        DEPTH += 1
    }                                             if DEPTH > MAXD: OVERFLOW()
                                                  t2 = K3(v1, k4)
                                                  if t2:
                                                      t5 = v1
                                                  else:
                                                      t6 = K7(v1, k8)
                                                      ...
                                                  DEPTH -= 1
                                                  return t5

`DEPTH` counts nested Relay calls, so `--max-depth` is exact and reports
the call that went too deep. Each emitted line remembers its IR node, so a
runtime error is reported at the expression that raised it.

The generated text is flat however deep the program: a long chain of lets
or of calls is a long run of assignments. Control flow nested more than
`MAX_NESTING` levels deep is moved into a separate function that receives
the values it uses, which keeps within the Python compiler's limits.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from ..diagnostics import Diagnostic
from ..ir.expr import (
    Call,
    Constant,
    Constructor,
    Expr,
    Function,
    GlobalVar,
    If,
    Let,
    Match,
    Op,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    Var,
)
from ..ir.module import Module
from ..ir.pattern import PatternConstructor, PatternTuple, PatternVar, PatternWildcard, pattern_vars
from ..ir.ty import TensorType
from ..ir.visitor import post_order
from ..syntax.type_text import type_params_text, type_text
from .ops import BoundOperator, NoKernel, Resolver, bind, default_resolver
from .plan import LEAVES, Plan, Region, plan_function, region_edges
from .values import Data, Ref

MAX_NESTING = 40  # Python block levels before a region gets its own function
UNIT = ()
_COUNTER = itertools.count()


class MatchFailure(Exception):
    """No clause of a match accepted the value (only possible under `match?`
    or in a program that was not checked)."""

    def __init__(self, site: int, value: Any) -> None:
        super().__init__(site)
        self.site = site
        self.value = value


class DepthExceeded(Exception):
    """More nested calls than `--max-depth` allows."""


def _overflow() -> None:
    raise DepthExceeded()


def _match_fail(site: int, value: Any) -> None:
    raise MatchFailure(site, value)


class CompileError(Exception):
    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__(diagnostics[0].message if diagnostics else "cannot compile")
        self.diagnostics = diagnostics


# ---------------------------------------------------------------- output


class Block:
    """Lines of code at one indentation; items are (text, node) or Blocks."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[Any] = []

    def line(self, text: str, node: Expr | None = None) -> None:
        self.items.append((text, node))

    def nest(self, block: Block) -> None:
        self.items.append(block)


def render(blocks: Iterable[Block]) -> tuple[list[str], list[Expr | None]]:
    """Source lines and, for each line, the node it evaluates."""
    lines: list[str] = []
    nodes: list[Expr | None] = []
    for top in blocks:
        stack: list[tuple[list, int, int]] = [(top.items, 0, 0)]
        while stack:
            items, index, depth = stack.pop()
            if index >= len(items):
                continue
            stack.append((items, index + 1, depth))
            item = items[index]
            if isinstance(item, Block):
                stack.append((item.items, 0, depth + 1))
                continue
            text, node = item
            lines.append("    " * depth + text)
            nodes.append(node)
    return lines, nodes


# ---------------------------------------------------------------- the program


@dataclass
class CompiledProgram:
    """Python code for a program: run it with `runtime.execute`."""

    namespace: dict[str, Any]
    filename: str
    source: str
    line_nodes: list[Expr | None]  # index = line number - 1
    function_names: dict[str, str]  # Python function name -> "@fib" / "fn"
    match_sites: list[Match]
    entries: dict[str, str]  # entry key -> Python function name
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def node_at(self, lineno: int) -> Expr | None:
        if 1 <= lineno <= len(self.line_nodes):
            return self.line_nodes[lineno - 1]
        return None

    def function(self, entry: str) -> Callable[..., Any]:
        return self.namespace[self.entries[entry]]


def _ident(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


class Compiler:
    """Compiles the functions of one program (and the Prelude functions it
    uses) into one Python module."""

    def __init__(
        self,
        program: Module,
        prelude: Module | None = None,
        resolver: Resolver | None = None,
        type_of: Callable[[Expr], Any] | None = None,
        meta_values: Mapping[int, Any] | None = None,
    ) -> None:
        self.program = program
        self.meta_values = meta_values or {}
        self.prelude = prelude
        self.resolver = resolver or default_resolver
        self.type_of = type_of
        self.diagnostics: list[Diagnostic] = []
        self.ns: dict[str, Any] = {
            "DEPTH": 0,
            "MAXD": 0,
            "OVERFLOW": _overflow,
            "MATCHFAIL": _match_fail,
            "DNEW": object.__new__,
            "DATA": Data,
            "REF": Ref,
        }
        self.names: dict[Expr, str] = {}
        self.function_names: dict[str, str] = {}
        self.signatures: dict[str, str] = {}
        self.match_sites: list[Match] = []
        self.let_alias: dict[Var, Expr] = {}
        self.blocks: list[Block] = []
        self.global_names: dict[GlobalVar, str] = {}
        self.pending: list[tuple[Module, GlobalVar]] = []
        self.constants: dict[tuple, str] = {}
        self.ctor_names: dict[Constructor, str] = {}
        self.counter = itertools.count(1)
        self.entries: dict[str, str] = {}

    # ---- names -------------------------------------------------------------

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self.counter)}"

    def ref(self, node: Expr) -> str:
        """The Python expression that denotes a node's value."""
        start = node
        while True:
            t = type(node)
            if t is Var and node in self.let_alias:
                node = self.let_alias[node]  # type: ignore[index]
            elif t is Let:
                node = node.body  # type: ignore[attr-defined]
            elif t is Call and type(node.op) is Constructor and not node.args:  # type: ignore[attr-defined]
                node = node.op  # type: ignore[attr-defined]
            else:
                break
        name = self.names.get(node)
        if name is None:
            if t is Constant:
                name = self.constant(node)  # type: ignore[arg-type]
            elif t is GlobalVar:
                name = self.global_ref(node)  # type: ignore[arg-type]
            elif t is Constructor:
                name = self.constructor_value(node)  # type: ignore[arg-type]
            elif t is Op:
                name = self.operator_value(node)  # type: ignore[arg-type]
            elif t is Var:
                name = self.unbound(node)  # type: ignore[arg-type]
            elif t is Tuple and not node.fields:  # type: ignore[attr-defined]
                name = "()"
            else:
                name = self.fresh("t")
            self.names[node] = name
        if start is not node:
            self.names[start] = name
        return name

    def unbound(self, var: Var) -> str:
        self.diagnostics.append(
            Diagnostic("unbound-variable", f"`%{var.name}` has no value to run with", var.span, label="not bound")
        )
        return "None"

    def constant(self, node: Constant) -> str:
        if node.value is None:
            index = node.meta_index
            if index in self.meta_values:
                name = self.fresh("m")
                self.ns[name] = self.meta_values[index]
                return name
            self.diagnostics.append(
                Diagnostic(
                    "bad-metadata",
                    f"`meta[relay.Constant][{index}]` has no value to run with",
                    node.span,
                    label="value unknown",
                ).with_note("the file has no #[metadata] section holding this constant's data").with_help(
                    "run with `--random-consts` to fill such constants with seeded random values"
                )
            )
            return "None"
        shape = tuple(node.shape or ())
        key = (type(node.value), node.value, node.dtype, shape)
        name = self.constants.get(key)
        if name is None:
            name = self.fresh("k")
            dtype = np.dtype(node.dtype.split("x")[0])  # type: ignore[union-attr]
            if shape:
                value: Any = np.full(shape, node.value, dtype=dtype)
                value.flags.writeable = False
            else:
                value = dtype.type(node.value)
            self.ns[name] = value
            self.constants[key] = name
        return name

    def global_ref(self, gv: GlobalVar) -> str:
        name = self.global_names.get(gv)
        if name is not None:
            return name
        target = self.resolve_global(gv)
        if target is None:
            self.diagnostics.append(Diagnostic("unknown-global", f"unknown global `@{gv.name}`", gv.span, label="not defined"))
            return "None"
        module, defined = target
        name = self.global_names.get(defined)
        if name is None:
            prefix = "p" if module is self.prelude and module is not self.program else "g"
            name = f"{prefix}{next(self.counter)}_{_ident(defined.name)}"
            self.global_names[defined] = name
            self.pending.append((module, defined))
        self.global_names[gv] = name
        return name

    def resolve_global(self, gv: GlobalVar) -> tuple[Module, GlobalVar] | None:
        for module in (self.program, self.prelude):
            if module is not None and gv in module.functions:
                return module, gv
        own = self.program.global_var(gv.name)
        if own is not None:
            return self.program, own
        if self.prelude is not None:
            theirs = self.prelude.global_var(gv.name)
            if theirs is not None:
                return self.prelude, theirs
        return None

    def constructor_name(self, ctor: Constructor) -> str:
        name = self.ctor_names.get(ctor)
        if name is None:
            name = f"C{next(self.counter)}_{_ident(ctor.name)}"
            self.ns[name] = ctor
            self.ctor_names[ctor] = name
        return name

    def constructor_value(self, ctor: Constructor) -> str:
        """A constructor used as a value: a nullary one is its (shared,
        immutable) value, as TVM reads a bare `Nil`; others are functions."""
        cname = self.constructor_name(ctor)
        if not ctor.inputs:
            name = self.fresh("n")
            self.ns[name] = Data(ctor, ())
            return name
        name = self.fresh("m")
        params = ", ".join(f"a{i}" for i in range(len(ctor.inputs)))
        block = Block()
        block.line(f"def {name}({params}):")
        body = Block()
        body.line(f"o = DNEW(DATA); o.con = {cname}; o.fields = ({params},)")
        body.line("return o")
        block.nest(body)
        self.blocks.append(block)
        self.function_names[name] = ctor.name
        self.signatures[name] = f"{ctor.name} : fn({', '.join(type_text(t) for t in ctor.inputs)}) -> {self.adt_text(ctor)}"
        return name

    def adt_text(self, ctor: Constructor) -> str:
        owner = ctor.belong_to
        if owner is None:
            return "?"
        for module in (self.program, self.prelude):
            if module is not None and owner in module.type_defs:
                params = module.type_defs[owner].type_params
                return f"{owner.name}[{', '.join(p.name for p in params)}]"
        return f"{owner.name}[]"

    def operator_value(self, op: Op) -> str:
        bound = self.bind_operator(op, {}, None)
        if bound is None:
            return "None"
        name = self.fresh("o")
        kname = self.fresh("K")
        aname = self.fresh("A")
        self.ns[kname] = bound.kernel
        self.ns[aname] = bound.attrs
        block = Block()
        block.line(f"def {name}(*args):")
        body = Block()
        body.line(f"return {kname}(args, {aname})", op)
        block.nest(body)
        self.blocks.append(block)
        self.function_names[name] = op.name
        self.signatures[name] = op.name
        return name

    def bind_operator(self, op: Op, attrs: dict, call: Call | None) -> BoundOperator | None:
        all_scalar = False
        if call is not None and self.type_of is not None:
            types = [self.type_of(a) for a in call.args]
            all_scalar = bool(types) and all(isinstance(t, TensorType) and t.shape == () and isinstance(t.dtype, str) for t in types)
        try:
            return bind(op.name, attrs, self.resolver, all_scalar)
        except NoKernel:
            self.diagnostics.append(
                Diagnostic("unknown-operator", f"operator `{op.name}` has no kernel to run it", op.span, label="cannot be evaluated")
            )
            return None

    # ---- functions -----------------------------------------------------------

    def add_global(self, gv: GlobalVar) -> str:
        """Compile a global of the program (and what it uses); its Python name."""
        name = self.global_ref(gv)
        self.drain()
        return name

    def add_expression(self, key: str, expr: Expr, params: tuple[Var, ...] = ()) -> str:
        """Compile a top-level expression as a function of `params`."""
        fn = Function(params, expr, None, (), (), (), getattr(expr, "span", None))
        name = f"e{next(self.counter)}_{_ident(key)}"
        self.function_names[name] = key
        self.blocks.append(self.function_block(name, fn))
        self.entries[key] = name
        self.drain()
        return name

    def drain(self) -> None:
        while self.pending:
            module, gv = self.pending.pop()
            name = self.global_names[gv]
            fn = module.functions[gv]
            self.function_names[name] = f"@{gv.name}"
            self.signatures[name] = self.signature(fn, f"@{gv.name}")
            self.blocks.append(self.function_block(name, fn))

    def signature(self, fn: Function, head: str = "fn") -> str:
        params = []
        for p in fn.params:
            ty = p.type_annotation
            if ty is None and self.type_of is not None:
                ty = self.type_of(p)
            params.append(f"%{p.name}" + (f" : {type_text(ty)}" if ty is not None else ""))
        text = f"{head}{type_params_text(fn.type_params)}({', '.join(params)})"
        ret = fn.ret_type
        if ret is None and self.type_of is not None:
            ret = self.type_of(fn.body)
        if ret is not None:
            text += f" -> {type_text(ret)}"
        return text

    def function_block(self, name: str, fn: Function) -> Block:
        plan = plan_function(fn)
        for node in plan.place:
            if type(node) is Let:
                self.let_alias[node.var] = node.value  # type: ignore[attr-defined]
        emitter = _Emitter(self, plan)
        return emitter.function_def(name, fn, plan.top)

    # ---- assembly ------------------------------------------------------------

    def finish(self) -> CompiledProgram:
        if self.diagnostics:
            raise CompileError(self.diagnostics)
        lines, nodes = render(self.blocks)
        source = "\n".join(lines) + "\n"
        filename = f"<relay-program-{next(_COUNTER)}>"
        code = compile(source, filename, "exec")
        exec(code, self.ns)
        from .show import SIGNATURES

        for code_obj in _all_codes(code):
            sig = self.signatures.get(code_obj.co_name)
            if sig is not None:
                SIGNATURES[code_obj] = sig
        return CompiledProgram(self.ns, filename, source, nodes, self.function_names, self.match_sites, self.entries)


def _all_codes(code: Any) -> list[Any]:
    out = []
    stack = [code]
    while stack:
        c = stack.pop()
        out.append(c)
        stack.extend(k for k in c.co_consts if hasattr(k, "co_code"))
    return out


# ---------------------------------------------------------------- one function


class _Emitter:
    """Emits the regions of one top-level function, innermost first."""

    def __init__(self, compiler: Compiler, plan: Plan) -> None:
        self.c = compiler
        self.plan = plan
        self.code: dict[Region, Block] = {}  # region -> its statements
        self.level: dict[Region, int] = {}  # Python nesting of a region's code
        self.outlined: set[Region] = set()

    def function_def(self, name: str, fn: Function, top: Region) -> Block:
        c = self.c
        self.name_binders(fn)
        self.assign_levels(top)
        # Inner regions first: a control node's code embeds its regions' code.
        for region in reversed(self.plan.regions):
            self.code[region] = self.emit_region(region)
        block = Block()
        block.line(f"def {name}({', '.join(c.names[p] for p in fn.params)}):", fn)
        body = self.function_body(fn, top)
        release_dead(body, [c.names[p] for p in fn.params])
        block.nest(body)
        return block

    def name_binders(self, fn: Function) -> None:
        """Parameters and pattern variables get their names before any code
        that uses them is emitted."""
        c = self.c
        for p in fn.params:
            c.names[p] = c.fresh("v")
        for node in self.plan.place:
            t = type(node)
            if t is Function:
                for p in node.params:  # type: ignore[attr-defined]
                    c.names[p] = c.fresh("v")
            elif t is Match:
                for clause in node.clauses:  # type: ignore[attr-defined]
                    for var in pattern_vars(clause.pattern):
                        c.names[var] = c.fresh("v")

    def assign_levels(self, top: Region) -> None:
        self.level[top] = 1
        for region in self.plan.regions[1:]:
            level = self.level[region.parent] + 1  # type: ignore[index]
            if level > MAX_NESTING:
                self.outlined.add(region)
                level = 1
            self.level[region] = level

    def function_body(self, fn: Function, region: Region) -> Block:
        body = Block()
        body.line("global DEPTH")
        body.line("DEPTH += 1")
        body.line("if DEPTH > MAXD: OVERFLOW()", fn)
        result = self.embed(body, region)
        body.line("DEPTH -= 1")
        body.line(f"return {result}", fn.body)
        return body

    def embed(self, block: Block, region: Region, target: str | None = None) -> str:
        """Put a region's code into `block`, inline or as a call of a
        function of its own; assign its value to `target` if given. Returns
        the expression that holds the region's value."""
        c = self.c
        result = c.ref(region.root)
        if region not in self.outlined:
            block.items.extend(self.code[region].items)
        else:
            name = c.fresh("r")
            inner = Block()
            inner.items.extend(self.code[region].items)
            inner.line(f"return {result}", region.root)
            imports = sorted(_free_names(inner), key=lambda n: (n[0], int(n[1:])))
            release_dead(inner, imports)
            out = Block()
            out.line(f"def {name}({', '.join(imports)}):", region.owner)
            out.nest(inner)
            c.blocks.append(out)
            c.function_names[name] = "region"
            result = c.fresh("t")
            block.line(f"{result} = {name}({', '.join(imports)})", region.root)
        if target is not None and target != result:
            block.line(f"{target} = {result}", region.root)
            return target
        return result

    # ---- regions -------------------------------------------------------------

    def deps(self, node: Expr, region: Region) -> list[Expr]:
        inline, _ = region_edges(node)
        place = self.plan.place
        out = [ch for ch in inline if not isinstance(ch, LEAVES) and place.get(ch) is region]
        out.extend(self.plan.hoisted.get(node, ()))
        return out

    def emit_region(self, region: Region) -> Block:
        block = Block()
        root = region.root
        if isinstance(root, LEAVES) or self.plan.place.get(root) is not region:
            return block
        done: set[Expr] = set()
        stack: list[tuple[Expr, bool]] = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if node in done:
                continue
            if expanded:
                done.add(node)
                self.emit(node, block)
                continue
            stack.append((node, True))
            for dep in reversed(self.deps(node, region)):
                if dep not in done:
                    stack.append((dep, False))
        return block

    def emit(self, node: Expr, block: Block) -> None:
        c = self.c
        ref = c.ref
        t = type(node)
        if t is Let:
            return
        if t is Call:
            self.emit_call(node, block)  # type: ignore[arg-type]
        elif t is Tuple:
            fields = [ref(f) for f in node.fields]  # type: ignore[attr-defined]
            if fields:
                text = "(" + ", ".join(fields) + ("," if len(fields) == 1 else "") + ")"
                block.line(f"{ref(node)} = {text}", node)
        elif t is TupleGetItem:
            block.line(f"{ref(node)} = {ref(node.tuple_value)}[{node.index}]", node)  # type: ignore[attr-defined]
        elif t is If:
            self.emit_if(node, block)  # type: ignore[arg-type]
        elif t is Match:
            self.emit_match(node, block)  # type: ignore[arg-type]
        elif t is Function:
            self.emit_function(node, block)  # type: ignore[arg-type]
        elif t is RefCreate:
            block.line(f"{ref(node)} = REF({ref(node.value)})", node)  # type: ignore[attr-defined]
        elif t is RefRead:
            block.line(f"{ref(node)} = {ref(node.ref)}.value", node)  # type: ignore[attr-defined]
        elif t is RefWrite:
            block.line(f"{ref(node.ref)}.value = {ref(node.value)}; {ref(node)} = ()", node)  # type: ignore[attr-defined]
        else:  # pragma: no cover - every compound node class is handled above
            raise NotImplementedError(f"cannot compile {t.__name__}")

    def emit_call(self, node: Call, block: Block) -> None:
        c = self.c
        ref = c.ref
        op = node.op
        args = [ref(a) for a in node.args]
        joined = ", ".join(args)
        target = ref(node)
        if type(op) is Op:
            bound = c.bind_operator(op, dict(node.attrs), node)
            if bound is None:
                return
            kname = c.fresh("K")
            if bound.direct is not None:
                c.ns[kname] = bound.direct
                block.line(f"{target} = {kname}({joined})", node)
            else:
                aname = c.fresh("A")
                c.ns[kname] = bound.kernel
                c.ns[aname] = bound.attrs
                tup = "(" + joined + ("," if len(args) == 1 else "") + ")"
                block.line(f"{target} = {kname}({tup}, {aname})", node)
        elif type(op) is Constructor:
            if not args:
                return  # a nullary constructor's value is shared (see `ref`)
            cname = c.constructor_name(op)  # type: ignore[arg-type]
            fields = "(" + joined + ("," if len(args) == 1 else "") + ")"
            block.line(f"{target} = DNEW(DATA); {target}.con = {cname}; {target}.fields = {fields}", node)
        else:
            block.line(f"{target} = {ref(op)}({joined})", node)

    def emit_if(self, node: If, block: Block) -> None:
        then_r, else_r = self.plan.opens[node]
        target = self.c.ref(node)
        block.line(f"if {self.c.ref(node.cond)}:", node)
        body = Block()
        self.embed(body, then_r, target)
        block.nest(body)
        block.line("else:", node)
        body = Block()
        self.embed(body, else_r, target)
        block.nest(body)

    def emit_match(self, node: Match, block: Block) -> None:
        c = self.c
        regions = self.plan.opens[node]
        target = c.ref(node)
        data = c.ref(node.data)
        site = len(c.match_sites)
        c.match_sites.append(node)
        first = True
        for clause, region in zip(node.clauses, regions):
            conds, binds = _pattern_code(clause.pattern, data, c)
            if conds:
                block.line(f"{'if' if first else 'elif'} {' and '.join(conds)}:", node)
                body = Block()
            elif first:
                body = block  # the first clause matches everything
            else:
                block.line("else:", node)
                body = Block()
            for name, access in binds:
                body.line(f"{name} = {access}", node)
            self.embed(body, region, target)
            if body is not block:
                block.nest(body)
            first = False
            if not conds:
                return
        if first:
            block.line(f"MATCHFAIL({site}, {data})", node)
            return
        block.line("else:", node)
        fail = Block()
        fail.line(f"MATCHFAIL({site}, {data})", node)
        block.nest(fail)

    def emit_function(self, node: Function, block: Block) -> None:
        c = self.c
        name = c.ref(node)
        c.function_names[name] = "fn"
        c.signatures[name] = c.signature(node)
        (body_region,) = self.plan.opens[node]
        block.line(f"def {name}({', '.join(c.names[p] for p in node.params)}):", node)
        block.nest(self.function_body(node, body_region))


_LOCAL = re.compile(r"\b[tv][0-9]+\b")
_ASSIGNED = re.compile(r"^([tv][0-9]+) = |; ([tv][0-9]+) = ")
_DEF = re.compile(r"^def ([tv][0-9]+)\(([^)]*)\)")


def release_dead(body: Block, params: Iterable[str] = ()) -> None:
    """Insert `del` after the last use of each tensor-holding local, so its
    memory is returned as soon as it is dead instead of when the function
    returns. A model's intermediates are many and large, and memory that
    stays allocated makes every later kernel fetch fresh pages from the OS.

    Conservative: a name is released only in the block that binds it (the
    parameters count as bound by the body), only if no line outside that
    block mentions it, never if a nested `def` mentions it (a closure may
    read it later), and never after a `return` or `raise`."""
    captured: set[str] = set()
    totals: dict[str, int] = {}
    blocks: list[Block] = []
    stack: list[tuple[Block, bool]] = [(body, False)]
    while stack:
        b, in_def = stack.pop()
        blocks.append(b)
        nested_def = False
        for item in b.items:
            if isinstance(item, Block):
                stack.append((item, in_def or nested_def))
                nested_def = False
                continue
            text = item[0]
            names = _LOCAL.findall(text)
            for n in names:
                totals[n] = totals.get(n, 0) + 1
            if in_def:
                captured.update(names)
            nested_def = text.startswith("def ")
            if nested_def:
                captured.update(names)
    for b in blocks:
        bound = {m.group(1) or m.group(2) for item in b.items if not isinstance(item, Block) for m in _ASSIGNED.finditer(item[0])}
        if b is body:
            bound.update(params)
        last: dict[str, int] = {}
        counts: dict[str, int] = {}
        for i, item in enumerate(b.items):
            for n in _names_in(item):
                last[n] = i
                counts[n] = counts.get(n, 0) + 1
        dead_after: dict[int, list[str]] = {}
        for n, i in last.items():
            if n not in bound or n in captured or counts[n] != totals.get(n, 0):
                continue
            item = b.items[i]
            if not isinstance(item, Block) and item[0].lstrip().startswith(("return ", "raise ")):
                continue
            dead_after.setdefault(_statement_end(b.items, i), []).append(n)
        if not dead_after:
            continue
        items: list[Any] = []
        for i, item in enumerate(b.items):
            items.append(item)
            if i in dead_after:
                items.append((f"del {', '.join(sorted(dead_after[i]))}", None))
        b.items = items


def _statement_end(items: list[Any], i: int) -> int:
    """The last item of the statement item i belongs to: a compound statement
    (`if ...:`) runs on through its blocks and its `elif`/`else` parts."""
    n = len(items)
    if isinstance(items[i], Block) or items[i][0].rstrip().endswith(":"):
        while i + 1 < n:
            nxt = items[i + 1]
            if isinstance(nxt, Block) or nxt[0].lstrip().startswith(("else", "elif ", "except", "finally")):
                i += 1
            else:
                break
    return i


def _names_in(item: Any) -> list[str]:
    if not isinstance(item, Block):
        return _LOCAL.findall(item[0])
    out: list[str] = []
    stack = [item]
    while stack:
        b = stack.pop()
        for sub in b.items:
            if isinstance(sub, Block):
                stack.append(sub)
            else:
                out.extend(_LOCAL.findall(sub[0]))
    return out


def _free_names(block: Block) -> set[str]:
    """Local names a block reads but never binds (names are unique per
    program, so this is exact)."""
    used: set[str] = set()
    bound: set[str] = set()
    stack = [block]
    while stack:
        b = stack.pop()
        for item in b.items:
            if isinstance(item, Block):
                stack.append(item)
                continue
            text = item[0]
            used.update(_LOCAL.findall(text))
            for m in _ASSIGNED.finditer(text):
                bound.add(m.group(1) or m.group(2))
            m = _DEF.match(text)
            if m:
                bound.add(m.group(1))
                bound.update(_LOCAL.findall(m.group(2)))
    return used - bound


def _pattern_code(pattern: Any, access: str, c: Compiler) -> tuple[list[str], list[tuple[str, str]]]:
    """Tests (outermost first) and bindings that match `pattern` against the
    value at `access`."""
    conds: list[str] = []
    binds: list[tuple[str, str]] = []
    stack = [(pattern, access)]
    while stack:
        p, acc = stack.pop()
        t = type(p)
        if t is PatternWildcard:
            continue
        if t is PatternVar:
            binds.append((c.names[p.var], acc))
        elif t is PatternConstructor:
            conds.append(f"{acc}.con is {c.constructor_name(p.constructor)}")
            subs = [(sub, f"{acc}.fields[{i}]") for i, sub in enumerate(p.patterns)]
            stack.extend(reversed(subs))
        elif t is PatternTuple:
            subs = [(sub, f"{acc}[{i}]") for i, sub in enumerate(p.patterns)]
            stack.extend(reversed(subs))
    return conds, binds


def compile_program(
    program: Module,
    entries: Mapping[str, tuple[Expr, tuple[Var, ...]]] | None = None,
    globals_: Iterable[GlobalVar] = (),
    prelude: Module | None = None,
    resolver: Resolver | None = None,
    type_of: Callable[[Expr], Any] | None = None,
    meta_values: Mapping[int, Any] | None = None,
) -> CompiledProgram:
    """Compile the given globals and entry expressions (and everything they
    use). Raises CompileError with located diagnostics."""
    compiler = Compiler(program, prelude, resolver, type_of, meta_values)
    for gv in globals_:
        compiler.entries[f"@{gv.name}"] = compiler.add_global(gv)
    for key, (expr, params) in (entries or {}).items():
        compiler.add_expression(key, expr, params)
    return compiler.finish()
