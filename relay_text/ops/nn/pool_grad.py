"""Gradients of 2-D pooling: `nn.max_pool2d_grad` and `nn.avg_pool2d_grad`.

`nn.max_pool2d_grad(out_grad, data, pool_size, strides, padding, layout,
ceil_mode)` (and `nn.avg_pool2d_grad`, which adds `count_include_pad`) take
the attributes of the pooling they differentiate and return a tensor of
the data's type: the gradient of the pooling's result, `out_grad`, carried
back to the data.

* Max: each window hands its gradient to the cell that holds its maximum
  (on ties, the first cell in the layout's order; padding holds the
  lowest value of the dtype, and a gradient handed to padding is lost).
* Mean: each window spreads `out_grad / n` over every cell it covers,
  where `n` is `pool_size[0] * pool_size[1]` with `count_include_pad`, and
  otherwise the number of covered cells inside the data (at least 1);
  integer gradients divide truncating toward zero before they are added.

As in TVM, the window geometry ignores `dilation` (the attribute is
accepted, as part of the pooling's attributes, and unused), `ceil_mode`
adds `strides - 1` cells of padding at the bottom and right, and padding
takes 1, 2 or 4 values as for `nn.max_pool2d`. `out_grad` has the pooled
shape: one cell per window, in the data's layout; both tensors share a
dtype.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType
from .._np import np, wrap
from .conv import pads_2d, pair_of
from ._attrs import AVG_POOL2D_ATTRS, MAX_POOL2D_ATTRS
from .nn import _layout, padding4, pair, window_out
from .pool import trunc_divide
from .pool1d3d import lowest
from ..registry import register
from ..relations import Relation, known_rank, relation, require_numeric, shape_text
from ..types import Args, Attrs, Shape, Value


@relation("MaxPool2DGrad")
def pool2d_grad_rel(r: Relation) -> bool:
    """(out_grad, data) -> data's type; out_grad has one cell per pooling window."""
    layout = _layout(r, "layout", "NCHW")
    require_numeric(r, 0)
    require_numeric(r, 1)
    data = r.tensor(1)
    if not known_rank(data.shape):
        return False
    if len(data.shape) != 4:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs 4-D data ({layout}), found {shape_text(data.shape)}", arg=1)
    kh, kw = pair(r, "pool_size")
    sh, sw = pair(r, "strides")
    pair(r, "dilation")
    pt, pl, pb, pr = padding4(r, r.attrs["padding"])
    ceil = r.attrs["ceil_mode"]
    h, w = data.shape[layout.index("H")], data.shape[layout.index("W")]
    oh = window_out(h, kh, sh, 1, pt + pb, ceil)
    ow = window_out(w, kw, sw, 1, pl + pr, ceil)
    for name, v, size in (("height", oh, h), ("width", ow, w)):
        if type(v) is int and v <= 0:
            r.fail(codes.SHAPE_MISMATCH, f"`{r.op}`: the window does not fit: the input {name} is {size}", arg=1)
    r.unify_dtypes(0, 1)
    dims = {"N": data.shape[layout.index("N")], "C": data.shape[layout.index("C")], "H": oh, "W": ow}
    pooled = tuple(dims[x] for x in layout)
    grad = r.tensor(0)
    if known_rank(grad.shape):
        if len(grad.shape) != 4:
            r.fail(
                codes.SHAPE_MISMATCH, f"`{r.op}` needs a 4-D out_grad ({layout}), found {shape_text(grad.shape)}", arg=0
            )
        for axis, (g, p) in enumerate(zip(grad.shape, pooled, strict=False)):
            if type(g) is int and type(p) is int and g != p:
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`{r.op}`: out_grad has size {g} on axis {axis} ({layout[axis]}), but the pooling gives {p}",
                    arg=0,
                    notes=[f"the data {shape_text(data.shape)} pools to {shape_text(pooled)}"],
                )
    if known_rank(grad.shape):  # keep what out_grad says where the pooled size is not a number
        pooled = tuple(p if type(p) is int else g for g, p in zip(grad.shape, pooled, strict=False))
    r.refine(0, TensorType(pooled, data.dtype))
    r.set_result(data)
    return True


# (kh, kw), (sh, sw), (top, left, bottom, right), (out_h, out_w)
Geometry = tuple[tuple[int, int], tuple[int, int], tuple[int, int, int, int], tuple[int, int]]


def _geometry(x: Any, attrs: Attrs) -> Geometry:
    (kh, kw), (sh, sw) = pair_of(attrs["pool_size"]), pair_of(attrs["strides"])
    pt, pl, pb, pr = pads_2d(attrs["padding"])
    if attrs["ceil_mode"]:
        pb, pr = pb + sh - 1, pr + sw - 1
    h, w = x.shape[2], x.shape[3]
    oh, ow = (h + pt + pb - kh) // sh + 1, (w + pl + pr - kw) // sw + 1
    return (kh, kw), (sh, sw), (pt, pl, pb, pr), (oh, ow)


def _window_view(a: Any, i: int, j: int, strides: Shape, out: tuple[int, int]) -> tuple[Any, ...]:
    """The index of cell (i, j) of every window, in a padded NCHW array."""
    (sh, sw), (oh, ow) = strides, out
    return (slice(None), slice(None), slice(i, i + sh * (oh - 1) + 1, sh), slice(j, j + sw * (ow - 1) + 1, sw))


def _grad(args: Args, attrs: Attrs, kind: str) -> Value:
    og, x = args
    layout = attrs["layout"]
    to_nchw = [layout.index(c) for c in "NCHW"]
    og, xt = np.transpose(og, to_nchw), np.transpose(x, to_nchw)
    (kh, kw), strides, (pt, pl, pb, pr), out = _geometry(xt, attrs)
    n, c, h, w = xt.shape
    gp = np.zeros((n, c, h + pt + pb, w + pl + pr), dtype=x.dtype)
    cells = [(i, j) for i in range(kh) for j in range(kw)]
    if layout.index("W") < layout.index("H"):  # ties go to the lower flat index of the layout
        cells.sort(key=lambda ij: (ij[1], ij[0]))
    if kind == "max":
        xp = np.pad(xt, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=lowest(x.dtype))
        best: Any = None
        best_cell: Any = None
        for k, (i, j) in enumerate(cells):
            v = xp[_window_view(xp, i, j, strides, out)]
            if best is None:
                best, best_cell = v.copy(), np.zeros(v.shape, dtype=np.int64)
            else:
                better = v > best
                best = np.where(better, v, best)
                best_cell[better] = k
        for k, (i, j) in enumerate(cells):
            gp[_window_view(gp, i, j, strides, out)] += np.where(best_cell == k, og, np.zeros((), dtype=x.dtype))
    else:
        if attrs["count_include_pad"]:
            count = np.full((1, 1, *out), kh * kw, dtype=np.int64)
        else:
            (oh, ow), (sh, sw) = out, strides
            rows = np.minimum(np.arange(oh) * sh - pt + kh, h) - np.maximum(np.arange(oh) * sh - pt, 0)
            cols = np.minimum(np.arange(ow) * sw - pl + kw, w) - np.maximum(np.arange(ow) * sw - pl, 0)
            count = np.maximum(rows[:, None] * cols[None, :], 1)[None, None]
        share = og / count.astype(x.dtype) if x.dtype.kind == "f" else trunc_divide(og, count.astype(x.dtype))
        for i, j in cells:
            gp[_window_view(gp, i, j, strides, out)] += share
    grad = gp[:, :, pt : pt + h, pl : pl + w]
    return wrap(np.transpose(grad, ["NCHW".index(ch) for ch in layout]), x.dtype)


@register(
    "nn.max_pool2d_grad",
    inputs=2,
    relation=pool2d_grad_rel,
    attrs=MAX_POOL2D_ATTRS,
    doc="Gradient of nn.max_pool2d: each window's out_grad goes to its maximum's cell.",
)
def max_pool2d_grad(args: Args, attrs: Attrs) -> Value:
    return _grad(args, attrs, "max")


@register(
    "nn.avg_pool2d_grad",
    inputs=2,
    relation=pool2d_grad_rel,
    attrs=AVG_POOL2D_ATTRS,
    doc="Gradient of nn.avg_pool2d: each window's out_grad is shared among its cells.",
)
def avg_pool2d_grad(args: Args, attrs: Attrs) -> Value:
    return _grad(args, attrs, "avg")
