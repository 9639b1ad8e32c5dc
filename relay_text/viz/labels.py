"""The words a graph shows: attribute values as the text writes them, a
type's shape and dtype in short, a pattern as written."""

from __future__ import annotations

from typing import Any

from ..ir.expr import InvalidAttr, MetaRef
from ..ir.ty import FuncType, TensorType, TupleType


def attr_text(value: Any) -> str:
    """An attribute value as the text format writes it."""
    if value is None or isinstance(value, bool):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, tuple):
        return "[" + ", ".join(attr_text(v) for v in value) + "]"
    if isinstance(value, MetaRef):
        return f"meta[{value.kind}][{value.index}]"
    if isinstance(value, InvalidAttr):
        return "?"
    return repr(value)


_DTYPE_SHORT = {
    "float32": "",
    "float16": "f16",
    "float64": "f64",
    "bfloat16": "bf16",
    "int64": "i64",
    "int32": "i32",
    "int8": "i8",
    "uint8": "u8",
    "bool": "bool",
}


def shape_caption(ty: Any) -> tuple[str, str, str]:
    """(shape text, dtype, the box's second line) of a type."""
    from ..text.type_text import dim_text, type_text

    if isinstance(ty, TensorType):
        dtype = ty.dtype if isinstance(ty.dtype, str) else type_text(ty.dtype)
        # the multiplication sign separates dimensions in the output
        dims = "×".join(dim_text(d) for d in ty.shape) if isinstance(ty.shape, tuple) else None  # noqa: RUF001
        shape = dims if dims is not None else type_text(ty.shape)
        short = _DTYPE_SHORT.get(dtype, dtype)
        if not shape:
            return "", dtype, dtype
        return shape, dtype, (shape + " " + short).strip()
    if isinstance(ty, TupleType):
        return "", "", f"tuple of {len(ty.fields)}"
    if isinstance(ty, FuncType):
        return "", "", "fn"
    if ty is None:
        return "", "", ""
    text = type_text(ty, limit=40)
    return "", "", text


def pattern_text(pattern: Any) -> str:
    """A match clause's pattern as the text writes it (`Cons(%h, _)`)."""
    from ..ir.pattern import PatternConstructor, PatternTuple, PatternVar, PatternWildcard

    out: list[str] = []
    stack: list[Any] = [pattern]
    while stack:
        p = stack.pop()
        if isinstance(p, str):
            out.append(p)
        elif isinstance(p, PatternWildcard):
            out.append("_")
        elif isinstance(p, PatternVar):
            out.append("%" + p.var.name)
        elif isinstance(p, PatternConstructor):
            if not p.patterns:
                out.append(p.constructor.name)
                continue
            stack.append(")")
            for i, sub in enumerate(reversed(p.patterns)):
                stack.append(sub)
                if i < len(p.patterns) - 1:
                    stack.append(", ")
            stack.append(p.constructor.name + "(")
        elif isinstance(p, PatternTuple):
            stack.append(")" if len(p.patterns) != 1 else ",)")
            for i, sub in enumerate(reversed(p.patterns)):
                stack.append(sub)
                if i < len(p.patterns) - 1:
                    stack.append(", ")
            stack.append("(")
    return "".join(out)
