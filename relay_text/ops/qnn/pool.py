"""`qnn.avg_pool2d`: the mean over 2-D windows of a quantized tensor.

`qnn.avg_pool2d(data, input_scale, input_zero_point, output_scale,
output_zero_point, pool_size, strides=[1, 1], dilation=[1, 1],
padding=[0, 0], layout="NCHW", out_layout="", ceil_mode=False,
count_include_pad=False)` (TVM's AvgPool2DAttrs; its Python wrapper has
other defaults, layout "NHWC" and count_include_pad True, which a program's
text spells out).

int8 or uint8 data of any layout naming H and W (e.g. "NHWC", "NCHW16c");
the four parameters are scalars; the result has the data's dtype and
layout (TVM's relation ignores `out_layout`), with H and W pooled: `(size +
pad - dilation * (pool - 1) - 1) / stride + 1`, rounded up in ceil_mode.

As src/relay/qnn/op/avg_pool2d.cc lowers it, the data is first requantized
to int32 with the output parameters (see `_common`), then pooled as TOPI pools
integers: the padding is 0 (not the zero point), the window sums are int32
and divided, truncating, by the number of elements counted (with
count_include_pad, the window's extent inside the padded input, not the
extra padding of ceil_mode; without it, the elements inside the data, at
least 1), and the means are saturated to the data's dtype.
"""

from __future__ import annotations

import re
from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from .._np import np
from ._common import (
    known_tensor,
    params_default,
    requantize,
    require_dtype,
    saturate,
    scalar_param,
    trunc_div,
)
from ..nn.conv import pads_2d, pair_of, window_taps
from ..nn.nn import padding4, pair, window_out
from ..nn._attrs import AVG_POOL2D_ATTRS
from ..registry import KernelError, register
from ..relations import Relation, relation, shape_text
from ..types import Args, Attrs, Value

_AXIS = re.compile(r"\d*[A-Za-z]")


def layout_axes(layout: str) -> list[str] | None:
    """The axes of a layout string ("NCHW16c" -> N, C, H, W, 16c); None if malformed."""
    axes = _AXIS.findall(layout)
    if "".join(axes) != layout or len({a[-1] for a in axes}) != len(axes):
        return None
    return axes


@relation("QnnAvgPool2D", default=params_default({1: "float32", 2: "int32", 3: "float32", 4: "int32"}))
def qnn_avg_pool2d_rel(r: Relation) -> bool:
    """int8/uint8 data with H and W axes, four scalar parameters; H and W pooled."""
    data = known_tensor(r, 0)
    if data is None:
        return False
    require_dtype(r, 0, data, ("int8", "uint8"), "quantized data")
    done = True
    for i, role in enumerate(("input scale", "input zero point", "output scale", "output zero point"), start=1):
        done = scalar_param(r, i, role) and done
    if not done:
        return False
    layout = r.attrs["layout"]
    axes = layout_axes(layout)
    if axes is None or "H" not in axes or "W" not in axes or "h" in layout or "w" in layout:
        r.fail(
            codes.TYPE_MISMATCH, f'`qnn.avg_pool2d`: layout "{layout}" must name the axes H and W once each, unsplit'
        )
    if len(axes) != len(data.shape):
        r.fail(
            codes.SHAPE_MISMATCH,
            f'`qnn.avg_pool2d`: layout "{layout}" has {len(axes)} axes, the data {shape_text(data.shape)}',
            arg=0,
        )
    kh, kw = pair(r, "pool_size")
    sh, sw = pair(r, "strides")
    dh, dw = pair(r, "dilation")
    pt, pl, pb, pr = padding4(r, r.attrs["padding"])
    ceil = r.attrs["ceil_mode"]
    shape = list(data.shape)
    for name, ax, k, s, d, pad in (
        ("height", axes.index("H"), kh, sh, dh, pt + pb),
        ("width", axes.index("W"), kw, sw, dw, pl + pr),
    ):
        extent = data.shape[ax]
        if isinstance(extent, AnyDim):
            continue
        v = window_out(extent, k, s, d, pad, ceil)
        if type(v) is int and v <= 0:
            r.fail(
                codes.SHAPE_MISMATCH, f"`qnn.avg_pool2d`: the window does not fit: the input {name} is {extent}", arg=0
            )
        shape[ax] = v
    r.set_result(TensorType(tuple(shape), data.dtype))
    return True


def _counts(size: int, out: int, k: int, s: int, d: int, head: int, tail: int, include_pad: bool) -> Any:
    """Per output position along one axis, TOPI's element count of the window."""
    start = np.arange(out, dtype=np.int64) * s - head
    end = start + (k - 1) * d
    if include_pad:
        end = np.minimum(end, size + tail - 1)
        return trunc_div(end - start, d) + 1
    jumps = np.maximum(trunc_div(d - 1 - start, d), 0)
    end = np.minimum(end, size - 1)
    return trunc_div(end - (start + d * jumps), d) + 1


@register(
    "qnn.avg_pool2d",
    inputs=5,
    relation=qnn_avg_pool2d_rel,
    attrs=AVG_POOL2D_ATTRS,
    doc="Mean over 2-D windows of a quantized tensor, in the output's scale and zero point.",
)
def qnn_avg_pool2d(args: Args, attrs: Attrs) -> Value:
    data, s_in, z_in, s_out, z_out = args
    axes = layout_axes(attrs["layout"])
    assert axes is not None, attrs["layout"]  # the type checker rejected a layout it cannot read
    hx, wx = axes.index("H"), axes.index("W")
    q = requantize(data, s_in, z_in, s_out, z_out, "int32")
    moved = np.moveaxis(q, (hx, wx), (-2, -1))
    lead = moved.shape[:-2]
    h, w = moved.shape[-2:]
    x = moved.reshape((1, -1, h, w))
    (kh, kw), (sh, sw), (dh, dw) = pair_of(attrs["pool_size"]), pair_of(attrs["strides"]), pair_of(attrs["dilation"])
    pt, pl, pb, pr = pads_2d(attrs["padding"])
    ceil = attrs["ceil_mode"]
    oh_, ow_ = (sh - 1, sw - 1) if ceil else (0, 0)
    oh = (h - (kh - 1) * dh - 1 + pt + pb + oh_) // sh + 1
    ow = (w - (kw - 1) * dw - 1 + pl + pr + ow_) // sw + 1
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb + oh_), (pl, pr + ow_)))
    taps = window_taps(xp, (kh, kw), (oh, ow), (sh, sw), (dh, dw))
    total = np.array(next(taps), dtype=np.int32)
    for view in taps:
        np.add(total, view, out=total)
    include = attrs["count_include_pad"]
    ch = _counts(h, oh, kh, sh, dh, pt, pb, include)
    cw = _counts(w, ow, kw, sw, dw, pl, pr, include)
    num = (ch[:, None] * cw[None, :]).astype(np.int32)
    if not include:
        num = np.maximum(num, 1)
    elif np.any(num == 0):
        raise KernelError(
            codes.DIVISION_BY_ZERO, "`qnn.avg_pool2d`: a window holds no element (integer division by zero)"
        )
    mean = trunc_div(total, num).astype(np.int32)
    out = saturate(mean, str(data.dtype)).reshape((*lead, oh, ow))
    return np.moveaxis(out, (-2, -1), (hx, wx))
