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
  nodes have no span of their own at the use, so the occurrence is found in
  the text of the parent, between the spans of its other children.

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

`blank_line_before` tells the printer where the source separates
statements or comments by an empty line, so that paragraphs are kept.
"""

from __future__ import annotations

import gc
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Any, Hashable

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
from ..ir.module import Comment, Module
from ..ir.pattern import pattern_vars
from ..ir.span import Span
from .lexer import skip_trivia

MODULE = "<module>"


@dataclass(slots=True)
class Note:
    """One comment as the printer needs it."""

    index: int  # position in Module.comments
    text: str
    own_line: bool  # nothing but blanks before it on its line
    line: bool  # runs to the end of the line (`//`, `#`)
    blank_before: bool  # an empty line separates it from the code above
    inline_lead: bool = False  # a block comment with more text after it on its line


@dataclass(slots=True)
class Attached:
    """The comments of one anchor, by where they are printed."""

    before: list[Note] = field(default_factory=list)
    after: list[Note] = field(default_factory=list)  # before the element's terminator
    after_term: list[Note] = field(default_factory=list)  # after the `,` or `;`

    def all(self) -> list[Note]:
        return [*self.before, *self.after, *self.after_term]


def occurrence(parent: Any, index: int) -> tuple[Any, int]:
    """The key of the place where `parent` names its child number `index`
    (numbered as `relay_text.ir.visitor.children` lists them)."""
    return (parent, index)


class Comments:
    """The comments of one module, attached to anchors."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.by_key: dict[Hashable, Attached] = {}
        self.eof: list[Note] = []
        self.head: list[Note] = []  # above the version header
        self.coarse = False  # comments moved to their statements (see `attach`)
        self.count = 0
        self._commented_starts: list[int] = []  # starts of anchors that carry comments
        self._comment_starts: list[int] = []
        self._comment_ends: list[int] = []

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
        text = self.text
        pos = self._back(start)
        if pos > 0 and text[pos - 1] in "({":  # `%n = { let ... }`
            pos = self._back(pos - 1)
        if pos == 0 or text[pos - 1] != "=":
            return False
        pos = self._back(pos - 1)
        m = _NAME_BEFORE.search(text, max(0, pos - 256), pos)
        if m is None:
            return False
        before = self._back(m.start())
        return not (text[max(0, before - 3) : before] == "let" and (before < 4 or not text[before - 4].isalnum()))

    def _back(self, pos: int) -> int:
        """Move back over blanks and comments."""
        return skip_back(self.text, pos, self._comment_starts, self._comment_ends)

    def any_within(self, start: int, end: int) -> bool:
        """Whether a commented anchor starts inside `[start, end)`."""
        starts = self._commented_starts
        i = bisect_left(starts, start)
        return i < len(starts) and starts[i] < end


# ---------------------------------------------------------------- anchors


class _Anchors:
    def __init__(self, text: str, comments: list[Comment]) -> None:
        self.text = text
        self.starts: list[int] = [c.span.start for c in comments]
        self.ends: list[int] = [c.span.end for c in comments]
        self.items: list[tuple[int, int, int, Hashable]] = []  # (start, end, seq, key)
        # Anchors printed at the start of a line, with the empty lines before
        # them kept: definitions, `let` statements, graph bindings.
        self.line_level: set[Hashable] = set()

    def add(self, start: int, end: int, key: Hashable) -> None:
        if end > start:
            self.items.append((start, end, len(self.items), key))

    def in_comment(self, pos: int) -> bool:
        i = bisect_right(self.starts, pos) - 1
        return i >= 0 and pos < self.ends[i]

    def comment_inside(self, start: int, end: int) -> bool:
        i = bisect_left(self.starts, start)
        return i < len(self.starts) and self.starts[i] < end

    def skip_comments_back(self, pos: int) -> int:
        """Move back over blanks, commas and comments from `pos`."""
        return skip_back(self.text, pos, self.starts, self.ends, " \t\r\n,")

    def code_between(self, start: int, end: int) -> str:
        """The text in `[start, end)` without comments and blanks."""
        text = self.text
        out = []
        pos = start
        i = bisect_left(self.starts, start)
        while pos < end:
            if i < len(self.starts) and self.starts[i] < end:
                out.append(text[pos : self.starts[i]])
                pos = self.ends[i]
                i += 1
            else:
                out.append(text[pos:end])
                break
        return "".join("".join(out).split())


_NAME_CHAR = re.compile(r"[A-Za-z0-9_]")
_NAME_BEFORE = re.compile(r"%[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$")
_LOCAL = re.compile(r"%[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*")


def _call_order(node: Call) -> list:
    if node.infix is not None and len(node.args) == 2:
        return [(1, node.args[0]), (0, node.op), (2, node.args[1])]
    out = [(0, node.op)]
    out += [(i + 1, a) for i, a in enumerate(node.args)]
    return out


# (child index, child) of a node in the order their text appears; indices
# are those of `relay_text.ir.visitor.children`.
_TEXT_ORDER: dict[type, Any] = {
    Call: _call_order,
    Tuple: lambda n: list(enumerate(n.fields)),
    TupleGetItem: lambda n: [(0, n.tuple_value)],
    Let: lambda n: [(1, n.value), (2, n.body)],
    Function: lambda n: [(len(n.params), n.body)],
    If: lambda n: [(0, n.cond), (1, n.then_branch), (2, n.else_branch)],
    Match: lambda n: [(0, n.data)] + [(i + 1, c.body) for i, c in enumerate(n.clauses)],
    RefCreate: lambda n: [(0, n.value)],
    RefRead: lambda n: [(0, n.ref)],
    RefWrite: lambda n: [(0, n.ref), (1, n.value)],
}


def _text_order(node: Expr) -> list[tuple[int, Any]]:
    order = _TEXT_ORDER.get(type(node))
    return order(node) if order is not None else []


_ATOMS = (Var, GlobalVar, Constructor)
_ATOM_TYPES = frozenset(_ATOMS)
_LEAVES = frozenset((Var, GlobalVar, Constructor, Op, Constant))


def _binders(node: Expr) -> list[Var]:
    t = type(node)
    if t is Let:
        return [node.var] if node.var.name else []
    if t is Function:
        return list(node.params)
    if t is Match:
        return [v for clause in node.clauses for v in pattern_vars(clause.pattern)]
    return []


_OPERAND_PARENTS = frozenset({Call, Tuple, TupleGetItem, RefCreate, RefRead, RefWrite})


class _Collector:
    """Registers the anchors of a module."""

    def __init__(self, module: Module, anchors: _Anchors) -> None:
        self.module = module
        self.a = anchors
        self.text = anchors.text
        self.seen: set[int] = set()
        self.binder_ends: dict[Var, int] = {}

    def run(self) -> None:
        module = self.module
        a = self.a
        for var in module.free_vars:
            if var.span is not None:
                start = self.text.rfind("free_var", 0, var.span.start)
                a.add(start if start >= 0 else var.span.start, self._binder_end(var), var)
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
            end = a.skip_comments_back(following)
            a.add(ctor.span.start, max(end, ctor.span.end), ctor)  # type: ignore[union-attr]

    def _binder_end(self, var: Var) -> int:
        """End of a binder with its annotation: `%x: Tensor[(1, 2), float32]`."""
        known = self.binder_ends.get(var)
        if known is not None:
            return known
        assert var.span is not None
        text = self.text
        end = var.span.end
        pos = end
        n = len(text)
        while pos < n and text[pos] in " \t":
            pos += 1
        if pos >= n or text[pos] != ":":
            self.binder_ends[var] = end
            return end
        starts, ends = self.a.starts, self.a.ends
        ci = bisect_left(starts, pos)
        next_comment = starts[ci] if ci < len(starts) else n
        depth = 0
        pos += 1
        last = pos
        while pos < n:
            if pos >= next_comment:  # jump over a comment
                pos = ends[ci]
                ci += 1
                next_comment = starts[ci] if ci < len(starts) else n
                continue
            ch = text[pos]
            if ch in "([":
                depth += 1
            elif ch in ")]":
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and ch in ",=;{}":
                break
            if ch not in " \t\r\n":
                last = pos + 1
            pos += 1
        self.binder_ends[var] = last
        return last

    def walk(self, root: Expr) -> None:
        a = self.a
        add = a.add
        uses = self.module.positions.uses if self.module.positions is not None else {}
        seen = self.seen
        atoms = _ATOM_TYPES
        leaves = _LEAVES
        stack = [root]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            t = type(node)
            span = node.span
            if span is not None and t not in atoms:  # their spans are where they are defined
                add(span.start, span.end, node)
            if t is Let:
                a.line_level.add(node)
            for var in _binders(node):
                if var.span is not None:
                    add(var.span.start, self._binder_end(var), var)
            if t is Match:
                for clause in node.clauses:
                    if clause.span is not None:
                        add(clause.span.start, clause.span.end, clause)
            children = _text_order(node)
            if not children:
                continue
            # Only look for occurrences in text that holds a comment.
            scan = span is not None and a.comment_inside(span.start, span.end)
            cursor = span.start if span is not None else 0
            end = span.end if span is not None else 0
            if t is TupleGetItem and scan:
                scan = not self.text.startswith("%", span.start)
            if scan:
                cursor = max(cursor, self._after_binders(node, cursor))
            for index, child in children:
                if scan and t is Match and index >= 1:
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
                            inner = self._inner_brackets(at, cspan)
                            if inner is not None:  # `({ ... } /* c */)`: the same place
                                add(inner[0], inner[1], occurrence(node, index))
                else:
                    if cspan is not None and ct not in leaves:
                        a.line_level.add(child)  # written as a graph binding
                    if scan:
                        found = self.find_occurrence(child, cursor, end)
                        if found is not None:
                            add(found[0], found[1], occurrence(node, index))
                            cursor = found[1]
                if ct not in leaves:
                    stack.append(child)

    def _inner_brackets(self, at: tuple[int, int], child: Span) -> tuple[int, int] | None:
        """For `( { ... } )` (a block in parentheses), the extent of the
        inner brackets, so that a comment after either closing bracket
        anchors to the same operand. The inner brackets are the child's
        own only if its span lies strictly inside them (`(%a) + (%b)` starts
        and ends with brackets that are not one pair)."""
        text = self.text
        start, end = at
        if text[start] != "(" or text[end - 1] != ")":
            return None
        inner_start = skip_trivia(text, start + 1)
        inner_end = self.a.skip_comments_back(end - 1)
        if text[inner_start : inner_start + 1] not in ("(", "{") or text[inner_end - 1 : inner_end] not in (")", "}"):
            return None
        if not (inner_start < child.start and child.end < inner_end):
            return None
        return inner_start, inner_end

    def _after_binders(self, node: Expr, cursor: int) -> int:
        """Where the text after a node's binders starts (a use of `%x` in a
        body must not be found in the parameter list)."""
        if isinstance(node, Let) and node.var.name and node.var.span is not None:
            return self._binder_end(node.var)  # (`e;` has no binder to skip)
        if isinstance(node, Function):
            # The body starts at the first `{` after the parameters (the
            # header may name the function itself: `def @f() { @f }`).
            ends = [self._binder_end(p) for p in node.params if p.span is not None]
            pos = max(ends) if ends else cursor
            end = node.span.end if node.span is not None else len(self.text)
            while True:
                brace = self.text.find("{", pos, end)
                if brace < 0:
                    return pos
                if not self.a.in_comment(brace):
                    return brace + 1
                pos = brace + 1
        return cursor

    def find_occurrence(self, child: Any, start: int, end: int) -> tuple[int, int] | None:
        text = self.text
        a = self.a
        if isinstance(child, Var):
            spelling = "%" + child.name
        elif isinstance(child, GlobalVar):
            spelling = "@" + child.name
        elif isinstance(child, Constructor):
            spelling = child.name
        elif isinstance(child, Constant):
            return None
        else:  # a shared node, named by its graph binding
            pos = start
            while True:
                m = _LOCAL.search(text, pos, end)
                if m is None:
                    return None
                if not a.in_comment(m.start()):
                    return m.start(), m.end()
                pos = m.end()
        pos = start
        while True:
            i = text.find(spelling, pos, end)
            if i < 0:
                return None
            j = i + len(spelling)
            before_ok = isinstance(child, (Var, GlobalVar)) or i == 0 or not (
                _NAME_CHAR.match(text, i - 1) or text[i - 1] in ".%@"
            )
            after_ok = j >= len(text) or not _NAME_CHAR.match(text, j)
            if before_ok and after_ok and not a.in_comment(i):
                return i, j
            pos = j


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
    result = Comments(text)
    comments = sorted(module.comments, key=lambda c: c.span.start)
    if not comments:
        return result
    result.count = len(comments)
    result.coarse = coarse
    anchors = _Anchors(text, comments)
    result._comment_starts = anchors.starts
    result._comment_ends = anchors.ends
    _Collector(module, anchors).run()
    items = anchors.items
    # By start: outermost (longest) first; by end: outermost (earliest start)
    # first; the first registered wins a tie. The first of each wins below.
    ordered = sorted(items, key=lambda t: (t[0], -t[1], t[2]))
    by_start = {t[0]: (t[1], t[2], t[3]) for t in reversed(ordered)}
    by_end = {t[1]: (t[0], t[2], t[3]) for t in sorted(items, key=lambda t: (-t[1], -t[0], -t[2]))}
    starts = sorted(by_start)
    ends = sorted(by_end)
    notes = [_note(i, c, text) for i, c in enumerate(comments)]
    key_start: dict[Hashable, int] = {}
    for start, _, _, key in items:
        key_start.setdefault(key, start)
    stack: list[tuple[int, int, int, Hashable]] = []
    ai = 0
    root = (0, len(text) + 1, -1, MODULE)
    gap: tuple = ()  # (previous anchor, next anchor) of the last comment that led the next anchor
    header_start = module.header.start if module.header is not None else -1
    # (the module's trailing expression is no definition: its bindings print
    # before it, so at this level its comments go to the end of the file)
    tops = set(module.functions.values()) | set(module.type_defs.values()) | set(module.free_vars)
    level = tops if coarse == "definition" else anchors.line_level
    statements = sorted((t[0], t[1], t[3]) for t in items if t[3] in level) if coarse else []
    code_end = _code_end(text)
    for note, comment in zip(notes, comments):
        cs, ce = comment.span.start, comment.span.end
        if ce <= header_start:
            result.head.append(note)
            continue
        if cs >= code_end and (note.own_line or coarse):  # below all the code
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
            p_start, _, p_key = by_end[ends[i]]
            if p_start >= c_start and p_key is not container[3]:
                prev = (p_start, ends[i], p_key)
        j = bisect_left(starts, ce)
        if j < len(starts):
            n_end, _, n_key = by_start[starts[j]]
            if n_end <= c_end and n_key is not container[3]:
                nxt = (starts[j], n_end, n_key)
        here = (prev[2] if prev else None, nxt[2] if nxt else None)
        if coarse == "definition" and (not stack or stack[0][3] not in tops):
            stack = []  # outside every definition
        placed = _statement(stack, statements, level, cs, ce) if coarse else None
        if coarse == "definition" and placed is None:
            result.eof.append(note)
            continue
        if placed is not None:
            target, where = placed
            note.own_line, note.inline_lead = where == "before", False
        elif nxt is not None and gap == here:
            target, where = nxt[2], "before"  # keep the order of a run of comments
        else:
            target, where = _decide(note, prev, nxt, anchors)
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
        getattr(entry, where).append(note)
    result._commented_starts = sorted(key_start[k] for k in result.by_key)
    return result


def _code_end(text: str) -> int:
    """Where the last token of code ends (comments after it belong to the end of the file)."""
    end = len(text)
    for marker in ("\n#[metadata]", "\nMETADATA:"):
        at = text.find(marker)
        if at >= 0:
            end = min(end, at)
    pos = end
    while pos > 0:
        stripped = text[:pos].rstrip()
        pos = len(stripped)
        if stripped.endswith("*/"):
            depth, i = 0, pos
            while i > 0:  # back over a (nested) block comment
                if text.startswith("*/", i - 2):
                    depth, i = depth + 1, i - 2
                elif text.startswith("/*", i - 2):
                    depth, i = depth - 1, i - 2
                    if depth == 0:
                        break
                else:
                    i -= 1
            pos = i
            continue
        line_start = stripped.rfind("\n") + 1
        line = stripped[line_start:]
        cut = _line_comment_start(line)
        if cut is not None:
            pos = line_start + cut
            continue
        return pos
    return 0


def _line_comment_start(line: str) -> int | None:
    """Where a `//` or `#` comment starts on a line of code, if it has one
    (outside strings)."""
    quoted = False
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == '"':
            quoted = not quoted
        elif not quoted and (line.startswith("//", i) or (ch == "#" and not line.startswith("#[", i))):
            return i
        i += 1
    return None


def _statement(
    stack: list[tuple[int, int, int, Hashable]],
    statements: list[tuple[int, int, Hashable]],
    line_level: set[Hashable],
    cs: int,
    ce: int,
) -> tuple[Hashable, str] | None:
    """Where the coarse placement puts a comment inside a top-level item: it
    leads the next statement that starts after it in that item, or else
    trails the last statement before it (so that comments keep their order)."""
    i = bisect_left(statements, (ce, -1))
    while i < len(statements) and statements[i][0] < ce:
        i += 1
    if not stack:  # between top-level items: it leads the next one (if any)
        return (statements[i][2], "before") if i < len(statements) else None
    top_start, top_end, _, top = stack[0]
    if i < len(statements) and statements[i][0] < top_end and statements[i][2] is not top:
        return statements[i][2], "before"
    lines = [item[3] for item in stack[1:] if item[3] in line_level]
    if lines:  # in the last statement of its item (its tail): after that statement
        return lines[-1], "after_term"
    best = None
    for start, end, key in statements:
        if start >= cs:
            break
        if top_start <= start and end <= cs and key is not top:
            best = key
    if best is not None:
        return best, "after_term"
    return top, "before"


def _note(index: int, comment: Comment, text: str) -> Note:
    start = comment.span.start
    line_start = text.rfind("\n", 0, start) + 1
    own_line = text[line_start:start].strip() == ""
    is_line = not comment.text.startswith("/*")
    blank = own_line and blank_line_before(text, start)
    end = comment.span.end
    line_end = text.find("\n", end)
    rest = text[end : line_end if line_end >= 0 else len(text)]
    inline = not is_line and rest.strip() != ""
    return Note(index, comment.text, own_line, is_line, blank, inline)


def skip_back(text: str, pos: int, starts: list[int], ends: list[int], blanks: str = " \t\r\n") -> int:
    """Move back from `pos` over `blanks` and over the comments that end
    where it stands (`starts`/`ends`: the comments' offsets, sorted)."""
    while pos > 0:
        if text[pos - 1] in blanks:
            pos -= 1
            continue
        i = bisect_left(ends, pos)
        if i < len(ends) and ends[i] == pos:
            pos = starts[i]
            continue
        break
    return pos


def statement_start(text: str, pos: int, starts: list[int], ends: list[int]) -> int:
    """Where the statement whose value starts at `pos` begins: before
    `%n = (` when the value is a bracketed block bound to a temporary."""

    def back(p: int) -> int:
        return skip_back(text, p, starts, ends)

    p = back(pos)
    if p > 0 and text[p - 1] in "({":
        p = back(p - 1)
        if p > 0 and text[p - 1] == "=":
            m = _NAME_BEFORE.search(text, max(0, p - 257), back(p - 1))
            if m is not None:
                return m.start()
    return pos


_GRAPH_HEAD = re.compile(r"(?:%[A-Za-z0-9_.]+=)?")
_STATEMENT_PREFIX = re.compile(r"\s*(?:%[A-Za-z0-9_.]+\s*=\s*)?$")


def blank_line_before(text: str, pos: int) -> bool:
    """Whether the code at `pos` starts its line (after an optional `%n =`)
    and an empty line comes right before that line."""
    line_start = text.rfind("\n", 0, pos) + 1
    if not _STATEMENT_PREFIX.match(text[line_start:pos]):
        return False
    if line_start == 0:
        return False
    prev_start = text.rfind("\n", 0, line_start - 1) + 1
    return text[prev_start : line_start - 1].strip() == ""


def _decide(note: Note, prev: tuple | None, nxt: tuple | None, anchors: _Anchors) -> tuple[Any, str]:
    between = anchors.code_between(prev[1], _start_of(note, anchors)) if prev is not None else None
    if not note.own_line:
        if prev is not None and between in ("", ",", ";"):
            return prev[2], ("after_term" if between else "after")
        if nxt is not None:
            return nxt[2], "before"
        if prev is not None:
            return prev[2], ("after_term" if between and between[-1] in ",;" else "after")
        return None, ""
    if nxt is not None:
        end = anchors.ends[note.index]
        if prev is not None:
            if (
                nxt[2] in anchors.line_level
                and not note.blank_before
                and between in ("", ",", ";")
                and _blank_line_after(anchors, end)
            ):
                return prev[2], "after"  # hugs the code above, an empty line below
            if not _GRAPH_HEAD.fullmatch(anchors.code_between(end, nxt[0])):
                return prev[2], "after"  # the last thing before a `)`, `}`, `else`, ...
        return nxt[2], "before"
    if prev is not None:
        return prev[2], "after"
    return None, ""


def _blank_line_after(anchors: _Anchors, pos: int) -> bool:
    """Whether an empty line comes between `pos` and the next code (other
    comments in between are skipped)."""
    text = anchors.text
    n = len(text)
    while pos < n:
        newlines = 0
        while pos < n and text[pos] in " \t\r\n":
            if text[pos] == "\n":
                newlines += 1
                if newlines >= 2:
                    return True
            pos += 1
        i = bisect_left(anchors.starts, pos)
        if i < len(anchors.starts) and anchors.starts[i] == pos:
            pos = anchors.ends[i]
            continue
        return False
    return False


def _start_of(note: Note, anchors: _Anchors) -> int:
    return anchors.starts[note.index]
