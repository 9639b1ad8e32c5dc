"""The relation solver: a queue of constraints run to a fixpoint.

Each operator call (and each `where` relation, and each dimension equation
that could not be decided at once) is a `Constraint`: a relation function
over argument types and a result type. A constraint is run as soon as it is
added; if it needs more information it is put on the *trigger list* of
every unknown in its arguments and result. Whenever one of those unknowns
is refined (solved, merged with another, or solved to a type that contains
further unknowns, which then inherit the trigger list) the constraint goes
back on the queue. `solve` drains the queue; when it is empty, every
constraint has either succeeded, failed with a diagnostic, or is blocked
waiting for information that will not come (reported as `unresolved-type`
by the checker).

Relations see their arguments through `Rel`, the interface documented in
`relay_text.ops.relations`.
"""

from __future__ import annotations

from collections import deque
from typing import Any, NoReturn
from collections.abc import Callable

from .. import limits
from ..diagnostics import codes
from ..ir.ty import Kind, TensorType, TupleType, TypeCall
from ..ops.relations import OUT
from . import dims, operator_messages
from .types import ERROR, Hole, find, holes, resolve, static_tensor
from .constraint import Constraint, RelationError, Site, _GiveUp
from .relation_memo import Remembered, relation_key, remembered, unknown_inputs
from .unify import Unifier, UnifyError


UNKNOWN_KEY: Any = object()  # `Solver.add`: the constraint's memo key is not known yet


class Solver:
    """Owns the unifier, the queue and the constraints still open."""

    def __init__(self, on_error: Callable[[Constraint, RelationError], None]) -> None:
        self.unifier = Unifier(self.wake, self.defer)
        self.queue: deque[Constraint] = deque()
        self.constraints: list[Constraint] = []
        self.on_error = on_error
        self.running = False
        self.level = 0  # the generalization level new constraints get
        self.runs = 0
        self.results: dict[tuple[Any, ...], Any] = {}  # what relations gave for known inputs (`relation_memo`)
        # The ADT a name denotes where the program is checked (the file's own, else the Prelude's).
        self.adt_named: Callable[[str], Any] = lambda name: None
        # Where the unification under way comes from (a span, or a function
        # giving one, and the definition): a dimension equation it defers is
        # reported there.
        self.site: tuple[Any, Any] = (None, None)
        self.dim_equations: list[Constraint] = []
        # Relations a `where` clause states of the type parameters of the
        # function being checked: (name, inputs, result). Inside its body a
        # relation of that name over the same inputs holds with that result.
        self.assumptions: list[tuple[str, list[Any], Any]] = []

    # ---- adding and waking -------------------------------------------------

    def add(self, c: Constraint, key: Any = UNKNOWN_KEY) -> None:
        """Run a constraint now; if it needs more information, let its unknowns wake it.
        `key` is its `relation_key` (None: not to remember) when the caller has it."""
        if self.assumptions and self._assumed(c):
            return
        if not self.running:
            self.running = True
            try:
                self._run(c, key)
            finally:
                self.running = False
            if not c.done:
                self._register(c)
            if self.queue:
                self.solve()
            return
        self._register(c)
        c.queued = True
        self.queue.append(c)

    def _assumed(self, c: Constraint) -> bool:
        """`c` is a relation the enclosing signature states (`add(%x, %y)` in
        `def @f<t1, t2, t3>(%x : t1, %y : t2) -> t3 where Broadcast`): its
        result is the stated one."""
        if c.attrs:
            return False
        name = getattr(c.fn, "relation_name", c.name)
        args = [resolve(a) for a in c.args]
        for rname, rargs, rout in reversed(self.assumptions):
            if (
                rname != name
                or len(rargs) != len(args)
                or not all(a is b or a == b for a, b in zip(args, rargs, strict=False))
            ):
                continue
            c.done = True
            try:
                self.unifier.unify(rout, c.out)
            except UnifyError as exc:
                c.failed = True
                message = (
                    f"`{c.site.display or c.name}` gives `{{found}}` here, "
                    f"but the `where {name}` of this function says `{{expected}}`"
                )
                self.on_error(
                    c,
                    RelationError(
                        codes.TYPE_MISMATCH, message, unify_error=exc, expected=resolve(rout), found=resolve(c.out)
                    ),
                )
            if self.queue and not self.running:
                self.solve()
            return True
        return False

    def _register(self, c: Constraint) -> None:
        self.constraints.append(c)
        for t in c.types():
            for h in holes(t):
                if h.triggers is None:
                    h.triggers = [c]
                else:
                    h.triggers.append(c)

    def wake(self, triggers: list[Constraint]) -> None:
        queue = self.queue
        for c in triggers:
            if not c.done and not c.queued:
                c.queued = True
                queue.append(c)

    def defer(self, a: Any, b: Any) -> None:
        """A dimension equation that must wait for its unknowns."""
        span, owner = self.site
        if callable(span):
            span = span()
        c = Constraint(_dim_equation, "DimEq", [a], b, {}, Site(None, span, "a dimension", owner), self.level)
        self.add(c)
        if not c.done:
            self.dim_equations.append(c)

    def open_dim_equations(self) -> list[Constraint]:
        """The dimension equations still waiting."""
        self.dim_equations = [c for c in self.dim_equations if not c.done]
        return list(self.dim_equations)

    # ---- solving -----------------------------------------------------------

    def solve(self) -> None:
        """Run queued constraints until the queue is empty."""
        if self.running:
            return
        self.running = True
        queue = self.queue
        try:
            while queue:
                c = queue.popleft()
                c.queued = False
                if not c.done:
                    self._run(c)
        finally:
            self.running = False

    def _run(self, c: Constraint, key: Any = UNKNOWN_KEY) -> None:
        self.runs += 1
        unknowns: list[int] = []
        if key is UNKNOWN_KEY:
            key = None
            if c.fn is not _dim_equation and type(find(c.out)) is Hole:
                key = relation_key(c.fn, c.name, c.args, c.attrs)
        if key is not None:
            known = self.results.get(key)
            if known is not None:  # (see relation_memo)
                self.recall(known, c.args, c.out)
                c.done = True
                return
            unknowns = unknown_inputs(c.args)
        saved = self.site
        self.site = (c.site.span, c.site.owner)
        try:
            if c.fn(Rel(self, c)):
                c.done = True
                if key is not None:
                    kept = remembered(c.args, c.out, unknowns)
                    if kept is not None:
                        self.results[key] = kept
        except _GiveUp:
            c.done = True
            self._poison(c)
        except RelationError as exc:
            c.done = True
            c.failed = True
            self.on_error(c, exc)
            self._poison(c)
        finally:
            self.site = saved

    def recall(self, known: Remembered, args: list[Any], out: Any) -> None:
        """Give a relation's remembered outcome to another call of it (`relation_memo`):
        its unknown inputs as the relation refined them, then its result
        (`out`, or None where the caller takes the result as it is)."""
        bind = self.unifier.bind
        for i, t in known[1]:
            bind(find(args[i]), t)
        if out is not None:
            self.unifier.unify(out, known[0])

    def _poison(self, c: Constraint) -> None:
        out = find(c.out)
        if type(out) is Hole:
            self.unifier.bind(out, ERROR)

    def default_pass(self) -> None:
        """At the fixpoint, let blocked relations commit to a likely answer, then solve again.

        A relation function may carry a `default(r)` function, run only here:
        it refines unknowns that nothing else can determine (a constant without
        metadata takes the shape of the operand it is combined with) and
        returns True if it did.
        """
        self.solve()
        progress = True
        while progress:
            progress = False
            for c in self.blocked():
                default = getattr(c.fn, "default", None)
                if default is None or c.done:
                    continue
                try:
                    if default(Rel(self, c)):
                        progress = True
                except (_GiveUp, RelationError):
                    continue
                self.solve()

    def blocked(self) -> list[Constraint]:
        """Constraints that neither succeeded nor failed."""
        self.constraints = [c for c in self.constraints if not c.done]
        return list(self.constraints)

    def detach(self, c: Constraint) -> None:
        """Stop solving `c` here (it moved into a generalized type)."""
        c.done = True


def _dim_equation(r: Rel) -> bool:
    while True:
        status, hole, value = dims.solve(r.c.args[0], r.c.out)
        if status == dims.WAIT:
            return False
        if status == dims.FAILED:
            a, b = resolve(r.c.args[0]), resolve(r.c.out)
            raise RelationError(
                codes.TYPE_MISMATCH,
                "mismatched dimensions: `{expected}` and `{found}` cannot be equal",
                unify_error=UnifyError(a, b, "dim"),
                expected=a,
                found=b,
            )
        if hole is None:
            return True
        r.solver.unifier.bind(hole, value)


def _dim_guess(r: Rel) -> bool:
    """When solving is stuck: pair the unknowns of two dimensions written
    alike (`a * b` and `m * n`: a = m, b = n)."""
    pairs = dims.match_structure(r.c.args[0], r.c.out)
    for hole, value in pairs:
        if type(find(hole)) is Hole:
            r.solver.unifier.bind(find(hole), value)
    return bool(pairs)


_dim_equation.default = _dim_guess  # type: ignore[attr-defined]


def is_dim_equation(c: Constraint) -> bool:
    return c.fn is _dim_equation


class Rel:
    """What a relation function sees of one constraint (see ops.relations)."""

    __slots__ = ("arity", "attrs", "c", "op", "solver")

    def __init__(self, solver: Solver, c: Constraint) -> None:
        self.solver = solver
        self.c = c
        self.attrs = c.attrs
        self.op = c.site.display or c.name
        self.arity = len(c.args)

    # ---- reading -----------------------------------------------------------

    def arg(self, i: int) -> Any:
        t = resolve(self.c.args[i] if i != OUT else self.c.out)
        if t is ERROR:
            raise _GiveUp
        return t

    def result(self) -> Any:
        return resolve(self.c.out)

    def tensor(self, i: int) -> TensorType:
        raw = self.c.args[i] if i != OUT else self.c.out
        t = find(raw)
        if type(t) is Hole:
            level = t.level
            fresh = TensorType(Hole(Kind.SHAPE, level, t.origin), Hole(Kind.BASE_TYPE, level, t.origin))
            self.solver.unifier.bind(t, fresh)
            return fresh
        if type(t) is TensorType:
            if static_tensor(t):
                return t  # (known already: what `resolve` gives back)
            resolved: TensorType = resolve(t)
            return resolved
        if t is ERROR:
            raise _GiveUp
        resolved = resolve(t)
        if i == OUT:
            raise RelationError(
                codes.TYPE_MISMATCH,
                operator_messages.produces_a_tensor(self.op),
                unify_error=UnifyError(resolved, TensorType(Hole(Kind.SHAPE), Hole(Kind.BASE_TYPE))),
            )
        raise RelationError(
            codes.TYPE_MISMATCH,
            operator_messages.expects_a_tensor(self.op, _describe(resolved)),
            arg=i,
            label="expected a tensor",
            unify_error=UnifyError(TensorType(Hole(Kind.SHAPE), Hole(Kind.BASE_TYPE)), resolved),
        )

    def tensor_of(self, t: Any, arg: int | None = None, what: str = "this value") -> TensorType:
        """A type nested in an input (a tuple field, say) as a TensorType, like `tensor`."""
        f = find(t)
        if type(f) is Hole:
            fresh = TensorType(Hole(Kind.SHAPE, f.level, f.origin), Hole(Kind.BASE_TYPE, f.level, f.origin))
            self.solver.unifier.bind(f, fresh)
            return fresh
        if type(f) is TensorType:
            resolved: TensorType = resolve(f)
            return resolved
        if f is ERROR:
            raise _GiveUp
        resolved = resolve(f)
        raise RelationError(
            codes.TYPE_MISMATCH,
            operator_messages.expects_a_tensor(self.op, _describe(resolved), what),
            arg=arg,
            unify_error=UnifyError(TensorType(Hole(Kind.SHAPE), Hole(Kind.BASE_TYPE)), resolved),
        )

    # ---- refining ----------------------------------------------------------

    def unify(self, a: Any, b: Any, arg: int | None = None, message: str = "") -> None:
        """Make `a` (expected) and `b` (found) equal."""
        try:
            self.solver.unifier.unify(a, b)
        except UnifyError as exc:
            raise RelationError(
                codes.TYPE_MISMATCH, message, arg=arg, unify_error=exc, expected=resolve(a), found=resolve(b)
            ) from None

    def refine(self, i: int, t: Any) -> None:
        """Make input i equal to `t` (backward inference from attributes or the result)."""
        if _negative_dimension(t):
            self.fail(
                codes.SHAPE_MISMATCH,
                operator_messages.negative_input_dimension(self.op, _dt(t)),
                arg=i,
                notes=[operator_messages.CHECK_THE_ATTRIBUTES],
            )
        try:
            self.solver.unifier.unify(t, self.c.args[i])
        except UnifyError as exc:
            raise RelationError(
                codes.TYPE_MISMATCH,
                operator_messages.input_mismatch(self.op),
                arg=i,
                unify_error=exc,
                expected=resolve(t),
                found=resolve(self.c.args[i]),
                label="this has type `{found}`",
            ) from None

    def set_result(self, t: Any) -> None:
        if type(t) is TensorType and type(t.shape) is tuple and limits.written_shape_problem(t.shape) is not None:
            # (an operator asked for 100 new axes, or a 2^50-element `zeros`)
            message = limits.result_rank_problem(self.op, len(t.shape)) or operator_messages.result_elements_over_limit(
                self.op, limits.elements(t.shape), limits.MAX_STATIC_ELEMENTS
            )
            self.fail(codes.RESOURCE_LIMIT, message, label="too large")
        if _negative_dimension(t):
            self.fail(
                codes.SHAPE_MISMATCH,
                operator_messages.negative_result_dimension(self.op, _dt(t)),
                notes=[operator_messages.CHECK_THE_ATTRIBUTES],
            )
        try:
            self.solver.unifier.unify(self.c.out, t)
        except UnifyError as exc:
            raise RelationError(
                codes.TYPE_MISMATCH,
                operator_messages.result_mismatch(self.op),
                unify_error=exc,
                expected=resolve(self.c.out),
                found=resolve(t),
                label="this produces `{found}`",
            ) from None

    def unify_dtypes(self, i: int, j: int) -> None:
        """Inputs i and j must have one dtype."""
        a, b = self.tensor(i), self.tensor(j)
        try:
            self.solver.unifier.unify(a.dtype, b.dtype)
        except UnifyError:
            raise RelationError(
                codes.TYPE_MISMATCH,
                operator_messages.operand_dtypes(self.op, _dt(a.dtype), _dt(b.dtype)),
                arg=j,
                label=operator_messages.this_is(_dt(b.dtype)),
                notes=[operator_messages.first_operand_dtype(_dt(a.dtype))],
            ) from None

    def from_metadata(self, i: int) -> bool:
        """Whether every unknown part of input i comes from a constant lacking metadata."""
        hs = holes(self.c.args[i] if i != OUT else self.c.out)
        return bool(hs) and all(getattr(h.origin, "kind", None) == "meta" for h in hs)

    def fail(
        self, code: str, message: str, arg: int | None = None, notes: tuple[str, ...] | list[str] = (), label: str = ""
    ) -> NoReturn:
        raise RelationError(code, message, arg=arg, notes=notes, label=label)

    def adt(self, name: str) -> TypeCall:
        """The data type `name` (without arguments) as the program sees it,
        e.g. `Storage` for the memory operators; fails when it is not defined."""
        gtv = self.solver.adt_named(name)
        if gtv is None:
            self.fail(
                codes.UNKNOWN_TYPE,
                operator_messages.undefined_core_type(self.op, name),
                notes=[operator_messages.core_type_note(name)],
            )
        return TypeCall(gtv, ())

    # ---- fresh unknowns ----------------------------------------------------

    def fresh_shape(self) -> Hole:
        return Hole(Kind.SHAPE, self.c.level)

    def fresh_dim(self, like: Any = None) -> Hole:
        """A new unknown dimension; `like` (an unknown) lends it its origin, so
        that it is reported as part of what that unknown stands for."""
        return Hole(Kind.SHAPE_VAR, self.c.level, getattr(like, "origin", None))

    def fresh_dtype(self) -> Hole:
        return Hole(Kind.BASE_TYPE, self.c.level)

    def fresh(self) -> Hole:
        return Hole(Kind.TYPE, self.c.level)


def _dt(d: Any) -> str:
    from ..text.type_text import type_text

    return type_text(d)


def _negative_dimension(t: Any) -> bool:
    """Whether a type a relation computed has a tensor with a dimension below 0."""
    if type(t) is TensorType:
        return type(t.shape) is tuple and any(type(d) is int and d < 0 for d in t.shape)
    return type(t) is TupleType and any(_negative_dimension(f) for f in t.fields)


def _describe(t: Any) -> str:
    from ..ir.ty import FuncType, TupleType, TypeCall

    if isinstance(t, TupleType):
        return "tuple"
    if isinstance(t, FuncType):
        return "function"
    if isinstance(t, TypeCall):
        return f"value of the data type `{t.func.name}`"
    return "value of another type"
