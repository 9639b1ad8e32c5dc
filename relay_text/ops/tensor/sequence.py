"""Reversing and masking along an axis: `reverse`, `reverse_sequence`,
`sequence_mask`. Each keeps the type of its data.

`reverse(data, axis)` reverses the order of the elements along `axis`
(negative values count from the end; the attribute has no default value
that works, so a call must give it).

`reverse_sequence(data, seq_lengths, seq_axis=1, batch_axis=0)` reverses,
for every batch position `b` along `batch_axis`, only the first
`seq_lengths[b]` elements along `seq_axis`, leaving the rest in place; a
length of 1 or less changes nothing and a length past the axis reverses it
whole. `seq_lengths` is a vector of signed integers, one per batch
position.

`sequence_mask(data, valid_length, mask_value=0.0, axis=0)` takes data
whose axes 0 and 1 are (length, batch) when `axis` is 0 or (batch, length)
when it is 1, and a `valid_length` vector with one entry per batch
position: elements at a position along the length axis that is not below
the batch position's valid length become `mask_value` (converted to the
data's dtype: truncated for integers, nonzero for bool). The type of
`valid_length` is inferred from the data when unknown.
"""

from __future__ import annotations

from typing import cast

from ...diagnostics import codes
from ...ir.ty import TensorType
from ._indexing import assume, require_int, require_rank, same_dim, settled
from .._np import np
from ..registry import Attr, register
from ..relations import Relation, known_rank, normalize_axis, relation, shape_text
from ..types import Args, Attrs, Dims, Value

# ---------------------------------------------------------------- reverse


@relation("Reverse", inputs=1)
def reverse_rel(r: Relation) -> bool:
    axis = r.attrs["axis"]
    if axis is None:
        r.fail(codes.TYPE_MISMATCH, "`reverse` needs the attribute `axis`, e.g. `reverse(%x, axis=0)`")
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    normalize_axis(r, axis, len(x.shape))
    r.set_result(x)
    return True


@register(
    "reverse",
    inputs=1,
    relation=reverse_rel,
    attrs=(Attr("axis", "opt_int", None),),
    doc="The elements in reverse order along one axis.",
)
def reverse(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    return np.flip(x, axis=attrs["axis"] % x.ndim).copy()


# ---------------------------------------------------------------- reverse_sequence


def _lengths_default(r: Relation) -> bool:
    """Lengths from a constant without metadata, whose shape is known: int32."""
    lengths = r.tensor(1)
    return known_rank(lengths.shape) and assume(r, 1, TensorType(lengths.shape, "int32"))


@relation("ReverseSequence", inputs=2, default=_lengths_default)
def reverse_sequence_rel(r: Relation) -> bool:
    require_int(r, 1, "seq_lengths", unsigned=False)
    require_rank(r, 1, (1,), "seq_lengths")
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    rank = len(x.shape)
    batch = normalize_axis(r, r.attrs["batch_axis"], rank, "batch_axis")
    normalize_axis(r, r.attrs["seq_axis"], rank, "seq_axis")
    if not known_rank(r.tensor(1).shape):
        r.refine(1, TensorType((x.shape[batch],), r.tensor(1).dtype))
    lengths = r.tensor(1)
    same_dim(
        r,
        x.shape[batch],
        cast(Dims, lengths.shape)[0],  # seq_lengths has rank 1: required or refined above
        1,
        f"`reverse_sequence` needs one length per batch position: the batch axis {batch} has size {x.shape[batch]}, "
        f"seq_lengths has {cast(Dims, lengths.shape)[0]}",
    )
    r.set_result(x)
    return settled(r, 1)


@register(
    "reverse_sequence",
    inputs=2,
    relation=reverse_sequence_rel,
    attrs=(Attr("seq_axis", "int", 1), Attr("batch_axis", "int", 0)),
    doc="Reverse the first seq_lengths[b] elements along seq_axis, for each position b along batch_axis.",
)
def reverse_sequence(args: Args, attrs: Attrs) -> Value:
    x, lengths = args
    seq = attrs["seq_axis"] % x.ndim
    batch = attrs["batch_axis"] % x.ndim
    extent = x.shape[seq]
    shape = [1] * x.ndim
    shape[batch] = -1
    n = lengths.astype(np.int64).reshape(shape)
    shape = [1] * x.ndim
    shape[seq] = -1
    p = np.arange(extent, dtype=np.int64).reshape(shape)
    src = np.where((n <= 1) | (n <= p), p, np.where(n > extent, extent - 1 - p, n - 1 - p))
    return np.take_along_axis(x, np.broadcast_to(src, x.shape), axis=seq)


# ---------------------------------------------------------------- sequence_mask


@relation("SequenceMask", inputs=2, default=_lengths_default)
def sequence_mask_rel(r: Relation) -> bool:
    axis = r.attrs["axis"]
    if axis not in (0, 1):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`sequence_mask` axis must be 0 or 1, found {axis}",
            notes=["axis 0: the data is (length, batch, ...); axis 1: (batch, length, ...)"],
        )
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    if len(x.shape) < 2:
        r.fail(
            codes.SHAPE_MISMATCH, f"`sequence_mask` needs data of rank 2 or more, found {shape_text(x.shape)}", arg=0
        )
    batch = x.shape[1 - axis]
    lengths = r.tensor(1)
    if known_rank(lengths.shape):
        if len(lengths.shape) != 1:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`sequence_mask` takes valid_length as a vector, found a tensor of shape {shape_text(lengths.shape)}",
                arg=1,
            )
        same_dim(
            r,
            batch,
            lengths.shape[0],
            1,
            f"`sequence_mask` needs one valid length per batch position: axis {1 - axis} of the data has size {batch}, "
            f"valid_length has {lengths.shape[0]}",
        )
    else:
        r.refine(1, TensorType((batch,), lengths.dtype))
    r.set_result(x)
    return settled(r, 1)


@register(
    "sequence_mask",
    inputs=2,
    relation=sequence_mask_rel,
    attrs=(Attr("mask_value", "float", 0.0), Attr("axis", "int", 0)),
    doc="Set the elements past each sequence's valid length to mask_value.",
)
def sequence_mask(args: Args, attrs: Attrs) -> Value:
    x, lengths = args
    axis = attrs["axis"]
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    position = np.arange(x.shape[axis]).astype(lengths.dtype).reshape(shape)
    shape = [1] * x.ndim
    shape[1 - axis] = -1
    masked = position >= lengths.reshape(shape)
    return np.where(masked, np.asarray(attrs["mask_value"]).astype(x.dtype), x)
