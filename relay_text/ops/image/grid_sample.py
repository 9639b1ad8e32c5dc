"""Sampling grids: `image.affine_grid` makes one, `image.grid_sample` reads
an image at its points (spatial transformer networks; PyTorch's
affine_grid and grid_sample with the coordinate axis second).

`affine_grid(theta, target_shape=[H, W])`: `theta` is `[batch, 2, 3]`; the
result `[batch, 2, H, W]` holds at `(:, :, i, j)` the point `theta @ (x, y,
1)` where `y = -1 + i * (2 - 1e-7) / (H - 1)` and `x` likewise on `W` (TOPI's
step stays a hair under 2 / (H - 1)). Both sizes must exceed 1. The
arithmetic is done in theta's dtype.

`grid_sample(data, grid, method="bilinear", layout="NCHW",
padding_mode="zeros", align_corners=True)`: for 4-D data, `grid` is `[batch,
2, OH, OW]` holding `(x, y)` pairs in [-1, 1]; for 5-D data (layout
"NCDHW") it is `[batch, 3, OD, OH, OW]` holding `(x, y, z)`. A coordinate
`g` on an axis of length `L` maps to the pixel position `(g + 1) * (L - 1)
/ 2` with align_corners, else `(g + 1) * L / 2 - 0.5`. Then
`padding_mode` "border" clamps the position into the image, "reflection"
mirrors it at the edges (at pixel centres with align_corners, else at the
outer pixel borders) until it falls inside, then clamps; "zeros" leaves it,
and pixels read outside the image count as 0. `method` "bilinear"
(trilinear in 3-D) blends the neighbours, "nearest" rounds halves to even,
and "bicubic" (4-D only) blends 4x4 neighbours with Keys' kernel, a = -0.75
(its taps, not the position, are clamped or mirrored by the padding mode).
The result is `[batch, C, OH, OW]` (`[batch, C, OD, OH, OW]`) of the data's
dtype; integer data is allowed with "nearest" only.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType
from .._np import np, wrap
from ..registry import Attr, register
from ..relations import Relation, known_rank, relation, shape_text, static
from ..types import Args, Attrs, Value

A = -0.75  # the bicubic kernel's coefficient, as in PyTorch


# ---------------------------------------------------------------- affine_grid


@relation("AffineGrid")
def affine_grid_rel(r: Relation) -> bool:
    target = r.attrs["target_shape"]
    if len(target) != 2 or min(target) <= 1:
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` target_shape takes 2 sizes greater than 1 (height, width), found {list(target)}",
        )
    theta = r.tensor(0)
    if isinstance(theta.dtype, str) and not theta.dtype.startswith("float"):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` takes an affine matrix of floats, not `{theta.dtype}`",
            arg=0,
            label=f"this is `{theta.dtype}`",
        )
    if not known_rank(theta.shape):
        return False
    shape = theta.shape
    if len(shape) != 3 or static(shape[1]) not in (2, None) or static(shape[2]) not in (3, None):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` takes affine matrices of shape (batch, 2, 3), found {shape_text(shape)}",
            arg=0,
        )
    r.set_result(TensorType((shape[0], 2, target[0], target[1]), theta.dtype))
    return True


@register(
    "image.affine_grid",
    inputs=1,
    relation=affine_grid_rel,
    attrs=(Attr("target_shape", "ints"),),
    doc="The sampling grid of an affine transformation over a [-1, 1] square of target_shape points.",
)
def affine_grid(args: Args, attrs: Attrs) -> Value:
    (theta,) = args
    dtype = theta.dtype
    h, w = attrs["target_shape"]
    y = np.asarray(-1.0, dtype) + np.arange(h).astype(dtype) * np.asarray((2.0 - 1e-7) / (h - 1), dtype)
    x = np.asarray(-1.0, dtype) + np.arange(w).astype(dtype) * np.asarray((2.0 - 1e-7) / (w - 1), dtype)
    t = theta[:, :, :, None, None]
    return wrap(t[:, :, 0] * x[None, :] + t[:, :, 1] * y[:, None] + t[:, :, 2], dtype)


# ---------------------------------------------------------------- grid_sample


METHODS = {4: ("bilinear", "nearest", "bicubic"), 5: ("bilinear", "nearest")}
PADDING = ("zeros", "border", "reflection")


@relation("GridSample")
def grid_sample_rel(r: Relation) -> bool:
    if r.attrs["padding_mode"] not in PADDING:
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}` padding_mode "{r.attrs["padding_mode"]}" is not supported',
            notes=['use one of "zeros", "border", "reflection"'],
        )
    data, grid = r.tensor(0), r.tensor(1)
    if isinstance(grid.dtype, str) and not grid.dtype.startswith("float"):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` takes a grid of floats, not `{grid.dtype}`",
            arg=1,
            label=f"this is `{grid.dtype}`",
        )
    if not known_rank(data.shape):
        return False
    rank = len(data.shape)
    if rank not in (4, 5):
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs 4-D or 5-D data, found {shape_text(data.shape)}", arg=0)
    layout = {4: "NCHW", 5: "NCDHW"}[rank]
    if r.attrs["layout"] != layout:
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}`: layout "{r.attrs["layout"]}" is not supported for {rank}-D data',
            notes=[f'use "{layout}"'],
        )
    method = r.attrs["method"]
    if method not in METHODS[rank]:
        shown = ", ".join(f'"{m}"' for m in METHODS[rank])
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}` method "{method}" is not supported for {rank}-D data',
            notes=[f"use one of {shown}"],
        )
    if isinstance(data.dtype, str) and not data.dtype.startswith("float") and method != "nearest":
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}` with method "{method}" takes float data, not `{data.dtype}`',
            arg=0,
            label=f"this is `{data.dtype}`",
            notes=['integer data can be sampled with method="nearest"'],
        )
    if not known_rank(grid.shape):
        return False
    g = grid.shape
    if len(g) != rank or static(g[1]) not in (rank - 2, None):
        want = "(batch, 2, height, width)" if rank == 4 else "(batch, 3, depth, height, width)"
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` takes a grid of shape {want} for {rank}-D data, found {shape_text(g)}",
            arg=1,
        )
    a, b = static(data.shape[0]), static(g[0])
    if a is not None and b is not None and a != b:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}`: the data has batch {a}, the grid {b}", arg=1)
    r.set_result(TensorType((data.shape[0], data.shape[1], *tuple(g[2:])), data.dtype))
    return True


def _position(g: Any, length: int, align: bool) -> Any:
    """Grid coordinates in [-1, 1] as pixel positions along an axis."""
    if align:
        return (g + 1) * ((length - 1) / 2)
    return (g + 1) * (length / 2) - 0.5


def _reflect(v: Any, length: int, align: bool) -> Any:
    """Mirror positions at the image's edges until they fall inside."""
    lo, span = (0.0, length - 1) if align else (-0.5, length)
    if span <= 0:
        return np.zeros_like(v)
    inside = (v >= lo) & (v <= lo + span)
    d = np.abs(v - lo)
    times = np.floor(d / span)
    extra = d - times * span
    mirrored = np.where(times % 2 == 0, extra + lo, span - extra + lo)
    return np.where(inside, v, mirrored).astype(v.dtype)


def _pad_position(v: Any, length: int, mode: str, align: bool) -> Any:
    if mode == "reflection":
        v = _reflect(v, length, align)
    if mode in ("reflection", "border"):
        v = np.clip(v, 0, length - 1)
    return v


def _pick(data: Any, coords: list[Any]) -> Any:
    """data[n, :, *coords] as (N, C, *out), 0 where a coordinate is outside."""
    sizes = data.shape[2:]
    valid = np.ones(coords[0].shape, dtype=bool)
    clipped = []
    for c, size in zip(coords, sizes, strict=False):
        valid &= (c >= 0) & (c < size)
        clipped.append(np.clip(c, 0, size - 1))
    n = np.arange(data.shape[0]).reshape((-1,) + (1,) * (coords[0].ndim - 1))
    index = (n, slice(None), *clipped)
    values = np.moveaxis(data[index], -1, 1)
    return np.where(valid[:, None], values, np.zeros((), data.dtype))


def _cubic_weights(f: Any) -> list[Any]:
    def near(t: Any) -> Any:
        return ((A + 2) * t - (A + 3)) * t * t + 1

    def far(t: Any) -> Any:
        return ((A * t - 5 * A) * t + 8 * A) * t - 4 * A

    return [far(f + 1), near(f), near(1 - f), far(2 - f)]


@register(
    "image.grid_sample",
    inputs=2,
    relation=grid_sample_rel,
    attrs=(
        Attr("method", "str", "bilinear"),
        Attr("layout", "str", "NCHW"),
        Attr("padding_mode", "str", "zeros"),
        Attr("align_corners", "bool", True),
    ),
    doc="Sample the data at the points of a grid in [-1, 1] (bilinear, nearest or bicubic).",
)
def grid_sample(args: Args, attrs: Attrs) -> Value:
    data, grid = args
    method, mode, align = attrs["method"], attrs["padding_mode"], attrs["align_corners"]
    sizes = data.shape[2:]
    k = len(sizes)
    work = data.dtype if data.dtype.kind == "f" else np.dtype(np.float64)
    # grid channel 0 is x (the last axis), 1 is y, 2 is z
    raw = [_position(grid[:, k - 1 - a].astype(work, copy=False), sizes[a], align) for a in range(k)]
    if method == "bicubic":
        return wrap(_bicubic(data.astype(work, copy=False), raw, mode, align), data.dtype)
    pos = [_pad_position(v, sizes[a], mode, align) for a, v in enumerate(raw)]
    if method == "nearest":
        return wrap(_pick(data, [np.rint(v).astype(np.int64) for v in pos]), data.dtype)
    base = [np.floor(v) for v in pos]
    frac = [v - b for v, b in zip(pos, base, strict=False)]
    x = data.astype(work, copy=False)
    out = np.zeros((data.shape[0], data.shape[1], *grid.shape[2:]), dtype=work)
    for corner in range(2**k):
        bits = [(corner >> (k - 1 - a)) & 1 for a in range(k)]
        weight = np.ones(grid.shape[:1] + grid.shape[2:], dtype=work)
        for a, bit in enumerate(bits):
            weight = weight * (frac[a] if bit else 1 - frac[a])
        out += _pick(x, [(base[a] + bits[a]).astype(np.int64) for a in range(k)]) * weight[:, None]
    return wrap(out, data.dtype)


def _bicubic(x: Any, pos: list[Any], mode: str, align: bool) -> Any:
    (y, xx) = pos
    h, w = x.shape[2:]
    y0, x0 = np.floor(y), np.floor(xx)
    wy, wx = _cubic_weights(y - y0), _cubic_weights(xx - x0)

    def tap(v: Any, length: int) -> Any:
        if mode == "border":
            v = np.clip(v, 0, length - 1)
        elif mode == "reflection":
            v = np.clip(_reflect(v, length, align), 0, length - 1)
        return v.astype(np.int64)

    out = 0
    for i in range(4):
        row = 0
        for j in range(4):
            row = row + _pick(x, [tap(y0 - 1 + i, h), tap(x0 - 1 + j, w)]) * wx[j][:, None]
        out = out + row * wy[i][:, None]
    return out
