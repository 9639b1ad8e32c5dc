"""What every part of the checker shares: the module, the solver, the
diagnostics, the tables of what the module defines, and the local scope.

`CheckState` is passed explicitly to each part (`Checker` in `infer.py`
builds them); a part keeps what only it uses to itself. `owner` is the
definition being checked (a global, the module's expression, a data type):
a diagnostic counts against it, and an unknown made while checking it
belongs to it, so that an unknown of a definition with an error is not
reported again as unresolved.
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from ..diagnostics import Diagnostic
from ..ir.expr import Call, Constructor, Expr, Function, GlobalVar
from ..ir.module import Module
from ..ir.span import Span
from ..ir.ty import FuncType, GlobalTypeVar, Kind
from . import messages, spans
from .explain import Explainer
from .kinds import KindChecker
from .origin import RANK, Origin
from .constraint import Constraint, RelationError
from .solver import Solver
from .types import Hole
from .unify import UnifyError

if TYPE_CHECKING:
    from ..ir.adt import TypeData
    from .polymorphism import Template
    from .result import CheckResult

# A place to report at: a span, or a function that finds it (only when needed).
Where = Any
# The type of one use of an expression (`Checker.use_type`), which parts call back.
TypeOf = Callable[[Expr], Any]
# A signature written in full: parameter types, result, `where` relations (printed and as templates).
Signature = tuple[list[Any], Any, tuple[Any, ...], list["Template"]]


class CheckState:
    """The checker's shared state; see the module docstring."""

    def __init__(self, module: Module, prelude: CheckResult | None, memo: dict[Expr, Any]) -> None:
        self.module = module
        self.dialect = "tvm" if module.version else "docs"
        text = module.source.text if module.source is not None else ""
        self.explain = Explainer(self.dialect, lambda: scalar_style(text))
        self.spans = spans.Locator(module.positions)
        self.memo = memo  # the type of each node visited, shared with the traversal
        self.diags: list[Diagnostic] = []
        self.solver = Solver(self._relation_error)
        self.unifier = self.solver.unifier
        self.level = 0  # unknowns made above the level of a `let` or global may be generalized
        self.owner: Any = None
        self.error_owners: set[int] = set()
        # What the module (and the prelude) defines.
        self.global_types: dict[GlobalVar, Any] = {}
        self.signatures: dict[Function, Signature] = {}
        self.fn_defs: dict[Any, Function] = {}  # a function's node, or the `let` variable bound to it: the function
        self.type_args: dict[Call, tuple[Any, ...]] = {}
        # id(polymorphic FuncType) -> (it, its relation templates, hidden type variables)
        self.schemes: dict[int, tuple[FuncType, list[Template], tuple[Any, ...]]] = {}
        self.ctor_types: dict[Constructor, FuncType] = {}
        self.type_data: dict[GlobalTypeVar, TypeData] = {}
        self.prelude_functions: dict[str, Any] = {}
        self.prelude_globals: dict[str, Any] = {}
        self.unknown_names: set[str] = set()  # globals and constructors reported unknown
        if prelude is not None:
            self.prelude_globals = {gv.name: t for gv, t in prelude.global_types.items()}
            self.schemes.update(prelude.schemes)
            self.ctor_types.update(prelude.constructor_types)
            self.type_data.update(prelude.type_data)
            self.prelude_functions = prelude.functions
        self.kinds = KindChecker(self.type_data.get, self.dialect)
        self.explain.type_data = self.type_data.get
        # The local scope, for "did you mean `%x`?": name -> how many binders are open.
        self.locals: dict[str, int] = {}
        self.typo_names: set[str] = set()  # `x` written in a pattern where `%x` was meant

    # ---- reporting ---------------------------------------------------------

    def error(self, diag: Diagnostic) -> None:
        self.diags.append(diag)
        if diag.is_error:
            self.error_owners.add(id(self.owner))

    def error_in(self, owner: Any, diag: Diagnostic) -> None:
        """Report `diag` against `owner` rather than the definition being checked."""
        saved = self.owner
        self.owner = owner
        self.error(diag)
        self.owner = saved

    def _relation_error(self, c: Constraint, exc: RelationError) -> None:
        site = c.site
        span = site.span
        if exc.arg is not None and isinstance(site.call, Call) and exc.arg < len(site.call.args):
            span = self.spans.arg_span(site.call, exc.arg)
        diag = self.explain.relation_failure(span, exc)
        if exc.arg is not None and site.span is not None and span is not site.span and site.what:
            diag.with_label(site.span, messages.in_this_call_of(site.what))
        self.error_in(site.owner, diag)

    def expect(
        self,
        found: Any,
        expected: Any,
        span: Where,
        origin: tuple[Span | None, str] | None = None,
        message: str = "",
        label: str = "",
        notes: list[str] | None = None,
    ) -> bool:
        """Unify; on failure report found-vs-expected at `span` (a Span or a thunk)."""
        solver = self.solver
        saved = solver.site
        solver.site = (span, self.owner)
        try:
            self.unifier.unify(expected, found)
        except UnifyError as err:
            where = span() if callable(span) else span
            self.error(self.explain.mismatch(where, expected, found, err, message, label, origin, notes))
            return False
        finally:
            solver.site = saved
            if solver.queue:
                solver.solve()
        return True

    # ---- unknowns ----------------------------------------------------------

    def fresh(self, kind: Kind = Kind.TYPE, origin: Origin | None = None) -> Hole:
        if origin is None:
            origin = Origin("result", None, messages.THIS_EXPRESSION, self.owner, 0)
        return Hole(kind, self.level, origin)

    def origin(self, kind: str, span: Span | None, text: str) -> Origin:
        return Origin(kind, span, text, self.owner, RANK[kind])

    def ty(self, t: Any) -> str:
        return self.explain.ty(t)

    # ---- local names ---------------------------------------------------------

    def bind_name(self, name: str) -> None:
        self.locals[name] = self.locals.get(name, 0) + 1

    def unbind_name(self, name: str) -> None:
        n = self.locals.get(name, 0) - 1
        if n > 0:
            self.locals[name] = n
        else:
            self.locals.pop(name, None)


_DTYPE = r"(?:(?:u?int|float|bfloat)(?:8|16|32|64)|bool)\b"
_LONG_SCALAR = re.compile(r"Tensor\s*\[\s*\(\s*\)\s*,")
# A bare dtype written as a type: `%x : int32`, `-> float32`, `: (int32, ...`,
# `List[int32]` (not Tensor's dtype, not an attribute's string).
_SHORT_SCALAR = re.compile(r"(?:(?::|->)\s*\(?\s*|\b(?!Tensor\b)[A-Z]\w*\[\s*)" + _DTYPE)


def scalar_style(text: str) -> bool | None:
    """How a file writes scalar types, for its messages to write them alike:
    True if only as a dtype (`%x : int32`), False if only as
    `Tensor[(), int32]`, None if both or neither (the dialect decides)."""
    long = _LONG_SCALAR.search(text) is not None
    short = _SHORT_SCALAR.search(text) is not None
    if long == short:
        return None
    return short
