"""Indexing: `Gather*`, `Scatter*`, `Slice`, `TopK`, `Unique`.

ONNX indices may be negative (counting from the end of the axis); they
are made positive first (`where(i < 0, i + n, i)`), as TVM's importer did.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...ir.expr import Expr
from ..builder import Builder, Unsupported
from ._common import norm_axis, scalar
from .graph import Ctx
from .node import Node
from .table import Converted, converter

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1


def positive_indices(b: Builder, data: Expr, indices: Expr, axis: int) -> Expr:
    dt = b.dtype(indices)
    known = b.value(indices)
    if known is not None and not (np.asarray(known) < 0).any():
        return indices
    size = b.shape(data)[axis]
    if size is None:
        length = b.call("take", b.call("shape_of", data, dtype=dt), scalar(b, axis, "int64"), axis=0)
    else:
        length = scalar(b, size, dt)
    return b.call("where", b.call("less", indices, scalar(b, 0, dt)), b.call("add", indices, length), indices)


@converter("Gather")
def gather(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, indices = n.input(0), n.input(1)
    axis = norm_axis(n.attr("axis", 0), b.rank(x))
    return b.call("take", x, positive_indices(b, x, indices, axis), axis=axis)


@converter("GatherElements", since=11)
def gather_elements(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, indices = n.input(0), n.input(1)
    axis = norm_axis(n.attr("axis", 0), b.rank(x))
    return b.call("gather", x, positive_indices(b, x, indices, axis), axis=axis)


@converter("GatherND", since=11)
def gather_nd(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, indices = n.input(0), n.input(1)
    batch_dims = n.attr("batch_dims", 0)
    rank = b.rank(indices)
    depth = b.shape(indices)[-1]
    if depth is None:
        raise Unsupported("the last dimension of the indices must be known")
    moved = b.call("transpose", indices, axes=[rank - 1, *list(range(rank - 1))])
    return b.call("gather_nd", x, moved, batch_dims=batch_dims, index_rank=depth)


def _scatter_elements(cx: Ctx, n: Node, reductions: Sequence[str]) -> Expr:
    b = cx.b
    x, indices, updates = n.input(0), n.input(1), n.input(2)
    axis = norm_axis(n.attr("axis", 0), b.rank(x))
    reduction = n.attr("reduction", "none", allowed=reductions)
    return b.call(
        "scatter_elements",
        x,
        positive_indices(b, x, indices, axis),
        updates,
        axis=axis,
        reduction="update" if reduction == "none" else reduction,
    )


@converter("Scatter", since=9)
def scatter(cx: Ctx, n: Node) -> Converted:
    return _scatter_elements(cx, n, ("none",))


@converter("ScatterElements", since=11)
def scatter_elements(cx: Ctx, n: Node) -> Converted:
    return _scatter_elements(cx, n, ("none",))


@converter("ScatterElements", since=16)
def scatter_elements_v16(cx: Ctx, n: Node) -> Converted:
    return _scatter_elements(cx, n, ("none", "add", "mul"))


@converter("ScatterElements", since=18)
def scatter_elements_v18(cx: Ctx, n: Node) -> Converted:
    return _scatter_elements(cx, n, ("none", "add", "mul", "min", "max"))


def _scatter_nd(cx: Ctx, n: Node, reductions: Sequence[str]) -> Expr:
    b = cx.b
    x, indices, updates = n.input(0), n.input(1), n.input(2)
    reduction = n.attr("reduction", "none", allowed=reductions)
    rank = b.rank(indices)
    moved = b.call("transpose", indices, axes=[rank - 1, *list(range(rank - 1))])
    return b.call("scatter_nd", x, moved, updates, mode="update" if reduction == "none" else reduction)


@converter("ScatterND", since=11)
def scatter_nd(cx: Ctx, n: Node) -> Converted:
    return _scatter_nd(cx, n, ("none",))


@converter("ScatterND", since=16)
def scatter_nd_v16(cx: Ctx, n: Node) -> Converted:
    return _scatter_nd(cx, n, ("none", "add", "mul"))


@converter("ScatterND", since=18)
def scatter_nd_v18(cx: Ctx, n: Node) -> Converted:
    return _scatter_nd(cx, n, ("none", "add", "mul", "min", "max"))


# ---------------------------------------------------------------- Slice


def _ints(v: np.ndarray) -> list[int]:
    return [int(i) for i in np.asarray(v).reshape(-1)]


def _static_slice(
    b: Builder, x: Expr, starts: list[int], ends: list[int], axes: list[int] | None, steps: list[int] | None
) -> Expr:
    rank = b.rank(x)
    if axes is None:
        axes = list(range(len(starts)))
    axes = [norm_axis(a, rank) for a in axes]
    if steps is None:
        steps = [1] * len(starts)
    if any(s == 0 for s in steps):
        raise Unsupported("a slice step of 0 is not allowed")
    shape = b.shape(x)
    begin, end = [], []
    for a, s, e, st in zip(axes, starts, ends, steps, strict=False):
        size = shape[a]
        if size is not None:  # ONNX clamps to [0, size] (or [-1, size - 1] going backwards)
            s = s + size if s < 0 else s
            e = e + size if e < 0 else e
            if st > 0:
                s, e = min(max(s, 0), size), min(max(e, 0), size)
            else:
                s, e = min(max(s, -1), size - 1), min(max(e, -1), size - 1)
                if e == -1:
                    e = -(size + 1)  # before the first element
        else:
            s, e = int(np.clip(s, -INT32_MAX - 1, INT32_MAX)), int(np.clip(e, -INT32_MAX - 1, INT32_MAX))
        begin.append(int(s))
        end.append(int(e))
    return b.call("strided_slice", x, begin=begin, end=end, strides=[int(s) for s in steps], axes=axes)


@converter("Slice")
def slice_v1(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    starts, ends = list(n.require("starts")), list(n.require("ends"))
    axes = n.attr("axes", None)
    return _static_slice(b, n.input(0), starts, ends, axes, None)


@converter("Slice", since=10)
def slice_(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    starts, ends, axes, steps = (b.value(n.input(i)) if n.has(i) else None for i in (1, 2, 3, 4))
    if (
        starts is not None
        and ends is not None
        and (axes is not None or not n.has(3))
        and (steps is not None or not n.has(4))
    ):
        return _static_slice(
            b,
            x,
            _ints(starts),
            _ints(ends),
            None if axes is None else _ints(axes),
            None if steps is None else _ints(steps),
        )
    # run-time bounds: full-rank begin/end/strides for dyn.strided_slice
    rank = b.rank(x)
    dt = b.dtype(n.input(1))
    begin, end = n.input(1), n.input(2)
    stride = n.input(4)
    if n.has(3):
        ax = n.input(3)
        if b.value(ax) is None:
            raise Unsupported("the axes of a slice must be known when the model is imported")
        axes_v = [norm_axis(int(a), rank) for a in np.asarray(b.value(ax)).reshape(-1)]
        ax = b.const(np.array(axes_v, dtype=b.dtype(ax)))
        begin = b.call("scatter_elements", b.const(np.zeros(rank, dtype=dt)), ax, begin, axis=0)
        end = b.call("scatter_elements", b.call("shape_of", x, dtype=dt), ax, end, axis=0)
        if stride is not None:
            stride = b.call("scatter_elements", b.const(np.ones(rank, dtype=dt)), ax, stride, axis=0)
    if stride is None:
        stride = b.const(np.ones(b.static_shape(begin)[0], dtype=dt))
    return b.call("dyn.strided_slice", x, begin, end, stride)


# ---------------------------------------------------------------- TopK, Unique


@converter("TopK")
def topk_v1(cx: Ctx, n: Node) -> Converted:
    return _topk(cx, n, int(n.require("k")))


@converter("TopK", since=10)
def topk(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    k = b.value(n.input(1))
    if k is None:
        raise Unsupported("`k` must be known when the model is imported")
    return _topk(cx, n, int(np.asarray(k).reshape(-1)[0]))


def _topk(cx: Ctx, n: Node, k: int) -> Converted:
    """Largest (or smallest) first; equal values keep their order (lower
    index first): a stable sort of the values, negated for the largest."""
    b = cx.b
    x: Expr = n.input(0)
    axis = norm_axis(n.attr("axis", -1), b.rank(x))
    largest = n.attr("largest", 1)
    n.attr("sorted", 1)  # the k values come out sorted either way
    key = b.call("negative", x) if largest and not b.dtype(x).startswith("uint") and b.dtype(x) != "bool" else x
    if largest and (b.dtype(x).startswith("uint") or b.dtype(x) == "bool"):
        out = b.call("topk", x, k=k, axis=axis, ret_type="both", is_ascend=False, dtype="int64")
        return [b.item(out, 0), b.item(out, 1)]
    order = b.call("argsort", key, axis=axis, is_ascend=True, dtype="int64")
    idx = b.call("strided_slice", order, begin=[0], end=[k], strides=[1], axes=[axis])
    values = b.call("gather", x, idx, axis=axis)
    return [values, idx]


@converter("Unique", since=11)
def unique(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    axis = n.attr("axis", None)
    if axis is not None:
        if b.rank(x) != 1:
            raise Unsupported(
                "`Unique` along an axis of a tensor of more than one dimension is not supported", attr="axis"
            )
    else:
        x = b.call("reshape", x, newshape=[-1])
    is_sorted = bool(n.attr("sorted", 1))
    out = b.call("unique", x, sorted=is_sorted, return_counts=True)
    values, first, inverse, count, counts = b.items(out)
    count = b.call("cast", count, dtype="int64")
    zero = b.const(np.array([0], dtype=np.int64))
    one = b.const(np.array([1], dtype=np.int64))

    def trim(t: Expr) -> Expr:
        return b.call("dyn.strided_slice", t, zero, count, one)

    return [
        trim(values),
        b.call("cast", trim(first), dtype="int64"),
        b.call("cast", inverse, dtype="int64"),
        b.call("cast", trim(counts), dtype="int64"),
    ]
