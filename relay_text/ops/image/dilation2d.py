"""`image.dilation2d`: grayscale morphological dilation (TensorFlow's
dilation2d), a convolution with max in place of sum and + in place of *.

`dilation2d(data, weight, strides=[1, 1], padding=[0, 0], dilations=[1, 1],
data_layout="NCHW", kernel_layout="IHW", out_dtype="")` (of longer strides
and dilations lists only the first two values count, as in TVM's relation).
`weight` holds one `KH x KW` structuring element per channel (`[C, KH, KW]`
in the IHW layout). Each output pixel is, per channel,

    out[n, c, y, x] = max over (i, j) of data[n, c, y*sh + i*dh, x*sw + j*dw] + weight[c, i, j]

over the data padded with zeros by `padding` (one value for every side,
two for (top and bottom, left and right), or four: top, left, bottom,
right). The output height is `(H + top + bottom - ((KH - 1) * dh + 1)) //
sh + 1`, the width likewise; the channels are the weight's. Both operands
are cast to `out_dtype` (default: the data's dtype) before the addition,
which wraps around for integers.
"""

from __future__ import annotations


from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from .._np import np, wrap
from ..nn.conv import pads_2d, window_taps
from ..registry import Attr, register
from ..relations import Relation, known_rank, relation, shape_text, static
from ..types import Args, Attrs, Value


def _two(r: Relation, name: str) -> tuple[int, int]:
    """(height, width) of strides or dilations: TVM's relation reads the first
    two values of the list, so longer lists pass (its own tests give four)."""
    v = r.attrs[name]
    if len(v) < 2 or min(v[:2]) < 1:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` {name} takes 2 positive values (height, width), found {list(v)}")
    return v[0], v[1]


def _layout(r: Relation, name: str, letters: str) -> str:
    layout: str = r.attrs[name]
    if sorted(layout) != sorted(letters):
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}`: {name} "{layout}" is not supported',
            notes=[f'use an order of the letters {letters}, e.g. "{letters}"'],
        )
    return layout


@relation("Dilation2D")
def dilation2d_rel(r: Relation) -> bool:
    layout = _layout(r, "data_layout", "NCHW")
    klayout = _layout(r, "kernel_layout", "IHW")
    sh, sw = _two(r, "strides")
    dh, dw = _two(r, "dilations")
    pad = r.attrs["padding"]
    if len(pad) not in (1, 2, 4) or min(pad, default=0) < 0:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` padding takes 1, 2 or 4 values that are not negative, found {list(pad)}")
    top, left, bottom, right = pads_2d(pad)
    for i in (0, 1):
        if r.tensor(i).dtype == "bool":
            r.fail(codes.TYPE_MISMATCH, f"`{r.op}` takes numbers, not bool", arg=i, label="this is `bool`")
    data, weight = r.tensor(0), r.tensor(1)
    if known_rank(data.shape) and len(data.shape) != 4:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs 4-D data ({layout}), found {shape_text(data.shape)}", arg=0)
    if known_rank(weight.shape) and len(weight.shape) != 3:
        r.fail(
            codes.SHAPE_MISMATCH, f"`{r.op}` needs a 3-D weight ({klayout}), found {shape_text(weight.shape)}", arg=1
        )
    if not (known_rank(data.shape) and known_rank(weight.shape)):
        return False
    d = dict(zip(layout, data.shape, strict=False))
    k = dict(zip(klayout, weight.shape, strict=False))
    c, ci = static(d["C"]), static(k["I"])
    if c is not None and ci is not None and c != ci:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}`: the data has {c} channels but the weight {ci}", arg=1)
    out = {"N": d["N"], "C": k["I"]}
    for axis, size, kk, stride, dil, extra in (
        ("H", d["H"], k["H"], sh, dh, top + bottom),
        ("W", d["W"], k["W"], sw, dw, left + right),
    ):
        n, kn = static(size), static(kk)
        if isinstance(size, AnyDim) or n is None or kn is None:
            out[axis] = size if isinstance(size, AnyDim) else AnyDim()
            continue
        length = (n + extra - ((kn - 1) * dil + 1)) // stride + 1
        if length <= 0:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`{r.op}`: the dilated {kn}-wide window does not fit the padded {axis} axis of {n + extra}",
                arg=0,
            )
        out[axis] = length
    r.set_result(TensorType(tuple(out[x] for x in layout), r.attrs["out_dtype"] or data.dtype))
    return True


@register(
    "image.dilation2d",
    inputs=2,
    relation=dilation2d_rel,
    attrs=(
        Attr("strides", "ints", (1, 1)),
        Attr("padding", "ints", (0, 0)),
        Attr("dilations", "ints", (1, 1)),
        Attr("data_layout", "str", "NCHW"),
        Attr("kernel_layout", "str", "IHW"),
        Attr("out_dtype", "opt_dtype", ""),
    ),
    doc="Grayscale dilation: the max over a window of data plus a per-channel structuring element.",
)
def dilation2d(args: Args, attrs: Attrs) -> Value:
    data, weight = args
    layout, klayout = attrs["data_layout"], attrs["kernel_layout"]
    dtype = np.dtype(attrs["out_dtype"] or data.dtype)
    x = np.transpose(data, [layout.index(c) for c in "NCHW"]).astype(dtype)
    w = np.transpose(weight, [klayout.index(c) for c in "IHW"]).astype(dtype)
    top, left, bottom, right = pads_2d(attrs["padding"])
    xp = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    (sh, sw), (dh, dw) = attrs["strides"][:2], attrs["dilations"][:2]
    kh, kw = w.shape[1:]
    oh = (xp.shape[2] - ((kh - 1) * dh + 1)) // sh + 1
    ow = (xp.shape[3] - ((kw - 1) * dw + 1)) // sw + 1
    out = None
    for t, tap in enumerate(window_taps(xp, (kh, kw), (oh, ow), (sh, sw), (dh, dw))):
        value = tap + w[:, t // kw, t % kw][None, :, None, None]
        out = value if out is None else np.maximum(out, value)
    return wrap(np.transpose(out, ["NCHW".index(c) for c in layout]), dtype)
