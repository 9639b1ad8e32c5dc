"""Reading elements at given positions: `gather`, `gather_nd`, `adv_index`.

`gather(data, indices, axis)` picks, for every position of `indices`, the
element of `data` found by replacing that position's coordinate along
`axis` with the index stored there (PyTorch's `gather`). `indices` has the
rank of `data` and the same size on every other axis; the result has the
shape of `indices` and the dtype of `data`. Indices are signed integers in
[0, size of the axis); negative values are not counted from the end.

`gather_nd(data, indices, batch_dims=0, index_rank=None)` reads whole index
tuples: `indices` has shape (M, Y_0, ..., Y_{K-1}) and column `y` of it,
`indices[:, y]`, addresses the first M axes of `data` after the first
`batch_dims` ones, which `data` and `indices` (from its second axis) share.
The result has shape (Y_0, ..., Y_{K-1}, X_{B+M}, ..., X_{N-1}): every
index tuple selects an element, or a slice when M + B < N. Indices of any
dtype are truncated to integers; `index_rank` only matters to TVM's dynamic
shapes and is accepted and ignored here.

`adv_index((data, i_0, ..., i_{k-1}))` is numpy's advanced indexing
`data[i_0, ..., i_{k-1}]`: the integer index tensors broadcast against each
other to a shape S and the result has shape S followed by the axes of
`data` past the k-th. Indices are not counted from the end either. A bool
index tensor is read as positions 0 and 1, as TVM's compute reads it (not
as a mask, as numpy would).

Out-of-range indices, which TVM does not check, stop the evaluator with a
`runtime-error`.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType, TupleType
from ._indexing import check_bounds, is_int_dtype, require_int, same_dim
from .._np import np
from ..registry import Attr, register
from ..relations import (
    Relation,
    has_rank,
    is_unknown,
    known_rank,
    normalize_axis,
    relation,
    shape_text,
)
from ..types import Args, Attrs, Dims, Value

# ---------------------------------------------------------------- gather


@relation("Gather", inputs=2)
def gather_rel(r: Relation) -> bool:
    axis = r.attrs["axis"]
    if axis is None:
        r.fail(codes.TYPE_MISMATCH, "`gather` needs the attribute `axis`, e.g. `gather(%data, %indices, axis=0)`")
    require_int(r, 1, "indices", unsigned=False)
    data, idx = r.tensor(0), r.tensor(1)
    if not (known_rank(data.shape) and known_rank(idx.shape)):
        return False
    rank = len(data.shape)
    if rank == 0:
        r.fail(codes.SHAPE_MISMATCH, "`gather` cannot gather from a scalar", arg=0)
    if len(idx.shape) != rank:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`gather` needs indices of the data's rank: the data is {shape_text(data.shape)}, the indices "
            f"{shape_text(idx.shape)}",
            arg=1,
        )
    ax = normalize_axis(r, axis, rank)
    for i, (d, k) in enumerate(zip(data.shape, idx.shape, strict=False)):
        if i == ax:
            if type(k) is int and k < 1:
                r.fail(codes.SHAPE_MISMATCH, f"`gather`: the indices are empty along axis {ax}", arg=1)
            continue
        same_dim(
            r,
            d,
            k,
            1,
            f"`gather` along axis {ax}: the indices must match the data on every other axis, "
            f"but at axis {i} the data has size {d} and the indices {k}",
        )
    r.set_result(TensorType(idx.shape, data.dtype))
    return True


@register(
    "gather",
    inputs=2,
    relation=gather_rel,
    attrs=(Attr("axis", "opt_int", None),),
    doc="Elements of the data along an axis at the positions the indices give (indices' shape).",
)
def gather(args: Args, attrs: Attrs) -> Value:
    data, indices = args
    axis = attrs["axis"] % data.ndim
    idx = check_bounds("gather", indices, data.shape[axis], axis)
    return np.take_along_axis(data, idx, axis=axis)


# ---------------------------------------------------------------- gather_nd


@relation("GatherND", inputs=2)
def gather_nd_rel(r: Relation) -> bool:
    data, idx = r.tensor(0), r.tensor(1)
    batch = r.attrs["batch_dims"]
    if batch < 0:
        r.fail(codes.TYPE_MISMATCH, f"`gather_nd`: batch_dims must not be negative, found {batch}")
    if known_rank(idx.shape) and len(idx.shape) == 0:
        r.fail(
            codes.SHAPE_MISMATCH,
            "`gather_nd` needs indices of rank 1 or more, found a scalar",
            arg=1,
            notes=["the first axis of the indices runs over the coordinates of one index tuple"],
        )
    if not (known_rank(data.shape) and known_rank(idx.shape)):
        return False
    m = idx.shape[0]
    if is_unknown(m):
        return False
    if type(m) is not int:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`gather_nd` needs a static size for the first axis of the indices, found {shape_text(idx.shape)}",
            arg=1,
        )
    rank = len(data.shape)
    if batch > len(idx.shape) - 1:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`gather_nd`: batch_dims={batch} needs indices of rank {batch + 1} or more, found {shape_text(idx.shape)}",
            arg=1,
        )
    if m + batch > rank:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`gather_nd`: index tuples of {m} coordinates after {batch} batch axes need data of rank {m + batch} or "
            "more, "
            f"found {shape_text(data.shape)}",
            arg=1,
        )
    for i in range(batch):
        same_dim(
            r,
            data.shape[i],
            idx.shape[i + 1],
            1,
            f"`gather_nd`: batch axis {i} has size {data.shape[i]} in the data but {idx.shape[i + 1]} in the indices "
            f"(their axis {i + 1})",
        )
    r.set_result(TensorType(tuple(idx.shape[1:]) + tuple(data.shape[m + batch :]), data.dtype))
    return True


@register(
    "gather_nd",
    inputs=2,
    relation=gather_nd_rel,
    attrs=(Attr("batch_dims", "int", 0), Attr("index_rank", "opt_int", None)),
    doc="Elements or slices of the data at index tuples stored along the first axis of the indices.",
)
def gather_nd(args: Args, attrs: Attrs) -> Value:
    data, indices = args
    batch = attrs["batch_dims"]
    m = indices.shape[0]
    ys = indices.shape[1:]
    if m == 0 and batch == 0:
        return np.array(np.broadcast_to(data, ys + data.shape))
    index: list[Any] = []
    for j in range(batch):  # the batch coordinates: the position along axis j of the index grid
        shape = [1] * len(ys)
        shape[j] = ys[j]
        index.append(np.arange(ys[j]).reshape(shape))
    for k in range(m):
        index.append(check_bounds("gather_nd", indices[k], data.shape[batch + k], batch + k))
    return np.array(data[tuple(np.broadcast_to(i, ys) for i in index)])


# ---------------------------------------------------------------- adv_index


def _broadcast_index_shapes(r: Relation, shapes: list[Dims]) -> Dims | None:
    """numpy broadcasting of the index shapes; None while a size is unknown."""
    n = max(len(s) for s in shapes)
    out: list[Any] = []
    for pos in range(n):
        size: Any = 1
        owner = -1
        for f, s in enumerate(shapes):
            k = pos - (n - len(s))
            if k < 0:
                continue
            d = s[k]
            if d == 1 and type(d) is int:
                continue
            if is_unknown(d):
                return None
            if size == 1 and type(size) is int:
                size, owner = d, f
            elif type(size) is int and type(d) is int and size != d:
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`adv_index`: the index tensors do not broadcast: index {owner} is {shape_text(shapes[owner])}, "
                    f"index {f} is {shape_text(s)}",
                    arg=0,
                    notes=[
                        f"sizes {size} and {d} meet at axis {pos} of the broadcast shape; they must be equal or one "
                        "of them 1"
                    ],
                )
            elif isinstance(size, AnyDim):
                size = d
        out.append(size)
    return tuple(out)


@relation("AdvIndex", inputs=1)
def adv_index_rel(r: Relation) -> bool:
    t = r.arg(0)
    if is_unknown(t):
        return False
    if not isinstance(t, TupleType):
        r.fail(
            codes.TYPE_MISMATCH,
            "`adv_index` takes a tuple: the data, then one index tensor per leading axis, e.g. `adv_index((%data, %i, "
            "%j))`",
            arg=0,
            label="not a tuple",
        )
    if len(t.fields) < 2:
        r.fail(codes.TYPE_MISMATCH, "`adv_index` needs the data and at least one index tensor in its tuple", arg=0)
    fields = [r.tensor_of(f, 0, f"field {i} of its tuple") for i, f in enumerate(t.fields)]
    for i, f in enumerate(fields[1:], 1):
        # TVM's AdvIndexRel takes an index of any dtype and its compute reads
        # the values as positions: a bool index is 0 or 1 (not a mask)
        if type(f.dtype) is str and not is_int_dtype(f.dtype) and f.dtype != "bool":
            r.fail(
                codes.TYPE_MISMATCH,
                f"`adv_index` takes integer (or bool) index tensors, but field {i} of its tuple is `{f.dtype}`",
                arg=0,
            )
    ranked = [f for f in fields if has_rank(f)]
    if len(ranked) < len(fields):
        return False
    data = ranked[0]
    k = len(ranked) - 1
    if k > len(data.shape):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`adv_index`: {k} index tensors for data of rank {len(data.shape)}",
            arg=0,
            notes=["each index tensor indexes one leading axis of the data"],
        )
    shape = _broadcast_index_shapes(r, [f.shape for f in ranked[1:]])
    if shape is None:
        return False
    r.set_result(TensorType(shape + tuple(data.shape[k:]), data.dtype))
    return True


@register(
    "adv_index",
    inputs=1,
    relation=adv_index_rel,
    doc="numpy advanced indexing: data[i_0, ..., i_k] with broadcast integer index tensors.",
)
def adv_index(args: Args, attrs: Attrs) -> Value:
    data, *indices = args[0]
    idx = tuple(check_bounds("adv_index", i, data.shape[k], k) for k, i in enumerate(indices))
    return np.array(data[idx])
