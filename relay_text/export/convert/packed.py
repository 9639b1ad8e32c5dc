"""TVM's schedule layouts: blocked layouts (`layout_transform` to and from
NCHW8c and the like), the tuners' layout transforms, convolutions and dense
layers on blocked, GEMM-packed or Winograd-transformed weights. The
weights are unpacked in the graph as the numpy kernels unpack them (the
same reshapes and transposes, the same matrices), then convolved or
multiplied by ONNX's `Conv` and `MatMul`."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from . import OpContext, Unsupported, converter, float_like, matrix_product, np, np_dtype, select
from .nn import convolve, spatial


def relayout(cx: OpContext, x: str, shape: tuple[int, ...], src: str, dst: str) -> tuple[str, tuple[int, ...]]:
    """`x` (of `shape`, in layout `src`) in layout `dst`, blocked or not, by
    the numpy kernel's steps; and its new shape."""
    from ...ops.tensor.layout import _blocks, parse_layout

    if src == dst:
        return x, shape
    sa, da = parse_layout(src), parse_layout(dst)
    names = [a for a, _ in sa]
    order = [a for a in names if a.isupper()]
    perm = []
    for a in order:
        perm.append(names.index(a))
        if a.lower() in names:
            perm.append(names.index(a.lower()))
    sizes = {a: shape[names.index(a)] * (shape[names.index(a.lower())] if a.lower() in names else 1) for a in order}
    t = cx.reshape(cx.node("Transpose", [x], perm=perm), [sizes[a] for a in order])
    db = _blocks(da)
    split_names: list[str] = []
    split_shape: list[int] = []
    for a in order:
        if a in db:
            split_names += [a, a.lower()]
            split_shape += [sizes[a] // db[a], db[a]]
        else:
            split_names.append(a)
            split_shape.append(sizes[a])
    final = [split_names.index(a) for a, _ in da]
    t = cx.node("Transpose", [cx.reshape(t, split_shape)], perm=final)
    return t, tuple(split_shape[i] for i in final)


def element_map(cx: OpContext, x: str, shape: tuple[int, ...], move: Callable[[Any], Any], dtype: str) -> str:
    """The tensor a kernel that only moves elements (`move`, on numpy
    arrays) makes of `x`: the kernel run on element numbers (1, 2, ...;
    0 where it fills) gives each output element's source, read by one
    `Gather`; filled places hold 0."""
    ids = np.arange(1, math.prod(shape) + 1, dtype=np.int64).reshape(shape)
    out = np.asarray(move(ids))
    picked = cx.node("Gather", [cx.reshape(x, [-1]), cx.const(np.maximum(out - 1, 0), "int64")], axis=0)
    if (out == 0).any():
        picked = select(cx, cx.const(out == 0), cx.scalar(0, np_dtype(dtype)), picked, dtype)
    return picked


@converter("layout_transform")
def layout_transform(cx: OpContext, x: str) -> str:
    y, _ = relayout(cx, x, cx.shape(0), cx.attrs["src_layout"], cx.attrs["dst_layout"])
    return cx.node("Identity", [y])


@converter("auto_scheduler_layout_transform", "meta_schedule_layout_transform")
def tuner_layout_transform(cx: OpContext, x: str) -> str:
    from ...ops import registry

    definition = registry.get(cx.name)
    assert definition is not None  # (a registered operator)
    kernel = definition.kernel
    return element_map(cx, x, cx.shape(0), lambda ids: kernel((ids,), cx.attrs), cx.dtype(0))


@converter("vm.reshape_tensor")
def reshape_tensor(cx: OpContext, x: str, shape: str) -> str:
    return cx.node("Reshape", [x, cx.reshape(cx.cast(shape, "int64"), [-1])])


# ---- convolutions on blocked, packed and transformed weights -------------------


def _conv(
    cx: OpContext, x: str, w: str, xshape: tuple[int, ...], wshape: tuple[int, ...], n: int, out_dtype: str
) -> str:
    """The call's convolution of NC... data and an OI... weight (see `nn.convolve`)."""
    return convolve(cx, x, w, n, out_dtype, xshape, wshape)


def _out_shape(cx: OpContext, plain: str) -> tuple[int, ...]:
    """The result's shape in the plain layout `plain` (NCHW, NHWC, NCDHW)."""
    from ...ops.tensor.layout import layout_shapes

    out_layout = cx.attrs["out_layout"] or cx.attrs["data_layout"]
    return tuple(layout_shapes(out_layout, plain, cx.out_shape))


@converter("nn.contrib_conv2d_NCHWc", "nn.contrib_depthwise_conv2d_NCHWc")
def conv2d_nchwc(cx: OpContext, x: str, w: str) -> str:
    a = cx.attrs
    out_dtype = a["out_dtype"] or cx.dtype(0)
    data, xshape = relayout(cx, x, cx.shape(0), a["data_layout"], "NCHW")
    weight, wshape = relayout(cx, w, cx.shape(1), a["kernel_layout"], "OIHW")
    y = _conv(cx, data, weight, xshape, wshape, 2, out_dtype)
    out, _ = relayout(cx, y, _out_shape(cx, "NCHW"), "NCHW", a["out_layout"] or a["data_layout"])
    return cx.node("Identity", [out])


def _int8(dtype: str) -> bool:
    from ...ops.nn.conv_gemm import _int8 as int8

    return bool(int8(dtype))


@converter("nn.contrib_conv2d_gemm_weight_transform")
def gemm_weight_transform(cx: OpContext, w: str) -> str:
    kh, kw, i, o = cx.shape(0)
    tn, tk = int(cx.attrs["tile_N"]), int(cx.attrs["tile_K"])
    nb, kb = cx.out_shape[0], cx.out_shape[1]
    k = kh * kw * i
    flat = cx.reshape(w, [k, o])
    flat = cx.node(
        "Pad", [flat, cx.ints([0, 0, kb * tk - k, nb * tn - o]), cx.scalar(0, np_dtype(cx.dtype(0)))], mode="constant"
    )
    tiles = cx.reshape(flat, [kb, tk, nb, tn])
    return cx.node("Transpose", [tiles], perm=[2, 0, 3, 1] if _int8(cx.dtype(0)) else [2, 0, 1, 3])


@converter("nn.contrib_conv2d_gemm_without_weight_transform")
def gemm_conv2d(cx: OpContext, x: str, u: str) -> str:
    a = cx.attrs
    out_dtype = a["out_dtype"] or cx.dtype(0)
    kh, kw = spatial(a["kernel_size"], 2)
    data, data_shape = relayout(cx, x, cx.shape(0), a["data_layout"], "NCHW")
    ipg = data_shape[1] // int(a["groups"])
    channels = int(a["channels"])
    nb, kb, p, q = cx.shape(1)
    int8 = _int8(cx.dtype(1))
    tiles = cx.node("Transpose", [u], perm=[1, 3, 0, 2] if int8 else [1, 2, 0, 3])
    rows, cols = (kb * q, nb * p) if int8 else (kb * p, nb * q)
    k = kh * kw * ipg
    plain = cx.node("Slice", [cx.reshape(tiles, [rows, cols]), cx.ints([0, 0]), cx.ints([k, channels])])
    weight = cx.node("Transpose", [cx.reshape(plain, [kh, kw, ipg, channels])], perm=[3, 2, 0, 1])
    y = _conv(cx, data, weight, data_shape, (channels, ipg, kh, kw), 2, out_dtype)
    out, _ = relayout(cx, y, _out_shape(cx, "NCHW"), "NCHW", a["out_layout"] or a["data_layout"])
    return cx.node("Identity", [out])


@converter("nn.contrib_dense_pack")
def dense_pack(cx: OpContext, x: str, w: str) -> str:
    out_dtype = cx.attrs["out_dtype"] or cx.dtype(0)
    ws = cx.shape(1)
    if len(ws) == 3:
        plain = cx.reshape(cx.node("Transpose", [w], perm=[0, 2, 1]), [-1, ws[1]])
    else:
        plain = cx.reshape(cx.node("Transpose", [w], perm=[0, 2, 1, 3]), [ws[0] * ws[2], ws[1] * ws[3]])
    return matrix_product(cx, x, cx.node("Transpose", [plain], perm=[1, 0]), out_dtype)


# ---- Winograd --------------------------------------------------------------------


def _g(tile: int, k: int) -> Any:
    from ...ops.nn.winograd import winograd_g

    return winograd_g(tile, k)


def _einsum_transform(cx: OpContext, w: str, g: Any, equation: str, count: int) -> str:
    dtype = cx.dtype(0)
    if not float_like(dtype):
        raise Unsupported(
            f"the transform of a {dtype} weight truncates TVM's fractions in ways ONNX's Einsum does not reproduce"
        )
    gg = cx.const(g.astype(np_dtype(dtype)))
    return cx.node("Einsum", [gg, w] + [gg] * (count - 1), equation=equation)


@converter("nn.contrib_conv2d_winograd_weight_transform")
def winograd_weight_transform(cx: OpContext, w: str) -> str:
    return _einsum_transform(cx, w, _g(int(cx.attrs["tile_size"]), cx.shape(0)[3]), "ak,oikl,bl->aboi", 2)


@converter("nn.contrib_conv3d_winograd_weight_transform")
def winograd3d_weight_transform(cx: OpContext, w: str) -> str:
    shape = cx.shape(0)
    g = _g(int(cx.attrs["tile_size"]), shape[3])
    if 2 < shape[2] < 8:
        return _einsum_transform(cx, w, g, "ck,oikmn,am,bn->caboi", 3)
    return _einsum_transform(cx, w, g, "am,oidmn,bn->abdoi", 2)


@converter("nn.contrib_conv2d_winograd_nnpack_weight_transform")
def nnpack_weight_transform(cx: OpContext, w: str) -> str:
    dtype = cx.attrs["out_dtype"] or cx.dtype(0)
    if not float_like(dtype):
        raise Unsupported(f"a {dtype} transform")
    gg = cx.const(_g(6, 3).astype(np_dtype(dtype)))
    u = cx.node("Einsum", [gg, cx.cast(w, dtype), gg], equation="ak,oikl,bl->aboi")
    return cx.node("Transpose", [u], perm=[2, 3, 0, 1])


@converter("nn.contrib_conv2d_winograd_without_weight_transform", "nn.contrib_conv3d_winograd_without_weight_transform")
def winograd_conv(cx: OpContext, x: str, u: str) -> str:
    """The plain weight recovered with G's pseudo-inverse (in float64, as
    the kernel does), then a plain convolution."""
    a = cx.attrs
    n = 2 if "conv2d" in cx.name else 3
    ks = tuple(a["kernel_size"]) * n if len(a["kernel_size"]) == 1 else tuple(a["kernel_size"])
    p = cx.const(np.linalg.pinv(_g(int(a["tile_size"]), ks[-1])))
    u64 = cx.cast(u, "float64")
    if n == 2:
        w = cx.node("Einsum", [p, u64, p], equation="ka,aboi,lb->oikl")
    elif 2 < ks[0] < 8:
        w = cx.node("Einsum", [p, u64, p, p], equation="kc,caboi,ma,nb->oikmn")
    else:
        w = cx.node("Einsum", [p, u64, p], equation="ma,abdoi,nb->oidmn")
    w = cx.cast(w, cx.dtype(1))
    plain = "NCHW" if n == 2 else "NCDHW"
    out_dtype = a["out_dtype"] or cx.dtype(0)
    data, xshape = relayout(cx, x, cx.shape(0), a["data_layout"], plain)
    wshape = (int(a["channels"]), xshape[1] // int(a["groups"]), *ks)
    y = _conv(cx, data, w, xshape, wshape, n, out_dtype)
    out, _ = relayout(cx, y, _out_shape(cx, plain), plain, a["out_layout"] or a["data_layout"])
    return cx.node("Identity", [out])
