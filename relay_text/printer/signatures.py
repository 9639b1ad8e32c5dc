"""Binders, attributes, written types, type parameters and lists."""

from __future__ import annotations

from typing import Any

from ..ir.expr import Expr, Var
from ..ir.ty import Kind, TypeVar
from ..syntax.spelling import Unspellable, attr_text
from ..text.type_text import type_params_text, type_text
from .comments import Attached
from .dialects import DOCS, TVM, PrintError
from .forms import Forms
from .layout import BREAK_PARENT, LINE, SOFTLINE, Doc, Group, Lazy, Nest, bracket
from .naming import bind
from .state import Piece, in_order, split_after
from .trivia import Note
from .types import type_doc


# how the source spelled the numbers of an attribute value (see `attr_text`)
Spelled = list[tuple[str, Any]]


class Signatures(Forms):
    """Binders, attributes, types and lists."""

    def _attr(self, value: Any, node: Expr, spelled: Spelled | None = None) -> str:
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

    def _attr_value_doc(self, value: Any, node: Expr, depth: int, spelled: Spelled | None = None) -> Doc:
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

    def _binder(self, var: Var, group: Any, notes: Attached | None = None, binds: bool = False) -> Doc:
        doc, term = self._binder_piece(var, group, notes, binds)
        return [doc, self._trail(term)] if term else doc

    def _binder_piece(self, var: Var, group: Any, notes: Attached | None, binds: bool) -> tuple[Doc, list[Note] | None]:
        """A binder with its annotation, and the comments that follow its `,`.
        With `binds`, the variable is in scope from here on."""
        doc: list[Doc] = [bind(var, group), Lazy("binder", var)] if binds else [Lazy("binder", var)]
        if var.attrs:
            doc += [" {", ", ".join(f"{key}={self._attr(value, var)}" for key, value in var.attrs), "}"]
        if var.type_annotation is not None:
            # a long annotation moves under its name before it breaks inside
            doc += [":" if self.tvm else " :", Group(Nest(2, [LINE, self._type_doc(var.type_annotation)]))]
        if notes is None:
            return doc, None
        inline, rest = split_after(notes.after)
        doc = [self._lead(notes.before, inline=True), doc, self._trail(inline)]
        term = in_order(rest, notes.after_term)
        return doc, term or None

    def _type_params(self, params: tuple[TypeVar, ...]) -> str:
        if not params:
            return ""
        if self.tvm and any(p.kind != Kind.TYPE for p in params):
            # TVM's `[A]` has no kinds; keep them (`[s : Shape]` reads back).
            return (
                "[" + ", ".join(p.name if p.kind == Kind.TYPE else f"{p.name} : {p.kind.value}" for p in params) + "]"
            )
        return type_params_text(params, TVM if self.tvm else DOCS)

    def _type_params_doc(self, params: tuple[TypeVar, ...]) -> Doc:
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
        body: list[Doc] = []
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
