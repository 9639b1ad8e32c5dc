"""Convolution and dense layers on pre-packed weights:
`nn.contrib_conv2d_gemm_weight_transform`,
`nn.contrib_conv2d_gemm_without_weight_transform` and
`nn.contrib_dense_pack`.

GEMM packing (TVM's Arm CPU convolution): an HWIO weight (KH, KW, I, O) is
read as a (K, N) matrix, K = KH * KW * I rows in row-major order and N = O
columns, padded with zeros so that N is a multiple of `tile_N` and K a
multiple of `4 * tile_K`, and cut into tiles: the result is
(N' / tile_N, K' / tile_K, tile_K, tile_N), holding
`B[k_tile * tile_K + a, n_tile * tile_N + b]` at `[n_tile, k_tile, a, b]`;
for 8-bit integer weights the two inner axes are swapped,
(N' / tile_N, K' / tile_K, tile_N, tile_K).

`nn.contrib_conv2d_gemm_without_weight_transform` takes NHWC data (any
order of those letters) and such a packed weight; like TVM it needs
`channels` and `kernel_size`, which give the output shape
(N, OH, OW, channels). The kernel unpacks the weight (the tile sizes are
the weight's inner axes) and convolves as `nn.conv2d` does.

`nn.contrib_dense_pack` is `nn.dense` with a weight packed along its rows:
a 3-D weight (N / t, K, t) holds row `j * t + b` of the (N, K) weight at
`[j, :, b]`; a 4-D weight (N / t, K / u, t, u) also blocks the columns. The
result is (batch, N) in `out_dtype` (default: the data's dtype).
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from ._attrs import CONV2D_ATTRS
from ._conv_nd import (
    from_plain,
    groups_attr,
    int_values,
    layout_attr,
    pads,
    to_layout,
    to_plain,
    window_sizes,
)
from .._np import np, wrap
from .conv import conv2d_nchw, pads_2d, pair_of
from ..registry import Attr, register
from ..relations import Relation, known_rank, relation, shape_text
from ..types import Args, Attrs, Dims, Value


def _int8(dtype: Any) -> bool:
    return dtype in ("int8", "uint8")


def gemm_packed_shape(k: Any, n: Any, tile_n: int, tile_k: int, int8: bool) -> Dims:
    """The shape TVM's GEMM packing gives a (K, N) matrix."""
    if type(k) is not int or type(n) is not int:
        return (AnyDim(), AnyDim(), tile_n, tile_k) if int8 else (AnyDim(), AnyDim(), tile_k, tile_n)
    kp = -(-k // (4 * tile_k)) * 4 * tile_k
    np_ = -(-n // tile_n) * tile_n
    inner = (tile_n, tile_k) if int8 else (tile_k, tile_n)
    return (np_ // tile_n, kp // tile_k, *inner)


@relation("Conv2DGemmWeightTransform")
def gemm_weight_transform_rel(r: Relation) -> bool:
    """(KH, KW, I, O) -> (N' / tile_N, K' / tile_K, tile_K, tile_N) (inner axes swapped for 8-bit ints)."""
    tn, tk = r.attrs["tile_N"], r.attrs["tile_K"]
    if tn <= 0 or tk <= 0:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` tile_N and tile_K must be positive, found {tn} and {tk}")
    w = r.tensor(0)
    if not known_rank(w.shape):
        return False
    if len(w.shape) != 4:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs a 4-D weight (HWIO), found {shape_text(w.shape)}", arg=0)
    kh, kw, i, o = w.shape
    k = kh * kw * i if all(type(d) is int for d in (kh, kw, i)) else AnyDim()
    r.set_result(TensorType(gemm_packed_shape(k, o, tn, tk, _int8(w.dtype)), w.dtype))
    return True


@register(
    "nn.contrib_conv2d_gemm_weight_transform",
    inputs=1,
    relation=gemm_weight_transform_rel,
    attrs=(Attr("tile_N", "int"), Attr("tile_K", "int")),
    doc="Pack an HWIO convolution weight into GEMM tiles (tile_N output channels by tile_K reduction rows).",
)
def gemm_weight_transform(args: Args, attrs: Attrs) -> Value:
    w = args[0]
    tn, tk = attrs["tile_N"], attrs["tile_K"]
    kh, kw, i, o = w.shape
    k = kh * kw * i
    nb, kb, *_ = gemm_packed_shape(k, o, tn, tk, False)
    flat = np.zeros((kb * tk, nb * tn), dtype=w.dtype)
    flat[:k, :o] = w.reshape(k, o)
    tiles = flat.reshape(kb, tk, nb, tn)
    order = (2, 0, 3, 1) if _int8(str(w.dtype)) else (2, 0, 1, 3)
    return np.ascontiguousarray(tiles.transpose(order))


def gemm_unpack(u: Any, k: int, n: int) -> Any:
    """The (K, N) matrix a GEMM-packed weight holds."""
    nb, kb, a, b = u.shape
    tiles = u.transpose(1, 3, 0, 2) if _int8(str(u.dtype)) else u.transpose(1, 2, 0, 3)
    return tiles.reshape(kb * (b if _int8(str(u.dtype)) else a), nb * (a if _int8(str(u.dtype)) else b))[:k, :n]


@relation("Conv2DGemm")
def gemm_conv2d_rel(r: Relation) -> bool:
    """data (N, H, W, C), a GEMM-packed weight -> (N, OH, OW, channels)."""
    dl = layout_attr(r, "data_layout", "NHWC")
    layout_attr(r, "kernel_layout", "HWIO")
    ol = layout_attr(r, "out_layout", "NHWC", dl)
    strides = int_values(r, "strides", 2)
    dilation = int_values(r, "dilation", 2)
    before, after = pads(r, 2)
    groups = groups_attr(r)
    channels, ks = r.attrs["channels"], r.attrs["kernel_size"]
    if channels is None or ks is None:
        r.fail(
            codes.TYPE_MISMATCH, f"`{r.op}` needs the attributes channels and kernel_size (its weight is pre-packed)"
        )
    ks = int_values(r, "kernel_size", 2)
    if channels <= 0:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` channels must be positive, found {channels}")
    data = r.tensor(0)
    if not known_rank(data.shape):
        return False
    n, h, w, c = to_plain(r, data.shape, dl, "NHWC", 0, "data")
    if type(c) is int and c % groups:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}`: {c} input channels cannot be divided into groups={groups}", arg=0)
    if channels % groups:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}`: channels={channels} cannot be divided into groups={groups}")
    weight = r.tensor(1)
    if known_rank(weight.shape):
        if len(weight.shape) != 4:
            r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs a 4-D packed weight, found {shape_text(weight.shape)}", arg=1)
        if type(c) is int and all(type(d) is int for d in weight.shape):
            nb, kb, a, b = weight.shape
            tn, tk = (a, b) if _int8(weight.dtype) else (b, a)
            k = ks[0] * ks[1] * (c // groups)
            if nb * tn < channels or kb * tk < k:
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`{r.op}`: the packed weight {shape_text(weight.shape)} holds a {kb * tk} x {nb * tn} matrix, "
                    f"but the convolution needs {k} x {channels}",
                    arg=1,
                    notes=["pack the HWIO weight with nn.contrib_conv2d_gemm_weight_transform"],
                )
    oh, ow = window_sizes(r, (h, w), ks, strides, dilation, before, after)
    shape = from_plain(r, (n, oh, ow, channels), "NHWC", ol, None, "result")
    r.set_result(TensorType(shape, r.attrs["out_dtype"] or data.dtype))
    return True


@register(
    "nn.contrib_conv2d_gemm_without_weight_transform",
    inputs=2,
    relation=gemm_conv2d_rel,
    attrs=CONV2D_ATTRS,
    doc="2-D convolution of NHWC data with a weight packed by nn.contrib_conv2d_gemm_weight_transform.",
)
def gemm_conv2d(args: Args, attrs: Attrs) -> Value:
    x, u = args
    dl = attrs["data_layout"]
    ol = attrs["out_layout"] or dl
    dtype = np.dtype(attrs["out_dtype"] or x.dtype)
    kh, kw = pair_of(attrs["kernel_size"])
    xn = to_layout(x, dl, "NCHW")
    ipg = xn.shape[1] // attrs["groups"]
    channels = attrs["channels"]
    w = gemm_unpack(u, kh * kw * ipg, channels).reshape(kh, kw, ipg, channels).transpose(3, 2, 0, 1)
    out = conv2d_nchw(
        xn, w, pair_of(attrs["strides"]), pads_2d(attrs["padding"]), pair_of(attrs["dilation"]), attrs["groups"], dtype
    )
    plain = to_layout(out, "NCHW", "NHWC")
    return wrap(to_layout(plain, "NHWC", ol), dtype)


@relation("DensePack")
def dense_pack_rel(r: Relation) -> bool:
    """data (B, K), weight (N / t, K, t) or (N / t, K / u, t, u) -> (B, N)."""
    data, weight = r.tensor(0), r.tensor(1)
    if not known_rank(data.shape) or not known_rank(weight.shape):
        return False
    if len(data.shape) != 2:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` takes 2-D data, found {shape_text(data.shape)}", arg=0)
    if len(weight.shape) not in (3, 4):
        r.fail(
            codes.SHAPE_MISMATCH, f"`{r.op}` takes a 3-D or 4-D packed weight, found {shape_text(weight.shape)}", arg=1
        )
    ws = weight.shape
    k = ws[1] if len(ws) == 3 else (ws[1] * ws[3] if type(ws[1]) is int and type(ws[3]) is int else AnyDim())
    if type(k) is int and type(data.shape[1]) is int and k != data.shape[1]:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}`: the data has {data.shape[1]} features, but the packed weight {shape_text(ws)} has {k}",
            arg=1,
        )
    units: Any = ws[0] * ws[2] if type(ws[0]) is int and type(ws[2]) is int else AnyDim()
    r.set_result(TensorType((data.shape[0], units), r.attrs["out_dtype"] or data.dtype))
    return True


@register(
    "nn.contrib_dense_pack",
    inputs=2,
    relation=dense_pack_rel,
    attrs=(Attr("units", "opt_int", None), Attr("out_dtype", "opt_dtype", ""), Attr("weight_layout", "str", "NC")),
    doc="Dense layer x W^T with W packed in row blocks: (N / t, K, t), or (N / t, K / u, t, u).",
)
def dense_pack(args: Args, attrs: Attrs) -> Value:
    x, w = args
    dtype = np.dtype(attrs["out_dtype"] or x.dtype)
    if w.ndim == 3:
        plain = w.transpose(0, 2, 1).reshape(-1, w.shape[1])
    else:
        plain = w.transpose(0, 2, 1, 3).reshape(w.shape[0] * w.shape[2], w.shape[1] * w.shape[3])
    out = np.matmul(x.astype(dtype), plain.astype(dtype).T)
    return wrap(out, dtype)
