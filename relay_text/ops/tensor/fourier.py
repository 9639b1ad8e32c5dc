"""Fourier transforms: dft and stft, as TVM defines them.

`dft(re, im, inverse=False)` transforms complex signals given as their real
and imaginary parts (two tensors of one shape and float dtype) along the
last axis: output n is the sum over k of x[k] * exp(-2 pi i n k / N), or
with `inverse=True` the sum of x[k] * exp(+2 pi i n k / N) divided by N. It
returns the real and the imaginary part of the result, computed in the
precision of the parts (float64 in double precision, float32 and narrower
in single precision).

`stft(x, window, n_fft=..., hop_length=..., win_length=..., normalized=False,
onesided=True)` takes a float signal, a vector or a batch of them (one per
row), and cuts it into frames starting every `hop_length` samples: frame m
begins at m * hop_length, and there are (length - n_fft) // hop_length + 1
of them. For frequency w (0 ... n_fft // 2 with `onesided`, else
0 ... n_fft - 1) and frame m, it sums window[t] * x[m * hop_length + t] *
exp(-2 pi i w t / win_length) over t < win_length, divided by sqrt(n_fft)
when `normalized`. The result (batch, frequencies, frames, 2) holds the real
part then the imaginary part (no batch axis for a vector signal); the
window may have any number type, the result has the signal's dtype.
"""

from __future__ import annotations

import math
from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType, TupleType
from .._checks import dim_plus, ranked, require_float, require_number
from .._np import np
from ..registry import Attr, KernelError, register
from ..relations import Relation, known_rank, relation, shape_text
from ..types import Args, Attrs, Value

# ---------------------------------------------------------------- dft


@relation("DFT")
def dft_rel(r: Relation) -> bool:
    """Two float tensors of one shape and dtype; the result is the pair of their types."""
    r.unify_dtypes(0, 1)
    require_float(r, 0, "the real part")
    re, im = r.tensor(0), r.tensor(1)
    if known_rank(re.shape) and not re.shape:
        r.fail(
            codes.SHAPE_MISMATCH,
            "`dft` transforms along the last axis and needs tensors of rank 1 or more, found a scalar",
            arg=0,
        )
    if not (known_rank(re.shape) and known_rank(im.shape)):
        return False
    if len(re.shape) != len(im.shape) or any(
        type(a) is int and type(b) is int and a != b for a, b in zip(re.shape, im.shape, strict=False)
    ):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`dft` needs real and imaginary parts of one shape, found {shape_text(re.shape)} and "
            f"{shape_text(im.shape)}",
            arg=1,
        )
    r.set_result(TupleType((re, im)))
    return True


@register(
    "dft",
    inputs=2,
    relation=dft_rel,
    attrs=(Attr("inverse", "bool", False),),
    doc="The discrete Fourier transform along the last axis, on real and imaginary parts.",
)
def dft(args: Args, attrs: Attrs) -> Value:
    re, im = args
    if re.shape != im.shape:
        raise KernelError(
            codes.RUNTIME_ERROR, f"dft: real part {re.shape} and imaginary part {im.shape} differ in shape"
        )
    if re.shape[-1] == 0:
        return re.copy(), im.copy()
    # In the precision of the signal, as TVM's kernel computes it: float64
    # parts in complex128, narrower ones in complex64 (numpy 2's FFT keeps
    # complex64; numpy 1 computes it in complex128 all the same).
    signal = np.empty(re.shape, dtype=np.complex128 if re.dtype == np.float64 else np.complex64)
    signal.real, signal.imag = re, im
    out = np.fft.ifft(signal, axis=-1) if attrs["inverse"] else np.fft.fft(signal, axis=-1)
    return out.real.astype(re.dtype), out.imag.astype(im.dtype)


# ---------------------------------------------------------------- stft


@relation("stft")
def stft_rel(r: Relation) -> bool:
    """(batch, frequencies, frames, 2), without batch for a vector signal."""
    n_fft, hop, win = r.attrs["n_fft"], r.attrs["hop_length"], r.attrs["win_length"]
    for key, value in (("n_fft", n_fft), ("hop_length", hop), ("win_length", win)):
        if value < 1:
            r.fail(codes.TYPE_MISMATCH, f"`stft` {key} must be 1 or more, found {value}")
    if win > n_fft:
        r.fail(codes.TYPE_MISMATCH, f"`stft` win_length ({win}) cannot exceed n_fft ({n_fft})")
    require_float(r, 0, "the signal")
    require_number(r, 1, "the window")
    x = ranked(r, 0, (1, 2), "a signal (a vector, or a matrix with one signal per row)")
    window = ranked(r, 1, (1,), "a window")
    if window is not None and type(window.shape[0]) is int and window.shape[0] < win:
        r.fail(
            codes.SHAPE_MISMATCH, f"`stft`: the window has {window.shape[0]} values, fewer than win_length={win}", arg=1
        )
    if x is None:
        return False
    length = x.shape[-1]
    if type(length) is int:
        if length < n_fft:
            r.fail(codes.SHAPE_MISMATCH, f"`stft`: the signal has {length} samples, fewer than n_fft={n_fft}", arg=0)
        frames: Any = (length - n_fft) // hop + 1
    else:
        frames = dim_plus(length, 1 - n_fft) if hop == 1 else AnyDim()
        if frames is None:
            return False
    shape = (n_fft // 2 + 1 if r.attrs["onesided"] else n_fft, frames, 2)
    r.set_result(TensorType(x.shape[:-1] + shape, x.dtype))
    return True


@register(
    "stft",
    inputs=2,
    relation=stft_rel,
    attrs=(
        Attr("n_fft", "int", -1),
        Attr("hop_length", "int", -1),
        Attr("win_length", "int", -1),
        Attr("normalized", "bool", False),
        Attr("onesided", "bool", True),
    ),
    doc="The short-time Fourier transform of a signal, by windowed frames.",
)
def stft(args: Args, attrs: Attrs) -> Value:
    x, window = args
    n_fft, hop, win = attrs["n_fft"], attrs["hop_length"], attrs["win_length"]
    length = x.shape[-1]
    if length < n_fft or window.shape[0] < win:
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"stft: {length} samples and a window of {window.shape[0]} do not fit n_fft={n_fft}, win_length={win}",
        )
    frames = (length - n_fft) // hop + 1
    starts = np.arange(frames) * hop
    batch = x.reshape(-1, length).astype(np.float64)
    cut = batch[:, starts[:, None] + np.arange(win)]  # (batch, frames, win)
    cut = cut * window[:win].astype(np.float64)
    freqs = n_fft // 2 + 1 if attrs["onesided"] else n_fft
    angle = 2 * math.pi * np.outer(np.arange(freqs), np.arange(win)) / win  # (freqs, win)
    real = np.einsum("bmt,wt->bwm", cut, np.cos(angle))
    imag = -np.einsum("bmt,wt->bwm", cut, np.sin(angle))
    out = np.stack([real, imag], axis=-1)
    if attrs["normalized"]:
        out /= math.sqrt(n_fft)
    return out.reshape(x.shape[:-1] + out.shape[1:]).astype(x.dtype)
