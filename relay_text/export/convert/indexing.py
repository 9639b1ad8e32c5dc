"""Indexing and rearranging: numpy's advanced indexing, permutations,
sliding windows, TVM's older scatter names, and moving blocks between the
spatial axes and the batch."""

from __future__ import annotations

import math
from typing import Any

from ..graph import static_shape
from . import OpContext, Unsupported, converter, np
from .transform import scatter_elements


@converter("adv_index")
def adv_index(cx: OpContext, xs: tuple[str, ...]) -> str:
    """data[i_0, ..., i_{k-1}]: the indices broadcast together, stacked on a
    last axis, read with `GatherND`."""
    data, *indices = xs
    fields = cx.field_types(0)
    shapes = [static_shape(f) for f in fields[1:]]
    known = [s for s in shapes if s is not None]
    if len(known) != len(shapes):
        raise Unsupported("the shapes of the index tensors are not static")
    common = tuple(np.broadcast_shapes(*known))
    stacked = [cx.unsqueeze(cx.node("Expand", [cx.cast(i, "int64"), cx.ints(common)]), [len(common)]) for i in indices]
    tuples = stacked[0] if len(stacked) == 1 else cx.node("Concat", stacked, axis=len(common))
    return cx.node("GatherND", [data, tuples])


@converter("invert_permutation")
def invert_permutation(cx: OpContext, p: str) -> str:
    """q[p[i]] = i: the positions scattered to the places the permutation names."""
    (n,) = cx.shape(0)
    positions = cx.const(np.arange(n), cx.dtype(0))
    return cx.node("ScatterElements", [positions, cx.cast(p, "int64"), positions], axis=0)


@converter("sliding_window")
def sliding_window(cx: OpContext, x: str) -> str:
    """Each windowed axis gathered with a (windows, window) table of
    positions, then the window counts moved before the windows' axes."""
    shape = cx.shape(0)
    axis = int(cx.attrs["axis"])
    window, strides = [int(w) for w in cx.attrs["window_shape"]], [int(s) for s in cx.attrs["strides"]]
    for k, (w, s) in enumerate(zip(window, strides, strict=False)):
        count = (shape[axis + k] - w) // s + 1
        table = np.arange(count)[:, None] * s + np.arange(w)[None, :]
        x = cx.node("Gather", [x, cx.const(table, "int64")], axis=axis + 2 * k)
    n = len(window)
    perm = list(range(axis)) + [axis + 2 * k for k in range(n)] + [axis + 2 * k + 1 for k in range(n)]
    return cx.node("Transpose", [x], perm=perm)


@converter("scatter", "scatter_add")
def scatter(cx: OpContext, x: str, indices: str, updates: str) -> str:
    """TVM's older names of scatter_elements with "update" and "add"."""
    cx.attrs = {"axis": cx.attrs["axis"], "reduction": "update" if cx.name == "scatter" else "add"}
    return scatter_elements(cx, x, indices, updates)


@converter("nn.space_to_batch_nd")
def space_to_batch_nd(cx: OpContext, x: str) -> str:
    shape = cx.shape(0)
    block = [int(b) for b in cx.attrs["block_shape"]]
    pads = [tuple(int(v) for v in p) for p in cx.attrs["paddings"]]
    m = len(block)
    rest = list(shape[m + 1 :])
    widths = [(0, 0)] + pads + [(0, 0)] * len(rest)
    if any(w != (0, 0) for w in widths):
        fill = cx.scalar(float(cx.attrs["pad_value"]), _np_dtype(cx.dtype(0)))
        x = cx.node("Pad", [x, cx.ints([b for b, _ in widths] + [a for _, a in widths]), fill], mode="constant")
    padded = [shape[i + 1] + b + a for i, (b, a) in enumerate(pads)]
    split = [shape[0]]
    for p, b in zip(padded, block, strict=False):
        split += [p // b, b]
    order = (
        [2 + 2 * i for i in range(m)]
        + [0]
        + [1 + 2 * i for i in range(m)]
        + list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    )
    t = cx.node("Transpose", [cx.reshape(x, split + rest)], perm=order)
    return cx.reshape(t, [shape[0] * math.prod(block)] + [p // b for p, b in zip(padded, block, strict=False)] + rest)


@converter("nn.batch_to_space_nd")
def batch_to_space_nd(cx: OpContext, x: str) -> str:
    shape = cx.shape(0)
    block = [int(b) for b in cx.attrs["block_shape"]]
    crops = [tuple(int(v) for v in c) for c in cx.attrs["crops"]]
    m = len(block)
    batch = shape[0] // math.prod(block)
    spatial, rest = list(shape[1 : m + 1]), list(shape[m + 1 :])
    t = cx.reshape(x, [*block, batch, *spatial, *rest])
    order = [m]
    for i in range(m):
        order += [m + 1 + i, i]
    order += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    full = [d * b for d, b in zip(spatial, block, strict=False)]
    t = cx.reshape(cx.node("Transpose", [t], perm=order), [batch, *full, *rest])
    if not any(c != (0, 0) for c in crops):
        return t
    starts = [c0 for c0, _ in crops]
    ends = [f - c1 for f, (_, c1) in zip(full, crops, strict=False)]
    return cx.node("Slice", [t, cx.ints(starts), cx.ints(ends), cx.ints(range(1, m + 1))])


def _np_dtype(dtype: str) -> Any:
    from . import np_dtype

    return np_dtype(dtype)
