"""The depthwise convolution kernel: `nn.conv2d` with one input channel per
group (`groups` equal to the input channels, a channel multiplier
`O / C` allowed), NCHW data and an OIHW weight, as `conv.conv2d_nchw`
calls it."""

from __future__ import annotations

from typing import Any

from ... import limits
from ...compiled import Compiled, plain
from .._np import np
from .._threads import ranges, run_parts, thread_count
from ..types import Shape

TAP_BLOCK = 1 << 17  # elements of copied taps per block (measured best of 4K to 4M on MobileNet's layers)

WARM_TAPS = 1 << 29
"""Multiply-adds (output elements times taps) numpy computes before the
compiled loop is loaded (see `compiled`): about half a second of numpy's
depthwise work, about what loading numba takes."""

LOOP_PIECE = 1 << 21
"""Multiply-adds of the compiled loop per thread, at least (about 0.15 ms
of its work): a smaller piece waits longer for a pool thread than it
saves."""


def depthwise_nchw(x: Any, pads: Shape, w: Any, out_hw: Shape, strides: Shape, dilation: Shape, dtype: Any) -> Any:
    """One input channel per group (a channel multiplier m = O / C is
    allowed): by the compiled loop of the `fast` extra where it is loaded
    (`_loop`), else by numpy."""
    work = x.shape[0] * w.shape[0] * out_hw[0] * out_hw[1] * w.shape[2] * w.shape[3]
    return _depthwise(x, pads, w, out_hw, strides, dilation, dtype, _loop(dtype, work))


def _loop(dtype: Any, work: int) -> Any:
    """The compiled loop for a convolution of `work` multiply-adds in
    `dtype`, or None where numpy computes it (integers, float16, numba
    absent, or before numpy has done WARM_TAPS of them)."""
    if np.dtype(dtype) not in (np.float32, np.float64):
        return None
    return LOOP.after(work)


def _depthwise(
    x: Any, pads: Shape, w: Any, out_hw: Shape, strides: Shape, dilation: Shape, dtype: Any, loop: Any
) -> Any:
    """The convolution, by `loop` (the compiled loop) or, where it is None, by numpy.

    Each output channel is the sum over the KH * KW taps of its weight times
    a shifted view of its input channel. The views are made one-dimensional
    per channel, so that numpy's loops run over long rows: with stride s the
    padded input is split into its s * s phases (rows and columns taken every
    s-th), in which every tap is a plain shift; a shift of a row-major image
    of width Wq is a contiguous slice of its flattened pixels, and the sum
    is computed on an output grid Wq wide, whose extra columns are dropped
    as each block is copied into the (contiguous) result. For a block of
    channels, or of output rows of one channel when a whole channel's taps
    would not fit (TAP_BLOCK elements, 512 KB of float32: larger blocks
    leave the cache, smaller ones cost more calls than they save), the taps
    are copied side by side and each channel's output is one vector
    product; the copy never exceeds the block, whatever the image size.

    The blocks run on the calling thread alone. Spread over the kernel
    threads, each block's two numpy calls (tens of microseconds each) wait
    on the other thread for the interpreter lock: on two cores MobileNet's
    depthwise layers took 1.3x to 1.5x longer with two threads than with
    one (batch 1 and batch 4), and the whole model 39.6 ms against 30.9.

    The compiled loop (`_depthwise_loop`) makes the same phases, one
    channel at a time into a buffer that stays in cache, and sums each
    output plane over its taps in vector registers; it releases the
    interpreter lock, so its planes are spread over the kernel threads."""
    if loop is not None:
        return _by_loop(loop, x, pads, w, out_hw, strides, dilation, dtype)
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    m = o // c
    oh, ow = out_hw
    sh, sw = strides
    dh, dw = dilation
    pt, pl, pb, pr = pads
    hp, wp = h + pt + pb, wd + pl + pr
    hq, wq = -(-hp // sh), -(-wp // sw)
    # The padded input, its phases side by side, with one spare row: the
    # shifted slices of the last output row run past the image by less than
    # a row (into columns that are dropped).
    limits.check_allocation(
        n * c * m * (hq + 1) * sh * wq * sw, np.dtype(dtype).itemsize, "the padded input of a convolution"
    )
    if sh == 1 and sw == 1:
        # only the border is zeroed: the image is written once
        grid = np.empty((n, c, hq + 1, wq), dtype=dtype)
        for border in (
            grid[:, :, :pt],
            grid[:, :, pt + h :],
            grid[:, :, pt : pt + h, :pl],
            grid[:, :, pt : pt + h, pl + wd :],
        ):
            border.fill(0)
        grid[:, :, pt : pt + h, pl : pl + wd] = x
        flat = grid.reshape(n, c, 1, 1, (hq + 1) * wq)
    else:
        # each phase copied straight from the input: padded row r + sh * k
        # (column q + sw * l) of the input is row k (column l) of phase (r, q)
        phases = np.zeros((n, c, sh, sw, hq + 1, wq), dtype=dtype)
        for r in range(sh):
            k0 = -(-(pt - r) // sh) if pt > r else 0
            for q in range(sw):
                l0 = -(-(pl - q) // sw) if pl > q else 0
                src = x[:, :, r + sh * k0 - pt :: sh, q + sw * l0 - pl :: sw]
                phases[:, :, r, q, k0 : k0 + src.shape[2], l0 : l0 + src.shape[3]] = src
        flat = phases.reshape(n, c, sh, sw, (hq + 1) * wq)
    taps_w = w.reshape(o, kh * kw).astype(dtype, copy=False)
    length = oh * wq
    out = np.empty((n, o, oh, ow), dtype=dtype)
    shifts = []
    for i in range(kh):
        for j in range(kw):
            a, r = divmod(i * dh, sh)[::-1]
            b, q = divmod(j * dw, sw)[::-1]
            shifts.append((a, b, r * wq + q))
    if m > 1:  # output channel g * m + j reads input channel g
        flat = np.repeat(flat, m, axis=1)
    taps = len(shifts)
    # blocks of channels, or of output rows of one channel, whose taps fill TAP_BLOCK elements
    if length * taps <= TAP_BLOCK:
        block, rows = max(1, min(o, TAP_BLOCK // (length * taps))), oh
    else:
        block, rows = 1, max(1, min(oh, TAP_BLOCK // (wq * taps)))
    weights = taps_w.reshape(o, 1, taps)
    itemsize = flat.itemsize
    # stride 1: all taps of an image as one view, made once (`as_strided` costs more than a small block's copy)
    views = [
        np.lib.stride_tricks.as_strided(
            flat[img, :, 0, 0],
            shape=(o, kh, kw, length),
            strides=(flat.strides[1], dh * wq * itemsize, dw * itemsize, itemsize),
            writeable=False,
        )
        for img in range(n)
        if sh == 1 and sw == 1
    ]

    # per block: its taps side by side (a small im2col that stays in
    # cache), then one vector product per channel
    size = min(block, o) * rows * wq
    cols_buf = np.empty(size * taps, dtype=dtype)
    sums_buf = np.empty(size, dtype=dtype)
    for img in range(n):
        for c0 in range(0, o, block):
            c1 = min(o, c0 + block)
            for r0 in range(0, oh, rows):
                r1 = min(oh, r0 + rows)
                p0, p1 = r0 * wq, r1 * wq
                span = p1 - p0
                part = cols_buf[: (c1 - c0) * taps * span].reshape(c1 - c0, taps, span)
                if views:
                    np.copyto(part.reshape(c1 - c0, kh, kw, span), views[img][c0:c1, :, :, p0:p1])
                else:
                    for k, (a, b, off) in enumerate(shifts):
                        np.copyto(part[:, k], flat[img, c0:c1, a, b, off + p0 : off + p1])
                got = sums_buf[: (c1 - c0) * span].reshape(c1 - c0, 1, span)
                np.matmul(weights[c0:c1], part, out=got)
                # the output grid's extra columns dropped, while in cache
                out[img, c0:c1, r0:r1] = got.reshape(c1 - c0, r1 - r0, wq)[:, :, :ow]

    return out


def _by_loop(loop: Any, x: Any, pads: Shape, w: Any, out_hw: Shape, strides: Shape, dilation: Shape, dtype: Any) -> Any:
    """The convolution by the compiled loop, its output planes spread over
    the kernel threads (the loop releases the interpreter lock; each plane
    is computed alone, so the split changes no bits)."""
    n = x.shape[0]
    o, _, kh, kw = w.shape
    oh, ow = out_hw
    x = plain(np.ascontiguousarray(x, dtype=dtype))  # (the arrays in C order `_checked` compiled the loop for)
    weights = np.array(w.reshape(o, kh, kw), dtype=dtype)  # (a copy: the weights are few)
    geometry = np.array([*strides, *dilation, pads[0], pads[1]], dtype=np.intp)
    out = np.empty((n, o, oh, ow), dtype=dtype)
    planes = n * o
    pieces = max(1, min(thread_count(), planes * oh * ow * kh * kw // LOOP_PIECE))
    run_parts(loop, [(x, weights, out, geometry, lo, hi) for lo, hi in ranges(planes, pieces)])
    return out


def _checked() -> Any:
    """The compiled loop, if it computes convolutions as numpy does. The
    probes have small integer values, so every sum is exact in both
    orders and the results must agree bit for bit: a 3x3 window (the
    loop's own case) and another, strides and dilations of 1 and more,
    uneven padding, a channel multiplier, two images, in float32 and
    float64."""
    from ._depthwise_loop import depthwise_planes

    rng = np.random.default_rng(11)
    cases = [  # (window, strides, dilation, pads, channel multiplier)
        ((3, 3), (1, 1), (1, 1), (1, 1, 1, 1), 1),
        ((3, 3), (2, 2), (1, 1), (0, 1, 2, 0), 2),
        ((3, 2), (2, 3), (2, 1), (2, 0, 1, 3), 1),
    ]
    for dtype in (np.float32, np.float64):
        for (kh, kw), strides, dilation, pads, m in cases:
            x = rng.integers(-8, 9, size=(2, 3, 9, 11)).astype(dtype)
            w = rng.integers(-4, 5, size=(3 * m, 1, kh, kw)).astype(dtype)
            oh = (9 + pads[0] + pads[2] - dilation[0] * (kh - 1) - 1) // strides[0] + 1
            ow = (11 + pads[1] + pads[3] - dilation[1] * (kw - 1) - 1) // strides[1] + 1
            probe = (x, pads, w, (oh, ow), strides, dilation, dtype)
            if not np.array_equal(_depthwise(*probe, depthwise_planes), _depthwise(*probe, None)):
                return None
    return depthwise_planes


LOOP: Compiled[Any] = Compiled(_checked, warm=WARM_TAPS)
"""The compiled loop of the process (numba's dispatcher carries no static types)."""


def available() -> bool:
    """Whether the compiled loop is used (loading and checking it now, once
    per process, if that was not done yet)."""
    return LOOP.available()
