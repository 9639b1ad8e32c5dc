"""Who answers for a document: its analysis, its recovered part, its last good version.

A document that parses is answered by its analysis. One with syntax errors
(most of the time while typing) is answered by two views of it:

* `main`: the analysis of the text with its broken definitions blanked
  (`recovery.recovered`): everything about the other definitions, at the
  document's own offsets; in the broken definitions (its `holes`), only
  what the tokens say (a local is bound where its name is first written).
* `good`: the last analysis of the document that parsed, its offsets
  mapped to the current text through what was edited since
  (`textmap.TextMap`): what the broken definitions were before the edit,
  where their text is unchanged.

At an offset outside the holes `main` knows best, then `good`; inside
them `good` (where its text is unchanged), then `main`. References and
renames take each occurrence from the view that knows best at its place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import names as nm
from .document import Analysis
from .positions import UTF16, LineIndex
from .textmap import TextMap

_BY_NAME = (nm.GLOBAL, nm.CONSTRUCTOR, nm.DATA, nm.OPERATOR)


def incomplete(ty: Any) -> bool:
    """Whether a type still holds a hole (`_`): what the recovered analysis
    infers where a broken definition's type is missing."""
    from ..check.types import ErrorType
    from ..ir.ty import DimBinOp, FuncType, IncompleteType, TensorType, TupleType, TypeCall

    stack = [ty]
    while stack:
        t = stack.pop()
        if isinstance(t, (IncompleteType, ErrorType)):
            return True
        if isinstance(t, TensorType):
            stack.append(t.dtype)
            if isinstance(t.shape, tuple):
                stack.extend(t.shape)
            else:
                stack.append(t.shape)
        elif isinstance(t, TupleType):
            stack.extend(t.fields)
        elif isinstance(t, FuncType):
            stack.extend(t.arg_types)
            stack.append(t.ret_type)
        elif isinstance(t, TypeCall):
            stack.extend(t.args)
        elif isinstance(t, DimBinOp):
            stack.extend((t.lhs, t.rhs))
    return False


class View:
    """An analysis answering for the document, with the map from its text to
    the document's (None: it is the document's text)."""

    def __init__(self, analysis: Analysis, textmap: TextMap | None = None) -> None:
        self.analysis = analysis
        self.map = textmap if textmap is not None and not textmap.identity else None

    def to_view(self, offset: int) -> int | None:
        return offset if self.map is None else self.map.backward(offset)

    def from_view(self, offset: int) -> int | None:
        return offset if self.map is None else self.map.forward(offset)

    def span_to_view(self, start: int, end: int) -> tuple[int, int] | None:
        return (start, end) if self.map is None else self.map.span_backward(start, end)

    def span_from_view(self, start: int, end: int) -> tuple[int, int] | None:
        return (start, end) if self.map is None else self.map.span_forward(start, end)

    def in_document(self, span: Any) -> bool:
        return span is not None and span.source is self.analysis.source


@dataclass
class Found:
    """A name at the cursor: the target as `view` knows it, and where the
    name is written (in the document's offsets)."""

    view: View
    target: nm.Target
    start: int
    end: int
    is_def: bool = False


class Views:
    """The views of one version of a document (see the module's doc)."""

    def __init__(self, current: Analysis, recovered: Analysis | None = None, good: Analysis | None = None) -> None:
        self.current = current
        self.good_analysis = good  # as given (for the server's cache)
        if current.parsed:
            recovered, good = current, None
        self.main = View(recovered if recovered is not None else current)
        self.holes: tuple[tuple[int, int], ...] = (
            () if current.parsed else recovered.holes if recovered is not None else ((0, len(current.text) + 1),)
        )
        self.good = (
            View(good, TextMap(good.text, current.text)) if good is not None and good.module is not None else None
        )

    @property
    def uri(self) -> str:
        return self.current.uri

    @property
    def text(self) -> str:
        return self.current.text

    def lines(self, encoding: str = UTF16) -> LineIndex:
        return self.current.lines(encoding)

    @property
    def all(self) -> list[View]:
        return [self.main] if self.good is None else [self.main, self.good]

    def in_hole(self, offset: int) -> bool:
        return any(start <= offset < end for start, end in self.holes)

    def order(self, offset: int) -> list[View]:
        """The views to ask about `offset`, the one that knows best first."""
        if self.good is None:
            return [self.main]
        return [self.good, self.main] if self.in_hole(offset) else [self.main, self.good]

    def authority(self, offset: int) -> View:
        """The view whose reading of the text at `offset` counts."""
        if self.good is not None and self.in_hole(offset) and self.good.to_view(offset) is not None:
            return self.good
        return self.main

    # ---- names -------------------------------------------------------------

    def find(self, offset: int) -> Found | None:
        """The name at `offset`, as the view that knows best reads it. A
        local that only the tokens place (in text typed since the last
        good version) takes its binding from that version when the binding
        itself is unchanged."""
        for view in self.order(offset):
            o = view.to_view(offset)
            if o is None:
                continue
            occ = view.analysis.names.at(o)
            if occ is None:
                continue
            span = view.span_from_view(occ.start, occ.end)
            if span is None:
                continue
            found = Found(view, occ.target, span[0], span[1], occ.is_def)
            if view is self.main and occ.target.kind in nm.LOCAL_KINDS and occ.target.node is None:
                better = self.in_other(found, self.good) if self.good is not None else None
                if better is not None:
                    found = Found(self.good, better, span[0], span[1], occ.is_def)  # type: ignore[arg-type]  # good is set
            return found
        return None

    def in_other(self, found: Found, view: View) -> nm.Target | None:
        """The target of `view` that is `found`'s (the same binding, or the
        same name for globals, constructors, data types and operators)."""
        target = found.target
        if view is found.view:
            return target
        tables = view.analysis.names.tables
        if target.kind == nm.GLOBAL:
            return tables.globals.get(target.name[1:])
        if target.kind == nm.CONSTRUCTOR:
            return tables.constructors.get(target.name)
        if target.kind == nm.DATA:
            return tables.datas.get(target.name)
        if target.kind == nm.OPERATOR:
            return view.analysis.names._ops.get(target.name)
        d = target.definition
        if not found.view.in_document(d):
            return None
        assert d is not None  # in_document
        here = found.view.span_from_view(d.start, d.end)
        there = view.span_to_view(*here) if here is not None else None
        if there is None:
            return None
        occ = view.analysis.names.at(there[0])
        if occ is None or not occ.is_def or occ.target.name != target.name or occ.start != there[0]:
            return None
        return occ.target

    def occurrences(self, found: Found) -> dict[tuple[int, int], bool]:
        """Every place the document names `found`'s target ((start, end) in
        the document's offsets -> whether it is the definition), each read
        by the view that knows best there."""
        out: dict[tuple[int, int], bool] = {}
        for view in self.all:
            target = self.in_other(found, view)
            if target is None:
                continue
            for occ in view.analysis.names.references(target):
                span = view.span_from_view(occ.start, occ.end)
                if span is None or self.authority(span[0]) is not view:
                    continue
                out[span] = out.get(span, False) or occ.is_def
        out[(found.start, found.end)] = out.get((found.start, found.end), False) or found.is_def
        return dict(sorted(out.items()))

    # ---- types -------------------------------------------------------------

    def local_type(self, target: nm.Target, view: View | None = None) -> tuple[Any, Analysis] | None:
        """The type of a local binding of `view` (main's by default), and the
        analysis that knows it."""
        view = view or self.main
        own = None
        if target.node is not None:
            ty = view.analysis.type_of(target.node)
            own = (ty, view.analysis) if ty is not None else None
            if own is not None and not incomplete(ty):
                return own
        if self.good is None or view is self.good or target.definition is None:
            return own
        d = target.definition
        better = self.in_other(Found(view, target, d.start, d.end, True), self.good)
        if better is None or better.node is None:
            return own
        ty = self.good.analysis.type_of(better.node)
        return (ty, self.good.analysis) if ty is not None else own

    def global_type(self, name: str) -> tuple[Any, Analysis] | None:
        """The type of the global `@name` (the file's, else the Prelude's),
        and the analysis that knows it."""
        from .hover import _global_type

        partial = None
        for view in self.all:
            target = view.analysis.names.tables.globals.get(name)
            if target is None or (target.detail is None and not target.prelude):
                continue  # not checked in this view
            ty = _global_type(view.analysis, target)
            if ty is None:
                continue
            if not incomplete(ty):
                return ty, view.analysis
            partial = partial or (ty, view.analysis)
        return partial
