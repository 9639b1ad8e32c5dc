"""How values are spelled in Relay text: literals, attribute values, strings.

    literal_text(1.5, "float32", tvm=False)  -> "1.5"      (tvm: "1.5f")
    literal_text(7, "int64", tvm=True)       -> "7i64"
    attr_text((1, None), tvm=False)          -> "[1, None]"
    quote('a "b"')                           -> '"a \\"b\\""'

Floats are exact: the shortest text that reads back as the same value in
the dtype (`literals.float_text`). Each spelling reads back to the value the
parser would build from it.
"""

from __future__ import annotations

from typing import Any

from ..ir.expr import MetaRef
from .literals import float_text, round_float

_INT_SUFFIX = {
    "int8": "i8",
    "int16": "i16",
    "int64": "i64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
}
_FLOAT_SUFFIX = {"float16": "f16", "float32": "f", "float64": "f64"}


class Unspellable(ValueError):
    """A value that has no spelling (an attribute of an unknown kind)."""


def literal_text(value: Any, dtype: str, tvm: bool) -> str | None:
    """A scalar as a literal (`1`, `2i64`, `1.5`, `1.5f`, `True`), or None if
    its dtype has no literal syntax."""
    if dtype == "bool":
        return "True" if value else "False"
    if dtype == "int32":
        return str(value)
    suffix = _INT_SUFFIX.get(dtype)
    if suffix is not None:
        return f"{value}{suffix}"
    suffix = _FLOAT_SUFFIX.get(dtype)
    if suffix is None:
        return None
    text = float_text(float(value), dtype)
    if text in ("inf", "-inf", "nan"):
        return text + suffix
    if tvm:
        if text.endswith(".0"):
            text = text[:-2]
        return text + suffix
    return text if dtype == "float32" else text + suffix


def attr_text(value: Any, tvm: bool, spelled: list[tuple[str, Any]] | None = None) -> str:
    """An attribute value: `None`, `True`, `3`, `0.5f`, `"NCHW"`, `[1, 1]`.

    `spelled` lists the numbers of the value as the source wrote them
    (text, value), in order: each number that matches the next one is
    written so (`2i64`, `1e-05f`), and taken from the list."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (int, float)):
        if spelled and type(spelled[0][1]) is type(value) and spelled[0][1] == value:
            return spelled.pop(0)[0]
        return str(value) if isinstance(value, int) else _attr_float(value, tvm)
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, MetaRef):
        return f"meta[{value.kind}][{value.index}]"
    if isinstance(value, tuple):
        return "[" + ", ".join(attr_text(v, tvm, spelled) for v in value) + "]"
    raise Unspellable(f"cannot write the attribute value {value!r}")


def _attr_float(value: float, tvm: bool) -> str:
    wide = float_text(value, "float64")
    if wide in ("inf", "-inf", "nan"):
        # `inff` is the only infinity TVM's tokenizer reads (tokenizer.h:423);
        # an attribute holds it whatever the width
        return wide + "f"
    narrow = None
    try:
        if round_float(value, "float32") == value:
            narrow = float_text(value, "float32")
    except Exception:
        narrow = None
    if tvm:
        if narrow is not None:
            return (narrow[:-2] if narrow.endswith(".0") else narrow) + "f"
        return wide + "f64"
    if narrow is not None and len(narrow) + 1 < len(wide):
        return narrow + "f"
    return wide


def quote(text: str) -> str:
    """A string literal that reads back as `text`."""
    out = ['"']
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def fill_text(value: Any, dtype: str) -> str:
    """The value of `Constant(value, shape, dtype)`."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return f"{value}u64" if value > 2**63 - 1 else str(value)
    value = float(value)
    if value.is_integer() and abs(value) < 1e15 and (value != 0 or str(value)[0] != "-"):
        return str(int(value))  # `Constant(1, (2, 2), float32)`
    base = dtype.split("x")[0]
    text = float_text(value, base if base in ("float16", "float32", "float64") else "float64")
    return text + "f" if text in ("inf", "-inf", "nan") else text
