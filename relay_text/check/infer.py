"""Constraint generation: one pass over the module that gives every node a type.

The checker is an `ExprFunctor` (the iterative, memoised traversal): each
node's method reads the types of its children, unifies where types must
agree and adds relation constraints for operator calls, which the solver
runs as soon as their inputs are known.

Polymorphism: a use of a global, a constructor or a let-bound function
whose type has type parameters instantiates them, with the explicit type
arguments of the call (`@plus<(10, 10)>(...)`) or with fresh unknowns.

`Checker` types the expressions themselves (calls, tuples, `if`,
references) and hands the rest to its parts, each a class given the
shared `CheckState` (`state.py`) and the parts it calls:

- `Annotations` (`annotations.py`): written types and `where` relations;
- `Polymorphism` (`polymorphism.py`): generalization and instantiation;
- `Declarations` (`declarations.py`): data types and globals;
- `Binders` (`binders.py`): `let` and `fn`;
- `Matcher` (`matching.py`): `match`, its patterns and coverage;
- `Operators` (`operators.py`): operator calls and operators as values;
- `Constants` (`constants.py`): literals and metadata constants;
- `Unresolved` (`unresolved.py`): what stayed unknown.

The texts of all their diagnostics are in `messages.py`.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Generator

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
from ..ir.ty import BOOL, UNIT, FuncType, TensorType, TupleType
from ..ir.visitor import ExprFunctor
from . import messages, spans
from .annotations import Annotations
from .binders import Binders
from .constants import Constants
from .declarations import Declarations
from .matching import Matcher
from .operators import Operators, projection
from .origin import Origin
from .polymorphism import Polymorphism
from .relation_memo import known_tensor
from .result import CheckResult
from .constraint import Constraint, Site
from .state import CheckState
from .types import ERROR, Hole, RefType, Resolver, find, resolve
from .unify import UnifyError
from .unresolved import Unresolved

__all__ = ["Checker", "Origin"]


class Checker(ExprFunctor[Any]):
    """Types every node of a module; see the module docstring."""

    pre_order = frozenset({Let, Function, Match})

    def __init__(self, module: Module, prelude: CheckResult | None = None) -> None:
        super().__init__()
        self.state = st = CheckState(module, prelude, self.memo)
        self.annotations = Annotations(st)
        self.polymorphism = Polymorphism(st, self.annotations)
        st.unifier.instantiate = self.polymorphism.instance
        self.declarations = Declarations(st, self.annotations, self.polymorphism, self.visit)
        self.binders = Binders(st, self.annotations, self.polymorphism, self.use_type)
        self.matcher = Matcher(st, self.annotations, self.polymorphism, self.use_type)
        self.operators = Operators(st, self.use_type)
        self.constants = Constants(st)
        self.unresolved = Unresolved(st, self.constants.meta_types)

    # ---- the module --------------------------------------------------------

    def check_module(self) -> CheckResult:
        st = self.state
        module = st.module
        self.declarations.prepare_adts()
        for func in module.functions.values():
            st.fn_defs[func] = func
        self.declarations.check_globals()
        expr_type = None
        # Free variables are checked even when no expression uses them: a
        # written type is checked wherever it is written.
        st.owner = module.expr
        for var in module.free_vars:
            self.memo[var] = (
                self.annotations.annotation(var.type_annotation)
                if var.type_annotation is not None
                else st.fresh(origin=st.origin("param", var.span, messages.var_text(var.name)))
            )
        st.owner = None
        if module.expr is not None:
            st.owner = module.expr
            st.level = 1
            self.visit(module.expr)
            expr_type = self.use_type(module.expr)
            st.solver.solve()
            st.level = 0
            if isinstance(module.expr, Function):
                expr_type = self.polymorphism.generalize(expr_type, module.expr.type_params, expr_type)
            st.owner = None
        st.solver.default_pass()
        self.operators.report_per_operator()
        return self._finish(expr_type)

    # ---- uses of shared nodes ----------------------------------------------

    def use_type(self, node: Expr, type_args: tuple[Any, ...] = (), call: Call | None = None) -> Any:
        """The type of one use of `node` (a polymorphic value is instantiated per use)."""
        t = self._use_type(node, type_args, call)
        if type(node) is Constructor and not node.inputs and (call is None or call.op is not node):
            # A nullary constructor written without `()` is its value, as
            # TVM's parser reads `Nil`.
            f = find(t)
            if type(f) is FuncType:
                return f.ret_type
        return t

    def _use_type(self, node: Expr, type_args: tuple[Any, ...], call: Call | None) -> Any:
        cls = type(node)
        if cls is GlobalVar:
            t = self.declarations.global_type(node, self._use_span(node, call))  # type: ignore[arg-type]
        elif cls is Constructor:
            t = self.state.ctor_types.get(node)  # type: ignore[call-overload]
            if t is None:
                t = ERROR
                name = node.name  # type: ignore[attr-defined]
                if name not in self.state.unknown_names:
                    self.state.unknown_names.add(name)
                    self.state.error(messages.unknown_constructor_value(name, self._use_span(node, call)))
        elif cls is Op:
            return self.operators.value_type(node)  # type: ignore[arg-type]
        else:
            t = self.memo[node]
        if cls is GlobalVar or cls is Var or cls is Constructor or (call is not None and call.op is node):
            # (a function value of any other kind is instantiated where it is
            # called, or where it meets a monomorphic function type: `Unifier.instantiate`)
            f = find(t)
            if type(f) is FuncType and f.type_params:
                return self.polymorphism.instantiate(f, type_args, call, node)
            if type_args and f is not ERROR:
                self.polymorphism.no_type_params(node, call, type_args)
        return t

    def _use_span(self, node: Expr, call: Call | None) -> Any:
        """Where a global or constructor is used, when the use is a call's callee."""
        if call is not None and call.op is node:
            return self.state.spans.callee_span(call)
        return None

    def _argument_types(self, node: Call, callee_t: Any) -> list[Any]:
        """The types of a call's arguments; an argument given for a parameter
        of polymorphic function type (`%g : fn<a>(a) -> a`) keeps its own
        polymorphic type, which must be as general (`@id` is)."""
        f = find(callee_t)
        params = f.arg_types if type(f) is FuncType and len(f.arg_types) == len(node.args) else ()
        out = []
        for i, arg in enumerate(node.args):
            p = find(params[i]) if params else None
            if type(p) is FuncType and p.type_params:
                t = (
                    self.memo.get(arg)
                    if type(arg) is Var
                    else self.declarations.global_type(arg)
                    if type(arg) is GlobalVar
                    else None
                )
                if t is not None and type(find(t)) is FuncType and find(t).type_params:
                    out.append(t)
                    continue
            out.append(self.use_type(arg))
        return out

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
        return self.constants.type_of(c)

    # ---- binders, handed to their parts ------------------------------------

    def visit_let(self, node: Let) -> Generator[Expr, Any, Any]:
        return self.binders.visit_let(node)

    def visit_function(self, node: Function) -> Generator[Expr, Any, Any]:
        return self.binders.visit_function(node)

    def visit_match(self, node: Match) -> Generator[Expr, Any, Any]:
        return self.matcher.visit_match(node)

    # ---- compound expressions ----------------------------------------------

    def visit_tuple(self, node: Tuple) -> Any:
        return TupleType(tuple(self.use_type(f) for f in node.fields))

    def visit_tuple_get_item(self, node: TupleGetItem) -> Any:
        st = self.state
        t = self.use_type(node.tuple_value)
        f = find(t)
        index = node.index
        if type(f) is TupleType:
            if index < len(f.fields):
                return f.fields[index]
            st.error(messages.no_such_field(len(f.fields), index, st.ty(f), node.span))
            return ERROR
        if f is ERROR:
            return ERROR
        if type(f) is Hole:
            out = st.fresh(origin=st.origin("result", node.span, messages.PROJECTION_RESULT_TEXT))
            site = Site(node, node.span, messages.projection_text(index), st.owner)
            st.solver.add(Constraint(projection, "TupleGetItem", [t], out, {"index": index}, site, st.level))
            return out
        st.error(messages.not_a_tuple(index, st.ty(f), st.spans.projected_span(node)))
        return ERROR

    def visit_call(self, node: Call) -> Any:
        st = self.state
        op = node.op
        if type(op) is Op:
            return self.operators.call(node, op)
        callee_t = self.use_type(op, node.type_args, node)
        arg_types = self._argument_types(node, callee_t)
        # TVM reads attributes on a call of a function value only when they
        # name their attributes type (`attrs_type_key="..."`) or come from
        # the metadata section.
        if node.attrs and node.attrs_ref is None and not any(k == "attrs_type_key" for k, _ in node.attrs):
            key = node.attrs[0][0]
            st.error(messages.attributes_on_function_call(op, key, st.spans.attr_span(node, key)))
        f = find(callee_t)
        if type(f) is FuncType:
            return self._apply(node, f, arg_types)
        if f is ERROR:
            return ERROR
        if type(f) is Hole:
            ret = st.fresh(origin=st.origin("result", node.span, messages.CALL_RESULT_TEXT))
            try:
                st.unifier.unify(f, FuncType(tuple(arg_types), ret))
            except UnifyError as err:
                st.error(st.explain.mismatch(node.span, f, FuncType(tuple(arg_types), ret), err))
                return ERROR
            st.solver.solve()
            return ret
        st.error(messages.not_a_function(op, st.ty(f), st.spans.callee_span(node)))
        return ERROR

    def _apply(self, node: Call, f: FuncType, arg_types: list[Any]) -> Any:
        st = self.state
        want, got = len(f.arg_types), len(arg_types)
        definition = self.declarations.definition(node.op)
        if want != got:
            diag = messages.call_arity(node.op, want, got, node.span)
            if definition is not None and definition.span is not None:
                diag.with_label(self.state.spans.signature_span(definition), messages.DEFINED_HERE)  # type: ignore[arg-type]
            st.error(diag)
            return ERROR  # which arguments were meant is unclear: do not guess
        for i in range(got):
            origin = None
            if definition is not None and i < len(definition.params):
                param = definition.params[i]
                origin = (spans.annotation_span(param), messages.parameter_declared_here(param.name))
            elif isinstance(node.op, Constructor) and node.op.span is not None:
                origin = (node.op.span, messages.defined_here(node.op.name))
            count = len(st.diags)
            ok = st.expect(
                arg_types[i],
                f.arg_types[i],
                lambda i=i: st.spans.arg_span(node, i),
                origin,
                message=messages.argument_mismatch(i, node.op),
            )
            if not ok and len(st.diags) > count:
                self._literal_help(st.diags[-1], node.args[i], f.arg_types[i])
        return f.ret_type

    def _literal_help(self, diag: Diagnostic, arg: Expr, expected: Any) -> None:
        """An integer literal where a float scalar is wanted, or the reverse: show the spelling."""
        want = resolve(expected)
        if not (isinstance(arg, Constant) and arg.is_scalar and isinstance(want, TensorType) and want.shape == ()):
            return
        dtype = want.dtype
        if not isinstance(dtype, str) or arg.dtype == dtype or arg.value is None or isinstance(arg.value, bool):
            return
        spelling = messages.literal_spelling(arg.value, dtype, self.state.dialect)
        if spelling is not None:
            span = getattr(arg, "span", None)
            # The literal as written (not a constant folded from elsewhere).
            diag.with_fix(spelling[0], span if span is not None and _is_number_text(span.text) else None, spelling[1])

    def visit_if(self, node: If) -> Any:
        st = self.state
        cond_t = self.use_type(node.cond)
        self._expect_condition(node, cond_t)
        then_t = self.use_type(node.then_branch)
        else_t = self.use_type(node.else_branch)
        st.expect(
            else_t,
            then_t,
            lambda: st.spans.branch_span(node, 1),
            (st.spans.branch_span(node, 0), messages.THEN_BRANCH_TYPE),
            message=messages.IF_BRANCHES_DIFFER,
            label=messages.HAS_TYPE_FOUND,
        )
        return then_t

    def _expect_condition(self, node: If, cond_t: Any) -> None:
        st = self.state
        f = resolve(cond_t)
        notes = []
        cond = node.cond
        if (
            isinstance(f, TensorType)
            and f.shape != ()
            and f.dtype == "bool"
            and isinstance(cond, Call)
            and isinstance(cond.op, Op)
        ):
            notes.append(messages.elementwise_condition(cond.infix or cond.op.name))
        diag_count = len(st.diags)
        ok = st.expect(
            cond_t,
            BOOL,
            lambda: st.spans.if_cond_span(node),
            message=messages.IF_CONDITION_NOT_BOOL,
            label=messages.HAS_TYPE_FOUND,
            notes=notes,
        )
        if not ok and notes and len(st.diags) > diag_count:
            diag = st.diags[-1]
            diag.with_help(messages.REDUCE_CONDITION)
            span = st.spans.if_cond_span(node)
            if span is not None and diag.span is span:
                # Which reduction is meant is the writer's choice: both, unsafe.
                from ..diagnostics import UNSAFE, Edit, Fix
                from ..ir.span import Span

                for reduce in ("all", "any"):
                    edits = [
                        Edit(Span(span.source, span.start, span.start), f"{reduce}("),
                        Edit(Span(span.source, span.end, span.end), ")"),
                    ]
                    diag.fixes.append(Fix(f"write `{reduce}({span.text})`", edits, UNSAFE))

    def visit_ref_create(self, node: RefCreate) -> Any:
        return RefType(self.use_type(node.value))

    def visit_ref_read(self, node: RefRead) -> Any:
        st = self.state
        t = self.use_type(node.ref)
        f = find(t)
        if isinstance(f, RefType):
            return f.value
        v = st.fresh()
        st.expect(t, RefType(v), node.span, message=messages.REF_READ_NEEDS_REF)
        return v

    def visit_ref_write(self, node: RefWrite) -> Any:
        st = self.state
        t = self.use_type(node.ref)
        v = self.use_type(node.value)
        f = find(t)
        if isinstance(f, RefType):
            span = node.value.span if node.span is not None and spans.inside(node.value, node.span) else node.span
            st.expect(v, f.value, span, message=messages.REF_WRITE_STORES)
        else:
            st.expect(t, RefType(v), node.span, message=messages.REF_WRITE_NEEDS_REF)
        return UNIT

    # ---- the end -----------------------------------------------------------

    def _finish(self, expr_type: Any) -> CheckResult:
        st = self.state
        op_types = self.operators.op_types
        meta_types = self.constants.meta_types
        types: dict[Expr, Any] = {}
        open_types: list[tuple[Expr, Any]] = []  # nodes whose type still has unknowns
        resolver = Resolver()
        final = resolver.final
        finals = resolver.finals  # (its cache, read here first: most nodes share a type)
        signatures: dict[tuple[Any, ...], FuncType] = {}  # see `_op_type`
        # The shared type of the operator nodes whose inputs and result are
        # these objects (before resolving), when it is shared (`_op_type`).
        shared: dict[tuple[int, ...], FuncType] = {}
        for node, t in self.memo.items():
            cls = type(node)
            if cls is GlobalVar:
                types[node] = resolve(self.declarations.global_type(node))  # type: ignore[arg-type]
            elif cls is Constructor:
                ct = st.ctor_types.get(node)  # type: ignore[call-overload]
                if ct is not None:
                    types[node] = ct
            elif cls is Op:
                sig = op_types.get(node)  # type: ignore[call-overload]
                if sig is not None:
                    # (what the unknowns of `sig` stand for lives as long as they do)
                    key = (*map(id, map(find, sig[0])), id(find(sig[1])))
                    ft = shared.get(key)
                    if ft is None:
                        ft, is_shared = _op_type(signatures, tuple(final(a)[0] for a in sig[0]), final(sig[1])[0])
                        if is_shared:
                            shared[key] = ft
                    types[node] = ft
            elif t is not None:
                if type(t) is Hole:
                    t = find(t)
                hit = finals.get(id(t))
                rt, open_ = (hit[1], hit[2]) if hit is not None and hit[0] is t else final(t)
                types[node] = rt
                if open_:
                    open_types.append((node, rt))
        self.unresolved.report(open_types)
        return CheckResult(
            module=st.module,
            types=types,
            global_types={gv: resolve(t) for gv, t in st.global_types.items()},
            type_args={call: tuple(resolve(a) for a in args) for call, args in st.type_args.items()},
            constructor_types=dict(st.ctor_types),
            meta_types={i: resolve(t) for i, t in meta_types.items()},
            expr_type=resolve(expr_type) if expr_type is not None else None,
            diagnostics=st.diags,
            dialect=st.dialect,
            schemes=st.schemes,
            type_data=st.type_data,
            functions={gv.name: f for gv, f in st.module.functions.items()},
        )


def _op_type(signatures: dict[tuple[Any, ...], FuncType], args: tuple[Any, ...], ret: Any) -> tuple[FuncType, bool]:
    """The function type of an operator node, and whether it is shared. A
    model calls an operator on the same tensor types thousands of times:
    equal signatures of known tensors without spans share one `FuncType`
    (types are immutable)."""
    if not all(known_tensor(t) for t in (*args, ret)):
        return FuncType(args, ret), False
    key = (args, ret)
    found = signatures.get(key)
    if found is None:
        found = signatures[key] = FuncType(args, ret)
    return found, True


def _is_number_text(text: str) -> bool:
    """Whether `text` is one number literal (`2`, `-1.5f64`, `3i64`)."""
    import re

    return re.fullmatch(r"-?\d+(\.\d*)?([eE][+-]?\d+)?([fiu]\d*)?", text.strip()) is not None
