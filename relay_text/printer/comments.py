"""Attaching comments to the code they precede or trail.

The parser keeps every comment with its span (`Module.comments`). The
printer rebuilds the text from the IR, so a comment survives only if it is
tied to something the printer prints. Here each comment is attached to an
*anchor*:

- a node whose span is where its text stands: a definition, a statement's
  value, a call, a literal, a match clause, a constructor declaration;
- a binder (a parameter, a `let` variable, a pattern variable) together
  with its type annotation;
- an *occurrence*: the place where a parent mentions a variable, a global,
  a constructor or a shared node by name (`%x`, `@f`, `Cons`, `%3`). Those
  nodes have no span of their own at the use; the parser records where each
  use is written (`Positions.names`).

The lexer gives each comment its trivia (`ir.positions.Trivia`): the tokens
on either side of it and the line breaks around it. Every decision below is
made from those and from the positions the parser records; the text is not
searched again.

For each comment, the innermost anchor containing it is its container, and
the nearest anchors inside the container before and after it decide:

- a comment that ends a line of code trails that code (`x /* ty=... */`,
  `let %x = 1;  // one`); whether it came before or after the `,` / `;`
  that ends the element is remembered, so it is printed on the same side;
- a comment on a line of its own (or after an opening bracket) leads the
  next element of its container; it trails the previous one if nothing
  follows, if a closing bracket comes first, or if it hugs the statement
  above with an empty line below it;
- a comment inside an element but beside nothing that is printed (inside a
  type annotation, a constructor's signature) is printed right after it;
- in a run of comments between two elements, once one leads the next
  element, the rest do too (so their order cannot change);
- comments above a version header stay above it;
- whatever is left belongs to the end of the file.

Every rule is chosen so that the printed text attaches the same way when it
is read again: formatting is stable.

Where the source separates statements or comments by an empty line, so
that paragraphs are kept, is recorded by the lexer too
(`Positions.blank_lines`, `Note.blank_before`).
"""

from __future__ import annotations

import gc
from bisect import bisect_left, bisect_right
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

from ..ir.adt import TypeData
from ..ir.expr import (
    Call,
    Constant,
    Constructor,
    Expr,
    Function,
    GlobalVar,
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
from ..ir.module import Comment, Module
from ..ir.pattern import pattern_vars
from ..ir.positions import Positions, Trivia
from ..ir.schema import text_order
from .trivia import Note, coarse_place, decide, note_of

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, for less at import (see relay_text/record.py)
    from ..record import dataclass

MODULE = "<module>"


@dataclass(slots=True)
class Attached:
    """The comments of one anchor, by where they are printed."""

    # (an empty tuple until a note comes: most anchors carry one kind of
    # notes, and an empty list per kind costs ~56 bytes an anchor)
    before: Sequence[Note] = ()
    after: Sequence[Note] = ()  # before the element's terminator
    after_term: Sequence[Note] = ()  # after the `,` or `;`

    def all(self) -> list[Note]:
        return [*self.before, *self.after, *self.after_term]

    def add(self, where: str, note: Note) -> None:
        """Attach `note` `where` ("before", "after" or "after_term")."""
        notes = getattr(self, where)
        if type(notes) is list:
            notes.append(note)
        elif notes:  # a second note: a list from now on
            setattr(self, where, [*notes, note])
        else:  # (most anchors get one note: a tuple of one is smaller than a list)
            setattr(self, where, (note,))


def fn_attr(func: Any, key: str) -> tuple[str, int, str]:
    """The anchor of a function's attribute `key=value` (`Primitive=1`)."""
    return ("fn_attr", id(func), key)


def occurrence(parent: Any, index: int) -> tuple[Any, int]:
    """The key of the place where `parent` names its child number `index`
    (numbered as `relay_text.ir.visitor.children` lists them)."""
    return (parent, index)


class Comments:
    """The comments of one module, attached to anchors."""

    def __init__(self) -> None:
        self.by_key: dict[Hashable, Attached] = {}
        self.eof: list[Note] = []
        self.head: list[Note] = []  # above the version header
        self.coarse: bool | str = False  # comments moved to their statements (see `attach`)
        self.count = 0
        self._commented_starts: list[int] = []  # starts of anchors that carry comments
        self._comment_starts: list[int] = []
        self.trivia: list[Trivia] = []  # of each comment, in order
        self.positions: Positions | None = None

    def __bool__(self) -> bool:
        return self.count > 0

    def get(self, key: Hashable) -> Attached | None:
        return self.by_key.get(key)

    def pop(self, key: Hashable) -> Attached | None:
        """The comments of an anchor, handed out once."""
        return self.by_key.pop(key, None)

    def written_as_binding(self, start: int) -> bool:
        """Whether the expression at `start` is the value of a graph binding
        (`%n = <here>`) in the source, rather than written where it is used."""
        positions = self.positions
        return positions is not None and (start in positions.graph_heads or start in positions.graph_inner)

    def leading_run(self, pos: int) -> Trivia | None:
        """Of the comments right above the token at `pos` (nothing but
        blanks between), the first of those that stand on lines of their
        own, up to it; None if the last one ends a line of code."""
        starts, trivia = self._comment_starts, self.trivia
        i = bisect_left(starts, pos) - 1
        first = None
        while i >= 0:
            around = trivia[i]
            if not around.after or around.after[0][0] != pos or not around.own_line:
                break
            first = around
            i -= 1
        return first

    def any_within(self, start: int, end: int) -> bool:
        """Whether a commented anchor starts inside `[start, end)`."""
        starts = self._commented_starts
        i = bisect_left(starts, start)
        return i < len(starts) and starts[i] < end


# ---------------------------------------------------------------- anchors


class _Anchors:
    def __init__(self, comments: list[Comment], trivia: list[Trivia]) -> None:
        self.starts: list[int] = [c.span.start for c in comments]
        self.trivia = trivia  # of each comment
        self.items: list[tuple[int, int, int, Hashable]] = []  # (start, end, seq, key)
        # Anchors printed at the start of a line, with the empty lines before
        # them kept: definitions, `let` statements, graph bindings.
        self.line_level: set[Hashable] = set()

    def add(self, start: int, end: int, key: Hashable) -> None:
        if end > start:
            self.items.append((start, end, len(self.items), key))

    def comment_inside(self, start: int, end: int) -> bool:
        i = bisect_left(self.starts, start)
        return i < len(self.starts) and self.starts[i] < end

    def comments_within(self, start: int, end: int) -> range:
        """The indices of the comments that start in `[start, end)`."""
        return range(bisect_left(self.starts, start), bisect_left(self.starts, end))


_text_order = text_order  # (child index, child) in the order their text appears


_ATOMS = (Var, GlobalVar, Constructor)
_ATOM_TYPES = frozenset(_ATOMS)
_LEAVES = frozenset((Var, GlobalVar, Constructor, Op, Constant))


def _binders(node: Expr) -> list[Var]:
    if type(node) is Let:
        return [node.var] if node.var.name else []
    if type(node) is Function:
        return list(node.params)
    if type(node) is Match:
        return [v for clause in node.clauses for v in pattern_vars(clause.pattern)]
    return []


_OPERAND_PARENTS = frozenset({Call, Tuple, TupleGetItem, RefCreate, RefRead, RefWrite})


class _Collector:
    """Registers the anchors of a module."""

    def __init__(self, module: Module, anchors: _Anchors) -> None:
        self.module = module
        self.a = anchors
        self.seen: set[Expr] = set()  # (nodes hash by identity)
        self.binders = module.positions.binders

    def run(self) -> None:
        module = self.module
        a = self.a
        for var in module.free_vars:
            at = self.binders.get(id(var))
            if at is not None:
                a.add(at[0], at[1], var)  # from `free_var` to its annotation
                a.line_level.add(var)
        a.line_level.update(module.functions.values())
        a.line_level.update(module.type_defs.values())
        for item in module.order:
            if item in module.functions:
                self.walk(module.functions[item])
            elif item in module.type_defs:
                self.type_data(module.type_defs[item])
        if module.expr is not None:
            self.walk(module.expr)

    def type_data(self, data: TypeData) -> None:
        a = self.a
        if data.span is None:
            return
        a.add(data.span.start, data.span.end, data)
        ctors = [c for c in data.constructors if c.span is not None]
        close = data.span.end - 1  # the closing brace
        for i, ctor in enumerate(ctors):
            following = ctors[i + 1].span.start if i + 1 < len(ctors) else close  # type: ignore[union-attr]
            a.add(ctor.span.start, self._declaration_end(ctor, following), ctor)  # type: ignore[union-attr]

    def _declaration_end(self, ctor: Constructor, following: int) -> int:
        """Where a constructor's declaration (`B(int32)`, `E : (a) -> D[a]`)
        ends: at its last token before the next one's name, its `,` aside.
        Only the comments in between can tell that place from another, so
        it is read from their trivia: the tokens on either side of each."""
        a = self.a
        assert ctor.span is not None
        at = self.binders.get(id(ctor))
        end = at[1] if at is not None else ctor.span.end
        for i in a.comments_within(end, following):
            trivia = a.trivia[i]
            before = trivia.before
            if before is not None and before[1] > end:
                end = max(end, trivia.before2_end if before[2] == "," else before[1])
            for start, token_end, text in trivia.after:
                if start >= following:
                    break
                if text != ",":
                    end = max(end, token_end)
        return end

    def walk(self, root: Expr) -> None:
        a = self.a
        add = a.add
        positions = self.module.positions
        uses, names, brackets, binder_at = positions.uses, positions.names, positions.brackets, self.binders
        seen = self.seen
        atoms = _ATOM_TYPES
        leaves = _LEAVES
        stack = [root]
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            t = type(node)
            span = node.span
            if span is not None and t not in atoms:  # their spans are where they are defined
                add(span.start, span.end, node)
            if t is Let:
                a.line_level.add(node)
            for var in _binders(node):
                at = binder_at.get(id(var))
                if at is not None:
                    add(at[0], at[1], var)
            if type(node) is Match:
                for clause in node.clauses:
                    if clause.span is not None:
                        add(clause.span.start, clause.span.end, clause)
            elif type(node) is Function and node.attrs:
                for key, start, end in positions.fn_attrs.get(id(node), ()):
                    add(start, end, fn_attr(node, key))
            children = _text_order(node)
            if not children:
                continue
            # Only occurrences in a node that holds a comment can matter.
            scan = span is not None and a.comment_inside(span.start, span.end)
            cursor = span.start if span is not None else 0
            for index, child in children:
                if scan and type(node) is Match and index >= 1:
                    pspan = node.clauses[index - 1].pattern.span
                    if pspan is not None:
                        cursor = max(cursor, pspan.end)
                ct = type(child)
                cspan = child.span
                if (
                    span is not None
                    and cspan is not None
                    and ct not in atoms
                    and span.start <= cspan.start
                    and cspan.end <= span.end
                    and cspan.start >= cursor
                ):  # written inside its parent
                    cursor = cspan.end
                    if ct is Constant:
                        add(cspan.start, cspan.end, child)
                    if scan and t in _OPERAND_PARENTS:
                        # `( ... )` or `{ ... }` around a block operand: a
                        # comment after its `)` follows the whole operand,
                        # not the block's last expression
                        at = uses.get((id(node), index))
                        if at is not None and at[1] > cspan.end:
                            add(at[0], at[1], occurrence(node, index))
                            cursor = at[1]
                            inner = brackets.get((id(node), index))
                            if inner is not None and inner[0] < cspan.start and cspan.end < inner[1]:
                                # `({ ... } /* c */)`: the same place
                                add(inner[0], inner[1], occurrence(node, index))
                else:
                    if cspan is not None and ct not in leaves:
                        a.line_level.add(child)  # written as a graph binding
                    if scan:
                        found = names.get((id(node), index))
                        if found is not None:
                            add(found[0], found[1], occurrence(node, index))
                            cursor = max(cursor, found[1])
                if ct not in leaves:
                    stack.append(child)


# ---------------------------------------------------------------- attaching


def attach(module: Module, coarse: bool | str = False) -> Comments:
    """Attach the comments of a parsed module to the code they belong to.

    With `coarse`, every comment inside a statement (a definition, a `let`,
    a graph binding) leads that statement, on a line of its own, in source
    order: the formatter's fallback when the precise placement does not
    survive its checks (see `formatter`). It always keeps every comment, in
    order, and formats stably, at the price of moving comments that stood
    inside an expression to the line above its statement. With
    `coarse="definition"`, every comment inside a definition leads the
    definition: the last resort."""
    enabled = gc.isenabled()
    gc.disable()  # many small objects and no cycles: collections only cost time
    try:
        return _attach(module, coarse)
    finally:
        if enabled:
            gc.enable()


def _attach(module: Module, coarse: bool | str = False) -> Comments:
    source = module.source
    text = source.text if source is not None else ""
    result = Comments()
    comments = sorted(module.comments, key=lambda c: c.span.start)
    if not comments:
        return result
    result.count = len(comments)
    result.positions = module.positions
    result.coarse = coarse
    known = module.positions.comment_trivia()
    trivia = [known[c.span.start] for c in comments]
    anchors = _Anchors(comments, trivia)
    result._comment_starts = anchors.starts
    result.trivia = trivia
    _Collector(module, anchors).run()
    items = anchors.items
    # By start: outermost (longest) first; by end: outermost (earliest start)
    # first; the first registered wins a tie. The first of each wins below.
    ordered = sorted(items, key=lambda t: (t[0], -t[1], t[2]))
    # (the items themselves, not tuples made for these tables: an anchor is
    # registered per node, and both tables cover them all)
    by_start = {t[0]: t for t in reversed(ordered)}
    by_end = {t[1]: t for t in sorted(items, key=lambda t: (-t[1], -t[0], -t[2]))}
    starts = sorted(by_start)
    ends = sorted(by_end)
    notes = [note_of(i, c, t) for i, (c, t) in enumerate(zip(comments, trivia, strict=False))]
    key_start: dict[Hashable, int] = {}
    for start, _, _, key in items:
        key_start.setdefault(key, start)
    stack: list[tuple[int, int, int, Hashable]] = []
    ai = 0
    root = (0, len(text) + 1, -1, MODULE)
    # (previous anchor, next anchor) of the last comment that led the next anchor
    gap: tuple[Hashable | None, Hashable | None] | tuple[()] = ()
    header_start = module.header.start if module.header is not None else -1
    # (the module's trailing expression is no definition: its bindings print
    # before it, so at this level its comments go to the end of the file)
    tops: set[Hashable] = set(module.functions.values()) | set(module.type_defs.values()) | set(module.free_vars)
    level = tops if coarse == "definition" else anchors.line_level
    statements = sorted((t[0], t[1], t[3]) for t in items if t[3] in level) if coarse else []
    for note, comment, around in zip(notes, comments, trivia, strict=False):
        cs, ce = comment.span.start, comment.span.end
        if ce <= header_start:
            result.head.append(note)
            continue
        if not around.after and (note.own_line or coarse):  # below all the code
            result.eof.append(note)
            continue
        while ai < len(ordered) and ordered[ai][0] <= cs:
            item = ordered[ai]
            while stack and stack[-1][1] <= item[0]:
                stack.pop()
            stack.append(item)
            ai += 1
        while stack and stack[-1][1] < ce:
            stack.pop()
        container = stack[-1] if stack else root
        c_start, c_end = container[0], container[1]
        prev = nxt = None
        i = bisect_right(ends, cs) - 1
        if i >= 0:
            p_start, _, _, p_key = by_end[ends[i]]
            if p_start >= c_start and p_key is not container[3]:
                prev = (p_start, ends[i], p_key)
        j = bisect_left(starts, ce)
        if j < len(starts):
            _, n_end, _, n_key = by_start[starts[j]]
            if n_end <= c_end and n_key is not container[3]:
                nxt = (starts[j], n_end, n_key)
        here = (prev[2] if prev else None, nxt[2] if nxt else None)
        if coarse == "definition" and (not stack or stack[0][3] not in tops):
            stack = []  # outside every definition
        placed = coarse_place(stack, statements, level, cs, ce) if coarse else None
        if coarse == "definition" and placed is None:
            result.eof.append(note)
            continue
        if placed is not None:
            target, where = placed
            note.own_line, note.inline_lead = where == "before", False
        elif nxt is not None and gap == here:
            target, where = nxt[2], "before"  # keep the order of a run of comments
        else:
            target, where = decide(note, around, prev, nxt, anchors.line_level)
        if where == "before":
            gap = here
        if target is None:
            if container[3] is MODULE:
                result.eof.append(note)
                continue
            # Inside an element but beside nothing printed (a type annotation,
            # a constructor's signature): print it right after the element.
            target, where = container[3], "after"
            note.own_line = False
        entry = result.by_key.get(target)
        if entry is None:
            entry = result.by_key[target] = Attached()
        entry.add(where, note)
    result._commented_starts = sorted(key_start[k] for k in result.by_key)
    return result
