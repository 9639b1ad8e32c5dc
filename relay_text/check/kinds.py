"""Kinds: which type parameters may appear where.

A type parameter has a kind: `Type` (any type), `BaseType` (a dtype),
`Shape` (a whole shape) or `ShapeVar` (one dimension). In a written type,
each position admits one kind: `Tensor[s, bt]` needs a Shape and a
BaseType, a dimension such as `n + 1` needs ShapeVars, anything else needs
a Type. A data type applied to arguments (`List[a]`) must get exactly as
many as it declares parameters, each a Type.

`KindChecker.check` validates an annotation and returns it ready for
inference (a bare dtype given as an ADT argument, `List[int32]`, becomes
the scalar tensor type), or `None` after reporting a `kind-error`.
`convert_type_arg` does the same for one explicit type argument at a call
(`@plus<(10, 10), float32>(...)`), against the kind of its parameter.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from .. import limits
from ..diagnostics import Diagnostic, codes
from ..ir.adt import TypeData
from ..ir.span import Span
from ..ir.ty import (
    AnyDim,
    DimBinOp,
    FuncType,
    GlobalTypeVar,
    IncompleteType,
    Kind,
    TensorType,
    TupleType,
    Type,
    TypeCall,
    TypeVar,
    is_dtype,
)
from ..text.type_text import type_text
from . import messages
from .types import RefType


class _KindError(Exception):
    def __init__(self, diag: Diagnostic) -> None:
        self.diag = diag


class KindChecker:
    def __init__(self, type_data: Callable[[GlobalTypeVar], TypeData | None], dialect: str) -> None:
        self.type_data = type_data
        self.dialect = dialect

    # ---- annotations -------------------------------------------------------

    def check(self, ty: Any, span: Span | None = None) -> tuple[Any, list[Diagnostic]]:
        """(the annotation ready for use, or None; the kind errors found)."""
        errors: list[Diagnostic] = []
        result = self._type(ty, span, errors)
        return (None if errors else result), errors

    def _span(self, t: Any, fallback: Span | None) -> Span | None:
        s: Span | None = getattr(t, "span", None)
        if s is not None and not isinstance(t, TypeVar):
            return s
        return fallback

    def _var_error(self, var: TypeVar, wanted: Kind, span: Span | None, errors: list[Diagnostic]) -> None:
        diag = messages.wrong_kind_of_parameter(var, wanted, span)
        help_text = messages.declare_kind_help(var, wanted)
        declared = var.span.text if var.span is not None else ""
        # The declaration as written (`n` or `n : Type`) becomes `n : Kind`.
        if declared == var.name or (
            declared.startswith(var.name) and declared[len(var.name) :].lstrip().startswith(":")
        ):
            diag.with_fix(help_text, var.span, f"{var.name} : {wanted.value}")
        else:
            diag.with_help(help_text)
        errors.append(diag.with_note(messages.parameter_kind_note(var)))

    def _type(self, t: Any, span: Span | None, errors: list[Diagnostic]) -> Any:
        """`t` checked as a type, bottom-up with an explicit stack (an
        annotation may nest tuples thousands deep); a part that is unchanged
        stays the same object."""
        done: list[Any] = []
        work: list[tuple[Any, Span | None, bool]] = [(t, span, False)]
        while work:
            node, outer, ready = work.pop()
            here = self._span(node, outer)
            if ready:
                n = len(_parts(node) or ())
                parts = tuple(done[len(done) - n :])
                del done[len(done) - n :]
                done.append(self._rebuild(node, parts, here, errors))
                continue
            kids = _parts(node)
            if kids is None:
                done.append(self._simple_type(node, here, errors))
            elif isinstance(node, TypeCall) and isinstance(node.func, TypeVar):
                errors.append(messages.applied_type_parameter(node.func.name, here))
                done.append(node)
            else:
                work.append((node, outer, True))
                work.extend((k, here, False) for k in reversed(kids))
        return done[0]

    def _rebuild(self, t: Any, parts: tuple[Any, ...], here: Span | None, errors: list[Diagnostic]) -> Any:
        """A compound type from its checked parts."""
        if isinstance(t, TupleType):
            return t if all(a is b for a, b in zip(parts, t.fields, strict=False)) else TupleType(parts, t.span)
        if isinstance(t, FuncType):
            return FuncType(parts[:-1], parts[-1], t.type_params, t.type_constraints, t.span)
        if isinstance(t, RefType):
            return RefType(parts[0])
        self._type_call_arity(t, here, errors)
        return t if all(a is b for a, b in zip(parts, t.args, strict=False)) else TypeCall(t.func, parts, t.span)

    def _simple_type(self, t: Any, here: Span | None, errors: list[Diagnostic]) -> Any:
        """A type without type parts: a tensor type, a variable, a dtype, ..."""
        if isinstance(t, IncompleteType):
            return t
        if isinstance(t, TensorType):
            shape = self._shape(t.shape, here, errors)
            dtype = self._dtype(t.dtype, here, errors)
            too_large = limits.written_shape_problem(shape) if isinstance(shape, tuple) else None
            if too_large is not None:
                errors.append(Diagnostic(codes.RESOURCE_LIMIT, too_large, _shape_span(here), label="too large"))
            if shape is t.shape and dtype is t.dtype:
                return t
            return TensorType(shape, dtype, t.span)
        if isinstance(t, TypeVar):
            if t.kind != Kind.TYPE:
                self._var_error(t, Kind.TYPE, here, errors)
            return t
        if isinstance(t, str) and is_dtype(t):
            return TensorType((), t)
        if isinstance(t, Type):
            return t
        errors.append(messages.not_a_type(_describe_arg(t), here))
        return t

    def _type_call_arity(self, t: TypeCall, span: Span | None, errors: list[Diagnostic]) -> None:
        data = self.type_data(t.func) if isinstance(t.func, GlobalTypeVar) else None
        if data is not None and len(data.type_params) != len(t.args):
            diag = messages.data_type_arity(t.func.name, [p.name for p in data.type_params], len(t.args), span)
            if data.span is not None:
                diag.with_label(t.func.span or data.span, f"`{t.func.name}` is defined here")
            errors.append(diag)

    def _shape(self, shape: Any, span: Span | None, errors: list[Diagnostic]) -> Any:
        if isinstance(shape, tuple):
            dims = tuple(self._dim(d, span, errors) for d in shape)
            return shape if all(a is b for a, b in zip(dims, shape, strict=False)) else dims
        if isinstance(shape, TypeVar):
            if shape.kind != Kind.SHAPE:
                self._var_error(shape, Kind.SHAPE, span, errors)
            return shape
        if isinstance(shape, IncompleteType):
            return shape
        errors.append(messages.not_a_shape(span))
        return shape

    def _dim(self, d: Any, span: Span | None, errors: list[Diagnostic]) -> Any:
        if isinstance(d, bool):
            errors.append(messages.not_a_dimension(span))
            return d
        if isinstance(d, int):
            return d
        if isinstance(d, (AnyDim, IncompleteType)):
            return d
        if isinstance(d, DimBinOp):
            self._dim(d.lhs, span, errors)
            self._dim(d.rhs, span, errors)
            return d
        if isinstance(d, TypeVar):
            if d.kind != Kind.SHAPE_VAR:
                self._var_error(d, Kind.SHAPE_VAR, span, errors)
            return d
        errors.append(messages.not_a_dimension(span, detailed=True))
        return d

    def _dtype(self, d: Any, span: Span | None, errors: list[Diagnostic]) -> Any:
        if isinstance(d, (str, IncompleteType)):
            return d
        if isinstance(d, TypeVar):
            if d.kind != Kind.BASE_TYPE:
                self._var_error(d, Kind.BASE_TYPE, span, errors)
            return d
        errors.append(messages.not_a_dtype(span))
        return d

    # ---- explicit type arguments --------------------------------------------

    def convert_type_arg(self, arg: Any, param: TypeVar, span: Span | None) -> tuple[Any, list[Diagnostic]]:
        """An explicit type argument for `param`, converted to its kind."""
        errors: list[Diagnostic] = []
        kind = param.kind
        value: Any = None
        if kind == Kind.TYPE:
            if isinstance(arg, str):
                value = TensorType((), arg)
            elif isinstance(arg, (Type, TypeVar, IncompleteType)):
                value = self._type(arg, span, errors)
        elif kind == Kind.BASE_TYPE:
            if isinstance(arg, str) or (isinstance(arg, TypeVar) and arg.kind == Kind.BASE_TYPE):
                value = arg
            elif isinstance(arg, TensorType) and arg.shape == () and isinstance(arg.dtype, str):
                value = arg.dtype
        elif kind == Kind.SHAPE:
            if isinstance(arg, tuple):
                value = self._shape(arg, span, errors)
            elif isinstance(arg, TupleType) and not arg.fields:
                value = ()
            elif isinstance(arg, TypeVar) and arg.kind == Kind.SHAPE:
                value = arg
        elif kind == Kind.SHAPE_VAR:
            if isinstance(arg, (int, AnyDim, DimBinOp)) and not isinstance(arg, bool):
                value = self._dim(arg, span, errors)
            elif isinstance(arg, TypeVar) and arg.kind == Kind.SHAPE_VAR:
                value = arg
            elif isinstance(arg, tuple) and len(arg) == 1:
                value = self._dim(arg[0], span, errors)
        if value is None and not errors:
            errors.append(messages.wrong_kind_of_argument(param, _describe_arg(arg, self.dialect), span))
        return (None if errors else value), errors


def _describe_arg(arg: Any, dialect: str = "docs") -> str:
    if isinstance(arg, tuple):
        return f"the shape `{type_text(arg, dialect)}`"
    if isinstance(arg, str):
        return f"the dtype `{arg}`"
    if isinstance(arg, (int, AnyDim, DimBinOp)):
        return f"the dimension `{type_text(arg, dialect)}`"
    if isinstance(arg, TypeVar):
        return f"the {arg.kind.value} parameter `{arg.name}`"
    return f"the type `{type_text(arg, dialect)}`"


def _parts(t: Any) -> tuple[Any, ...] | None:
    """The types inside a compound type; None for a type without type parts."""
    if isinstance(t, TupleType):
        return t.fields
    if isinstance(t, FuncType):
        return (*t.arg_types, t.ret_type)
    if isinstance(t, TypeCall):
        return t.args
    if isinstance(t, RefType):
        return (t.value,)
    return None


def _shape_span(span: Span | None) -> Span | None:
    """The parenthesized shape inside a written `Tensor[(...), dtype]`, or
    the whole type where it cannot be told."""
    if span is None:
        return None
    text = span.source.text
    start = text.find("(", span.start, span.end)
    depth = 0
    for i in range(max(start, 0), span.end):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return Span(span.source, start, i + 1)
    return span
