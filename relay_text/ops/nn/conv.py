"""Convolutions beyond `nn.conv2d`: `nn.conv1d` and `nn.conv2d_transpose`,
and the numpy kernels every convolution shares.

The kernels work in NCHW / OIHW; other layouts are transposed in and out.
A convolution is one matrix product over an im2col view of the input:

* groups = 1: the windows of the (padded) input are laid out as a
  `(C * KH * KW, OH * OW)` matrix per image and multiplied by the
  `(O, C * KH * KW)` weight matrix in a single `matmul` call; a 1x1 window
  needs no copy at all, only (for strides) a strided view;
* depthwise (one input channel per group): each output channel is a
  weighted sum of KH * KW shifted views of its input channel, so the work
  is KH * KW vectorised multiply-adds over the whole tensor;
* other groups: one batched `matmul` over the groups.

Attribute facts (TVM): `nn.conv1d` has `strides=[1]`, `padding=[0, 0]`
(one value for both sides, or left and right), `dilation=[1]`, layouts
`NCW` / `OIW`. `nn.conv2d_transpose` has `strides`, `padding` (1, 2 or 4
values, cropped from the full result), `output_padding` (added at the
bottom and right), `dilation`, `groups`, layouts `NCHW` / `IOHW`: its
weight is (input channels, output channels per group, KH, KW), and the
output size is `(in - 1) * stride - pad_before - pad_after +
dilation * (k - 1) + output_padding + 1`.
"""

from __future__ import annotations

from typing import Any, cast
from collections.abc import Iterator

from ... import limits
from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from ._attrs import CONV1D_ATTRS, CONV2D_TRANSPOSE_ATTRS
from .._np import np, wrap
from .._threads import parallel_copy
from ..registry import register
from ..relations import Relation, known_rank, relation, shape_text
from ..types import Args, Attrs, Shape, Value

# ---------------------------------------------------------------- kernels


def conv2d_nchw(x: Any, w: Any, strides: Shape, pads: Shape, dilation: Shape, groups: int, dtype: Any) -> Any:
    """2-D cross-correlation of NCHW data with an OIHW weight.

    `pads` is (top, left, bottom, right); the result has `dtype` (inputs are
    converted first, so a wider output type accumulates without overflow).
    """
    if x.dtype != dtype:
        x = x.astype(dtype)
    if w.dtype != dtype:
        w = w.astype(dtype)
    n, c, h, wd = x.shape
    o, ipg, kh, kw = w.shape
    sh, sw = strides
    dh, dw = dilation
    pt, pl, pb, pr = pads
    oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    if ipg == 1 and groups == c:
        from ._depthwise import depthwise_nchw

        return depthwise_nchw(x, pads, w, (oh, ow), strides, dilation, dtype)
    if groups == 1 and kh == 1 and kw == 1 and not (pt or pl or pb or pr):
        # a 1x1 window: one matrix product over the pixels, no im2col (a
        # stride only subsamples the input)
        if sh == 1 and sw == 1:
            pixels = x.reshape(n, c, h * wd)
        else:
            pixels = np.empty((n, c, oh, ow), dtype=dtype)
            parallel_copy(pixels, x[:, :, : sh * (oh - 1) + 1 : sh, : sw * (ow - 1) + 1 : sw])
            pixels = pixels.reshape(n, c, oh * ow)
        out = np.matmul(w.reshape(o, c), pixels)
        return out.reshape(n, o, oh, ow)
    if pt or pl or pb or pr:
        limits.check_allocation(
            n * c * (h + pt + pb) * (wd + pl + pr), np.dtype(dtype).itemsize, "the padded input of a convolution"
        )
        xp = np.empty((n, c, h + pt + pb, wd + pl + pr), dtype=dtype)
        for border in (xp[:, :, :pt], xp[:, :, pt + h :], xp[:, :, pt : pt + h, :pl], xp[:, :, pt : pt + h, pl + wd :]):
            border.fill(0)
        parallel_copy(xp[:, :, pt : pt + h, pl : pl + wd], x)
    else:
        xp = x
    sn, sc, s_h, s_w = xp.strides
    windows = np.lib.stride_tricks.as_strided(
        xp, shape=(n, c, kh, kw, oh, ow), strides=(sn, sc, s_h * dh, s_w * dw, s_h * sh, s_w * sw), writeable=False
    )
    out = np.empty((n, o, oh, ow), dtype=dtype)
    # im2col: the windows of a block of output rows side by side, copied by
    # the kernel threads; blocks keep the copy within the memory limit
    block = limits.scratch_rows(oh, c * kh * kw * ow * np.dtype(dtype).itemsize, "the temporaries of a convolution")
    opg = o // groups
    wm = w.reshape(o, c * kh * kw) if groups == 1 else w.reshape(groups, opg, ipg * kh * kw)
    for image in range(n):
        for top in range(0, oh, block):
            rows = min(block, oh - top)
            cols = np.empty((c, kh, kw, rows, ow), dtype=dtype)
            parallel_copy(cols, windows[image, :, :, :, top : top + rows])
            if groups == 1 and rows == oh:  # the product straight into the result
                np.matmul(wm, cols.reshape(c * kh * kw, rows * ow), out=out[image].reshape(o, rows * ow))
            else:
                shape = (c * kh * kw, rows * ow) if groups == 1 else (groups, ipg * kh * kw, rows * ow)
                out[image, :, top : top + rows] = np.matmul(wm, cols.reshape(shape)).reshape(o, rows, ow)
            del cols
    return out


def window_taps(xp: Any, kernel: Shape, out_hw: Shape, strides: Shape, dilation: Shape) -> Iterator[Any]:
    """For each of the KH * KW positions of a window, in row-major order, the
    (N, C, OH, OW) view of the padded NCHW input `xp` that this position sees
    in every window. A windowed reduction is then KH * KW whole-tensor
    operations (measured: a 3x3 max pool over 64x112x112 takes 2 ms this way,
    25 ms as one reduction over a 6-D strided view)."""
    kh, kw = kernel
    oh, ow = out_hw
    sh, sw = strides
    dh, dw = dilation
    for i in range(kh):
        for j in range(kw):
            yield xp[:, :, i * dh : i * dh + sh * (oh - 1) + 1 : sh, j * dw : j * dw + sw * (ow - 1) + 1 : sw]


def conv2d_transpose_nchw(
    x: Any, w: Any, strides: Shape, pads: Shape, output_padding: Shape, dilation: Shape, groups: int, dtype: Any
) -> Any:
    """Transposed 2-D convolution of NCHW data with an IOHW weight
    (`_conv_nd.conv_transpose_nd`: every input pixel scatters its weighted
    window into the output, a block of input rows at a time)."""
    from ._conv_nd import conv_transpose_nd

    pt, pl, pb, pr = pads
    return conv_transpose_nd(
        x, w, tuple(strides), (pt, pl), (pb, pr), tuple(output_padding), tuple(dilation), groups, np.dtype(dtype)
    )


# ---------------------------------------------------------------- shared attribute handling


def pair_of(values: Shape) -> Shape:
    """(height, width) from one value for both or two values."""
    return (values[0], values[0]) if len(values) == 1 else tuple(values)


def pads_2d(pad: Shape) -> tuple[int, int, int, int]:
    """(top, left, bottom, right) from TVM's 1, 2 or 4 padding values."""
    if len(pad) == 1:
        return (pad[0],) * 4
    if len(pad) == 2:
        return (pad[0], pad[1], pad[0], pad[1])
    return cast(tuple[int, int, int, int], tuple(pad))  # 4 values, as the relations require


def _values(r: Relation, name: str, count: int, allowed: tuple[int, ...] = (1,)) -> Shape:
    """An attribute of `count` values (one value given stands for all)."""
    v = r.attrs[name]
    if len(v) == count:
        return tuple(v)
    if len(v) in allowed:
        return tuple(v) * count if len(v) == 1 else tuple(v)
    r.fail(codes.TYPE_MISMATCH, f"`{r.op}` {name} takes {count} values, found {len(v)}")
    raise AssertionError


def weight_dtype_of(r: Relation, data_dtype: Any) -> None:
    """TVM's convolutions let the weight's dtype differ from the data's (an
    int8 weight on uint8 data, `out_dtype="int32"`: src/relay/op/nn/
    convolution.cc keeps the weight's own dtype); a weight whose dtype is
    still unknown takes the data's, as TVM gives an inferred weight."""
    w = r.tensor(1)
    if type(w.dtype) is not str:
        r.refine(1, TensorType(w.shape, data_dtype))


def _layout(r: Relation, name: str, letters: str) -> str:
    layout: str = r.attrs[name]
    if sorted(layout) != sorted(letters):
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}`: {name} "{layout}" is not supported',
            notes=[f'use an order of the letters {letters}, e.g. "{letters}"'],
        )
    return layout


def _positive(r: Relation, name: str, values: Shape) -> None:
    if any(v <= 0 for v in values):
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` {name} must be positive, found {list(values)}")


# ---------------------------------------------------------------- nn.conv1d


@relation("Conv1D")
def conv1d_rel(r: Relation) -> bool:
    """data (N, C, W), weight (O, C / groups, K) -> (N, O, OW); the weight can come from channels/kernel_size."""
    data = r.tensor(0)
    dl = _layout(r, "data_layout", "NCW")
    kl = _layout(r, "kernel_layout", "OIW")
    ol = r.attrs["out_layout"] or dl
    (stride,) = _values(r, "strides", 1)
    (dilation,) = _values(r, "dilation", 1)
    pad = r.attrs["padding"]
    if len(pad) not in (1, 2):
        r.fail(codes.TYPE_MISMATCH, f"`nn.conv1d` padding takes 1 or 2 values (left, right), found {len(pad)}")
    _positive(r, "strides", (stride,))
    _positive(r, "dilation", (dilation,))
    groups = r.attrs["groups"]
    if groups <= 0:
        r.fail(codes.TYPE_MISMATCH, f"`nn.conv1d` groups must be positive, found {groups}")
    if not known_rank(data.shape):
        return False
    if len(data.shape) != 3:
        r.fail(codes.SHAPE_MISMATCH, f"`nn.conv1d` needs 3-D data ({dl}), found {shape_text(data.shape)}", arg=0)
    n, c, width = (data.shape[dl.index(x)] for x in "NCW")
    channels, kernel_size = r.attrs["channels"], r.attrs["kernel_size"]
    weight = r.tensor(1)
    if not known_rank(weight.shape) and channels is not None and kernel_size is not None and type(c) is int:
        dims = {"O": channels, "I": c // groups, "W": kernel_size[0]}
        r.refine(1, TensorType(tuple(dims[x] for x in kl), weight.dtype if type(weight.dtype) is str else data.dtype))
        weight = r.tensor(1)
    if not known_rank(weight.shape):
        return False
    if len(weight.shape) != 3:
        r.fail(codes.SHAPE_MISMATCH, f"`nn.conv1d` needs a 3-D weight ({kl}), found {shape_text(weight.shape)}", arg=1)
    o, i, k = (weight.shape[kl.index(x)] for x in "OIW")
    if type(c) is int and type(i) is int and c != i * groups:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.conv1d`: the data has {c} channels, but the weight expects {i * groups} (groups={groups})",
            arg=1,
            notes=[f"data {shape_text(data.shape)} ({dl}), weight {shape_text(weight.shape)} ({kl})"],
        )
    if channels is not None and type(o) is int and o != channels:
        r.fail(
            codes.SHAPE_MISMATCH, f"`nn.conv1d` has channels={channels}, but the weight has {o} output channels", arg=1
        )
    weight_dtype_of(r, data.dtype)
    left, right = (pad[0], pad[0]) if len(pad) == 1 else pad
    if type(width) is int and type(k) is int:
        out_w: Any = (width + left + right - dilation * (k - 1) - 1) // stride + 1
        if out_w <= 0:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`nn.conv1d`: the window does not fit: the input width is {width}, the output would be {out_w}",
                arg=0,
            )
    else:
        out_w = AnyDim()
    dims = {"N": n, "C": o, "W": out_w}
    r.set_result(TensorType(tuple(dims[x] for x in ol), r.attrs["out_dtype"] or data.dtype))
    return True


@register(
    "nn.conv1d",
    inputs=2,
    relation=conv1d_rel,
    attrs=CONV1D_ATTRS,
    doc="1-D convolution (cross-correlation) with strides, padding, dilation and groups.",
)
def conv1d(args: Args, attrs: Attrs) -> Value:
    x, w = args
    dl, kl = attrs["data_layout"], attrs["kernel_layout"]
    ol = attrs["out_layout"] or dl
    dtype = np.dtype(attrs["out_dtype"] or x.dtype)
    x4 = np.transpose(x, [dl.index(c) for c in "NCW"])[:, :, None, :]
    w4 = np.transpose(w, [kl.index(c) for c in "OIW"])[:, :, None, :]
    pad = attrs["padding"]
    left, right = (pad[0], pad[0]) if len(pad) == 1 else pad
    out = conv2d_nchw(
        x4, w4, (1, attrs["strides"][0]), (0, left, 0, right), (1, attrs["dilation"][0]), attrs["groups"], dtype
    )
    return wrap(np.transpose(out[:, :, 0, :], ["NCW".index(c) for c in ol]), dtype)


# ---------------------------------------------------------------- nn.conv2d_transpose


@relation("Conv2DTranspose")
def conv2d_transpose_rel(r: Relation) -> bool:
    """data (N, C, H, W), weight (C, O / groups, KH, KW) -> (N, O, OH, OW)."""
    data = r.tensor(0)
    dl = _layout(r, "data_layout", "NCHW")
    kl = _layout(r, "kernel_layout", "IOHW")
    ol = r.attrs["out_layout"] or dl
    sh, sw = _values(r, "strides", 2)
    dh, dw = _values(r, "dilation", 2)
    oph, opw = _values(r, "output_padding", 2)
    pad = r.attrs["padding"]
    if len(pad) not in (1, 2, 4):
        r.fail(codes.TYPE_MISMATCH, f"`nn.conv2d_transpose` padding takes 1, 2 or 4 values, found {len(pad)}")
    pt, pl, pb, pr = pads_2d(pad)
    _positive(r, "strides", (sh, sw))
    _positive(r, "dilation", (dh, dw))
    if not (0 <= oph < max(sh, dh) and 0 <= opw < max(sw, dw)):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`nn.conv2d_transpose` output_padding {[oph, opw]} must be smaller than the strides {[sh, sw]}",
            notes=["output_padding only chooses among the output sizes a stride makes possible"],
        )
    groups = r.attrs["groups"]
    if groups <= 0:
        r.fail(codes.TYPE_MISMATCH, f"`nn.conv2d_transpose` groups must be positive, found {groups}")
    if not known_rank(data.shape):
        return False
    if len(data.shape) != 4:
        r.fail(
            codes.SHAPE_MISMATCH, f"`nn.conv2d_transpose` needs 4-D data ({dl}), found {shape_text(data.shape)}", arg=0
        )
    n, c, h, w = (data.shape[dl.index(x)] for x in "NCHW")
    channels, kernel_size = r.attrs["channels"], r.attrs["kernel_size"]
    weight = r.tensor(1)
    if not known_rank(weight.shape) and channels is not None and kernel_size is not None and type(c) is int:
        kh, kw = kernel_size * 2 if len(kernel_size) == 1 else kernel_size
        dims = {"I": c, "O": channels // groups, "H": kh, "W": kw}
        r.refine(1, TensorType(tuple(dims[x] for x in kl), weight.dtype if type(weight.dtype) is str else data.dtype))
        weight = r.tensor(1)
    if not known_rank(weight.shape):
        return False
    if len(weight.shape) != 4:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.conv2d_transpose` needs a 4-D weight ({kl}), found {shape_text(weight.shape)}",
            arg=1,
        )
    i, opg, kh, kw = (weight.shape[kl.index(x)] for x in "IOHW")
    if type(c) is int and type(i) is int and c != i:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.conv2d_transpose`: the data has {c} channels, but the weight's input-channel axis has {i}",
            arg=1,
            notes=[f"data {shape_text(data.shape)} ({dl}), weight {shape_text(weight.shape)} ({kl})"],
        )
    if type(c) is int and c % groups:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.conv2d_transpose`: {c} input channels cannot be divided into groups={groups}",
            arg=0,
        )
    o: Any = opg * groups if type(opg) is int else AnyDim()
    if channels is not None and type(o) is int and o != channels:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.conv2d_transpose` has channels={channels}, but the weight gives {o} output channels",
            arg=1,
        )
    weight_dtype_of(r, data.dtype)

    def size(d: Any, k: Any, s: int, dil: int, before: int, after: int, extra: int, name: str) -> Any:
        if type(d) is not int or type(k) is not int:
            return AnyDim()
        v = (d - 1) * s - before - after + dil * (k - 1) + extra + 1
        if v <= 0:
            r.fail(
                codes.SHAPE_MISMATCH, f"`nn.conv2d_transpose`: the padding removes the whole output {name} ({v})", arg=0
            )
        return v

    oh = size(h, kh, sh, dh, pt, pb, oph, "height")
    ow = size(w, kw, sw, dw, pl, pr, opw, "width")
    dims = {"N": n, "C": o, "H": oh, "W": ow}
    r.set_result(TensorType(tuple(dims[x] for x in ol), r.attrs["out_dtype"] or data.dtype))
    return True


@register(
    "nn.conv2d_transpose",
    inputs=2,
    relation=conv2d_transpose_rel,
    attrs=CONV2D_TRANSPOSE_ATTRS,
    doc="Transposed 2-D convolution (the gradient of conv2d with respect to its data).",
)
def conv2d_transpose(args: Args, attrs: Attrs) -> Value:
    x, w = args
    dl, kl = attrs["data_layout"], attrs["kernel_layout"]
    ol = attrs["out_layout"] or dl
    dtype = np.dtype(attrs["out_dtype"] or x.dtype)
    x = np.transpose(x, [dl.index(c) for c in "NCHW"])
    w = np.transpose(w, [kl.index(c) for c in "IOHW"])
    out = conv2d_transpose_nchw(
        x,
        w,
        pair_of(attrs["strides"]),
        pads_2d(attrs["padding"]),
        pair_of(attrs["output_padding"]),
        pair_of(attrs["dilation"]),
        attrs["groups"],
        dtype,
    )
    return wrap(np.transpose(out, ["NCHW".index(c) for c in ol]), dtype)
