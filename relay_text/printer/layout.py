"""A small document algebra for pretty-printing, laid out without recursion.

A document is one of:

    "text"            a string without newlines, printed as is
    [d1, d2, ...]     concatenation
    Group(d)          print `d` on one line if it fits, else break its lines
    Nest(n, d)        lines broken inside `d` are indented `n` more columns
    LINE              a space when its group is flat, else a newline
    SOFTLINE          nothing when its group is flat, else a newline
    HARDLINE          always a newline (and every enclosing group breaks)
    BREAK_PARENT      prints nothing, but every enclosing group breaks
    EOL               prints nothing, but the next text starts a new line
                      (what follows a `//` comment); enclosing groups break
    BOL               a newline unless the line is still empty (what comes
                      before a comment that has a line of its own)
    Verbatim(s)       text that may contain newlines (a block comment)
    Lazy(key)         text decided while laying out, by a `Resolver`
    Mark(kind, arg)   prints nothing; tells the `Resolver` where it stands
    Deferred(build)   the document `build()` returns, built when the layout
                      reaches it and let go once laid out (a file's
                      definitions: one document at a time in memory)
    Stream(start)     a document given in parts while it is laid out: each
                      part is printed as it comes and let go (the
                      statements of one long function, one at a time)

The layout is Wadler's algorithm as prettier implements it: a group is
flat when its content, followed by the text up to the next possible line
break, fits in the remaining width. Documents are processed with an
explicit stack, so a document nested 100,000 levels deep lays out like a
flat one. Indentation stops growing at `MAX_INDENT` columns so that very
deep nesting cannot make the output quadratic in size.

`Lazy` and `Mark` let a client decide names in text order (the only order
in which shadowing and numbering are meaningful): the layout calls
`resolver.mark(mark)` and `resolver.text(lazy)` exactly in output order,
and `resolver.width(lazy)` when it only measures.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Iterable, Sequence
from typing import Any, Protocol, TypeAlias

MAX_INDENT = 64


class Group:
    __slots__ = ("doc",)

    def __init__(self, doc: Doc) -> None:
        self.doc = doc


class Nest:
    __slots__ = ("doc", "indent")

    def __init__(self, indent: int, doc: Doc) -> None:
        self.indent = indent
        self.doc = doc


class Break:
    """A line break: `flat` is what it prints in a flat group."""

    __slots__ = ("flat", "hard", "name")

    def __init__(self, flat: str, hard: bool, name: str) -> None:
        self.flat = flat
        self.hard = hard
        self.name = name

    def __repr__(self) -> str:
        return self.name


LINE = Break(" ", False, "LINE")
SOFTLINE = Break("", False, "SOFTLINE")
HARDLINE = Break("", True, "HARDLINE")
BREAK_PARENT = Break("", True, "BREAK_PARENT")
EOL = Break("", True, "EOL")
BOL = Break("", True, "BOL")


class Verbatim:
    """Text that may span lines; it is never re-indented."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class Lazy:
    """A piece of text chosen by the resolver when the layout reaches it."""

    __slots__ = ("key", "kind")

    def __init__(self, kind: str, key: Any) -> None:
        self.kind = kind
        self.key = key


class Mark:
    """A zero-width position reported to the resolver."""

    __slots__ = ("arg", "kind")

    def __init__(self, kind: str, arg: Any = None) -> None:
        self.kind = kind
        self.arg = arg


class Deferred:
    """A document built when it is needed, and handed out once: the layout
    lets it go as it prints it. Built in document order (a look-ahead that
    reaches it builds it early), so the builder may rely on the order."""

    __slots__ = ("build", "doc")

    def __init__(self, build: Callable[[], Doc]) -> None:
        self.build: Callable[[], Doc] | None = build
        self.doc: Doc | None = None

    def peek(self) -> Doc:
        if self.build is not None:
            self.doc, self.build = self.build(), None
        return self.doc if self.doc is not None else []

    def take(self) -> Doc:
        doc = self.peek()
        self.doc = None
        return doc


class Stream:
    """A document handed to the layout in parts, while it is laid out.

    When the layout reaches a stream it calls `start(stream)`: the producer
    `put`s parts, calls `flush` to have what it put printed (the layout
    prints up to where it needs more, then returns), and `close`s the
    stream. A part may hold further streams made by `hole()`, filled the
    same way while the producer runs; each must be closed. Every part is
    let go once printed, so a long document is never held whole.

    A look-ahead cannot see into parts not yet given: a stream must follow
    a hard line break (what a measuring look-ahead stops at anyway)."""

    __slots__ = ("_steps", "closed", "parts", "start")

    def __init__(self, start: Callable[[Stream], None] | None = None) -> None:
        self.start = start
        self.parts: deque[Doc] = deque()
        self.closed = False
        self._steps: _Steps | None = None

    def put(self, doc: Doc) -> None:
        self.parts.append(doc)

    def flush(self) -> None:
        """Print what was put, as far as the layout can go without more."""
        assert self._steps is not None, "a stream is filled once the layout reaches it"
        self._steps.advance()

    def close(self) -> None:
        self.closed = True

    def hole(self) -> Stream:
        """A stream to place inside a part of this one, filled by the same producer."""
        inner = Stream()
        inner._steps = self._steps
        return inner


class _Steps:
    """The layout's generator, resumed by the producer of a stream."""

    __slots__ = ("gen", "text", "waiting")

    def __init__(self, gen: Generator[Stream, None, str]) -> None:
        self.gen = gen
        self.waiting: Stream | None = None  # the stream the layout waits on; None once done
        self.text = ""

    def advance(self) -> None:
        try:
            self.waiting = next(self.gen)
        except StopIteration as done:
            self.waiting = None
            self.text = done.value


Doc: TypeAlias = "str | list[Doc] | Group | Nest | Break | Verbatim | Lazy | Mark | Deferred | Stream"


class Resolver(Protocol):
    def text(self, lazy: Lazy) -> str: ...

    def width(self, lazy: Lazy) -> int: ...

    def mark(self, mark: Mark) -> None: ...


# ---------------------------------------------------------------- building


def group(*docs: Doc) -> Group:
    return Group(list(docs) if len(docs) != 1 else docs[0])


def nest(indent: int, *docs: Doc) -> Nest:
    return Nest(indent, list(docs) if len(docs) != 1 else docs[0])


def join(separator: Doc, docs: Iterable[Doc]) -> list[Doc]:
    out: list[Doc] = []
    for i, d in enumerate(docs):
        if i:
            out.append(separator)
        out.append(d)
    return out


def bracket(
    open_: str, items: Sequence[Doc], close: str, indent: int = 2, separator: str = ",", trailing: str = ""
) -> Group:
    """`open item, item, ... close`, or one item per line when too long.

    `trailing` is printed after the last item in both layouts (the `,` of a
    one-element tuple).
    """
    if not items:
        return Group([open_, close])
    body: list[Doc] = []
    for i, item in enumerate(items):
        if i:
            body.append(separator)
            body.append(LINE)
        body.append(item)
    if trailing:
        body.append(trailing)
    return Group([open_, Nest(indent, [SOFTLINE, body]), SOFTLINE, close])


# ---------------------------------------------------------------- layout


class _NoResolver:
    def text(self, lazy: Lazy) -> str:
        raise TypeError(f"no resolver for lazy text {lazy.kind!r}")

    def width(self, lazy: Lazy) -> int:
        return 0

    def mark(self, mark: Mark) -> None:
        return None


def layout(
    doc: Doc, width: int = 100, resolver: Resolver | None = None, settle: Callable[[str], str] | None = None
) -> str:
    """Lay `doc` out in `width` columns and return the text.

    `settle`, if given, is applied to each piece of the text written before
    a `Deferred` or a `Stream`, and to pieces of a stream's text (and to the
    rest at the end): the resolver's last word on it (names of temporaries
    known only once their statement ended)."""
    res = resolver if resolver is not None else _NoResolver()
    steps = _Steps(_layout_steps(doc, width, res, settle))
    steps.advance()
    while steps.waiting is not None:
        stream = steps.waiting
        start = stream.start
        if start is None:
            raise RuntimeError("a stream was left open by its producer")
        stream.start = None
        stream._steps = steps
        start(stream)
        if not stream.closed:
            raise RuntimeError("a stream was left open by its producer")
        steps.advance()
    return steps.text


# Text pieces a stream's parts may leave before they are joined (and settled)
_JOIN_EVERY = 4096


def _layout_steps(
    doc: Doc, width: int, res: Resolver, settle: Callable[[str], str] | None
) -> Generator[Stream, None, str]:
    """The layout; it yields each `Stream` it needs parts of, and returns the text."""
    out: list[str] = []
    done: list[str] = []  # pieces of text already joined (see `Deferred`)

    def set_aside(more_than: int) -> None:
        """Join the text so far into one settled piece, if a line just ended
        and `out` holds more than `more_than` pieces."""
        if len(out) > more_than and out[-1] == "\n":
            piece = "".join(out[:-1])
            done.append(settle(piece) if settle is not None else piece)
            out[:] = ["\n"]

    write = out.append
    col = 0
    pending = -1  # indentation owed after a newline, written before the next text
    need_newline = False  # set by EOL: the next text goes on a new line
    # Entries: (indent, flat, doc).
    stack: list[tuple[int, bool, Any]] = [(0, False, doc)]
    pop = stack.pop
    push = stack.append
    while stack:
        indent, flat, d = pop()
        t = type(d)
        if t is str or t is Lazy or t is Verbatim:
            text = d if t is str else (res.text(d) if t is Lazy else d.text)
            if not text:
                continue
            if need_newline:
                _newline(out)
                pending = indent
                need_newline = False
            if pending >= 0:
                if pending:
                    write(" " * pending)
                col = pending
                pending = -1
            write(text)
            if t is str:
                col += len(text)
            else:
                newline = text.rfind("\n")
                col = col + len(text) if newline < 0 else len(text) - newline - 1
        elif t is list:
            for item in reversed(d):
                push((indent, flat, item))
        elif t is Group:
            if flat:
                push((indent, True, d.doc))
                continue
            start = indent if need_newline else pending if pending >= 0 else col
            leaves = _fits(d.doc, width - start, stack, res)
            if leaves is None:
                push((indent, False, d.doc))
                continue
            # It fits: print the flat text gathered while measuring.
            for leaf in leaves:
                if isinstance(leaf, Mark):
                    res.mark(leaf)
                    continue
                text = res.text(leaf) if isinstance(leaf, Lazy) else leaf
                if not text:
                    continue
                if need_newline:
                    _newline(out)
                    pending = indent
                    need_newline = False
                if pending >= 0:
                    if pending:
                        write(" " * pending)
                    col = pending
                    pending = -1
                write(text)
                col += len(text)
        elif t is Nest:
            deeper = indent + d.indent
            push((deeper if deeper <= MAX_INDENT else MAX_INDENT, flat, d.doc))
        elif t is Break:
            if d is BREAK_PARENT:
                continue
            if d is EOL:
                need_newline = True
                continue
            if d is BOL:
                if pending < 0 and out and out[-1] != "\n":
                    need_newline = True
                continue
            if flat and not d.hard:
                if d.flat and not need_newline:
                    if pending >= 0:
                        if pending:
                            write(" " * pending)
                        col = pending
                        pending = -1
                    write(d.flat)
                    col += len(d.flat)
            else:
                _newline(out)
                pending = indent
                col = indent
                need_newline = False
        elif t is Mark:
            res.mark(d)
        elif t is Deferred:
            set_aside(1)
            push((indent, flat, d.take()))
        elif t is Stream:
            if d.start is not None:
                set_aside(1)
            while not d.parts and not d.closed:
                yield d
            if d.parts:
                set_aside(_JOIN_EVERY)
                push((indent, flat, d))
                push((indent, flat, d.parts.popleft()))
        else:
            raise TypeError(f"not a document: {d!r}")
    piece = "".join(out)
    done.append(settle(piece) if settle is not None else piece)
    return "".join(done)


def _newline(out: list[str]) -> None:
    """End the line, dropping the spaces printed last on it."""
    while out and out[-1] and out[-1].strip(" ") == "":
        out.pop()
    out.append("\n")


def _fits(doc: Doc, remaining: int, rest: list[tuple[int, bool, Any]], res: Resolver) -> list[str | Lazy | Mark] | None:
    """The flat leaves of `doc` if it fits in `remaining` columns together
    with what follows it up to the next line break; None if it does not."""
    leaves: list[str | Lazy | Mark] = []
    keep = leaves.append
    todo: list[Any] = [doc]
    pop = todo.pop
    push = todo.append
    # The group's own content, flat.
    while todo:
        d = pop()
        t = type(d)
        if t is str:
            remaining -= len(d)
            if remaining < 0:
                return None
            keep(d)
        elif t is list:
            for item in reversed(d):
                push(item)
        elif t is Group or t is Nest:
            push(d.doc)
        elif t is Break:
            if d.hard:
                return None
            if d.flat:
                remaining -= 1
                if remaining < 0:
                    return None
                keep(d.flat)
        elif t is Lazy:
            w = res.width(d)
            if w < 0:
                return None
            remaining -= w
            if remaining < 0:
                return None
            keep(d)
        elif t is Mark:
            keep(d)
        elif t is Verbatim:
            if "\n" in d.text:
                return None
            remaining -= len(d.text)
            if remaining < 0:
                return None
            keep(d.text)
        elif t is Deferred:
            push(d.peek())
        elif t is Stream and (d.parts or not d.closed):
            return None  # (its parts follow a line break)
    # What follows, in its own mode, up to the next line break.
    index = len(rest)
    flat_todo: list[tuple[bool, Any]] = []
    while remaining >= 0:
        if not flat_todo:
            if index == 0:
                return leaves
            index -= 1
            entry = rest[index]
            flat_todo.append((entry[1], entry[2]))
            continue
        flat, d = flat_todo.pop()
        t = type(d)
        if t is str:
            remaining -= len(d)
        elif t is list:
            for item in reversed(d):
                flat_todo.append((flat, item))
        elif t is Group or t is Nest:
            flat_todo.append((flat, d.doc))
        elif t is Break:
            if d.hard:
                if d is not BREAK_PARENT:
                    return leaves
            elif flat:
                remaining -= len(d.flat)
            else:
                return leaves
        elif t is Lazy:
            w = res.width(d)
            if w < 0:
                return leaves
            remaining -= w
        elif t is Verbatim:
            if "\n" in d.text:
                return leaves
            remaining -= len(d.text)
        elif t is Deferred:
            flat_todo.append((flat, d.peek()))
        elif t is Stream and (d.parts or not d.closed):
            return leaves  # (its parts follow a line break)
    return None


def flat_text(doc: Doc) -> str:
    """The one-line rendering of a document without lazy parts (for messages)."""
    out: list[str] = []
    stack: list[Any] = [doc]
    while stack:
        d = stack.pop()
        t = type(d)
        if t is str:
            out.append(d)
        elif t is list:
            stack.extend(reversed(d))
        elif t is Group or t is Nest:
            stack.append(d.doc)
        elif t is Break:
            out.append(d.flat)
        elif t is Verbatim:
            out.append(d.text)
    return "".join(out)
