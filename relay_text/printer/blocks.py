"""Scopes: the statements a scope binds (lets, `e;`, graph bindings) and
its final expression, and how a block is laid out."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

from ..ir.expr import Expr, Function, Let
from .layout import HARDLINE, LINE, Doc, Group, Lazy, Mark, Nest, Stream
from .naming import POP, PUSH, bind
from .sharing import Scope
from .signatures import Signatures
from .state import P_ATOM, Block, ChildKey, Piece, assigned, in_order, split_after
from .trivia import Note


# Statements a streamed scope gives the layout before it lets it print them.
# Handing over every statement at once was a third slower than printing the
# whole document first: switching between the printer and the layout after
# each short statement costs more than the work itself. A few hundred
# statements at a time cost about as much as one document, and hold little.
_FLUSH_EVERY = 256


class StreamedStatements(list[tuple[Doc, bool]]):
    """The statements of a scope handed to the layout as they are printed
    (the body of a definition), not kept: each goes to `stream`, with the
    line breaks `Blocks._statements` puts around it, and is printed with
    the next `_FLUSH_EVERY` (or when the stream closes). Its length is the
    number of statements so far."""

    def __init__(self, stream: Stream) -> None:
        super().__init__()
        self.stream = stream
        self.printed = 0

    def append(self, stmt: tuple[Doc, bool]) -> None:
        doc, blank = stmt
        self.stream.put([HARDLINE, doc, HARDLINE] if self.printed and blank else [doc, HARDLINE])
        self.printed += 1
        if self.printed % _FLUSH_EVERY == 0:
            self.stream.flush()

    def __len__(self) -> int:
        return self.printed

    def __bool__(self) -> bool:
        return self.printed > 0


class Blocks(Signatures):
    """Scopes and the bindings printed in them."""

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
        stmt: list[Doc] = []
        after_term = list(term or ())
        blank = self._blank(node, bound=True)
        if notes is not None:
            stmt.append(self._lead(notes.before, inline=False, blank_after=blank))
            blank = notes.before[0].blank_before if notes.before else blank
            inline, rest = split_after(notes.after)
            doc = [doc, self._trail(inline)]
            after_term = in_order(after_term, rest, notes.after_term)
        stmt += [name, *assigned(doc), ";"]
        if self.tvm:
            stmt.append(Mark("tmpdone", node))
        if after_term:
            stmt.append(self._trail(after_term))
        assert scope.stmts is not None, "a binding's scope is printed around it"
        scope.stmts.append((stmt, blank))
        return (ref, P_ATOM, None)

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

    def _scope(
        self,
        scope: Scope,
        root: Expr,
        tail_key: ChildKey | None,
        block: bool = False,
        streamed: StreamedStatements | None = None,
    ) -> Generator[Expr, Piece, Block]:
        """Print a scope: its statements (lets, `e;`, bindings) and final expression.

        `block` says that `root` is a `let` printed as a block, whose chain of
        lets are the statements. With `streamed`, each statement goes to the
        layout as soon as it is printed (the block returned holds none).
        """
        plan = self.plan
        assert plan is not None
        outer = scope.stmts
        stmts: list[tuple[Doc, bool]] = streamed if streamed is not None else []
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
            stmt: list[Doc] = []
            blank = self._blank(node)
            if notes is not None:
                stmt.append(self._lead(notes.before, inline=False, blank_after=blank))
                blank = notes.before[0].blank_before if notes.before else blank
                after += in_order(notes.after, notes.after_term)
            if seq:
                stmt += [vdoc, ";"]
            else:
                binder = self._binder(var, None, self._take(var) if commented else None)
                binds = bind(var)
                stmt += ["let ", binder]
                stmt += [" = ", binds, vdoc, ";"] if recursive else [*assigned(vdoc), binds, ";"]
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
                piece = self._alias(piece, tail_key[0], tail_key[1], node)
            piece = self.occ(piece, tail_key[0], tail_key[1])
        scope.stmts = outer
        self.open_scopes.pop()
        doc, _, term = piece
        return Block(stmts, doc, term, after, bool(stmts) and self._tail_blank(node, tail_key))

    def _render_block(self, block: Block, open_: str, close: str, force: bool, grouped: bool = True) -> Doc:
        """`{ stmts; tail }`: on one line when short and simple, else one
        statement a line. Without `grouped`, the block breaks with the group
        around it (an `if` breaks both branches, a `fn` its signature and body)."""
        body = self._statements(block)
        if not block.stmts and not force:
            doc: list[Doc] = [open_, PUSH, Nest(2, [LINE, body]), LINE, POP, close]
            return Group(doc) if grouped else doc
        return [open_, PUSH, Nest(2, [HARDLINE, body]), HARDLINE, POP, close]

    def _statements(self, block: Block) -> Doc:
        """A scope's text without braces (the top-level expression of a file)."""
        body: list[Doc] = []
        for i, (stmt, blank) in enumerate(block.stmts):
            if i and blank:
                body.append(HARDLINE)
            body += [stmt, HARDLINE]
        return self._tail(block, body)

    def _tail(self, block: Block, body: list[Doc]) -> list[Doc]:
        """`body` followed by a scope's final expression and the comments after it."""
        if block.tail_blank:
            body.append(HARDLINE)
        body.append(block.tail)
        if block.tail_term:
            body.append(self._trail(block.tail_term))
        if block.after:
            body.append(self._trail(block.after))
        return body

    # ---- binders and types -------------------------------------------------
