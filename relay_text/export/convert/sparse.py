"""Sparse tensors given as coordinates (COO), whose operators take and give
dense tensors: `sparse_to_dense` scatters into a filled tensor,
`sparse_reshape` re-counts coordinates through the flat order,
`sparse_fill_empty_rows` adds and sorts rows. The rules of the numpy
kernels (`relay_text/ops/tensor/sparse_coo.py`) are kept: coordinates outside the
output are ignored, a later value wins, sorting is stable."""

from __future__ import annotations

from . import OpContext, Unsupported, converter
from .transform import INT64_MAX


@converter("sparse_to_dense", "dyn.sparse_to_dense")
def sparse_to_dense(cx: OpContext, indices: str, values: str, default: str, *dyn_shape: str) -> str:
    """Values scattered into the default-filled output, grown by one row
    first: coordinates outside the output are sent to that row, then cut off."""
    index_rank = cx.rank(0)
    coords = cx.cast(indices, "int64")
    coords = cx.reshape(coords, [-1, 1]) if index_rank < 2 else coords  # (n, width)
    width = 1 if index_rank < 2 else cx.shape(0)[1]
    if dyn_shape:
        shape = cx.reshape(cx.cast(dyn_shape[0], "int64"), [-1])
        rank = cx.shape(3)[0]
    else:
        dims = [int(d) for d in cx.attrs["output_shape"]]
        shape, rank = cx.ints(dims), len(dims)
    lead = cx.node("Slice", [shape, cx.ints([0]), cx.ints([width])])  # (width,)
    inside = cx.node("And", [cx.node("GreaterOrEqual", [coords, cx.ints([0])]), cx.node("Less", [coords, lead])])
    inside = cx.cast(cx.reduce("ReduceMin", cx.cast(inside, "int32"), [1], True), "bool")  # (n, 1)
    trash = cx.node(
        "Concat", [cx.node("Slice", [shape, cx.ints([0]), cx.ints([1])]), cx.ints([0] * (width - 1))], axis=0
    )
    coords = cx.node("Where", [inside, coords, cx.unsqueeze(trash, [0])])
    grown = cx.node("Add", [shape, cx.ints([1] + [0] * (rank - 1))])
    out = cx.node("Expand", [cx.cast(default, cx.out_dtype), grown])
    n = cx.node("Slice", [cx.node("Shape", [coords]), cx.ints([0]), cx.ints([1])])
    rest = cx.node("Slice", [shape, cx.ints([width]), cx.ints([INT64_MAX])])
    updates = cx.node("Expand", [cx.reshape(values, [-1] + [1] * (rank - width)), cx.node("Concat", [n, rest], axis=0)])
    out = cx.node("ScatterND", [out, coords, updates])
    return cx.node("Slice", [out, cx.ints([0]), cx.node("Slice", [shape, cx.ints([0]), cx.ints([1])]), cx.ints([0])])


@converter("sparse_reshape")
def sparse_reshape(cx: OpContext, indices: str, prev_shape: str, new_shape: str) -> tuple[str, str]:
    """The new shape completed (its -1 inferred), each coordinate row turned
    into a flat position and back into coordinates of the new shape; rows
    kept as they are when the shape does not change, as the kernel does."""
    (k,) = cx.shape(2)
    (m,) = cx.shape(1)
    prev = cx.cast(prev_shape, "int64")
    new = cx.cast(new_shape, "int64")
    total = cx.reduce("ReduceProd", prev, [0], True)
    hole = cx.node("Equal", [new, cx.ints([-1])])
    known = cx.reduce("ReduceProd", cx.node("Where", [hole, cx.ints([1]), new]), [0], True)
    completed = cx.node("Where", [hole, cx.node("Div", [total, known]), new])
    if m == 0 or k == 0:
        raise Unsupported("a shape of no axes")
    flat = cx.reduce(
        "ReduceSum", cx.node("Mul", [cx.cast(indices, "int64"), _strides(cx, prev, m)]), [1], False
    )  # (n,)
    step = _strides(cx, completed, k)
    columns = []
    rest = flat
    for j in range(k):
        s = cx.node("Gather", [step, cx.scalar(j, "int64")], axis=0)
        columns.append(cx.unsqueeze(cx.node("Div", [rest, s]), [1]))
        rest = cx.node("Mod", [rest, s])
    moved = cx.node("Concat", columns, axis=1)
    out_dtype = cx.dtype(0)
    if k == m:
        same = cx.reduce("ReduceMin", cx.cast(cx.node("Equal", [prev, completed]), "int32"), [0], False)
        moved = cx.node("Where", [cx.cast(same, "bool"), cx.cast(indices, "int64"), moved])
    return cx.cast(moved, out_dtype), cx.cast(completed, cx.dtype(2))


def _strides(cx: OpContext, shape: str, n: int) -> str:
    """Row-major strides of a shape vector of n sizes."""
    parts = []
    for j in range(n):
        tail = cx.node("Slice", [shape, cx.ints([j + 1]), cx.ints([INT64_MAX])])
        parts.append(cx.reduce("ReduceProd", tail, [0], True) if j + 1 < n else cx.ints([1]))
    return cx.node("Concat", parts, axis=0)


@converter("sparse_fill_empty_rows")
def sparse_fill_empty_rows(
    cx: OpContext, indices: str, values: str, dense_shape: str, default: str
) -> tuple[str, str, str]:
    coords = cx.cast(indices, "int64")
    width = cx.shape(0)[1]
    rows = cx.node("Gather", [coords, cx.scalar(0, "int64")], axis=1)  # (n,)
    n_rows = cx.reshape(cx.node("Slice", [cx.cast(dense_shape, "int64"), cx.ints([0]), cx.ints([1])]), [1])
    ones = cx.node("Expand", [cx.scalar(1, "int64"), n_rows])
    empty = cx.node(
        "ScatterElements", [ones, rows, cx.node("Expand", [cx.scalar(0, "int64"), cx.node("Shape", [rows])])], axis=0
    )
    fill_rows = cx.reshape(cx.node("NonZero", [empty]), [-1])  # (f,)
    added = cx.node(
        "Concat",
        [
            cx.unsqueeze(fill_rows, [1]),
            cx.node(
                "Expand",
                [
                    cx.scalar(0, "int64"),
                    cx.node("Concat", [cx.node("Shape", [fill_rows]), cx.ints([width - 1])], axis=0),
                ],
            ),
        ],
        axis=1,
    )
    fill_value = cx.node(
        "Expand",
        [
            cx.cast(cx.reshape(cx.node("Slice", [cx.reshape(default, [-1]), cx.ints([0]), cx.ints([1])]), []), "int64"),
            cx.node("Shape", [fill_rows]),
        ],
    )
    all_coords = cx.node("Concat", [coords, added], axis=0)
    all_values = cx.node("Concat", [cx.cast(values, "int64"), fill_value], axis=0)
    keys = cx.node("Gather", [all_coords, cx.scalar(0, "int64")], axis=1)
    count = cx.node("Shape", [keys])
    _, order = cx.multi_node("TopK", [keys, count], 2, axis=0, largest=0, sorted=1)  # ties keep their order
    return cx.node("Gather", [all_coords, order], axis=0), cx.node("Gather", [all_values, order], axis=0), empty
