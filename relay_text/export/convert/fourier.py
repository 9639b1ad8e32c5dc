"""Fourier transforms: `dft` through ONNX's DFT on a trailing (real,
imaginary) axis, `stft` as frames times cosine and sine tables, both in
float64 as the numpy kernels compute them."""

from __future__ import annotations

import math

from . import OpContext, Unsupported, converter, np


@converter("dft", opset=17)
def dft(cx: OpContext, re: str, im: str) -> tuple[str, str]:
    rank = cx.rank(0)
    dtype = cx.dtype(0)
    if rank == 0:
        raise Unsupported("a scalar signal")
    pair = cx.node("Concat", [cx.unsqueeze(cx.cast(v, "float64"), [rank]) for v in (re, im)], axis=rank)  # (..., N, 2)
    inverse = int(bool(cx.attrs["inverse"]))
    if cx.opset >= 20:
        out = cx.node("DFT", [pair, "", cx.scalar(rank - 1, "int64")], inverse=inverse)
    else:
        out = cx.node("DFT", [pair], axis=rank - 1, inverse=inverse)
    parts = cx.multi_node("Split", [out, cx.ints([1, 1])], 2, axis=rank)
    real, imag = (cx.cast(cx.squeeze(p, [rank]), dtype) for p in parts)
    return real, imag


@converter("stft")
def stft(cx: OpContext, x: str, window: str) -> str:
    a = cx.attrs
    n_fft, hop, win = int(a["n_fft"]), int(a["hop_length"]), int(a["win_length"])
    shape = cx.shape(0)
    length = shape[-1]
    frames = (length - n_fft) // hop + 1
    freqs = n_fft // 2 + 1 if a["onesided"] else n_fft
    signal = cx.reshape(cx.cast(x, "float64"), [-1, length])
    table = np.arange(frames)[:, None] * hop + np.arange(win)[None, :]
    cut = cx.node("Gather", [signal, cx.const(table, "int64")], axis=1)  # (batch, frames, win)
    w = cx.node("Slice", [cx.cast(window, "float64"), cx.ints([0]), cx.ints([win])])
    cut = cx.node("Mul", [cut, w])
    angle = 2 * math.pi * np.outer(np.arange(freqs), np.arange(win)) / win  # (freqs, win), as the kernel
    real = cx.node("MatMul", [cut, cx.const(np.cos(angle).T)])  # (batch, frames, freqs)
    imag = cx.node("Neg", [cx.node("MatMul", [cut, cx.const(np.sin(angle).T)])])
    out = cx.node("Concat", [cx.unsqueeze(real, [3]), cx.unsqueeze(imag, [3])], axis=3)  # (batch, frames, freqs, 2)
    out = cx.node("Transpose", [out], perm=[0, 2, 1, 3])
    if a["normalized"]:
        out = cx.node("Div", [out, cx.scalar(math.sqrt(n_fft), "float64")])
    return cx.cast(cx.reshape(out, [*list(shape[:-1]), freqs, frames, 2]), cx.dtype(0))
