"""Printing a module or an expression to text: build its doc, lay it out,
settle its names.

    print_module(module, dialect=None, width=100)   a whole file
    print_expr(expr, dialect="docs", width=100)     one expression
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from collections.abc import Iterator

from ..ir.expr import Expr
from ..ir.module import Module
from .comments import Comments
from .definitions import Printer
from .dialects import DOCS, TVM, header_for
from .layout import Doc, layout


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


def _layout(printer: Printer, doc: Doc) -> str:
    names = printer.names
    for _ in range(4):
        names.reset()
        text = layout(doc, printer.width, names)
        if not names.changed:
            break
    return names.patch(text)  # names of TVM bindings, numbered once their statement ended


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
    if header == "auto":
        header = header_for(module, dialect)
    with no_gc():
        # One definition's document at a time; names settle as the text is
        # written. Renaming a binder (rare) means writing the text again:
        # then the whole file is printed again in one document, as a fresh
        # printer would (the comments handed out are attached again: the
        # same anchors, without a copy of the table held all along).
        printer = _printer(module, dialect, own, width, comments, bind_operands)
        names = printer.names
        names.reset()
        text = layout(printer.module(module, header, deferred=True), width, names, names.settle)
        changed = names.changed
        _let_go(printer)
        if changed:
            if comments is not None:
                from .comments import attach

                comments.by_key = attach(module, comments.coarse).by_key
            return render_whole(module, dialect, width, comments, header, bind_operands)
        return Printed(names.patch(text) if names.unsettled else text, names.comments_seen)


def _let_go(printer: Printer) -> None:
    """Drop what the printer holds (its names, plans, the comments and
    positions it reads): it refers to itself through bound methods, so
    without this its tables would wait for a collection pass, and the
    collector is paused while a file is formatted."""
    vars(printer).clear()


def render_whole(
    module: Module,
    dialect: str,
    width: int = 100,
    comments: Comments | None = None,
    header: str | None = None,
    bind_operands: bool = False,
) -> Printed:
    """`render_module` with the document of the whole file built first and
    laid out until its names settle (what `render_module` falls back to
    when a binder is renamed; the same text)."""
    own = TVM if module.version is not None else DOCS
    printer = _printer(module, dialect, own, width, comments, bind_operands)
    with no_gc():
        text = _layout(printer, printer.module(module, header))
    seen = printer.names.comments_seen
    _let_go(printer)
    return Printed(text, seen)


def _printer(
    module: Module, dialect: str, own: str, width: int, comments: Comments | None, bind_operands: bool
) -> Printer:
    keep_form = dialect == own and not bind_operands
    printer = Printer(
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
    return printer


def print_module(module: Module, dialect: str | None = None, width: int = 100) -> str:
    """A module as text (without the comments of its source)."""
    return render_module(module, dialect, width).text


def print_expr(expr: Expr, dialect: str = DOCS, width: int = 100) -> str:
    """An expression as text: its statements and final value, without a trailing newline."""
    printer = Printer(dialect, width, None, None)
    with no_gc():
        doc = printer.expr(expr)
        return _layout(printer, doc)
