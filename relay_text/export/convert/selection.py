"""Operators whose answers depend on the values: argwhere, unique,
searchsorted."""

from __future__ import annotations

from ..graph import onnx_dtype
from . import OpContext, Unsupported, converter, np, np_dtype


@converter("argwhere")
def argwhere(cx: OpContext, x: str) -> str:
    """NonZero's (rank, count) coordinates, one row per element."""
    if cx.rank(0) == 0:  # numpy: one row of no columns for a true scalar, none for a false one
        count = cx.reshape(cx.cast(cx.cast(x, "bool"), "int64"), [1])
        return cx.node("Slice", [cx.const(np.zeros((1, 0), np.int32)), cx.ints([0]), count, cx.ints([0])])
    return cx.cast(cx.node("Transpose", [cx.node("NonZero", [x])], perm=[1, 0]), cx.out_dtype)


# onnxruntime's Unique takes these element types; others go through a wider one
_UNIQUE_TYPES = {"float32", "float64", "int64", "int8"}
_WIDER = {
    "int32": "int64",
    "int16": "int64",
    "uint8": "int64",
    "uint16": "int64",
    "uint32": "int64",
    "float16": "float32",
    "bfloat16": "float32",
}


@converter("unique")
def unique(cx: OpContext, x: str) -> tuple[str, ...]:
    """ONNX's Unique (sorted, or in order of first appearance), its vectors
    padded to the input's length as TVM pads them."""
    dtype = cx.dtype(0)
    wide = dtype if dtype in _UNIQUE_TYPES else _WIDER.get(dtype)
    if wide is None:
        raise Unsupported(f"onnxruntime's Unique has no {dtype} tensors")
    y, first, inverse, counts = cx.multi_node(
        "Unique", [cx.cast(x, wide) if wide != dtype else x], 4, sorted=int(bool(cx.attrs["sorted"])), axis=None
    )
    n = cx.node("Shape", [x])
    found = cx.node("Shape", [y])
    missing = cx.node("Sub", [n, found])

    def padded(v: str, fill: float, to: str) -> str:
        pads = cx.node("Concat", [cx.ints([0]), missing], axis=0)
        return cx.node("Pad", [cx.cast(v, to), pads, cx.scalar(fill, np_dtype(to))], mode="constant")

    out: tuple[str, ...] = (
        padded(y, 0, dtype),
        _pad_with(cx, first, missing, n),
        cx.cast(inverse, "int32"),
        cx.cast(found, "int32"),
    )
    if cx.attrs["return_counts"]:
        out += (padded(counts, 0, "int32"),)
    return out


def _pad_with(cx: OpContext, first: str, missing: str, n: str) -> str:
    """`first` as int32, padded with the input's length n."""
    pads = cx.node("Concat", [cx.ints([0]), missing], axis=0)
    return cx.node("Pad", [cx.cast(first, "int32"), pads, cx.reshape(cx.cast(n, "int32"), [])], mode="constant")


@converter("searchsorted")
def searchsorted(cx: OpContext, seq: str, values: str) -> str:
    """The kernel's binary search, step by step: every value's bounds
    [lo, hi) halve at once, as many times as the longest search needs, so
    even an unsorted sequence gives the kernel's answer."""
    seq_shape, value_shape = cx.shape(0), cx.shape(1)
    n = seq_shape[-1]
    right = bool(cx.attrs["right"])
    out = onnx_dtype(cx.out_dtype)
    if n == 0:
        return cx.node("Cast", [cx.node("Expand", [cx.scalar(0, "int64"), cx.ints(value_shape)])], to=out)
    lo = cx.node("Expand", [cx.scalar(0, "int64"), cx.ints(value_shape)])
    hi = cx.node("Expand", [cx.scalar(n, "int64"), cx.ints(value_shape)])
    last = cx.scalar(n - 1, "int64")
    for _ in range(n.bit_length()):
        active = cx.node("Less", [lo, hi])
        mid = cx.node("Add", [lo, cx.node("Div", [cx.node("Sub", [hi, lo]), cx.scalar(2, "int64")])])
        at = cx.node("Min", [mid, last])
        if len(seq_shape) == 1:
            probe = cx.node("Gather", [seq, at], axis=0)
        else:
            probe = cx.node("GatherElements", [seq, at], axis=len(seq_shape) - 1)
        go_right = cx.node("LessOrEqual" if right else "Less", [probe, values])
        lo = cx.node("Where", [cx.node("And", [active, go_right]), cx.node("Add", [mid, cx.scalar(1, "int64")]), lo])
        hi = cx.node("Where", [cx.node("And", [active, cx.node("Not", [go_right])]), mid, hi])
    return cx.node("Cast", [lo], to=out)
