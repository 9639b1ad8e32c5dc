"""`nn.pad`: add (or, with negative widths, remove) elements around each axis.

`nn.pad(data, pad_value, pad_width=[[before, after], ...], pad_mode=...)`,
as TVM writes it: the fill value is the second input (a scalar, converted
to the data's dtype), `pad_width` has one pair per axis, and `pad_mode` is

* `"constant"` - new elements are `pad_value`;
* `"edge"` - new elements repeat the nearest edge element;
* `"reflect"` - new elements mirror the data, not repeating the edge
  (`[1, 2, 3]` padded by 2 on the left gives `[3, 2, 1, 2, 3]`), which
  needs each width to be smaller than its axis.

A negative width removes elements, as long as the axis keeps a size of at
least 0 (`out[i] = data[i - before]` where that index exists); with
"edge" and "reflect", what the negative widths leave is what the positive
widths extend.

`dyn.nn.pad(data, pad_width, pad_value, pad_mode=...)` is the same with the
widths given as a tensor of shape (rank, 2) of integers, read when the
kernel runs: every axis of its result has the size `?`.

`nn.mirror_pad(data, mode="SYMMETRIC", pad_width=...)` pads with a mirror
image of the data: `"SYMMETRIC"` repeats the edge element (`[1, 2, 3]`
padded by 2 on the left gives `[2, 1, 1, 2, 3]`, widths up to the axis'
size), `"REFLECT"` does not (`[3, 2, 1, 2, 3]`, widths smaller than the
axis' size); widths cannot be negative.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from .._np import np, wrap
from ..registry import Attr, KernelError, register
from ..relations import Relation, known_rank, relation, shape_text
from .space import plus
from ..types import Args, Attrs, Value

MODES = ("constant", "edge", "reflect")


@relation("Pad")
def pad_rel(r: Relation) -> bool:
    mode = r.attrs["pad_mode"]
    if mode not in MODES:
        r.fail(codes.TYPE_MISMATCH, f'`nn.pad` pad_mode must be "constant", "edge" or "reflect", found "{mode}"')
    value = r.tensor(1)
    if known_rank(value.shape) and value.shape != ():
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.pad` takes a scalar pad value, found a tensor of shape {shape_text(value.shape)}",
            arg=1,
        )
    data = r.tensor(0)
    widths = r.attrs["pad_width"]
    if not known_rank(data.shape):
        return False
    rank = len(data.shape)
    if len(widths) != rank:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.pad` needs one [before, after] pair per axis: the data has rank {rank}, pad_width has {len(widths)} "
            "pairs",
            arg=0,
            notes=[f"the data is {shape_text(data.shape)}"],
        )
    shape: list[Any] = []
    for axis, (d, (before, after)) in enumerate(zip(data.shape, widths, strict=False)):
        if type(d) is not int:
            shape.append(plus(d, before + after))
            continue
        problem = width_problem(axis, d, before, after, mode)
        if problem:
            r.fail(codes.SHAPE_MISMATCH, f"`nn.pad` {problem}", arg=0)
        shape.append(d + before + after)
    r.set_result(TensorType(tuple(shape), data.dtype))
    return True


def width_problem(axis: int, d: int, before: int, after: int, mode: str) -> str:
    """What is wrong with padding axis `axis` of size `d` by [before, after], or ""."""
    if d + before + after < 0:
        return f"removes more than axis {axis} holds: size {d} with widths [{before}, {after}]"
    kept = d - max(-before, 0) - max(-after, 0)  # what the negative widths leave
    grow_before, grow_after = max(before, 0), max(after, 0)
    if not (grow_before or grow_after) or mode == "constant":
        return ""
    if mode == "reflect" and (grow_before >= kept or grow_after >= kept):
        return (
            'with pad_mode="reflect" needs widths smaller than the axis: '
            f"axis {axis} has size {kept}, widths [{before}, {after}]"
        )
    if mode == "edge" and kept <= 0:
        return f'with pad_mode="edge" cannot extend the empty axis {axis}'
    return ""


@register(
    "nn.pad",
    inputs=2,
    relation=pad_rel,
    attrs=(Attr("pad_width", "int_pairs"), Attr("pad_mode", "str", "constant")),
    doc="Pad each axis by [before, after] elements: a constant, the edge value, or a reflection.",
)
def pad(args: Args, attrs: Attrs) -> Value:
    x, value = args
    widths = attrs["pad_width"]
    mode = attrs["pad_mode"]
    if mode == "constant":
        # out[i] = x[i - before] where that index is inside x, else the value
        out = np.full(tuple(d + b + a for d, (b, a) in zip(x.shape, widths, strict=False)), value, dtype=x.dtype)
        src, dst = [], []
        for d, (b, a) in zip(x.shape, widths, strict=False):
            start, end = max(-b, 0), min(d, d + a)
            n = max(end - start, 0)
            src.append(slice(start, start + n))
            dst.append(slice(max(b, 0), max(b, 0) + n))
        out[tuple(dst)] = x[tuple(src)]
        return out
    # negative widths crop first
    crop = tuple(slice(max(-b, 0), x.shape[i] - max(-a, 0)) for i, (b, a) in enumerate(widths))
    grow = [(max(b, 0), max(a, 0)) for b, a in widths]
    return wrap(np.pad(x[crop], grow, mode="edge" if mode == "edge" else "reflect"), x.dtype)


# ---------------------------------------------------------------- dyn.nn.pad


@relation("DynamicPad")
def dyn_pad_rel(r: Relation) -> bool:
    """(data, pad_width (rank, 2) integers, scalar pad_value) -> data's rank, every size `?`."""
    mode = r.attrs["pad_mode"]
    if mode not in MODES:
        r.fail(codes.TYPE_MISMATCH, f'`dyn.nn.pad` pad_mode must be "constant", "edge" or "reflect", found "{mode}"')
    data, widths, value = r.tensor(0), r.tensor(1), r.tensor(2)
    if isinstance(widths.dtype, str) and not widths.dtype.startswith(("int", "uint")):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`dyn.nn.pad` takes integer pad widths, found `{widths.dtype}`",
            arg=1,
            label=f"this is `{widths.dtype}`",
        )
    if known_rank(value.shape) and value.shape != ():
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`dyn.nn.pad` takes a scalar pad value, found a tensor of shape {shape_text(value.shape)}",
            arg=2,
        )
    if not known_rank(data.shape):
        return False
    rank = len(data.shape)
    if known_rank(widths.shape):
        if len(widths.shape) != 2:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`dyn.nn.pad` takes pad widths of shape ({rank}, 2), found {shape_text(widths.shape)}",
                arg=1,
            )
        for axis, want in enumerate((rank, 2)):
            got = widths.shape[axis]
            if type(got) is int and got != want:
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`dyn.nn.pad` takes pad widths of shape ({rank}, 2), one [before, after] row per axis of the "
                    f"data; found {shape_text(widths.shape)}",
                    arg=1,
                )
    r.set_result(TensorType(tuple(AnyDim() for _ in data.shape), data.dtype))
    return known_rank(widths.shape) and known_rank(value.shape)


@register(
    "dyn.nn.pad",
    inputs=3,
    relation=dyn_pad_rel,
    attrs=(Attr("pad_width", "int_pairs", ()), Attr("pad_mode", "str", "constant")),
    doc="nn.pad with the [before, after] widths given as a (rank, 2) tensor.",
)
def dyn_pad(args: Args, attrs: Attrs) -> Value:
    x, widths, value = args
    if widths.shape != (x.ndim, 2):
        raise KernelError(
            codes.RUNTIME_ERROR, f"`dyn.nn.pad`: pad widths of shape {widths.shape} for data of rank {x.ndim}"
        )
    pairs = tuple((int(b), int(a)) for b, a in widths.tolist())
    mode = attrs["pad_mode"]
    for axis, (d, (before, after)) in enumerate(zip(x.shape, pairs, strict=False)):
        problem = width_problem(axis, d, before, after, mode)
        if problem:
            raise KernelError(codes.RUNTIME_ERROR, f"`dyn.nn.pad` {problem}")
    return pad((x, value), {"pad_width": pairs, "pad_mode": mode})


# ---------------------------------------------------------------- nn.mirror_pad


@relation("MirrorPad")
def mirror_pad_rel(r: Relation) -> bool:
    """data -> data with each axis grown by its [before, after] widths."""
    mode = r.attrs["mode"]
    if mode not in ("SYMMETRIC", "REFLECT"):
        r.fail(codes.TYPE_MISMATCH, f'`nn.mirror_pad` mode must be "SYMMETRIC" or "REFLECT", found "{mode}"')
    widths = r.attrs["pad_width"]
    if any(v < 0 for p in widths for v in p):
        r.fail(codes.TYPE_MISMATCH, f"`nn.mirror_pad` widths cannot be negative, found {[list(p) for p in widths]}")
    data = r.tensor(0)
    if not known_rank(data.shape):
        return False
    rank = len(data.shape)
    if len(widths) != rank:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.mirror_pad` needs one [before, after] pair per axis: the data has rank {rank}, pad_width has "
            f"{len(widths)} pairs",
            arg=0,
            notes=[f"the data is {shape_text(data.shape)}"],
        )
    shape: list[Any] = []
    for axis, (d, (before, after)) in enumerate(zip(data.shape, widths, strict=False)):
        if type(d) is not int:
            shape.append(plus(d, before + after))
            continue
        limit = d if mode == "SYMMETRIC" else d - 1
        if max(before, after) > limit and (before or after):
            bound = f"at most {d}" if mode == "SYMMETRIC" else f"smaller than {d}"
            r.fail(
                codes.SHAPE_MISMATCH,
                f'`nn.mirror_pad` with mode="{mode}" needs widths {bound} on axis {axis}, found [{before}, {after}]',
                arg=0,
                notes=[f"axis {axis} has size {d}; the mirror image is taken once"],
            )
        shape.append(d + before + after)
    r.set_result(TensorType(tuple(shape), data.dtype))
    return True


@register(
    "nn.mirror_pad",
    inputs=1,
    relation=mirror_pad_rel,
    attrs=(Attr("mode", "str", "SYMMETRIC"), Attr("pad_width", "int_pairs")),
    doc="Pad each axis with a mirror image of the data, with (SYMMETRIC) or without (REFLECT) the edge.",
)
def mirror_pad(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    mode = "symmetric" if attrs["mode"] == "SYMMETRIC" else "reflect"
    widths = [tuple(p) for p in attrs["pad_width"]]
    if not any(b or a for b, a in widths):
        return np.array(x, copy=True)
    return wrap(np.pad(x, widths, mode=mode), x.dtype)
