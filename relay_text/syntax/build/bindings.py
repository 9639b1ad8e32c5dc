"""The builder's binding layer: `let`, graph bindings (`%1 = e`), blocks and
the uses of names.

Scopes are maintained during the parse through small "head" rules that
reduce before the body they introduce (`let_head`, `lbrace`, ...): a head
pushes a frame and binds its names, the closing rule pops it. Graph
bindings bind the name to the node itself, so every use shares it and the
result is a DAG.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.expr import (
    Expr,
    Function,
    Let,
    Match,
    Op,
    TupleGetItem,
    Var,
)
from ...ir.pattern import (
    pattern_vars,
)
from ...ir.schema import edges
from ..lexer import Tok
from .definitions import DefinitionRules
from .raw import (
    DIGITS,
    Children,
    Use,
    unwrap,
)


class BindingRules(DefinitionRules):
    __slots__ = ()

    def let_start(self, c: Children) -> tuple[Any, ...]:
        kw, name_tok, ty, eq = c
        var = Var(
            name_tok.value[1:],
            self.as_type(ty) if ty is not None else None,
            self.span(name_tok.start_pos, name_tok.end_pos),
        )
        self._binder(var, name_tok.start_pos, name_tok.end_pos, ty)
        self.pending_lets.append((var, eq.end_pos))
        return var, kw

    def let_head(self, c: Children) -> tuple[Any, ...]:
        (var, kw), value = c
        self.pending_lets.pop()
        self._check_self_uses(var, unwrap(value))
        self.values.push()
        self.values.bind(var.name, var)
        return var, value, kw

    def _check_self_uses(self, var: Var, value: Expr) -> None:
        """`let %f = fn (...) { %f(...) }(1)`: the value is not the function
        but a call of it, so %f has no value yet where the function uses it."""
        entry = self.self_uses.pop(id(var), None)
        if entry is None:
            return
        start, uses = entry
        if type(value) is Function and value.span is not None and value.span.start == start:
            return
        for span in uses:
            self.error(
                codes.UNBOUND_VARIABLE,
                f"`%{var.name}` is used in its own value, before it is bound",
                span,
                "not bound yet",
            ).with_note(
                f"only a `let` whose value is a function (`let %{var.name} = fn ...`) may refer to itself; "
                f"this value is computed from the function, so `%{var.name}` has no value while it runs"
            )

    def let_expr(self, c: Children) -> Let:
        (var, value, kw), body = c
        self.values.pop()
        let = Let(var, unwrap(value), unwrap(body), self.span(kw.start_pos, self._end(body)))
        self._note(let, (value, body), 1)
        return let

    def graph_head(self, c: Children) -> tuple[Any, ...]:
        tok, raw = c
        value = unwrap(raw)
        name = tok.value[1:]
        self.values.bind(name, value)
        self.positions.graph_names.setdefault(id(value), name)
        self.graph_uses[id(value)] = 0
        self.graph_defs[name] = tok.start_pos
        if type(raw) is Use:
            self.positions.graph_heads.setdefault(raw.start, tok.start_pos)
            if raw.bracketed:
                self.positions.graph_inner.setdefault(raw.content, tok.start_pos)
        elif raw.span is not None:
            self.positions.graph_heads.setdefault(raw.span.start, tok.start_pos)
        self.graph_nodes.setdefault(name, value)
        return tok, raw

    def graph_expr(self, c: Children) -> Expr | Use:
        (tok, raw), body = c
        value = unwrap(raw)
        if self.graph_uses.pop(id(value), 1) == 0:
            # An unused binding would vanish from the graph: keep it as `e;`.
            self.warn(
                codes.UNUSED_BINDING,
                f"graph binding `{tok.value}` is never used",
                self.span(tok.start_pos, tok.end_pos),
                "bound here",
            ).with_note("it is evaluated for its effects only, as `e;` would be")
            let = Let(
                Var("", None, self.span(tok.start_pos, tok.end_pos)),
                value,
                unwrap(body),
                self.span(tok.start_pos, self._end(body)),
            )
            self._note(let, (raw, body), 1)
            return let
        result: Expr | Use = body
        return result

    def seq_expr(self, c: Children) -> Let:
        first, body = c
        span = self._span(first)
        let = Let(Var("", None, span), unwrap(first), unwrap(body), span.to(self._span(body)))
        self._note(let, (first, body), 1)
        return let

    def block(self, c: Children) -> Use:
        self.values.pop()
        raw = c[1]
        if type(raw) is Use:
            inner = raw.inner or (raw.start, raw.end)
        else:
            span = self._span(raw)
            inner = (span.start, span.end)
        name = raw.name if type(raw) is Use else None
        return Use(unwrap(raw), c[0].start_pos, c[2].end_pos, inner, name, True, None, self._span(raw).start)

    def lbrace(self, c: Children) -> Tok:
        self.values.push()
        tok: Tok = c[0]
        return tok

    def lparen(self, c: Children) -> Tok:
        self.values.push()
        tok: Tok = c[0]
        return tok

    def local(self, c: Children) -> Expr | Use:
        tok = c[0]
        full = tok.value[1:]
        value = self.values.lookup(full)
        if value is None:
            # A graph binding is not scoped: a `%n` bound anywhere earlier in
            # the file (inside an `if` branch, another block, another
            # definition) is that node, provided the variables its value
            # refers to are in scope here.
            value = self.graph_nodes.get(full)
            if value is not None:
                self._check_graph_scope(value, full, tok)
        if value is not None:
            if self._in_def is not None and id(value) in self._free_var_ids and isinstance(value, Var):
                self._free_var_in_def(value, tok)
            self._count_graph_use(value)
            if self.self_uses and id(value) in self.self_uses:
                self.self_uses[id(value)][1].append(self.span(tok.start_pos, tok.end_pos))
            return Use(value, tok.start_pos, tok.end_pos, None, (tok.start_pos, tok.end_pos))
        # `%t.0.1`: the longest bound prefix, then projections.
        parts = full.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            if not all(DIGITS.fullmatch(p) for p in parts[cut:]):
                break
            value = self.values.lookup(".".join(parts[:cut]))
            if value is not None:
                self._count_graph_use(value)
                pos = tok.start_pos + 1 + len(".".join(parts[:cut]))
                for index in parts[cut:]:
                    pos += 1 + len(index)
                    number = self._int_checked(index, self.span(pos - len(index), pos))
                    value = TupleGetItem(value, number, self.span(tok.start_pos, pos))
                return value
        span = self.span(tok.start_pos, tok.end_pos)
        self.unbound.append((full, span, self.suggest(full, self.values.names())))
        placeholder = Var(full, None, span)
        self._placeholders.add(id(placeholder))
        return Use(placeholder, tok.start_pos, tok.end_pos, None, (tok.start_pos, tok.end_pos))

    def _check_graph_scope(self, node: Expr, name: str, tok: Tok) -> None:
        """A use of the graph binding `%name` outside the block that bound it:
        every variable its value refers to must be in scope here. The walk
        stops at graph bindings still in scope (their variables are)."""
        lookup = self.values.lookup
        names = self.positions.graph_names
        seen: set[tuple[int, frozenset[int]]] = set()
        stack: list[tuple[Expr, frozenset[int]]] = [(node, frozenset())]
        missing: list[Var] = []
        while stack:
            expr, inner = stack.pop()
            key = (id(expr), inner)
            if key in seen:
                continue
            seen.add(key)
            if isinstance(expr, Var):
                if (
                    id(expr) not in inner
                    and id(expr) not in self._placeholders
                    and lookup(expr.name) is not expr
                    and expr not in missing
                ):
                    missing.append(expr)
                continue
            if expr is not node and not inner:
                bound_as = names.get(id(expr))
                if bound_as is not None and lookup(bound_as) is expr:
                    continue
            binders: list[Var] = []
            if isinstance(expr, Let):
                binders.append(expr.var)
            elif isinstance(expr, Function):
                binders.extend(expr.params)
            elif isinstance(expr, Match):
                for clause in expr.clauses:
                    binders.extend(pattern_vars(clause.pattern))
            scope = inner | {id(v) for v in binders} if binders else inner
            for edge in edges(expr):
                stack.append((edge[0], scope))
        for var in missing:
            diag = self.error(
                codes.UNBOUND_VARIABLE,
                f"`%{name}` refers to `%{var.name}`, which is not in scope here",
                self.span(tok.start_pos, tok.end_pos),
                f"`%{var.name}` is out of scope here",
            )
            if var.span is not None:
                diag.with_label(var.span, f"`%{var.name}` is bound here")
            defined = self.graph_def(name)
            if defined is not None:
                diag.with_label(defined, f"`%{name}` is bound here")
            diag.with_note(
                "a graph binding may be used anywhere after it in the file, "
                "but only where the variables its value refers to are in scope"
            )

    def _free_var_in_def(self, var: Var, tok: Tok) -> None:
        assert self._in_def is not None
        diag = self.error(
            codes.FREE_VARIABLE_IN_GLOBAL,
            f"`@{self._in_def.name}` uses the free variable `%{var.name}`; a global function must be closed",
            self.span(tok.start_pos, tok.end_pos),
            "used here",
        )
        if var.span is not None:
            diag.with_label(var.span, "declared here")
        diag.with_note(
            f"make `%{var.name}` a parameter of `@{self._in_def.name}`, or use it in the file's main expression"
        )

    def _count_graph_use(self, value: Expr) -> None:
        key = id(value)
        if key in self.graph_uses:
            self.graph_uses[key] += 1

    def global_ref(self, c: Children) -> Use:
        tok = c[0]
        name = tok.value[1:]
        self.global_refs.append((name, self.span(tok.start_pos, tok.end_pos)))
        return Use(self.global_var(name), tok.start_pos, tok.end_pos, None, (tok.start_pos, tok.end_pos))

    def ident(self, c: Children) -> Expr | Use:
        tok = c[0]
        ctor = self.constructors.get(tok.value)
        if ctor is not None:
            return Use(ctor, tok.start_pos, tok.end_pos, None, (tok.start_pos, tok.end_pos))
        return Op(tok.value, self.span(tok.start_pos, tok.end_pos))
