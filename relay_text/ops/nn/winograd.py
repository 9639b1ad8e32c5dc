"""Winograd convolutions: the weight transforms
`nn.contrib_conv2d_winograd_weight_transform`,
`nn.contrib_conv3d_winograd_weight_transform`,
`nn.contrib_conv2d_winograd_nnpack_weight_transform`, and the convolutions
that take a transformed weight,
`nn.contrib_conv2d_winograd_without_weight_transform` and
`nn.contrib_conv3d_winograd_without_weight_transform`.

Winograd's F(m, r) computes m outputs of an r-tap filter from
`alpha = m + r - 1` inputs with alpha multiplications, after the filter is
mapped to `G g G^T`, where G is an (alpha, r) matrix. TVM builds G by
Cook-Toom interpolation: for the alpha - 1 interpolation points a_0, ...
(a table indexed by m + r - 2, from Barabasz et al., "Error analysis and
improving the accuracy of Winograd convolution"), row i is
`(a_i^0, ..., a_i^(r-1)) / f_i` with `f_i` the product of `a_i - a_j` over
the other points (its sign flipped for the first row when negative), and a
last row `(0, ..., 0, 1)` for the point at infinity. m (`tile_size`) is 2
to 8 and r 3 to 7.

* 2-D transform: an (O, I, K, K) weight becomes (alpha, alpha, O, I) with
  `U[a, b, o, i] = sum G[a, k] g[o, i, k, l] G[b, l]`; G is first converted
  to the weight's dtype (its fractions truncate for integer weights).
* 3-D transform: an (O, I, KD, K, K) weight; the depth axis is transformed
  too when 2 < KD < 8 (then the window must be a cube), giving
  (alpha, alpha, alpha, O, I), else (alpha, alpha, KD, O, I).
* NNPACK's transform gives (O, I, 8, 8), F(6, 3) for a 3x3 window, in
  `out_dtype`; NNPACK computes it in its own library, which this
  implementation replaces by the same G g G^T with TVM's matrices.
* The `without_weight_transform` convolutions need `channels` and
  `kernel_size` (their relation reads the output shape from them, not from
  the weight) and a floating-point weight laid out as the transforms above
  produce it; they recover the plain weight with the pseudo-inverse of G
  (G has full column rank) and convolve as `nn.conv2d` / `nn.conv3d` do,
  so the numbers equal those of the plain convolution of the original
  weight up to rounding.
"""

from __future__ import annotations

from typing import Any

from ... import limits
from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from ._attrs import CONV2D_ATTRS, CONV3D_ATTRS, inserted
from ._conv_nd import conv_rel
from .._np import np, wrap
from .conv3d import run_conv3d
from .conv_nchwc import blocked_conv2d
from ..registry import Attr, register
from ..relations import Relation, is_unknown, known_rank, relation, shape_text
from ..types import Args, Attrs, Dims, Shape, Value

# Interpolation points by m + r - 2 (the number of finite points is m + r - 2).
_POINTS = {
    3: (0, -1, 1),
    4: (0, -1, 1, 1 / 2),
    5: (0, -1, 1, 1 / 2, -2),
    6: (0, -1, 1, 1 / 2, -2, -1 / 2),
    7: (0, -1, 1, 1 / 2, -1 / 2, 2, -2),
    8: (0, -1, 1, 1 / 2, -1 / 2, 2, -2, -1 / 4),
    9: (0, -1, 1, 1 / 2, -1 / 2, 2, -2, -1 / 4, 4),
    10: (0, -1, 1, 1 / 2, -1 / 2, 2, -2, -1 / 4, 3 / 4, -4 / 3),
    11: (0, -1, 1, 1 / 2, -1 / 2, 2, -2, -1 / 4, 4, 3 / 4, -4 / 3),
    12: (0, -1, 1, 1 / 2, -1 / 2, 2, -2, -1 / 4, 4, 3 / 4, -4 / 3, 1 / 4),
    13: (0, -1, 1, 1 / 2, -1 / 2, 2, -2, -1 / 4, 4, 1 / 4, -3 / 4, 4 / 3, -4),
}


def winograd_g(tile: int, k: int) -> Any:
    """TVM's (alpha, k) filter-transform matrix G of F(tile, k), in float64."""
    pts = np.array(_POINTS[tile + k - 2], dtype=np.float64)
    alpha = tile + k - 1
    g = np.zeros((alpha, k))
    for i, a in enumerate(pts):
        f = np.prod([a - b for j, b in enumerate(pts) if j != i])
        if i == 0 and f < 0:
            f = -f
        g[i] = a ** np.arange(k) / f
    g[alpha - 1, k - 1] = 1.0
    return g


def _check_sizes(r: Relation, tile: int, k: Any, arg: int | None = 0) -> None:
    if not 1 < tile < 9:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` tile_size must be 2 to 8, found {tile}")
    if type(k) is int and not 2 < k < 8:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}`: winograd needs a window of 3 to 7, found {k}", arg=arg)


def _square(r: Relation, dims: Dims, shape: Dims, what: str) -> None:
    if all(type(d) is int for d in dims) and len(set(dims)) > 1:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs a {what} window, found {shape_text(shape)}", arg=0)


def _plus(tile: int, d: Any) -> Any:
    return tile + d - 1 if type(d) is int else AnyDim()


# ---------------------------------------------------------------- weight transforms


@relation("Conv2DWinogradWeightTransform")
def winograd_weight_transform_rel(r: Relation) -> bool:
    """(O, I, K, K) -> (tile + K - 1, tile + K - 1, O, I)."""
    tile = r.attrs["tile_size"]
    _check_sizes(r, tile, None)
    w = r.tensor(0)
    if not known_rank(w.shape):
        return False
    if len(w.shape) != 4:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs a 4-D weight (OIHW), found {shape_text(w.shape)}", arg=0)
    o, i, kh, kw = w.shape
    _square(r, (kh, kw), w.shape, "square")
    _check_sizes(r, tile, kh)
    r.set_result(TensorType((_plus(tile, kh), _plus(tile, kw), o, i), w.dtype))
    return True


def _transform(w: Any, g: Any, axes: str) -> Any:
    """Apply G along the window axes named by `axes` (letters of "dhw" present in w)."""
    dtype = w.dtype
    gg = g.astype(dtype)
    if axes == "hw":
        out = np.einsum("ak,oikl,bl->aboi", gg, w, gg)
    elif axes == "dhw":
        out = np.einsum("ck,oikmn,am,bn->cabo i".replace(" ", ""), gg, w, gg, gg)
    else:  # "hw" of a 3-D window, depth kept
        out = np.einsum("am,oidmn,bn->abdoi", gg, w, gg)
    return wrap(out, dtype)


@register(
    "nn.contrib_conv2d_winograd_weight_transform",
    inputs=1,
    relation=winograd_weight_transform_rel,
    attrs=(Attr("tile_size", "int"),),
    doc="Winograd filter transform G g G^T of an OIHW weight, for F(tile_size, K).",
)
def winograd_weight_transform(args: Args, attrs: Attrs) -> Value:
    w = args[0]
    return _transform(w, winograd_g(attrs["tile_size"], w.shape[3]), "hw")


def _depth_transformed(kd: Any) -> bool:
    return type(kd) is int and 2 < kd < 8


@relation("Conv3DWinogradWeightTransform")
def winograd3d_weight_transform_rel(r: Relation) -> bool:
    """(O, I, KD, K, K) -> (a, a, a, O, I) when 2 < KD < 8, else (a, a, KD, O, I); a = tile + K - 1."""
    tile = r.attrs["tile_size"]
    _check_sizes(r, tile, None)
    w = r.tensor(0)
    if not known_rank(w.shape):
        return False
    if len(w.shape) != 5:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs a 5-D weight (OIDHW), found {shape_text(w.shape)}", arg=0)
    o, i, kd, kh, kw = w.shape
    if _depth_transformed(kd):
        _square(r, (kd, kh, kw), w.shape, "cubic (the depth is transformed too)")
        _check_sizes(r, tile, kd)
        shape = (_plus(tile, kd), _plus(tile, kh), _plus(tile, kw), o, i)
    else:
        _square(r, (kh, kw), w.shape, "square")
        _check_sizes(r, tile, kh)
        depth = kd if type(kd) is int else AnyDim()
        shape = (_plus(tile, kh), _plus(tile, kw), depth, o, i)
        if is_unknown(kd) or type(kd) is not int:
            shape = (AnyDim(), AnyDim(), AnyDim(), o, i)
    r.set_result(TensorType(shape, w.dtype))
    return True


@register(
    "nn.contrib_conv3d_winograd_weight_transform",
    inputs=1,
    relation=winograd3d_weight_transform_rel,
    attrs=(Attr("tile_size", "int"),),
    doc="Winograd filter transform of an OIDHW weight (the depth too when 2 < KD < 8).",
)
def winograd3d_weight_transform(args: Args, attrs: Attrs) -> Value:
    w = args[0]
    g = winograd_g(attrs["tile_size"], w.shape[3])
    return _transform(w, g, "dhw" if _depth_transformed(w.shape[2]) else "hw3")


@relation("Conv2DWinogradNNPACKWeightTransform")
def nnpack_weight_transform_rel(r: Relation) -> bool:
    """(O, I, 3, 3) -> (O, I, 8, 8) in out_dtype (default: the weight's)."""
    w = r.tensor(0)
    if not known_rank(w.shape):
        return False
    if len(w.shape) != 4:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs a 4-D weight (OIHW), found {shape_text(w.shape)}", arg=0)
    kh, kw = w.shape[2:]
    if any(type(d) is int and d != 3 for d in (kh, kw)):
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` transforms 3x3 windows, found {shape_text(w.shape)}", arg=0)
    r.set_result(TensorType((w.shape[0], w.shape[1], 8, 8), r.attrs["out_dtype"] or w.dtype))
    return True


@register(
    "nn.contrib_conv2d_winograd_nnpack_weight_transform",
    inputs=1,
    relation=nnpack_weight_transform_rel,
    attrs=(Attr("convolution_algorithm", "int"), Attr("out_dtype", "opt_dtype", "")),
    doc="NNPACK's Winograd F(6x6, 3x3) filter transform of an OIHW weight, laid out (O, I, 8, 8).",
)
def nnpack_weight_transform(args: Args, attrs: Attrs) -> Value:
    w = args[0]
    dtype = np.dtype(attrs["out_dtype"] or w.dtype)
    u = _transform(w.astype(dtype), winograd_g(6, 3), "hw")
    return wrap(np.transpose(u, (2, 3, 0, 1)), dtype)


# ---------------------------------------------------------------- convolutions on transformed weights

WINOGRAD_ATTRS = inserted(CONV2D_ATTRS, "", Attr("tile_size", "int"))


def _transformed_weight(r: Relation, expected: Dims) -> None:
    """The pre-transformed weight (input 1) has the shape a transform gives."""
    w = r.tensor(1)
    if type(w.dtype) is str and not w.dtype.startswith(("float", "bfloat")):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` takes a floating-point (transformed) weight, found `{w.dtype}`",
            arg=1,
            notes=["the winograd transform has fractional coefficients"],
        )
    if not known_rank(w.shape):
        return
    if len(w.shape) != len(expected) or any(
        type(a) is int and type(b) is int and a != b for a, b in zip(w.shape, expected, strict=False)
    ):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}`: the transformed weight should be {shape_text(expected)}, found {shape_text(w.shape)}",
            arg=1,
            notes=["transform the OIHW weight with the matching *_winograd_weight_transform operator"],
        )


def _winograd_rel(r: Relation, spatial: str) -> bool:
    tile = r.attrs["tile_size"]
    _check_sizes(r, tile, None)
    if not conv_rel(r, spatial, weight_free=True):
        return False
    data = r.tensor(0)
    from ..tensor.layout import layout_shapes

    c = layout_shapes(r.attrs["data_layout"], "NC" + spatial, data.shape)[1]  # type: ignore[arg-type]  # conv_rel succeeded: the data has a known rank
    groups = r.attrs["groups"]
    ks = r.attrs["kernel_size"]
    ks = tuple(ks) * len(spatial) if len(ks) == 1 else tuple(ks)
    window = ks[-2:]
    if window[0] != window[1]:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` needs a square window, found kernel_size={list(r.attrs['kernel_size'])}")
    _check_sizes(r, tile, window[0], None)
    ipg: Any = c // groups if type(c) is int else AnyDim()
    alpha = tile + window[0] - 1
    if spatial == "HW":
        expected: Dims = (alpha, alpha, r.attrs["channels"], ipg)
    elif _depth_transformed(ks[0]):
        if ks[0] != window[0]:
            r.fail(
                codes.TYPE_MISMATCH,
                f"`{r.op}` needs a cubic window when the depth is transformed, found kernel_size={list(ks)}",
            )
        expected = (alpha, alpha, alpha, r.attrs["channels"], ipg)
    else:
        expected = (alpha, alpha, ks[0], r.attrs["channels"], ipg)
    _transformed_weight(r, expected)
    return True


@relation("Conv2DWinograd")
def winograd_conv2d_rel(r: Relation) -> bool:
    """data (N, C, H, W), a transformed weight -> (N, channels, OH, OW) from kernel_size."""
    return _winograd_rel(r, "HW")


def _untransform(u: Any, tile: int, window: Shape) -> Any:
    """The plain (O, I, *window) weight whose transform is `u` (float64 least squares)."""
    p = np.linalg.pinv(winograd_g(tile, window[-1]))
    # the transformed weight in float64 and the plain one recovered from it
    plain = u.shape[-2] * u.shape[-1] * int(np.prod(window))
    limits.check_allocation(u.size + plain, 8, "the recovered weight of a winograd convolution")
    u = u.astype(np.float64)
    if u.ndim == 4:
        return np.einsum("ka,aboi,lb->oikl", p, u, p)
    if _depth_transformed(window[0]):
        return np.einsum("kc,caboi,ma,nb->oikmn", p, u, p, p)
    return np.einsum("ma,abdoi,nb->oidmn", p, u, p)


def _window(attrs: Attrs, k: int) -> Shape:
    ks = attrs["kernel_size"]
    return tuple(ks) * k if len(ks) == 1 else tuple(ks)


@register(
    "nn.contrib_conv2d_winograd_without_weight_transform",
    inputs=2,
    relation=winograd_conv2d_rel,
    attrs=WINOGRAD_ATTRS,
    doc="2-D convolution with a weight already winograd-transformed (alpha, alpha, O, I).",
)
def winograd_conv2d(args: Args, attrs: Attrs) -> Value:
    x, u = args
    w = _untransform(u, attrs["tile_size"], _window(attrs, 2)).astype(u.dtype)
    return blocked_conv2d(x, w, {**attrs, "kernel_layout": "OIHW"})


@relation("Conv3DWinograd")
def winograd_conv3d_rel(r: Relation) -> bool:
    """data (N, C, D, H, W), a transformed weight -> (N, channels, OD, OH, OW) from kernel_size."""
    return _winograd_rel(r, "DHW")


@register(
    "nn.contrib_conv3d_winograd_without_weight_transform",
    inputs=2,
    relation=winograd_conv3d_rel,
    attrs=inserted(CONV3D_ATTRS, "", Attr("tile_size", "int")),
    doc="3-D convolution with a weight already winograd-transformed by the 3-D transform.",
)
def winograd_conv3d(args: Args, attrs: Attrs) -> Value:
    x, u = args
    w = _untransform(u, attrs["tile_size"], _window(attrs, 3)).astype(u.dtype)
    return run_conv3d(x, w, {**attrs, "kernel_layout": "OIDHW"})
