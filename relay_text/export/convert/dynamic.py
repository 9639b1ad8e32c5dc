"""The `dyn.*` operators: shapes, axes, bounds, scales or `k` given as
tensors, read when the model runs.

The values are cast to int64 (floats truncated toward zero, as the numpy
kernels' `int()` does) and fed to the ONNX operators that take them as
inputs. Where TVM's reading of a value differs from ONNX's (negative
indices and clamping in `dyn.strided_slice`, negative indices in
`dyn.one_hot`, `k < 1` in `dyn.topk`, the rounding of scaled sizes),
the rule is computed in the graph. Values the numpy engine rejects when it
runs (negative sizes, repeated axes, ...) are not all rejected by ONNX.
"""

from __future__ import annotations

from typing import Any

from . import OpContext, Unsupported, converter, norm_axis, np_dtype
from .image import resize_to
from .reduce import topk_of
from .transform import INT64_MAX, INT64_MIN, one_hot_of


def ints(cx: OpContext, x: str) -> str:
    """A shape, axes or bounds tensor as an int64 vector."""
    return cx.reshape(cx.cast(x, "int64"), [-1])


@converter("dyn.broadcast_to")
def broadcast_to(cx: OpContext, x: str, shape: str) -> str:
    return cx.node("Expand", [x, ints(cx, shape)])


@converter("dyn.full")
def full(cx: OpContext, value: str, shape: str) -> str:
    return cx.node("Expand", [cx.cast(value, cx.out_dtype), ints(cx, shape)])


@converter("dyn.zeros", "dyn.ones")
def zeros(cx: OpContext, shape: str) -> str:
    value = cx.scalar(0 if cx.name == "dyn.zeros" else 1, np_dtype(cx.out_dtype))
    return cx.node("Expand", [value, ints(cx, shape)])


@converter("dyn.tile")
def tile(cx: OpContext, x: str, reps: str) -> str:
    rank = cx.rank(0)
    n = cx.rank_of(cx.out_type, "the result")  # max(rank, len(reps))
    reps = ints(cx, reps)
    if n > rank:  # more repetitions than axes: the data gains leading axes of 1
        x = cx.unsqueeze(x, range(n - rank))
    else:  # fewer: the leading axes are repeated once
        reps = cx.node("Concat", [cx.ints([1] * n), reps], axis=0)
        reps = cx.node("Slice", [reps, cx.ints([-n]), cx.ints([INT64_MAX])])
    return cx.node("Tile", [x, reps])


@converter("dyn.expand_dims")
def expand_dims(cx: OpContext, x: str, axis: str) -> str:
    rank, k = cx.rank(0), int(cx.attrs["num_newaxis"])
    if k == 0:
        return cx.node("Identity", [x])
    a = cx.cast(axis, "int64")
    a = cx.node(
        "Where", [cx.node("Less", [a, cx.scalar(0, "int64")]), cx.node("Add", [a, cx.scalar(rank + 1, "int64")]), a]
    )
    axes = cx.node("Add", [cx.reshape(a, [1]), cx.ints(range(k))])
    return cx.node("Unsqueeze", [x, axes])


@converter("dyn.squeeze")
def squeeze(cx: OpContext, x: str, axes: str) -> str:
    return cx.node("Squeeze", [x, ints(cx, axes)])


@converter("dyn.one_hot")
def one_hot(cx: OpContext, indices: str, on: str, off: str, depth: str) -> str:
    d = cx.reshape(cx.cast(depth, "int64"), [])
    return one_hot_of(cx, indices, on, off, cx.node("Range", [cx.scalar(0, "int64"), d, cx.scalar(1, "int64")]))


@converter("dyn.topk")
def topk(cx: OpContext, x: str, k: str) -> Any:
    rank = cx.rank(0)
    axis = norm_axis(int(cx.attrs["axis"]), rank)
    extent = cx.node("Gather", [cx.node("Shape", [x]), cx.scalar(axis, "int64")], axis=0)
    k = cx.reshape(cx.cast(k, "int64"), [])
    k = cx.node("Where", [cx.node("Less", [k, cx.scalar(1, "int64")]), extent, k])  # k < 1: the whole axis
    return topk_of(cx, x, cx.reshape(k, [1]), axis)


@converter("dyn.nn.pad")
def pad(cx: OpContext, x: str, widths: str, value: str) -> str:
    mode = cx.attrs["pad_mode"]
    if mode not in ("constant", "edge", "reflect"):
        raise Unsupported(f"pad_mode {mode!r}")
    # (rank, 2) [before, after] rows -> ONNX's every before, then every after
    pads = cx.reshape(cx.node("Transpose", [cx.cast(widths, "int64")], perm=[1, 0]), [-1])
    inputs = [x, pads] + ([cx.cast(value, cx.dtype(0))] if mode == "constant" else [])
    return cx.node("Pad", inputs, mode=mode)


@converter("dyn.strided_slice")
def strided_slice(cx: OpContext, x: str, begin: str, end: str, strides: str) -> str:
    """TVM's indices, normalised as `ops.tensor.slicing` does, then given to `Slice`
    in the form that means the same to it."""
    n = _length(cx, 1)
    zero, one = cx.ints([0]), cx.ints([1])
    extent = cx.node("Slice", [cx.node("Shape", [x]), cx.ints([0]), cx.ints([n])])
    b = ints(cx, begin)
    if cx.attrs["slice_mode"] == "size":
        size = ints(cx, end)
        s = cx.node("Expand", [one, cx.ints([n])])
        stop = cx.node("Add", [b, size])
        # a negative size: to the end; a begin counted from the end, whose size runs past it: to the end too
        whole = cx.node("Or", [_lt(cx, size, zero), cx.node("And", [_lt(cx, b, zero), _ge(cx, stop, zero)])])
        e = cx.node("Where", [whole, cx.ints([INT64_MAX]), stop])
    else:
        s = ints(cx, strides)
        e = ints(cx, end)
    negative = _lt(cx, s, zero)
    lo = cx.node("Where", [negative, cx.ints([-1]), zero])
    hi = cx.node("Where", [negative, cx.node("Sub", [extent, one]), extent])
    cb, ce = (_canonical(cx, v, extent, lo, hi) for v in (b, e))
    # Slice counts a start or an end of -1 from the end: ours mean before the first element
    start = cx.node("Where", [_lt(cx, cb, zero), zero, cb])
    stop = cx.node("Where", [_lt(cx, cb, zero), zero, cx.node("Where", [_lt(cx, ce, zero), cx.ints([INT64_MIN]), ce])])
    return cx.node("Slice", [x, start, stop, cx.ints(range(n)), s])


def _length(cx: OpContext, i: int) -> int:
    ty = cx.in_types[i]
    shape = getattr(ty, "shape", None)
    if not isinstance(shape, tuple) or len(shape) > 1 or (shape and not isinstance(shape[0], int)):
        raise Unsupported(f"the length of argument {i + 1} is not static")
    return int(shape[0]) if shape else 1


def _lt(cx: OpContext, a: str, b: str) -> str:
    return cx.node("Less", [a, b])


def _ge(cx: OpContext, a: str, b: str) -> str:
    return cx.node("GreaterOrEqual", [a, b])


def _canonical(cx: OpContext, v: str, extent: str, lo: str, hi: str) -> str:
    v = cx.node("Where", [_lt(cx, v, cx.ints([0])), cx.node("Add", [v, extent]), v])
    return cx.node("Min", [cx.node("Max", [v, lo]), hi])


# ---- sizes from scales or tensors -------------------------------------------


def _axis_size(cx: OpContext, x: str, axis: int) -> str:
    return cx.node("Slice", [cx.node("Shape", [x]), cx.ints([axis]), cx.ints([axis + 1])])


def _scaled(cx: OpContext, x: str, axis: int, scale: str) -> str:
    """floor(size * scale + 0.5) in double precision, as the kernels compute it."""
    size = cx.cast(_axis_size(cx, x, axis), "float64")
    scaled = cx.node(
        "Add", [cx.node("Mul", [size, cx.reshape(cx.cast(scale, "float64"), [1])]), cx.scalar(0.5, "float64")]
    )
    return cx.cast(cx.node("Floor", [scaled]), "int64")


def _sizes(cx: OpContext, x: str, layout: str, given: dict[str, str]) -> str:
    """The output sizes in `layout` order: `given` for some letters, the input's for the others."""
    parts = [given[c] if c in given else _axis_size(cx, x, i) for i, c in enumerate(layout)]
    return cx.node("Concat", parts, axis=0)


@converter("dyn.nn.upsampling")
def upsampling(cx: OpContext, x: str, scale_h: str, scale_w: str) -> str:
    a = cx.attrs
    layout = a["layout"]
    sizes = _sizes(
        cx,
        x,
        layout,
        {"H": _scaled(cx, x, layout.index("H"), scale_h), "W": _scaled(cx, x, layout.index("W"), scale_w)},
    )
    mode = "align_corners" if a["align_corners"] else "asymmetric"
    return resize_to(cx, x, sizes, a["method"], mode, "", -0.5, 0)


@converter("dyn.nn.upsampling3d")
def upsampling3d(cx: OpContext, x: str, scale_d: str, scale_h: str, scale_w: str) -> str:
    a = cx.attrs
    layout = a["layout"]
    given = {c: _scaled(cx, x, layout.index(c), s) for c, s in zip("DHW", (scale_d, scale_h, scale_w), strict=False)}
    given_method: str = a["method"]
    method = {"trilinear": "linear"}.get(given_method, given_method)
    return resize_to(cx, x, _sizes(cx, x, layout, given), method, a["coordinate_transformation_mode"], "", -0.5, 0)


@converter("dyn.image.resize2d", "dyn.image.resize")
def resize2d(cx: OpContext, x: str, size: str, roi: str = "") -> str:
    a = cx.attrs
    if cx.name == "dyn.image.resize":  # TVM 0.7's name and attributes, without a roi
        from ...ops.legacy.renamed import _resize as current

        a = current(a)
    layout = a["layout"]
    if sorted(layout) != sorted("NCHW"):
        raise Unsupported(f"layout {layout}")
    hw = ints(cx, size)
    given = {
        "H": cx.node("Slice", [hw, cx.ints([0]), cx.ints([1])]),
        "W": cx.node("Slice", [hw, cx.ints([1]), cx.ints([2])]),
    }
    if (a["out_dtype"] or cx.dtype(0)) != cx.dtype(0):
        raise Unsupported("out_dtype other than the input's")
    box = None
    if a["coordinate_transformation_mode"] == "tf_crop_and_resize":
        box = _roi(cx, layout, cx.reshape(cx.cast(roi, "float32"), [-1]))
    sizes = _sizes(cx, x, layout, given)
    return resize_to(
        cx,
        x,
        sizes,
        a["method"],
        a["coordinate_transformation_mode"],
        a["rounding_method"],
        a["cubic_alpha"],
        a["cubic_exclude"],
        box,
        a.get("extrapolation_value", 0.0),
    )


def _roi(cx: OpContext, layout: str, box: str) -> str:
    """ONNX's roi (every axis's start, then every end) from ours, [start_h, start_w, end_h, end_w]."""
    starts, ends = [], []
    for c in layout:
        if c in "HW":
            k = "HW".index(c)
            starts.append(cx.node("Slice", [box, cx.ints([k]), cx.ints([k + 1])]))
            ends.append(cx.node("Slice", [box, cx.ints([k + 2]), cx.ints([k + 3])]))
        else:
            starts.append(cx.const([0.0], "float32"))
            ends.append(cx.const([1.0], "float32"))
    return cx.node("Concat", starts + ends, axis=0)
