"""`nn.conv2d_backward_weight`: the gradient of `nn.conv2d` with respect to
its weight, from the gradient of its output and its input data.

`dw[o, i, a, b] = sum over n, y, x of grad[n, o, y, x] *
data_padded[n, g(o) * I + i, y * stride_h + a * dilation_h,
x * stride_w + b * dilation_w]`, where g(o) is the group of output channel
o and I the input channels per group. The weight's window is
`kernel_size`, which is required.

TVM stores the three layouts in the fields of its conv2d attributes:
`data_layout` is the layout of the output gradient, `kernel_layout` that
of the data and `out_layout` that of the resulting weight (OIHW when
empty). The weight is (O, C / groups, KH, KW), except for a depthwise
convolution (data channels = gradient channels = groups), where its second
axis is `channels / groups` and `channels` is required. The result has
`out_dtype`, or the gradient's dtype.
"""

from __future__ import annotations


from ...diagnostics import codes
from ...ir.ty import TensorType
from ._conv_nd import (
    from_plain,
    groups_attr,
    int_values,
    kernel_pads,
    layout_attr,
    pad_spatial,
    pads,
    to_layout,
    to_plain,
)
from .._np import np, wrap
from ._attrs import CONV2D_ATTRS
from ..registry import register
from ..relations import Relation, known_rank, relation
from ..types import Args, Attrs, Value


@relation("Conv2DBackwardWeight")
def conv2d_backward_weight_rel(r: Relation) -> bool:
    """grad (N, O, OH, OW), data (N, C, H, W) -> weight (O, C / groups, KH, KW)."""
    gl = layout_attr(r, "data_layout", "NCHW")
    dl = r.attrs["kernel_layout"]
    if sorted(dl) != sorted("NCHW"):
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}`: kernel_layout (the layout of the data) "{dl}" is not supported',
            notes=[
                "TVM keeps the data's layout in kernel_layout and the weight's in out_layout: write "
                'kernel_layout="NCHW", out_layout="OIHW"'
            ],
        )
    wl = layout_attr(r, "out_layout", "OIHW", "OIHW")
    int_values(r, "strides", 2)
    int_values(r, "dilation", 2)
    pads(r, 2)
    groups = groups_attr(r)
    if r.attrs["kernel_size"] is None:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` needs the attribute kernel_size")
    kh, kw = int_values(r, "kernel_size", 2)
    grad, data = r.tensor(0), r.tensor(1)
    if not known_rank(grad.shape) or not known_rank(data.shape):
        return False
    gn, o, _, _ = to_plain(r, grad.shape, gl, "NCHW", 0, "gradient")
    dn, c, _, _ = to_plain(r, data.shape, dl, "NCHW", 1, "data")
    if type(gn) is int and type(dn) is int and gn != dn:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}`: the gradient has batch {gn}, the data {dn}", arg=1)
    if type(c) is not int or type(o) is not int:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` needs static channel counts, found {o} and {c}",
            arg=1 if type(c) is not int else 0,
        )
    if c % groups or o % groups:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}`: {c} input and {o} output channels cannot both be divided into groups={groups}",
            arg=1,
        )
    i = c // groups
    if c == o == groups:
        channels = r.attrs["channels"]
        if channels is None:
            r.fail(codes.TYPE_MISMATCH, f"`{r.op}` of a depthwise convolution needs the attribute channels")
        if channels // groups != i:
            r.fail(
                codes.TYPE_MISMATCH,
                f"`{r.op}`: a depthwise weight with channels={channels} would have {channels // groups} inputs per "
                f"group; only {i} can be computed",
            )
    shape = from_plain(r, (o, i, kh, kw), "OIHW", wl, None, "result")
    r.set_result(TensorType(shape, r.attrs["out_dtype"] or grad.dtype))
    return True


@register(
    "nn.conv2d_backward_weight",
    inputs=2,
    relation=conv2d_backward_weight_rel,
    attrs=CONV2D_ATTRS,
    doc="Gradient of conv2d with respect to its weight, from the output gradient and the data.",
)
def conv2d_backward_weight(args: Args, attrs: Attrs) -> Value:
    dtype = np.dtype(attrs["out_dtype"] or args[0].dtype)
    grad = to_layout(args[0], attrs["data_layout"], "NCHW").astype(dtype, copy=False)
    x = to_layout(args[1], attrs["kernel_layout"], "NCHW").astype(dtype, copy=False)
    n, o, oh, ow = grad.shape
    c = x.shape[1]
    groups = attrs["groups"]
    kh, kw = (attrs["kernel_size"] * 2)[:2] if len(attrs["kernel_size"]) == 1 else attrs["kernel_size"]
    sh, sw = (attrs["strides"] * 2)[:2] if len(attrs["strides"]) == 1 else attrs["strides"]
    dh, dw = (attrs["dilation"] * 2)[:2] if len(attrs["dilation"]) == 1 else attrs["dilation"]
    before, after = kernel_pads(attrs["padding"], 2)
    xp = pad_spatial(x, before, after)
    need_h = (kh - 1) * dh + sh * (oh - 1) + 1
    need_w = (kw - 1) * dw + sw * (ow - 1) + 1
    xp = pad_spatial(xp, (0, 0), (max(0, need_h - xp.shape[2]), max(0, need_w - xp.shape[3])))
    ipg = c // groups
    g = grad.reshape(n, groups, o // groups, oh * ow)
    out = np.zeros((o, ipg, kh, kw), dtype=dtype)
    for a in range(kh):
        for b in range(kw):
            view = xp[:, :, a * dh : a * dh + sh * (oh - 1) + 1 : sh, b * dw : b * dw + sw * (ow - 1) + 1 : sw]
            v = view.reshape(n, groups, ipg, oh * ow)
            # sum over images and positions, per group: (groups, O/groups, ipg)
            out[:, :, a, b] = np.matmul(
                g.transpose(1, 2, 0, 3).reshape(groups, o // groups, n * oh * ow),
                v.transpose(1, 0, 3, 2).reshape(groups, n * oh * ow, ipg),
            ).reshape(o, ipg)
    return wrap(to_layout(out, "OIHW", attrs["out_layout"] or "OIHW"), dtype)
