"""Adaptive pooling: `nn.adaptive_avg_pool2d` and `nn.adaptive_max_pool2d`.

The output has a requested size (`output_size`: one value for both axes,
two for height and width, or none to keep the input's); output cell `i` of
an axis of input length `L` and output length `S` pools the input range
`[floor(i * L / S), ceil((i + 1) * L / S))`, as TVM (and PyTorch) do, so the
ranges may overlap when `L` is not a multiple of `S`. The layout is any
order of N, C, H, W (`layout`, default `NCHW`).
"""

from __future__ import annotations

from typing import Any

from ..ir.ty import TensorType
from ._np import np, wrap
from .registry import Attr, register
from .relations import known_rank, relation, RelationCall, shape_text


def _layout(r: RelationCall) -> str:
    layout = r.attrs["layout"]
    if sorted(layout) != sorted("NCHW"):
        r.fail("type-mismatch", f'`{r.op}`: layout "{layout}" is not supported', notes=["use an order of the letters NCHW, e.g. \"NHWC\""])
    out = r.attrs["out_layout"]
    if out and sorted(out) != sorted("NCHW"):
        r.fail("type-mismatch", f'`{r.op}`: out_layout "{out}" is not supported', notes=["use an order of the letters NCHW"])
    return layout


@relation("AdaptivePool2D")
def adaptive_pool2d_rel(r: RelationCall) -> bool:
    """(N, C, H, W) -> (N, C, OH, OW) with (OH, OW) from output_size."""
    layout = _layout(r)
    size = r.attrs["output_size"]
    if len(size) > 2:
        r.fail("type-mismatch", f"`{r.op}` output_size takes at most 2 values (height, width), found {len(size)}")
    if any(v <= 0 for v in size):
        r.fail("type-mismatch", f"`{r.op}` output_size must be positive, found {list(size)}")
    data = r.tensor(0)
    if not known_rank(data.shape):
        return False
    if len(data.shape) != 4:
        r.fail("shape-mismatch", f"`{r.op}` needs 4-D data ({layout}), found {shape_text(data.shape)}", arg=0)
    dims = {x: data.shape[layout.index(x)] for x in "NCHW"}
    if len(size) == 1:
        dims["H"] = dims["W"] = size[0]
    elif len(size) == 2:
        dims["H"], dims["W"] = size
    out_layout = r.attrs["out_layout"] or layout
    r.set_result(TensorType(tuple(dims[x] for x in out_layout), data.dtype))
    return True


_ATTRS = (Attr("output_size", "ints", ()), Attr("layout", "str", "NCHW"), Attr("out_layout", "str", ""))


def _bins(length: int, size: int) -> list[tuple[int, int]]:
    return [((i * length) // size, -((-(i + 1) * length) // size)) for i in range(size)]


def _pool_axis(x: Any, axis: int, size: int, kind: str) -> Any:
    """Pool one axis to `size` cells: whole-block reshapes when the length
    divides evenly, else one slice reduction per output cell of this axis."""
    length = x.shape[axis]
    if size == length:
        return x
    if length % size == 0:
        k = length // size
        shape = x.shape[:axis] + (size, k) + x.shape[axis + 1 :]
        blocks = x.reshape(shape)
        return blocks.max(axis=axis + 1) if kind == "max" else blocks.sum(axis=axis + 1)
    parts = []
    for start, end in _bins(length, size):
        window = np.take(x, np.arange(start, end), axis=axis)
        parts.append(window.max(axis=axis, keepdims=True) if kind == "max" else window.sum(axis=axis, keepdims=True))
    return np.concatenate(parts, axis=axis)


def _adaptive(x: Any, attrs: dict, kind: str) -> Any:
    layout = attrs["layout"]
    out_layout = attrs["out_layout"] or layout
    t = np.transpose(x, [layout.index(c) for c in "NCHW"])
    h, w = t.shape[2], t.shape[3]
    size = attrs["output_size"]
    oh, ow = (h, w) if not size else (size[0], size[0]) if len(size) == 1 else size
    acc = t if kind == "max" or t.dtype.kind != "f" else t.astype(np.float64)
    out = _pool_axis(_pool_axis(acc, 2, oh, kind), 3, ow, kind)
    if kind == "avg":
        counts_h = np.array([e - s for s, e in _bins(h, oh)], dtype=np.float64)
        counts_w = np.array([e - s for s, e in _bins(w, ow)], dtype=np.float64)
        out = out / (counts_h[:, None] * counts_w[None, :])
    return wrap(np.transpose(out, ["NCHW".index(c) for c in out_layout]), x.dtype)


@register(
    "nn.adaptive_avg_pool2d",
    inputs=1,
    relation=adaptive_pool2d_rel,
    attrs=_ATTRS,
    doc="Mean over input regions chosen so the output has output_size (height, width).",
)
def adaptive_avg_pool2d(args: tuple, attrs: dict) -> Any:
    return _adaptive(args[0], attrs, "avg")


@register(
    "nn.adaptive_max_pool2d",
    inputs=1,
    relation=adaptive_pool2d_rel,
    attrs=_ATTRS,
    doc="Maximum over input regions chosen so the output has output_size (height, width).",
)
def adaptive_max_pool2d(args: tuple, attrs: dict) -> Any:
    return _adaptive(args[0], attrs, "max")
