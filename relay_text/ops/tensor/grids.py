"""Grids of positions and windows: `meshgrid`, `sliding_window`.

`meshgrid((x_0, ..., x_{n-1}), indexing="ij")` takes a tuple of vectors
(or scalars, counted as vectors of one element) of one dtype and returns a
tuple of n tensors of one shape, (len x_0, ..., len x_{n-1}): in the k-th,
the element at position p is `x_k[p_k]`. With `indexing="xy"` (Cartesian)
the first two axes of that shape are swapped, as in numpy.

`sliding_window(data, axis, window_shape, strides)` views the axes from
`axis` (at least 0) to the last through a window of `window_shape`, moved
by `strides` along each of them: the result keeps the axes before `axis`,
then has one axis per windowed axis counting the window positions,
`floor((size - window) / stride) + 1` of them, then the window's own axes.
Element (..., w_0, ..., w_k, e_0, ..., e_k) is the data's element
(..., w_0 * stride_0 + e_0, ..., w_k * stride_k + e_k).
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType, TupleType
from .._np import np
from ..registry import Attr, register
from ..relations import Relation, is_unknown, known_rank, relation, shape_text
from ..types import Args, Attrs, Value

# ---------------------------------------------------------------- meshgrid


@relation("Meshgrid", inputs=1)
def meshgrid_rel(r: Relation) -> bool:
    indexing = r.attrs["indexing"]
    if indexing not in ("ij", "xy"):
        r.fail(codes.TYPE_MISMATCH, f'`meshgrid` indexing must be "ij" or "xy", found "{indexing}"')
    t = r.arg(0)
    if is_unknown(t):
        return False
    if not isinstance(t, TupleType):
        r.fail(
            codes.TYPE_MISMATCH,
            "`meshgrid` takes a tuple of vectors, e.g. `meshgrid((%x, %y))`",
            arg=0,
            label="not a tuple",
        )
    if not t.fields:
        r.fail(codes.TYPE_MISMATCH, "`meshgrid` needs at least one vector", arg=0)
    fields = [r.tensor_of(f, 0, f"field {i} of its tuple") for i, f in enumerate(t.fields)]
    for i in range(1, len(fields)):
        r.unify(
            fields[0].dtype,
            fields[i].dtype,
            arg=0,
            message=f"`meshgrid` needs tensors of one dtype: field 0 is `{{expected}}`, field {i} is `{{found}}`",
        )
    fields = [r.tensor_of(f, 0) for f in t.fields]
    sizes: list[Any] = []
    for i, f in enumerate(fields):
        if not known_rank(f.shape):
            return False
        if len(f.shape) > 1:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`meshgrid` takes scalars and vectors, but field {i} of its tuple is {shape_text(f.shape)}",
                arg=0,
            )
        sizes.append(f.shape[0] if f.shape else 1)
    if indexing == "xy" and len(sizes) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grid = TensorType(tuple(sizes), fields[0].dtype)
    r.set_result(TupleType(tuple(grid for _ in fields)))
    return True


@register(
    "meshgrid",
    inputs=1,
    relation=meshgrid_rel,
    attrs=(Attr("indexing", "str", "ij"),),
    doc="Coordinate grids from a tuple of vectors, one grid per vector (a tuple).",
)
def meshgrid(args: Args, attrs: Attrs) -> Value:
    vectors = [np.reshape(v, (-1,)) for v in args[0]]
    return tuple(np.ascontiguousarray(g) for g in np.meshgrid(*vectors, indexing=attrs["indexing"]))


# ---------------------------------------------------------------- sliding_window


@relation("SlidingWindow", inputs=1)
def sliding_window_rel(r: Relation) -> bool:
    axis, window, strides = r.attrs["axis"], tuple(r.attrs["window_shape"]), tuple(r.attrs["strides"])
    if axis < 0:
        r.fail(codes.TYPE_MISMATCH, f"`sliding_window` needs an axis of 0 or more, found {axis}")
    if len(strides) != len(window):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`sliding_window` needs one stride per window axis: window_shape {list(window)}, strides {list(strides)}",
        )
    if any(w <= 0 for w in window) or any(s <= 0 for s in strides):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`sliding_window` needs positive window sizes and strides, found window_shape {list(window)} and strides "
            f"{list(strides)}",
        )
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    rank = len(x.shape)
    if axis >= rank:
        r.fail(
            codes.SHAPE_MISMATCH, f"`sliding_window`: axis {axis} is out of range for a tensor of rank {rank}", arg=0
        )
    if len(window) != rank - axis:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`sliding_window` from axis {axis} of a tensor of rank {rank} needs a window of {rank - axis} sizes, "
            f"found {list(window)}",
            arg=0,
            notes=[f"the data is {shape_text(x.shape)}"],
        )
    counts: list[Any] = []
    for k, (w, s) in enumerate(zip(window, strides, strict=False)):
        d = x.shape[axis + k]
        if is_unknown(d):
            return False
        if type(d) is not int:
            counts.append(AnyDim())
            continue
        if w > d:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`sliding_window`: the window of size {w} does not fit axis {axis + k} of size {d}",
                arg=0,
            )
        counts.append((d - w) // s + 1)
    r.set_result(TensorType(tuple(x.shape[:axis]) + tuple(counts) + window, x.dtype))
    return True


@register(
    "sliding_window",
    inputs=1,
    relation=sliding_window_rel,
    attrs=(Attr("axis", "int"), Attr("window_shape", "ints"), Attr("strides", "ints")),
    doc="Every window of window_shape over the axes from axis on, moved by strides.",
)
def sliding_window(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    axis = attrs["axis"]
    window, strides = tuple(attrs["window_shape"]), tuple(attrs["strides"])
    axes = tuple(range(axis, x.ndim))
    views = np.lib.stride_tricks.sliding_window_view(x, window, axis=axes)
    picked = views[(slice(None),) * axis + tuple(slice(None, None, s) for s in strides)]
    return np.ascontiguousarray(picked)
