"""`Defunctionalization`: a higher-order program made first-order.

As TVM's pass, applied to the entry function (`--entry @f`, default
`@main`): each call of a global function that takes functions as arguments
calls a copy of it specialized to the call's types (`@map_defunc1`), whose
function parameters have become values of a data type; a function argument
becomes a constructor of that data type (a global: a constructor without
fields; a `fn`: one whose fields are the variables it captures), and a
call of such a parameter becomes a call of `@applyN`, which matches the
constructor and runs the function:

    data Defunc1 { Defunc1_1 : () -> Defunc1 }
    def @apply1(%x : Defunc1, %y : float32) -> float32 { match (%x) { case Defunc1_1() { @id(%y) } } }
    def @map_defunc1(%f : Defunc1, %xs : List[float32]) -> List[float32] { ... @apply1(%f, %x) ... }

TVM's assumptions hold here too, and a program outside them is a
`pass-failed` error: no function returns a function, function arguments
are globals, parameters or `fn`s, functions are not stored in data or
bound by `let`, and the entry function is not generic and takes no
functions. Names are numbered (TVM named them after type keys).
"""

from __future__ import annotations

from typing import Any

from ..ir.adt import TypeData
from ..ir.expr import Call, Clause, Constructor, Expr, Function, GlobalVar, Let, Match, Var
from ..ir.module import Module
from ..ir.pattern import PatternConstructor, PatternVar, pattern_vars
from ..ir.ty import FuncType, GlobalTypeVar, TensorType, TupleType, TypeCall, TypeVar
from ..ir.visitor import ExprMutator
from ._module import copy_fresh, free_vars, rename_pattern, replace, written
from .context import PassContext, failed
from .registry import register


@register(
    "Defunctionalization",
    "Make the entry function first-order: function arguments become data, called through @apply functions",
)
def defunctionalization(module: Module, ctx: PassContext) -> Module:
    name = (ctx.entry or "@main").lstrip("@")
    gv = module.global_var(name)
    if gv is None:
        raise failed(
            f"`Defunctionalization` works on `@{name}`, which this file does not define",
            note="choose it with `--entry @NAME`",
        )
    fn = module.functions[gv]
    result = ctx.check(module)
    ty = result.global_types.get(gv)
    if fn.type_params or (isinstance(ty, FuncType) and ty.type_params):
        raise failed("`Defunctionalization` needs a function that is not generic", fn.span)
    if isinstance(ty, FuncType) and (any(_has_func(t) for t in ty.arg_types) or _has_func(ty.ret_type)):
        raise failed("`Defunctionalization` needs a function that neither takes nor returns functions", fn.span)
    state = _State(module, result, ctx.prelude)
    new = _Defunc(state, {}, {}).rewrite(fn)
    functions = dict(module.functions)
    functions[gv] = new
    order = list(module.order)
    type_defs = dict(module.type_defs)
    for gtv, data in state.datas.items():
        type_defs[gtv] = data
        order.insert(0, gtv)
    for added, body in state.added.items():
        functions[added] = body
        order.append(added)
    return replace(module, functions=functions, type_defs=type_defs, order=order)


def _has_func(ty: Any) -> bool:
    stack = [ty]
    while stack:
        t = stack.pop()
        if isinstance(t, FuncType):
            return True
        if isinstance(t, TupleType):
            stack.extend(t.fields)
        elif isinstance(t, TypeCall):
            stack.extend(t.args)
    return False


def _subst(ty: Any, mapping: dict[Any, Any]) -> Any:
    if isinstance(ty, TypeVar):
        return mapping.get(ty, ty)
    if isinstance(ty, TensorType):
        shape = ty.shape
        if isinstance(shape, tuple):
            shape = tuple(mapping.get(d, d) if isinstance(d, TypeVar) else d for d in shape)
        else:
            shape = mapping.get(shape, shape)
        return TensorType(shape, mapping.get(ty.dtype, ty.dtype) if isinstance(ty.dtype, TypeVar) else ty.dtype)
    if isinstance(ty, TupleType):
        return TupleType(tuple(_subst(f, mapping) for f in ty.fields))
    if isinstance(ty, FuncType):
        return FuncType(tuple(_subst(a, mapping) for a in ty.arg_types), _subst(ty.ret_type, mapping))
    if isinstance(ty, TypeCall):
        return TypeCall(ty.func, tuple(_subst(a, mapping) for a in ty.args))
    return ty


class _State:
    def __init__(self, module: Module, result: Any, prelude: Module | None) -> None:
        from collections import ChainMap

        self.module = module
        self.result = result
        # the Prelude's functions (`@map`) are specialized like the file's own
        self.functions: dict[str, Function] = {}
        results = [result]
        if prelude is not None:
            from ..check import prelude_result

            results.append(prelude_result(prelude))
            self.functions.update({g.name: f for g, f in prelude.functions.items()})
        self.functions.update({g.name: f for g, f in module.functions.items()})
        self.types: Any = ChainMap(*(r.types for r in results))
        self.type_args: Any = ChainMap(*(r.type_args for r in results))
        self.global_types: dict[str, Any] = {}
        for r in reversed(results):
            self.global_types.update({g.name: t for g, t in r.global_types.items()})
        self.added: dict[GlobalVar, Function] = {}
        self.specialized: dict[str, GlobalVar] = {}
        self.encodings: dict[str, tuple[GlobalTypeVar, FuncType]] = {}
        self.datas: dict[GlobalTypeVar, TypeData] = {}
        self.applies: dict[str, GlobalVar] = {}
        self.global_ctors: dict[tuple[str, str], Constructor] = {}
        self.count = 0

    def key(self, ty: Any) -> str:
        from ..text.type_text import type_text

        return type_text(ty)

    def encoding(self, ft: FuncType) -> GlobalTypeVar:
        key = self.key(ft)
        found = self.encodings.get(key)
        if found is None:
            self.count += 1
            gtv = GlobalTypeVar(f"Defunc{self.count}")
            self.encodings[key] = found = (gtv, ft)
            self.datas[gtv] = TypeData(gtv, (), ())
            self.applies[key] = GlobalVar(f"apply{self.count}")
        return found[0]

    def apply(self, ft: FuncType) -> GlobalVar:
        self.encoding(ft)
        return self.applies[self.key(ft)]

    def add_case(self, ft: FuncType, fields: tuple[Any, ...], body: Any) -> Constructor:
        """A new constructor of `ft`'s data type and its clause of `@apply`;
        `body(y_params, field_vars)` gives the clause's expression."""
        gtv = self.encoding(ft)
        data = self.datas[gtv]
        ctor = Constructor(f"{gtv.name}_{len(data.constructors) + 1}", tuple(fields), gtv, len(data.constructors))
        self.datas[gtv] = TypeData(gtv, (), (*data.constructors, ctor))
        apply_gv = self.apply(ft)
        fn = self.added.get(apply_gv)
        if fn is None:
            x = Var("x", TypeCall(gtv, ()))
            ys = tuple(Var(f"y{i}", written(t)) for i, t in enumerate(ft.arg_types))
            fn = Function((x, *ys), Match(x, ()), written(ft.ret_type))
        x, ys = fn.params[0], fn.params[1:]
        field_vars = tuple(Var(f"v{i}", written(t)) for i, t in enumerate(fields))
        clause = Clause(PatternConstructor(ctor, tuple(PatternVar(v) for v in field_vars)), body(ys, field_vars))
        assert type(fn.body) is Match
        self.added[apply_gv] = Function(fn.params, Match(x, (*fn.body.clauses, clause)), fn.ret_type)
        return ctor


class _Defunc(ExprMutator):
    """Rewrites one function body: `mapping` instantiates its type
    variables, `firstified` maps a function parameter to its data type's
    function type."""

    def __init__(self, state: _State, mapping: dict[Any, Any], firstified: dict[Var, FuncType]) -> None:
        super().__init__()
        self.s = state
        self.mapping = mapping
        self.firstified = firstified

    def rewrite(self, fn: Function) -> Function:
        params = []
        for p in fn.params:
            if p in self.firstified:
                new = Var(p.name, TypeCall(self.s.encoding(self.firstified[p]), ()), p.span)
            else:
                new = Var(
                    p.name, written(_subst(p.type_annotation or self.s.types.get(p), self.mapping)), p.span, p.attrs
                )
            self.memo[p] = new
            params.append(new)
        # every variable bound inside is a new one (the original stays in its
        # generic function), its annotation instantiated
        from ._scopes import walk

        for node in walk(fn.body, lambda n: True):
            bound: list[Var] = []
            if type(node) is Let:
                bound = [node.var]
            elif type(node) is Function:
                bound = list(node.params)
            elif type(node) is Match:
                for clause in node.clauses:
                    bound += pattern_vars(clause.pattern)
            for var in bound:
                if var not in self.memo:
                    annotation = (
                        written(_subst(var.type_annotation, self.mapping)) if var.type_annotation is not None else None
                    )
                    self.memo[var] = Var(var.name, annotation, var.span, var.attrs)
        body = self.visit(fn.body)
        ret = written(_subst(fn.ret_type, self.mapping)) if fn.ret_type is not None else None
        return Function(tuple(params), body, ret, (), fn.relations, fn.attrs, fn.span)

    def type_of(self, node: Expr) -> Any:
        return _subst(self.s.types.get(node), self.mapping)

    def visit_let(self, node: Let) -> Expr:
        if _has_func(self.type_of(node.var)):
            raise failed("`Defunctionalization` does not handle a function bound by `let`", node.span)
        return super().visit_let(node)

    def visit_match(self, node: Match) -> Expr:
        data = self.memo[node.data]
        clauses = tuple(Clause(rename_pattern(c.pattern, self.memo), self.memo[c.body], c.span) for c in node.clauses)
        return Match(data, clauses, node.complete, node.span)

    def visit_call(self, node: Call) -> Expr:
        op = node.op
        if type(op) is Function:
            inlined = copy_fresh(op.body, dict(zip(op.params, node.args, strict=False)))
            return _Defunc(self.s, self.mapping, self.firstified).visit(inlined)
        if type(op) is Var and op in self.firstified:
            ft = self.firstified[op]
            return Call(self.s.apply(ft), (self.memo[op], *(self.memo[a] for a in node.args)), (), (), node.span)
        if type(op) is Var and _has_func(self.type_of(op)):
            raise failed("`Defunctionalization` can only call functions that are parameters or globals", node.span)
        if type(op) is not GlobalVar:
            return super().visit_call(node)
        general = self.s.global_types.get(op.name)
        if not isinstance(general, FuncType):
            return super().visit_call(node)
        args_types = self.s.type_args.get(node, ())
        inst = dict(zip(general.type_params, (_subst(t, self.mapping) for t in args_types), strict=False))
        ft = FuncType(tuple(_subst(a, inst) for a in general.arg_types), _subst(general.ret_type, inst))
        if _has_func(ft.ret_type):
            raise failed(f"`Defunctionalization` does not handle `@{op.name}`, which returns a function", node.span)
        if not any(_has_func(a) for a in ft.arg_types):
            return super().visit_call(node)
        args = []
        for arg, t in zip(node.args, ft.arg_types, strict=False):
            args.append(self.encode(arg, t) if _has_func(t) else self.memo[arg])
        return Call(self.specialize(op, ft, inst, general), tuple(args), (), (), node.span)

    def encode(self, arg: Expr, ft: Any) -> Expr:
        if not isinstance(ft, FuncType):
            raise failed(
                "`Defunctionalization` does not handle functions nested in other arguments", getattr(arg, "span", None)
            )
        if type(arg) is Var and arg in self.firstified:
            return self.memo[arg]
        if type(arg) is GlobalVar:
            key = (arg.name, self.s.key(ft))
            ctor = self.s.global_ctors.get(key)
            if ctor is None:
                ctor = self.s.global_ctors[key] = self.s.add_case(ft, (), lambda ys, fields: Call(arg, tuple(ys)))
            return Call(ctor, ())
        if type(arg) is Function:
            captured = list(free_vars(arg))
            field_types = tuple(
                TypeCall(self.s.encoding(self.firstified[v]), ()) if v in self.firstified else self.type_of(v)
                for v in captured
            )
            fn = arg

            def body(ys: tuple[Var, ...], fields: tuple[Var, ...]) -> Expr:
                inner = copy_fresh(fn, dict(zip(captured, fields, strict=False)))
                assert type(inner) is Function
                # a captured function parameter stays a value of its data type
                firstified = dict(self.firstified)
                firstified.update(
                    {f: self.firstified[c] for c, f in zip(captured, fields, strict=False) if c in self.firstified}
                )
                rewriter = _Defunc(self.s, self.mapping, firstified)
                for f in fields:
                    rewriter.memo[f] = f
                rewritten = rewriter.visit(inner.body)
                # the function, at the argument types of this use (a generic `fn` is instantiated)
                params = tuple(
                    Var(p.name, written(t), p.span) for p, t in zip(inner.params, ft.arg_types, strict=False)
                )
                lam = Function(
                    params,
                    _Deep().visit(substitute_vars(rewritten, dict(zip(inner.params, params, strict=False)))),
                    None,
                    (),
                    (),
                    (),
                )
                return Call(lam, tuple(ys))

            ctor = self.s.add_case(ft, field_types, body)
            return Call(ctor, tuple(self.memo[v] for v in captured))
        raise failed(
            "`Defunctionalization` needs function arguments that are globals, parameters or `fn`s",
            getattr(arg, "span", None),
        )

    def specialize(self, gv: GlobalVar, ft: FuncType, inst: dict[Any, Any], general: FuncType) -> GlobalVar:
        key = f"{gv.name}:{self.s.key(ft)}"
        found = self.s.specialized.get(key)
        if found is not None:
            return found
        fn = self.s.functions.get(gv.name)
        if fn is None:
            raise failed(f"`Defunctionalization` needs the body of `@{gv.name}`")
        self.s.count += 1
        new_gv = GlobalVar(f"{gv.name}_defunc{self.s.count}")
        self.s.specialized[key] = new_gv
        firstified = {p: t for p, t in zip(fn.params, ft.arg_types, strict=False) if isinstance(t, FuncType)}
        mapping = dict(inst)
        if len(fn.type_params) == len(general.type_params):  # the declared parameters, by position
            mapping.update(
                {own: inst.get(gen, gen) for own, gen in zip(fn.type_params, general.type_params, strict=False)}
            )
        clone = _Defunc(self.s, mapping, firstified)
        self.s.added[new_gv] = Function((), _placeholder())  # reserved: a recursive call finds the name
        copy = _Deep().visit(clone.rewrite(fn))  # no node shared with the generic original
        assert type(copy) is Function
        self.s.added[new_gv] = copy
        return new_gv


class _Deep(ExprMutator):
    """Rebuilds every compound node (a node of a specialized copy must not
    be a node of the generic function: its type differs)."""

    def visit_call(self, node: Call) -> Expr:
        return Call(
            self.memo[node.op],
            tuple(self.memo[a] for a in node.args),
            node.attrs,
            node.type_args,
            node.span,
            node.infix,
        )

    def visit_tuple(self, node: Any) -> Expr:
        from ..ir.expr import Tuple

        return Tuple(tuple(self.memo[f] for f in node.fields), node.span)

    def visit_tuple_get_item(self, node: Any) -> Expr:
        from ..ir.expr import TupleGetItem

        return TupleGetItem(self.memo[node.tuple_value], node.index, node.span)

    def visit_let(self, node: Let) -> Expr:
        return Let(node.var, self.memo[node.value], self.memo[node.body], node.span)

    def visit_if(self, node: Any) -> Expr:
        from ..ir.expr import If

        return If(self.memo[node.cond], self.memo[node.then_branch], self.memo[node.else_branch], node.span)

    def visit_match(self, node: Match) -> Expr:
        return Match(
            self.memo[node.data],
            tuple(Clause(c.pattern, self.memo[c.body], c.span) for c in node.clauses),
            node.complete,
            node.span,
        )

    def visit_function(self, node: Function) -> Expr:
        return Function(
            node.params, self.memo[node.body], node.ret_type, node.type_params, node.relations, node.attrs, node.span
        )


def substitute_vars(expr: Expr, mapping: dict[Var, Var]) -> Expr:
    from ._module import substitute

    table: dict[Expr, Expr] = {k: v for k, v in mapping.items()}
    return substitute(expr, table)


def _placeholder() -> Expr:
    from ..ir.expr import Tuple

    return Tuple(())
