"""Windowed pooling in one and three dimensions: `nn.max_pool1d`,
`nn.avg_pool1d`, `nn.max_pool3d`, `nn.avg_pool3d`, and the N-dimensional
kernel they share.

A window of `pool_size` cells, `dilation` apart, slides by `strides` over
each spatial axis of the padded input. The attributes take one value for
every spatial axis or one per axis (width; depth, height, width); `padding`
takes one value (all sides), one per axis (the same before and after), or
all the befores then all the afters (1-D: left, right; 3-D: front, top,
left, back, bottom, right). The output length of an axis of length `L`,
padded by `p` in all, is `(L + p - dilation * (k - 1) - 1) / stride + 1`,
rounded down, or up with `ceil_mode` (the extra windows at the end read
padding only where they leave the input).

The maximum pads with the lowest value of the dtype (bool: False). The mean
divides the window's sum by the number of cells it read inside the input,
or, with `count_include_pad`, inside the padded input (the extra cells of
`ceil_mode` never count); integer means truncate toward zero, and sums
wrap around in the input's dtype, as TVM's do. Bool tensors take the
maximum only.

Layouts are any order of N, C and the spatial letters: `NCW` (1-D default),
`NWC`; `NCDHW` (3-D default), `NDHWC`. `out_layout`, when given, orders the
output's axes (as `nn.max_pool2d` does here).
"""

from __future__ import annotations

import itertools
from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType
from .._np import np, wrap
from ._attrs import pool_attrs
from .nn import _layout, window_out
from .pool import trunc_divide
from ..registry import register
from ..relations import Relation, known_rank, relation, require_numeric, shape_text
from ..types import Args, Attrs, Shape, Value

AXIS_NAMES = {"D": "depth", "H": "height", "W": "width"}
_SIDES = {"D": ("front", "back"), "H": ("top", "bottom"), "W": ("left", "right")}


# ---------------------------------------------------------------- attributes


def per_axis(r: Relation, name: str, spatial: str) -> tuple[int, ...]:
    """A positive size per spatial axis; one value stands for all of them."""
    v = r.attrs[name]
    n = len(spatial)
    if len(v) == 1:
        v = v * n
    if len(v) != n:
        names = ", ".join(AXIS_NAMES[a] for a in spatial)
        counts = "1 value" if n == 1 else f"1 or {n} values"
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` {name} takes {counts} ({names}), found {len(r.attrs[name])}")
    if any(x < 1 for x in v):
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` {name} must be positive, found {list(r.attrs[name])}")
    return tuple(v)


def padding_of(pad: Shape, n: int) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(before, after) per spatial axis from 1, n or 2n values; None for another count."""
    if len(pad) == 1:
        return (pad * n, pad * n)
    if len(pad) == n:
        return (tuple(pad), tuple(pad))
    if len(pad) == 2 * n:
        return (tuple(pad[:n]), tuple(pad[n:]))
    return None


def paddings(r: Relation, spatial: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    pad = r.attrs["padding"]
    n = len(spatial)
    both = padding_of(pad, n)
    if both is None:
        sides = [_SIDES[a][0] for a in spatial] + [_SIDES[a][1] for a in spatial]
        counts = "1 or 2 values" if n == 1 else f"1, {n} or {2 * n} values"
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` padding takes {counts} ({', '.join(sides)}), found {len(pad)}")
        raise AssertionError
    if any(p < 0 for p in pad):
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` padding cannot be negative, found {list(pad)}")
    return both


# ---------------------------------------------------------------- relation


def _pool_relation(name: str, spatial: str) -> Any:
    letters = "NC" + spatial

    @relation(name)
    def pool_rel(r: Relation) -> bool:
        """Data in the layout's order; each spatial axis shrinks to the number of windows."""
        layout = _layout(r, "layout", letters)
        out_layout = _layout(r, "out_layout", letters) if r.attrs["out_layout"] else layout
        if "avg" in r.op:
            require_numeric(r, 0)
        data = r.tensor(0)
        if not known_rank(data.shape):
            return False
        if len(data.shape) != len(letters):
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`{r.op}` needs {len(letters)}-D data ({layout}), found {shape_text(data.shape)}",
                arg=0,
            )
        kernel = per_axis(r, "pool_size", spatial)
        strides = per_axis(r, "strides", spatial)
        dilation = per_axis(r, "dilation", spatial)
        before, after = paddings(r, spatial)
        dims = {x: data.shape[layout.index(x)] for x in letters}
        for i, a in enumerate(spatial):
            size = dims[a]
            out = window_out(size, kernel[i], strides[i], dilation[i], before[i] + after[i], r.attrs["ceil_mode"])
            if type(out) is int and out <= 0:
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`{r.op}`: the window does not fit: the input {AXIS_NAMES[a]} is {size}",
                    arg=0,
                    notes=[
                        f"a window spans {dilation[i] * (kernel[i] - 1) + 1} cells, the padded {AXIS_NAMES[a]} is "
                        f"{size + before[i] + after[i]}"
                    ],
                )
            dims[a] = out
        r.set_result(TensorType(tuple(dims[x] for x in out_layout), data.dtype))
        return True

    return pool_rel


# ---------------------------------------------------------------- kernel


def lowest(dtype: Any) -> Any:
    """The lowest value of a dtype (TVM's `min_value`): what max pooling pads with."""
    if dtype.kind == "f":
        return np.finfo(dtype).min
    if dtype.kind == "b":
        return False
    return np.iinfo(dtype).min


def pool_nd(
    x: Any,
    axes: list[int],
    kernel: Shape,
    strides: Shape,
    dilation: Shape,
    before: Shape,
    after: Shape,
    ceil: bool,
    kind: str,
    count_include_pad: bool = False,
) -> Any:
    """Max or mean pooling of `x` over the given axes (any number of them).

    The window's cells are visited one at a time, each as a strided view of
    the padded input covering every window at once, so the work is one
    whole-tensor maximum or sum per cell of the window.
    """
    outs = [
        window_out(x.shape[a], k, s, d, b + e, ceil)
        for a, k, s, d, b, e in zip(axes, kernel, strides, dilation, before, after, strict=False)
    ]
    widths = [(0, 0)] * x.ndim
    for i, a in enumerate(axes):
        reach = (outs[i] - 1) * strides[i] + dilation[i] * (kernel[i] - 1) + 1
        widths[a] = (before[i], max(after[i], reach - x.shape[a] - before[i]))
    fill = lowest(x.dtype) if kind == "max" else 0
    xp = np.pad(x, widths, constant_values=fill) if any(w != (0, 0) for w in widths) else x
    out = None
    for cell in itertools.product(*(range(k) for k in kernel)):
        index = [slice(None)] * x.ndim
        for i, a in enumerate(axes):
            start = cell[i] * dilation[i]
            index[a] = slice(start, start + strides[i] * (outs[i] - 1) + 1, strides[i])
        view = xp[tuple(index)]
        if out is None:
            out = np.array(view, dtype=x.dtype)
        elif kind == "max":
            np.maximum(out, view, out=out)
        else:
            np.add(out, view, out=out)
    if kind == "max":
        return out
    counts = np.ones((1,) * x.ndim, dtype=np.int64)
    for i, a in enumerate(axes):
        # positions of every cell of every window, relative to the unpadded input
        pos = np.arange(outs[i])[:, None] * strides[i] + np.arange(kernel[i])[None, :] * dilation[i] - before[i]
        end = x.shape[a] + after[i] if count_include_pad else x.shape[a]
        lo = -before[i] if count_include_pad else 0
        n = ((pos >= lo) & (pos < end)).sum(axis=1)
        shape = [1] * x.ndim
        shape[a] = outs[i]
        counts = counts * n.reshape(shape)
    counts = np.maximum(counts, 1)
    if x.dtype.kind == "f":
        return out / counts.astype(x.dtype)
    return trunc_divide(out, counts.astype(x.dtype))


def pool_layout(x: Any, attrs: Attrs, kind: str, spatial: str) -> Any:
    """The registered kernels: attributes read per axis, pooled in place, out_layout applied."""
    layout = attrs["layout"]
    n = len(spatial)
    kernel, strides, dilation = (
        (v * n if len(v) == 1 else v) for v in (attrs["pool_size"], attrs["strides"], attrs["dilation"])
    )
    both = padding_of(attrs["padding"], n)
    assert both is not None
    out = pool_nd(
        x,
        [layout.index(a) for a in spatial],
        kernel,
        strides,
        dilation,
        both[0],
        both[1],
        attrs["ceil_mode"],
        kind,
        attrs.get("count_include_pad", False),
    )
    out_layout = attrs["out_layout"] or layout
    return wrap(np.transpose(out, [layout.index(c) for c in out_layout]), x.dtype)


# ---------------------------------------------------------------- operators


def _register(dims: int, spatial: str, layout: str) -> None:
    for kind, word, tvm_kind in (("max", "Maximum", "Max"), ("avg", "Mean", "Avg")):
        extra = " (padding counted only with count_include_pad)" if kind == "avg" else ""

        def kernel(args: Args, attrs: Attrs, kind: str = kind) -> Value:
            return pool_layout(args[0], attrs, kind, spatial)

        register(
            f"nn.{kind}_pool{dims}d",
            inputs=1,
            relation=_pool_relation(f"{tvm_kind}Pool{dims}D", spatial),
            attrs=pool_attrs(layout, avg=kind == "avg"),
            doc=f"{word} over {dims}-D windows{extra}.",
        )(kernel)


_register(1, "W", "NCW")
_register(3, "DHW", "NCDHW")
