"""Sliding-window operators ONNX has no single operator for, built tap by
tap as the numpy kernels compute them (one strided slice per position of
the window): `image.dilation2d` (max of data plus structuring element) and
`nn.correlation` (FlowNet's comparison of displaced patches)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from . import OpContext, converter, np, np_dtype
from .nn import to_layout


def _pads(pad: Sequence[int]) -> tuple[int, int, int, int]:
    from ...ops.nn.conv import pads_2d

    return pads_2d(tuple(int(p) for p in pad))


def taps(
    cx: OpContext,
    xp: str,
    kernel: tuple[int, int],
    out_hw: tuple[int, int],
    strides: tuple[int, int],
    dilation: tuple[int, int],
) -> Iterator[str]:
    """For each window position in row-major order, the (N, C, OH, OW)
    slice of the padded NCHW `xp` that it sees in every window."""
    (kh, kw), (oh, ow), (sh, sw), (dh, dw) = kernel, out_hw, strides, dilation
    for i in range(kh):
        for j in range(kw):
            starts = [i * dh, j * dw]
            ends = [i * dh + sh * (oh - 1) + 1, j * dw + sw * (ow - 1) + 1]
            yield cx.node("Slice", [xp, cx.ints(starts), cx.ints(ends), cx.ints([2, 3]), cx.ints([sh, sw])])


def _pad_hw(cx: OpContext, x: str, top: int, left: int, bottom: int, right: int, dtype: str) -> str:
    if not any((top, left, bottom, right)):
        return x
    return cx.node(
        "Pad", [x, cx.ints([0, 0, top, left, 0, 0, bottom, right]), cx.scalar(0, np_dtype(dtype))], mode="constant"
    )


@converter("image.dilation2d")
def dilation2d(cx: OpContext, data: str, weight: str) -> str:
    a = cx.attrs
    layout, klayout = a["data_layout"], a["kernel_layout"]
    dtype = a["out_dtype"] or cx.dtype(0)
    x = cx.cast(to_layout(cx, data, layout, "NCHW"), dtype)
    w = cx.cast(to_layout(cx, weight, klayout, "IHW"), dtype)
    top, left, bottom, right = _pads(a["padding"])
    shape = dict(zip(layout, cx.shape(0), strict=False))
    kshape = dict(zip(klayout, cx.shape(1), strict=False))
    kh, kw = kshape["H"], kshape["W"]
    (sh, sw), (dh, dw) = [int(v) for v in a["strides"][:2]], [int(v) for v in a["dilations"][:2]]
    oh = (shape["H"] + top + bottom - ((kh - 1) * dh + 1)) // sh + 1
    ow = (shape["W"] + left + right - ((kw - 1) * dw + 1)) // sw + 1
    xp = _pad_hw(cx, x, top, left, bottom, right, dtype)
    out = None
    for t, tap in enumerate(taps(cx, xp, (kh, kw), (oh, ow), (sh, sw), (dh, dw))):
        element = cx.reshape(
            cx.node("Slice", [w, cx.ints([t // kw, t % kw]), cx.ints([t // kw + 1, t % kw + 1]), cx.ints([1, 2])]),
            [1, -1, 1, 1],
        )
        value = cx.node("Add", [tap, element])
        out = value if out is None else cx.node("Max", [out, value])
    assert out is not None  # (a window has at least one tap)
    return to_layout(cx, out, "NCHW", layout)


@converter("nn.correlation")
def correlation(cx: OpContext, x: str, y: str) -> str:
    a = cx.attrs
    k, s1, s2, md = int(a["kernel_size"]), int(a["stride1"]), int(a["stride2"]), int(a["max_displacement"])
    top, left, bottom, right = _pads(a["padding"])
    disp = md // s2
    d = 2 * disp + 1
    _n, c, h, w = cx.shape(0)
    dtype = cx.dtype(0)
    border = md + (k - 1) // 2
    oh = -(-(h + top + bottom - 2 * border) // s1)
    ow = -(-(w + left + right - 2 * border) // s1)
    xp = _pad_hw(cx, x, top, left, bottom, right, dtype)
    yp = _pad_hw(cx, y, top, left, bottom, right, dtype)
    ph, pw = h + top + bottom, w + left + right
    channels = []
    for q in range(d * d):
        dy, dx = (q // d - disp) * s2, (q % d - disp) * s2
        rows = min(ph - md, ph - (md + dy))
        cols = min(pw - md, pw - (md + dx))
        first = cx.node("Slice", [xp, cx.ints([md, md]), cx.ints([md + rows, md + cols]), cx.ints([2, 3])])
        second = cx.node(
            "Slice", [yp, cx.ints([md + dy, md + dx]), cx.ints([md + dy + rows, md + dx + cols]), cx.ints([2, 3])]
        )
        if a["is_multiply"]:
            term = cx.node("Mul", [first, second])
        else:
            term = cx.node("Abs", [cx.node("Sub", [first, second])])
        summed = cx.reduce("ReduceSum", term, [1], True)  # (N, 1, rows, cols)
        window = list(taps(cx, summed, (k, k), (oh, ow), (s1, s1), (1, 1)))
        acc = window[0]
        for tap in window[1:]:
            acc = cx.node("Add", [acc, tap])
        channels.append(acc)
    out = cx.node("Concat", channels, axis=1) if len(channels) > 1 else channels[0]
    div = k * k * c
    if np.dtype(np_dtype(dtype)).kind in "iu":  # sign(out) * (|out| // div)
        return cx.node(
            "Mul", [cx.node("Sign", [out]), cx.node("Div", [cx.node("Abs", [out]), cx.scalar(div, np_dtype(dtype))])]
        )
    return cx.node("Div", [out, cx.scalar(div, np_dtype(dtype))])
