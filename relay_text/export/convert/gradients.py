"""Gradients: `nn.conv2d_backward_weight`, as the numpy kernel computes it
(one matrix product per window position of the strided data and the
output gradient, group by group)."""

from __future__ import annotations

from collections.abc import Sequence

from . import OpContext, converter, matrix_product, np_dtype
from .packed import relayout


@converter("nn.conv2d_backward_weight")
def conv2d_backward_weight(cx: OpContext, grad: str, data: str) -> str:
    from ...ops.nn._conv_nd import kernel_pads

    a = cx.attrs
    dtype = a["out_dtype"] or cx.dtype(0)
    g, (n, o, oh, ow) = relayout(cx, grad, cx.shape(0), a["data_layout"], "NCHW")
    x, (_, c, h, w) = relayout(cx, data, cx.shape(1), a["kernel_layout"], "NCHW")
    g, x = cx.cast(g, dtype), cx.cast(x, dtype)
    groups = int(a["groups"])

    def pair(v: Sequence[int]) -> tuple[int, int]:
        return (int(v[0]), int(v[0])) if len(v) == 1 else (int(v[0]), int(v[1]))

    (kh, kw), (sh, sw), (dh, dw) = pair(a["kernel_size"]), pair(a["strides"]), pair(a["dilation"])
    before, after = kernel_pads(tuple(int(p) for p in a["padding"]), 2)
    need_h = (kh - 1) * dh + sh * (oh - 1) + 1
    need_w = (kw - 1) * dw + sw * (ow - 1) + 1
    extra_h = max(0, need_h - (h + before[0] + after[0]))
    extra_w = max(0, need_w - (w + before[1] + after[1]))
    pads = [0, 0, before[0], before[1], 0, 0, after[0] + extra_h, after[1] + extra_w]
    if any(pads):
        x = cx.node("Pad", [x, cx.ints(pads), cx.scalar(0, np_dtype(dtype))], mode="constant")
    ipg = c // groups
    # (groups, O / groups, N * OH * OW), as the kernel lays the gradient out
    gg = cx.reshape(
        cx.node("Transpose", [cx.reshape(g, [n, groups, o // groups, oh * ow])], perm=[1, 2, 0, 3]),
        [groups, o // groups, n * oh * ow],
    )
    taps = []
    for i in range(kh):
        for j in range(kw):
            starts, ends = [i * dh, j * dw], [i * dh + sh * (oh - 1) + 1, j * dw + sw * (ow - 1) + 1]
            view = cx.node("Slice", [x, cx.ints(starts), cx.ints(ends), cx.ints([2, 3]), cx.ints([sh, sw])])
            v = cx.reshape(
                cx.node("Transpose", [cx.reshape(view, [n, groups, ipg, oh * ow])], perm=[1, 0, 3, 2]),
                [groups, n * oh * ow, ipg],
            )
            taps.append(cx.reshape(matrix_product(cx, gg, v, dtype), [o, ipg, 1]))
    out = cx.reshape(cx.node("Concat", taps, axis=2) if len(taps) > 1 else taps[0], [o, ipg, kh, kw])
    result, _ = relayout(cx, out, (o, ipg, kh, kw), "OIHW", a["out_layout"] or "OIHW")
    return cx.node("Identity", [result])
