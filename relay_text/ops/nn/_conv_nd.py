"""Machinery the convolution families share: numpy kernels for any number of
spatial axes, and the attribute and layout checks of their relations.

Kernels work on channel-first arrays, `(N, C, *spatial)` data and
`(O, I, *window)` weights; callers move other layouts in and out with
`to_layout` (which understands blocked layouts such as `NCHW8c`, through
`layout_transform`).

* `conv_nd`: cross-correlation with strides, padding (before and after each
  spatial axis), dilation and groups. Two spatial axes go to
  `conv.conv2d_nchw` (one matrix product over an im2col view, or per-tap
  multiply-adds for depthwise); one axis is the 2-D case of height 1; three
  axes lay out the windows of each group as a matrix, one `matmul`.
* `conv_transpose_nd`: the transposed convolution: every input position
  scatters its weighted window into the output; the products of all
  positions come from one batched `matmul`, and each window tap is added
  with one strided slice; the result is then cropped by the padding.

Both convert their inputs to the output dtype first, so the sums are taken
in that dtype (an int8 x uint8 convolution with `out_dtype="int32"`
accumulates in int32) and integer overflow wraps.
"""

from __future__ import annotations

import math
from itertools import product
from typing import Any

from ... import limits
from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from .._np import np
from .conv import conv2d_nchw
from ..tensor.layout import LayoutError, layout_shapes, layout_transform, parse_layout
from ..relations import Relation, known_rank, shape_text
from ..types import Dims, Shape

# ---------------------------------------------------------------- kernels


def conv_nd(
    x: Any, w: Any, strides: Shape, before: Shape, after: Shape, dilation: Shape, groups: int, dtype: Any
) -> Any:
    """Cross-correlation of (N, C, *S) data with an (O, C / groups, *K) weight, in `dtype`."""
    k = x.ndim - 2
    if k == 1:
        out = conv2d_nchw(
            x[:, :, None, :],
            w[:, :, None, :],
            (1, strides[0]),
            (0, before[0], 0, after[0]),
            (1, dilation[0]),
            groups,
            dtype,
        )
        return out[:, :, 0, :]
    if k == 2:
        return conv2d_nchw(
            x, w, tuple(strides), (before[0], before[1], after[0], after[1]), tuple(dilation), groups, dtype
        )
    x = x.astype(dtype, copy=False)
    w = w.astype(dtype, copy=False)
    if any(before) or any(after):
        padded = math.prod(s + b + a for s, b, a in zip(x.shape[2:], before, after, strict=False))
        limits.check_allocation(x.shape[0] * x.shape[1] * padded, x.dtype.itemsize, "the padded input of a convolution")
    xp = pad_spatial(x, before, after)
    n, c = x.shape[:2]
    o, ipg = w.shape[:2]
    window = w.shape[2:]
    out_sizes = tuple((xp.shape[2 + i] - dilation[i] * (window[i] - 1) - 1) // strides[i] + 1 for i in range(k))
    st = xp.strides
    view = np.lib.stride_tricks.as_strided(
        xp,
        shape=(n, c, *window, *out_sizes),
        strides=(
            st[0],
            st[1],
            *(st[2 + i] * dilation[i] for i in range(k)),
            *(st[2 + i] * strides[i] for i in range(k)),
        ),
        writeable=False,
    )
    taps = math.prod(window)
    # The windows of a block of the first output axis at a time (the
    # im2col copy of them all can be many times the result).
    out = np.empty((n, o, *out_sizes), dtype=x.dtype)
    rest = math.prod(out_sizes[1:])
    block = limits.scratch_rows(out_sizes[0], c * taps * rest * x.dtype.itemsize, "the temporaries of a convolution")
    wm = w.reshape(groups, o // groups, ipg * taps)
    for image in range(n):
        for top in range(0, out_sizes[0], block):
            rows = min(block, out_sizes[0] - top)
            part = view[(image, Ellipsis, slice(top, top + rows)) + (slice(None),) * (k - 1)]
            cols = part.reshape(groups, ipg * taps, rows * rest)
            out[image, :, top : top + rows] = np.matmul(wm, cols).reshape(o, rows, *out_sizes[1:])
            del cols
    return out


def pad_spatial(x: Any, before: Shape, after: Shape, value: Any = 0) -> Any:
    """`x` with its spatial axes (all but the first two) padded by `value`."""
    if not any(before) and not any(after):
        return x
    width = [(0, 0), (0, 0)] + [(b, a) for b, a in zip(before, after, strict=False)]
    return np.pad(x, width, constant_values=value)


def conv_transpose_nd(
    x: Any,
    w: Any,
    strides: Shape,
    before: Shape,
    after: Shape,
    output_padding: Shape,
    dilation: Shape,
    groups: int,
    dtype: Any,
) -> Any:
    """Transposed convolution of (N, C, *S) data with a (C, O / groups, *K) weight, in `dtype`."""
    x = x.astype(dtype, copy=False)
    w = w.astype(dtype, copy=False)
    n, c = x.shape[:2]
    sizes = x.shape[2:]
    opg = w.shape[1]
    window = w.shape[2:]
    ipg = c // groups
    taps = math.prod(window)
    full = tuple(
        (s - 1) * st + d * (kk - 1) + 1 + op
        for s, st, d, kk, op in zip(sizes, strides, dilation, window, output_padding, strict=False)
    )
    # (groups, opg * taps, ipg) @ (groups, ipg, positions): every position's
    # weighted window, for a block of rows of the first spatial axis of one
    # image at a time (all of them at once can be many times the result)
    wg = w.reshape(groups, ipg, opg * taps).transpose(0, 2, 1)
    out = np.zeros((n, groups * opg, *full), dtype=dtype)
    rest = math.prod(sizes[1:])
    block = limits.scratch_rows(
        sizes[0], groups * opg * taps * rest * out.dtype.itemsize, "the temporaries of a transposed convolution"
    )
    for image in range(n):
        for top in range(0, sizes[0], block):
            rows = min(block, sizes[0] - top)
            part = x[image, :, top : top + rows].reshape(groups, ipg, rows * rest)
            cols = np.matmul(wg, part).reshape(groups * opg, *window, rows, *sizes[1:])
            for tap in product(*(range(kk) for kk in window)):
                first = slice(
                    tap[0] * dilation[0] + strides[0] * top,
                    tap[0] * dilation[0] + strides[0] * (top + rows - 1) + 1,
                    strides[0],
                )
                where = tuple(
                    slice(t * d, t * d + st * (s - 1) + 1, st)
                    for t, d, st, s in zip(tap[1:], dilation[1:], strides[1:], sizes[1:], strict=False)
                )
                target, tap_index = (
                    (image, slice(None), first, *where),
                    (slice(None), *tap),
                )  # (no `x[a, *b]`: Python 3.10)
                out[target] += cols[tap_index]
            del cols
    crop = tuple(slice(b, f - a) for b, a, f in zip(before, after, full, strict=False))
    kept = (slice(None), slice(None), *crop)
    return out[kept]


def to_layout(x: Any, src: str, dst: str) -> Any:
    """`x` converted from layout `src` to `dst` (as `layout_transform` does)."""
    if src == dst:
        return x
    return layout_transform((x,), {"src_layout": src, "dst_layout": dst})


# ---------------------------------------------------------------- relation helpers


def int_values(r: Relation, name: str, count: int, *, positive: bool = True) -> Shape:
    """An attribute of `count` integers; one value stands for all."""
    v = tuple(r.attrs[name])
    if len(v) == 1 and count > 1:
        v = v * count
    if len(v) != count:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` {name} takes {count} values, found {len(r.attrs[name])}")
    if positive and any(x <= 0 for x in v):
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` {name} must be positive, found {list(r.attrs[name])}")
    return v


def pads(r: Relation, count: int, name: str = "padding") -> tuple[Shape, Shape]:
    """(before, after) per spatial axis from TVM's padding: one value for all
    sides, `count` values (each on both sides of its axis) or 2 * `count`
    values (all befores, then all afters)."""
    p = tuple(r.attrs[name])
    if any(v < 0 for v in p):
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` {name} cannot be negative, found {list(p)}")
    if len(p) == 1:
        return p * count, p * count
    if len(p) == count:
        return p, p
    if len(p) == 2 * count:
        return p[:count], p[count:]
    allowed = sorted({1, count, 2 * count})
    r.fail(
        codes.TYPE_MISMATCH,
        f"`{r.op}` {name} takes {', '.join(map(str, allowed[:-1]))} or {allowed[-1]} values, found {len(p)}",
    )
    raise AssertionError


def kernel_pads(pad: Shape, count: int) -> tuple[Shape, Shape]:
    """The kernel side of `pads`: (before, after) from validated values."""
    if len(pad) == 1:
        return tuple(pad) * count, tuple(pad) * count
    if len(pad) == count:
        return tuple(pad), tuple(pad)
    return tuple(pad[:count]), tuple(pad[count:])


def layout_attr(r: Relation, name: str, plain: str, default: str = "") -> str:
    """A layout attribute naming the axes of `plain` (blocks such as `8c` allowed)."""
    layout = r.attrs[name] or default
    try:
        axes = parse_layout(layout)
    except LayoutError:
        axes = []
    if sorted(a for a, _ in axes if a.isupper()) != sorted(plain):
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}`: {name} "{layout}" is not supported',
            notes=[
                f'use an order of the letters {plain}, e.g. "{plain}", optionally with blocks such as '
                f'"{plain}4{plain[1].lower()}"'
            ],
        )
    return layout


def to_plain(r: Relation, shape: Dims, layout: str, plain: str, arg: int, what: str) -> Dims:
    """A shape in `layout` as the shape in `plain` (blocks folded back)."""
    if len(shape) != len(parse_layout(layout)):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` needs a {len(parse_layout(layout))}-D {what} ({layout}), found {shape_text(shape)}",
            arg=arg,
        )
    try:
        return layout_shapes(layout, plain, shape)
    except LayoutError as exc:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}`: the {what} does not fit its layout: {exc}", arg=arg)
        raise AssertionError from None


def from_plain(r: Relation, shape: Dims, plain: str, layout: str, arg: int | None, what: str) -> Dims:
    """A shape in `plain` laid out in `layout` (blocks split off)."""
    try:
        return layout_shapes(plain, layout, shape)
    except LayoutError as exc:
        r.fail(codes.SHAPE_MISMATCH, f'`{r.op}`: the {what} does not fit layout "{layout}": {exc}', arg=arg)
        raise AssertionError from None


def window_sizes(
    r: Relation, sizes: Dims, window: Shape, strides: Shape, dilation: Shape, before: Shape, after: Shape, arg: int = 0
) -> Dims:
    """Output sizes of a sliding window; `?` where an input size or window is unknown."""
    out: list[Any] = []
    for i, (s, k) in enumerate(zip(sizes, window, strict=False)):
        if type(s) is not int or type(k) is not int:
            out.append(AnyDim())
            continue
        v = (s + before[i] + after[i] - dilation[i] * (k - 1) - 1) // strides[i] + 1
        if v <= 0:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`{r.op}`: the window does not fit: spatial axis {i} has size {s}, the output would be {v}",
                arg=arg,
                notes=[f"window {k}, dilation {dilation[i]}, padding {before[i]} + {after[i]}"],
            )
        out.append(v)
    return tuple(out)


def weight_dtype(r: Relation, i: int, dtype: Any) -> None:
    """Input i (a weight) takes `dtype` when its own dtype is still unknown; a
    known dtype may differ from the data's (TVM convolutions allow mixed dtypes)."""
    w = r.tensor(i)
    if type(w.dtype) is not str:
        r.refine(i, TensorType(w.shape, dtype))


def channel_checks(r: Relation, c: Any, i: Any, o: Any, groups: int, weight_shape: Dims, kl: str) -> None:
    """The data's channels against the weight's input channels, and groups."""
    if type(c) is int and type(i) is int and c != i * groups:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}`: the data has {c} channels, but the weight expects {i * groups} (groups={groups})",
            arg=1,
            notes=[f"weight {shape_text(weight_shape)} ({kl})"],
        )
    if type(o) is int and o % groups:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}`: {o} output channels cannot be divided into groups={groups}", arg=1)


def groups_attr(r: Relation) -> int:
    groups: int = r.attrs["groups"]
    if groups < 1:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` groups must be positive, found {groups}")
    return groups


def conv_rel(r: Relation, spatial: str, *, weight_free: bool = False, require_attrs: bool = False) -> bool:
    """The relation of a forward convolution over the axes `spatial` ("DHW"):
    data in `data_layout` (any order of N, C and the spatial letters, blocks
    allowed), weight in `kernel_layout` (O, I and the spatial letters), the
    result in `out_layout` (default: the data's). With `channels` and
    `kernel_size` given and the weight unknown, the weight's shape is
    inferred. `weight_free` (winograd): the weight is pre-transformed, so
    `channels` and `kernel_size` are required and give the output;
    `require_attrs`: they are required, and the weight is checked against them."""
    k = len(spatial)
    pdata, pkernel = "NC" + spatial, "OI" + spatial
    dl = layout_attr(r, "data_layout", pdata)
    kl = layout_attr(r, "kernel_layout", pkernel)
    ol = layout_attr(r, "out_layout", pdata, dl)
    strides = int_values(r, "strides", k)
    dilation = int_values(r, "dilation", k)
    before, after = pads(r, k)
    groups = groups_attr(r)
    channels, kernel_size = r.attrs["channels"], r.attrs["kernel_size"]
    if kernel_size is not None:
        kernel_size = int_values(r, "kernel_size", k)
    if channels is not None and channels <= 0:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` channels must be positive, found {channels}")
    if (weight_free or require_attrs) and (channels is None or kernel_size is None):
        why = " (its weight is pre-transformed)" if weight_free else ""
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` needs the attributes channels and kernel_size{why}")
    data = r.tensor(0)
    if not known_rank(data.shape):
        return False
    n, c, *sizes = to_plain(r, data.shape, dl, pdata, 0, "data")
    if weight_free:
        o, window = channels, kernel_size
    else:
        weight = r.tensor(1)
        if not known_rank(weight.shape) and channels is not None and kernel_size is not None and type(c) is int:
            if c % groups:
                r.fail(
                    codes.SHAPE_MISMATCH, f"`{r.op}`: {c} input channels cannot be divided into groups={groups}", arg=0
                )
            wshape = from_plain(r, (channels, c // groups, *kernel_size), pkernel, kl, 1, "weight")
            r.refine(1, TensorType(wshape, weight.dtype if type(weight.dtype) is str else data.dtype))
            weight = r.tensor(1)
        if not known_rank(weight.shape):
            return False
        o, i, *window = to_plain(r, weight.shape, kl, pkernel, 1, "weight")
        channel_checks(r, c, i, o, groups, weight.shape, kl)
        if channels is not None and type(o) is int and o != channels:
            r.fail(
                codes.SHAPE_MISMATCH, f"`{r.op}` has channels={channels}, but the weight has {o} output channels", arg=1
            )
        if kernel_size is not None and all(type(x) is int for x in window) and tuple(window) != kernel_size:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`{r.op}` has kernel_size={list(kernel_size)}, but the weight's window is {tuple(window)}",
                arg=1,
            )
        weight_dtype(r, 1, data.dtype)
    outs = window_sizes(r, tuple(sizes), tuple(window), strides, dilation, before, after)
    oshape = from_plain(r, (n, o, *outs), pdata, ol, None, "result")
    r.set_result(TensorType(oshape, r.attrs["out_dtype"] or data.dtype))
    return True


def conv_transpose_rel(r: Relation, spatial: str) -> bool:
    """The relation of a transposed convolution over `spatial`: data (N, C,
    *S), weight (C, O / groups, *K) in `kernel_layout` (I, O and the spatial
    letters), result (N, O, *OS) with OS = (S - 1) * stride - pads +
    dilation * (K - 1) + output_padding + 1."""
    k = len(spatial)
    pdata, pkernel = "NC" + spatial, "IO" + spatial
    dl = layout_attr(r, "data_layout", pdata)
    kl = layout_attr(r, "kernel_layout", pkernel)
    ol = layout_attr(r, "out_layout", pdata, dl)
    strides = int_values(r, "strides", k)
    dilation = int_values(r, "dilation", k)
    output_padding = int_values(r, "output_padding", k, positive=False)
    before, after = pads(r, k)
    groups = groups_attr(r)
    for op, s, d in zip(output_padding, strides, dilation, strict=False):
        if not 0 <= op < max(s, d):
            r.fail(
                codes.TYPE_MISMATCH,
                f"`{r.op}` output_padding {list(output_padding)} must be smaller than the strides {list(strides)}",
                notes=["output_padding only chooses among the output sizes a stride makes possible"],
            )
    channels, kernel_size = r.attrs["channels"], r.attrs["kernel_size"]
    if kernel_size is not None:
        kernel_size = int_values(r, "kernel_size", k)
    data = r.tensor(0)
    if not known_rank(data.shape):
        return False
    n, c, *sizes = to_plain(r, data.shape, dl, pdata, 0, "data")
    weight = r.tensor(1)
    if not known_rank(weight.shape) and channels is not None and kernel_size is not None and type(c) is int:
        wshape = from_plain(r, (c, channels // groups, *kernel_size), pkernel, kl, 1, "weight")
        r.refine(1, TensorType(wshape, weight.dtype if type(weight.dtype) is str else data.dtype))
        weight = r.tensor(1)
    if not known_rank(weight.shape):
        return False
    i, opg, *window = to_plain(r, weight.shape, kl, pkernel, 1, "weight")
    if type(c) is int and type(i) is int and c != i:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}`: the data has {c} channels, but the weight's input-channel axis has {i}",
            arg=1,
            notes=[f"weight {shape_text(weight.shape)} ({kl})"],
        )
    if type(c) is int and c % groups:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}`: {c} input channels cannot be divided into groups={groups}", arg=0)
    o: Any = opg * groups if type(opg) is int else AnyDim()
    if channels is not None and type(o) is int and o != channels:
        r.fail(
            codes.SHAPE_MISMATCH, f"`{r.op}` has channels={channels}, but the weight gives {o} output channels", arg=1
        )
    if kernel_size is not None and all(type(x) is int for x in window) and tuple(window) != kernel_size:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` has kernel_size={list(kernel_size)}, but the weight's window is {tuple(window)}",
            arg=1,
        )
    weight_dtype(r, 1, data.dtype)
    outs: list[Any] = []
    for ax, (s, kk) in enumerate(zip(sizes, window, strict=False)):
        if type(s) is not int or type(kk) is not int:
            outs.append(AnyDim())
            continue
        v = (s - 1) * strides[ax] - before[ax] - after[ax] + dilation[ax] * (kk - 1) + output_padding[ax] + 1
        if v <= 0:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`{r.op}`: the padding removes the whole output along spatial axis {ax} ({v})",
                arg=0,
            )
        outs.append(v)
    oshape = from_plain(r, (n, o, *outs), pdata, ol, None, "result")
    r.set_result(TensorType(oshape, r.attrs["out_dtype"] or data.dtype))
    return True
