"""The printer's state and the pieces it passes around: a printed element
(`Piece`: its doc, its precedence, the comments that go after its
terminator), a printed scope (`Block`), and the comments printed around
elements."""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any

from ..ir.expr import Constant, Constructor, Expr, GlobalVar, Let, Op, Var
from ..ir.positions import Positions
from ..ir.span import Source, Span
from ..ir.ty import IncompleteType, TensorType, Type
from .comments import Attached, Comments, occurrence
from .dialects import DOCS, TVM
from .layout import BOL, BREAK_PARENT, EOL, HARDLINE, LINE, SOFTLINE, Doc, Group, Lazy, Nest, Stream
from .naming import Names
from .sharing import Plan, Scope
from .trivia import Note

# Precedence of printed expressions (higher binds tighter): the operators'
# levels (`symbols`), then what is not an operator.
P_NEG = 8  # a negative literal: fine as an operand, not before `.0` or `(`
P_BLOCK = 9  # if / match / fn / { ... }: parenthesised as operands, for clarity
P_NUM = 10  # a number: `1.0` followed by `.0` would read as one float
P_ATOM = 11

ATOMS = frozenset({Var, GlobalVar, Op, Constructor})
LEAVES = ATOMS | {Constant}


class Block:
    """A printed scope: its statements and its final expression."""

    __slots__ = ("after", "stmts", "tail", "tail_blank", "tail_term")

    def __init__(
        self,
        stmts: list[tuple[Doc, bool]],
        tail: Doc,
        tail_term: list[Note] | None,
        after: list[Note],
        tail_blank: bool = False,
    ) -> None:
        self.stmts = stmts  # (doc, blank line before)
        self.tail = tail
        self.tail_term = tail_term
        self.after = after  # notes printed after the tail
        self.tail_blank = tail_blank  # an empty line before the tail (and its comments)


# A printed element: its doc, its precedence, and the comments to print
# after the terminator that follows it (`,` `;`), or None.
Piece = tuple[Doc, int, list[Note] | None]
# A rule: it yields the children it needs and is sent their pieces.
Rule = Generator[Expr, Piece, Piece]
# The place where a parent names one of its children: (parent, child index).
ChildKey = tuple[Any, int]


class PrinterState:
    """What the printer knows while it prints (see `render`), and the comments
    it prints around elements. The layers above it (`forms` to
    `definitions`) add what they print; `expressions.Expressions` makes the
    whole an `ExprFunctor`.

    (`Any` in `memo`: what a visit gives is a `Piece`, or the `Block` of a
    file's trailing expression, which is printed as a scope of its own.)"""

    memo: dict[Expr, Any]  # (the functor's: the pieces of the nodes visited)

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
        self.own_source: Source | None = None  # the source whose spellings are kept (with `keep_form`)
        self._as_written: Callable[[Type], bool | str | None] | None = None if not keep_form else self._written_long
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
        # where a definition's document goes part by part while it is printed
        # (see `Expressions._function`), or None
        self.stream: Stream | None = None

    def keep_names(self, written: dict[int, str]) -> None:
        """Keep the names the source gave its graph bindings (`%3 = ...`)."""
        self.written = written
        self.names.keep_written(written)

    def _written_long(self, ty: Type) -> bool | str | None:
        """Whether the source spelled a scalar tensor type `Tensor[(), t]`
        (not `t`), or a data type without arguments `Nat[]` (not `Nat`);
        None for a type without source text."""
        span: Span | None = getattr(ty, "span", None)  # (every type read from text has one)
        if span is None or span.source is not self.own_source:
            return None
        text: str = span.source.text
        if type(ty) is TensorType:
            return text.startswith("Tensor", span.start)
        if type(ty) is IncompleteType:  # `_`, or a name that did not resolve: as written
            return " ".join(text[span.start : span.end].split())
        return text[span.end - 1 : span.end] == "]"

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

    def _tail_blank(self, node: Expr, tail_key: ChildKey | None) -> bool:
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

    def _lead(self, notes: Sequence[Note], inline: bool, blank_after: bool = False) -> list[Doc]:
        """Comments before an element: a block comment with code after it on
        its line stays inline (`/* c */ x`); others get lines of their own.
        Before a statement, empty lines between them (and after the last, with
        `blank_after`) are kept."""
        out: list[Doc] = []
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

    def _trail(self, notes: list[Note]) -> list[Doc]:
        """Comments after an element; one that starts a line, or follows a
        line comment, gets a line of its own."""
        out: list[Doc] = []
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

    def _around(self, doc: Doc, term: list[Note] | None, notes: Attached) -> tuple[Doc, list[Note] | None]:
        """An inline element with its comments: block comments on its line
        stay beside it; from the first comment that ends or starts a line
        on, they go after the terminator that follows (`,` `;`), if any."""
        inline, rest = split_after(notes.after)
        doc = [self._lead(notes.before, inline=True), doc, self._trail(inline)] if notes.before or inline else doc
        term = in_order(term or [], rest, notes.after_term)
        return doc, term or None

    def _inline_term(self, piece: Piece) -> Doc:
        """A piece's doc with its after-terminator comments printed right after it."""
        doc, _, term = piece
        return doc if not term else [doc, self._trail(term)]


def condition(doc: Doc) -> Doc:
    """`(c)` of an `if` or a `match`: `c` goes on a line of its own when too long."""
    return Group(["(", Nest(2, [SOFTLINE, doc]), SOFTLINE, ")"])


def assigned(value: Doc) -> list[Doc]:
    """` = value` of a binding. A value that cannot break (a name, a literal,
    `Constant(...)`) moves to the next line when the line is too long; one
    that can breaks inside its own brackets first."""
    if type(value) is str:
        return [" =", Group(Nest(2, [LINE, value]))]
    return [" = ", value]


def in_order(*groups: Sequence[Note]) -> list[Note]:
    """Comments from several places around one element, in source order."""
    out = [n for group in groups for n in group]
    out.sort(key=lambda n: n.index)
    return out


def split_after(notes: Sequence[Note]) -> tuple[list[Note], list[Note]]:
    """Comments after an element: those that stay before its `,` or `;`
    (block comments on its line) and, from the first comment that ends or
    starts a line, those that go after it."""
    for i, note in enumerate(notes):
        if note.line or note.own_line:
            return list(notes[:i]), list(notes[i:])
    return list(notes), []
