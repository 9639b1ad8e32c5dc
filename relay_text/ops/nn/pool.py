"""Adaptive pooling in one, two and three dimensions:
`nn.adaptive_avg_pool1d`, `nn.adaptive_max_pool1d`, `nn.adaptive_avg_pool2d`,
`nn.adaptive_max_pool2d`, `nn.adaptive_avg_pool3d`, `nn.adaptive_max_pool3d`.

The output has a requested size on each spatial axis (`output_size`: no
value keeps the input's sizes, one value is used for every spatial axis,
otherwise one value per axis: width; height, width; depth, height, width).
Output cell `i` of an axis of input length `L` and output length `S` pools
the input range `[floor(i * L / S), ceil((i + 1) * L / S))`, as TVM (and
PyTorch) do, so the ranges may overlap when `L` is not a multiple of `S`.
The mean divides by the number of cells in the region (in integer
arithmetic for integer tensors, truncating toward zero); the maximum also
takes bool tensors, the mean takes numbers only.

The layout is any order of the letters N, C and the spatial letters:
`NCW` (default for 1-D), `NCHW` (2-D), `NCDHW` (3-D), e.g. `NWC`, `NHWC`,
`NDHWC`. A 3-D `output_size` has 0, 1 or 3 values (TVM cannot read 2).
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType
from .._np import np, wrap
from ..registry import Attr, register
from ..relations import Relation, known_rank, relation, require_numeric, shape_text
from ..types import Args, Attrs, Shape, Value

_AXIS_NAMES = {"D": "depth", "H": "height", "W": "width"}


def _layout(r: Relation, letters: str) -> str:
    layout: str = r.attrs["layout"]
    if sorted(layout) != sorted(letters):
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}`: layout "{layout}" is not supported',
            notes=[f'use an order of the letters {letters}, e.g. "{_channels_last(letters)}"'],
        )
    out = r.attrs["out_layout"]
    if out and sorted(out) != sorted(letters):
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}`: out_layout "{out}" is not supported',
            notes=[f"use an order of the letters {letters}"],
        )
    return layout


def _channels_last(letters: str) -> str:
    return "N" + letters[2:] + "C"


def _sizes(size: Shape, spatial: str) -> Shape | None:
    """The output size of each spatial axis from `output_size`, None to keep the input's."""
    if not size:
        return None
    if len(size) == 1:
        return size * len(spatial)
    return size


def _adaptive_relation(name: str, spatial: str) -> Any:
    letters = "NC" + spatial
    n = len(spatial)
    names = ", ".join(_AXIS_NAMES[a] for a in spatial)

    @relation(name)
    def adaptive_rel(r: Relation) -> bool:
        """(N, C, *spatial) -> (N, C, *output_size), in the layout's order."""
        layout = _layout(r, letters)
        if "avg" in r.op:
            require_numeric(r, 0)
        size = r.attrs["output_size"]
        allowed = (0, 1) if n == 1 else (0, 1, n)
        if len(size) not in allowed:
            counts = "at most 1 value" if n == 1 else "at most 2 values" if n == 2 else "0, 1 or 3 values"
            r.fail(codes.TYPE_MISMATCH, f"`{r.op}` output_size takes {counts} ({names}), found {len(size)}")
        if any(v <= 0 for v in size):
            r.fail(codes.TYPE_MISMATCH, f"`{r.op}` output_size must be positive, found {list(size)}")
        data = r.tensor(0)
        if not known_rank(data.shape):
            return False
        if len(data.shape) != len(letters):
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`{r.op}` needs {len(letters)}-D data ({layout}), found {shape_text(data.shape)}",
                arg=0,
            )
        dims = {x: data.shape[layout.index(x)] for x in letters}
        sizes = _sizes(size, spatial)
        if sizes is not None:
            dims.update(zip(spatial, sizes, strict=False))
        out_layout = r.attrs["out_layout"] or layout
        r.set_result(TensorType(tuple(dims[x] for x in out_layout), data.dtype))
        return True

    return adaptive_rel


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
        shape = (*x.shape[:axis], size, k, *x.shape[axis + 1 :])
        blocks = x.reshape(shape)
        return blocks.max(axis=axis + 1) if kind == "max" else blocks.sum(axis=axis + 1, dtype=x.dtype)
    parts = []
    for start, end in _bins(length, size):
        window = np.take(x, np.arange(start, end), axis=axis)
        parts.append(
            window.max(axis=axis, keepdims=True)
            if kind == "max"
            else window.sum(axis=axis, keepdims=True, dtype=x.dtype)
        )
    return np.concatenate(parts, axis=axis)


def trunc_divide(total: Any, count: Any) -> Any:
    """Integer division rounding toward zero (TVM's integer `/`), for positive `count`."""
    q = total // count
    return q + ((q < 0) & (q * count != total)).astype(q.dtype)


def _adaptive(x: Any, attrs: Attrs, kind: str, spatial: str) -> Any:
    layout = attrs["layout"]
    out_layout = attrs["out_layout"] or layout
    axes = [layout.index(a) for a in spatial]
    sizes = _sizes(attrs["output_size"], spatial) or tuple(x.shape[a] for a in axes)
    acc = x.astype(np.float64) if kind == "avg" and x.dtype.kind == "f" else x
    for axis, size in zip(axes, sizes, strict=False):
        acc = _pool_axis(acc, axis, size, kind)
    if kind == "avg":
        counts = np.ones((1,) * x.ndim, dtype=np.int64)
        for axis, size in zip(axes, sizes, strict=False):
            shape = [1] * x.ndim
            shape[axis] = size
            counts = counts * np.array([e - s for s, e in _bins(x.shape[axis], size)], dtype=np.int64).reshape(shape)
        acc = acc / counts if x.dtype.kind == "f" else trunc_divide(acc, counts.astype(x.dtype))
    return wrap(np.transpose(acc, [layout.index(c) for c in out_layout]), x.dtype)


def _register(dims: int, spatial: str, default_layout: str) -> None:
    attrs = (Attr("output_size", "ints", ()), Attr("layout", "str", default_layout), Attr("out_layout", "str", ""))
    shape = ", ".join(_AXIS_NAMES[a] for a in spatial)
    for kind, word, tvm_kind in (("avg", "Mean", "Avg"), ("max", "Maximum", "Max")):
        rel = _adaptive_relation(f"Adaptive{tvm_kind}Pool{dims}D", spatial)

        def kernel(args: Args, attrs: Attrs, kind: str = kind) -> Value:
            return _adaptive(args[0], attrs, kind, spatial)

        register(
            f"nn.adaptive_{kind}_pool{dims}d",
            inputs=1,
            relation=rel,
            attrs=attrs,
            doc=f"{word} over input regions chosen so the output has output_size ({shape}).",
        )(kernel)


_register(1, "W", "NCW")
_register(2, "HW", "NCHW")
_register(3, "DHW", "NCDHW")
