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

from typing import Any

from ..diagnostics import Diagnostic, codes
from ..ir.expr import Constructor, GlobalVar, Op, Var
from ..ir.span import Span
from ..ir.ty import (
    AnyDim,
    DimBinOp,
    FuncType,
    IncompleteType,
    Kind,
    TensorType,
    TupleType,
    TypeCall,
    TypeVar,
)
from ..text.suggest import or_list
from ..text.type_text import dim_text, type_text
from .types import Hole, resolve, type_vars
from .unify import UnifyError


class Explainer:
    """Prints types in the dialect of the file being checked."""

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect

    def ty(self, t: Any, names: dict | None = None) -> str:
        return type_text(resolve(t), self.dialect, names)

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
        text = message.format(expected=exp, found=fnd) if message else f"mismatched types: expected `{exp}`, found `{fnd}`"
        diag = Diagnostic(codes.TYPE_MISMATCH, text, span, label=(label.format(expected=exp, found=fnd) if label else f"this has type `{fnd}`"))
        if origin is not None and origin[0] is not None:
            diag.with_label(origin[0], origin[1].format(expected=exp, found=fnd))
        for note in self.details(expected, found, err):
            diag.with_note(note)
        for note in notes or ():
            diag.with_note(note)
        return diag

    def occurs(self, span: Span | None, err: UnifyError) -> Diagnostic:
        hole = err.expected if isinstance(err.expected, IncompleteType) else err.found
        other = err.found if hole is err.expected else err.expected
        names = {hole: "t"}
        for i, h in enumerate(h for h in _holes(other) if h is not hole):
            names[h] = f"t{i + 1}"
        inner = type_text(resolve(other), self.dialect, names)
        diag = Diagnostic(
            codes.OCCURS_CHECK,
            f"this expression's type would have to contain itself: `t = {inner}`",
            span,
            label="here",
        )
        diag.with_note("no finite type satisfies this; a value cannot be passed to itself or stored inside itself")
        return diag

    def details(self, expected: Any, found: Any, err: UnifyError | None) -> list[str]:
        """Notes pinpointing where two types differ."""
        if err is None:
            return []
        e, f = resolve(err.expected), resolve(err.found)
        notes: list[str] = []
        if err.reason == "dtype":
            if not (isinstance(expected, str) or _is_scalar(expected) and _is_scalar(found)):
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
                notes.append(
                    f"the shapes differ at {where}: `{dim_text(e)}` and `{dim_text(f)}` cannot be shown equal"
                )
        elif err.reason == "arity":
            if isinstance(e, TupleType):
                notes.append(f"expected a tuple of {_n(len(e.fields), 'field')}, found one of {len(f.fields)}")
            elif isinstance(e, FuncType):
                notes.append(
                    f"expected a function of {_n(len(e.arg_types), 'parameter')}, found one of {len(f.arg_types)}"
                )
        elif isinstance(e, TypeCall) and isinstance(f, TypeCall) and e.func is not f.func:
            if e.func.name != f.func.name:
                notes.append(
                    f"`{e.func.name}` and `{f.func.name}` are different data types: data types are told apart "
                    "by name, even when their constructors look alike"
                )
            else:
                notes.append(f"these are two different data types that are both called `{e.func.name}`")
        elif isinstance(e, TypeVar) or isinstance(f, TypeVar):
            var = e if isinstance(e, TypeVar) else f
            other = f if var is e else e
            if not (isinstance(other, TypeVar) and other.name == var.name):
                notes.append(
                    f"`{var.name}` is a type parameter: the code must work for every type it stands for, "
                    f"so it cannot be assumed to be `{self.ty(other)}`"
                )
        if not notes and (e is not expected or f is not found) and _differs(e, expected, f, found):
            if not isinstance(e, (int, str, tuple, AnyDim, DimBinOp)):
                notes.append(f"in particular, expected `{self.ty(e)}`, found `{self.ty(f)}`")
        return notes


def _named_holes(*dims: Any) -> dict:
    """Unknowns standing for a type parameter of a call, by that parameter's name."""
    out = {}
    for d in dims:
        for h in _holes(d):
            name = getattr(h.origin, "name", "")
            if name:
                out[h] = name
    return out


def _holes(t: Any) -> list:
    from .types import holes

    return holes(t)


def _differs(e: Any, expected: Any, f: Any, found: Any) -> bool:
    return not (e == expected and f == found)


def _is_scalar(t: Any) -> bool:
    return isinstance(t, TensorType) and t.shape == ()


def _rank(shape: Any) -> str:
    n = len(shape) if isinstance(shape, tuple) else "?"
    return f"{n} dimension{'' if n == 1 else 's'}"


def _n(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


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
