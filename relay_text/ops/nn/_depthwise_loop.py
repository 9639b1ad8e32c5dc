"""The compiled loop of `_depthwise` (imported only where numba is installed).

A module-level function, so that numba's disk cache keeps its machine code
between runs. It releases the interpreter lock, so the kernel threads can
run parts of one convolution at the same time.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

jit = numba.njit(cache=True, nogil=True, boundscheck=False, error_model="numpy")


@jit
def depthwise_planes(x: Any, weights: Any, out: Any, geometry: Any, lo: int, hi: int) -> None:
    """Output planes `lo` to `hi` (counted over image, then channel) of a
    depthwise convolution of NCHW `x` by `weights` (O, KH, KW) into NCHW
    `out`; output channel o reads input channel o // (O // C).

    `geometry` is (stride h, stride w, dilation h, dilation w, padding top,
    padding left). For each plane the padded input channel is written into
    a small buffer as its SH * SW phases (rows and columns taken every
    stride-th), HQ rows of WQ; in a phase every tap is a plain shift, so
    on a grid WQ wide a tap is one contiguous run of elements, which the
    compiler keeps in vector registers. The plane is summed over the taps
    in their order, and the grid's first OW columns of each row are the
    output's row. The buffer has a spare row: a run that starts late in
    its phase ends in it, in grid columns that are dropped."""
    c, h, wd = x.shape[1], x.shape[2], x.shape[3]
    o, kh, kw = weights.shape
    oh, ow = out.shape[2], out.shape[3]
    sh, sw, dh, dw, pt, pl = geometry[0], geometry[1], geometry[2], geometry[3], geometry[4], geometry[5]
    m = o // c
    wq = ow + ((kw - 1) * dw) // sw
    hq = oh + ((kh - 1) * dh) // sh + 1
    size = hq * wq
    length = oh * wq
    phases = np.zeros(sh * sw * size, dtype=out.dtype)  # (the padding stays zero: each plane writes the same inside)
    acc = np.empty(length, dtype=out.dtype)
    starts = np.empty(kh * kw, dtype=np.intp)
    for plane in range(lo, hi):
        image = plane // o
        channel = plane - image * o
        source = x[image, channel // m]
        for a in range(sh):
            # rows k of the phase whose input row a + sh * k - pt is inside the image
            top = min(max(0, (pt - a + sh - 1) // sh), hq)
            bottom = min(max(top, (h + pt - a + sh - 1) // sh), hq)
            for b in range(sw):
                base = (a * sw + b) * size
                # and its columns l whose input column b + sw * l - pl is inside
                first = min(max(0, (pl - b + sw - 1) // sw), wq)
                stop = min(max(first, (wd + pl - b + sw - 1) // sw), wq)
                left = b + sw * first - pl
                for k in range(top, bottom):
                    line = source[a + sh * k - pt]
                    into = phases[base + k * wq + first : base + k * wq + stop]
                    taken = line[left : left + sw * (stop - first) : sw]
                    for col in range(stop - first):
                        into[col] = taken[col]
        for i in range(kh):
            a, r = (i * dh) % sh, (i * dh) // sh
            for j in range(kw):
                b, q = (j * dw) % sw, (j * dw) // sw
                starts[i * kw + j] = (a * sw + b) * size + r * wq + q
        ws = weights[channel]
        if kh == 3 and kw == 3:
            w0, w1, w2, w3, w4, w5, w6, w7, w8 = (
                ws[0, 0],
                ws[0, 1],
                ws[0, 2],
                ws[1, 0],
                ws[1, 1],
                ws[1, 2],
                ws[2, 0],
                ws[2, 1],
                ws[2, 2],
            )
            r0 = phases[starts[0] : starts[0] + length]
            r1 = phases[starts[1] : starts[1] + length]
            r2 = phases[starts[2] : starts[2] + length]
            r3 = phases[starts[3] : starts[3] + length]
            r4 = phases[starts[4] : starts[4] + length]
            r5 = phases[starts[5] : starts[5] + length]
            r6 = phases[starts[6] : starts[6] + length]
            r7 = phases[starts[7] : starts[7] + length]
            r8 = phases[starts[8] : starts[8] + length]
            for p in range(length):
                acc[p] = (
                    ((((((w0 * r0[p] + w1 * r1[p]) + w2 * r2[p]) + w3 * r3[p]) + w4 * r4[p]) + w5 * r5[p]) + w6 * r6[p])
                    + w7 * r7[p]
                ) + w8 * r8[p]
        else:
            acc[:] = 0
            for t in range(kh * kw):
                run = phases[starts[t] : starts[t] + length]
                weight = ws[t // kw, t % kw]
                for p in range(length):
                    acc[p] += weight * run[p]
        result = out[image, channel]
        for y in range(oh):
            row = result[y]
            grid = acc[y * wq : y * wq + ow]
            for col in range(ow):
                row[col] = grid[col]
