"""Transposed convolutions over one and three spatial axes:
`nn.conv1d_transpose` and `nn.conv3d_transpose` (`nn.conv2d_transpose` is
in `conv`).

A transposed convolution is the gradient of a convolution with respect to
its data: each input position adds its value times the weight window into
the output, windows placed `strides` apart and their taps `dilation`
apart; `padding` then crops the result at both ends and `output_padding`
extends it at the end. The weight is `(input channels, output channels per
group, *window)` (`IOW` / `IODHW` by default), so the result has
`groups * weight.shape[1]` channels, and each output size is
`(size - 1) * stride - pad_before - pad_after + dilation * (window - 1) +
output_padding + 1`.

Padding: `nn.conv1d_transpose` takes one value (both ends) or two (left,
right); `nn.conv3d_transpose` one, three (each axis, both ends) or six
(front, top, left, back, bottom, right). Data and weight may have
different dtypes; the sums are taken in `out_dtype` (default: the data's).
"""

from __future__ import annotations


from ._attrs import CONV1D_TRANSPOSE_ATTRS, CONV3D_TRANSPOSE_ATTRS
from ._conv_nd import conv_transpose_nd, conv_transpose_rel, kernel_pads, to_layout
from .._np import np, wrap
from ..registry import register
from ..relations import Relation, relation
from ..types import Args, Attrs, Shape, Value


def _run(args: Args, attrs: Attrs, spatial: str) -> Value:
    x, w = args
    k = len(spatial)
    dl, kl = attrs["data_layout"], attrs["kernel_layout"]
    ol = attrs["out_layout"] or dl
    dtype = np.dtype(attrs["out_dtype"] or x.dtype)

    def full(v: Shape) -> Shape:
        return tuple(v) * k if len(v) == 1 else tuple(v)

    before, after = kernel_pads(attrs["padding"], k)
    out = conv_transpose_nd(
        to_layout(x, dl, "NC" + spatial),
        to_layout(w, kl, "IO" + spatial),
        full(attrs["strides"]),
        before,
        after,
        full(attrs["output_padding"]),
        full(attrs["dilation"]),
        attrs["groups"],
        dtype,
    )
    return wrap(to_layout(out, "NC" + spatial, ol), dtype)


@relation("Conv1DTranspose")
def conv1d_transpose_rel(r: Relation) -> bool:
    """data (N, C, W), weight (C, O / groups, K) -> (N, O, OW)."""
    return conv_transpose_rel(r, "W")


@register(
    "nn.conv1d_transpose",
    inputs=2,
    relation=conv1d_transpose_rel,
    attrs=CONV1D_TRANSPOSE_ATTRS,
    doc="Transposed 1-D convolution (the gradient of conv1d with respect to its data).",
)
def conv1d_transpose(args: Args, attrs: Attrs) -> Value:
    return _run(args, attrs, "W")


@relation("Conv3DTranspose")
def conv3d_transpose_rel(r: Relation) -> bool:
    """data (N, C, D, H, W), weight (C, O / groups, KD, KH, KW) -> (N, O, OD, OH, OW)."""
    return conv_transpose_rel(r, "DHW")


@register(
    "nn.conv3d_transpose",
    inputs=2,
    relation=conv3d_transpose_rel,
    attrs=CONV3D_TRANSPOSE_ATTRS,
    doc="Transposed 3-D convolution (the gradient of conv3d with respect to its data).",
)
def conv3d_transpose(args: Args, attrs: Attrs) -> Value:
    return _run(args, attrs, "DHW")
