"""Joining and splitting tensors: concatenate, stack, split.

`concatenate` and `stack` take a tuple of tensors of one dtype (and, for
`stack`, one shape); `concatenate` joins them along an existing axis,
`stack` along a new one. `split` cuts a tensor along an axis into
`indices_or_sections` equal parts, or at the given indices, and returns
a tuple. Attribute names and defaults follow TVM.
"""

from __future__ import annotations

import itertools
from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType, TupleType
from .._np import np
from ..registry import Attr, register
from ..relations import (
    RankedTensor,
    Relation,
    has_rank,
    is_unknown,
    known_rank,
    normalize_axis,
    shape_text,
)
from ..types import Args, Attrs, Value


def _tuple_fields(r: Relation) -> list[TensorType] | None:
    t = r.arg(0)
    if is_unknown(t):
        return None
    if not isinstance(t, TupleType):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` takes a tuple of tensors, e.g. `{r.op}((%a, %b), axis=0)`",
            arg=0,
            label="not a tuple",
        )
    if not t.fields:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` needs at least one tensor", arg=0)
    fields = [r.tensor_of(f, 0, f"field {i} of its tuple") for i, f in enumerate(t.fields)]
    for i in range(1, len(fields)):
        r.unify(
            fields[0].dtype,
            fields[i].dtype,
            arg=0,
            message=f"`{r.op}` needs tensors of one dtype: field 0 is `{{expected}}`, field {i} is `{{found}}`",
        )
    return [r.tensor_of(f, 0) for f in t.fields]


def _ranked_fields(r: Relation) -> list[RankedTensor] | None:
    """The tensors of the tuple input, once every one has a known rank."""
    fields = _tuple_fields(r)
    if fields is None:
        return None
    ranked = [f for f in fields if has_rank(f)]
    return ranked if len(ranked) == len(fields) else None


def concatenate_rel(r: Relation) -> bool:
    fields = _ranked_fields(r)
    if fields is None:
        return False
    rank = len(fields[0].shape)
    for i, f in enumerate(fields):
        if len(f.shape) != rank:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`concatenate` needs tensors of one rank: field 0 has rank {rank}, field {i} has rank {len(f.shape)}",
                arg=0,
            )
    if rank == 0:
        r.fail(
            codes.SHAPE_MISMATCH,
            "`concatenate` cannot join scalars",
            arg=0,
            notes=["use `stack` to make a vector of scalars"],
        )
    axis = normalize_axis(r, r.attrs["axis"], rank)
    total: Any = 0
    for i, f in enumerate(fields):
        for ax in range(rank):
            if ax == axis:
                continue
            a, b = fields[0].shape[ax], f.shape[ax]
            if type(a) is int and type(b) is int and a != b:
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`concatenate` along axis {axis}: the tensors must agree on every other axis, but at axis {ax} "
                    f"field 0 has size {a} and field {i} has size {b}",
                    arg=0,
                )
            if not (type(a) is int and type(b) is int):
                r.unify(a, b, arg=0)
        d = f.shape[axis]
        if is_unknown(d):
            return False
        total = total + d if type(total) is int and type(d) is int else AnyDim()
    shape = (*fields[0].shape[:axis], total, *fields[0].shape[axis + 1 :])
    r.set_result(TensorType(shape, fields[0].dtype))
    return True


@register(
    "concatenate",
    inputs=1,
    relation=concatenate_rel,
    attrs=(Attr("axis", "int", 0),),
    doc="Join a tuple of tensors along an existing axis.",
)
def concatenate(args: Args, attrs: Attrs) -> Value:
    parts = args[0]
    return np.concatenate(parts, axis=attrs["axis"])


def stack_rel(r: Relation) -> bool:
    fields = _ranked_fields(r)
    if fields is None:
        return False
    first = fields[0]
    for i, f in enumerate(fields[1:], 1):
        if len(f.shape) != len(first.shape):
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`stack` needs tensors of one shape: field 0 is {shape_text(first.shape)}, field {i} is "
                f"{shape_text(f.shape)}",
                arg=0,
            )
        for ax, (a, b) in enumerate(zip(first.shape, f.shape, strict=False)):
            if type(a) is int and type(b) is int and a != b:
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`stack` needs tensors of one shape: field 0 is {shape_text(first.shape)}, field {i} is "
                    f"{shape_text(f.shape)}",
                    arg=0,
                    notes=[f"they differ at axis {ax}: {a} and {b}"],
                )
            r.unify(a, b, arg=0)
    rank = len(first.shape)
    axis = r.attrs["axis"]
    if not -rank - 1 <= axis <= rank:
        r.fail(codes.SHAPE_MISMATCH, f"`stack`: axis {axis} is out of range for the result of rank {rank + 1}")
    pos = axis if axis >= 0 else rank + 1 + axis
    shape = (*first.shape[:pos], len(fields), *first.shape[pos:])
    r.set_result(TensorType(shape, first.dtype))
    return True


@register(
    "stack",
    inputs=1,
    relation=stack_rel,
    attrs=(Attr("axis", "int", 0),),
    doc="Join a tuple of tensors of one shape along a new axis.",
)
def stack(args: Args, attrs: Attrs) -> Value:
    return np.stack(args[0], axis=attrs["axis"])


def split_sizes(r: Relation, dim: int, spec: Any) -> list[int]:
    if isinstance(spec, int):
        if spec <= 0:
            r.fail(codes.SHAPE_MISMATCH, f"`split` into {spec} sections: the number of sections must be positive")
        if dim % spec:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`split` cannot cut an axis of size {dim} into {spec} equal sections",
                notes=[f"{dim} is not a multiple of {spec}"],
            )
        return [dim // spec] * spec
    bounds = [0, *spec, dim]
    sizes = []
    for a, b in itertools.pairwise(bounds):
        if b < a or b > dim:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`split` indices {list(spec)} must be increasing and within the axis of size {dim}",
            )
        sizes.append(b - a)
    return sizes


def split_rel(r: Relation) -> bool:
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    rank = len(x.shape)
    axis = normalize_axis(r, r.attrs["axis"], rank)
    dim = x.shape[axis]
    if is_unknown(dim):
        return False
    spec = r.attrs["indices_or_sections"]
    if type(dim) is not int:
        if isinstance(spec, int):
            sizes: list[Any] = [AnyDim()] * spec
        else:
            sizes = [AnyDim()] * (len(spec) + 1)
    else:
        sizes = split_sizes(r, dim, spec)
    parts = tuple(TensorType((*x.shape[:axis], s, *x.shape[axis + 1 :]), x.dtype) for s in sizes)
    r.set_result(TupleType(parts))
    return True


@register(
    "split",
    inputs=1,
    relation=split_rel,
    attrs=(Attr("indices_or_sections", "int_or_ints"), Attr("axis", "int", 0)),
    doc="Cut a tensor along an axis into equal sections, or at the given indices; a tuple.",
)
def split(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    spec = attrs["indices_or_sections"]
    return tuple(np.split(x, spec if isinstance(spec, int) else list(spec), axis=attrs["axis"]))
