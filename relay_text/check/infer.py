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
the most general type left once their constraints are solved
(`polymorphism.py`). Globals are checked in strongly connected groups of
the call graph, callees first (`callgraph.py`), so definition order does
not matter.

The Checker is assembled from parts, one per concern: operator calls
(`operators.py`), `match` (`matching.py`), generalization
(`polymorphism.py`) and the report of what stayed unknown
(`unresolved.py`).
"""

from __future__ import annotations

import os
from typing import Any, Iterator

from .. import limits
from ..diagnostics import Diagnostic, codes
from ..ir.adt import TypeData
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
)
from ..ir.visitor import ExprFunctor
from . import spans
from .callgraph import fully_annotated, global_refs, sccs
from .explain import Explainer, name_of, ordinal
from .kinds import KindChecker
from .matching import MatchMixin
from .operators import OperatorMixin, projection
from .origin import RANK, Origin
from .polymorphism import PolymorphismMixin, Template
from .result import CheckResult
from .solver import Constraint, RelationError, Site, Solver
from .types import ERROR, Hole, RefType, Resolver, find, resolve, transform
from .unify import UnifyError
from .unresolved import UnresolvedMixin


class Checker(OperatorMixin, MatchMixin, PolymorphismMixin, UnresolvedMixin, ExprFunctor[Any]):
    """Types every node of a module; see the module docstring."""

    pre_order = frozenset({Let, Function, Match})

    def __init__(self, module: Module, prelude: CheckResult | None = None) -> None:
        super().__init__()
        self.module = module
        self.prelude = prelude
        self.dialect = "tvm" if module.version else "docs"
        self.explain = Explainer(self.dialect)
        self.spans = spans.Locator(module.positions)
        self.diags: list[Diagnostic] = []
        self.solver = Solver(self._relation_error)
        self.unifier = self.solver.unifier
        self.unifier.instantiate = self._instance
        self.level = 0
        self.owner: Any = None
        self.error_owners: set[int] = set()
        self.global_types: dict[GlobalVar, Any] = {}
        self.signatures: dict[Function, tuple[list, Any]] = {}
        self.fn_defs: dict[Expr, Function] = {}
        self.type_args: dict[Call, tuple] = {}
        self.op_types: dict[Op, tuple[list, Any]] = {}  # an operator node: its call's input and result types
        self.meta_types: dict[int, Any] = {}
        # id(polymorphic FuncType) -> (it, its relation templates, hidden type variables)
        self.schemes: dict[int, tuple[FuncType, list[Template], tuple]] = {}
        self.ctor_types: dict[Constructor, FuncType] = {}
        self.type_data: dict[GlobalTypeVar, TypeData] = {}
        self.locals: dict[str, int] = {}
        self.unknown_ops: dict[str, list[Any]] = {}  # name -> [diagnostic of its first use, owner, uses]: reported at the end
        self.attrs_not_found: dict[str, list[Call]] = {}
        self.renamed_ops: dict[str, list[Call]] = {}  # old operator names used: one warning each  # op name -> calls whose metadata attributes are absent
        self.typo_names: set[str] = set()  # `x` written in a pattern where `%x` was meant
        self.prelude_functions: dict[str, Any] = {}
        self.meta_reported = False
        self.prelude_globals: dict[str, Any] = {}
        if prelude is not None:
            self.prelude_globals = {gv.name: t for gv, t in prelude.global_types.items()}
            self.schemes.update(prelude.schemes)
            self.ctor_types.update(prelude.constructor_types)
            self.type_data.update(prelude.type_data)
            self.prelude_functions = prelude.functions
        self.kinds = KindChecker(self.type_data.get, self.dialect)
        self.explain.type_data = self.type_data.get

    # ---- reporting ---------------------------------------------------------

    def error(self, diag: Diagnostic) -> None:
        self.diags.append(diag)
        if diag.is_error:
            self.error_owners.add(id(self.owner))

    def _relation_error(self, c: Constraint, exc: RelationError) -> None:
        site = c.site
        span = site.span
        if exc.arg is not None and isinstance(site.call, Call) and exc.arg < len(site.call.args):
            span = self.spans.arg_span(site.call, exc.arg)
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
        saved = self.solver.site
        self.solver.site = (span, self.owner)
        try:
            self.unifier.unify(expected, found)
        except UnifyError as err:
            where = span() if callable(span) else span
            self.error(self.explain.mismatch(where, expected, found, err, message, label, origin, notes))
            return False
        finally:
            self.solver.site = saved
            if self.solver.queue:
                self.solver.solve()
        return True

    def fresh(self, kind: Kind = Kind.TYPE, origin: Origin | None = None) -> Hole:
        if origin is None:
            origin = Origin("result", None, "this expression", self.owner, 0)
        return Hole(kind, self.level, origin)

    def origin(self, kind: str, span: Span | None, text: str) -> Origin:
        return Origin(kind, span, text, self.owner, RANK[kind])

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
        result = self._holes_for_blanks(checked)
        if type(ty) is FuncType or type(ty) is TupleType or type(ty) is TypeCall:
            self.annotated_relations(ty, result)
        return result

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
                expr_type = self.generalize(expr_type, module.expr.type_params, expr_type)
            self.owner = None
        self.solver.default_pass()
        self._report_per_operator()
        return self._finish(expr_type)

    def _prepare_adts(self) -> None:
        for gtv, data in self.module.type_defs.items():
            self.type_data[gtv] = data
        self.solver.adt_named = self._adt_named
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

    def _adt_named(self, name: str) -> GlobalTypeVar | None:
        """The ADT called `name`: the file's own definition, else the Prelude's."""
        own = self.module.type_def(name)
        if own is not None:
            return own.same_as or own.header
        for gtv in self.type_data:
            if gtv.name == name:
                return gtv
        return None

    def _check_globals(self) -> None:
        functions = self.module.functions
        unannotated = []
        for gv, func in functions.items():
            if fully_annotated(func):
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
        for group in sccs(unannotated, lambda gv: global_refs(functions[gv], functions)):
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
                self.global_types[gv] = self.generalize(self.global_types[gv], functions[gv].type_params, self.memo.get(functions[gv]))
            self.owner = None
        for gv, func in functions.items():
            if func in self.signatures:
                self.owner = gv
                self.visit(func)
                self.solver.solve()
        self.owner = None

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
        t = self._use_type(node, type_args, call)
        if type(node) is Constructor and not node.inputs and (call is None or call.op is not node):  # type: ignore[attr-defined]
            # A nullary constructor written without `()` is its value, as
            # TVM's parser reads `Nil`.
            f = find(t)
            if type(f) is FuncType:
                return f.ret_type
        return t

    def _use_type(self, node: Expr, type_args: tuple, call: Call | None) -> Any:
        cls = type(node)
        if cls is GlobalVar:
            t = self.global_type(node)  # type: ignore[arg-type]
        elif cls is Constructor:
            t = self.ctor_types.get(node, ERROR)  # type: ignore[arg-type]
        elif cls is Op:
            return self._op_value_type(node)  # type: ignore[arg-type]
        else:
            t = self.memo[node]
        if cls is GlobalVar or cls is Var or cls is Constructor or (call is not None and call.op is node):
            # (a function value of any other kind is instantiated where it is
            # called, or where it meets a monomorphic function type: `Unifier.instantiate`)
            f = find(t)
            if type(f) is FuncType and f.type_params:
                return self.instantiate(f, type_args, call, node)
            if type_args and f is not ERROR:
                self._no_type_params(node, call, type_args)
        return t

    def _argument_types(self, node: Call, callee_t: Any) -> list:
        """The types of a call's arguments; an argument given for a parameter
        of polymorphic function type (`%g : fn<a>(a) -> a`) keeps its own
        polymorphic type, which must be as general (`@id` is)."""
        f = find(callee_t)
        params = f.arg_types if type(f) is FuncType and len(f.arg_types) == len(node.args) else ()
        out = []
        for i, arg in enumerate(node.args):
            p = find(params[i]) if params else None
            if type(p) is FuncType and p.type_params:
                t = self.memo.get(arg) if type(arg) is Var else self.global_type(arg) if type(arg) is GlobalVar else None
                if t is not None and type(find(t)) is FuncType and find(t).type_params:
                    out.append(t)
                    continue
            out.append(self.use_type(arg))
        return out

    def _instance(self, f: FuncType) -> FuncType:
        """A polymorphic function value used where a monomorphic function is
        expected (`@apply(fn [A](%x: A) { %x }, 1)`): a fresh instance."""
        return self.instantiate(f, (), None, f)

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
        shape = c.shape if c.shape is not None else ()
        if shape and not self._constant_fits(c, shape):
            return ERROR
        return TensorType(shape, c.dtype)

    def _constant_fits(self, c: Constant, shape: tuple) -> bool:
        """A constant's shape against the static limits (relay_text.limits)."""
        if len(shape) > limits.MAX_RANK:
            message = f"a constant of {len(shape)} dimensions has more than the limit of {limits.MAX_RANK}"
        else:
            count = limits.elements(shape)
            if count <= limits.MAX_STATIC_ELEMENTS:
                return True
            message = f"a constant of {count:,} elements has more than the limit of {limits.MAX_STATIC_ELEMENTS:,} (2^40)"
        self.error(Diagnostic(codes.RESOURCE_LIMIT, message, c.span, label="too large"))
        return False

    def _meta_type(self, c: Constant) -> Any:
        index = c.meta_index
        assert index is not None
        t = self.meta_types.get(index)
        written = c.type_annotation
        if t is None and self.module.metadata is not None:
            t = self._metadata_type(c)
            if t is not None:
                self.meta_types[index] = t
        if t is None:
            # A constant is one value: its type is never generalized (level 0).
            t = Hole(Kind.TYPE, 0, self.origin("meta", c.span, f"`meta[relay.Constant][{index}]`"))
            self.meta_types[index] = t
        if written is not None:
            self.expect(t, written, c.span, label="this constant")
        return t

    def _metadata_type(self, c: Constant) -> Any:
        """The type of a constant the `#[metadata]` section holds; its problems
        (a malformed section, an index past the table) are `bad-metadata`."""
        assert self.module.metadata is not None
        table, problems = self.module.metadata.decoded()
        if not self.meta_reported:
            self.meta_reported = True
            for diag in problems:
                self.error(diag)
        count = len(table.constants) if table is not None else 0
        if table is not None and not 0 <= c.meta_index < count:  # type: ignore[operator]
            self.error(
                Diagnostic(codes.BAD_METADATA, f"`meta[relay.Constant][{c.meta_index}]` is not in the metadata section", c.span, label="no such constant")
                .with_note(f"the section has {count} constant{'s' if count != 1 else ''}" + (f": indices 0 to {count - 1}" if count else ""))
            )
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
                    codes.TYPE_MISMATCH,
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
            self.solver.add(Constraint(projection, "TupleGetItem", [t], out, {"index": index}, site, self.level))
            return out
        self.error(
            Diagnostic(
                codes.TYPE_MISMATCH,
                f"only a tuple can be projected with `.{index}`, but this has type `{self.ty(f)}`",
                self.spans.projected_span(node),
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
            vt = own = self.use_type(value)
            if generalize and isinstance(vt, FuncType) and vt.type_params:
                # Inside its own body the function is used monomorphically; its
                # declared parameters come back when it is generalized.
                vt = FuncType(vt.arg_types, vt.ret_type)
            origin = (spans.annotation_span(var), "expected because of this annotation") if annot is not None else None
            self.expect(vt, var_t, lambda let=let: self.spans.let_value_span(let), origin)
            if generalize:
                self.solver.solve()
                self.level -= 1
                self.memo[var] = self.generalize(var_t, value.type_params, own)  # type: ignore[union-attr]
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
        assumed = 0
        if not node.type_params:
            # Without type parameters the relations constrain this very function.
            for tm in templates:
                site = Site(None, tm.span, f"`{tm.name}`", self.owner)
                self.solver.add(Constraint(tm.fn, tm.name, list(tm.args), tm.out, {}, site, self.level))
        else:
            # Over its type parameters they hold at each call; its body may
            # rely on them (seed 001: `add : fn<t1, t2, t3>(t1, t2) -> t3 where Broadcast`).
            for tm in templates:
                self.solver.assumptions.append((getattr(tm.fn, "relation_name", tm.name), list(tm.args), tm.out))
                assumed += 1
        yield node.body
        if assumed:
            del self.solver.assumptions[-assumed:]
        body_t = self.use_type(node.body)
        origin = (getattr(node.ret_type, "span", None), "expected because of this return type") if node.ret_type is not None else None
        solved = _unseen_result(ret, body_t) if sig is None and node.ret_type is None and not templates else None
        if solved is not None:
            # Nothing has seen the result's own unknown: the result is the
            # body's type as it stands, with no unification (which would walk
            # the whole type, again at each of n nested `fn`s: quadratic).
            ret = solved
        else:
            self.expect(body_t, ret, lambda: self.spans.body_result_span(node), origin)
        for p in node.params:
            self._unbind_name(p.name)
        ft = FuncType(tuple(params), ret, node.type_params, relations)
        if templates and node.type_params:
            self.schemes[id(ft)] = (ft, templates, ())
        return ft

    def visit_call(self, node: Call) -> Any:
        op = node.op
        if type(op) is Op:
            return self._call_op(node, op)
        callee_t = self.use_type(op, node.type_args, node)
        arg_types = self._argument_types(node, callee_t)
        # TVM reads attributes on a call of a function value only when they
        # name their attributes type (`attrs_type_key="..."`) or come from
        # the metadata section.
        if node.attrs and node.attrs_ref is None and not any(k == "attrs_type_key" for k, _ in node.attrs):
            key = node.attrs[0][0]
            self.error(
                Diagnostic(
                    codes.UNKNOWN_ATTRIBUTE,
                    f"{name_of(op)} is not an operator and takes no attributes",
                    self.spans.attr_span(node, key),
                    label=f"`{key}=` is an attribute",
                ).with_note("only operators (`nn.conv2d(..., padding=[1, 1])`) take `key=value` attributes")
                .with_note('TVM also reads them on other calls when they include `attrs_type_key="..."`')
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
                codes.TYPE_MISMATCH,
                f"{name_of(op)} is not a function; its type is `{self.ty(f)}`",
                self.spans.callee_span(node),
                label="called here",
            )
        )
        return ERROR

    def _apply(self, node: Call, f: FuncType, arg_types: list) -> Any:
        want, got = len(f.arg_types), len(arg_types)
        definition = self._definition(node.op)
        if want != got:
            diag = Diagnostic(
                codes.ARITY_MISMATCH,
                f"{name_of(node.op)} takes {want} argument{'' if want == 1 else 's'}, but {got} {'was' if got == 1 else 'were'} given",
                node.span,
                label=f"expected {want} argument{'' if want == 1 else 's'}",
            )
            if definition is not None and definition.span is not None:
                diag.with_label(self.spans.signature_span(definition), "defined here")
            self.error(diag)
            return ERROR  # which arguments were meant is unclear: do not guess
        for i in range(got):
            origin = None
            if definition is not None and i < len(definition.params):
                param = definition.params[i]
                origin = (spans.annotation_span(param), f"parameter `%{param.name}` is declared here")
            elif isinstance(node.op, Constructor) and node.op.span is not None:
                origin = (node.op.span, f"`{node.op.name}` is defined here")
            count = len(self.diags)
            ok = self.expect(
                arg_types[i],
                f.arg_types[i],
                lambda i=i: self.spans.arg_span(node, i),
                origin,
                message=f"mismatched types: the {ordinal(i + 1)} argument of {name_of(node.op)} must be `{{expected}}`, found `{{found}}`",
            )
            if not ok and len(self.diags) > count:
                self._literal_help(self.diags[-1], node.args[i], f.arg_types[i])
        return f.ret_type

    def _literal_help(self, diag: Diagnostic, arg: Expr, expected: Any) -> None:
        """An integer literal where a float scalar is wanted, or the reverse: show the spelling."""
        want = resolve(expected)
        if not (isinstance(arg, Constant) and arg.is_scalar and isinstance(want, TensorType) and want.shape == ()):
            return
        dtype = want.dtype
        if not isinstance(dtype, str) or arg.dtype == dtype or arg.value is None or isinstance(arg.value, bool):
            return
        value = arg.value
        if dtype.startswith("float"):
            number = repr(float(value))  # `1.0`, `2.5`
            if dtype != "float32":
                spelled = number + dtype.replace("float", "f")  # `2.5f64`
            elif self.dialect == "tvm":
                spelled = number + "f"
            else:
                spelled = number
            diag.with_help(f"write `{spelled}` for a {dtype} literal")
        elif dtype.startswith(("int", "uint")) and float(value).is_integer():
            suffix = "" if dtype == "int32" else dtype.replace("uint", "u").replace("int", "i")
            diag.with_help(f"write `{int(value)}{suffix}` for an {dtype} literal")

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

    def visit_if(self, node: If) -> Any:
        cond_t = self.use_type(node.cond)
        self._expect_condition(node, cond_t)
        then_t = self.use_type(node.then_branch)
        else_t = self.use_type(node.else_branch)
        self.expect(
            else_t,
            then_t,
            lambda: self.spans.branch_span(node, 1),
            (self.spans.branch_span(node, 0), "the `then` branch has type `{expected}`"),
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
            lambda: self.spans.if_cond_span(node),
            message="the condition of `if` must be a single bool `{expected}`, found `{found}`",
            label="this has type `{found}`",
            notes=notes,
        )
        if not ok and notes and len(self.diags) > diag_count:
            self.diags[-1].with_help("reduce it to one value first, e.g. `all(...)` or `any(...)`")

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
        f = find(t)
        if isinstance(f, RefType):
            span = node.value.span if node.span is not None and spans.inside(node.value, node.span) else node.span
            self.expect(v, f.value, span, message="`ref_write` stores `{found}` into a reference holding `{expected}`")
        else:
            self.expect(t, RefType(v), node.span, message="`ref_write` needs a reference, found `{found}`")
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
        resolver = Resolver()
        for node, t in self.memo.items():
            cls = type(node)
            if cls is GlobalVar:
                types[node] = resolve(self.global_type(node))  # type: ignore[arg-type]
            elif cls is Constructor:
                ct = self.ctor_types.get(node)  # type: ignore[arg-type]
                if ct is not None:
                    types[node] = ct
            elif cls is Op:
                sig = self.op_types.get(node)  # type: ignore[call-overload]
                if sig is not None:
                    types[node] = FuncType(tuple(resolver.resolve(a) for a in sig[0]), resolver.resolve(sig[1]))
            elif t is not None:
                rt = resolver.resolve(t)
                types[node] = rt
                if resolver.holes(rt):
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


_COMPOUND_RESULTS = (FuncType, TupleType, TypeCall, RefType)
# RELAY_VERIFY_LEVELS=1 checks the premise of `_unseen_result` on every use.
_VERIFY_LEVELS = bool(os.environ.get("RELAY_VERIFY_LEVELS"))


def _unseen_result(ret: Any, body_t: Any) -> Any:
    """The type a function's result can take directly, without unifying its
    fresh unknown `ret` with the body's type `body_t`, or None.

    This is the delayed level adjustment of ML checkers, for the case that
    makes nested `fn`s quadratic: `ret` was made before the body was checked
    and nothing refers to it (no signature, annotation or `where` relation
    mentions it, so it has no relations waiting on it and cannot occur in the
    body's type), so binding it to the body's type would only walk that type
    to lower levels that are already low enough: every unknown of the body's
    type was created at this function's level or reached it through a
    unification, which lowers levels as it goes. The result of an `fn` whose
    body is an `fn` then costs O(1) instead of the size of the inner type."""
    if type(ret) is not Hole or ret.link is not None or ret.triggers:
        return None
    t = find(body_t) if type(body_t) is Hole else body_t
    if type(t) not in _COMPOUND_RESULTS:
        return None
    if _VERIFY_LEVELS:
        from .types import walk

        for x in walk(t):
            if type(x) is Hole:
                assert x is not ret and x.level <= ret.level, (x, x.level, ret.level)
    return t

