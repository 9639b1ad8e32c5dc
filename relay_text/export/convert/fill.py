"""Writing into tensors: `strided_set`, `matrix_set_diag`, `nn.dilate`,
`nn.fifo_buffer`. Static positions become constant index tables; the
strided box of `strided_set`, read from tensors, is computed in the graph
with the numpy kernel's (TOPI's) formula."""

from __future__ import annotations

from . import OpContext, converter, norm_axis, np, np_dtype, select
from .transform import INT64_MAX


@converter("nn.dilate")
def dilate(cx: OpContext, x: str) -> str:
    """Along each axis of stride s > 1: s - 1 fill values after every
    element (a new axis padded, merged back), the last ones cut off."""
    shape = list(cx.shape(0))
    x = cx.node("Identity", [x])
    fill = cx.scalar(np.asarray(float(cx.attrs["dilation_value"])).astype(np_dtype(cx.dtype(0))), np_dtype(cx.dtype(0)))
    for axis, s in enumerate(int(v) for v in cx.attrs["strides"]):
        n = shape[axis]
        if s == 1 or n == 0:
            continue
        y = cx.unsqueeze(x, [axis + 1])
        pads = [0] * (2 * (len(shape) + 1))
        pads[len(shape) + 1 + axis + 1] = s - 1
        y = cx.node("Pad", [y, cx.ints(pads), fill], mode="constant")
        merged = [*shape[:axis], n * s, *shape[axis + 1 :]]
        y = cx.reshape(y, merged)
        x = cx.node("Slice", [y, cx.ints([0]), cx.ints([(n - 1) * s + 1]), cx.ints([axis])])
        shape[axis] = (n - 1) * s + 1
    return x


@converter("nn.fifo_buffer")
def fifo_buffer(cx: OpContext, data: str, buffer: str) -> str:
    rank = cx.rank(1)
    axis = norm_axis(int(cx.attrs["axis"]), rank)
    size = cx.shape(1)[axis]
    joined = cx.node("Concat", [buffer, data], axis=axis)
    return cx.node("Slice", [joined, cx.ints([-size]), cx.ints([INT64_MAX]), cx.ints([axis])])


@converter("matrix_set_diag")
def matrix_set_diag(cx: OpContext, x: str, diag: str) -> str:
    """The kernel's band, and for each of its elements the diagonal and the
    position read, as constant tables; the diagonals read with one Gather."""
    shape = cx.shape(0)
    rows, cols = shape[-2], shape[-1]
    k1, k2 = int(cx.attrs["k1"]), int(cx.attrs["k2"])
    longest = cx.shape(1)[-1]
    i = np.arange(rows)[:, None]
    j = np.arange(cols)[None, :]
    d = j - i
    band = (d >= k1) & (d <= k2)
    if k1 == k2:
        pos = np.broadcast_to(i if k1 >= 0 else j, d.shape)
        flat = np.where(band, pos, 0)
        table = diag
    else:
        above = longest - np.minimum(cols - d, rows) if cx.attrs["super_diag_right_align"] else 0
        below = longest - np.minimum(cols, rows + d) if cx.attrs["sub_diag_right_align"] else 0
        pos = np.where(band, np.where(d >= 0, i, j) + np.where(d >= 0, above, below), 0)
        flat = np.where(band, k2 - d, 0) * longest + pos
        table = cx.reshape(diag, [*list(shape[:-2]), -1])  # the band's diagonals one after another
    picked = cx.node("Gather", [table, cx.const(np.clip(flat, 0, None), "int64")], axis=len(shape) - 2)
    return select(cx, cx.const(band), picked, x, cx.dtype(0))


@converter("strided_set")
def strided_set(cx: OpContext, data: str, v: str, begin: str, end: str, strides: str) -> str:
    """Per axis, the positions the box covers and the value each reads
    (TOPI's formula, as the kernel has it), from begin, end and strides
    read when the model runs; the values gathered axis by axis, written
    where every axis is covered."""
    shape = cx.shape(0)
    if not shape:
        return cx.cast(v, cx.dtype(0))
    counts = [cx.shape(i)[0] for i in (2, 3, 4)]
    b_all, e_all, s_all = (cx.cast(t, "int64") for t in (begin, end, strides))
    picked = v
    mask = None
    zero, one = cx.scalar(0, "int64"), cx.scalar(1, "int64")
    for axis, extent in enumerate(shape):

        def entry(t: str, k: int, default: int, axis: int = axis) -> str:
            return (
                cx.node("Gather", [t, cx.scalar(axis, "int64")], axis=0)
                if axis < counts[k]
                else cx.scalar(default, "int64")
            )

        s = entry(s_all, 2, 1)
        negative = cx.node("Less", [s, zero])
        b = entry(b_all, 0, 0) if axis < counts[0] else cx.node("Where", [negative, cx.scalar(extent, "int64"), zero])
        e = (
            entry(e_all, 1, 0)
            if axis < counts[1]
            else cx.node("Where", [negative, cx.scalar(-(extent + 1), "int64"), cx.scalar(extent + 1, "int64")])
        )
        size = cx.scalar(extent, "int64")
        b = cx.node("Where", [cx.node("Less", [b, zero]), cx.node("Add", [b, size]), b])
        e = cx.node("Where", [cx.node("Less", [e, zero]), cx.node("Add", [e, size]), e])
        p = cx.const(np.arange(extent), "int64")
        a = cx.node("Abs", [s])
        down_inside = cx.node("And", [cx.node("Greater", [p, e]), cx.node("LessOrEqual", [p, b])])
        down_aligned = _is_zero(
            cx,
            cx.node(
                "Mod", [cx.node("Add", [cx.node("Add", [cx.node("Sub", [p, e]), cx.node("Mod", [e, a])]), one]), a]
            ),
        )
        up_inside = cx.node("And", [cx.node("GreaterOrEqual", [p, b]), cx.node("Less", [p, e])])
        up_aligned = _is_zero(cx, cx.node("Mod", [cx.node("Sub", [p, b]), cx.node("Where", [negative, one, s])]))
        down = cx.node("And", [negative, cx.node("And", [down_inside, down_aligned])])
        up = cx.node("And", [cx.node("Not", [negative]), cx.node("And", [up_inside, up_aligned])])
        selected = cx.node("Or", [down, up])  # onnxruntime's Where takes no bool values
        start = cx.node("Where", [cx.node("Less", [size, b]), cx.scalar(extent - 1, "int64"), b])
        index = cx.node(
            "Where",
            [
                negative,
                cx.node("Div", [cx.node("Sub", [start, p]), a]),
                cx.node("Div", [cx.node("Sub", [p, start]), cx.node("Where", [negative, one, s])]),
            ],
        )
        top = cx.node("Sub", [cx.node("Gather", [cx.node("Shape", [v]), cx.scalar(axis, "int64")], axis=0), one])
        index = cx.node("Min", [cx.node("Max", [index, zero]), cx.node("Max", [top, zero])])
        picked = cx.node("Gather", [picked, index], axis=axis)
        ones = [1] * len(shape)
        ones[axis] = extent
        along = cx.reshape(selected, ones)
        mask = along if mask is None else cx.node("And", [mask, along])
    assert mask is not None  # a tensor of rank 0 returned above
    return select(cx, mask, picked, data, cx.dtype(0))


def _is_zero(cx: OpContext, v: str) -> str:
    return cx.node("Equal", [v, cx.scalar(0, "int64")])
