"""Emitting the code of one top-level function, region by region.

`plan` says where each node is evaluated; `FunctionEmitter` writes each
region as straight-line statements, innermost regions first (a control
node's code embeds the code of the regions it opens): a statement per
compound node in evaluation order, `if`/`else` for `if`, `if`/`elif` on
constructors for `match`, a nested `def` for `fn`. Regions nested deeper
than `MAX_NESTING` become functions of their own that receive the values
they read. Large intermediate tensors are released (`del`) after their
last reader, as a hand-written numpy program would let them go.

A function that calls itself as the last thing it does (a loop written as
recursion, such as the `%while_loop` closures of converted models) runs
those calls as iterations of a `while` loop (see `tail_calls`): its
parameters take the new arguments and the body starts again, so the
values of one iteration are released in the next instead of piling up
in a frame per call. Each iteration still counts as a nested call towards
`--max-depth`, and the diagnostics count the iterations as the calls they
stand for (`LOOPS`, `LAST`, `SAME`: see `runtime.frame_entries`).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from ..ir.expr import (
    Call,
    Constructor,
    Expr,
    Function,
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
from ..ir.pattern import (
    pattern_vars,
)
from ..ir.ty import FuncType, TensorType, TupleType
from .code import Block, free_names, shape_obligation
from .emit_inplace import InPlaceCalls
from .tail_calls import TailSites, find_loops
from .match_code import pattern_code
from ..ir.schema import region_edges
from .plan import LEAVES, Plan, Region

if TYPE_CHECKING:
    from .compile import Compiler

MAX_NESTING = 40  # Python block levels before a region gets its own function
ELIF_CLAUSES = 16  # clauses of a match written as one `if`/`elif` chain at most


class FunctionEmitter(InPlaceCalls):
    """Emits the regions of one top-level function, innermost first."""

    def __init__(self, compiler: Compiler, plan: Plan) -> None:
        self.c = compiler
        self.plan = plan
        self.code: dict[Region, Block] = {}  # region -> its statements
        self.level: dict[Region, int] = {}  # Python nesting of a region's code
        self.outlined: set[Region] = set()
        # tensor-valued node -> the nodes of its own region still to read it
        self.readers: dict[Expr, set[Expr]] = {}
        # tensor-valued node -> every node of its region that reads it
        self.all_readers: dict[Expr, frozenset[Expr]] = {}
        # the last in-place call emitted: (block, line index, node, keys, parts, argument texts, names)
        self.last_inplace: tuple[Any, ...] | None = None
        # the value of an annotated `let` -> (its annotation, the variable's name):
        # its shape is checked right after it is computed (see `check_shape`)
        self.let_checks: dict[Expr, tuple[Any, str]] = {}
        # self tail calls, and the functions that have some (see `tail_calls`)
        self.tail_sites: TailSites = {}
        self.looping: set[Function] = set()
        self.made_in_loops: set[Function] = set()  # closures made in a looping function's frame
        for node in plan.place:
            if type(node) is Let and node.var.type_annotation is not None:
                self.let_checks.setdefault(node.value, (node.var.type_annotation, f"`%{node.var.name}`"))
            elif type(node) is Function:
                self.check_result(node)

    def check_result(self, fn: Function) -> None:
        """A function's result is checked against its declared return type."""
        if fn.ret_type is None:
            return
        body = fn.body
        while type(body) is Let:
            body = body.body
        if not isinstance(body, LEAVES):
            self.let_checks.setdefault(body, (fn.ret_type, "the result"))

    def function_def(self, name: str, fn: Function, top: Region) -> Block:
        c = self.c
        self.check_result(fn)
        self.name_binders(fn)
        self.assign_levels(top)
        self.find_releasable()
        self.tail_sites, self.looping, self.made_in_loops = find_loops(self, fn, name)
        # Inner regions first: a control node's code embeds its regions' code.
        for region in reversed(self.plan.regions):
            self.code[region] = self.emit_region(region)
        block = Block()
        block.line(f"def {name}({', '.join(c.names[p] for p in fn.params)}):", fn)
        block.nest(self.function_body(fn, top))
        return block

    def name_binders(self, fn: Function) -> None:
        """Parameters and pattern variables get their names before any code
        that uses them is emitted."""
        c = self.c
        for p in fn.params:
            c.names[p] = c.fresh("v")
        for node in self.plan.place:
            if type(node) is Function:
                for p in node.params:
                    c.names[p] = c.fresh("v")
            elif type(node) is Match:
                for clause in node.clauses:
                    for var in pattern_vars(clause.pattern):
                        c.names[var] = c.fresh("v")

    def resolve(self, node: Expr) -> Expr | None:
        """The compound node whose value `node` denotes, if any."""
        let_alias = self.c.let_alias
        while True:
            t = type(node)
            if t is Var and node in let_alias:
                node = let_alias[node]
            elif t is Let:
                node = node.body  # type: ignore[attr-defined]  # t is type(node), kept in a local for speed
            else:
                break
        if isinstance(node, LEAVES) or (type(node) is Call and type(node.op) is Constructor and not node.args):
            return None
        return node

    def find_releasable(self) -> None:
        """Tensors (and tuples) read only by later steps of their own region
        can be released after their last reader, as a hand-written program
        would let them go: large intermediate results do not pile up."""
        type_of = self.c.type_of
        if type_of is None:
            return
        place = self.plan.place
        readers: dict[Expr, set[Expr]] = {}
        escaping: set[Expr] = set()
        for region in self.plan.regions:
            root = self.resolve(region.root)
            if root is not None:
                escaping.add(root)
        for node, home in place.items():
            if type(node) is Let:
                continue
            inline, _ = region_edges(node)
            for child in inline:
                target = self.resolve(child)
                if target is None:
                    continue
                if place.get(target) is not home:
                    escaping.add(target)
                else:
                    readers.setdefault(target, set()).add(node)
        for target, nodes in readers.items():
            if target in escaping:
                continue
            ty = type_of(target)
            if (isinstance(ty, TensorType) and ty.shape != ()) or isinstance(ty, TupleType):
                self.readers[target] = nodes
                self.all_readers[target] = frozenset(nodes)

    def released_after(self, node: Expr) -> list[str]:
        """Names whose last reader is `node` (just emitted)."""
        out: list[str] = []
        if not self.readers or type(node) is Let:
            return out
        inline, _ = region_edges(node)
        for child in inline:
            target = self.resolve(child)
            if target is None:
                continue
            pending = self.readers.get(target)
            if pending is None or node not in pending:
                continue
            pending.discard(node)
            if not pending:
                name = self.c.ref(target)
                if name not in out:
                    out.append(name)
        return out

    def assign_levels(self, top: Region) -> None:
        self.level[top] = 1
        for region in self.plan.regions[1:]:
            level = self.level[region.parent] + 1  # type: ignore[index]  # only the first region has no parent
            if level > MAX_NESTING:
                self.outlined.add(region)
                level = 1
            self.level[region] = level

    def function_body(self, fn: Function, region: Region) -> Block:
        body = Block()
        body.line("global DEPTH")
        body.line("DEPTH += 1")
        body.line("if DEPTH > MAXD: OVERFLOW()", fn)
        if fn not in self.looping:
            result = self.embed(body, region)
            body.line("DEPTH -= 1")
            body.line(f"return {result}", fn.body)
            return body
        # LOOPS: the nested calls this frame stands for (its own and one
        # per iteration); LAST: the site of the latest self call; SAME: how
        # many of the latest self calls were made there in a row
        body.line("LOOPS = 1; LAST = -1; SAME = 0", fn)
        loop = Block()
        result = self.embed(loop, region)
        if self.resolve(region.root) in self.tail_sites:
            result = "None"  # (the body is the self call: the loop ends only by an error)
        loop.line("break", fn.body)
        body.line("while True:", fn)
        body.nest(loop)
        body.line("DEPTH -= LOOPS")
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
            inner = Block()
            inner.items.extend(self.code[region].items)
            inner.line(f"return {result}", region.root)
            call = self.function_of(inner, "r", region.owner)
            result = c.fresh("t")
            block.line(f"{result} = {call}", region.root)
        if target is not None and target != result and self.resolve(region.root) not in self.tail_sites:
            block.line(f"{target} = {result}", region.root)  # (a self tail call continues the loop instead)
            return target
        return result

    def function_of(self, body: Block, prefix: str, node: Expr) -> str:
        """`body` as a module-level function of the names it reads but does
        not bind (part of the function around it, for backtraces); returns
        the call of it with those names."""
        c = self.c
        name = c.fresh(prefix)
        imports = ", ".join(sorted(free_names(body), key=lambda n: (n[0], int(n[1:]))))
        out = Block()
        out.line(f"def {name}({imports}):", node)
        out.nest(body)
        c.blocks.append(out)
        c.function_names[name] = "region"
        return f"{name}({imports})"

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
                released = self.released_after(node)
                if released:
                    block.line(f"del {', '.join(released)}")
                if node in self.tail_sites:
                    block.line("continue", node)
                continue
            stack.append((node, True))
            for dep in reversed(self.deps(node, region)):
                if dep not in done:
                    stack.append((dep, False))
        return block

    def emit(self, node: Expr, block: Block) -> None:
        if type(node) is Let:
            if isinstance(node.value, LEAVES) and node.value in self.let_checks:
                self.check_shape(node.value, *self.let_checks.pop(node.value), node, block)
            return
        self.emit_value(node, block)
        check = self.let_checks.pop(node, None)
        if check is not None:
            self.check_shape(node, *check, node, block)

    def emit_value(self, node: Expr, block: Block) -> None:
        c = self.c
        ref = c.ref
        if type(node) is Call:
            self.emit_call(node, block)
        elif type(node) is Tuple:
            fields = [ref(f) for f in node.fields]
            if fields:
                text = "(" + ", ".join(fields) + ("," if len(fields) == 1 else "") + ")"
                block.line(f"{ref(node)} = {text}", node)
        elif type(node) is TupleGetItem:
            block.line(f"{ref(node)} = {ref(node.tuple_value)}[{node.index}]", node)
        elif type(node) is If:
            self.emit_if(node, block)
        elif type(node) is Match:
            self.emit_match(node, block)
        elif type(node) is Function:
            self.emit_function(node, block)
        elif type(node) is RefCreate:
            block.line(f"{ref(node)} = REF({ref(node.value)})", node)
        elif type(node) is RefRead:
            block.line(f"{ref(node)} = {ref(node.ref)}.value", node)
        elif type(node) is RefWrite:
            block.line(f"{ref(node.ref)}.value = {ref(node.value)}; {ref(node)} = ()", node)
        else:  # pragma: no cover - every compound node class is handled above
            raise NotImplementedError(f"cannot compile {type(node).__name__}")

    def emit_call(self, node: Call, block: Block) -> None:
        c = self.c
        ref = c.ref
        op = node.op
        args = [ref(a) for a in node.args]
        joined = ", ".join(args)
        target = ref(node)
        if type(op) is Op:
            inplace = self.inplace_call(node) if c.optimizer is not None else None
            if inplace is not None:
                ident, fn, into, key = inplace
                from .inplace import fuse_softmax

                if fuse_softmax(self, node, key, target, block):
                    return
                if not self.chain(node, fn, into, key, args, target, block):
                    block.line(f"{target} = {ident}({joined})", node)
                    if getattr(fn, "fusable", False):
                        self.last_inplace = (block, len(block.items) - 1, node, [key], [fn], list(args), [target])
                return
            names = c.operator_call(op, node)
            if names is None:
                return
            kname, aname = names
            if aname is None:
                block.line(f"{target} = {kname}({joined})", node)
            else:
                # Kernels take 0-d arrays for scalars; fast paths and
                # literals give numpy scalars.
                args = [self.as_array(a, text) for a, text in zip(node.args, args, strict=False)]
                tup = "(" + ", ".join(args) + ("," if len(args) == 1 else "") + ")"
                block.line(f"{target} = {kname}({tup}, {aname})", node)
        elif type(op) is Constructor:
            if not args:
                return  # a nullary constructor's value is shared (see `ref`)
            cname = c.constructor_name(op)
            fields = "(" + joined + ("," if len(args) == 1 else "") + ")"
            block.line(f"{target} = DNEW(DATA); {target}.con = {cname}; {target}.fields = {fields}", node)
        else:
            callee = self.c.type_of(op) if self.c.type_of is not None else None
            if isinstance(callee, FuncType) and len(callee.arg_types) == len(node.args):
                for i, (arg, param) in enumerate(zip(node.args, callee.arg_types, strict=False)):
                    self.check_shape(arg, param, f"argument {i + 1}", node, block)
            tail = self.tail_sites.get(node)
            if tail is None:
                block.line(f"{target} = {ref(op)}({joined})", node)
                return
            # the next iteration: the arguments become the parameters
            site, params = tail
            if params:
                block.line(f"{', '.join(params)} = {joined}" if len(params) > 1 else f"{params[0]} = {joined}", node)
            block.line("DEPTH += 1", node)
            block.line("if DEPTH > MAXD: OVERFLOW(True)", node)
            block.line(f"LOOPS += 1; SAME = SAME + 1 if LAST == {site} else 1; LAST = {site}", node)

    def check_shape(self, value: Expr, declared: Any, what: str, node: Expr, block: Block) -> None:
        """Where a value whose type has `?` dimensions meets a declared type with
        sizes, its shape is checked when the program runs (a located runtime-error)."""
        if self.c.type_of is None:
            return
        spec = shape_obligation(self.c.type_of(value), declared)
        if spec is not None:
            block.line(f"SHAPE({self.c.ref(value)}, {spec!r}, {what!r})", node)

    def as_array(self, arg: Expr, text: str) -> str:
        """`text` (an argument of a kernel) as the kernel expects it."""
        ty = self.c.type_of(arg) if self.c.type_of is not None else None
        if isinstance(ty, TensorType):
            return f"ARRAY({text})" if ty.shape == () else text
        if ty is None:
            return f"TENSOR({text})"
        return text

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
        if len(node.clauses) > ELIF_CLAUSES:
            self.emit_wide_match(node, block, target, data, site)
            return
        first = True
        for clause, region in zip(node.clauses, regions, strict=False):
            conds, binds = pattern_code(clause.pattern, data, c)
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

    def emit_wide_match(self, node: Match, block: Block, target: str, data: str, site: int) -> None:
        """A match with many clauses as a flat run of `if`s guarded by a
        flag: Python nests an `elif` chain, and its compiler gives up a few
        thousand clauses deep."""
        c = self.c
        open_ = c.fresh("t")  # a flag: no clause has matched yet
        block.line(f"{open_} = True", node)
        for clause, region in zip(node.clauses, self.plan.opens[node], strict=False):
            conds, binds = pattern_code(clause.pattern, data, c)
            block.line(f"if {' and '.join([open_, *conds])}:", node)
            body = Block()
            for name, access in binds:
                body.line(f"{name} = {access}", node)
            self.embed(body, region, target)
            body.line(f"{open_} = False", node)
            block.nest(body)
            if not conds:
                return
        block.line(f"if {open_}: MATCHFAIL({site}, {data})", node)

    def emit_function(self, node: Function, block: Block) -> None:
        c = self.c
        name = c.ref(node)
        c.function_names[name] = "fn"
        c.signatures[name] = functools.partial(c.signature, node)
        (body_region,) = self.plan.opens[node]
        made = Block() if node in self.made_in_loops else block
        made.line(f"def {name}({', '.join(c.names[p] for p in node.params)}):", node)
        made.nest(self.function_body(node, body_region))
        if made is block:
            return
        # A closure made in a loop's iteration holds that iteration's values:
        # a function of its own makes it from them (Python's closures would
        # read the loop's variables as they are when the closure runs).
        made.line(f"return {name}", node)
        block.line(f"{name} = {self.function_of(made, 'f', node)}", node)
