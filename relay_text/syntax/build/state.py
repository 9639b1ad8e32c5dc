"""The state of one parse, shared by every layer of the builder.

`BuildState` holds everything the callbacks of one file read and write
(scopes, the module being built, the diagnostics, the positions of what
is written where) and the helpers every layer uses: spans, errors,
"did you mean". One builder reads one file: nothing is reset between
files and nothing is shared between parses, so threads parse at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...diagnostics import WARNING, Diagnostic, codes
from ...diagnostics.codes import Code
from ...ir.adt import TypeData
from ...ir.expr import Constant, Constructor, Expr, GlobalVar, MetaRef, Var
from ...ir.module import Module
from ...ir.positions import Positions
from ...ir.span import Source, Span
from ...ir.ty import GlobalTypeVar, TypeVar
from ...text.suggest import close_names
from ..literals import LiteralError, check_digits
from ..scopes import Scopes
from .raw import Use, int_value

SUPPORTED_VERSIONS = ("0.0.5", "0.0.4")

# How many name errors of a file get a "did you mean" (see `BuildState.suggest`).
SUGGESTED_SITES = 100


class Env:
    """Names defined outside the file being parsed (the Prelude)."""

    def __init__(
        self,
        globals: set[str] | None = None,
        constructors: dict[str, Constructor] | None = None,
        adts: dict[str, GlobalTypeVar] | None = None,
        type_defs: dict[str, TypeData] | None = None,
    ) -> None:
        self.globals = globals or set()
        self.constructors = constructors or {}
        self.adts = adts or {}
        # The definitions behind `adts`, by name: a file's identical
        # definition denotes the same type (see `parser.parse_source`).
        self.type_defs = type_defs or {}


class BuildState:
    """The per-file state of the builder and the helpers of every layer."""

    __slots__ = (
        "_free_var_ids",
        "_in_def",
        "_literal_errors",
        "_meta_args",
        "_numbers",
        "_placeholders",
        "_suggested",
        "adts",
        "constructors",
        "defined_ctor_names",
        "defining_adt",
        "diags",
        "env",
        "free_vars",
        "global_refs",
        "globals",
        "graph_defs",
        "graph_nodes",
        "graph_uses",
        "meta_attr_calls",
        "meta_constants",
        "meta_values",
        "module",
        "pending_lets",
        "positions",
        "same_adts",
        "same_headers",
        "self_uses",
        "source",
        "types",
        "unbound",
        "values",
        "version",
    )

    def __init__(
        self,
        source: Source,
        env: Env,
        constructors: dict[str, Constructor],
        adts: dict[str, GlobalTypeVar],
        version: str | None,
        same_adts: frozenset[str] = frozenset(),
    ) -> None:
        self.source = source
        self.env = env
        # Data types the file defines exactly as `env` does: uses of their
        # names (and constructors) denote `env`'s; the definition keeps its own.
        self.same_adts = same_adts
        self.diags: list[Diagnostic] = []
        self.values: Scopes[Expr] = Scopes()
        self.types: Scopes[TypeVar] = Scopes()
        self.pending_lets: list[tuple[Var, int]] = []  # (var, end of its `=`)
        # `let %f = fn ...`: the uses of %f inside its own value, by id(var),
        # and where the `fn` starts (the value must be that function).
        self.self_uses: dict[int, tuple[int, list[Span]]] = {}
        self.graph_uses: dict[int, int] = {}  # id(node) -> number of uses by name
        self.graph_defs: dict[str, int] = {}  # name -> where its `%name` of the binding starts
        # Every `%n` of the file, first binding first: a graph binding is not
        # scoped (one table per file, in both dialects, as TVM's parser keeps)
        self.graph_nodes: dict[str, Expr] = {}
        self._placeholders: set[int] = set()  # ids of the variables made for unbound names
        self.unbound: list[tuple[str, Span, list[str]]] = []
        self.globals: dict[str, GlobalVar] = {}
        self.global_refs: list[tuple[str, Span]] = []
        self.constructors = constructors
        self.adts = adts
        self.version = version
        self.module = Module(source=source, version=version)
        self.free_vars: list[Var] = []
        self._free_var_ids: set[int] = set()
        self._in_def: GlobalVar | None = None  # the `def` being read
        self.defined_ctor_names: set[str] = set()
        self._literal_errors: dict[int, Diagnostic] = {}
        self._meta_args: dict[int, tuple[MetaRef, Diagnostic]] = {}
        self.meta_attr_calls: list[Any] = []
        self.meta_constants: list[Constant] = []  # `meta[relay.Constant][i]`, for their `/* ty=... */` comments
        self.meta_values: list[tuple[MetaRef, Span]] = []  # `key=meta[...][i]` attribute values
        self.defining_adt: GlobalTypeVar = GlobalTypeVar("")
        self.same_headers: dict[GlobalTypeVar, GlobalTypeVar] = {}  # own header -> env's, for `same_adts`
        self.positions = Positions(source)
        self._suggested = 0
        self._numbers: list[tuple[str, Any]] = []  # the numbers of the attribute value being read

    def suggest(self, name: str, candidates: Iterable[str]) -> list[str]:
        """The names close to `name`, for an error's "did you mean". Each
        look goes through all the candidates (every name in scope): only the
        first SUGGESTED_SITES errors of a file get one, so that a file with
        thousands of them is still read in linear time."""
        if self._suggested >= SUGGESTED_SITES:
            return []
        self._suggested += 1
        return close_names(name, candidates)

    def span(self, start: int, end: int) -> Span:
        return Span(self.source, start, end)

    def graph_def(self, name: str) -> Span | None:
        """Where the graph binding of `%name` writes its name, if there is one."""
        start = self.graph_defs.get(name)
        return None if start is None else Span(self.source, start, start + 1 + len(name))

    def _note(self, parent: Any, raws: Any, first: int = 0) -> None:
        """Remember where the shared children of `parent` are written.

        `raws` are the children as parsed, in `visitor.children` order from
        index `first`; uses (`Use`) of shared nodes and blocks are recorded
        in `positions`, other children carry their own span.
        """
        positions = self.positions
        uses = positions.uses
        for i, raw in enumerate(raws, first):
            if type(raw) is Use:
                key = (id(parent), i)
                name = raw.name
                at = (raw.start, raw.end)
                # (a bare `%x` is written where its name is: one tuple for both)
                uses[key] = name if name is not None and name == at else at
                if raw.inner is not None:
                    positions.results[key] = raw.inner
                if name is not None:
                    positions.names[key] = name
                if raw.pair is not None:
                    positions.brackets[key] = raw.pair

    def _binder(self, var: Any, start: int, name_end: int, ty: Any) -> None:
        """Remember where a declaration is written with its annotation."""
        end = self._span(ty).end if ty is not None else name_end
        self.positions.binders[id(var)] = (start, max(end, name_end))

    def error(self, code: Code, message: str, span: Span | None, label: str = "") -> Diagnostic:
        diag = Diagnostic(code, message, span, label=label)
        self.diags.append(diag)
        return diag

    def _int_tok(self, tok: Any) -> int:
        """The value of an integer token (a dimension, an index); 0 after a
        `resource-limit` error when it has too many digits."""
        text = tok.value
        if len(text) < 10 and text.isdigit() and text.isascii():  # (nothing to check: no span needed)
            return int(text)
        return self._int_checked(text, self.span(tok.start_pos, tok.end_pos))

    def _int_checked(self, text: str, span: Span) -> int:
        if len(text) < 10 and text.isdigit() and text.isascii():  # (digits only, short: nothing to check)
            return int(text)
        try:
            check_digits(text)
        except LiteralError as exc:
            self.error(codes.RESOURCE_LIMIT, str(exc), span, "too long")
            return 0
        return int_value(text)

    def warn(self, code: Code, message: str, span: Span | None, label: str = "") -> Diagnostic:
        diag = Diagnostic(code, message, span, severity=WARNING, label=label)
        self.diags.append(diag)
        return diag

    def global_var(self, name: str) -> GlobalVar:
        gv = self.globals.get(name)
        if gv is None:
            gv = self.globals[name] = GlobalVar(name)
        return gv

    def _span(self, x: Any) -> Span:
        """Where an expression (or a use of a shared node) is written."""
        if type(x) is Use:
            return self.span(x.start, x.end)
        span = getattr(x, "span", None)
        return span if span is not None else self.span(0, 0)

    def _end(self, x: Any) -> int:
        return self._span(x).end
