"""`nn.deformable_conv2d`: convolution whose window taps are moved by
learned offsets (Dai et al., "Deformable Convolutional Networks").

Inputs: data (N, C, H, W), offset (N, 2 * KH * KW * deformable_groups,
OH, OW) and weight (O, C / groups, KH, KW), in `data_layout` (the offset
too) and `kernel_layout`. The output size is the plain convolution's. For
output position (y, x) and tap (i, j), a channel of deformable group g is
sampled at

    row = y * stride_h - pad_top + i * dilation_h + offset[n, g * 2KK + 2 (i KW + j), y, x]
    col = x * stride_w - pad_left + j * dilation_w + offset[n, g * 2KK + 2 (i KW + j) + 1, y, x]

by bilinear interpolation: a point outside [0, H) x [0, W) reads 0, and of
the four pixels around an inside point only those inside the image
contribute (TVM's `bilinear_sample_nchw`). The sampled windows are then
convolved with the weight (one matrix product per group), in `out_dtype`
(default: the data's). Channel c belongs to deformable group
`c // (C / deformable_groups)`.
"""

from __future__ import annotations

from typing import Any

from ... import limits
from ...diagnostics import codes
from ...ir.ty import TensorType
from ._attrs import CONV2D_ATTRS, inserted
from ._conv_nd import (
    channel_checks,
    from_plain,
    groups_attr,
    int_values,
    kernel_pads,
    layout_attr,
    pads,
    to_layout,
    to_plain,
    window_sizes,
)
from .._np import np, wrap
from ..registry import Attr, register
from ..relations import Relation, known_rank, relation, shape_text
from ..types import Args, Attrs, Value


@relation("DeformableConv2D")
def deformable_conv2d_rel(r: Relation) -> bool:
    """data (N, C, H, W), offset (N, 2 KH KW dg, OH, OW), weight (O, C / groups, KH, KW) -> (N, O, OH, OW)."""
    dl = layout_attr(r, "data_layout", "NCHW")
    kl = layout_attr(r, "kernel_layout", "OIHW")
    ol = layout_attr(r, "out_layout", "NCHW", dl)
    strides = int_values(r, "strides", 2)
    dilation = int_values(r, "dilation", 2)
    before, after = pads(r, 2)
    groups = groups_attr(r)
    dg = r.attrs["deformable_groups"]
    if dg < 1:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` deformable_groups must be positive, found {dg}")
    channels, ks = r.attrs["channels"], r.attrs["kernel_size"]
    if ks is not None:
        ks = int_values(r, "kernel_size", 2)
    data = r.tensor(0)
    if not known_rank(data.shape):
        return False
    if type(data.dtype) is str and not data.dtype.startswith(("float", "bfloat")):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` samples between pixels and takes floating-point data, found `{data.dtype}`",
            arg=0,
        )
    n, c, h, w = to_plain(r, data.shape, dl, "NCHW", 0, "data")
    if type(c) is int and c % dg:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}`: {c} channels cannot be divided into deformable_groups={dg}", arg=0)
    weight = r.tensor(2)
    if not known_rank(weight.shape) and channels is not None and ks is not None and type(c) is int:
        if c % groups:
            r.fail(codes.SHAPE_MISMATCH, f"`{r.op}`: {c} input channels cannot be divided into groups={groups}", arg=0)
        r.refine(2, TensorType(from_plain(r, (channels, c // groups, *ks), "OIHW", kl, 2, "weight"), data.dtype))
        weight = r.tensor(2)
    if not known_rank(weight.shape):
        return False
    o, i, kh, kw = to_plain(r, weight.shape, kl, "OIHW", 2, "weight")
    if type(c) is int and type(i) is int and c != i * groups:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}`: the data has {c} channels, but the weight expects {i * groups} (groups={groups})",
            arg=2,
            notes=[f"weight {shape_text(weight.shape)} ({kl})"],
        )
    channel_checks(r, None, None, o, groups, weight.shape, kl)
    if channels is not None and type(o) is int and o != channels:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` has channels={channels}, but the weight has {o} output channels", arg=2)
    if ks is not None and type(kh) is int and type(kw) is int and (kh, kw) != ks:
        r.fail(
            codes.SHAPE_MISMATCH, f"`{r.op}` has kernel_size={list(ks)}, but the weight's window is ({kh}, {kw})", arg=2
        )
    r.unify_dtypes(0, 2)
    oh, ow = window_sizes(r, (h, w), (kh, kw), strides, dilation, before, after)
    taps = 2 * kh * kw * dg if type(kh) is int and type(kw) is int else r.fresh_dim()
    r.refine(1, TensorType(from_plain(r, (n, taps, oh, ow), "NCHW", dl, 1, "offset"), data.dtype))
    oshape = from_plain(r, (n, o, oh, ow), "NCHW", ol, None, "result")
    r.set_result(TensorType(oshape, r.attrs["out_dtype"] or data.dtype))
    return True


def bilinear_taps(x: Any, rows: Any, cols: Any) -> Any:
    """x (N, G, Cg, H, W) sampled at rows/cols (N, G, P): (N, G, Cg, P), zero outside."""
    n, g, cg, h, w = x.shape
    flat = x.reshape(n, g, cg, h * w)
    y0 = np.floor(rows)
    x0 = np.floor(cols)
    inside = (rows >= 0) & (cols >= 0) & (rows < h) & (cols < w)
    out = np.zeros((n, g, cg, rows.shape[-1]), dtype=x.dtype)
    for dy in (0, 1):
        for dx in (0, 1):
            yy, xx = y0 + dy, x0 + dx
            weight = (1 - np.abs(rows - yy)) * (1 - np.abs(cols - xx))
            ok = inside & (yy >= 0) & (yy <= h - 1) & (xx >= 0) & (xx <= w - 1)
            idx = (np.clip(yy, 0, h - 1) * w + np.clip(xx, 0, w - 1)).astype(np.intp)
            vals = np.take_along_axis(flat, idx[:, :, None, :], axis=3)
            out += vals * np.where(ok, weight, 0).astype(x.dtype)[:, :, None, :]
    return out


@register(
    "nn.deformable_conv2d",
    inputs=3,
    relation=deformable_conv2d_rel,
    attrs=inserted(CONV2D_ATTRS, "dilation", Attr("deformable_groups", "int", 1)),
    doc="Deformable 2-D convolution: window taps moved by per-position offsets, sampled bilinearly.",
)
def deformable_conv2d(args: Args, attrs: Attrs) -> Value:
    dl, kl = attrs["data_layout"], attrs["kernel_layout"]
    ol = attrs["out_layout"] or dl
    dtype = np.dtype(attrs["out_dtype"] or args[0].dtype)
    x = to_layout(args[0], dl, "NCHW")
    off = to_layout(args[1], dl, "NCHW")
    w = to_layout(args[2], kl, "OIHW")
    n, c, h, wd = x.shape
    o, ipg, kh, kw = w.shape
    oh, ow = off.shape[2:]
    dg, groups = attrs["deformable_groups"], attrs["groups"]
    sh, sw = (attrs["strides"] * 2)[:2] if len(attrs["strides"]) == 1 else attrs["strides"]
    dh, dw = (attrs["dilation"] * 2)[:2] if len(attrs["dilation"]) == 1 else attrs["dilation"]
    (pt, pl), _ = kernel_pads(attrs["padding"], 2)
    off = off.reshape(n, dg, kh, kw, 2, oh * ow)
    base_r = (np.arange(oh) * sh - pt).repeat(ow).astype(off.dtype)
    base_c = np.tile(np.arange(ow) * sw - pl, oh).astype(off.dtype)
    xg = x.reshape(n, dg, c // dg, h, wd)
    wm = w.astype(dtype).reshape(groups, o // groups, ipg * kh * kw)
    out = np.empty((n, o, oh, ow), dtype=dtype)
    # The sampled windows of a block of output rows at a time: per output
    # row, C * KH * KW values (and their copy in out_dtype), the sampling's
    # three (N, C, OW) arrays of one tap and its index arithmetic (a dozen
    # (N, deformable_groups, OW) arrays of at most 8 bytes), all counted
    # against the memory limit.
    widen = dtype.itemsize if dtype != x.dtype else 0
    row_bytes = n * ow * (c * kh * kw * (x.dtype.itemsize + widen) + 3 * c * x.dtype.itemsize + 12 * dg * 8)
    block = limits.scratch_rows(oh, row_bytes, "the temporaries of a deformable convolution")
    for top in range(0, oh, block):
        rows = min(block, oh - top)
        lo, hi = top * ow, (top + rows) * ow
        cols = np.empty((n, c, kh, kw, hi - lo), dtype=x.dtype)
        for i in range(kh):
            for j in range(kw):
                rs = base_r[lo:hi] + i * dh + off[:, :, i, j, 0, lo:hi]
                cs = base_c[lo:hi] + j * dw + off[:, :, i, j, 1, lo:hi]
                cols[:, :, i, j] = bilinear_taps(xg, rs, cs).reshape(n, c, hi - lo)
        mats = cols.astype(dtype, copy=False).reshape(n, groups, ipg * kh * kw, hi - lo)
        out[:, :, top : top + rows] = np.matmul(wm, mats).reshape(n, o, rows, ow)
        del cols, mats
    return wrap(to_layout(out, "NCHW", ol), dtype)
