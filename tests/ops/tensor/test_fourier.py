"""Fourier transforms: dft and stft.

Attributes are TVM's (DFTAttrs, StftAttrs in include/tvm/relay/attrs/
transform.h), result types follow DFTRel and STFTRel
(src/relay/op/tensor/transform.cc), and the kernels are checked against
torch.fft / torch.stft and against the plain loops of topi/signal.py's
definition.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family("dft", "stft")


def torch():
    return torch_reference().torch


RESULTS = [
    ("dft(%a, %b)", [T("(2, 8)"), T("(2, 8)")], f"({T('(2, 8)')}, {T('(2, 8)')})"),
    (
        "dft(%a, %b, inverse=True)",
        [T("(3, ?, 5)", "float64"), T("(3, ?, 5)", "float64")],
        f"({T('(3, ?, 5)', 'float64')}, {T('(3, ?, 5)', 'float64')})",
    ),
    # TestSTFT in tests/python/relay/test_op_level3.py
    ("stft(%a, %b, n_fft=3, hop_length=3, win_length=3)", [T("(1, 6)"), T("(3)", "int32")], T("(1, 2, 2, 2)")),
    (
        "stft(%a, %b, n_fft=2, hop_length=1, win_length=2, normalized=True)",
        [T("(2, 9)"), T("(2)", "int32")],
        T("(2, 2, 8, 2)"),
    ),
    (
        "stft(%a, %b, n_fft=2, hop_length=1, win_length=2, onesided=False)",
        [T("(2, 9)"), T("(2)", "int32")],
        T("(2, 2, 8, 2)"),
    ),
    ("stft(%a, %b, n_fft=8, hop_length=2, win_length=8, onesided=False)", [T("(20)"), T("(8)")], T("(8, 7, 2)")),
    ("stft(%a, %b, n_fft=4, hop_length=1, win_length=4)", [T("(?, ?)"), T("(?)")], T("(?, 3, ?, 2)")),
    ("stft(%a, %b, n_fft=4, hop_length=2, win_length=4)", [T("(3, ?)"), T("(4)")], T("(3, 3, ?, 2)")),
]


@pytest.mark.parametrize("call, types, expected", RESULTS, ids=[c[0] for c in RESULTS])
def test_result_type(call: str, types: list[str], expected: str) -> None:
    """STFTRel: (batch, n_fft // 2 + 1 or n_fft, (length - n_fft) // hop + 1, 2)."""
    assert FAMILY.result_type(call, types) == expected


ERRORS = [
    (
        "dft(%a, %b)",
        [T("(2, 8)"), T("(2, 4)")],
        "shape-mismatch",
        "`dft` needs real and imaginary parts of one shape, found (2, 8) and (2, 4)",
        "%b",
    ),
    (
        "dft(%a, %b)",
        [T("(2, 8)"), T("(2, 8)", "float64")],
        "type-mismatch",
        "`dft` needs operands of one dtype, found `float32` and `float64`",
        "%b",
    ),
    (
        "dft(%a, %b)",
        [T("(8)", "int32"), T("(8)", "int32")],
        "type-mismatch",
        "`dft`: the real part must have a floating-point dtype, found `int32`",
        "%a",
    ),
    (
        "dft(%a, %b)",
        [T("()"), T("()")],
        "shape-mismatch",
        "`dft` transforms along the last axis and needs tensors of rank 1 or more, found a scalar",
        "%a",
    ),
    ("stft(%a, %b)", [T("(9)"), T("(2)")], "type-mismatch", "`stft` n_fft must be 1 or more, found -1", None),
    (
        "stft(%a, %b, n_fft=2, hop_length=1, win_length=3)",
        [T("(9)"), T("(3)")],
        "type-mismatch",
        "`stft` win_length (3) cannot exceed n_fft (2)",
        None,
    ),
    (
        "stft(%a, %b, n_fft=4, hop_length=1, win_length=4)",
        [T("(2, 3)"), T("(4)")],
        "shape-mismatch",
        "`stft`: the signal has 3 samples, fewer than n_fft=4",
        "%a",
    ),
    (
        "stft(%a, %b, n_fft=4, hop_length=1, win_length=4)",
        [T("(9)"), T("(3)")],
        "shape-mismatch",
        "`stft`: the window has 3 values, fewer than win_length=4",
        "%b",
    ),
    (
        "stft(%a, %b, n_fft=4, hop_length=1, win_length=4)",
        [T("(2, 2, 9)"), T("(4)")],
        "shape-mismatch",
        "`stft` needs a signal (a vector, or a matrix with one signal per row) of rank 1 or 2, found shape (2, 2, 9)",
        "%a",
    ),
    (
        "stft(%a, %b, n_fft=4, hop_length=1, win_length=4)",
        [T("(9)", "int32"), T("(4)")],
        "type-mismatch",
        "`stft`: the signal must have a floating-point dtype, found `int32`",
        "%a",
    ),
]


@pytest.mark.parametrize("call, types, code, message, at", ERRORS, ids=[f"{e[0]} {e[1]}" for e in ERRORS])
def test_rejected(call: str, types: list[str], code: str, message: str, at: str | None) -> None:
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    assert d.span.text == (at if at is not None else call)


def test_defaults_are_tvms() -> None:
    """StftAttrs: n_fft, hop_length, win_length -1, normalized false, onesided true; DFTAttrs: inverse false."""
    from relay_text.ops import get

    assert {a.name: a.default for a in get("stft").attrs} == {
        "n_fft": -1,
        "hop_length": -1,
        "win_length": -1,
        "normalized": False,
        "onesided": True,
    }
    assert {a.name: a.default for a in get("dft").attrs} == {"inverse": False}


# ---------------------------------------------------------------- dft


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("inverse", [False, True])
def test_dft_against_torch(dtype: str, inverse: bool) -> None:
    """topi/signal.py: the sum of x[k] exp(-+2 pi i n k / N) along the last axis, divided by N when inverse."""
    th = torch()
    rng = np.random.default_rng(0)
    re = rng.standard_normal((3, 2, 7)).astype(dtype)
    im = rng.standard_normal((3, 2, 7)).astype(dtype)
    z = th.complex(th.from_numpy(re), th.from_numpy(im))
    expected = th.fft.ifft(z, dim=-1) if inverse else th.fft.fft(z, dim=-1)
    out_re, out_im = FAMILY.run("dft", re, im, inverse=inverse)
    tol = 1e-5 if dtype == "float32" else 1e-12
    same(out_re, expected.real.numpy(), rtol=tol, atol=tol)
    same(out_im, expected.imag.numpy(), rtol=tol, atol=tol)


def test_dft_by_hand() -> None:
    re = np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32)
    out_re, out_im = FAMILY.run("dft", re, np.zeros(4, dtype=np.float32))
    same(out_re, np.ones(4, dtype=np.float32))
    same(out_im, np.zeros(4, dtype=np.float32))
    # [0, 1, 0, 0] transforms to exp(-2 pi i n / 4) = 1, -i, -1, i
    out_re, out_im = FAMILY.run("dft", np.array([0.0, 1.0, 0.0, 0.0], dtype=np.float32), np.zeros(4, dtype=np.float32))
    same(out_re, np.array([1.0, 0.0, -1.0, 0.0], dtype=np.float32))
    same(out_im, np.array([0.0, -1.0, 0.0, 1.0], dtype=np.float32))


# ---------------------------------------------------------------- stft


def stft_by_loops(
    x: np.ndarray, window: np.ndarray, n_fft: int, hop: int, win: int, normalized: bool, onesided: bool
) -> np.ndarray:
    """topi/signal.py's definition, element by element."""
    rows = n_fft // 2 + 1 if onesided else n_fft
    frames = (x.shape[-1] - n_fft) // hop + 1
    out = np.zeros((x.shape[0], rows, frames, 2))
    for b in range(x.shape[0]):
        for w in range(rows):
            for m in range(frames):
                for t in range(win):
                    sample = float(window[t]) * float(x[b, m * hop + t])
                    out[b, w, m, 0] += sample * math.cos(2 * math.pi * w * t / win)
                    out[b, w, m, 1] -= sample * math.sin(2 * math.pi * w * t / win)
                if normalized:
                    out[b, w, m] /= math.sqrt(n_fft)
    return out


def test_stft_docstring_example() -> None:
    """python/tvm/relay/op/transform.py's stft example: [1 ... 6], window [4, 3, 2], n_fft 3, hop 3."""
    out = FAMILY.run(
        "stft",
        np.arange(1, 7, dtype=np.float32),
        np.array([4, 3, 2], dtype=np.int32),
        n_fft=3,
        hop_length=3,
        win_length=3,
    )
    expected = [[[16.0, 0.0], [43.0, 0.0]], [[-2.0, 0.0], [2.5, -2.5980762]]]
    same(out, np.array(expected, dtype=np.float32), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "n_fft, hop, win, normalized, onesided",
    [
        (3, 3, 3, False, True),
        (2, 1, 2, False, True),
        (2, 1, 2, True, True),
        (2, 1, 2, False, False),
        (6, 2, 4, True, False),
    ],
)
def test_stft_against_loops(n_fft: int, hop: int, win: int, normalized: bool, onesided: bool) -> None:
    """TestSTFT's cases (test_op_level3.py), and a window shorter than n_fft."""
    x = np.array([[1, 2, 3, 4, 5, 6, 7, 8, 9], [2, 5, 7, 8, 5, 6, 7, 3, 2]], dtype=np.float32)
    window = np.array([1, 3, 2, 5][:win] + [1] * max(0, win - 4), dtype=np.int32)
    out = FAMILY.run(
        "stft", x, window, n_fft=n_fft, hop_length=hop, win_length=win, normalized=normalized, onesided=onesided
    )
    same(out, stft_by_loops(x, window, n_fft, hop, win, normalized, onesided).astype(np.float32), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("onesided", [False, True])
def test_stft_against_torch(normalized: bool, onesided: bool) -> None:
    """With win_length = n_fft the definition is torch.stft's without centring."""
    th = torch()
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 40)).astype(np.float64)
    window = rng.uniform(0.5, 1.5, 8)
    z = th.stft(
        th.from_numpy(x),
        n_fft=8,
        hop_length=3,
        win_length=8,
        window=th.from_numpy(window),
        center=False,
        normalized=normalized,
        onesided=onesided,
        return_complex=True,
    )
    out = FAMILY.run("stft", x, window, n_fft=8, hop_length=3, win_length=8, normalized=normalized, onesided=onesided)
    same(out, th.view_as_real(z).numpy(), rtol=1e-9, atol=1e-9)
    vector = FAMILY.run(
        "stft",
        x[0].astype(np.float32),
        window,
        n_fft=8,
        hop_length=3,
        win_length=8,
        normalized=normalized,
        onesided=onesided,
    )
    same(vector, th.view_as_real(z[0]).numpy().astype(np.float32), rtol=1e-4, atol=1e-4)


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()


@pytest.mark.skipif(int(np.__version__.split(".")[0]) < 2, reason="numpy 1 computes every FFT in complex128")
def test_dft_computes_in_the_precision_of_its_parts() -> None:
    """topi/signal.py computes in the dtype of the signal: float32 parts are
    transformed in single precision (with its rounding: the Nyquist term of
    this inverse transform is not exactly 0), float64 parts in double."""
    re = np.arange(10, dtype=np.float32)
    im = np.zeros(10, dtype=np.float32)
    out_re, out_im = FAMILY.run("dft", re, im, inverse=True)
    single = np.fft.ifft(re.astype(np.complex64))
    assert single.dtype == np.complex64 and single.imag[5] != 0
    assert (
        out_re.dtype == np.float32
        and out_im.tobytes() == single.imag.tobytes()
        and out_re.tobytes() == single.real.tobytes()
    )
    out_re, out_im = FAMILY.run("dft", re.astype(np.float64), im.astype(np.float64), inverse=True)
    double = np.fft.ifft(re.astype(np.complex128))
    assert out_im.tobytes() == double.imag.tobytes()
