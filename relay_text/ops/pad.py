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
least 0.
"""

from __future__ import annotations

from typing import Any

from ..ir.ty import AnyDim, TensorType
from ._np import np, wrap
from .registry import Attr, register
from .relations import known_rank, relation, RelationCall, shape_text

MODES = ("constant", "edge", "reflect")


@relation("Pad")
def pad_rel(r: RelationCall) -> bool:
    mode = r.attrs["pad_mode"]
    if mode not in MODES:
        r.fail("type-mismatch", f'`nn.pad` pad_mode must be "constant", "edge" or "reflect", found "{mode}"')
    value = r.tensor(1)
    if known_rank(value.shape) and value.shape != ():
        r.fail("shape-mismatch", f"`nn.pad` takes a scalar pad value, found a tensor of shape {shape_text(value.shape)}", arg=1)
    data = r.tensor(0)
    widths = r.attrs["pad_width"]
    if not known_rank(data.shape):
        return False
    rank = len(data.shape)
    if len(widths) != rank:
        r.fail(
            "shape-mismatch",
            f"`nn.pad` needs one [before, after] pair per axis: the data has rank {rank}, pad_width has {len(widths)} pairs",
            arg=0,
            notes=[f"the data is {shape_text(data.shape)}"],
        )
    shape: list[Any] = []
    for axis, (d, (before, after)) in enumerate(zip(data.shape, widths)):
        if type(d) is not int:
            shape.append(d if before == 0 and after == 0 else AnyDim())
            continue
        size = d + before + after
        if size < 0:
            r.fail("shape-mismatch", f"`nn.pad` removes more than axis {axis} holds: size {d} with widths [{before}, {after}]", arg=0)
        if mode == "reflect" and (before >= d or after >= d) and (before > 0 or after > 0):
            r.fail(
                "shape-mismatch",
                f'`nn.pad` with pad_mode="reflect" needs widths smaller than the axis: axis {axis} has size {d}, widths [{before}, {after}]',
                arg=0,
            )
        if mode == "edge" and d == 0 and (before > 0 or after > 0):
            r.fail("shape-mismatch", f'`nn.pad` with pad_mode="edge" cannot extend the empty axis {axis}', arg=0)
        shape.append(size)
    r.set_result(TensorType(tuple(shape), data.dtype))
    return True


@register(
    "nn.pad",
    inputs=2,
    relation=pad_rel,
    attrs=(Attr("pad_width", "int_pairs"), Attr("pad_mode", "str", "constant")),
    doc="Pad each axis by [before, after] elements: a constant, the edge value, or a reflection.",
)
def pad(args: tuple, attrs: dict) -> Any:
    x, value = args
    widths = attrs["pad_width"]
    # negative widths crop first
    crop = tuple(slice(max(-b, 0), x.shape[i] - max(-a, 0)) for i, (b, a) in enumerate(widths))
    x = x[crop]
    grow = [(max(b, 0), max(a, 0)) for b, a in widths]
    mode = attrs["pad_mode"]
    if mode == "constant":
        out = np.full(tuple(d + b + a for d, (b, a) in zip(x.shape, grow)), value, dtype=x.dtype)
        out[tuple(slice(b, b + d) for d, (b, _) in zip(x.shape, grow))] = x
        return out
    return wrap(np.pad(x, grow, mode="edge" if mode == "edge" else "reflect"), x.dtype)
