"""A whole file: its header, comments at its head and end, definitions,
data types, free variables, trailing expression and metadata section."""

from __future__ import annotations

from functools import partial
from typing import Any

from ..ir.adt import TypeData
from ..ir.expr import Expr, Function, GlobalVar, Var
from ..ir.module import Module
from .dialects import GLOBAL_NAME, IDENT, check_name
from .expressions import Expressions
from .layout import HARDLINE, Deferred, Doc, Lazy, Nest, Stream, Verbatim
from .naming import RESET
from .sharing import Plan, var_names
from .state import LEAVES, Block, in_order


class Printer(Expressions):
    """Prints a module (`module`) or an expression (`expr`) as a doc."""

    def module(self, module: Module, header: str | None, deferred: bool = False) -> Doc:
        """The file's document. With `deferred`, the document of each
        definition (free variable, data type, trailing expression) is built
        when the layout reaches it, in the same order, and let go once laid
        out: the document of the whole file is never held at once."""
        names = {v.name for v in module.free_vars}
        plans: dict[Expr, Plan] = {}
        roots: list[Expr] = [module.functions[g] for g in module.order if g in module.functions]
        if module.expr is not None:
            roots.append(module.expr)
        for root in roots:
            if deferred:  # each plan is made when its definition is printed
                names |= var_names(root)
            else:
                plan = plans[root] = Plan(root, self.tvm, self.comments, self.written, self.keep_form)
                names |= plan.var_names
        self.names.learn(names)
        self.plans = plans
        items: list[tuple[int, int, str, Any]] = []
        for i, var in enumerate(module.free_vars):
            items.append((var.span.start if var.span is not None else -1, i, "free_var", var))
        for item in module.order:
            if item in module.functions:
                func = module.functions[item]
                items.append((func.span.start if func.span is not None else -1, len(items), "def", (item, func)))
            elif item in module.type_defs:
                data = module.type_defs[item]
                items.append((data.span.start if data.span is not None else -1, len(items), "type", data))
        items.sort(key=lambda t: (t[0], t[1]))
        parts: list[Doc] = []
        if self.comments is not None:
            for note in self.comments.head:
                if note.blank_before and parts:
                    parts.append(HARDLINE)
                parts += [Lazy("comment", note), HARDLINE]
            if (
                self.comments.head
                and header is not None
                and module.header is not None
                and module.positions.blank_before(module.header.start)
            ):
                parts.append(HARDLINE)
        if header is not None:
            parts += [header, HARDLINE]
            if module.header is not None and self.comments is not None and module.positions.blank_after_header:
                parts.append(HARDLINE)
        elif self.comments is not None and self.comments.head:
            parts.append(HARDLINE)  # the header's place: keep the opening comments apart
        previous = None
        for _, _, kind, obj in items:
            if previous is not None:
                parts.append(HARDLINE)
                if not (kind == "free_var" and previous == "free_var"):
                    parts.append(HARDLINE)
            previous = kind
            if not deferred:
                parts.append(self._item(kind, obj))
            elif kind == "def":
                parts.append(Stream(partial(self._streamed_def, *obj)))
            else:
                parts.append(Deferred(partial(self._item, kind, obj)))
        if module.expr is not None:
            if previous is not None:
                parts += [HARDLINE, HARDLINE]
            expr = module.expr
            parts.append(self._root_expr(expr) if not deferred else Deferred(lambda: self._root_expr(expr)))
            previous = "expr"
        if self.comments is not None and self.comments.eof:
            for i, note in enumerate(self.comments.eof):
                if previous is not None or i:
                    parts.append(HARDLINE)
                    if note.blank_before:
                        parts.append(HARDLINE)
                parts.append(Lazy("comment", note))
                previous = "comment"
        if module.metadata is not None:
            if previous is not None:
                parts.append(HARDLINE)
            # v0.0.4 text keeps its `METADATA:` (when the header is kept)
            old_style = header == "v0.0.4" and module.metadata.header == "METADATA:"
            parts.append("METADATA:" if old_style else "#[metadata]")
            parts.append(Verbatim(module.metadata.text))
            return parts
        if previous is not None:  # an empty file stays empty (or just its header)
            parts.append(HARDLINE)
        return parts

    def _item(self, kind: str, obj: Any) -> Doc:
        if kind == "free_var":
            return self._free_var(obj)
        if kind == "def":
            return self._def(*obj)
        return self._type_data(obj)

    def _free_var(self, var: Var) -> Doc:
        notes = self._take(var)
        doc: list[Doc] = []
        if notes is not None:
            doc.append(self._lead(notes.before, inline=False))
        doc += ["free_var ", self._binder(var, None, None, binds=True), ";"]
        if notes is not None:
            doc.append(self._trail(in_order(notes.after, notes.after_term)))
        return doc

    def _def(self, gv: GlobalVar, func: Function) -> Doc:
        check_name(gv.name, GLOBAL_NAME, "global", gv.span)
        self.plan = self.plans.pop(func, None) or Plan(func, self.tvm, self.comments, self.written, self.keep_form)
        self.memo = {}
        self.aliases_done = set()
        self.def_name = gv.name
        piece = self.visit(func)
        self.def_name = None
        self.plan = None
        # The pieces of the nodes visited hold the whole definition's
        # document: without them, the layout lets each statement go once
        # written (one function of many bindings is not held twice).
        self.memo = {}
        return piece[0] if self.tvm else [RESET, piece[0]]

    def _streamed_def(self, gv: GlobalVar, func: Function, stream: Stream) -> None:
        """`_def`, with the document handed to the layout as it is printed:
        its head first, then its body statement by statement (see
        `Expressions._function`)."""
        if not self.tvm:
            stream.put(RESET)  # (what `_def` puts before the function)
        self.stream = stream
        self._def(gv, func)  # (its document went to the stream: what it returns is empty)

    def _root_expr(self, expr: Expr) -> Doc:
        self.plan = self.plans.pop(expr, None) or Plan(expr, self.tvm, self.comments, self.written, self.keep_form)
        self.memo = {}
        self.aliases_done = set()
        if type(expr) in LEAVES:  # no statements: just the value
            self.plan.root_scope.stmts = []
            doc, _, term = self._leaf(expr)
            block = Block([], doc, term, [])
        else:
            self.scope_root = expr
            block = self.visit(expr)
        self.plan = None
        self.memo = {}  # (as in `_def`)
        doc = self._statements(block)
        return doc if self.tvm else [RESET, doc]

    def expr(self, expr: Expr) -> Doc:
        plan = Plan(expr, self.tvm, None)
        self.names.learn(plan.var_names)
        self.plans = {expr: plan}
        return self._root_expr(expr)

    # ---- ADT definitions -----------------------------------------------------

    def _type_data(self, data: TypeData) -> Doc:
        check_name(data.header.name, IDENT, "type", data.header.span)
        notes = self._take(data)
        doc: list[Doc] = []
        if notes is not None:
            doc.append(self._lead(notes.before, inline=False, blank_after=self._blank(data)))
        tparams = self._type_params(data.type_params)
        head = f"type {data.header.name}{tparams}" if self.tvm else f"data {data.header.name}{tparams}"
        if data.extern:
            doc.append("extern " + head.replace("data ", "type ", 1))
        elif not data.constructors:
            doc.append(head + " {}")
        else:
            lines: list[Doc] = []
            for i, ctor in enumerate(data.constructors):
                check_name(ctor.name, IDENT, "constructor", ctor.span)
                cnotes = self._take(ctor)
                if i:
                    lines.append(HARDLINE)
                if cnotes is not None:
                    lines.append(self._lead(cnotes.before, inline=False))
                inputs = [self._type(t) for t in ctor.inputs]
                if self.tvm:
                    comma = "," if i + 1 < len(data.constructors) or self._comma_after(ctor.span, fields=True) else ""
                    text = ctor.name + ("(" + ", ".join(inputs) + ")" if inputs else "") + comma
                else:
                    text = f"{ctor.name} : ({', '.join(inputs)}) -> {data.header.name}"
                lines.append(text)
                if cnotes is not None:
                    lines.append(self._trail(in_order(cnotes.after, cnotes.after_term)))
            doc += [head, " {", Nest(2, [HARDLINE, lines]), HARDLINE, "}"]
        if notes is not None:
            doc.append(self._trail(in_order(notes.after, notes.after_term)))
        return doc

    # ---- rules -----------------------------------------------------------------
