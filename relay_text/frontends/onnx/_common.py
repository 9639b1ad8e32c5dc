"""Helpers the converter families share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...ir.expr import Expr
from ..builder import Builder, Unsupported, numpy_dtype

INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")


def scalar(b: Builder, value: Any, dtype: str) -> Expr:
    """A scalar constant of `dtype`."""
    return b.const(np.array(value).astype(numpy_dtype(dtype)), dtype)


def cast(b: Builder, x: Expr, dtype: str) -> Expr:
    return x if b.dtype(x) == dtype else b.call("cast", x, dtype=dtype)


def norm_axis(axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < max(rank, 1):
        raise Unsupported(f"`{what}` = {axis} is out of range for a tensor of {rank} dimensions", attr=what)
    return axis + rank if axis < 0 else axis


def norm_axes(axes: Sequence[int], rank: int, what: str = "axes") -> list[int]:
    out = [norm_axis(a, rank, what) for a in axes]
    if len(set(out)) != len(out):
        raise Unsupported(f"`{what}` names an axis twice: {list(axes)}", attr=what)
    return out


def legacy_broadcast(b: Builder, node: Any, x: Expr, y: Expr) -> tuple[Expr, Expr]:
    """Before opset 7, a binary operator broadcast its second input only when
    `broadcast=1`, aligned at `axis` of the first (default: at its end)."""
    if node.opset >= 7:
        return x, y
    flag = node.attr("broadcast", 0)
    axis = node.attr("axis", None)
    if not flag or axis is None:
        return x, y
    rx, ry = b.rank(x), b.rank(y)
    axis = axis + rx if axis < 0 else axis
    trailing = rx - axis - ry
    if trailing > 0:
        y = b.call("expand_dims", y, axis=ry, num_newaxis=trailing)
    return x, y


def known_dims(dims: Sequence[int | None]) -> list[int] | None:
    """The dimensions when every one is known statically, else None."""
    known = [d for d in dims if d is not None]
    return known if len(known) == len(dims) else None


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_DTYPES
