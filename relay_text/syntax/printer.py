"""Relay IR to text, in the documented dialect or in TVM's 0.0.5 format.

    print_module(module, dialect=None, width=100)   a whole file
    print_expr(expr, dialect="docs", width=100)     one expression

There is one rule per IR class (`_call`, `_let`, `_if`, ...). A rule is a
generator: it yields the children it needs and receives their text, so it
reads like a recursive printer while `ExprFunctor.visit` drives all rules
from one explicit stack (a chain of 100,000 calls costs no Python
recursion). Printing a scope (`_scope`) is shared by the rules that open
one through `yield from`: one level per rule, never per nesting.

Sharing is decided beforehand by `sharing.Plan`: a bound node is printed
once, as `%n = ...` in the scope the plan chose, when a statement first
needs it; every use then prints `%n`. Bindings that came from the source are
emitted in source order. Comments, attached by `comments.attach`, are
printed around the element they belong to.

Names are settled while the document is laid out, in text order (the only
order in which scoping means anything): user names are kept; a binder that
would capture a variable used under it is renamed (`%x_1`); temporaries skip
every number that a user variable is called. In the documented dialect
temporaries are numbered in text order from `%0` in each definition; in the
TVM dialect they are numbered module-wide in the order TVM allocated them.
"""

from __future__ import annotations

import gc
import re
from contextlib import contextmanager
from typing import Any
from collections.abc import Iterator

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
from ..ir.positions import Positions
from ..ir.pattern import PatternConstructor, PatternTuple, PatternVar, PatternWildcard
from ..ir.span import Span
from ..ir.ty import FuncType, IncompleteType, Kind, TensorType
from ..ir.visitor import ExprFunctor
from ..text.type_text import shape_text, type_params_text, type_text
from .comments import Attached, Comments, Note, fn_attr, occurrence
from .doc import (
    BOL,
    BREAK_PARENT,
    EOL,
    HARDLINE,
    LINE,
    SOFTLINE,
    Doc,
    Group,
    Lazy,
    Mark,
    Nest,
    Verbatim,
    bracket,
    layout,
)
from .lexer import skip_trivia
from .naming import POP, PUSH, RESET, TVM_LOCAL_NAME, Names, bind
from .sharing import Plan, Scope, is_atom
from .spelling import Unspellable, attr_text, fill_text, literal_text
from .symbols import BINARY, P_UNARY
from .type_doc import type_doc

DOCS = "docs"
TVM = "tvm"

# Precedence of printed expressions (higher binds tighter): the operators'
# levels (`symbols`), then what is not an operator.
P_NEG = 8  # a negative literal: fine as an operand, not before `.0` or `(`
P_BLOCK = 9  # if / match / fn / { ... }: parenthesised as operands, for clarity
P_NUM = 10  # a number: `1.0` followed by `.0` would read as one float
P_ATOM = 11

_NUMBER = re.compile(r"-*[0-9a-z][0-9A-Za-z_.]*(?:[eE][+-]?[0-9]+[a-z0-9]*)?")
_GLOBAL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


class PrintError(Exception):
    """A program the chosen dialect cannot express (`unformattable`)."""

    def __init__(self, message: str, span: Span | None = None, note: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.note = note


_ATOMS = frozenset({Var, GlobalVar, Op, Constructor})
_LEAVES = _ATOMS | {Constant}


class _Block:
    """A printed scope: its statements and its final expression."""

    __slots__ = ("after", "stmts", "tail", "tail_blank", "tail_term")

    def __init__(self, stmts: list, tail: Doc, tail_term: list | None, after: list, tail_blank: bool = False) -> None:
        self.stmts = stmts  # (doc, blank line before)
        self.tail = tail
        self.tail_term = tail_term
        self.after = after  # notes printed after the tail
        self.tail_blank = tail_blank  # an empty line before the tail (and its comments)


Piece = tuple  # (doc, precedence, notes to print after the terminator or None)


# ---------------------------------------------------------------- the printer


class _Printer(ExprFunctor[Any]):
    """Prints expressions: `visit(node)` returns a `Piece` (doc, precedence,
    comments that go after the next terminator), bound nodes binding
    themselves as statements of their scope on the way."""

    # Compound nodes are printed by generator rules that yield the children
    # they need (see ExprFunctor): one rule per IR class, no recursion.
    pre_order = frozenset({Function, Let, Call, Tuple, TupleGetItem, If, Match, RefCreate, RefRead, RefWrite})

    def __init__(
        self, dialect: str, width: int, comments: Comments | None, source_text: str | None, keep_form: bool = False
    ) -> None:
        super().__init__()
        if dialect not in (DOCS, TVM):
            raise ValueError(f"unknown dialect {dialect!r}")
        self.tvm = dialect == TVM
        # What the source wrote keeps its form (nesting, infix operators,
        # type and number spellings); the rest gets the dialect's.
        self.keep_form = keep_form
        # With `keep_form`: atoms the source used through a graph binding of
        # them (`%76 = %hidden0;` then `%76`), see `_alias`
        self.aliases = False
        self.aliases_done: set[str] = set()
        self.open_scopes: list[Scope] = []
        self.own_source: Any = None  # the source whose spellings are kept (with `keep_form`)
        self._as_written = None if not keep_form else self._written_long
        self.width = width
        self.comments = comments if comments else None
        self.text = source_text
        self.plan: Plan | None = None
        self.plans: dict[Expr, Plan] = {}
        self.def_name: str | None = None  # set while the root being printed is a definition
        self.scope_root: Expr | None = None  # set while the root is the file's trailing expression
        self.names = Names(self.tvm)
        self.written: dict[int, str] = {}  # names the source gave bound nodes (see `keep_names`)
        self.positions: Positions | None = None  # where shared children are written (with `text`)

    def keep_names(self, written: dict[int, str]) -> None:
        """Keep the names the source gave its graph bindings (`%3 = ...`)."""
        self.written = written
        self.names.keep_written(written)

    # ---- visiting ----------------------------------------------------------

    def _visit(self, node: Expr) -> Iterator:
        """A compound node: its rule, then `_finish` binds it or returns it."""
        if node is self.scope_root:  # the file's trailing expression: a scope of its own
            self.scope_root = None
            block = yield from self._scope(self.plan.root_scope, node, None)  # type: ignore[union-attr]
            return block
        piece = yield from _RULES[type(node)](self, node)
        return self._finish(node, piece)

    visit_function = visit_let = visit_call = visit_tuple = visit_tuple_get_item = _visit
    visit_if = visit_match = visit_ref_create = visit_ref_read = visit_ref_write = _visit

    def _leaf(self, node: Expr) -> Piece:
        if type(node) is Constant and not is_atom(node):  # Constant(1, (2, 2), float32)
            return self._finish(node, self._constant(node))
        return self._atom(node)

    visit_var = visit_global_var = visit_op = visit_constructor = visit_constant = _leaf

    def ready(self, node: Expr) -> Piece | None:
        """The text of an atom or of an already printed node, without a
        visit; None if the node must be visited."""
        t = type(node)
        if t in _ATOMS or (t is Constant and (node.meta_index is not None or node.shape == ())):
            return self._atom(node)
        return self.memo.get(node)

    def _finish(self, node: Expr, piece: Piece) -> Piece:
        """A node's text is complete: bind it to a temporary, or return it."""
        plan = self.plan
        assert plan is not None
        doc, prec, term = piece
        notes = self._take(node)
        if node not in plan.bound:
            if notes is not None:
                doc, term = self._around(doc, term, notes)
            return (doc, prec, term)
        scope = plan.scope_of[node]
        ref: Doc = Lazy("tmp", node)
        # TVM numbered a binding after the bindings written inside it (its
        # number is settled at its `;`); the documented dialect numbers in
        # the order the names appear.
        name: Doc = Lazy("tmpdef", node) if self.tvm else ref
        stmt: list = []
        after_term = list(term or ())
        blank = self._blank(node, bound=True)
        if notes is not None:
            stmt.append(self._lead(notes.before, inline=False, blank_after=blank))
            blank = notes.before[0].blank_before if notes.before else blank
            inline, rest = _split_after(notes.after)
            doc = [doc, self._trail(inline)]
            after_term = _in_order(after_term, rest, notes.after_term)
        stmt += [name, *_assigned(doc), ";"]
        if self.tvm:
            stmt.append(Mark("tmpdone", node))
        if after_term:
            stmt.append(self._trail(after_term))
        assert scope.stmts is not None, "a binding's scope is printed around it"
        scope.stmts.append((stmt, blank))
        return (ref, P_ATOM, None)

    def _blank(self, node: Any, bound: bool = False) -> bool:
        """Whether the source has an empty line before this statement. With
        `bound`, the statement binds `node` to a temporary: for a block value
        (`%n = { let ...`) it starts at `%n`, not inside the block."""
        positions = self.positions
        if self.text is None or positions is None:
            return False
        span = node.span
        if span is None:
            return False
        start = span.start
        if bound and type(node) is Let:
            start = positions.statement_start(start)
        return positions.blank_before(start)

    def _tail_blank(self, node: Expr, tail_key: tuple | None) -> bool:
        """Whether the source has an empty line before a scope's final
        expression (written as child `tail_key` of its parent), or before
        the comments on lines of their own above it."""
        text = self.text
        if text is None or (self.comments is not None and self.comments.coarse):
            return False
        # a shared node's span is its binding site: where it is used as the
        # tail is recorded apart
        span = self.positions.use(*tail_key) if tail_key is not None and self.positions is not None else None
        span = span or node.span
        if span is None or span.source.text is not text:
            return False
        assert self.positions is not None
        comments = self.comments
        if comments is not None:
            # the comments on lines of their own right above it lead it
            first = comments.leading_run(span.start)
            if first is not None:
                return first.blank_before
        return self.positions.blank_before(span.start)

    # ---- comments ------------------------------------------------------------

    def _take(self, key: Any) -> Attached | None:
        comments = self.comments
        return comments.pop(key) if comments is not None else None

    def _lead(self, notes: list[Note], inline: bool, blank_after: bool = False) -> list:
        """Comments before an element: a block comment with code after it on
        its line stays inline (`/* c */ x`); others get lines of their own.
        Before a statement, empty lines between them (and after the last, with
        `blank_after`) are kept."""
        out: list = []
        for i, note in enumerate(notes):
            if not inline and note.blank_before and i:
                out.append(HARDLINE)
            if note.own_line and inline:
                out.append(BOL)
            out.append(Lazy("comment", note))
            if not note.inline_lead:
                out.append(HARDLINE)
            elif i + 1 < len(notes) and notes[i + 1].line:
                out.append("  ")  # `/* a */  // b`, as a trailing run prints it
            else:
                out.append(" ")
        if blank_after and notes and not inline and not notes[-1].inline_lead:
            out.append(HARDLINE)
        return out

    def _trail(self, notes: list[Note]) -> list:
        """Comments after an element; one that starts a line, or follows a
        line comment, gets a line of its own."""
        out: list = []
        after_line = False
        for note in notes:
            if note.own_line or after_line:
                if note.blank_before:
                    out.append(HARDLINE)
                out += [HARDLINE, Lazy("comment", note)]
            else:
                out += ["  " if note.line else " ", Lazy("trailing", note)]
            if note.line:
                out.append(EOL)
            elif note.own_line or after_line:
                out.append(BREAK_PARENT)
            after_line = after_line or note.line
        return out

    def occ(self, piece: Piece, parent: Any, index: int) -> Piece:
        """Add the comments written around the place where `parent` names
        its child `index`."""
        if self.comments is None:
            return piece
        notes = self.comments.pop(occurrence(parent, index))
        if notes is None:
            return piece
        doc, prec, term = piece
        doc, term = self._around(doc, term, notes)
        return (doc, prec, term)

    def operand(self, parent: Any, index: int, child: Expr) -> Iterator:
        """The piece of `parent`'s child `index` with its comments, visiting
        the child (by yielding it) only when it is not ready."""
        piece = self.ready(child)
        if piece is None:
            piece = yield child
        if self.aliases:
            piece = self._alias(piece, parent, index, child)
        return self.occ(piece, parent, index)

    def _around(self, doc: Doc, term: list | None, notes: Attached) -> tuple[Doc, list | None]:
        """An inline element with its comments: block comments on its line
        stay beside it; from the first comment that ends or starts a line
        on, they go after the terminator that follows (`,` `;`), if any."""
        inline, rest = _split_after(notes.after)
        doc = [self._lead(notes.before, inline=True), doc, self._trail(inline)] if notes.before or inline else doc
        term = _in_order(term or [], rest, notes.after_term)
        return doc, term or None

    def _inline_term(self, piece: Piece) -> Doc:
        """A piece's doc with its after-terminator comments printed right after it."""
        doc, _, term = piece
        return doc if not term else [doc, self._trail(term)]

    # ---- atoms -------------------------------------------------------------

    def _atom(self, node: Expr) -> Piece:
        t = type(node)
        if t is Var:
            return (Lazy("var", node), P_ATOM, None)
        if t is GlobalVar:
            _check_name(node.name, _GLOBAL_NAME, "global", node.span)
            return ("@" + node.name, P_ATOM, None)
        if t is Op:
            _check_name(node.name, _IDENT, "operator", node.span)
            piece: Piece = (node.name, P_ATOM, None)
        elif t is Constructor:
            _check_name(node.name, _IDENT, "constructor", node.span)
            return (node.name, P_ATOM, None)
        else:
            piece = self._constant(node)
        notes = self._take(node)
        if notes is None:
            return piece
        doc, prec, _ = piece
        doc, term = self._around(doc, None, notes)
        return (doc, prec, term)

    def _constant(self, node: Constant) -> Piece:
        if node.meta_index is not None:
            return (f"meta[relay.Constant][{node.meta_index}]", P_ATOM, None)
        dtype = node.dtype or "float32"
        text = literal_text(node.value, dtype, self.tvm) if node.shape == () else None
        if text is not None and self._own(node.span) and dtype != "bool":
            written = node.span.source.text[node.span.start : node.span.end]  # type: ignore[union-attr]
            if _NUMBER.fullmatch(written):  # the author's spelling: `1e-05f`, `--10`, `7i`
                text = written
        if text is not None:
            if text.startswith("-"):
                return (text, P_NEG, None)
            return (text, P_ATOM if dtype == "bool" else P_NUM, None)
        shape = node.shape if isinstance(node.shape, tuple) else ()
        parts = [fill_text(node.value, dtype), shape_text(shape), dtype]
        text = f"Constant({', '.join(parts)})"
        if len(text) > 30:  # too long to keep whole on a narrow line
            return (bracket("Constant(", parts, ")"), P_ATOM, None)
        return (text, P_ATOM, None)

    # ---- the author's form ---------------------------------------------------

    def _own(self, span: Span | None) -> bool:
        return self.keep_form and span is not None and span.source is self.own_source

    def _broken(self, node: Any) -> bool:
        """Whether a function, `if` or braced clause body (a node or a
        span) is to be broken over lines whatever its length: TVM printed
        them so; a kept one stays on one line only when the source wrote it
        on one."""
        span = node if type(node) is Span else node.span
        if not self._own(span):
            return True
        return "\n" in span.source.text[span.start : span.end]  # type: ignore[union-attr]

    def _braced(self, node: Expr, index: int) -> Span | None:
        """The source's `{ ... }` around child `index` of `node` (a match
        clause's body), when the form is kept and the source wrote braces."""
        if not self.keep_form or self.positions is None:
            return None
        span = self.positions.use(node, index)
        if span is None or not self._own(span) or not span.source.text.startswith("{", span.start):
            return None
        return span

    def _comma_after(self, span: Span | None, fields: bool = False) -> bool:
        """Whether the last constructor (`span` its name, then its `fields`)
        or match arm is followed by a comma: TVM printed one; a kept one as
        the source wrote it."""
        if not self._own(span):
            return True
        text = span.source.text  # type: ignore[union-attr]
        at = skip_trivia(text, span.end)  # type: ignore[union-attr]
        if fields and text.startswith("(", at):
            depth = 0
            while at < len(text):
                ch = text[at]
                depth += ch == "("
                depth -= ch == ")"
                at += 1
                if depth == 0:
                    break
            at = skip_trivia(text, at)
        return text.startswith(",", at)

    def _alias(self, piece: Piece, parent: Any, index: int, child: Expr) -> Piece:
        """An atom that the source wrote, at this use, through a graph binding
        of it (`%76` after `%76 = %hidden0;`): kept so, its binding printed as
        a statement before its first use."""
        if not is_atom(child) or not self.open_scopes:
            return piece
        at = self.positions.uses.get((id(parent), index))  # type: ignore[union-attr]
        if at is None:
            return piece
        written = self.own_source.text[at[0] : at[1]]
        if written[:1] != "%" or (type(child) is Var and written[1:] == child.name):
            return piece
        name = written[1:]
        if not TVM_LOCAL_NAME.fullmatch(name):
            return piece
        if name not in self.aliases_done:
            self.aliases_done.add(name)
            scope = self.open_scopes[-1]
            assert scope.stmts is not None
            scope.stmts.append((["%" + name, *_assigned(piece[0]), ";"], False))
        return ("%" + name, P_ATOM, piece[2])

    def _bare_subject(self, node: Match, keyword: str) -> bool:
        """Whether the source wrote the subject of a `match` without
        parentheses of its own (`match %x {`, or a tuple: `match (%a, %b) {`)."""
        if not self._own(node.span):
            return False
        text = node.span.source.text  # type: ignore[union-attr]
        at = skip_trivia(text, node.span.start + len(keyword))  # type: ignore[union-attr]
        if not text.startswith("(", at):
            data = node.data
            return is_atom(data) or data in self.plan.bound or type(data) in (Call, Tuple, TupleGetItem)  # type: ignore[union-attr]
        data = node.data
        return type(data) is Tuple and data not in self.plan.bound and data.span is not None and data.span.start == at  # type: ignore[union-attr]

    # ---- scopes ------------------------------------------------------------

    def _scope_of(self, owner: Any, kind: str, index: int = 0) -> Scope:
        plan = self.plan
        assert plan is not None
        found = plan.scopes.get((owner, kind, index))
        return found if found is not None else Scope(None, owner, kind, index)

    def _due(self, scope: Scope, key: int | None) -> Iterator[Expr]:
        """Bound nodes of `scope` that the source wrote before position `key`."""
        if key is None:
            return
        bound = scope.bound
        i = scope.flushed
        memo = self.memo
        while i < len(bound):
            node = bound[i]
            span = node.span
            if span is not None:
                if span.start >= key:
                    break
                if node not in memo:
                    yield node
            i += 1
        scope.flushed = i

    def _scope(self, scope: Scope, root: Expr, tail_key: tuple | None, block: bool = False) -> Iterator:
        """Print a scope: its statements (lets, `e;`, bindings) and final expression.

        `block` says that `root` is a `let` printed as a block, whose chain of
        lets are the statements.
        """
        plan = self.plan
        assert plan is not None
        outer = scope.stmts
        stmts: list = []
        scope.stmts = stmts
        self.open_scopes.append(scope)
        spine = plan.spine
        node = root
        after: list[Note] = []
        ready = self.ready
        commented = self.comments is not None
        while type(node) is Let and (node in spine or (block and node is root)):
            for due in self._due(scope, node.span.start if node.span is not None else None):
                yield due
            value = node.value
            var = node.var
            notes = self._take(node) if commented else None
            seq = var.name == "" and var not in plan.used_vars
            recursive = not seq and type(value) is Function and value not in plan.bound
            piece = ready(value)
            if piece is None:
                piece = yield value
            if self.aliases:
                piece = self._alias(piece, node, 1, value)
            if commented:
                piece = self.occ(piece, node, 1)
            vdoc, _, term = piece
            stmt: list = []
            blank = self._blank(node)
            if notes is not None:
                stmt.append(self._lead(notes.before, inline=False, blank_after=blank))
                blank = notes.before[0].blank_before if notes.before else blank
                after += _in_order(notes.after, notes.after_term)
            if seq:
                stmt += [vdoc, ";"]
            else:
                binder = self._binder(var, None, self._take(var) if commented else None)
                binds = bind(var)
                stmt += ["let ", binder]
                stmt += [" = ", binds, vdoc, ";"] if recursive else [*_assigned(vdoc), binds, ";"]
            if term:
                stmt.append(self._trail(term))
            stmts.append((stmt, blank))
            tail_key = (node, 2)
            node = node.body
        for due in self._due(scope, node.span.start if node.span is not None else None):
            yield due
        piece = ready(node)
        if piece is None:
            piece = yield node
        if tail_key is not None:
            if self.aliases:
                piece = self._alias(piece, *tail_key, node)
            piece = self.occ(piece, *tail_key)
        scope.stmts = outer
        self.open_scopes.pop()
        doc, _, term = piece
        return _Block(stmts, doc, term, after, bool(stmts) and self._tail_blank(node, tail_key))

    def _render_block(self, block: _Block, open_: str, close: str, force: bool, grouped: bool = True) -> Doc:
        """`{ stmts; tail }`: on one line when short and simple, else one
        statement a line. Without `grouped`, the block breaks with the group
        around it (an `if` breaks both branches, a `fn` its signature and body)."""
        body = self._statements(block)
        if not block.stmts and not force:
            doc = [open_, PUSH, Nest(2, [LINE, body]), LINE, POP, close]
            return Group(doc) if grouped else doc
        return [open_, PUSH, Nest(2, [HARDLINE, body]), HARDLINE, POP, close]

    def _statements(self, block: _Block) -> Doc:
        """A scope's text without braces (the top-level expression of a file)."""
        body: list = []
        for i, (stmt, blank) in enumerate(block.stmts):
            if i and blank:
                body.append(HARDLINE)
            body += [stmt, HARDLINE]
        if block.tail_blank:
            body.append(HARDLINE)
        body.append(block.tail)
        if block.tail_term:
            body.append(self._trail(block.tail_term))
        if block.after:
            body.append(self._trail(block.after))
        return body

    # ---- binders and types -------------------------------------------------

    def _attr(self, value: Any, node: Expr, spelled: list | None = None) -> str:
        try:
            return attr_text(value, self.tvm, spelled)
        except Unspellable as exc:
            raise PrintError(str(exc), node.span) from None

    def _attr_doc(self, key: str, value: Any, node: Expr) -> Doc:
        """`key=value`; a long list value breaks one element a line. Kept
        numbers are written as the source wrote them (`2i64`)."""
        spelled = None
        if self.keep_form and self.positions is not None and self._own(node.span):
            found = self.positions.attr_spellings.get((id(node), key))
            spelled = list(found) if found else None
        return [f"{key}=", self._attr_value_doc(value, node, 0, spelled)]

    def _attr_value_doc(self, value: Any, node: Expr, depth: int, spelled: list | None = None) -> Doc:
        start = list(spelled) if spelled else None
        text = self._attr(value, node, spelled)
        if len(text) > 16 and isinstance(value, (list, tuple)) and value and text[:1] == "[" and depth < 16:
            check = list(start) if start else None
            if "[" + ", ".join(self._attr(v, node, check) for v in value) + "]" == text:
                again = list(start) if start else None
                return bracket("[", [self._attr_value_doc(v, node, depth + 1, again) for v in value], "]")
        return text

    def _type_doc(self, ty: Any) -> Doc:
        """A written type that may break inside its brackets when long."""
        return type_doc(ty, TVM if self.tvm else DOCS, as_written=self._as_written)

    def _type(self, ty: Any) -> str:
        """A written type: a scalar is its dtype in both dialects (`int32`),
        unless the source spelled it `Tensor[(), int32]`."""
        return type_text(ty, TVM if self.tvm else DOCS, limit=None, short_scalars=True, as_written=self._as_written)

    def _written_long(self, ty: Any) -> bool | str | None:
        """Whether the source spelled a scalar tensor type `Tensor[(), t]`
        (not `t`), or a data type without arguments `Nat[]` (not `Nat`);
        None for a type without source text."""
        span = ty.span
        if span is None or span.source is not self.own_source:
            return None
        text = span.source.text
        if type(ty) is TensorType:
            return text.startswith("Tensor", span.start)
        if type(ty) is IncompleteType:  # `_`, or a name that did not resolve: as written
            return " ".join(text[span.start : span.end].split())
        return text[span.end - 1 : span.end] == "]"

    def _binder(self, var: Var, group: Any, notes: Attached | None = None, binds: bool = False) -> Doc:
        doc, term = self._binder_piece(var, group, notes, binds)
        return [doc, self._trail(term)] if term else doc

    def _binder_piece(self, var: Var, group: Any, notes: Attached | None, binds: bool) -> tuple[Doc, list | None]:
        """A binder with its annotation, and the comments that follow its `,`.
        With `binds`, the variable is in scope from here on."""
        doc: list = [bind(var, group), Lazy("binder", var)] if binds else [Lazy("binder", var)]
        if var.attrs:
            doc += [" {", ", ".join(f"{key}={self._attr(value, var)}" for key, value in var.attrs), "}"]
        if var.type_annotation is not None:
            # a long annotation moves under its name before it breaks inside
            doc += [":" if self.tvm else " :", Group(Nest(2, [LINE, self._type_doc(var.type_annotation)]))]
        if notes is None:
            return doc, None
        inline, rest = _split_after(notes.after)
        doc = [self._lead(notes.before, inline=True), doc, self._trail(inline)]
        term = _in_order(rest, notes.after_term)
        return doc, term or None

    def _type_params(self, params: tuple) -> str:
        if not params:
            return ""
        if self.tvm and any(p.kind != Kind.TYPE for p in params):
            # TVM's `[A]` has no kinds; keep them (`[s : Shape]` reads back).
            return (
                "[" + ", ".join(p.name if p.kind == Kind.TYPE else f"{p.name} : {p.kind.value}" for p in params) + "]"
            )
        return type_params_text(params, TVM if self.tvm else DOCS)

    def _type_params_doc(self, params: tuple) -> Doc:
        """`<a, b>` (or TVM's `[A, B]`), one parameter a line when too long."""
        text = self._type_params(params)
        if len(text) <= 16:
            return text
        parts = text[1:-1].split(", ")  # (names never hold ", ")
        return bracket(text[0], parts, text[-1])

    # ---- lists -------------------------------------------------------------

    def _list(
        self, open_: str, items: list[Piece], close: str, trailing: str = "", force: bool = False, after: Doc = ""
    ) -> Doc:
        """`(a, b, c)` or one item a line; comments after a comma stay after it.
        `after` follows the list in its group (it must fit for the list to stay on one line)."""
        if not items:
            return [open_ + close, after] if after else open_ + close
        body: list = []
        last = len(items) - 1
        if not trailing and not any(item[2] for item in items):
            for i, item in enumerate(items):
                doc = item[0]
                if i < last:
                    if type(doc) is str:
                        body.append(doc + ",")
                    else:
                        body.append(doc)
                        body.append(",")
                    body.append(LINE)
                else:
                    body.append(doc)
            group = Group([open_, Nest(2, [SOFTLINE, body]), SOFTLINE, close, after])
            return [group, BREAK_PARENT] if force else group
        for i, (doc, _, term) in enumerate(items):
            body.append(doc)
            if i < last:
                body.append(",")
            elif trailing:
                body.append(trailing)
            if term:
                body.append(self._trail(term))
            if i < last:
                body.append(LINE)
        group = Group([open_, Nest(2, [SOFTLINE, body]), SOFTLINE, close, after])
        return [group, BREAK_PARENT] if force else group

    # ---- module ------------------------------------------------------------

    def module(self, module: Module, header: str | None) -> Doc:
        names = {v.name for v in module.free_vars}
        plans: dict[Expr, Plan] = {}
        for g in module.order:
            if g in module.functions:
                func = module.functions[g]
                plan = plans[func] = Plan(func, self.tvm, self.comments, self.written, self.keep_form)
                names |= plan.var_names
        if module.expr is not None:
            plan = plans[module.expr] = Plan(module.expr, self.tvm, self.comments, self.written, self.keep_form)
            names |= plan.var_names
        self.names.learn(names)
        self.plans = plans
        items: list[tuple[int, int, str, Any]] = []
        for i, var in enumerate(module.free_vars):
            items.append((var.span.start if var.span is not None else -1, i, "free_var", var))
        for i, item in enumerate(module.order):
            if item in module.functions:
                func = module.functions[item]
                items.append((func.span.start if func.span is not None else -1, len(items), "def", (item, func)))
            elif item in module.type_defs:
                data = module.type_defs[item]
                items.append((data.span.start if data.span is not None else -1, len(items), "type", data))
        items.sort(key=lambda t: (t[0], t[1]))
        parts: list = []
        if self.comments is not None:
            for note in self.comments.head:
                if note.blank_before and parts:
                    parts.append(HARDLINE)
                parts += [Lazy("comment", note), HARDLINE]
            if self.comments.head and header is not None and module.header is not None:
                if module.positions.blank_before(module.header.start):
                    parts.append(HARDLINE)
        if header is not None:
            parts += [header, HARDLINE]
            if module.header is not None and self.comments is not None and module.positions.blank_after_header:
                parts.append(HARDLINE)
        elif self.comments is not None and self.comments.head:
            parts.append(HARDLINE)  # the header's place: keep the opening comments apart
        previous = None
        for _, _, kind, obj in items:
            if previous is not None:
                parts.append(HARDLINE)
                if not (kind == "free_var" and previous == "free_var"):
                    parts.append(HARDLINE)
            previous = kind
            if kind == "free_var":
                parts.append(self._free_var(obj))
            elif kind == "def":
                parts.append(self._def(*obj))
            else:
                parts.append(self._type_data(obj))
        if module.expr is not None:
            if previous is not None:
                parts += [HARDLINE, HARDLINE]
            parts.append(self._root_expr(module.expr))
            previous = "expr"
        if self.comments is not None and self.comments.eof:
            for i, note in enumerate(self.comments.eof):
                if previous is not None or i:
                    parts.append(HARDLINE)
                    if note.blank_before:
                        parts.append(HARDLINE)
                parts.append(Lazy("comment", note))
                previous = "comment"
        if module.metadata is not None:
            if previous is not None:
                parts.append(HARDLINE)
            # v0.0.4 text keeps its `METADATA:` (when the header is kept)
            old_style = header == "v0.0.4" and module.metadata.header == "METADATA:"
            parts.append("METADATA:" if old_style else "#[metadata]")
            parts.append(Verbatim(module.metadata.text))
            return parts
        if previous is not None:  # an empty file stays empty (or just its header)
            parts.append(HARDLINE)
        return parts

    def _free_var(self, var: Var) -> Doc:
        notes = self._take(var)
        doc: list = []
        if notes is not None:
            doc.append(self._lead(notes.before, inline=False))
        doc += ["free_var ", self._binder(var, None, None, binds=True), ";"]
        if notes is not None:
            doc.append(self._trail(_in_order(notes.after, notes.after_term)))
        return doc

    def _def(self, gv: GlobalVar, func: Function) -> Doc:
        _check_name(gv.name, _GLOBAL_NAME, "global", gv.span)
        self.plan = self.plans.pop(func, None) or Plan(func, self.tvm, self.comments, self.written, self.keep_form)
        self.memo = {}
        self.aliases_done = set()
        self.def_name = gv.name
        piece = self.visit(func)
        self.def_name = None
        self.plan = None
        return piece[0] if self.tvm else [RESET, piece[0]]

    def _root_expr(self, expr: Expr) -> Doc:
        self.plan = self.plans.pop(expr, None) or Plan(expr, self.tvm, self.comments, self.written, self.keep_form)
        self.memo = {}
        self.aliases_done = set()
        if type(expr) in _LEAVES:  # no statements: just the value
            self.plan.root_scope.stmts = []
            doc, _, term = self._leaf(expr)
            block = _Block([], doc, term, [])
        else:
            self.scope_root = expr
            block = self.visit(expr)
        self.plan = None
        doc = self._statements(block)
        return doc if self.tvm else [RESET, doc]

    def expr(self, expr: Expr) -> Doc:
        plan = Plan(expr, self.tvm, None)
        self.names.learn(plan.var_names)
        self.plans = {expr: plan}
        return self._root_expr(expr)

    # ---- ADT definitions -----------------------------------------------------

    def _type_data(self, data: TypeData) -> Doc:
        _check_name(data.header.name, _IDENT, "type", data.header.span)
        notes = self._take(data)
        doc: list = []
        if notes is not None:
            doc.append(self._lead(notes.before, inline=False, blank_after=self._blank(data)))
        tparams = self._type_params(data.type_params)
        if self.tvm:
            head = f"type {data.header.name}{tparams}"
        else:
            head = f"data {data.header.name}{tparams}"
        if data.extern:
            doc.append("extern " + head.replace("data ", "type ", 1))
        elif not data.constructors:
            doc.append(head + " {}")
        else:
            lines: list = []
            for i, ctor in enumerate(data.constructors):
                _check_name(ctor.name, _IDENT, "constructor", ctor.span)
                cnotes = self._take(ctor)
                if i:
                    lines.append(HARDLINE)
                if cnotes is not None:
                    lines.append(self._lead(cnotes.before, inline=False))
                inputs = [self._type(t) for t in ctor.inputs]
                if self.tvm:
                    comma = "," if i + 1 < len(data.constructors) or self._comma_after(ctor.span, fields=True) else ""
                    text = ctor.name + ("(" + ", ".join(inputs) + ")" if inputs else "") + comma
                else:
                    text = f"{ctor.name} : ({', '.join(inputs)}) -> {data.header.name}"
                lines.append(text)
                if cnotes is not None:
                    lines.append(self._trail(_in_order(cnotes.after, cnotes.after_term)))
            doc += [head, " {", Nest(2, [HARDLINE, lines]), HARDLINE, "}"]
        if notes is not None:
            doc.append(self._trail(_in_order(notes.after, notes.after_term)))
        return doc

    # ---- rules -----------------------------------------------------------------

    def _function(self, node: Function) -> Iterator:
        tvm = self.tvm
        def_name = self.def_name if self.plan is not None and node is self.plan.root else None
        tparams = self._type_params_doc(node.type_params)
        head: Doc
        if def_name is not None:
            head = [f"def @{def_name}", tparams]
            fnotes = self._take(node)
        else:
            head = ["fn ", tparams] if tparams else "fn "
            fnotes = None
        params: list[Piece] = []
        for p in node.params:
            doc, term = self._binder_piece(p, node, self._take(p), binds=True)
            params.append((doc, P_ATOM, term))
        for key, value in node.attrs:
            piece: Piece = (f"{key}={self._attr(value, node)}", P_ATOM, None)
            notes = self._take(fn_attr(node, key)) if self.comments is not None else None
            if notes is not None:
                doc, term = self._around(piece[0], None, notes)
                piece = (doc, P_ATOM, term)
            params.append(piece)
        scope = self._scope_of(node, "fn")
        block = yield from self._scope(scope, node.body, (node, len(node.params)))
        # The result type is inside the parameters' group: the parameters
        # break one a line before the result type breaks inside its brackets.
        ret: list = []
        if node.ret_type is not None:
            ret += ["-> ", self._type_doc(node.ret_type)]
            if node.relations and type(node.ret_type) is FuncType:  # the `where` is the function's
                ret[1] = ["(", ret[1], ")"]
        if node.relations:
            where = "where " + ", ".join(r.name for r in node.relations)
            ret += [Group(Nest(2, [LINE, where]))] if ret else [where]
        if not ret:
            sig: list = [head, PUSH, self._list("(", params, ")"), " "]
        elif params:
            sig = [head, PUSH, self._list("(", params, ")", after=[" ", ret]), " "]
        else:  # `()` cannot break: the result type moves to the next line
            sig = [head, PUSH, "()", Group(Nest(2, [LINE, ret])), " "]
        force = def_name is not None or (tvm and self._broken(node))
        body = self._render_block(block, "{", "}", force=force, grouped=False)
        doc: list = [Group([sig, body]), POP]
        if fnotes is not None:
            lead = self._lead(fnotes.before, inline=False, blank_after=self._blank(node))
            doc = [lead, doc, self._trail(_in_order(fnotes.after, fnotes.after_term))]
        return (doc, P_BLOCK, None)

    def _let(self, node: Let) -> Iterator:
        """A `let` standing where an expression is expected: a block."""
        plan = self.plan
        assert plan is not None
        scope = self._scope_of(node, "block")
        block = yield from self._scope(scope, node, None, block=True)
        if self.tvm:
            return (self._render_block(block, "(", ")", force=True), P_ATOM, None)
        return (self._render_block(block, "{", "}", force=bool(block.stmts)), P_BLOCK, None)

    def _call(self, node: Call) -> Iterator:
        tvm = self.tvm
        infix = None if tvm and not self.keep_form else _infix(node)
        ready = self.ready
        commented = self.comments is not None
        args = []
        callee_notes = None
        if infix is not None:
            op = (self._symbol(node, infix), P_ATOM, None)
        elif not tvm:
            op = ready(node.op)
            if op is None:
                op = yield node.op
            if self.aliases:
                op = self._alias(op, node, 0, node.op)
            if commented:
                if node.type_args:  # comments go around `@f<...>`, never inside it
                    callee_notes = self._take(occurrence(node, 0))
                else:
                    op = self.occ(op, node, 0)
        for i, a in enumerate(node.args):
            piece = ready(a)
            if piece is None:
                piece = yield a
            if self.aliases:
                piece = self._alias(piece, node, i + 1, a)
            args.append(self.occ(piece, node, i + 1) if commented else piece)
        if tvm and infix is None:  # TVM printed the arguments before a call's operator
            op = ready(node.op)
            if op is None:
                op = yield node.op
            if self.aliases:
                op = self._alias(op, node, 0, node.op)
            if commented:
                op = self.occ(op, node, 0)
        if infix is not None:
            prec = BINARY[infix][0] if len(args) == 2 else P_UNARY
            sym = op[0]
            if len(args) == 1:
                operand = self._operand(args[0], P_UNARY, inline_term=False)
                space = " " if args[0][1] in (P_NEG, P_UNARY) else ""  # `- -1`, not `--1`
                return ([sym, space, operand], P_UNARY, args[0][2])
            lhs = self._operand(args[0], prec, inline_term=True)
            rhs_doc, rhs_prec, rhs_term = args[1]
            rhs = self._operand((rhs_doc, rhs_prec, None), prec + 1)
            return (Group([lhs, " ", sym, Nest(2, [LINE, rhs])]), prec, rhs_term)
        callee = self._postfix_base(op)
        if node.type_args:
            if not (is_atom(node.op) or node.op in self.plan.bound) or isinstance(node.op, Constant):  # type: ignore[union-attr]
                raise PrintError("explicit type arguments need a callee written as a name", node.span)
            # (a bare dtype here would be a BaseType argument, not a scalar type)
            texts = [type_text(t, TVM if self.tvm else DOCS, limit=None) for t in node.type_args]
            if texts[0][:1] in "%@-=<":  # (a number opens type arguments when `>(` closes them)
                raise PrintError(
                    f"the type argument `{texts[0]}` cannot open `<...>` (it reads as a comparison)", node.span
                )
            callee = [
                callee,
                bracket("<", [type_doc(t, TVM if self.tvm else DOCS, short=False) for t in node.type_args], ">"),
            ]
            if callee_notes is not None:
                callee, callee_term = self._around(callee, None, callee_notes)
                if callee_term:
                    callee = [callee, self._trail(callee_term)]
        items = args
        if node.attrs_ref is not None:  # written as a metadata reference: kept so
            items.append((attr_text(node.attrs_ref, self.tvm), P_ATOM, None))
        else:
            for key, value in node.attrs:
                items.append((self._attr_doc(key, value, node), P_ATOM, None))
        if type(callee) is str:
            return (self._list(callee + "(", items, ")"), P_ATOM, None)
        return ([callee, self._list("(", items, ")")], P_ATOM, None)

    def _symbol(self, node: Call, symbol: str) -> Doc:
        """An operator written as its symbol, with the comments around it."""
        doc: Doc = symbol
        term: list | None = None
        if self.comments is not None:
            for key in (node.op, occurrence(node, 0)):
                notes = self._take(key)
                if notes is not None:
                    doc, term = self._around(doc, term, notes)
        return [doc, self._trail(term)] if term else doc

    def _operand(self, piece: Piece, need: int, inline_term: bool = True) -> Doc:
        doc, prec, term = piece
        if term and inline_term:
            doc = [doc, self._trail(term)]
        if prec < need or prec == P_BLOCK:
            return ["(", doc, ")"]
        return doc

    def _postfix_base(self, piece: Piece) -> Doc:
        doc, prec, term = piece
        if term:
            doc = [doc, self._trail(term)]
        return doc if prec == P_ATOM else ["(", doc, ")"]

    def _tuple(self, node: Tuple) -> Iterator:
        fields = []
        ready = self.ready
        for i, f in enumerate(node.fields):
            piece = ready(f)
            if piece is None:
                piece = yield f
            if self.aliases:
                piece = self._alias(piece, node, i, f)
            fields.append(self.occ(piece, node, i))
        trailing = "," if len(fields) == 1 else ""
        return (self._list("(", fields, ")", trailing), P_ATOM, None)

    def _tuple_get_item(self, node: TupleGetItem) -> Iterator:
        piece = yield from self.operand(node, 0, node.tuple_value)
        base = self._postfix_base(piece)
        token = self._local_token(node.tuple_value)
        if token is not None and f"{token}.{node.index}" in self.names.dotted:
            base = ["(", base, ")"]
        return ([base, f".{node.index}"], P_ATOM, None)

    def _local_token(self, node: Expr) -> str | None:
        """The name a projection would glue to (`t` in `%t.0`), if any."""
        suffix = ""
        while type(node) is TupleGetItem and node not in self.plan.bound:  # type: ignore[union-attr]
            suffix = f".{node.index}" + suffix
            node = node.tuple_value
        if type(node) is Var:
            return node.name + suffix
        return None

    def _if(self, node: If) -> Iterator:
        tvm = self.tvm
        cond = yield from self.operand(node, 0, node.cond)
        then = yield from self._scope(self._scope_of(node, "then"), node.then_branch, (node, 1))
        other = yield from self._scope(self._scope_of(node, "else"), node.else_branch, (node, 2))
        force = tvm and self._broken(node)
        then_doc = self._render_block(then, "{", "}", force=force, grouped=False)
        head = ["if ", _condition(self._inline_term(cond)), " ", then_doc, " else "]
        tail = node.else_branch
        if (
            not tvm
            and not other.stmts
            and not other.after
            and not other.tail_term
            and type(tail) is If
            and tail not in self.plan.bound  # type: ignore[union-attr]
            and type(other.tail) is Group
        ):
            # `else if`: the whole chain breaks as one.
            return (Group([head, other.tail.doc]), P_BLOCK, None)
        return (Group([head, self._render_block(other, "{", "}", force=force, grouped=False)]), P_BLOCK, None)

    def _match(self, node: Match) -> Iterator:
        tvm = self.tvm
        data = yield from self.operand(node, 0, node.data)
        clauses: list = []
        for i, clause in enumerate(node.clauses):
            notes = self._take(clause)
            pattern = self._pattern(clause.pattern, clause)
            block = yield from self._scope(self._scope_of(node, "clause", i), clause.body, (node, i + 1))
            doc: list = []
            if i:
                doc.append(HARDLINE)
            if notes is not None:
                doc.append(self._lead(notes.before, inline=False))
            if tvm:
                braces = self._braced(node, i + 1)
                comma = "," if i + 1 < len(node.clauses) or self._comma_after(clause.span) else ""
                if block.stmts or block.after or braces:
                    body = self._render_block(block, "{", "}", force=not braces or self._broken(braces))
                    doc += [PUSH, pattern, " => ", body, comma, POP]
                else:
                    doc += [PUSH, pattern, " => ", block.tail, comma, POP]
                    if block.tail_term:
                        doc.append(self._trail(block.tail_term))
            else:
                body = self._render_block(block, "{", "}", force=False)
                doc += [PUSH, "case ", pattern, " ", body, POP]
            if notes is not None:
                doc.append(self._trail(_in_order(notes.after, notes.after_term)))
            clauses.append(doc)
        subject = self._inline_term(data)
        keyword = "match" if node.complete else "match?"
        if self._bare_subject(node, keyword):
            head = [keyword, " ", subject]
        else:
            head = [keyword, " ", _condition(subject)]
        if not clauses:
            return ([head, " {}"], P_BLOCK, None)
        doc = [head, " {", Nest(2, [HARDLINE, clauses]), HARDLINE, "}"]
        return (doc, P_BLOCK, None)

    def _pattern(self, pattern: Any, clause: Any) -> Doc:
        """A pattern; its variables are bound for the clause body."""
        tvm = self.tvm
        # Iterative post-order over the pattern tree.
        out: dict[int, Doc] = {}
        stack: list[tuple[Any, bool]] = [(pattern, False)]
        while stack:
            p, done = stack.pop()
            if isinstance(p, (PatternConstructor, PatternTuple)) and not done:
                stack.append((p, True))
                stack.extend((q, False) for q in reversed(p.patterns))
                continue
            if isinstance(p, PatternWildcard):
                doc: Doc = "_"
            elif isinstance(p, PatternVar):
                doc = self._binder(p.var, clause, self._take(p.var), binds=True)
            elif isinstance(p, PatternConstructor):
                _check_name(p.constructor.name, _IDENT, "constructor", p.span)
                parts = [out.pop(id(q)) for q in p.patterns]
                if parts:
                    doc = bracket(p.constructor.name + "(", parts, ")")
                elif tvm or (self._own(p.span) and not p.span.source.text.endswith(")", 0, p.span.end)):
                    doc = p.constructor.name  # `Nil`, as TVM writes it (and the documents may)
                else:
                    doc = p.constructor.name + "()"
            else:
                parts = [out.pop(id(q)) for q in p.patterns]
                doc = bracket("(", parts, ")", trailing="," if len(parts) == 1 else "")
            out[id(p)] = doc
        return out[id(pattern)]

    def _ref_create(self, node: RefCreate) -> Iterator:
        value = yield from self.operand(node, 0, node.value)
        return (["ref", self._list("(", [value], ")")], P_ATOM, None)

    def _ref_read(self, node: RefRead) -> Iterator:
        ref = yield from self.operand(node, 0, node.ref)
        return (["ref_read", self._list("(", [ref], ")")], P_ATOM, None)

    def _ref_write(self, node: RefWrite) -> Iterator:
        ref = yield from self.operand(node, 0, node.ref)
        value = yield from self.operand(node, 1, node.value)
        return (["ref_write", self._list("(", [ref, value], ")")], P_ATOM, None)


def _condition(doc: Doc) -> Doc:
    """`(c)` of an `if` or a `match`: `c` goes on a line of its own when too long."""
    return Group(["(", Nest(2, [SOFTLINE, doc]), SOFTLINE, ")"])


def _assigned(value: Doc) -> list:
    """` = value` of a binding. A value that cannot break (a name, a literal,
    `Constant(...)`) moves to the next line when the line is too long; one
    that can breaks inside its own brackets first."""
    if type(value) is str:
        return [" =", Group(Nest(2, [LINE, value]))]
    return [" = ", value]


def _in_order(*groups: list[Note]) -> list[Note]:
    """Comments from several places around one element, in source order."""
    out = [n for group in groups for n in group]
    out.sort(key=lambda n: n.index)
    return out


def _split_after(notes: list[Note]) -> tuple[list[Note], list[Note]]:
    """Comments after an element: those that stay before its `,` or `;`
    (block comments on its line) and, from the first comment that ends or
    starts a line, those that go after it."""
    for i, note in enumerate(notes):
        if note.line or note.own_line:
            return notes[:i], notes[i:]
    return notes, []


def _check_name(name: str, pattern: re.Pattern, what: str, span: Span | None) -> None:
    if not pattern.fullmatch(name):
        raise PrintError(f"the {what} name `{name}` cannot be written in Relay text", span)


def _infix(node: Call) -> str | None:
    """The operator symbol to print a call with, if it was written with one."""
    sym = node.infix
    if sym is None or node.attrs or node.type_args or type(node.op) is not Op:
        return None
    if len(node.args) == 2:
        entry = BINARY.get(sym)
        return sym if entry is not None and entry[1] == node.op.name else None
    if len(node.args) == 1 and sym == "-" and node.op.name == "negative":
        arg = node.args[0]
        if type(arg) is Constant and arg.shape == () and arg.meta_index is None and arg.dtype != "bool":
            text = literal_text(arg.value, arg.dtype or "float32", False)
            if text is None or not text.startswith("-"):
                return None  # `-1` would read back as the literal -1
        return sym
    return None


_RULES: dict[type, Any] = {
    Function: _Printer._function,
    Let: _Printer._let,
    Call: _Printer._call,
    Tuple: _Printer._tuple,
    TupleGetItem: _Printer._tuple_get_item,
    If: _Printer._if,
    Match: _Printer._match,
    RefCreate: _Printer._ref_create,
    RefRead: _Printer._ref_read,
    RefWrite: _Printer._ref_write,
}


# ---------------------------------------------------------------- entry points


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic collector: printing builds many small objects and no
    cycles, and a collection pass over a large IR costs more than printing it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _layout(printer: _Printer, doc: Doc) -> str:
    names = printer.names
    for _ in range(4):
        names.reset()
        text = layout(doc, printer.width, names)
        if not names.changed:
            break
    return names.patch(text)  # names of TVM bindings, numbered once their statement ended


def header_for(module: Module, dialect: str, keep: bool = True) -> str | None:
    """The first line of a file: none in the documented dialect; the TVM
    file's own header when kept (`v0.0.4` stays), else `#[version = "0.0.5"]`."""
    if dialect != TVM:
        return None
    if keep and module.version == "0.0.4":
        return "v0.0.4"
    return '#[version = "0.0.5"]'


class Printed:
    """Text and the order in which it holds the module's comments."""

    __slots__ = ("comment_order", "text")

    def __init__(self, text: str, comment_order: list[int]) -> None:
        self.text = text
        self.comment_order = comment_order


def render_module(
    module: Module,
    dialect: str | None = None,
    width: int = 100,
    comments: Comments | None = None,
    header: str | None = "auto",
    bind_operands: bool = False,
) -> Printed:
    """Print a module; `dialect` None keeps the module's own (TVM if it has a
    version header). Raises `PrintError` for what the dialect cannot write.

    In its own dialect, what the source wrote keeps its form: a node used
    once stays nested or bound as written. `bind_operands` (and converting
    to TVM's dialect) binds every non-atomic operand first, as TVM's printer
    did; converting to the documented dialect inlines single-use bindings."""
    own = TVM if module.version is not None else DOCS
    dialect = dialect or own
    keep_form = dialect == own and not bind_operands
    printer = _Printer(
        dialect,
        width,
        comments,
        module.source.text if module.source is not None and comments is not None else None,
        keep_form,
    )
    if keep_form:
        printer.own_source = module.source
        printer.aliases = printer.text is not None and module.source is not None
    if dialect == own:  # a conversion may inline and renumber; formatting keeps the names
        printer.keep_names(module.positions.graph_names)
    if printer.text is not None:
        printer.positions = module.positions
    if header == "auto":
        header = header_for(module, dialect)
    with no_gc():
        doc = printer.module(module, header)
        text = _layout(printer, doc)
    return Printed(text, list(printer.names.comments_seen))


def print_module(module: Module, dialect: str | None = None, width: int = 100) -> str:
    """A module as text (without the comments of its source)."""
    return render_module(module, dialect, width).text


def print_expr(expr: Expr, dialect: str = DOCS, width: int = 100) -> str:
    """An expression as text: its statements and final value, without a trailing newline."""
    printer = _Printer(dialect, width, None, None)
    with no_gc():
        doc = printer.expr(expr)
        return _layout(printer, doc)
