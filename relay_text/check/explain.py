"""Turning failed constraints into diagnostics that explain themselves.

Every type error says what was expected and what was found, in the
program's own type syntax (the documented syntax, or TVM's for a file with
a version header), points at the offending expression, and where it can,
labels the place the expectation came from (an annotation, a parameter,
the other branch of an `if`). When two large types differ in one small
place, a note names that place: the axis and the two sizes, the two dtypes,
the two data types.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from ..diagnostics import Diagnostic, codes
from ..ir.adt import definition_difference
from ..ir.expr import Constructor, GlobalVar, Op, Var
from ..ir.span import PRELUDE_SOURCE_NAME, Span
from ..ir.ty import (
    AnyDim,
    DimBinOp,
    FuncType,
    GlobalTypeVar,
    IncompleteType,
    Kind,
    TensorType,
    TupleType,
    TypeCall,
    TypeVar,
)
from ..text.suggest import or_list
from ..text.type_text import dim_text, type_text
from ..text.wording import counted
from .types import Hole, resolve, type_vars
from .unify import UnifyError

if TYPE_CHECKING:
    from .constraint import RelationError


class Explainer:
    """Prints types in the dialect of the file being checked, a scalar type
    as the file writes scalar types (`short_scalars`: `int32`, else
    `Tensor[(), int32]`; None: as the dialect does)."""

    def __init__(self, dialect: str, short_scalars: bool | Callable[[], bool | None] | None = None) -> None:
        self.dialect = dialect
        # (a function: asked once, when a message first writes a type; a
        # file without errors never needs the answer)
        self._short_scalars = short_scalars
        # The definition of a data type, to explain two types of one name.
        self.type_data: Callable[[Any], Any] = lambda gtv: None

    @property
    def short_scalars(self) -> bool | None:
        if callable(self._short_scalars):
            self._short_scalars = self._short_scalars()
        return self._short_scalars

    def ty(self, t: Any, names: dict[Any, str] | None = None) -> str:
        return type_text(resolve(t), self.dialect, names, short_scalars=self.short_scalars)

    def mismatch(
        self,
        span: Span | None,
        expected: Any,
        found: Any,
        err: UnifyError | None,
        message: str = "",
        label: str = "",
        origin: tuple[Span | None, str] | None = None,
        notes: list[str] | None = None,
    ) -> Diagnostic:
        """`expected` and `found` (whole types) differ; `err` locates where."""
        expected, found = resolve(expected), resolve(found)
        if err is not None and err.reason == "occurs":
            return self.occurs(span, err)
        # A size that cannot fit a call's shape parameter shows that parameter by name.
        names = _named_holes(err.expected, err.found) if err is not None and err.reason == "dim" else None
        exp, fnd = self.ty(expected, names), self.ty(found, names)
        if exp == fnd and err is not None:
            exp, fnd = self.ty(err.expected), self.ty(err.found)
        text = (
            message.format(expected=exp, found=fnd) if message else f"mismatched types: expected `{exp}`, found `{fnd}`"
        )
        diag = Diagnostic(
            codes.TYPE_MISMATCH,
            text,
            span,
            label=(label.format(expected=exp, found=fnd) if label else f"this has type `{fnd}`"),
        )
        if origin is not None and origin[0] is not None:
            diag.with_label(origin[0], origin[1].format(expected=exp, found=fnd))
        for note in self.details(expected, found, err):
            diag.with_note(note)
        for note in notes or ():
            diag.with_note(note)
        if err is not None:
            self._two_definitions(diag, resolve(err.expected), resolve(err.found))
        return diag

    def _two_definitions(self, diag: Diagnostic, e: Any, f: Any) -> None:
        """Two data types of one name: point at both definitions; when one is
        the Prelude's, say how the file's differs and what to do."""
        if not (
            isinstance(e, TypeCall) and isinstance(f, TypeCall) and e.func is not f.func and e.func.name == f.func.name
        ):
            return
        name = e.func.name
        prelude = [g for g in (e.func, f.func) if _in_prelude(g)]
        for g in (f.func, e.func):
            if g.span is not None:
                diag.with_label(
                    g.span,
                    f"the Prelude's `{name}` is defined here" if g in prelude else f"this `{name}` is defined here",
                )
        if len(prelude) != 1:
            return
        theirs = prelude[0]
        mine = f.func if theirs is e.func else e.func
        mine_data, their_data = self.type_data(mine), self.type_data(theirs)
        if (
            isinstance(mine, GlobalTypeVar)
            and isinstance(theirs, GlobalTypeVar)
            and mine_data is not None
            and their_data is not None
        ):
            difference = definition_difference(mine_data, their_data, {mine: theirs}, "in this file", "in the Prelude")
            if difference:
                diag.with_note(f"the two definitions differ: {difference}")
        diag.with_help(
            f"the Prelude's functions take the Prelude's `{name}`: define `{name}` exactly as the Prelude does "
            f"(it is then the Prelude's type), or give yours another name"
        )

    def occurs(self, span: Span | None, err: UnifyError) -> Diagnostic:
        hole = err.expected if isinstance(err.expected, IncompleteType) else err.found
        other = err.found if hole is err.expected else err.expected
        names = {hole: "t"}
        for i, h in enumerate(h for h in _holes(other) if h is not hole):
            names[h] = f"t{i + 1}"
        inner = type_text(resolve(other), self.dialect, names, short_scalars=self.short_scalars)
        diag = Diagnostic(
            codes.OCCURS_CHECK,
            f"this expression's type would have to contain itself: `t = {inner}`",
            span,
            label="here",
        )
        diag.with_note("no finite type satisfies this; a value cannot be passed to itself or stored inside itself")
        return diag

    def relation_failure(self, span: Span | None, exc: RelationError) -> Diagnostic:
        """A relation that cannot hold (the `RelationError` it raised), as a diagnostic at `span`."""
        err = exc.unify_error
        code = codes.REGISTRY[exc.code]
        if err is not None and err.reason == "occurs":
            return self.occurs(span, err)
        if exc.expected is not None or exc.found is not None or (err is not None and not exc.message):
            expected = exc.expected if exc.expected is not None or err is None else err.expected
            found = exc.found if exc.found is not None or err is None else err.found
            diag = self.mismatch(span, expected, found, err, exc.message, exc.label, notes=exc.notes)
            diag.code = code
            return diag
        diag = Diagnostic(code, exc.message, span, label=exc.label)
        if err is not None:
            for note in self.details(err.expected, err.found, err):
                diag.with_note(note)
        for note in exc.notes:
            diag.with_note(note)
        return diag

    def details(self, expected: Any, found: Any, err: UnifyError | None) -> list[str]:
        """Notes pinpointing where two types differ."""
        if err is None:
            return []
        e, f = resolve(err.expected), resolve(err.found)
        notes: list[str] = []
        if err.reason == "dtype":
            if not (isinstance(expected, str) or (_is_scalar(expected) and _is_scalar(found))):
                notes.append(f"the dtypes differ: expected `{e}`, found `{f}`")
        elif err.reason == "rank":
            notes.append(f"the shapes differ: expected `{self.ty(e)}` ({_rank(e)}), found `{self.ty(f)}` ({_rank(f)})")
        elif err.reason == "dim":
            where = f"axis {err.index}" if err.index is not None else "a dimension"
            if isinstance(e, int) and isinstance(f, int):
                notes.append(f"the shapes differ at {where}: expected size {e}, found size {f}")
            elif _named_holes(e, f):
                names = _named_holes(e, f)
                unknowns = or_list([f"`{n}`" for n in dict.fromkeys(names.values())])
                notes.append(
                    f"the shapes differ at {where}: no whole-number size of {unknowns} makes "
                    f"`{dim_text(e, names)}` equal `{dim_text(f, names)}`"
                )
            else:
                notes.append(f"the shapes differ at {where}: `{dim_text(e)}` and `{dim_text(f)}` cannot be shown equal")
        elif err.reason == "arity":
            if isinstance(e, TupleType):
                notes.append(f"expected a tuple of {counted(len(e.fields), 'field')}, found one of {len(f.fields)}")
            elif isinstance(e, FuncType):
                notes.append(
                    f"expected a function of {counted(len(e.arg_types), 'parameter')}, found one of {len(f.arg_types)}"
                )
        elif isinstance(e, TypeCall) and isinstance(f, TypeCall) and e.func is not f.func:
            if e.func.name != f.func.name:
                notes.append(
                    f"`{e.func.name}` and `{f.func.name}` are different data types: data types are told apart "
                    "by name, even when their constructors look alike"
                )
            elif not (_in_prelude(e.func) or _in_prelude(f.func)):
                notes.append(f"these are two different data types that are both called `{e.func.name}`")
        elif isinstance(e, TypeVar) or isinstance(f, TypeVar):
            var = e if isinstance(e, TypeVar) else f
            other = f if var is e else e
            if not (isinstance(other, TypeVar) and other.name == var.name):
                notes.append(
                    f"`{var.name}` is a type parameter: the code must work for every type it stands for, "
                    f"so it cannot be assumed to be `{self.ty(other)}`"
                )
        if (
            not notes
            and (e is not expected or f is not found)
            and _differs(e, expected, f, found)
            and not isinstance(e, (int, str, tuple, AnyDim, DimBinOp))
        ):
            notes.append(f"in particular, expected `{self.ty(e)}`, found `{self.ty(f)}`")
        return notes


def _in_prelude(gtv: Any) -> bool:
    span = getattr(gtv, "span", None)
    return span is not None and span.source.name == PRELUDE_SOURCE_NAME


def _named_holes(*dims: Any) -> dict[Any, str]:
    """Unknowns standing for a type parameter of a call, by that parameter's name."""
    out = {}
    for d in dims:
        for h in _holes(d):
            name = getattr(h.origin, "name", "")
            if name:
                out[h] = name
    return out


def _holes(t: Any) -> list[Any]:
    from .types import holes

    return holes(t)


def _differs(e: Any, expected: Any, f: Any, found: Any) -> bool:
    return not (e == expected and f == found)


def _is_scalar(t: Any) -> bool:
    return isinstance(t, TensorType) and t.shape == ()


def _rank(shape: Any) -> str:
    return counted(len(shape), "dimension") if isinstance(shape, tuple) else "? dimensions"


def ordinal(i: int) -> str:
    """1 -> first, 2 -> second, ..."""
    words = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]
    return words[i - 1] if 1 <= i <= len(words) else f"{i}th"


def kind_name(kind: Kind) -> str:
    return {
        Kind.TYPE: "a type",
        Kind.BASE_TYPE: "a dtype (BaseType)",
        Kind.SHAPE: "a shape (Shape)",
        Kind.SHAPE_VAR: "a dimension (ShapeVar)",
    }[kind]


def name_of(node: Any) -> str:
    if isinstance(node, GlobalVar):
        return f"`@{node.name}`"
    if isinstance(node, Var):
        return f"`%{node.name}`"
    if isinstance(node, (Constructor, Op)):
        return f"`{node.name}`"
    return "this expression"


__all__ = ["Explainer", "Hole", "kind_name", "name_of", "ordinal", "type_vars"]
