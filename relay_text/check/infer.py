"""Constraint generation: one pass over the module that gives every node a type.

The checker is an `ExprFunctor` (the iterative, memoised traversal): each
node's method reads the types of its children, unifies where types must
agree and adds relation constraints for operator calls, which the solver
runs as soon as their inputs are known. `let`, `fn` and `match` are visited
as generators (`pre_order`), so a variable gets its type after its value is
typed and before its scope is, without recursion.

Polymorphism: a use of a global, a constructor or a let-bound function
whose type has type parameters instantiates them, with the explicit type
arguments of the call (`@plus<(10, 10)>(...)`) or with fresh unknowns.
Generalization follows the value restriction: a `let` whose value is a
syntactic `fn`, and a global definition without a complete signature, get
the most general type left once their constraints are solved: unknowns
created inside them (tracked by level) become type parameters, and relation
constraints over only those unknowns travel along as `where` relations.
Globals are checked in strongly connected groups of the call graph, callees
first, so definition order does not matter; a global whose parameters and
return type are all annotated has a known type up front and breaks cycles.

Names without a sigil that are neither operators nor constructors are
reported here (`unknown-operator`), with the likely intended name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

from ..diagnostics import WARNING, Diagnostic
from ..ir.adt import TypeData
from ..ir.expr import (
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
    Op,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    Var,
)
from ..ir.module import Module
from ..ir.pattern import PatternConstructor, PatternTuple, PatternVar, PatternWildcard
from ..ir.span import Span
from ..ir.ty import (
    BOOL,
    UNIT,
    FuncType,
    GlobalTypeVar,
    IncompleteType,
    Kind,
    TensorType,
    TupleType,
    TypeCall,
    TypeRelation,
    TypeVar,
)
from ..ir.visitor import ExprFunctor
from ..ops import registry
from ..ops import relations as rels
from ..syntax.suggest import close_names, or_list
from ..syntax.type_text import type_text
from . import patterns as pat
from . import spans
from .explain import Explainer, ordinal
from .kinds import KindChecker
from .result import CheckResult
from .solver import Constraint, RelationError, Site, Solver
from .types import ERROR, Hole, RefType, find, holes, resolve, substitute, transform
from .unify import UnifyError


@dataclass(slots=True, eq=False)
class Origin:
    """Why a hole exists, for `unresolved-type` messages; higher rank explains better."""

    kind: str  # meta, param, binder, return, instance, result
    span: Span | None
    text: str
    owner: Any
    rank: int


_RANK = {"meta": 6, "param": 5, "binder": 4, "return": 3, "instance": 2, "pattern": 4, "result": 1}


@dataclass(slots=True)
class _Template:
    """A relation constraint carried by a polymorphic function type."""

    fn: Callable[[Any], bool]
    name: str
    attrs: dict
    args: list
    out: Any
    span: Span | None = None


def _projection(r: Any) -> bool:
    """The relation of `e.i` when the type of `e` is not yet known."""
    t = r.arg(0)
    index = r.attrs["index"]
    if isinstance(t, Hole):
        return False
    if isinstance(t, TupleType):
        if index >= len(t.fields):
            r.fail(
                "type-mismatch",
                f"this tuple has {len(t.fields)} field{'' if len(t.fields) == 1 else 's'}, so `.{index}` does not exist",
                arg=0,
            )
        r.set_result(t.fields[index])
        return True
    r.fail("type-mismatch", "only a tuple can be projected with `.{}`".format(index), arg=0, label="this is not a tuple")
    return False


class Checker(ExprFunctor[Any]):
    pre_order = frozenset({Let, Function, Match})

    def __init__(self, module: Module, prelude: CheckResult | None = None) -> None:
        super().__init__()
        self.module = module
        self.prelude = prelude
        self.dialect = "tvm" if module.version else "docs"
        self.explain = Explainer(self.dialect)
        self.diags: list[Diagnostic] = []
        self.solver = Solver(self._relation_error)
        self.unifier = self.solver.unifier
        self.level = 0
        self.owner: Any = None
        self.error_owners: set[int] = set()
        self.global_types: dict[GlobalVar, Any] = {}
        self.signatures: dict[Function, tuple[list, Any]] = {}
        self.fn_defs: dict[Expr, Function] = {}
        self.type_args: dict[Call, tuple] = {}
        self.meta_types: dict[int, Any] = {}
        # id(polymorphic FuncType) -> (it, its relation templates, hidden type variables)
        self.schemes: dict[int, tuple[FuncType, list[_Template], tuple]] = {}
        self.ctor_types: dict[Constructor, FuncType] = {}
        self.type_data: dict[GlobalTypeVar, TypeData] = {}
        self.locals: dict[str, int] = {}
        self.prelude_functions: dict[str, Any] = {}
        self.meta_comments: dict[int, Any] | None = None
        self.meta_reported = False
        self.prelude_globals: dict[str, Any] = {}
        if prelude is not None:
            self.prelude_globals = {gv.name: t for gv, t in prelude.global_types.items()}
            self.schemes.update(prelude.schemes)
            self.ctor_types.update(prelude.constructor_types)
            self.type_data.update(prelude.type_data)
            self.prelude_functions = prelude.functions
        self.kinds = KindChecker(self.type_data.get, self.dialect)

    # ---- reporting ---------------------------------------------------------

    def error(self, diag: Diagnostic) -> None:
        self.diags.append(diag)
        if diag.is_error:
            self.error_owners.add(id(self.owner))

    def _relation_error(self, c: Constraint, exc: RelationError) -> None:
        site = c.site
        span = site.span
        if exc.arg is not None and isinstance(site.call, Call) and exc.arg < len(site.call.args):
            span = spans.arg_span(site.call, exc.arg)
        if exc.unify_error is not None and exc.unify_error.reason == "occurs":
            diag = self.explain.occurs(span, exc.unify_error)
        elif exc.expected is not None or exc.found is not None or (exc.unify_error is not None and not exc.message):
            expected = exc.expected if exc.expected is not None else exc.unify_error.expected  # type: ignore[union-attr]
            found = exc.found if exc.found is not None else exc.unify_error.found  # type: ignore[union-attr]
            diag = self.explain.mismatch(span, expected, found, exc.unify_error, exc.message, exc.label, notes=exc.notes)
            diag.code = exc.code
        else:
            diag = Diagnostic(exc.code, exc.message, span, label=exc.label)
            if exc.unify_error is not None:
                for note in self.explain.details(exc.unify_error.expected, exc.unify_error.found, exc.unify_error):
                    diag.with_note(note)
            for note in exc.notes:
                diag.with_note(note)
        if exc.arg is not None and site.span is not None and span is not site.span and site.what:
            diag.with_label(site.span, f"in this call of {site.what}")
        saved = self.owner
        self.owner = site.owner
        self.error(diag)
        self.owner = saved

    def expect(
        self,
        found: Any,
        expected: Any,
        span: Any,
        origin: tuple[Span | None, str] | None = None,
        message: str = "",
        label: str = "",
        notes: list[str] | None = None,
    ) -> bool:
        """Unify; on failure report found-vs-expected at `span` (a Span or a thunk)."""
        try:
            self.unifier.unify(expected, found)
        except UnifyError as err:
            where = span() if callable(span) else span
            self.error(self.explain.mismatch(where, expected, found, err, message, label, origin, notes))
            return False
        finally:
            if self.solver.queue:
                self.solver.solve()
        return True

    def fresh(self, kind: Kind = Kind.TYPE, origin: Origin | None = None) -> Hole:
        if origin is None:
            origin = Origin("result", None, "this expression", self.owner, 0)
        return Hole(kind, self.level, origin)

    def origin(self, kind: str, span: Span | None, text: str) -> Origin:
        return Origin(kind, span, text, self.owner, _RANK[kind])

    def ty(self, t: Any) -> str:
        return self.explain.ty(t)

    # ---- annotations -------------------------------------------------------

    def annotation(self, ty: Any, span: Span | None = None) -> Any:
        """A written type, kind-checked, with `_` turned into fresh unknowns."""
        checked, errors = self.kinds.check(ty, span or getattr(ty, "span", None))
        for diag in errors:
            self.error(diag)
        if checked is None:
            return ERROR
        return self._holes_for_blanks(checked)

    def _holes_for_blanks(self, ty: Any) -> Any:
        def leaf(x: Any) -> Any:
            if isinstance(x, IncompleteType) and not isinstance(x, Hole):
                return self.fresh(x.kind, self.origin("binder", x.span, "this `_`") if x.span is not None else None)
            return x

        return transform(ty, leaf)

    # ---- the module --------------------------------------------------------

    def check_module(self) -> CheckResult:
        module = self.module
        self._prepare_adts()
        self._find_meta_comments()
        for func in module.functions.values():
            self.fn_defs[func] = func
        self._check_globals()
        expr_type = None
        if module.expr is not None:
            self.owner = module.expr
            for var in module.free_vars:
                self.memo[var] = self.annotation(var.type_annotation) if var.type_annotation is not None else self.fresh(
                    origin=self.origin("param", var.span, f"`%{var.name}`")
                )
            self.level = 1
            self.visit(module.expr)
            expr_type = self.use_type(module.expr)
            self.solver.solve()
            self.level = 0
            if isinstance(module.expr, Function):
                expr_type = self.generalize(expr_type, module.expr.type_params)
            self.owner = None
        self.solver.default_pass()
        return self._finish(expr_type)

    def _prepare_adts(self) -> None:
        for gtv, data in self.module.type_defs.items():
            self.type_data[gtv] = data
        for data in self.module.type_defs.values():
            self.owner = data
            params = data.type_params
            for ctor in data.constructors:
                inputs = []
                for t in ctor.inputs:
                    checked, errors = self.kinds.check(t, ctor.span)
                    for diag in errors:
                        self.error(diag)
                    inputs.append(checked if checked is not None else ERROR)
                ret = TypeCall(data.header, tuple(params))
                self.ctor_types[ctor] = FuncType(tuple(inputs), ret, tuple(params))
        self.owner = None

    def _find_meta_comments(self) -> None:
        """`meta[relay.Constant][i] /* ty=T */`: the comment gives the constant's type."""
        if self.module.metadata is not None or not self.module.comments:
            return
        text = self.module.source.text if self.module.source is not None else ""
        if "meta[" not in text or "ty=" not in text:
            return
        found: dict[int, Any] = {}
        by_start = {c.span.start: c for c in self.module.comments if c.text.startswith("/*") and "ty=" in c.text}
        self.meta_comments = {"by_start": by_start, "found": found}

    def _meta_comment_type(self, node: Constant) -> Any:
        info = self.meta_comments
        if info is None or node.span is None:
            return None
        text = node.span.source.text
        pos = node.span.end
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        comment = info["by_start"].get(pos)
        if comment is None:
            return None
        body = comment.text[2:-2].strip()
        if not body.startswith("ty="):
            return None
        return _parse_type_text(body[3:].strip())

    def _check_globals(self) -> None:
        functions = self.module.functions
        unannotated = []
        for gv, func in functions.items():
            if _fully_annotated(func):
                self.owner = gv
                params = [self.annotation(p.type_annotation, p.span) for p in func.params]
                ret = self.annotation(func.ret_type)
                relations, templates = self._where_relations(func, params, ret)
                self.signatures[func] = (params, ret, relations, templates)
                ft = FuncType(tuple(params), ret, func.type_params, relations)
                if templates and func.type_params:
                    self.schemes[id(ft)] = (ft, templates, ())
                self.global_types[gv] = ft
            else:
                unannotated.append(gv)
        self.owner = None
        for group in _sccs(unannotated, lambda gv: _global_refs(functions[gv], functions)):
            self.level = 1
            for gv in group:
                self.global_types[gv] = self.fresh(origin=self.origin("binder", gv.span, f"`@{gv.name}`"))
            for gv in group:
                self.owner = gv
                self.visit(functions[gv])
                ft = self.memo[functions[gv]]
                mono = FuncType(ft.arg_types, ft.ret_type) if isinstance(ft, FuncType) else ft
                self.expect(mono, self.global_types[gv], gv.span)
            self.solver.solve()
            self.level = 0
            for gv in group:
                self.owner = gv
                self.global_types[gv] = self.generalize(self.global_types[gv], functions[gv].type_params)
            self.owner = None
        for gv, func in functions.items():
            if func in self.signatures:
                self.owner = gv
                self.visit(func)
                self.solver.solve()
        self.owner = None

    # ---- generalization ----------------------------------------------------

    def generalize(self, t: Any, declared: tuple = ()) -> Any:
        """The most general type of a function value whose unknowns above `self.level` are free."""
        t = resolve(t)
        if not isinstance(t, FuncType):
            return t
        candidates = {h.uid: h for h in holes(t) if h.level > self.level}
        touched: dict[int, Constraint] = {}
        frontier = list(candidates.values())
        visited = set(candidates)
        while frontier:
            h = frontier.pop()
            for c in h.triggers or ():
                if not c.done and id(c) not in touched:
                    touched[id(c)] = c
                    for ty in c.types():
                        for x in holes(ty):
                            if x.level > self.level and x.uid not in visited:
                                visited.add(x.uid)
                                frontier.append(x)
        # A constraint that also involves outside unknowns pins its unknowns here.
        changed = True
        involved = {id(c): [x for ty in c.types() for x in holes(ty)] for c in touched.values()}
        while changed:
            changed = False
            for cid, hs in involved.items():
                if any(x.uid in candidates for x in hs) and not all(x.uid in candidates or x.level > self.level for x in hs):
                    for x in hs:
                        if x.uid in candidates:
                            del candidates[x.uid]
                            changed = True
                        x.level = min(x.level, self.level)
        # Unknowns created inside but not in the type itself still generalize
        # when a travelling constraint mentions them (e.g. an intermediate shape).
        for cid, hs in involved.items():
            if hs and all(x.uid in candidates or x.level > self.level for x in hs):
                for x in hs:
                    candidates.setdefault(x.uid, x)
        taken = {p.name for p in declared}
        names = _fresh_names(taken)
        new_params = []
        mapping = {}
        order = {h.uid: i for i, h in enumerate(_holes_in_order(t))}
        for h in sorted(candidates.values(), key=lambda h: (order.get(h.uid, len(order)), h.uid)):
            tv = TypeVar(next(names), h.kind)
            mapping[h] = tv
            new_params.append(tv)
        templates = []
        relations = []
        for cid, c in touched.items():
            hs = involved[cid]
            if hs and all(x.uid in candidates for x in hs):
                args = [substitute(resolve(a), mapping) for a in c.args]
                out = substitute(resolve(c.out), mapping)
                if not any(_same_template(tm, c.fn, args, out) for tm in templates):
                    templates.append(_Template(c.fn, c.name, c.attrs, args, out))
                    relations.append(TypeRelation(getattr(c.fn, "relation_name", c.name), tuple(args) + (out,), len(args)))
                self.solver.detach(c)
        for h, tv in mapping.items():
            h.link = tv
        body = resolve(t)
        # Variables that only the travelling relations mention (an intermediate
        # shape, say) are instantiated with the rest but not shown.
        visible = tuple(p for p in new_params if _occurs_in(p, body))
        hidden = tuple(p for p in new_params if p not in visible)
        scheme = FuncType(body.arg_types, body.ret_type, tuple(declared) + visible, tuple(relations))
        if templates:
            self.schemes[id(scheme)] = (scheme, templates, hidden)
        return scheme

    # ---- uses of shared nodes ----------------------------------------------

    def global_type(self, gv: GlobalVar) -> Any:
        t = self.global_types.get(gv)
        if t is not None:
            return t
        pt = self.prelude_globals.get(gv.name)
        if pt is not None:
            return pt
        return ERROR  # reported as unknown-global by name resolution

    def use_type(self, node: Expr, type_args: tuple = (), call: Call | None = None) -> Any:
        """The type of one use of `node` (a polymorphic value is instantiated per use)."""
        cls = type(node)
        if cls is GlobalVar:
            t = self.global_type(node)  # type: ignore[arg-type]
        elif cls is Constructor:
            t = self.ctor_types.get(node, ERROR)  # type: ignore[arg-type]
        elif cls is Op:
            self._op_as_value(node)  # type: ignore[arg-type]
            return ERROR
        else:
            t = self.memo[node]
        if cls is GlobalVar or cls is Var or cls is Constructor:
            f = find(t)
            if type(f) is FuncType and f.type_params:
                return self.instantiate(f, type_args, call, node)
            if type_args and f is not ERROR:
                self._no_type_params(node, call, type_args)
        return t

    def instantiate(self, f: FuncType, type_args: tuple, call: Call | None, node: Expr) -> FuncType:
        params = f.type_params
        span = call.span if call is not None else None
        name = _name_of(node)
        mapping: dict = {}
        if type_args:
            if len(type_args) != len(params):
                self.error(
                    Diagnostic(
                        "arity-mismatch",
                        f"{name} takes {len(params)} type argument{'' if len(params) == 1 else 's'}, but {len(type_args)} {'was' if len(type_args) == 1 else 'were'} given",
                        span,
                        label=f"expected <{', '.join(p.name for p in params)}>",
                    )
                )
            else:
                for p, a in zip(params, type_args):
                    value, errors = self.kinds.convert_type_arg(a, p, span)
                    for diag in errors:
                        self.error(diag)
                    if value is not None:
                        mapping[p] = self._holes_for_blanks(value)
        for p in params:
            if p not in mapping:
                mapping[p] = Hole(p.kind, self.level, self.origin("instance", span, f"type argument `{p.name}` of {name}"))
        inst = FuncType(
            tuple(substitute(a, mapping) for a in f.arg_types),
            substitute(f.ret_type, mapping),
        )
        scheme = self.schemes.get(id(f))
        if scheme is not None and scheme[0] is f:
            for p in scheme[2]:
                mapping[p] = self.fresh(p.kind)
            site = Site(call, span, name, self.owner)
            for tm in scheme[1]:
                c = Constraint(
                    tm.fn, tm.name, [substitute(a, mapping) for a in tm.args], substitute(tm.out, mapping), tm.attrs, site, self.level
                )
                self.solver.add(c)
        if call is not None:
            self.type_args[call] = tuple(mapping[p] for p in params)
        return inst

    def _no_type_params(self, node: Expr, call: Call | None, type_args: tuple) -> None:
        self.error(
            Diagnostic(
                "arity-mismatch",
                f"{_name_of(node)} takes no type arguments, but {len(type_args)} {'was' if len(type_args) == 1 else 'were'} given",
                call.span if call is not None else None,
                label="not polymorphic",
            ).with_note("only a function with type parameters (`fn<a>(...)`, `def @f<a>(...)`) or a constructor of a data type with parameters takes type arguments")
        )

    def _op_as_value(self, op: Op) -> None:
        if registry.get(op.name) is None:
            self._unknown_operator(op, None)
            return
        self.error(
            Diagnostic(
                "type-mismatch",
                f"operator `{op.name}` is used as a value; operators can only be called",
                op.span,
                label="not called",
            ).with_help(f"wrap it in a function: `fn(%x, %y) {{ {op.name}(%x, %y) }}`")
        )

    # ---- leaves ------------------------------------------------------------

    def visit_var(self, var: Var) -> Any:
        return ERROR  # a variable no binder typed: unbound, reported by name resolution

    def visit_global_var(self, gv: GlobalVar) -> Any:
        return None  # read through use_type

    def visit_constructor(self, ctor: Constructor) -> Any:
        return None

    def visit_op(self, op: Op) -> Any:
        return None

    def visit_constant(self, c: Constant) -> Any:
        if c.meta_index is not None:
            return self._meta_type(c)
        if c.dtype is None:
            return ERROR
        return TensorType(c.shape if c.shape is not None else (), c.dtype)

    def _meta_type(self, c: Constant) -> Any:
        index = c.meta_index
        assert index is not None
        t = self.meta_types.get(index)
        written = self._meta_comment_type(c)
        if t is None and self.module.metadata is not None:
            t = self._metadata_type(c)
            if t is not None:
                self.meta_types[index] = t
        if t is None:
            t = self.fresh(origin=self.origin("meta", c.span, f"`meta[relay.Constant][{index}]`"))
            self.meta_types[index] = t
        if written is not None:
            self.expect(t, written, c.span, label="this constant")
        return t

    def _metadata_type(self, c: Constant) -> Any:
        """The type of a constant the `#[metadata]` section holds; its problems
        (a malformed section, an index past the table) are `bad-metadata`."""
        from ..syntax.metadata import check_references, read_metadata

        table, problems = read_metadata(self.module.metadata)  # type: ignore[arg-type]
        if not self.meta_reported:
            self.meta_reported = True
            for diag in problems:
                self.error(diag)
        for diag in check_references(table, [c]):
            self.error(diag)
        if table is None:
            return ERROR
        t = table.constant_type(c.meta_index)  # type: ignore[arg-type]
        return t if t is not None else ERROR

    # ---- compound expressions ----------------------------------------------

    def visit_tuple(self, node: Tuple) -> Any:
        return TupleType(tuple(self.use_type(f) for f in node.fields))

    def visit_tuple_get_item(self, node: TupleGetItem) -> Any:
        t = self.use_type(node.tuple_value)
        f = find(t)
        index = node.index
        if type(f) is TupleType:
            if index < len(f.fields):
                return f.fields[index]
            n = len(f.fields)
            self.error(
                Diagnostic(
                    "type-mismatch",
                    f"this tuple has {n} field{'' if n == 1 else 's'}, so `.{index}` does not exist",
                    node.span,
                    label=f"the tuple is `{self.ty(f)}`",
                ).with_note(f"fields are numbered from 0 to {n - 1}" if n else "the empty tuple `()` has no fields")
            )
            return ERROR
        if f is ERROR:
            return ERROR
        if type(f) is Hole:
            out = self.fresh(origin=self.origin("result", node.span, "this projection"))
            site = Site(node, node.span, f"`.{index}`", self.owner)
            self.solver.add(Constraint(_projection, "TupleGetItem", [t], out, {"index": index}, site, self.level))
            return out
        self.error(
            Diagnostic(
                "type-mismatch",
                f"only a tuple can be projected with `.{index}`, but this has type `{self.ty(f)}`",
                spans.projected_span(node),
                label="not a tuple",
            )
        )
        return ERROR

    def visit_let(self, node: Let) -> Iterator[Expr]:
        chain: list[Let] = []
        cur: Expr = node
        while type(cur) is Let and cur not in self.memo:
            let: Let = cur  # type: ignore[assignment]
            chain.append(let)
            var = let.var
            value = let.value
            if var.name == "":  # `e1; e2`
                yield value
                self.memo[var] = self.use_type(value)
                cur = let.body
                continue
            annot = None
            if var.type_annotation is not None:
                annot = self.annotation(var.type_annotation, var.span)
            elif type(value) is not Function:
                # Not recursive and not generalized: the variable has the value's type.
                yield value
                self.memo[var] = self.use_type(value)
                self._bind_name(var.name)
                cur = let.body
                continue
            generalize = annot is None and type(value) is Function
            if generalize:
                self.level += 1
            var_t = annot if annot is not None else self.fresh(origin=self.origin("binder", var.span, f"`%{var.name}`"))
            self.memo[var] = var_t
            if type(value) is Function:
                self.fn_defs[var] = value
            yield value
            vt = self.use_type(value)
            origin = (_annotation_span(var), "expected because of this annotation") if annot is not None else None
            self.expect(vt, var_t, lambda let=let: spans.let_value_span(let), origin)
            if generalize:
                self.solver.solve()
                self.level -= 1
                self.memo[var] = self.generalize(var_t, value.type_params)  # type: ignore[union-attr]
            self._bind_name(var.name)
            cur = let.body
        yield cur
        t = self.use_type(cur)
        for let in chain:
            if let.var.name:
                self._unbind_name(let.var.name)
        for let in chain[1:]:
            self.memo[let] = t
        return t

    def visit_function(self, node: Function) -> Iterator[Expr]:
        sig = self.signatures.get(node)
        if sig is not None:
            params, ret, relations, templates = sig
        else:
            params = []
            for p in node.params:
                if p.type_annotation is not None:
                    params.append(self.annotation(p.type_annotation, p.span))
                else:
                    params.append(self.fresh(origin=self.origin("param", p.span, f"parameter `%{p.name}`")))
            ret = (
                self.annotation(node.ret_type)
                if node.ret_type is not None
                else self.fresh(origin=self.origin("return", node.span, "the result of this function"))
            )
            relations, templates = self._where_relations(node, params, ret)
        for p, t in zip(node.params, params):
            self.memo[p] = t
            self._bind_name(p.name)
        if not node.type_params:
            # Without type parameters the relations constrain this very function.
            for tm in templates:
                site = Site(None, tm.span, f"`{tm.name}`", self.owner)
                self.solver.add(Constraint(tm.fn, tm.name, list(tm.args), tm.out, {}, site, self.level))
        yield node.body
        body_t = self.use_type(node.body)
        origin = (getattr(node.ret_type, "span", None), "expected because of this return type") if node.ret_type is not None else None
        self.expect(body_t, ret, lambda: spans.body_result_span(node), origin)
        for p in node.params:
            self._unbind_name(p.name)
        ft = FuncType(tuple(params), ret, node.type_params, relations)
        if templates and node.type_params:
            self.schemes[id(ft)] = (ft, templates, ())
        return ft

    def _where_relations(self, node: Function, params: list, ret: Any) -> tuple[tuple, list[_Template]]:
        """The relations of a `where` clause, as printed relations and as templates."""
        out = []
        templates = []
        for ref in node.relations:
            fn = _named_relation(ref.name)
            if fn is None:
                diag = Diagnostic("unknown-relation", f"unknown relation `{ref.name}`", ref.span, label="not a relation")
                suggestions = close_names(ref.name, _relation_names())
                if suggestions:
                    diag.with_help(f"did you mean {or_list([f'`{s}`' for s in suggestions])}?")
                else:
                    diag.with_note(f"the relations a `where` clause can name are {or_list([f'`{s}`' for s in _relation_names()])}")
                self.error(diag)
                continue
            want = getattr(fn, "inputs", len(params))
            if want != len(params):
                self.error(
                    Diagnostic(
                        "arity-mismatch",
                        f"`{ref.name}` relates {want} input{'' if want == 1 else 's'} to a result, but this function has {len(params)} parameter{'' if len(params) == 1 else 's'}",
                        ref.span,
                        label="named here",
                    )
                )
                continue
            out.append(TypeRelation(ref.name, tuple(params) + (ret,), len(params)))
            templates.append(_Template(fn, ref.name, {}, list(params), ret, ref.span))
        return tuple(out), templates

    def visit_call(self, node: Call) -> Any:
        op = node.op
        if type(op) is Op:
            return self._call_op(node, op)
        callee_t = self.use_type(op, node.type_args, node)
        arg_types = [self.use_type(a) for a in node.args]
        if node.attrs:
            key = node.attrs[0][0]
            self.error(
                Diagnostic(
                    "unknown-attribute",
                    f"{_name_of(op)} is not an operator and takes no attributes",
                    spans.attr_span(node, key),
                    label=f"`{key}=` is an attribute",
                ).with_note("only operators (`nn.conv2d(..., padding=[1, 1])`) take `key=value` attributes")
            )
        f = find(callee_t)
        if type(f) is FuncType:
            return self._apply(node, f, arg_types)
        if f is ERROR:
            return ERROR
        if type(f) is Hole:
            ret = self.fresh(origin=self.origin("result", node.span, "the result of this call"))
            try:
                self.unifier.unify(f, FuncType(tuple(arg_types), ret))
            except UnifyError as err:
                self.error(self.explain.mismatch(node.span, f, FuncType(tuple(arg_types), ret), err))
                return ERROR
            self.solver.solve()
            return ret
        self.error(
            Diagnostic(
                "type-mismatch",
                f"{_name_of(op)} is not a function; its type is `{self.ty(f)}`",
                _callee_span(node),
                label="called here",
            )
        )
        return ERROR

    def _apply(self, node: Call, f: FuncType, arg_types: list) -> Any:
        want, got = len(f.arg_types), len(arg_types)
        definition = self._definition(node.op)
        if want != got:
            diag = Diagnostic(
                "arity-mismatch",
                f"{_name_of(node.op)} takes {want} argument{'' if want == 1 else 's'}, but {got} {'was' if got == 1 else 'were'} given",
                node.span,
                label=f"expected {want} argument{'' if want == 1 else 's'}",
            )
            if definition is not None and definition.span is not None:
                diag.with_label(_signature_span(definition), "defined here")
            self.error(diag)
            # still check the arguments that line up
        for i in range(min(want, got)):
            origin = None
            if definition is not None and i < len(definition.params):
                param = definition.params[i]
                origin = (_annotation_span(param), f"parameter `%{param.name}` is declared here")
            elif isinstance(node.op, Constructor) and node.op.span is not None:
                origin = (node.op.span, f"`{node.op.name}` is defined here")
            self.expect(
                arg_types[i],
                f.arg_types[i],
                lambda i=i: spans.arg_span(node, i),
                origin,
                message=f"mismatched types: the {ordinal(i + 1)} argument of {_name_of(node.op)} must be `{{expected}}`, found `{{found}}`",
            )
        return f.ret_type if want == got else ERROR

    def _definition(self, callee: Expr) -> Function | None:
        if type(callee) is GlobalVar:
            func = self.module.functions.get(callee)  # type: ignore[arg-type]
            if func is None:
                func = self.prelude_functions.get(callee.name)  # type: ignore[union-attr]
            return func
        if type(callee) is Var:
            return self.fn_defs.get(callee)
        if type(callee) is Function:
            return callee  # type: ignore[return-value]
        return None

    def _call_op(self, node: Call, op: Op) -> Any:
        arg_types = [self.use_type(a) for a in node.args]
        opdef = registry.get(op.name)
        if opdef is None:
            self._unknown_operator(op, node)
            return ERROR
        if node.type_args:
            self.error(
                Diagnostic("arity-mismatch", f"operator `{op.name}` takes no type arguments", node.span, label="not polymorphic")
            )
        if len(arg_types) != opdef.inputs:
            want, got = opdef.inputs, len(arg_types)
            self.error(
                Diagnostic(
                    "arity-mismatch",
                    f"`{op.name}` takes {want} argument{'' if want == 1 else 's'}, but {got} {'was' if got == 1 else 'were'} given",
                    node.span,
                    label=f"expected {want} argument{'' if want == 1 else 's'}",
                ).with_note(f"`{opdef.signature()}`: {opdef.doc}")
            )
            return ERROR
        attrs, problems = opdef.normalize_attrs(node.attrs)
        for problem in problems:
            self._attribute_error(node, opdef, problem)
        if problems:
            return ERROR
        out = self.fresh(origin=self.origin("result", node.span, f"the result of `{op.name}`"))
        self.memo[op] = FuncType(tuple(arg_types), out)
        shown = node.infix or op.name
        site = Site(node, node.span, f"`{shown}`", self.owner, shown)
        self.solver.add(Constraint(opdef.relation, op.name, arg_types, out, attrs, site, self.level))
        return out

    def _attribute_error(self, node: Call, opdef: Any, problem: Any) -> None:
        if not problem.key:
            self.error(
                Diagnostic("missing-attribute", problem.message, node.span, label="in this call").with_help(
                    f"the attribute takes {problem.expected}; the call looks like `{opdef.signature()}`"
                )
            )
            return
        span = spans.attr_span(node, problem.key)
        if problem.key not in opdef.schema:
            diag = Diagnostic("unknown-attribute", problem.message, span, label="unknown attribute")
            suggestions = close_names(problem.key, opdef.schema)
            if suggestions:
                diag.with_help(f"did you mean {or_list([f'`{s}`' for s in suggestions])}?")
            elif opdef.attrs:
                diag.with_note(f"`{opdef.name}` takes {or_list([f'`{a.name}`' for a in opdef.attrs])}")
            else:
                diag.with_note(f"`{opdef.name}` takes no attributes")
            self.error(diag)
            return
        value = dict(node.attrs).get(problem.key)
        self.error(
            Diagnostic("type-mismatch", problem.message, span, label=f"found {_attr_value_text(value)}").with_note(
                f"`{opdef.name}` takes `{problem.key}` as {problem.expected}"
            )
        )

    def _unknown_operator(self, op: Op, call: Call | None) -> None:
        name = op.name
        span = op.span
        if name[:1].isupper():
            diag = Diagnostic("unknown-constructor", f"unknown constructor `{name}`", span, label="not defined")
            known = [c.name for c in self.ctor_types]
            suggestions = close_names(name, known)
            if suggestions:
                diag.with_help(f"did you mean {or_list([f'`{s}`' for s in suggestions])}?")
            self.error(diag)
            return
        diag = Diagnostic("unknown-operator", f"unknown operator `{name}`", span, label="not an operator")
        globals_ = {gv.name for gv in self.module.functions} | set(self.prelude_functions)
        if name in globals_:
            diag.with_help(f"did you mean `@{name}`? Global functions are called with the `@` sigil")
        elif name in self.locals:
            diag.with_help(f"did you mean `%{name}`? Local variables are written with the `%` sigil")
        else:
            suggestions = [n for n in registry.names() if n.rsplit(".", 1)[-1] == name and n != name]
            suggestions += [n for n in close_names(name, registry.names()) if n not in suggestions]
            if suggestions:
                diag.with_help(f"did you mean {or_list([f'`{s}`' for s in suggestions])}?")
            near_globals = close_names(name, globals_)
            if near_globals:
                diag.with_help(f"or the global {or_list([f'`@{s}`' for s in near_globals])}?")
        self.error(diag)

    def visit_if(self, node: If) -> Any:
        cond_t = self.use_type(node.cond)
        self._expect_condition(node, cond_t)
        then_t = self.use_type(node.then_branch)
        else_t = self.use_type(node.else_branch)
        self.expect(
            else_t,
            then_t,
            lambda: spans.branch_span(node, 1),
            (spans.branch_span(node, 0), "the `then` branch has type `{expected}`"),
            message="`if` and `else` have different types: expected `{expected}`, found `{found}`",
            label="this has type `{found}`",
        )
        return then_t

    def _expect_condition(self, node: If, cond_t: Any) -> None:
        f = resolve(cond_t)
        notes = []
        if isinstance(f, TensorType) and f.shape != () and f.dtype == "bool" and isinstance(node.cond, Call) and isinstance(node.cond.op, Op):
            notes.append(
                f"`{node.cond.infix or node.cond.op.name}` compares tensors element by element, giving one bool per element"
            )
        diag_count = len(self.diags)
        ok = self.expect(
            cond_t,
            BOOL,
            lambda: spans.if_cond_span(node),
            message="the condition of `if` must be a single bool `{expected}`, found `{found}`",
            label="this has type `{found}`",
            notes=notes,
        )
        if not ok and notes and len(self.diags) > diag_count:
            self.diags[-1].with_help("reduce it to one value first, e.g. `all(...)` or `any(...)`")

    def visit_match(self, node: Match) -> Iterator[Expr]:
        yield node.data
        data_t = self.use_type(node.data)
        result = None
        first: Clause | None = None
        for clause in node.clauses:
            bound = self._type_pattern(clause.pattern, data_t)
            for name in bound:
                self._bind_name(name)
            yield clause.body
            body_t = self.use_type(clause.body)
            for name in bound:
                self._unbind_name(name)
            if result is None:
                result, first = body_t, clause
            else:
                self.expect(
                    body_t,
                    result,
                    _clause_body_span(clause),
                    (_clause_body_span(first), "the first clause has type `{expected}`"),  # type: ignore[arg-type]
                    message="the clauses of this `match` have different types: expected `{expected}`, found `{found}`",
                )
        self._check_coverage(node)
        if result is None:
            return self.fresh(origin=self.origin("result", node.span, "this empty match"))
        return result

    def _type_pattern(self, pattern: Any, ty: Any) -> list[str]:
        names: list[str] = []
        stack = [(pattern, ty)]
        while stack:
            p, t = stack.pop()
            if isinstance(p, PatternWildcard):
                continue
            if isinstance(p, PatternVar):
                var = p.var
                if var.type_annotation is not None:
                    annot = self.annotation(var.type_annotation, var.span)
                    self.expect(t, annot, p.span, (_annotation_span(var), "expected because of this annotation"))
                    self.memo[var] = annot
                else:
                    self.memo[var] = t
                names.append(var.name)
                continue
            if isinstance(p, PatternConstructor):
                ctor = p.constructor
                scheme = self.ctor_types.get(ctor)
                if scheme is None:  # unknown constructor, reported already
                    if not p.patterns and ctor.name[:1].islower():
                        names.append(ctor.name)  # meant as a variable: `x` for `%x`
                    for sub in p.patterns:
                        stack.append((sub, ERROR))
                    continue
                inst = self.instantiate(scheme, (), None, ctor)
                self.expect(
                    inst.ret_type,
                    t,
                    p.span,
                    message=f"this pattern matches values of type `{{found}}`, but the value matched has type `{{expected}}`",
                    label=f"`{ctor.name}` builds `{{found}}`",
                )
                want, got = len(inst.arg_types), len(p.patterns)
                if want != got:
                    diag = Diagnostic(
                        "constructor-arity",
                        f"`{ctor.name}` has {want} field{'' if want == 1 else 's'}, but this pattern gives {got}",
                        p.span,
                        label=f"expected {want} pattern{'' if want == 1 else 's'} inside",
                    )
                    if ctor.span is not None:
                        diag.with_label(ctor.span, f"`{ctor.name}` is defined here")
                    self.error(diag)
                for i, sub in enumerate(p.patterns):
                    stack.append((sub, inst.arg_types[i] if i < want else ERROR))
                continue
            if isinstance(p, PatternTuple):
                f = find(t)
                if type(f) is TupleType and len(f.fields) == len(p.patterns):
                    fields = f.fields
                else:
                    fields = tuple(self.fresh() for _ in p.patterns)
                    self.expect(
                        TupleType(fields),
                        t,
                        p.span,
                        message="this pattern matches a tuple `{found}`, but the value matched has type `{expected}`",
                    )
                for sub, ft in zip(p.patterns, fields):
                    stack.append((sub, ft))
        return names

    def _check_coverage(self, node: Match) -> None:
        sigs = pat.Signatures(self._siblings)
        report = pat.analyse([c.pattern for c in node.clauses], sigs, self.dialect)
        for index, cover in report.unreachable:
            clause = node.clauses[index]
            diag = Diagnostic(
                "unreachable-clause",
                "this clause can never be chosen: the clauses above it match every value it matches",
                getattr(clause.pattern, "span", None) or clause.span,
                severity=WARNING,
                label="unreachable",
            )
            if cover is not None:
                covering = node.clauses[cover]
                diag.with_label(getattr(covering.pattern, "span", None) or covering.span, "this clause matches them all")
            diag.with_note("clauses are tried in order and the first that matches is chosen")
            self.error(diag)
        if report.missing is not None and node.complete:
            head_end = spans.match_data_span(node)
            span = node.span
            if span is not None and head_end is not None:
                span = Span(span.source, span.start, head_end.end + (1 if span.source.text[head_end.end : head_end.end + 1] == ")" else 0))
            diag = Diagnostic(
                "non-exhaustive-match",
                f"this `match` does not cover every value: `{report.missing}` is not matched",
                span,
                label=f"`{report.missing}` not covered",
            )
            diag.with_help(f"add a clause for `{report.missing}`, or a final `_` clause")
            diag.with_note("write `match?` for a match that is allowed to fail at run time")
            self.error(diag)

    def _siblings(self, ctor: Constructor) -> list[Constructor] | None:
        if ctor.belong_to is None:
            return None
        data = self.type_data.get(ctor.belong_to)
        return list(data.constructors) if data is not None else None

    def visit_ref_create(self, node: RefCreate) -> Any:
        return RefType(self.use_type(node.value))

    def visit_ref_read(self, node: RefRead) -> Any:
        t = self.use_type(node.ref)
        f = find(t)
        if isinstance(f, RefType):
            return f.value
        v = self.fresh()
        self.expect(t, RefType(v), node.span, message="`ref_read` needs a reference, found `{found}`")
        return v

    def visit_ref_write(self, node: RefWrite) -> Any:
        t = self.use_type(node.ref)
        v = self.use_type(node.value)
        self.expect(t, RefType(v), node.span, message="`ref_write` needs a reference to `{found}`... found `{expected}`")
        return UNIT

    # ---- local names, for "did you mean `%x`?" ------------------------------

    def _bind_name(self, name: str) -> None:
        self.locals[name] = self.locals.get(name, 0) + 1

    def _unbind_name(self, name: str) -> None:
        n = self.locals.get(name, 0) - 1
        if n > 0:
            self.locals[name] = n
        else:
            self.locals.pop(name, None)

    # ---- the end -----------------------------------------------------------

    def _finish(self, expr_type: Any) -> CheckResult:
        types: dict = {}
        open_types: list[tuple[Expr, Any]] = []  # nodes whose type still has unknowns
        for node, t in self.memo.items():
            cls = type(node)
            if cls is GlobalVar:
                types[node] = resolve(self.global_type(node))  # type: ignore[arg-type]
            elif cls is Constructor:
                ct = self.ctor_types.get(node)  # type: ignore[arg-type]
                if ct is not None:
                    types[node] = ct
            elif t is not None:
                rt = resolve(t)
                types[node] = rt
                if cls is not Op and holes(rt):
                    open_types.append((node, rt))
        self._report_unresolved(open_types)
        result = CheckResult(
            module=self.module,
            types=types,
            global_types={gv: resolve(t) for gv, t in self.global_types.items()},
            type_args={call: tuple(resolve(a) for a in args) for call, args in self.type_args.items()},
            constructor_types=dict(self.ctor_types),
            meta_types={i: resolve(t) for i, t in self.meta_types.items()},
            expr_type=resolve(expr_type) if expr_type is not None else None,
            diagnostics=self.diags,
            dialect=self.dialect,
            schemes=self.schemes,
            type_data=self.type_data,
            functions={gv.name: f for gv, f in self.module.functions.items()},
        )
        return result

    def _report_unresolved(self, open_types: list[tuple[Expr, Any]]) -> None:
        """One `unresolved-type` per unknown left, at the place that explains it best."""
        blocked = self.solver.blocked()
        derived: dict[int, Constraint] = {}
        for c in blocked:
            for h in holes(c.out):
                derived.setdefault(h.uid, c)
        first_seen: dict[int, tuple[Hole, Expr]] = {}
        for node, t in open_types:
            for h in holes(t):
                if h.uid not in first_seen:
                    first_seen[h.uid] = (h, node)
        for t in self.meta_types.values():
            for h in holes(t):
                first_seen.setdefault(h.uid, (h, None))  # type: ignore[arg-type]
        by_owner: dict[int, list] = {}
        for uid, (h, node) in first_seen.items():
            origin = h.origin
            owner = origin.owner if origin is not None else None
            if id(owner) in self.error_owners:
                continue
            by_owner.setdefault(id(owner), []).append((h, node, uid in derived))
        for entries in by_owner.values():
            primary = [e for e in entries if not e[2]]
            chosen = primary if primary else entries[:1]
            seen_spans: set = set()
            for h, node, is_derived in chosen:
                diag = self._unresolved(h, node, derived.get(h.uid))
                key = (diag.span.start if diag.span is not None else -1, diag.message)
                if key in seen_spans:
                    continue
                seen_spans.add(key)
                self.diags.append(diag)

    def _unresolved(self, h: Hole, node: Expr | None, blocked_by: Constraint | None) -> Diagnostic:
        origin: Origin | None = h.origin
        if origin is not None:
            span, text, kind = origin.span, origin.text, origin.kind
        else:
            span = _node_span(node)
            text, kind = (_describe_node(node), "result")
        if kind == "meta":
            diag = Diagnostic("unresolved-type", f"cannot infer the type of {text}", span, label="type unknown")
            diag.with_note("the file has no `#[metadata]` section, and how the constant is used does not determine its type")
            diag.with_help("write its type in a comment right after it, e.g. `meta[relay.Constant][0] /* ty=Tensor[(64), float32] */`")
            return diag
        if blocked_by is not None and blocked_by.site.span is not None and kind == "result":
            diag = Diagnostic(
                "unresolved-type",
                f"cannot infer the type of the result of {blocked_by.site.what}",
                blocked_by.site.span,
                label="type unknown",
            )
            if blocked_by.args:
                args = ", ".join(f"`{self.ty(a)}`" for a in blocked_by.args)
                diag.with_note(f"its inputs are {args}; more of them must be known")
            return diag
        partial = self.ty(node and self.memo.get(node)) if node is not None and self.memo.get(node) is not None else ""
        diag = Diagnostic("unresolved-type", f"cannot infer the type of {text}", span, label="type unknown")
        if partial and partial != "_":
            diag.with_note(f"what is known: `{partial}` (`_` marks the unknown parts)")
        if kind in ("param", "binder"):
            diag.with_help("add a type annotation, e.g. `%x : Tensor[(10, 10), float32]`")
        elif kind == "instance":
            diag.with_help("give the type arguments explicitly, e.g. `@f<Tensor[(), int32]>(...)`")
        elif kind == "return":
            diag.with_help("annotate the return type: `fn(...) -> T { ... }`")
        return diag


# ---------------------------------------------------------------- helpers


def _same_template(tm: _Template, fn: Any, args: list, out: Any) -> bool:
    return tm.fn is fn and all(a is b or a == b for a, b in zip(tm.args, args)) and (tm.out is out or tm.out == out)


def _holes_in_order(t: Any) -> list[Hole]:
    """Unsolved holes of `t` in the order they are written (left to right)."""
    from .types import children

    out: list[Hole] = []
    seen: set[int] = set()
    stack = [t]
    while stack:
        node = find(stack.pop())
        if type(node) is Hole:
            if node.uid not in seen:
                seen.add(node.uid)
                out.append(node)
            continue
        stack.extend(reversed(children(node)))
    return out


def _occurs_in(tv: TypeVar, t: Any) -> bool:
    from .types import walk

    return any(x is tv for x in walk(t))


def _fresh_names(taken: set[str]) -> Iterator[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    n = 0
    while True:
        base = letters[n % 26] + (str(n // 26) if n >= 26 else "")
        n += 1
        if base not in taken:
            yield base


def _fully_annotated(func: Function) -> bool:
    if func.ret_type is None:
        return False
    for p in func.params:
        if p.type_annotation is None:
            return False
    from .types import walk

    for t in [func.ret_type] + [p.type_annotation for p in func.params]:
        for x in walk(t):
            if isinstance(x, IncompleteType):
                return False
    return True


def _global_refs(func: Function, functions: dict) -> list[GlobalVar]:
    from ..ir.visitor import post_order

    return [n for n in post_order(func) if type(n) is GlobalVar and n in functions]


def _sccs(nodes: list, edges: Callable[[Any], list]) -> list[list]:
    """Strongly connected components (Tarjan, iterative), callees before callers."""
    index: dict[Any, int] = {}
    low: dict[Any, int] = {}
    on_stack: set = set()
    stack: list = []
    out: list[list] = []
    counter = 0
    allowed = set(nodes)
    succ_cache: dict = {}
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
                succ_cache[node] = [s for s in edges(node) if s in allowed]
            succs = succ_cache[node]
            if i < len(succs):
                work.append((node, i + 1))
                s = succs[i]
                if s not in index:
                    work.append((s, 0))
                elif s in on_stack:
                    low[node] = min(low[node], index[s])
                continue
            for s in succs:
                if s in on_stack:
                    low[node] = min(low[node], low[s])
            if low[node] == index[node]:
                group = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    group.append(w)
                    if w is node:
                        break
                out.append(group)
    return out


def _named_relation(name: str) -> Any:
    fn = rels.NAMED.get(name)
    if fn is not None:
        return fn
    for opdef in registry.all_ops():
        if getattr(opdef.relation, "relation_name", None) == name and not opdef.attrs:
            return opdef.relation
    return None


def _relation_names() -> list[str]:
    names = set(rels.NAMED)
    for opdef in registry.all_ops():
        rn = getattr(opdef.relation, "relation_name", None)
        if rn and not opdef.attrs:
            names.add(rn)
    return sorted(names)


def _name_of(node: Any) -> str:
    if isinstance(node, GlobalVar):
        return f"`@{node.name}`"
    if isinstance(node, Var):
        return f"`%{node.name}`"
    if isinstance(node, (Constructor, Op)):
        return f"`{node.name}`"
    return "this expression"


def _annotation_span(var: Var) -> Span | None:
    ann = var.type_annotation
    span = getattr(ann, "span", None)
    if span is not None and not isinstance(ann, TypeVar):
        return var.span.to(span) if var.span is not None else span
    return var.span


def _signature_span(func: Function) -> Span | None:
    span = func.span
    if span is None:
        return None
    text = span.source.text
    end = text.find("{", span.start, span.end)
    if end < 0:
        return span
    end_trim = end
    while end_trim > span.start and text[end_trim - 1].isspace():
        end_trim -= 1
    first_line_end = text.find("\n", span.start, end_trim)
    if first_line_end >= 0:
        end_trim = first_line_end
    return Span(span.source, span.start, end_trim)


def _callee_span(node: Call) -> Span | None:
    op = node.op
    span = node.span
    if span is None:
        return None
    if getattr(op, "span", None) is not None and not isinstance(op, (Var, GlobalVar, Constructor)):
        s = op.span
        if s.start >= span.start and s.end <= span.end:
            return s
    import re

    m = re.match(r"[%@]?[A-Za-z0-9_.]+", span.source.text[span.start : span.end])
    return Span(span.source, span.start, span.start + m.end()) if m else span


def _clause_body_span(clause: Clause) -> Span | None:
    body = clause.body
    while isinstance(body, Let):
        body = body.body
    span = getattr(body, "span", None)
    if span is not None and clause.span is not None and not isinstance(body, (Var, GlobalVar, Constructor)):
        if clause.span.start <= span.start and span.end <= clause.span.end:
            return span
    return clause.span


def _node_span(node: Any) -> Span | None:
    return getattr(node, "span", None)


def _describe_node(node: Any) -> str:
    if isinstance(node, Var):
        return f"`%{node.name}`"
    if isinstance(node, Call):
        return f"the result of {_name_of(node.op)}"
    return "this expression"


def _attr_value_text(value: Any) -> str:
    if value is None:
        return "`None`"
    if isinstance(value, str):
        return f'`"{value}"`'
    if isinstance(value, bool):
        return f"`{value}`"
    if isinstance(value, tuple):
        return "`[" + ", ".join(str(v) for v in value) + "]`"
    return f"`{value}`"


def _parse_type_text(text: str) -> Any:
    """A type written in a `/* ty=... */` comment, or None if it does not parse."""
    from ..syntax.parser import parse

    result = parse(f"fn (%x: {text}) {{ %x }}", "<ty comment>")
    if not result.ok or result.module is None or not isinstance(result.module.expr, Function):
        return None
    params = result.module.expr.params
    return params[0].type_annotation if params else None
