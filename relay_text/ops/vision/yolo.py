"""`vision.yolo_reorg`: YOLOv2's reorg (passthrough) layer, darknet's
`reorg_cpu` with forward=0, as TOPI computes it (topi/vision/reorg.h).

`yolo_reorg(data, stride=1)` turns `[N, C, H, W]` into `[N, C * s * s,
H / s, W / s]` with `s = stride`. It is a permutation of each batch's
elements: read the batch's `C * H * W` elements as an `[C / s^2, H * s,
W * s]` block `X`; output element `k, j, i` (counting on an `[C, H, W]`
grid, with `c = k % (C / s^2)` and `o = k // (C / s^2)`) is
`X[c, j * s + o // s, i * s + o % s]`; the `[C, H, W]` result is then read
as `[C * s * s, H / s, W / s]`. `C` must be a multiple of `s * s` and `H`
and `W` multiples of `s`. Every dtype is allowed. (TOPI's compute
multiplies the batch offset by `s * s` once too often, which only batch 0
survives; every batch here is reorganised like batch 0, as darknet does.)
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from .._np import np
from .._vision import rank_of, times
from ..registry import Attr, register
from ..relations import Relation, relation, static
from ..types import Args, Attrs, Value


@relation("YoloReorg")
def yolo_reorg_rel(r: Relation) -> bool:
    s = r.attrs["stride"]
    if s < 1:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` stride must be positive, found {s}")
    shape = rank_of(r, 0, 4, "4-D data (batch, channels, height, width)")
    if shape is None:
        return False
    n, c, h, w = shape
    for name, dim, step in (("channels", c, s * s), ("height", h, s), ("width", w, s)):
        v = static(dim)
        if v is not None and v % step:
            r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` with stride {s} needs {name} divisible by {step}, found {v}", arg=0)
    if s == 1:
        r.set_result(TensorType(shape, r.tensor(0).dtype))
        return True

    def over(dim: Any) -> Any:
        v = static(dim)
        return v // s if v is not None else AnyDim()

    r.set_result(TensorType((n, times(c, s * s), over(h), over(w)), r.tensor(0).dtype))
    return True


@register(
    "vision.yolo_reorg",
    inputs=1,
    relation=yolo_reorg_rel,
    attrs=(Attr("stride", "int", 1),),
    doc="YOLOv2's reorg: move stride x stride blocks of pixels into channels.",
)
def yolo_reorg(args: Args, attrs: Attrs) -> Value:
    (x,) = args
    s = attrs["stride"]
    n, c, h, w = x.shape
    blocks = x.reshape(n, c // (s * s), h, s, w, s)  # [b, c2, j, a, i, e] = X[c2, j*s + a, i*s + e]
    out = blocks.transpose(0, 3, 5, 1, 2, 4)  # offset a*s + e, then c2, j, i
    return np.ascontiguousarray(out).reshape(n, c * s * s, h // s, w // s)
