"""Convolutions on channel-blocked layouts: `nn.contrib_conv2d_NCHWc` and
`nn.contrib_depthwise_conv2d_NCHWc`.

The data is 5-D, `NCHW{x}c`: the channels split into `C / x` blocks of
`x`, the block innermost; the weight is 6-D, `OIHW{i}i{o}o` (output-channel
blocks, input-channel blocks, window, then the two block axes), and the
result is laid out in `out_layout` (default: the data's layout). The
arithmetic is that of `nn.conv2d` on the unblocked tensors: the kernels
unblock with `layout_transform`, convolve in NCHW / OIHW and block the
result again. The depthwise form takes `groups` equal to the number of
channels and a weight such as `OIHW1i{o}o` (one input channel per group).

`nn.contrib_conv2d_NCHWc` needs `channels` and `kernel_size` (TVM's
relation reads the output size from them); both check the weight against
the data when its shape is known.
"""

from __future__ import annotations

from typing import Any

from ... import limits
from ._attrs import CONV2D_ATTRS
from ._conv_nd import conv_rel, to_layout
from .._np import np, wrap
from .conv import conv2d_nchw, pads_2d, pair_of
from ..registry import register
from ..relations import Relation, relation
from ..types import Args, Attrs, Value


def blocked_conv2d(x: Any, w: Any, attrs: Attrs) -> Any:
    """nn.conv2d's arithmetic on tensors in any (blocked) layouts of `attrs`."""
    dl, kl = attrs["data_layout"], attrs["kernel_layout"]
    ol = attrs["out_layout"] or dl
    dtype = np.dtype(attrs["out_dtype"] or x.dtype)
    if dl != "NCHW":  # the data unblocked: a copy as large as the data
        limits.check_allocation(x.size, x.dtype.itemsize, "the data of a convolution laid out as NCHW")
    out = conv2d_nchw(
        to_layout(x, dl, "NCHW"),
        to_layout(w, kl, "OIHW"),
        pair_of(attrs["strides"]),
        pads_2d(attrs["padding"]),
        pair_of(attrs["dilation"]),
        attrs["groups"],
        dtype,
    )
    return wrap(to_layout(out, "NCHW", ol), dtype)


@relation("Conv2DNCHWc")
def conv2d_nchwc_rel(r: Relation) -> bool:
    """data (N, C / x, H, W, x), weight (O / o, C / i, KH, KW, i, o) -> (N, O / y, OH, OW, y)."""
    return conv_rel(r, "HW", require_attrs=True)


@register(
    "nn.contrib_conv2d_NCHWc",
    inputs=2,
    relation=conv2d_nchwc_rel,
    attrs=CONV2D_ATTRS,
    doc="2-D convolution on channel-blocked data (NCHW{x}c) and weight (OIHW{i}i{o}o).",
)
def conv2d_nchwc(args: Args, attrs: Attrs) -> Value:
    return blocked_conv2d(args[0], args[1], attrs)


@relation("Conv2D")
def depthwise_conv2d_nchwc_rel(r: Relation) -> bool:
    """Like nn.conv2d, on blocked layouts; the weight can come from channels/kernel_size."""
    return conv_rel(r, "HW")


@register(
    "nn.contrib_depthwise_conv2d_NCHWc",
    inputs=2,
    relation=depthwise_conv2d_nchwc_rel,
    attrs=CONV2D_ATTRS,
    doc="Depthwise 2-D convolution on channel-blocked data (NCHW{x}c) and weight (OIHW1i{o}o).",
)
def depthwise_conv2d_nchwc(args: Args, attrs: Attrs) -> Value:
    return blocked_conv2d(args[0], args[1], attrs)
