"""`DeadCodeElimination`: `let` bindings whose value is never used are removed.

As TVM's pass: a binding is removed when nothing that is used refers to its
variable (a chain of bindings used only by each other goes as a whole) and
computing its value has no effect. With `inline_once`, a binding used
exactly once, not inside a function (which may run many times), is
replaced by its value at that use. With `ignore_impurity`, effects are
ignored: every value counts as pure.

Purity is TVM's approximation: reading or writing a reference, calling a
stateful operator (`nn.dropout`, `memory.kill`, ...), a function passed as
an argument or taken out of a tuple, a reference or a data value, is
impure; a call of a global or a local function is as pure as that
function's body. Graph bindings are sharing, not bindings, and are never
removed here (a node nothing uses is not part of the program).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ..ir.expr import (
    Call,
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
from ..ir.pattern import pattern_vars
from ..ir.ty import FuncType
from ..ir.visitor import ExprFunctor, ExprMutator
from ._module import map_functions
from ._scopes import is_primitive
from .context import PassContext
from .registry import Option, register

Purity = tuple[bool, bool]  # (evaluating it is pure, calling it is pure)


@register(
    "DeadCodeElimination",
    "Remove let bindings whose value is unused and pure (inline those used once on request)",
    Option("inline_once", "bool", False, "also replace a binding used exactly once by its value"),
    Option("ignore_impurity", "bool", False, "treat every value as pure (effects may be dropped)"),
)
def dead_code_elimination(module: Module, ctx: PassContext, inline_once: bool, ignore_impurity: bool) -> Module:
    types = ctx.types(module)
    pure: dict[Var, bool] = {}
    if not ignore_impurity:
        analysis = _Purity(module, types)
        for gv, fn in module.functions.items():
            if not is_primitive(fn):
                analysis.global_purity(gv)
        if module.expr is not None:
            analysis.visit(module.expr)
        pure = analysis.let_purity()

    def eliminate(gv: GlobalVar | None, fn: Function) -> Function:
        values, uses = _usage(fn, pure, ignore_impurity)

        def action(var: Var) -> str:
            if var not in values or not pure.get(var, ignore_impurity):
                return "keep"
            n = uses.get(var, 0)
            if n == 0:
                return "elide"
            return "inline" if n == 1 and inline_once else "keep"

        new = _Eliminate(action).visit(fn)
        assert type(new) is Function  # a rebuilt function is a function
        return new

    return map_functions(module, eliminate)


def _first_order(types: dict[Expr, Any], node: Expr) -> bool:
    return not isinstance(types.get(node), FuncType)


class _Purity(ExprFunctor[Purity]):
    """TVM's purity analysis (see the module docstring)."""

    pre_order = frozenset({Let, Function, Match})

    def __init__(self, module: Module, types: dict[Expr, Any]) -> None:
        super().__init__()
        self.module = module
        self.types = types
        self.vars: dict[Var, Purity] = {}
        self.lets: set[Var] = set()
        self.globals: dict[str, Purity] = {}

    def let_purity(self) -> dict[Var, bool]:
        return {v: self.vars[v][0] for v in self.lets}

    def global_purity(self, gv: GlobalVar) -> Purity:
        found = self.globals.get(gv.name)
        if found is not None:
            return found
        fn = next((f for g, f in self.module.functions.items() if g.name == gv.name), None)
        if fn is None:  # a global of the Prelude: assumed pure, as TVM assumes of a module's functions
            return (True, True)
        self.globals[gv.name] = (True, True)  # a recursive call meets this assumption
        result = _Purity(self.module, self.types)
        result.globals = self.globals
        result.vars = self.vars
        result.lets = self.lets
        purity = result.visit(fn)
        self.globals[gv.name] = purity
        return purity

    def visit_constant(self, node: Expr) -> Purity:
        return (True, True)

    visit_constructor = visit_constant

    def visit_op(self, node: Op) -> Purity:
        from ..ops import registry

        return (True, not registry.properties(node.name).stateful)

    def visit_global_var(self, node: GlobalVar) -> Purity:
        return self.global_purity(node)

    def visit_var(self, node: Var) -> Purity:
        return (True, self.vars.get(node, (True, _first_order(self.types, node)))[1])

    def visit_function(self, node: Function) -> Generator[Expr, Purity, Purity]:
        for p in node.params:
            self.vars[p] = (True, _first_order(self.types, p))
        if is_primitive(node):
            return (True, True)
        body = yield node.body
        return (True, body[0] and body[1])

    def visit_let(self, node: Let) -> Generator[Expr, Purity, Purity]:
        self.vars[node.var] = (True, True)
        value = yield node.value
        self.vars[node.var] = value
        self.lets.add(node.var)
        body = yield node.body
        return (value[0] and body[0], body[1])

    def visit_call(self, node: Call) -> Purity:
        callee = self.memo[node.op]
        args = all(self.memo[a][0] for a in node.args)
        return (args and callee[0] and callee[1], _first_order(self.types, node) or callee[1])

    def visit_if(self, node: If) -> Purity:
        c, t, e = self.memo[node.cond], self.memo[node.then_branch], self.memo[node.else_branch]
        return (c[0] and t[0] and e[0], t[1] and e[1])

    def visit_tuple(self, node: Tuple) -> Purity:
        return (all(self.memo[f][0] for f in node.fields), True)

    def visit_tuple_get_item(self, node: TupleGetItem) -> Purity:
        return (self.memo[node.tuple_value][0], _first_order(self.types, node))

    def visit_ref_create(self, node: RefCreate) -> Purity:
        return (self.memo[node.value][0], True)

    def visit_ref_write(self, node: RefWrite) -> Purity:
        return (False, True)

    def visit_ref_read(self, node: RefRead) -> Purity:
        return (False, _first_order(self.types, node))

    def visit_match(self, node: Match) -> Generator[Expr, Purity, Purity]:
        data = yield node.data
        evals, calls = data[0], True
        for clause in node.clauses:
            for var in pattern_vars(clause.pattern):
                self.vars[var] = (True, _first_order(self.types, var))
            body = yield clause.body
            evals, calls = evals and body[0], calls and body[1]
        return (evals, calls)


def _usage(fn: Function, pure: dict[Var, bool], default: bool) -> tuple[dict[Var, tuple[Expr, int]], dict[Var, int]]:
    """Each let-bound variable's value and function depth, and how often it is
    used by what is used; a use inside a deeper function counts twice (it may
    run many times). A pure binding's value counts only once its variable is
    used, so a chain of unused bindings is unused as a whole."""
    from ..ir.schema import children

    values: dict[Var, tuple[Expr, int]] = {}
    uses: dict[Var, int] = {}
    visits: dict[int, int] = {}
    stack: list[tuple[Expr, int]] = [(fn.body, 0)]
    while stack:
        node, level = stack.pop()
        t = type(node)
        if t is Var:
            if node in values:
                n = uses[node] = uses.get(node, 0) + 1
                value, home = values[node]
                if n == 1 and pure.get(node, default):
                    stack.append((value, home))
                if home < level:
                    uses[node] += 1
            continue
        count = visits.get(id(node), 0) + 1
        visits[id(node)] = count
        if count > 2:
            continue
        if isinstance(node, Let):
            values[node.var] = (node.value, level)
            uses.setdefault(node.var, 0)
            stack.append((node.body, level))
            if not pure.get(node.var, default):
                stack.append((node.value, level))
            continue
        if isinstance(node, Function):
            if not is_primitive(node):
                stack.append((node.body, level + 1))
            continue
        for child in reversed(children(node)):
            stack.append((child, level))
    return values, uses


class _Eliminate(ExprMutator):
    pre_order = frozenset({Let})

    def __init__(self, action: Any) -> None:
        super().__init__()
        self.action = action

    def visit_let(self, node: Let) -> Generator[Expr, Expr, Expr]:  # type: ignore[override]  # a generator method (see ExprFunctor)
        what = self.action(node.var)
        if what == "elide":
            body = yield node.body
            return body
        value = yield node.value
        if what == "inline":
            self.memo[node.var] = value
            body = yield node.body
            return body
        self.memo[node.var] = node.var
        body = yield node.body
        if value is node.value and body is node.body:
            return node
        return Let(node.var, value, body, node.span)
