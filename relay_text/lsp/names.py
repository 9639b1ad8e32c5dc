"""Every name written in a document, and what it refers to.

The index pairs the document's name tokens (`%x`, `@f`, `Cons`, `List`,
`nn.conv2d`) with targets: a local variable (its binding `Var`), a graph
binding (`%0 = ...`, the node it names), a global, a constructor, a data
type, or an operator. Go to definition, find references, hover, completion
and semantic highlighting all read it.

Globals, constructors and data types are resolved by name, as the parser
does (the document's own definition first, then the Prelude's). Locals are
resolved through the checked module: a `Var` is one object shared by its
binding and every use, and `Module.positions` records where each use is
written, so a use resolves to the binding the parser chose even under
shadowing. What the positions do not record (a projection `%t.1`, a name in
parentheses) is resolved by scope: the innermost binding of that name whose
scope holds the use. A document that does not parse gets the same, by
scope alone, from its tokens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterable

from ..ir.expr import Constructor, Expr, Function, GlobalVar, Let, Match, TupleGetItem, Var
from ..ir.pattern import pattern_vars
from ..ir.span import Source, Span
from . import tokens as tk

# Target kinds.
VARIABLE = "variable"  # let-bound, pattern-bound or free variable
PARAMETER = "parameter"  # a function's parameter
BINDING = "binding"  # a graph binding `%0 = ...`
GLOBAL = "global"
CONSTRUCTOR = "constructor"
DATA = "data"  # an ADT name
OPERATOR = "operator"

LOCAL_KINDS = frozenset({VARIABLE, PARAMETER, BINDING})
_TOP_LEVEL = frozenset({"def", "data", "type", "extern", "free_var"})
_LOCAL_NAME = re.compile(r"%[A-Za-z0-9_]+(?:[./][A-Za-z0-9_]+)*")


@dataclass(eq=False, slots=True)
class Target:
    """What a name refers to."""

    kind: str
    name: str  # as written: `%x`, `@f`, `Cons`, `List`, `nn.conv2d`
    node: Any = None  # Var, the bound node, GlobalVar, Constructor, GlobalTypeVar, OpDef
    definition: Span | None = None  # where it is defined (maybe in the Prelude)
    scope: tuple[int, int] | None = None  # locals: where the name is visible
    prelude: bool = False  # defined by the Prelude
    detail: Any = None  # data types: their TypeData; globals: their Function


@dataclass(slots=True)
class Occurrence:
    start: int
    end: int
    target: Target
    is_def: bool = False


@dataclass
class Tables:
    """The global names a document can use: its own first, then the Prelude's."""

    globals: dict[str, Target] = field(default_factory=dict)
    constructors: dict[str, Target] = field(default_factory=dict)
    datas: dict[str, Target] = field(default_factory=dict)


class NameIndex:
    """Occurrences of names in one document, sorted by position."""

    def __init__(
        self,
        source: Source,
        tokens: list[tk.Token],
        module: Any,
        prelude: Any,
        nodes: list[Expr] | None,
        holes: tuple[tuple[int, int], ...] = (),
    ) -> None:
        self.source = source
        self.tokens = tokens
        self.module = module
        self.holes = holes  # ranges the module leaves out: their names are read from the tokens
        self.occurrences: list[Occurrence] = []
        self.binders: list[Target] = []  # every local binding, for completion
        self.tables = _tables(source, module, prelude, tokens, holes)
        self._ops: dict[str, Target] = {}
        self._targets: dict[int, Target] = {}  # id(node) -> local target
        self._build(nodes)
        self.occurrences.sort(key=lambda o: o.start)
        self._starts = [o.start for o in self.occurrences]

    # ---- queries -----------------------------------------------------------

    def at(self, offset: int) -> Occurrence | None:
        """The occurrence under a cursor (on the name, or just after it)."""
        from bisect import bisect_right

        i = bisect_right(self._starts, offset) - 1
        if i >= 0 and self.occurrences[i].start <= offset <= self.occurrences[i].end:
            return self.occurrences[i]
        return None

    def references(self, target: Target) -> list[Occurrence]:
        return [o for o in self.occurrences if o.target is target]

    def locals_at(self, offset: int) -> list[Target]:
        """Local bindings visible at `offset`, innermost first, one per name."""
        seen: dict[str, Target] = {}
        visible = []
        for t in self.binders:
            if t.scope is None or not (t.scope[0] <= offset <= t.scope[1]):
                continue
            if t.definition is not None and t.definition.end > offset:
                continue  # bound after the cursor (or being typed)
            visible.append(t)
        visible.sort(key=lambda t: (-(t.scope[0] if t.scope else 0), -(t.definition.start if t.definition else 0)))
        for t in visible:
            seen.setdefault(t.name, t)
        return list(seen.values())

    # ---- building ----------------------------------------------------------

    def _add(self, start: int, end: int, target: Target, is_def: bool = False) -> None:
        self.occurrences.append(Occurrence(start, end, target, is_def))

    def _build(self, nodes: list[Expr] | None) -> None:
        toks = self.tokens
        resolved_locals: set[int] = set()  # token starts already resolved
        if self.module is not None and nodes is not None:
            resolved_locals = self._locals_from_module(nodes)
            if self.holes:
                before = len(self.occurrences)
                self._locals_from_tokens(self.holes)
                resolved_locals |= {o.start for o in self.occurrences[before:]}
        else:
            self._locals_from_tokens()
            resolved_locals = {o.start for o in self.occurrences}
        prev_sig: list[tk.Token] = []  # the last two significant tokens
        for i, tok in enumerate(toks):
            kind = tok.kind
            if kind == tk.LOCAL:
                if tok.start not in resolved_locals:
                    self._local_by_scope(tok)
            elif kind == tk.GLOBAL:
                self._global(tok)
            elif kind == tk.IDENT:
                self._ident(tok, prev_sig, toks, i)
            if kind != tk.COMMENT:
                prev_sig = [prev_sig[-1], tok] if prev_sig else [tok]

    def _global(self, tok: tk.Token) -> None:
        name = tok.text[1:]
        target = self.tables.globals.get(name)
        if target is None:
            target = self.tables.globals[name] = Target(GLOBAL, tok.text)
        d = target.definition
        self._add(tok.start, tok.end, target, d is not None and d.source is self.source and d.start == tok.start)

    def _ident(self, tok: tk.Token, prev_sig: list[tk.Token], toks: list[tk.Token], i: int) -> None:
        name = tok.text
        tables = self.tables
        target = tables.constructors.get(name)
        if target is None:
            target = tables.datas.get(name)
        if target is None:
            from ..ops import registry

            op = self._ops.get(name)
            if op is None:
                opdef = registry.get(name)
                if opdef is None:
                    return
                op = self._ops[name] = Target(OPERATOR, name, opdef)
            # `nn.relu` called, or passed as a value; not a type or attribute value
            self._add(tok.start, tok.end, op)
            return
        d = target.definition
        self._add(tok.start, tok.end, target, d is not None and d.source is self.source and d.start == tok.start)

    # ---- locals, from the checked module -----------------------------------

    def _locals_from_module(self, nodes: list[Expr]) -> set[int]:
        """Bindings from the IR, uses from `positions`; returns the token
        starts resolved."""
        module = self.module
        source = self.source
        text = source.text
        targets = self._targets
        binder_at: dict[int, Target] = {}

        def bind(var: Var, kind: str, scope: tuple[int, int] | None) -> None:
            span = var.span
            if span is None or span.source is not source or not var.name:
                return
            t = Target(kind, "%" + var.name, var, span, scope)
            targets[id(var)] = t
            binder_at[span.start] = t
            self.binders.append(t)
            self._add(span.start, span.end, t, True)

        whole = (0, len(text))
        for var in module.free_vars:
            bind(var, VARIABLE, whole)
        # Nodes whose expression starts at an offset (graph bindings name them).
        starting: dict[int, Any] = {}
        tgis: dict[int, TupleGetItem] = {}
        functions: list[Function] = []
        node: Any
        # Any: dispatched on type(node) kept in a local, which mypy does not narrow through
        for node in nodes:
            t = type(node)
            if t is Function:
                functions.append(node)
                scope = _range(node.span)
                for p in node.params:
                    bind(p, PARAMETER, scope)
            elif t is Let:
                if node.var.name:
                    bind(node.var, VARIABLE, _range(node.span))
                elif node.var.span is not None:  # an unused graph binding kept as `e;`
                    self._graph_def(node.var.span.start, node.var.span.end, node.value, binder_at)
            elif t is Match:
                for clause in node.clauses:
                    for v in pattern_vars(clause.pattern):
                        bind(v, VARIABLE, _range(clause.span) or _range(node.span))
            elif t is TupleGetItem:
                span = node.span
                if span is not None and span.source is source:
                    prev = tgis.get(span.start)
                    if prev is None or span.end > prev.span.end:  # type: ignore[union-attr]  # only nodes with a span are stored
                        tgis[span.start] = node
            if t not in (Var, GlobalVar, Constructor) and getattr(node, "span", None) is not None:
                span = node.span
                if span.source is source:
                    prev = starting.get(span.start)
                    if prev is None or span.end > prev.span.end:
                        starting[span.start] = node
        # Graph bindings: `%n = <expr>`, the node whose text starts after `=`.
        toks = self.tokens
        tops = _top_level_ranges(toks, len(text))
        for i, tok in enumerate(toks):
            if tok.kind != tk.LOCAL or tok.start in binder_at:
                continue
            j = _next_significant(toks, i)
            if j is None or toks[j].text != "=" or toks[j].kind != tk.PUNCT:
                continue
            k = _next_significant(toks, j)
            if k is None:
                continue
            node = starting.get(toks[k].start)
            while node is None and toks[k].text == "(" and toks[k].kind == tk.PUNCT:  # `%9 = (let ...)`
                k2 = _next_significant(toks, k)
                if k2 is None:
                    break
                k = k2
                node = starting.get(toks[k].start)
            if node is None:
                continue
            alias = targets.get(id(node))
            if alias is not None:  # `%76 = %hidden0`: another name of a variable
                self._add(tok.start, tok.end, alias)
                binder_at[tok.start] = alias
                continue
            self._graph_def(tok.start, tok.end, node, binder_at, _enclosing(tops, tok.start))
        # Uses recorded by the parser.
        positions = module.positions
        uses = positions.uses
        results = positions.results
        resolved: set[int] = set(binder_at)
        from ..ir.schema import children

        for node in nodes:
            key = id(node)
            kids = children(node)
            for i, child in enumerate(kids):
                target = targets.get(id(child))
                if target is None:
                    continue
                for rng in (uses.get((key, i)), results.get((key, i))):
                    if rng is None:
                        continue
                    start = self._name_in(rng)
                    if start is not None and start not in resolved:
                        m = _LOCAL_NAME.match(text, start)
                        # `%t.0` read as the variable `t.0` is one name
                        end = m.end() if m and text[start : m.end()] == target.name else start + len(target.name)
                        self._add(start, end, target)
                        resolved.add(start)
        # Projections written as one token: `%t.1`, `%4.10`.
        for start, node in tgis.items():
            if start in resolved or not text.startswith("%", start):
                continue
            root: Any = node
            while type(root) is TupleGetItem:
                root = root.tuple_value
            target = targets.get(id(root))
            if target is None:
                continue
            end = start + len(target.name)
            if text[start:end] == target.name:
                self._add(start, end, target)
                resolved.add(start)
        return resolved

    def _graph_def(
        self, start: int, end: int, node: Any, binder_at: dict[int, Target], scope: tuple[int, int] | None = None
    ) -> None:
        name = self.source.text[start:end]
        t = Target(
            BINDING, name, node, Span(self.source, start, end), (start, scope[1] if scope else len(self.source.text))
        )
        self._targets.setdefault(id(node), t)
        binder_at[start] = t
        self.binders.append(t)
        self._add(start, end, t, True)

    def _name_in(self, rng: tuple[int, int]) -> int | None:
        """Where the local name written in `rng` starts: the range itself, or
        one name inside `( )` or `{ }`."""
        text = self.source.text
        start, end = rng
        if text.startswith("%", start):
            return start
        if text[start : start + 1] not in ("(", "{"):
            return None
        inner = [t for t in self._tokens_in(start + 1, end - 1) if t.kind != tk.COMMENT]
        if len(inner) == 1 and inner[0].kind == tk.LOCAL:
            return inner[0].start
        return None

    def _tokens_in(self, start: int, end: int) -> Iterable[tk.Token]:
        toks = self.tokens
        i = tk.index_before(toks, start) + 1
        while i < len(toks) and toks[i].start < end:
            yield toks[i]
            i += 1

    # ---- locals, by scope ----------------------------------------------------

    def _local_by_scope(self, tok: tk.Token) -> None:
        """A local the module does not place: the innermost binding of its
        name (or of a prefix of it: `%t.1`) visible here."""
        text = tok.text
        names = [text]
        while "." in names[-1]:
            names.append(names[-1].rsplit(".", 1)[0])
        for name in names:
            best = None
            for t in self.binders:
                if t.name != name or t.scope is None or not (t.scope[0] <= tok.start <= t.scope[1]):
                    continue
                if t.definition is not None and t.definition.start > tok.start:
                    continue
                if best is None or (t.scope[0], t.definition.start if t.definition else 0) >= (
                    best.scope[0],  # type: ignore[index]  # best is one of the binders with a scope
                    best.definition.start if best.definition else 0,
                ):
                    best = t
            if best is not None:
                self._add(
                    tok.start,
                    tok.start + len(name),
                    best,
                    best.definition is not None and best.definition.start == tok.start,
                )
                return

    def _locals_from_tokens(self, ranges: Iterable[tuple[int, int]] | None = None) -> None:
        """Without a module: a local is bound where first written in its
        top-level definition (a parameter, `let`, pattern or graph binding),
        in each of `ranges` (by default every top-level definition)."""
        toks = self.tokens
        source = self.source
        for start, end in _top_level_ranges(toks, len(source.text)) if ranges is None else ranges:
            first: dict[str, Target] = {}
            for tok in self._tokens_in(start, end):
                if tok.kind != tk.LOCAL:
                    continue
                t = first.get(tok.text)
                if t is None:
                    t = first[tok.text] = Target(
                        VARIABLE, tok.text, None, Span(source, tok.start, tok.end), (tok.start, end)
                    )
                    self.binders.append(t)
                    self._add(tok.start, tok.end, t, True)
                else:
                    self._add(tok.start, tok.end, t)


# ---------------------------------------------------------------- helpers


def _range(span: Span | None) -> tuple[int, int] | None:
    return None if span is None else (span.start, span.end)


def _next_significant(toks: list[tk.Token], i: int) -> int | None:
    j = i + 1
    while j < len(toks) and toks[j].kind == tk.COMMENT:
        j += 1
    return j if j < len(toks) else None


def _top_level_ranges(toks: list[tk.Token], n: int) -> list[tuple[int, int]]:
    """The text of each top-level item: from a `def`, `data`, `type`,
    `extern` or `free_var` at depth 0 to the next; a trailing expression
    counts as one."""
    starts = [0]
    depth = 0
    for tok in toks:
        if tok.kind == tk.PUNCT:
            if tok.text in "({[":
                depth += 1
            elif tok.text in ")}]":
                depth = max(0, depth - 1)
        elif tok.kind == tk.KEYWORD and depth == 0 and tok.text in _TOP_LEVEL and tok.start > starts[-1]:
            starts.append(tok.start)
    return [(s, starts[i + 1] if i + 1 < len(starts) else n) for i, s in enumerate(starts)]


def _enclosing(ranges: list[tuple[int, int]], offset: int) -> tuple[int, int] | None:
    for r in ranges:
        if r[0] <= offset < r[1]:
            return r
    return None


def _tables(
    source: Source, module: Any, prelude: Any, toks: list[tk.Token], holes: tuple[tuple[int, int], ...] = ()
) -> Tables:
    tables = Tables()
    if prelude is not None:
        pm = prelude.module
        funcs = pm.functions
        for name, gv in prelude.globals.items():
            tables.globals[name] = Target(GLOBAL, "@" + name, gv, gv.span, prelude=True, detail=funcs.get(gv))
        for name, ctor in prelude.constructors.items():
            tables.constructors[name] = Target(CONSTRUCTOR, name, ctor, ctor.span, prelude=True)
        by_gtv: dict[int, Target] = {}
        for name, gtv in prelude.adts.items():
            t = by_gtv.get(id(gtv))
            if t is None:
                t = by_gtv[id(gtv)] = Target(DATA, gtv.name, gtv, gtv.span, prelude=True, detail=pm.type_defs.get(gtv))
            tables.datas[name] = t
    if module is not None:
        for gv, func in module.functions.items():
            tables.globals[gv.name] = Target(GLOBAL, "@" + gv.name, gv, gv.span, detail=func)
        for gtv, data in module.type_defs.items():
            tables.datas[gtv.name] = Target(DATA, gtv.name, gtv, gtv.span, detail=data)
            for ctor in data.constructors:
                tables.constructors[ctor.name] = Target(CONSTRUCTOR, ctor.name, ctor, ctor.span)
        for start, end in holes:  # what the module leaves out, as written
            _written_definitions(
                source, toks[tk.index_before(toks, start) + 1 : tk.index_before(toks, end) + 1], tables
            )
        return tables
    _written_definitions(source, toks, tables)
    return tables


def _written_definitions(source: Source, toks: list[tk.Token], tables: Tables) -> None:
    """Definitions as written (`def @f`, `data D`, `type D`), for text that
    did not parse; they hide the Prelude's, not the module's."""
    prev = None
    for tok in toks:
        if tok.kind == tk.COMMENT:
            continue
        if prev is not None and prev.kind == tk.KEYWORD:
            span = Span(source, tok.start, tok.end)
            if prev.text == "def" and tok.kind == tk.GLOBAL:
                known = tables.globals.get(tok.text[1:])
                if known is None or known.prelude:
                    tables.globals[tok.text[1:]] = Target(GLOBAL, tok.text, None, span)
            elif prev.text in ("data", "type") and tok.kind == tk.IDENT:
                known = tables.datas.get(tok.text)
                if known is None or known.prelude:
                    tables.datas[tok.text] = Target(DATA, tok.text, None, span)
        prev = tok
