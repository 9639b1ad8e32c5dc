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
or of calls is a long run of assignments. Control flow nested very deep is
moved into functions of their own (see `emit`), which keeps within the
Python compiler's limits.
"""

from __future__ import annotations

import functools
import gc
import itertools
import re
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Iterable, Mapping

import numpy as np

from .. import limits
from ..diagnostics import Diagnostic, codes
from ..ir.expr import (
    Call,
    Constant,
    Constructor,
    Expr,
    Function,
    GlobalVar,
    Let,
    Match,
    Op,
    Tuple,
    Var,
)
from ..ir.module import Module
from ..ir.ty import FuncType
from ..text.type_text import type_params_text, type_text
from .code import Block, as_tensor_argument, check_shape, match_fail, overflow, render
from .call_sites import OperatorSites
from .emit import FunctionEmitter
from .ops import (
    Resolver,
    default_resolver,
    numpy_dtype,
)
from .optimize import Optimizer
from .plan import plan_function
from .values import Data, Ref

_COUNTER = itertools.count()


class CompileError(Exception):
    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__(diagnostics[0].message if diagnostics else "cannot compile")
        self.diagnostics = diagnostics


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
    modules: list[Module] = field(default_factory=list)  # the program's and the Prelude's
    origins: dict[Expr, Expr] = field(default_factory=dict)  # rewritten node -> the node it replaces
    # Python functions running their self tail calls as a loop -> the
    # indices of those calls in `tail_sites` (the values `LAST` takes)
    loops: dict[str, tuple[int, ...]] = field(default_factory=dict)
    tail_sites: list[Call] = field(default_factory=list)  # those calls, by the index `LAST` holds

    def written_at(self, parent: Expr, index: int) -> Any:
        """Where child `index` of `parent` is written (see `Module.written_at`)."""
        parent = self.origins.get(parent, parent)
        span = getattr(parent, "span", None)
        for module in self.modules:
            if span is not None and module.source is span.source:
                return module.written_at(parent, index)
        return None

    def node_at(self, lineno: int) -> Expr | None:
        if 1 <= lineno <= len(self.line_nodes):
            return self.line_nodes[lineno - 1]
        return None

    def line_of(self, node: Expr) -> int:
        """The first line of code that evaluates `node` (0: none)."""
        for i, n in enumerate(self.line_nodes):
            if n is node:
                return i + 1
        return 0

    def function(self, entry: str) -> Callable[..., Any]:
        fn: Callable[..., Any] = self.namespace[self.entries[entry]]
        return fn


def _ident(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


class Compiler(OperatorSites):
    """Compiles the functions of one program (and the Prelude functions it
    uses) into one Python module."""

    def __init__(
        self,
        program: Module,
        prelude: Module | None = None,
        resolver: Resolver | None = None,
        type_of: Callable[[Expr], Any] | None = None,
        optimize: bool = False,
    ) -> None:
        self.program = program
        self.prelude = prelude
        self.resolver = resolver or default_resolver
        self.checker_type_of = type_of
        self.type_of = type_of
        # Rewrites before compiling (see `optimize`); the types of the nodes
        # they make are known to `type_of` too.
        self.optimizer: Optimizer | None = None
        if optimize and type_of is not None:
            self.optimizer = Optimizer(self)
            self.type_of = self.optimizer.type_of
            from .inplace import keep_freed_memory

            keep_freed_memory()
        self.diagnostics: list[Diagnostic] = []
        self.ns: dict[str, Any] = {
            "DEPTH": 0,
            "MAXD": 0,
            "OVERFLOW": overflow,
            "MATCHFAIL": match_fail,
            "DNEW": object.__new__,
            "DATA": Data,
            "REF": Ref,
            "ARRAY": np.asarray,
            "TENSOR": as_tensor_argument,
            "SHAPE": check_shape,
        }
        self.names: dict[Expr, str] = {}
        self.function_names: dict[str, str] = {}
        # Python function name -> its Relay signature, or a function computing it
        self.signatures: dict[str, Any] = {}
        self.match_sites: list[Match] = []
        self.loops: dict[str, tuple[int, ...]] = {}  # functions that run their self tail calls as a loop -> their sites
        self.tail_sites: list[Call] = []  # those calls (see `tail_calls`)
        self.let_alias: dict[Var, Expr] = {}
        self.blocks: list[Block] = []
        self.global_names: dict[GlobalVar, str] = {}
        self.pending: list[tuple[Module, GlobalVar]] = []
        self.constants: dict[tuple[Any, ...], str] = {}
        self.ctor_names: dict[Constructor, str] = {}
        self.counter = itertools.count(1)
        self.entries: dict[str, str] = {}
        self.operator_names: dict[tuple[Any, ...], tuple[str, str | None]] = {}
        self.inplace_names: dict[tuple[Any, ...], str] = {}  # in-place kernels (see `inplace`)
        self.missing_constants: list[Constant] = []  # meta[relay.Constant][i] without data
        self.meta_values: dict[int, Any] = {}  # values given for meta[relay.Constant][i]
        self.filling_constants = False  # whether values were asked for (--random-consts)
        self.missing_bfloat16 = False  # reported that ml_dtypes is missing

    # ---- names -------------------------------------------------------------

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self.counter)}"

    def ref(self, node: Expr) -> str:
        """The Python expression that denotes a node's value."""
        start = node
        while True:
            t = type(node)
            if t is Var and node in self.let_alias:
                node = self.let_alias[node]
            elif t is Let:
                node = node.body  # type: ignore[attr-defined]  # t is type(node), kept in a local for speed
            elif t is Call and type(node.op) is Constructor and not node.args:  # type: ignore[attr-defined]  # (as above)
                node = node.op  # type: ignore[attr-defined]  # (as above)
            else:
                break
        name = self.names.get(node)
        if name is None:
            if type(node) is Constant:
                name = self.constant(node)
            elif type(node) is GlobalVar:
                name = self.global_ref(node)
            elif type(node) is Constructor:
                name = self.constructor_value(node)
            elif type(node) is Op:
                name = self.operator_value(node)
            elif type(node) is Var:
                name = self.unbound(node)
            elif type(node) is Tuple and not node.fields:
                name = "()"
            else:
                name = self.fresh("t")
            self.names[node] = name
        if start is not node:
            self.names[start] = name
        return name

    def unbound(self, var: Var) -> str:
        self.diagnostics.append(
            Diagnostic(codes.UNBOUND_VARIABLE, f"`%{var.name}` has no value to run with", var.span, label="not bound")
        )
        return "None"

    def constant(self, node: Constant) -> str:
        if node.value is None:
            if node.meta_index in self.meta_values:
                meta_name = f"meta{node.meta_index}"
                meta_value = self.meta_values[node.meta_index]
                if isinstance(meta_value, np.ndarray) and meta_value.flags.writeable:
                    meta_value = meta_value.view()  # the program's constant: read-only
                    meta_value.flags.writeable = False
                self.ns[meta_name] = meta_value
                return meta_name
            self.missing_constants.append(node)
            return "None"
        shape = tuple(node.shape or ())
        key = (type(node.value), node.value, node.dtype, shape)
        name = self.constants.get(key)
        if name is None:
            name = self.fresh("k")
            base = node.dtype.split("x")[0]  # type: ignore[union-attr]  # a literal (its value is set) has a dtype
            if base == "bfloat16" and not self.require_bfloat16(node):
                return "None"
            dtype = numpy_dtype(base)
            if shape:
                try:
                    limits.check_allocation(limits.elements(shape), dtype.itemsize, "this constant")
                except limits.LimitExceeded as exc:
                    self.diagnostics.append(Diagnostic(codes.RESOURCE_LIMIT, exc.message, node.span, label=exc.label))
                    return "None"
                try:
                    value: Any = np.full(shape, node.value, dtype=dtype)
                except MemoryError:  # the system refused what the limit allowed
                    message = limits.refused_by_system("this constant", limits.elements(shape) * dtype.itemsize)
                    self.diagnostics.append(Diagnostic(codes.RESOURCE_LIMIT, message, node.span, label="too large"))
                    return "None"
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
            self.diagnostics.append(
                Diagnostic(codes.UNKNOWN_GLOBAL, f"unknown global `@{gv.name}`", gv.span, label="not defined")
            )
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
        self.signatures[name] = (
            f"{ctor.name} : fn({', '.join(type_text(t) for t in ctor.inputs)}) -> {self.adt_text(ctor)}"
        )
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
            self.signatures[name] = functools.partial(self.signature, fn, f"@{gv.name}", gv)
            self.blocks.append(self.function_block(name, fn))

    def signature(self, fn: Function, head: str = "fn", gv: GlobalVar | None = None) -> str:
        """`fn<a>(%x : a, %n : Tensor[(), int32]) -> a`: the checker's types
        where known, else the annotations."""
        ft = None
        if self.type_of is not None:
            ft = self.type_of(gv) if gv is not None else None
            if not isinstance(ft, FuncType):
                ft = self.type_of(fn)
        if isinstance(ft, FuncType) and len(ft.arg_types) == len(fn.params):
            types: list[Any] = list(ft.arg_types)
            ret: Any = ft.ret_type
            type_params = ft.type_params or fn.type_params
        else:
            types = [p.type_annotation for p in fn.params]
            ret = fn.ret_type
            type_params = fn.type_params
        params = [
            f"%{p.name}" + (f" : {type_text(t)}" if t is not None else "")
            for p, t in zip(fn.params, types, strict=False)
        ]
        text = f"{head}{type_params_text(type_params)}({', '.join(params)})"
        if ret is not None:
            text += f" -> {type_text(ret)}"
        return text

    def function_block(self, name: str, fn: Function) -> Block:
        if self.optimizer is not None:
            fn = self.optimizer.run(fn)
        plan = plan_function(fn)
        for node in plan.place:
            if type(node) is Let:
                self.let_alias[node.var] = node.value
        emitter = FunctionEmitter(self, plan)
        return emitter.function_def(name, fn, plan.top)

    # ---- assembly ------------------------------------------------------------

    def finish(self) -> CompiledProgram:
        if self.missing_constants:
            first = min(self.missing_constants, key=lambda c: c.span.start if c.span is not None else 0)
            others = len({c.meta_index for c in self.missing_constants}) - 1
            what = f"`meta[relay.Constant][{first.meta_index}]`"
            if others:
                what += f" and {others} other constant{'s' if others != 1 else ''} have"
            else:
                what += " has"
            self.diagnostics.append(
                Diagnostic(
                    codes.BAD_METADATA,
                    f"{what} no value to run with",
                    first.span,
                    label="value unknown",
                ).with_note("the file has no #[metadata] section holding the constants' data")
            )
            if self.filling_constants:
                self.diagnostics[-1].with_note(
                    "their types could not be inferred from how they are used, so no random values were made"
                ).with_help(
                    "write a constant's type in a comment right after it: `meta[relay.Constant][0] /* "
                    "ty=Tensor[(64), float32] */`"
                )
            else:
                self.diagnostics[-1].with_help(
                    "`relay run --random-consts` fills constants whose types are known with random values"
                )
        if self.diagnostics:
            raise CompileError(self.diagnostics)
        lines, nodes = render(self.blocks)
        source = "\n".join(lines) + "\n"
        filename = f"<relay-program-{next(_COUNTER)}>"
        try:
            code = compile(source, filename, "exec")
        except (MemoryError, RecursionError):
            raise CompileError([self.too_complex()]) from None
        exec(code, self.ns)
        from .show import SIGNATURES_NAME

        # In the program's own namespace (see `show.closure_signature`): a
        # table outside it would keep every compiled program alive.
        self.ns[SIGNATURES_NAME] = {
            id(code_obj): sig
            for code_obj in _all_codes(code)
            if (sig := self.signatures.get(code_obj.co_name)) is not None
        }
        modules = [m for m in (self.program, self.prelude) if m is not None]
        origins = self.optimizer.origins if self.optimizer is not None else {}
        return CompiledProgram(
            self.ns,
            filename,
            source,
            nodes,
            self.function_names,
            self.match_sites,
            self.entries,
            modules,
            origins,
            self.loops,
            self.tail_sites,
        )

    def too_complex(self) -> Diagnostic:
        """The error for code Python's compiler gives up on: at the first
        function whose code alone is too much for it."""
        span = None
        for block in self.blocks:
            lines, nodes = render([block])
            try:
                compile("\n".join(lines) + "\n", "<relay-function>", "exec")
            except (MemoryError, RecursionError):
                span = next((s for s in (getattr(n, "span", None) for n in nodes) if s is not None), None)
                break
        return Diagnostic(
            codes.RESOURCE_LIMIT,
            "this function is too large or too deeply nested for Python to compile",
            span,
            label="too complex to run",
        ).with_help("split it into smaller functions")


def _all_codes(code: Any) -> list[Any]:
    out = []
    stack = [code]
    while stack:
        c = stack.pop()
        out.append(c)
        stack.extend(k for k in c.co_consts if hasattr(k, "co_code"))
    return out


def compile_program(
    program: Module,
    entries: Mapping[str, tuple[Expr, tuple[Var, ...]]] | None = None,
    globals_: Iterable[GlobalVar] = (),
    prelude: Module | None = None,
    resolver: Resolver | None = None,
    type_of: Callable[[Expr], Any] | None = None,
    constants: Mapping[int, Any] | None = None,
    filling_constants: bool = False,
    optimize: bool = True,
) -> CompiledProgram:
    """Compile the given globals and entry expressions (and everything they
    use); `constants` gives values for `meta[relay.Constant][i]`. With
    `optimize` (and the checker's types), each function is rewritten first
    (see `optimize`: folded constants, batch norms folded into weights)
    and the emitted code computes elementwise steps in place. Raises
    CompileError with located diagnostics."""
    compiler = Compiler(program, prelude, resolver, type_of, optimize)
    compiler.meta_values = dict(constants or {})
    compiler.filling_constants = filling_constants
    # Compiling allocates many objects that live until it ends: like the
    # parser and the checker, pause the cyclic collector meanwhile (its
    # full collections would otherwise make large programs quadratic).
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for gv in globals_:
            compiler.entries[f"@{gv.name}"] = compiler.add_global(gv)
        for key, (expr, params) in (entries or {}).items():
            compiler.add_expression(key, expr, params)
        return compiler.finish()
    finally:
        if was_enabled:
            gc.enable()
