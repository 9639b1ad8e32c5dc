"""Written types as documents that may break across lines.

`text.type_text` spells a type on one line; the formatter needs more: a
long type must be able to break inside its brackets, one part a line, so
that no line exceeds the width unless one name is longer. Flat, a
document here prints exactly the text `type_text` gives.

Only the brackets of long types become groups: a type whose text is short
is one string, and a type nested deeper than `MAX_DEPTH` keeps its text
unbroken below that depth (documents are built recursively; such types are
machine-made and have no good layout anyway).
"""

from __future__ import annotations

from typing import Any

from ..ir.ty import FuncType, IncompleteType, TensorType, TupleType, TypeCall
from ..text.type_text import TVM, shape_text, type_params_text, type_text
from .layout import LINE, SOFTLINE, Doc, Group, Nest, bracket

SHORT = 16  # a type of at most this many characters is never broken
MAX_DEPTH = 32


def type_doc(ty: Any, dialect: str, short: bool = True, depth: int = 0, as_written: Any = None) -> Doc:
    """`ty` as the formatter writes it: with `short`, a scalar as its dtype
    (not in a type argument, where a bare dtype means another thing), unless
    `as_written` (see `type_text`) says how the source spelled it."""
    text = type_text(ty, dialect, limit=None, short_scalars=short, as_written=as_written)
    if len(text) <= SHORT or depth >= MAX_DEPTH:
        return text
    inner = depth + 1
    if type(ty) is TensorType:
        dtype = as_written(ty.dtype) if as_written is not None and type(ty.dtype) is IncompleteType else None
        return bracket("Tensor[", [shape_text(ty.shape), dtype if isinstance(dtype, str) else _name(ty.dtype)], "]")
    if type(ty) is TupleType:
        fields = [type_doc(f, dialect, short, inner, as_written) for f in ty.fields]
        return bracket("(", fields, ")", trailing="," if len(fields) == 1 else "")
    if type(ty) is FuncType:
        params = type_params_text(ty.type_params, dialect)
        head = f"fn {params}(" if dialect == TVM else f"fn{params}("
        tail: list[Doc] = [") -> ", type_doc(ty.ret_type, dialect, short, inner, as_written)]
        if ty.type_constraints:  # both dialects read it (converting to TVM refuses it)
            if type(ty.ret_type) is FuncType:  # `where` would go to the result's type
                tail = [") -> (", tail[1], ")"]
            tail.append(" where " + ", ".join(rel.name for rel in ty.type_constraints))
        args = [type_doc(a, dialect, short, inner, as_written) for a in ty.arg_types]
        if not args:
            return [head, *tail]
        # the result stays with `)`: the arguments break before it does
        body: list[Doc] = []
        for i, arg in enumerate(args):
            body += [",", LINE, arg] if i else [arg]
        return Group([head, Nest(2, [SOFTLINE, body]), SOFTLINE, *tail])
    if type(ty) is TypeCall and ty.args:
        func = type_text(ty.func, dialect, limit=None)
        return bracket(func + "[", [type_doc(a, dialect, short, inner, as_written) for a in ty.args], "]")
    return text


def _name(x: Any) -> str:
    return x if isinstance(x, str) else getattr(x, "name", str(x))
