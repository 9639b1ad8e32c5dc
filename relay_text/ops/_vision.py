"""Checks shared by the vision and image operators' relations: the dtype class
of an input, its rank, single-value inputs, equal dimensions, and products
of dimensions that stay symbolic (`n * 4`) where a size is a shape variable."""

from __future__ import annotations

from typing import Any

from .types import Dims

from ..diagnostics import codes
from ..ir.ty import AnyDim, DimBinOp
from .relations import Relation, is_unknown, known_rank, shape_text, static


def dtype_kind(r: Relation, i: int, what: str, kinds: tuple[str, ...], noun: str) -> None:
    """Input i has a dtype starting with one of `kinds` (when its dtype is known)."""
    dtype = r.tensor(i).dtype
    if isinstance(dtype, str) and not dtype.startswith(kinds):
        r.fail(
            codes.TYPE_MISMATCH, f"`{r.op}` takes {what} as {noun}, not `{dtype}`", arg=i, label=f"this is `{dtype}`"
        )


def scalar_input(r: Relation, i: int, what: str, kinds: tuple[str, ...], noun: str) -> None:
    """Input i holds one number: a scalar, or a tensor of one element."""
    dtype_kind(r, i, what, kinds, noun)
    shape = r.tensor(i).shape
    if known_rank(shape) and any(static(d) not in (1, None) for d in shape):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` takes {what} as a single value, found a tensor of shape {shape_text(shape)}",
            arg=i,
        )


def rank_of(r: Relation, i: int, rank: int, what: str) -> Dims | None:
    """The shape of input i, which must have `rank` axes; None while unknown."""
    shape = r.tensor(i).shape
    if not known_rank(shape):
        return None
    if len(shape) != rank:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` takes {what}, found {shape_text(shape)}", arg=i)
    return shape


def same_dim(r: Relation, a: Any, b: Any, arg: int, message: str) -> None:
    """Two dimensions that must be equal when both are known."""
    x, y = static(a), static(b)
    if x is not None and y is not None and x != y:
        r.fail(codes.SHAPE_MISMATCH, message.format(x, y), arg=arg)


def times(*dims: Any) -> Any:
    """The product of dimensions: an int when all are ints, arithmetic on shape
    variables (`n * 4`), `?` when one is `?` or still unknown."""
    if any(isinstance(d, AnyDim) or is_unknown(d) for d in dims):
        return AnyDim()
    constant, symbols = 1, []
    for d in dims:
        if type(d) is int:
            constant *= d
        else:
            symbols.append(d)
    if constant == 0 or not symbols:
        return constant
    out = symbols[0]
    for d in symbols[1:]:
        out = DimBinOp("*", out, d)
    return out if constant == 1 else DimBinOp("*", out, constant)
