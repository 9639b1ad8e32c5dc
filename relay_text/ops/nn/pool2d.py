"""2-D pooling: `nn.max_pool2d`, `nn.avg_pool2d` over sliding windows, and
`nn.global_max_pool2d`, `nn.global_avg_pool2d` over the whole of H and W.

The data's layout is any order of N, C, H and W (`NCHW` by default);
`out_layout` may give the output another order. Windows follow TVM's
attributes: `pool_size`, `strides`, `dilation` and `padding` (one value for
all sides, two for top/bottom and left/right, or four for top, left,
bottom, right), `ceil_mode` for the output size, and for the average
`count_include_pad` (whether padded cells count in the divisor).
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType
from .._np import np, wrap
from ._attrs import AVG_POOL2D_ATTRS, MAX_POOL2D_ATTRS
from .nn import _from_nchw, _layout, _to_nchw, padding4, pair, window_out
from .conv import (
    pads_2d,
    pair_of,
    window_taps,
)
from ..registry import Attr, register
from ..relations import (
    OUT,
    Relation,
    known_rank,
    relation,
    shape_text,
)
from ..types import Args, Attrs, Value


def _pool_data(r: Relation) -> tuple[Any, str, str] | None:
    """A 2-D pool's data with its layout and output layout; None while the
    data's rank is not known (a rank other than 4 is reported)."""
    data = r.tensor(0)
    layout = _layout(r, "layout", "NCHW")
    out_layout = _layout(r, "out_layout", "NCHW") if r.attrs["out_layout"] else layout
    if not known_rank(data.shape):
        return None
    if len(data.shape) != 4:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs 4-D data ({layout}), found {shape_text(data.shape)}", arg=0)
    return data, layout, out_layout


@relation("Pool2D")
def pool2d_rel(r: Relation) -> bool:
    found = _pool_data(r)
    if found is None:
        return False
    data, layout, out_layout = found
    n, c, h, w = (data.shape[layout.index(x)] for x in "NCHW")
    kh, kw = pair(r, "pool_size")
    sh, sw = pair(r, "strides")
    dh, dw = pair(r, "dilation")
    pt, pl, pb, pr = padding4(r, r.attrs["padding"])
    ceil = r.attrs["ceil_mode"]
    oh = window_out(h, kh, sh, dh, pt + pb, ceil)
    ow = window_out(w, kw, sw, dw, pl + pr, ceil)
    for name, v, size in (("height", oh, h), ("width", ow, w)):
        if type(v) is int and v <= 0:
            r.fail(codes.SHAPE_MISMATCH, f"`{r.op}`: the window does not fit: the input {name} is {size}", arg=0)
    dims = {"N": n, "C": c, "H": oh, "W": ow}
    r.set_result(TensorType(tuple(dims[x] for x in out_layout), data.dtype))
    return True


def _pool(x: Any, attrs: Attrs, kind: str) -> Any:
    layout = attrs["layout"]
    ol = attrs["out_layout"] or layout
    x = _to_nchw(x, layout)
    _n, _c, h, w = x.shape
    kh, kw = pair_of(attrs["pool_size"])
    sh, sw = pair_of(attrs["strides"])
    dh, dw = pair_of(attrs["dilation"])
    pt, pl, pb, pr = pads_2d(attrs["padding"])
    ceil = attrs["ceil_mode"]
    oh = window_out(h, kh, sh, dh, pt + pb, ceil)
    ow = window_out(w, kw, sw, dw, pl + pr, ceil)
    # pad enough on the bottom/right for ceil mode windows
    extra_b = max(0, (oh - 1) * sh + dh * (kh - 1) + 1 - (h + pt + pb))
    extra_r = max(0, (ow - 1) * sw + dw * (kw - 1) + 1 - (w + pl + pr))
    if kind == "max":
        fill = np.finfo(x.dtype).min if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        xp = np.pad(x, ((0, 0), (0, 0), (pt, pb + extra_b), (pl, pr + extra_r)), constant_values=fill)
    else:
        xp = np.pad(x, ((0, 0), (0, 0), (pt, pb + extra_b), (pl, pr + extra_r)))
    taps = window_taps(xp, (kh, kw), (oh, ow), (sh, sw), (dh, dw))
    out = np.array(next(taps), dtype=x.dtype)
    combine = np.maximum if kind == "max" else np.add
    for view in taps:
        combine(out, view, out=out)
    if kind != "max":
        total = out
        if attrs["count_include_pad"]:
            ones = np.pad(np.ones((h, w), dtype=x.dtype), ((pt, pb + extra_b), (pl, pr + extra_r)), constant_values=1)
            ones[h + pt + pb :, :] = 0
            ones[:, w + pl + pr :] = 0
        else:
            ones = np.pad(np.ones((h, w), dtype=x.dtype), ((pt, pb + extra_b), (pl, pr + extra_r)))
        s0, s1 = ones.strides
        counts = np.lib.stride_tricks.as_strided(
            ones, shape=(oh, ow, kh, kw), strides=(s0 * sh, s1 * sw, s0 * dh, s1 * dw)
        ).sum(axis=(2, 3))
        out = total / np.maximum(counts, 1)
    return wrap(_from_nchw(out, ol), x.dtype)


@register("nn.max_pool2d", inputs=1, relation=pool2d_rel, attrs=MAX_POOL2D_ATTRS, doc="Maximum over 2-D windows.")
def max_pool2d(args: Args, attrs: Attrs) -> Value:
    return _pool(args[0], attrs, "max")


@register(
    "nn.avg_pool2d",
    inputs=1,
    relation=pool2d_rel,
    attrs=AVG_POOL2D_ATTRS,
    doc="Mean over 2-D windows (padding counted only with count_include_pad).",
)
def avg_pool2d(args: Args, attrs: Attrs) -> Value:
    return _pool(args[0], attrs, "avg")


def global_pool_rel(r: Relation) -> bool:
    found = _pool_data(r)
    if found is None:
        return False
    data, layout, out_layout = found
    dims = {x: data.shape[layout.index(x)] for x in "NC"}
    dims.update(H=1, W=1)
    r.set_result(TensorType(tuple(dims[x] for x in out_layout), data.dtype))
    return True


@register(
    "nn.global_avg_pool2d",
    inputs=1,
    relation=global_pool_rel,
    attrs=(Attr("layout", "str", "NCHW"), Attr("out_layout", "str", "")),
    doc="Mean over the whole height and width: (N, C, 1, 1).",
)
def global_avg_pool2d(args: Args, attrs: Attrs) -> Value:
    return _global_pool(args[0], attrs, lambda x, axes: np.mean(x, axis=axes, keepdims=True, dtype=x.dtype))


def _global_pool(x: Any, attrs: Attrs, reduce: Any) -> Any:
    """`reduce(x, (h axis, w axis))` with kept dimensions, in the output layout."""
    layout = attrs["layout"]
    out = reduce(x, (layout.index("H"), layout.index("W")))
    return wrap(_from_nchw(_to_nchw(out, layout), attrs["out_layout"] or layout), x.dtype)


@register(
    "nn.global_max_pool2d",
    inputs=1,
    relation=global_pool_rel,
    attrs=(Attr("layout", "str", "NCHW"), Attr("out_layout", "str", "")),
    doc="Maximum over the whole height and width: (N, C, 1, 1).",
)
def global_max_pool2d(args: Args, attrs: Attrs) -> Value:
    return _global_pool(args[0], attrs, lambda x, axes: np.max(x, axis=axes, keepdims=True))


__all__ = ["OUT"]
