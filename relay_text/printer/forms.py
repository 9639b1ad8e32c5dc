"""Atoms, and what the source wrote that keeps its form (spellings of
numbers, line breaks, commas, graph-binding aliases)."""

from __future__ import annotations

from typing import Any, cast

from ..ir.expr import Call, Constant, Constructor, Expr, GlobalVar, Match, Op, Tuple, TupleGetItem, Var
from ..ir.span import Span
from ..syntax.lexer import skip_trivia
from ..syntax.spelling import fill_text, literal_text
from ..text.type_text import shape_text
from .dialects import GLOBAL_NAME, IDENT, NUMBER, check_name
from .layout import Lazy, bracket
from .naming import TVM_LOCAL_NAME
from .sharing import is_atom
from .state import ATOMS, P_ATOM, P_NEG, P_NUM, Piece, PrinterState, Rule, assigned


class Forms(PrinterState):
    """Atoms and the author's form."""

    def ready(self, node: Expr) -> Piece | None:
        """The text of an atom or of an already printed node, without a
        visit; None if the node must be visited."""
        if type(node) in ATOMS or (type(node) is Constant and (node.meta_index is not None or node.shape == ())):
            return self._atom(node)
        piece: Piece | None = self.memo.get(node)
        return piece

    def operand(self, parent: Any, index: int, child: Expr) -> Rule:
        """The piece of `parent`'s child `index` with its comments, visiting
        the child (by yielding it) only when it is not ready."""
        piece = self.ready(child)
        if piece is None:
            piece = yield child
        if self.aliases:
            piece = self._alias(piece, parent, index, child)
        return self.occ(piece, parent, index)

    def _atom(self, node: Expr) -> Piece:
        if type(node) is Var:
            return (Lazy("var", node), P_ATOM, None)
        if type(node) is GlobalVar:
            check_name(node.name, GLOBAL_NAME, "global", node.span)
            return ("@" + node.name, P_ATOM, None)
        if type(node) is Op:
            check_name(node.name, IDENT, "operator", node.span)
            piece: Piece = (node.name, P_ATOM, None)
        elif type(node) is Constructor:
            check_name(node.name, IDENT, "constructor", node.span)
            return (node.name, P_ATOM, None)
        else:
            piece = self._constant(cast(Constant, node))
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
            if NUMBER.fullmatch(written):  # the author's spelling: `1e-05f`, `--10`, `7i`
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
        return "\n" in span.source.text[span.start : span.end]

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
        positions, source = self.positions, self.own_source
        assert positions is not None and source is not None  # (aliases are kept only with both)
        at = positions.uses.get((id(parent), index))
        if at is None:
            return piece
        written = source.text[at[0] : at[1]]
        if written[:1] != "%" or (type(child) is Var and written[1:] == child.name):
            return piece
        name = written[1:]
        if not TVM_LOCAL_NAME.fullmatch(name):
            return piece
        if name not in self.aliases_done:
            self.aliases_done.add(name)
            scope = self.open_scopes[-1]
            assert scope.stmts is not None
            scope.stmts.append((["%" + name, *assigned(piece[0]), ";"], False))
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
