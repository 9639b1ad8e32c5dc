"""`nn.conv3d`: convolution over depth, height and width.

Data is `NCDHW` by default (any order of the letters, e.g. `NDHWC`, blocks
such as `NCDHW4c` allowed), the weight `OIDHW` (output channels, input
channels per group, window depth, height, width). `padding` is one value
for every side, three (depth, height, width: the same before and after) or
six (front, top, left, back, bottom, right). Each output size is
`(size + pad_before + pad_after - dilation * (window - 1) - 1) // stride + 1`.
Data and weight may have different dtypes; the sums are taken in
`out_dtype` (the data's dtype when empty), as TVM's compute casts both
operands to it.
"""

from __future__ import annotations

from typing import Any

from ._attrs import CONV3D_ATTRS
from ._conv_nd import conv_nd, conv_rel, kernel_pads, to_layout
from .._np import np, wrap
from ..registry import register
from ..relations import Relation, relation
from ..types import Args, Attrs, Shape, Value


@relation("Conv3D")
def conv3d_rel(r: Relation) -> bool:
    """data (N, C, D, H, W), weight (O, C / groups, KD, KH, KW) -> (N, O, OD, OH, OW)."""
    return conv_rel(r, "DHW")


def run_conv3d(x: Any, w: Any, attrs: Attrs) -> Any:
    """The 3-D convolution of `attrs` on data `x` and a plain-convolution weight `w`."""
    dl, kl = attrs["data_layout"], attrs["kernel_layout"]
    ol = attrs["out_layout"] or dl
    dtype = np.dtype(attrs["out_dtype"] or x.dtype)
    before, after = kernel_pads(attrs["padding"], 3)
    out = conv_nd(
        to_layout(x, dl, "NCDHW"),
        to_layout(w, kl, "OIDHW"),
        _three(attrs["strides"]),
        before,
        after,
        _three(attrs["dilation"]),
        attrs["groups"],
        dtype,
    )
    return wrap(to_layout(out, "NCDHW", ol), dtype)


def _three(v: Shape) -> Shape:
    return tuple(v) * 3 if len(v) == 1 else tuple(v)


@register(
    "nn.conv3d",
    inputs=2,
    relation=conv3d_rel,
    attrs=CONV3D_ATTRS,
    doc="3-D convolution (cross-correlation) with strides, padding, dilation and groups.",
)
def conv3d(args: Args, attrs: Attrs) -> Value:
    return run_conv3d(args[0], args[1], attrs)
