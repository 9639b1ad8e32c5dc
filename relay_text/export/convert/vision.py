"""Vision operators: sampling grids, crops, pooling over regions of interest.

They follow the numpy kernels (`relay_text/ops/image/grid_sample.py`,
`crop_and_resize.py`, `roi.py`) step by step, in the same dtypes, so that
positions, bins and rounding agree: ONNX's nearest operators differ in
details (onnxruntime's RoiAlign takes the largest of weighted corners in
"max" mode, MaxRoiPool's bins lack TOPI's 1e-5 slack), so only the
"avg" mode of `vision.roi_align` uses an ONNX operator of its own.
"""

from __future__ import annotations

from . import OpContext, Unsupported, converter, np, np_dtype, select
from .nn import to_layout


@converter("image.affine_grid")
def affine_grid(cx: OpContext, theta: str) -> str:
    """theta @ (x, y, 1) over the kernel's grid of points (constants)."""
    h, w = (int(v) for v in cx.attrs["target_shape"])
    dtype = np_dtype(cx.dtype(0))
    y = np.asarray(-1.0, dtype) + np.arange(h).astype(dtype) * np.asarray((2.0 - 1e-7) / (h - 1), dtype)
    x = np.asarray(-1.0, dtype) + np.arange(w).astype(dtype) * np.asarray((2.0 - 1e-7) / (w - 1), dtype)
    column = [
        cx.unsqueeze(cx.node("Gather", [theta, cx.scalar(k, "int64")], axis=2), [2, 3]) for k in range(3)
    ]  # (N, 2, 1, 1)
    xs = cx.node("Mul", [column[0], cx.const(x.reshape(1, 1, 1, w))])
    ys = cx.node("Mul", [column[1], cx.const(y.reshape(1, 1, h, 1))])
    return cx.node("Add", [cx.node("Add", [xs, ys]), column[2]])


# ---- crop_and_resize ------------------------------------------------------------


def _sources(cx: OpContext, lo: str, hi: str, length: int, size: int, work: str) -> str:
    """(num_boxes, size) source coordinates between the box edges lo and hi (num_boxes, 1)."""
    one = cx.scalar(length - 1, work)
    if size == 1:
        return cx.node("Mul", [cx.node("Mul", [cx.node("Add", [lo, hi]), cx.scalar(0.5, work)]), one])
    scale = cx.node("Div", [cx.node("Mul", [one, cx.node("Sub", [hi, lo])]), cx.scalar(size - 1, work)])
    return cx.node(
        "Add",
        [cx.node("Mul", [lo, one]), cx.node("Mul", [scale, cx.const(np.arange(size, dtype=work).reshape(1, size))])],
    )


def _clip_index(cx: OpContext, v: str, length: int) -> str:
    """A float position as an int64 index clamped into [0, length - 1]."""
    return cx.node("Clip", [cx.cast(v, "int64"), cx.scalar(0, "int64"), cx.scalar(length - 1, "int64")])


def _pick(cx: OpContext, img: str, rows: str, cols: str) -> str:
    """img (K, H, W, C) at rows (K, CH) and cols (K, CW): (K, CH, CW, C)."""
    r = cx.node("GatherND", [img, cx.unsqueeze(rows, [2])], batch_dims=1)  # (K, CH, W, C)
    r = cx.node("Transpose", [r], perm=[0, 2, 1, 3])  # (K, W, CH, C)
    r = cx.node("GatherND", [r, cx.unsqueeze(cols, [2])], batch_dims=1)  # (K, CW, CH, C)
    return cx.node("Transpose", [r], perm=[0, 2, 1, 3])


@converter("image.crop_and_resize")
def crop_and_resize(cx: OpContext, data: str, boxes: str, box_indices: str) -> str:
    a = cx.attrs
    layout = a["layout"]
    ch, cw = (int(v) for v in a["crop_size"])
    shape = dict(zip(layout, cx.shape(0), strict=False))
    height, width = shape["H"], shape["W"]
    box_dtype = cx.dtype(1)
    work = "float64" if cx.dtype(0) == "float64" else "float32"
    out_dtype = a["out_dtype"] or cx.dtype(0)
    img = cx.cast(to_layout(cx, data, layout, "NHWC"), work)
    img = cx.node("Gather", [img, cx.cast(box_indices, "int64")], axis=0)  # (K, H, W, C)
    edge = [cx.node("Slice", [boxes, cx.ints([k]), cx.ints([k + 1]), cx.ints([1])]) for k in range(4)]  # (K, 1) each
    ys = _sources(cx, edge[0], edge[2], height, ch, box_dtype)  # (K, CH)
    xs = _sources(cx, edge[1], edge[3], width, cw, box_dtype)  # (K, CW)
    if a["method"] == "nearest_neighbor":
        value = _pick(
            cx,
            img,
            _clip_index(cx, _round(cx, ys, box_dtype), height),
            _clip_index(cx, _round(cx, xs, box_dtype), width),
        )
    elif a["method"] == "bilinear":
        y0, x0 = cx.node("Floor", [ys]), cx.node("Floor", [xs])
        fy = cx.unsqueeze(cx.cast(cx.node("Sub", [ys, y0]), work), [2, 3])  # (K, CH, 1, 1)
        fx = cx.unsqueeze(cx.cast(cx.node("Sub", [xs, x0]), work), [1, 3])  # (K, 1, CW, 1)
        r0, r1 = (_clip_index(cx, cx.node("Add", [y0, cx.scalar(k, box_dtype)]), height) for k in (0, 1))
        c0, c1 = (_clip_index(cx, cx.node("Add", [x0, cx.scalar(k, box_dtype)]), width) for k in (0, 1))
        one = cx.scalar(1, work)
        gx, gy = cx.node("Sub", [one, fx]), cx.node("Sub", [one, fy])
        top = cx.node(
            "Add", [cx.node("Mul", [_pick(cx, img, r0, c0), gx]), cx.node("Mul", [_pick(cx, img, r0, c1), fx])]
        )
        bottom = cx.node(
            "Add", [cx.node("Mul", [_pick(cx, img, r1, c0), gx]), cx.node("Mul", [_pick(cx, img, r1, c1), fx])]
        )
        value = cx.node("Add", [cx.node("Mul", [top, gy]), cx.node("Mul", [bottom, fy])])
    else:
        raise Unsupported(f"method {a['method']!r}")
    outside_y = cx.node(
        "Or",
        [cx.node("Less", [ys, cx.scalar(0, box_dtype)]), cx.node("Greater", [ys, cx.scalar(height - 1, box_dtype)])],
    )
    outside_x = cx.node(
        "Or",
        [cx.node("Less", [xs, cx.scalar(0, box_dtype)]), cx.node("Greater", [xs, cx.scalar(width - 1, box_dtype)])],
    )
    outside = cx.node("Or", [cx.unsqueeze(outside_y, [2, 3]), cx.unsqueeze(outside_x, [1, 3])])
    out = cx.node("Where", [outside, cx.scalar(float(a["extrapolation_value"]), work), value])  # (K, CH, CW, C)
    if np.dtype(np_dtype(out_dtype)).kind in "iu":
        out = _trunc(cx, out)
    return to_layout(cx, cx.cast(out, out_dtype), "NHWC", layout)


def _round(cx: OpContext, v: str, dtype: str) -> str:
    """Halves away from zero: sign(v) * floor(|v| + 0.5)."""
    half = cx.node("Floor", [cx.node("Add", [cx.node("Abs", [v]), cx.scalar(0.5, dtype)])])
    return cx.node("Mul", [cx.node("Sign", [v]), half])


def _trunc(cx: OpContext, v: str) -> str:
    return cx.node("Mul", [cx.node("Sign", [v]), cx.node("Floor", [cx.node("Abs", [v])])])


# ---- regions of interest --------------------------------------------------------


@converter("vision.roi_align")
def roi_align(cx: OpContext, data: str, rois: str) -> str:
    a = cx.attrs
    if a["mode"] == "max":
        return _roi_align_max(cx, data, rois)
    if cx.dtype(0) != cx.dtype(1) or cx.dtype(0) not in ("float32", "float64"):
        raise Unsupported("ONNX's RoiAlign takes data and regions of one dtype, float32 or float64")
    ph, pw = (int(v) for v in a["pooled_size"])
    layout = a["layout"]
    x = to_layout(cx, data, layout, "NCHW")
    boxes = cx.node("Slice", [rois, cx.ints([1]), cx.ints([5]), cx.ints([1])])
    batch = cx.cast(cx.reshape(cx.node("Slice", [rois, cx.ints([0]), cx.ints([1]), cx.ints([1])]), [-1]), "int64")
    y = cx.node(
        "RoiAlign",
        [x, boxes, batch],
        mode="avg",
        output_height=ph,
        output_width=pw,
        sampling_ratio=max(int(a["sample_ratio"]), 0),
        spatial_scale=float(a["spatial_scale"]),
        coordinate_transformation_mode="output_half_pixel",  # TOPI's: no half-pixel shift
    )
    return to_layout(cx, y, "NCHW", layout)


def _roi_align_max(cx: OpContext, data: str, rois: str) -> str:
    """The kernel's "max" mode (onnxruntime's RoiAlign takes the largest of
    the weighted corners of each sample instead): one region per iteration
    of a `Loop`, its samples placed and read bilinearly as the kernel does
    (the blend in float64), the largest of each bin's samples kept."""
    a = cx.attrs
    layout = a["layout"]
    x = to_layout(cx, data, layout, "NCHW")
    sizes = dict(zip(layout, cx.shape(0), strict=False))
    height, width = sizes["H"], sizes["W"]
    ph, pw = (int(v) for v in a["pooled_size"])
    ratio = int(a["sample_ratio"])
    work = cx.dtype(1)
    dtype = cx.dtype(0)
    count = cx.reshape(cx.node("Gather", [cx.node("Shape", [rois]), cx.scalar(0, "int64")], axis=0), [])
    scaled = cx.node("Mul", [rois, cx.scalar(float(a["spatial_scale"]), work)])

    def one_region(bx: OpContext, i: str) -> list[str]:
        roi = bx.node("Gather", [rois, i], axis=0)  # (5,)
        box = bx.node("Gather", [scaled, i], axis=0)

        def at(v: str, k: int) -> str:
            return bx.node("Gather", [v, bx.scalar(k, "int64")], axis=0)

        img = bx.cast(bx.node("Gather", [x, bx.cast(at(roi, 0), "int64")], axis=0), "float64")  # (C, H, W)

        def samples(lo: str, hi: str, pooled: int, length: int) -> tuple[str, str]:
            """The sample positions along one axis (pooled * grid,) and the grid size."""
            extent = bx.node("Max", [bx.node("Sub", [hi, lo]), bx.scalar(1, work)])
            step = bx.node("Div", [extent, bx.scalar(pooled, work)])
            grid = (
                bx.ints([ratio])
                if ratio > 0
                else bx.reshape(
                    bx.cast(bx.node("Ceil", [bx.node("Div", [extent, bx.scalar(pooled, work)])]), "int64"), [1]
                )
            )
            grid_f = bx.reshape(bx.cast(grid, work), [])
            offsets = bx.reshape(
                bx.cast(bx.node("Range", [bx.scalar(0, "int64"), bx.reshape(grid, []), bx.scalar(1, "int64")]), work),
                [1, -1],
            )
            starts = bx.node("Add", [lo, bx.node("Mul", [bx.const(np.arange(pooled).reshape(pooled, 1), work), step])])
            within = bx.node("Div", [bx.node("Mul", [bx.node("Add", [offsets, bx.scalar(0.5, work)]), step]), grid_f])
            return bx.reshape(bx.node("Add", [starts, within]), [-1]), grid

        ys, gh = samples(at(box, 2), at(box, 4), ph, height)
        xs, gw = samples(at(box, 1), at(box, 3), pw, width)
        value = _bilinear(bx, img, ys, xs, height, width, work)  # (C, PH * gh, PW * gw)
        shape = bx.node("Concat", [bx.ints([0, ph]), gh, bx.ints([pw]), gw], axis=0)
        value = bx.reduce("ReduceMax", bx.node("Reshape", [value, shape]), [2, 4], False)
        return [bx.cast(value, dtype)]

    (out,) = cx.per_item(count, one_region)
    return to_layout(cx, out, "NCHW", layout)


def _bilinear(cx: OpContext, img: str, ys: str, xs: str, height: int, width: int, dtype: str) -> str:
    """img (C, H, W) read at every (ys[i], xs[j]) as the kernel reads it: 0
    beyond one pixel outside the image, positions clamped, neighbours past
    the last pixel weighing nothing."""

    def axis(v: str, length: int) -> tuple[str, str, str]:
        outside = cx.node(
            "Or", [cx.node("Less", [v, cx.scalar(-1, dtype)]), cx.node("Greater", [v, cx.scalar(length, dtype)])]
        )
        v = cx.node("Clip", [v, cx.scalar(0, dtype), cx.scalar(length - 1, dtype)])
        low = cx.node("Floor", [v])
        frac = cx.node("Sub", [cx.cast(v, "float64"), cx.cast(low, "float64")])
        return outside, cx.cast(low, "int64"), frac

    out_y, y0, fy = axis(ys, height)
    out_x, x0, fx = axis(xs, width)
    fy, fx = cx.unsqueeze(fy, [1]), cx.unsqueeze(fx, [0])
    one = cx.scalar(1, "float64")
    total = None
    for dy, wy in ((0, cx.node("Sub", [one, fy])), (1, fy)):
        rows = cx.node("Add", [y0, cx.scalar(dy, "int64")])
        for dx, wx in ((0, cx.node("Sub", [one, fx])), (1, fx)):
            cols = cx.node("Add", [x0, cx.scalar(dx, "int64")])
            row_ok = cx.node("LessOrEqual", [rows, cx.scalar(height - 1, "int64")])
            col_ok = cx.node("LessOrEqual", [cols, cx.scalar(width - 1, "int64")])
            ok = cx.node("And", [cx.unsqueeze(row_ok, [1]), cx.unsqueeze(col_ok, [0])])
            pix = cx.node("Gather", [img, cx.node("Min", [rows, cx.scalar(height - 1, "int64")])], axis=1)
            pix = cx.node("Gather", [pix, cx.node("Min", [cols, cx.scalar(width - 1, "int64")])], axis=2)
            term = cx.node("Mul", [cx.node("Where", [ok, cx.node("Mul", [wy, wx]), cx.scalar(0, "float64")]), pix])
            total = term if total is None else cx.node("Add", [total, term])
    outside = cx.node("Or", [cx.unsqueeze(out_y, [1]), cx.unsqueeze(out_x, [0])])
    assert total is not None  # (four taps)
    return cx.node("Where", [outside, cx.scalar(0, "float64"), total])


@converter("vision.roi_pool")
def roi_pool(cx: OpContext, data: str, rois: str) -> str:
    """The kernel's bins, computed for every region at once, then one region
    per iteration of a `Loop`: its bins as masks over rows and columns, the
    largest element under each (0 for an empty bin)."""
    a = cx.attrs
    layout = a["layout"]
    x = to_layout(cx, data, layout, "NCHW")
    sizes = dict(zip(layout, cx.shape(0), strict=False))
    height, width = sizes["H"], sizes["W"]
    ph, pw = (int(v) for v in a["pooled_size"])
    work = cx.dtype(1)
    dtype = cx.dtype(0)
    column = [
        cx.reshape(cx.node("Slice", [rois, cx.ints([k]), cx.ints([k + 1]), cx.ints([1])]), [-1, 1]) for k in range(5)
    ]  # (K, 1)
    batch = cx.reshape(cx.cast(column[0], "int64"), [-1])
    scale, eps = cx.scalar(float(a["spatial_scale"]), work), cx.scalar(1e-5, work)
    x1, y1, x2, y2 = (cx.cast(_round(cx, cx.node("Mul", [column[k], scale]), work), "int64") for k in (1, 2, 3, 4))

    def bins(start: str, stop: str, count: int, length: int) -> tuple[str, str]:
        """(K, count) first and past-last positions of each bin, clipped to [0, length]."""
        size = cx.node("Max", [cx.node("Add", [cx.node("Sub", [stop, start]), cx.ints([1])]), cx.ints([1])])
        step = cx.node("Div", [cx.cast(size, work), cx.scalar(count, work)])  # (K, 1)
        index = cx.const(np.arange(count).reshape(1, count), work)
        lo = cx.node("Floor", [cx.node("Add", [cx.node("Mul", [index, step]), eps])])
        hi = cx.node(
            "Ceil", [cx.node("Sub", [cx.node("Mul", [cx.node("Add", [index, cx.scalar(1, work)]), step]), eps])]
        )
        clip = [cx.scalar(0, "int64"), cx.scalar(length, "int64")]
        first, past = (cx.node("Clip", [cx.node("Add", [cx.cast(v, "int64"), start]), *clip]) for v in (lo, hi))
        return first, past

    top, bottom = bins(y1, y2, ph, height)
    left, right = bins(x1, x2, pw, width)
    lowest = np.finfo(np_dtype(dtype)).min if np.dtype(np_dtype(dtype)).kind == "f" else np.iinfo(np_dtype(dtype)).min
    count = cx.reshape(cx.node("Gather", [cx.node("Shape", [rois]), cx.scalar(0, "int64")], axis=0), [])

    def one_region(bx: OpContext, i: str) -> list[str]:
        def row(v: str) -> str:
            return bx.node("Gather", [v, i], axis=0)  # the region's (count,) vector

        img = bx.node("Gather", [x, row(batch)], axis=0)  # (C, H, W)
        rows = bx.const(np.arange(height).reshape(1, height), "int64")
        cols = bx.const(np.arange(width).reshape(1, width), "int64")
        in_rows = bx.node(
            "And",
            [
                bx.node("GreaterOrEqual", [rows, bx.unsqueeze(row(top), [1])]),
                bx.node("Less", [rows, bx.unsqueeze(row(bottom), [1])]),
            ],
        )  # (PH, H)
        in_cols = bx.node(
            "And",
            [
                bx.node("GreaterOrEqual", [cols, bx.unsqueeze(row(left), [1])]),
                bx.node("Less", [cols, bx.unsqueeze(row(right), [1])]),
            ],
        )  # (PW, W)
        low = bx.scalar(lowest, np_dtype(dtype))
        t = select(bx, bx.reshape(in_cols, [1, 1, pw, width]), bx.unsqueeze(img, [2]), low, dtype)  # (C, H, PW, W)
        t = bx.reduce("ReduceMax", t, [3], False)  # (C, H, PW)
        t = select(bx, bx.reshape(in_rows, [1, ph, height, 1]), bx.unsqueeze(t, [1]), low, dtype)  # (C, PH, H, PW)
        t = bx.reduce("ReduceMax", t, [2], False)  # (C, PH, PW)
        empty = bx.node(
            "Or",
            [
                bx.unsqueeze(bx.node("GreaterOrEqual", [row(top), row(bottom)]), [1]),
                bx.unsqueeze(bx.node("GreaterOrEqual", [row(left), row(right)]), [0]),
            ],
        )  # (PH, PW)
        return [select(bx, empty, bx.scalar(0, np_dtype(dtype)), t, dtype)]

    (out,) = cx.per_item(count, one_region)
    return to_layout(cx, out, "NCHW", layout)
