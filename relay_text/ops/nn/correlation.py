"""`nn.correlation` (FlowNet's correlation layer) and `nn.dilate`.

`nn.correlation(data1, data2)` compares patches of two NCHW tensors of one
shape: both are zero-padded by `padding` (one value, (height, width), or
(top, left, bottom, right)); for an output position (i, j) the patch of
`data1` starts at `(i * stride1 + max_displacement, j * stride1 +
max_displacement)`, and output channel q = dy * D + dx (D = 2 *
(max_displacement // stride2) + 1) compares it with the patch of `data2`
displaced by `((dy - D // 2) * stride2, (dx - D // 2) * stride2)`. A
patch is `kernel_size` x `kernel_size` (odd) over all channels; the value
is the sum of products (`is_multiply`) or of absolute differences,
divided by `kernel_size^2 * C` (truncating for integers). The output is
(N, D^2, OH, OW) with `OH = ceil((H + pads - 2 * (max_displacement +
kernel_size // 2)) / stride1)`, likewise OW.

`nn.dilate(data, strides, dilation_value)` spreads the elements apart:
along axis i, `strides[i] - 1` copies of `dilation_value` go between
neighbours, so a size n becomes `(n - 1) * strides[i] + 1`.
"""

from __future__ import annotations


from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from .._np import np, wrap
from .conv import pads_2d, window_taps
from ..registry import Attr, register
from ..relations import Relation, known_rank, relation, shape_text
from ..types import Args, Attrs, Value


def _geometry(attrs: Attrs) -> tuple[int, int, int]:
    """(kernel radius, displacement radius, border)."""
    radius = (attrs["kernel_size"] - 1) // 2
    return radius, attrs["max_displacement"] // attrs["stride2"], attrs["max_displacement"] + radius


@relation("Correlation")
def correlation_rel(r: Relation) -> bool:
    """data1, data2 (N, C, H, W) of one shape -> (N, D * D, OH, OW)."""
    a = r.attrs
    if a["layout"] != "NCHW":
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}`: layout "{a["layout"]}" is not supported',
            notes=['TVM computes correlation in "NCHW" only'],
        )
    k = a["kernel_size"]
    if k <= 0 or k % 2 == 0:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` kernel_size must be a positive odd number, found {k}")
    if a["max_displacement"] < 0:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` max_displacement cannot be negative, found {a['max_displacement']}")
    if a["stride1"] <= 0 or a["stride2"] <= 0:
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` stride1 and stride2 must be positive, found {a['stride1']} and {a['stride2']}",
        )
    pad = a["padding"]
    if len(pad) not in (1, 2, 4) or any(p < 0 for p in pad):
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` padding takes 1, 2 or 4 non-negative values, found {list(pad)}")
    x, y = r.tensor(0), r.tensor(1)
    if not known_rank(x.shape) or not known_rank(y.shape):
        return False
    for i, shape in ((0, x.shape), (1, y.shape)):
        if len(shape) != 4:
            r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs 4-D data (NCHW), found {shape_text(shape)}", arg=i)
    for axis, (p, q) in enumerate(zip(x.shape, y.shape, strict=False)):
        if type(p) is int and type(q) is int and p != q:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`{r.op}`: the two inputs must have one shape, found {shape_text(x.shape)} and {shape_text(y.shape)}",
                arg=1,
                notes=[f"axis {axis} has size {p} and {q}"],
            )
    r.unify_dtypes(0, 1)
    t, left, b, right = pads_2d(pad)
    _, disp, border = _geometry(a)
    d = 2 * disp + 1
    out = []
    for size, extra in ((x.shape[2], t + b), (x.shape[3], left + right)):
        if type(size) is not int:
            out.append(AnyDim())
            continue
        v = -(-(size + extra - 2 * border) // a["stride1"])
        if v <= 0:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`{r.op}`: the input ({size} with padding {extra}) is too small for max_displacement "
                f"{a['max_displacement']} "
                f"and kernel_size {k}",
                arg=0,
            )
        out.append(v)
    r.set_result(TensorType((x.shape[0], d * d, *out), x.dtype))
    return True


@register(
    "nn.correlation",
    inputs=2,
    relation=correlation_rel,
    attrs=(
        Attr("kernel_size", "int", 1),
        Attr("max_displacement", "int", 1),
        Attr("stride1", "int", 1),
        Attr("stride2", "int", 1),
        Attr("padding", "ints", (0, 0)),
        Attr("is_multiply", "bool", True),
        Attr("layout", "str", "NCHW"),
    ),
    doc="FlowNet correlation of two feature maps over a window of displacements.",
)
def correlation(args: Args, attrs: Attrs) -> Value:
    x, y = args
    dtype = x.dtype
    k, s1, s2, md = attrs["kernel_size"], attrs["stride1"], attrs["stride2"], attrs["max_displacement"]
    t, left, b, right = pads_2d(attrs["padding"])
    _, disp, border = _geometry(attrs)
    d = 2 * disp + 1
    n, c, h, w = x.shape
    oh = -(-(h + t + b - 2 * border) // s1)
    ow = -(-(w + left + right - 2 * border) // s1)
    width = [(0, 0), (0, 0), (t, b), (left, right)]
    xp, yp = np.pad(x, width), np.pad(y, width)
    # patch sums: over channels, then over the k x k window (one tap at a time)
    out = np.zeros((n, d * d, oh, ow), dtype=dtype)
    for q in range(d * d):
        dy, dx = (q // d - disp) * s2, (q % d - disp) * s2
        a = xp[:, :, md:, md:]
        bb = yp[:, :, md + dy :, md + dx :]
        per_pixel = a[:, :, : bb.shape[2], : bb.shape[3]]
        bb = bb[:, :, : per_pixel.shape[2], : per_pixel.shape[3]]
        term = per_pixel * bb if attrs["is_multiply"] else np.abs(per_pixel - bb)
        summed = term.sum(axis=1, keepdims=True, dtype=dtype)
        acc = np.zeros((n, 1, oh, ow), dtype=dtype)
        for view in window_taps(summed, (k, k), (oh, ow), (s1, s1), (1, 1)):
            acc += view
        out[:, q] = acc[:, 0]
    div = k * k * c
    if out.dtype.kind in "iu":
        return wrap(np.sign(out) * (np.abs(out) // div), dtype)
    return wrap(out / np.asarray(div, dtype=dtype), dtype)


@relation("Dilate")
def dilate_rel(r: Relation) -> bool:
    """Each axis n -> (n - 1) * stride + 1, one stride per axis."""
    strides = r.attrs["strides"]
    if any(s <= 0 for s in strides):
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` strides must be positive, found {list(strides)}")
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    if len(strides) != len(x.shape):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` has {len(strides)} strides for data of rank {len(x.shape)}",
            arg=0,
            notes=["give one stride per axis"],
        )
    shape = tuple(
        (d - 1) * s + 1 if type(d) is int else (d if s == 1 else AnyDim())
        for d, s in zip(x.shape, strides, strict=False)
    )
    r.set_result(TensorType(shape, x.dtype))
    return True


@register(
    "nn.dilate",
    inputs=1,
    relation=dilate_rel,
    attrs=(Attr("strides", "ints", (1, 1)), Attr("dilation_value", "float", 0.0)),
    doc="Spread elements apart, strides[i] - 1 copies of dilation_value between neighbours along axis i.",
)
def dilate(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    strides = attrs["strides"]
    shape = tuple((d - 1) * s + 1 if d else 0 for d, s in zip(x.shape, strides, strict=False))
    out = np.full(shape, attrs["dilation_value"]).astype(x.dtype)
    out[tuple(slice(None, None, s) for s in strides)] = x
    return out
