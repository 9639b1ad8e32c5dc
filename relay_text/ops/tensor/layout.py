"""Rearranging and repeating elements: `layout_transform`, `tile`, `repeat`,
`broadcast_to_like`.

`layout_transform(data, src_layout, dst_layout)` reorders axes named by
letters, as TVM's layouts do: `NCHW` to `NHWC` is a transpose. A layout may
also split an axis into blocks, written as a factor and the lower-case
letter after the outer axis: `NCHW16c` holds `C / 16` blocks of 16
channels, with the 16 last. Any two layouts with the same upper-case
letters convert into each other, as long as the block factors divide the
axes they split.

`tile(data, reps)` repeats the whole tensor `reps[i]` times along axis i
(numpy's `tile`: the shorter of the data's shape and `reps` is padded with
leading 1s). `repeat(data, repeats, axis)` repeats each element `repeats`
times along one axis. `broadcast_to_like(data, like)` broadcasts to the
shape of `like`.
"""

from __future__ import annotations

import re
from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from .._np import np, wrap
from ..registry import Attr, register
from ..relations import (
    Relation,
    broadcast_dims,
    known_rank,
    normalize_axis,
    relation,
    shape_text,
)
from ..types import Args, Attrs, Dims, Value

_AXIS = re.compile(r"(\d*)([A-Za-z])")


class LayoutError(ValueError):
    pass


def parse_layout(text: str) -> list[tuple[str, int]]:
    """`NCHW16c` -> [("N", 0), ("C", 0), ("H", 0), ("W", 0), ("c", 16)]."""
    axes: list[tuple[str, int]] = []
    pos = 0
    while pos < len(text):
        m = _AXIS.match(text, pos)
        if m is None:
            raise LayoutError(f'"{text}" is not a layout: unexpected `{text[pos]}`')
        factor, letter = m.groups()
        if letter.isupper() and factor:
            raise LayoutError(f'"{text}" is not a layout: only a lower-case (block) axis takes a factor, as in `16c`')
        if letter.islower() and (not factor or int(factor) <= 0):
            raise LayoutError(
                f'"{text}" is not a layout: the block axis `{letter}` needs a positive factor, as in `16{letter}`'
            )
        if any(a == letter for a, _ in axes):
            raise LayoutError(f'"{text}" is not a layout: `{letter}` appears twice')
        axes.append((letter, int(factor) if factor else 0))
        pos = m.end()
    primal = {a for a, _ in axes if a.isupper()}
    for a, _ in axes:
        if a.islower() and a.upper() not in primal:
            raise LayoutError(f'"{text}" is not a layout: the block axis `{a}` has no outer axis `{a.upper()}`')
    if not axes:
        raise LayoutError("an empty layout")
    return axes


def _blocks(axes: list[tuple[str, int]]) -> dict[str, int]:
    return {a.upper(): f for a, f in axes if a.islower()}


def layout_shapes(src: str, dst: str, shape: Dims) -> Dims:
    """The shape of `data` (in `src`) after converting to `dst`; LayoutError if impossible.
    Unknown dimensions stay unknown (`AnyDim`)."""
    sa, da = parse_layout(src), parse_layout(dst)
    sp = sorted(a for a, _ in sa if a.isupper())
    dp = sorted(a for a, _ in da if a.isupper())
    if sp != dp:
        raise LayoutError(f'layouts "{src}" and "{dst}" do not name the same axes')
    if len(shape) != len(sa):
        raise LayoutError(f'the data has rank {len(shape)}, but layout "{src}" has {len(sa)} axes')
    sb = _blocks(sa)
    full: dict[str, Any] = {}
    for (a, f), d in zip(sa, shape, strict=False):
        if a.isupper():
            inner = sb.get(a, 1)
            full[a] = d * inner if type(d) is int else AnyDim()
        elif type(d) is int and d != f:
            raise LayoutError(f'axis `{f}{a}` of layout "{src}" must have size {f}, but the data has {d}')
    out = []
    db = _blocks(da)
    for a, f in da:
        if a.isupper():
            size = full[a]
            block = db.get(a, 1)
            if type(size) is int and size % block:
                raise LayoutError(f"axis `{a}` of size {size} cannot be split into blocks of {block}")
            out.append(size // block if type(size) is int else AnyDim())
        else:
            out.append(f)
    return tuple(out)


@relation("LayoutTransform")
def layout_transform_rel(r: Relation) -> bool:
    src, dst = r.attrs["src_layout"], r.attrs["dst_layout"]
    try:
        parse_layout(src)
        parse_layout(dst)
    except LayoutError as exc:
        r.fail(codes.TYPE_MISMATCH, f"`layout_transform`: {exc}")
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    try:
        shape = layout_shapes(src, dst, x.shape)
    except LayoutError as exc:
        r.fail(codes.SHAPE_MISMATCH, f"`layout_transform`: {exc}", arg=0, notes=[f"the data is {shape_text(x.shape)}"])
    r.set_result(TensorType(shape, x.dtype))
    return True


@register(
    "layout_transform",
    inputs=1,
    relation=layout_transform_rel,
    attrs=(Attr("src_layout", "str"), Attr("dst_layout", "str")),
    doc='Reorder (and block or unblock) axes from one layout to another, e.g. "NCHW" to "NHWC".',
)
def layout_transform(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    sa, da = parse_layout(attrs["src_layout"]), parse_layout(attrs["dst_layout"])
    # 1. to the plain layout of the source's upper-case axes, each block axis merged into its outer axis
    order = [a for a, _ in sa if a.isupper()]
    names = [a for a, _ in sa]
    perm = []
    for a in order:
        perm.append(names.index(a))
        if a.lower() in names:
            perm.append(names.index(a.lower()))
    t = np.transpose(x, perm)
    sizes = {}
    for a in order:
        sizes[a] = x.shape[names.index(a)] * (x.shape[names.index(a.lower())] if a.lower() in names else 1)
    t = t.reshape([sizes[a] for a in order])
    # 2. split the destination's blocked axes, then put the axes in its order
    db = _blocks(da)
    split_names: list[str] = []
    split_shape: list[int] = []
    for a in order:
        if a in db:
            split_names += [a, a.lower()]
            split_shape += [sizes[a] // db[a], db[a]]
        else:
            split_names.append(a)
            split_shape.append(sizes[a])
    t = t.reshape(split_shape)
    return np.ascontiguousarray(np.transpose(t, [split_names.index(a) for a, _ in da]))


# ---------------------------------------------------------------- tile, repeat


@relation("Tile")
def tile_rel(r: Relation) -> bool:
    reps = tuple(r.attrs["reps"])
    if any(v <= 0 for v in reps):
        r.fail(codes.TYPE_MISMATCH, f"`tile` reps must be positive, found {list(reps)}")
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    n = max(len(reps), len(x.shape))
    shape = (1,) * (n - len(x.shape)) + x.shape
    reps = (1,) * (n - len(reps)) + reps
    out = tuple(d * k if type(d) is int else (d if k == 1 else AnyDim()) for d, k in zip(shape, reps, strict=False))
    r.set_result(TensorType(out, x.dtype))
    return True


@register(
    "tile",
    inputs=1,
    relation=tile_rel,
    attrs=(Attr("reps", "ints"),),
    doc="Repeat the whole tensor reps[i] times along each axis.",
)
def tile(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    return wrap(np.tile(x, tuple(attrs["reps"])), x.dtype)


@relation("Repeat")
def repeat_rel(r: Relation) -> bool:
    repeats = r.attrs["repeats"]
    if repeats < 1:
        r.fail(codes.TYPE_MISMATCH, f"`repeat` repeats must be at least 1, found {repeats}")
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    axis = normalize_axis(r, r.attrs["axis"], len(x.shape))
    d = x.shape[axis]
    shape = (*x.shape[:axis], d * repeats if type(d) is int else d if repeats == 1 else AnyDim(), *x.shape[axis + 1 :])
    r.set_result(TensorType(shape, x.dtype))
    return True


@register(
    "repeat",
    inputs=1,
    relation=repeat_rel,
    attrs=(Attr("repeats", "int"), Attr("axis", "int", 0)),
    doc="Repeat each element `repeats` times along one axis.",
)
def repeat(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    return np.repeat(x, attrs["repeats"], axis=attrs["axis"])


# ---------------------------------------------------------------- broadcast_to_like


@relation("BroadCastToLike")
def broadcast_to_like_rel(r: Relation) -> bool:
    x = r.tensor(0)
    like = r.tensor(1)
    if not known_rank(like.shape):
        return False
    if known_rank(x.shape):
        both = broadcast_dims(r, x.shape, like.shape)
        if both is not None and (
            len(x.shape) > len(like.shape)
            or any(type(a) is int and type(b) is int and a != b for a, b in zip(both, like.shape, strict=False))
        ):
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`broadcast_to_like` cannot broadcast {shape_text(x.shape)} to {shape_text(like.shape)}",
                arg=0,
                notes=["each axis of the data must be 1 or equal to the target's, aligned from the right"],
            )
    r.set_result(TensorType(like.shape, x.dtype))
    return True


@register(
    "broadcast_to_like",
    inputs=2,
    relation=broadcast_to_like_rel,
    doc="Broadcast the data to the shape of the second input (keeping the data's dtype).",
)
def broadcast_to_like(args: Args, attrs: Attrs) -> Value:
    x, like = args
    return np.array(np.broadcast_to(x, like.shape))
