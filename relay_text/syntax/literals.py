"""Numeric literals: their values, dtypes and exact text.

An integer without suffix is int32 (int64 when it does not fit, as TVM
reads it); a float without suffix is float32. Suffixes: `i` (int32),
`i8`..`i64`, `u8`..`u64`, `f`, `f16`, `f32`, `f64`. A value outside its
dtype's range is an error (`128i8`, `65505f16`). Float values are rounded to their dtype on reading, so a
literal holds exactly the number a program computes with.
"""

from __future__ import annotations

import math
import re
import struct

from ..limits import MAX_LITERAL_DIGITS

_INT_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
    "uint1": (0, 1),
    "int1": (0, 1),
}

_FLOAT_TEXT = re.compile(r"(?P<num>.*?)(?P<suffix>f(?:16|32|64)?)?$")
_INT_TEXT = re.compile(r"(?P<num>[0-9]+)(?P<suffix>i(?:8|16|32|64)?|u(?:8|16|32|64))?$")
# The largest finite value of each float dtype; TVM rejects a literal beyond it
# (an infinite one is allowed: `inff`).
_FLOAT_MAX = {"float16": 65504.0, "float32": 3.4028234663852886e38}


class LiteralError(ValueError):
    """A literal whose value does not fit its dtype, or is malformed.

    `limit` is True when the literal has more digits than the documented
    limit (a `resource-limit`, not an `invalid-literal`)."""

    def __init__(self, message: str, limit: bool = False) -> None:
        super().__init__(message)
        self.limit = limit


_SUFFIX = re.compile(r"[iuf](?:8|16|32|64)?$")


def digit_count(text: str) -> int:
    """The digits of a number's text, its dtype suffix aside."""
    return sum(c.isdigit() for c in _SUFFIX.sub("", text))


def check_digits(text: str) -> None:
    """Raise a limit LiteralError if `text` has more digits than allowed."""
    if len(text) > MAX_LITERAL_DIGITS and digit_count(text) > MAX_LITERAL_DIGITS:
        raise LiteralError(too_many_digits(text), limit=True)


def too_many_digits(text: str) -> str:
    return f"a number literal of {digit_count(text):,} digits is longer than the limit of {MAX_LITERAL_DIGITS:,} digits"


def is_int_text(text: str) -> bool:
    """Whether a number token is an integer literal (`42`, `7i64`)."""
    return _INT_TEXT.match(text) is not None


def int_range(dtype: str) -> tuple[int, int] | None:
    return _INT_RANGES.get(dtype)


def is_float_dtype(dtype: str) -> bool:
    return dtype.startswith(("float", "bfloat"))


def is_int_dtype(dtype: str) -> bool:
    return dtype in _INT_RANGES


def parse_int(text: str, negate: bool = False) -> tuple[int, str]:
    """`42` -> (42, "int32"); `7i64` -> (7, "int64"); range-checked."""
    check_digits(text)
    m = _INT_TEXT.match(text)
    if m is None:
        raise LiteralError(f"invalid integer literal `{text}`")
    value = int(m.group("num"))
    if negate:
        value = -value
    suffix = m.group("suffix")
    if suffix == "i":
        dtype = "int32"
    elif suffix:
        dtype = ("int" if suffix[0] == "i" else "uint") + suffix[1:]
    else:
        lo, hi = _INT_RANGES["int32"]
        dtype = "int32" if lo <= value <= hi else "int64"
    lo, hi = _INT_RANGES[dtype]
    if not lo <= value <= hi:
        raise LiteralError(f"`{'-' if negate else ''}{text}` does not fit in {dtype} ({lo} to {hi})")
    return value, dtype


def parse_float(text: str, negate: bool = False, default: str = "float32") -> tuple[float, str]:
    """`1.5` -> (1.5, "float32"); `2f64` -> (2.0, "float64"); `inff` -> inf."""
    check_digits(text)
    m = _FLOAT_TEXT.match(text)
    assert m is not None
    num, suffix = m.group("num"), m.group("suffix")
    dtype = default if not suffix else ("float32" if suffix == "f" else "float" + suffix[1:])
    value = float(num)
    if negate:
        value = -value
    largest = _FLOAT_MAX.get(dtype)
    # (the shortest decimal text of the largest value itself, such as
    # `3.4028235e+38`, is a hair above it and is allowed)
    if largest is not None and math.isfinite(value) and abs(value) > largest * (1 + 2**-24):
        raise LiteralError(
            f"`{'-' if negate else ''}{text}` is out of the range of {dtype} "
            f"(its largest finite magnitude is {largest:.9g})"
        )
    return round_float(value, dtype, text), dtype


def round_float(value: float, dtype: str, text: str = "") -> float:
    """The nearest value representable in `dtype` (float16/32/64)."""
    if dtype == "float64" or math.isnan(value) or math.isinf(value):
        return value
    fmt = {"float32": "<f", "float16": "<e"}.get(dtype)
    if fmt is None:
        return value
    try:
        rounded: float = struct.unpack(fmt, struct.pack(fmt, value))[0]
        return rounded
    except (OverflowError, struct.error):
        raise LiteralError(f"`{text or value}` is too large for {dtype}") from None


def float_text(value: float, dtype: str = "float32") -> str:
    """The shortest decimal text that reads back as exactly `value` in `dtype`.

    Always contains `.`, `e`, `inf` or `nan`, so it never reads as an integer.
    """
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if dtype == "float64" or dtype not in ("float32", "float16"):
        text = repr(value)
    else:
        text = repr(value)
        for digits in range(1, 18):
            candidate = f"{value:.{digits}g}"
            try:
                if round_float(float(candidate), dtype) == value:
                    text = candidate
                    break
            except LiteralError:  # rounded up past the largest finite value
                continue
    if "e" in text:
        mantissa, exp = text.split("e")
        exp_val = int(exp)
        # keep exponents short but readable: 1e-05 -> 1e-05 (numpy/TVM style)
        text = f"{mantissa}e{'-' if exp_val < 0 else '+'}{abs(exp_val):02d}"
        if "." not in mantissa and 0 <= exp_val < 16:
            text = f"{value:.1f}" if abs(value) < 1e16 else text
    elif "." not in text:
        text += ".0"
    return text
