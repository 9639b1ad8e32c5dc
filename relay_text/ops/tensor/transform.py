"""Shape transformations: reshape, transpose, squeeze, expand_dims, take,
broadcast_to. (Joining and splitting tensors is `joining`; tensors filled
with one value are made in `creation`.) Attribute names and defaults follow
TVM; `reshape`'s special values are TVM's:

    0   copy the input dimension at this position
    -1  infer this dimension from the element count (at most one)
    -2  copy all remaining input dimensions
    -3  merge the next two input dimensions into one
    -4  split the next input dimension into the two values that follow
        (one of them may be -1)
"""

from __future__ import annotations

import functools
from typing import Any, NoReturn

from ...diagnostics import codes
from ...ir.ty import AnyDim, Dim, TensorType
from .._checks import result_rank_within_limit
from ._indexing import same_dim
from .._np import np, wrap
from ..registry import Attr, KernelError, register
from ..relation import CanFail, Notes
from ..relations import (
    Relation,
    is_unknown,
    known_rank,
    normalize_axis,
    relation,
    shape_text,
)
from ..types import Args, Attrs, Dims, Shape, Value

# ---------------------------------------------------------------- reshape


def _count(shape: Shape) -> int | None:
    n = 1
    for d in shape:
        if type(d) is not int:
            return None
        n *= d
    return n


def reshape_dims(r: CanFail, ishape: Dims, newshape: Dims, allowzero: bool) -> Dims:
    """The result shape of `reshape` (see the module docstring); a
    dimension it cannot compute yet is `?`."""
    out: list[Any] = []
    infer_at = None
    src = 0
    i = 0
    n = len(newshape)
    while i < n:
        v = newshape[i]
        if v > 0 or (v == 0 and allowzero):
            out.append(v)
            src += 1
        elif v == 0:
            if src >= len(ishape):
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`reshape`: 0 at position {i} has no input dimension to copy",
                    notes=[f"the input shape is {shape_text(ishape)}"],
                )
            out.append(ishape[src])
            src += 1
        elif v == -1:
            if infer_at is not None:
                r.fail(codes.SHAPE_MISMATCH, "`reshape` can infer only one dimension: -1 appears twice in newshape")
            infer_at = len(out)
            out.append(-1)
            src += 1
        elif v == -2:
            out.extend(ishape[src:])
            src = len(ishape)
        elif v == -3:
            if src + 1 >= len(ishape):
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`reshape`: -3 at position {i} needs two input dimensions to merge",
                    notes=[f"the input shape is {shape_text(ishape)}"],
                )
            a, b = ishape[src], ishape[src + 1]
            out.append(a * b if type(a) is int and type(b) is int else AnyDim())
            src += 2
        elif v == -4:
            if i + 2 >= n:
                r.fail(codes.SHAPE_MISMATCH, "`reshape`: -4 must be followed by two values")
            if src >= len(ishape):
                r.fail(codes.SHAPE_MISMATCH, f"`reshape`: -4 at position {i} has no input dimension to split")
            d0 = ishape[src]
            d1, d2 = newshape[i + 1], newshape[i + 2]
            if type(d0) is not int:
                d1 = d1 if d1 > 0 else AnyDim()
                d2 = d2 if d2 > 0 else AnyDim()
            else:
                if d1 == -1 and d2 > 0:
                    d1 = d0 // d2
                elif d2 == -1 and d1 > 0:
                    d2 = d0 // d1
                if d1 <= 0 or d2 <= 0 or d1 * d2 != d0:
                    r.fail(
                        codes.SHAPE_MISMATCH,
                        f"`reshape`: -4 cannot split a dimension of size {d0} into {newshape[i + 1]} and "
                        f"{newshape[i + 2]}",
                    )
            out.extend([d1, d2])
            src += 1
            i += 2
        else:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`reshape`: {v} is not a valid newshape value",
                notes=["valid values are positive sizes and the special values 0, -1, -2, -3, -4"],
            )
        i += 1
    total = _count(ishape)
    if infer_at is not None:
        known = _count(tuple(d for j, d in enumerate(out) if j != infer_at))
        if total is None or known is None:
            out[infer_at] = AnyDim()
        elif known == 0 or total % known:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"cannot reshape {shape_text(ishape)} ({total} elements) into newshape {list(newshape)}",
                notes=[f"{total} is not a multiple of {known}, the product of the other dimensions"],
            )
        else:
            out[infer_at] = total // known
    result = tuple(out)
    count = _count(result)
    if total is not None and count is not None and total != count:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"cannot reshape {shape_text(ishape)} ({total} elements) into {shape_text(result)} ({count} elements)",
            notes=["reshape keeps the number of elements"],
        )
    return result


def _reshape_default(r: Relation) -> bool:
    """When the input has unknown dimensions that nothing else determines
    (constants without metadata upstream), assume the common pattern of
    merging or splitting leading axes: the input's trailing unknown
    dimensions equal the newshape's trailing sizes, aligned from the right."""
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    changed = False
    for d, v in zip(reversed(x.shape), reversed(r.attrs["newshape"]), strict=False):
        if v <= 0:
            break
        if is_unknown(d):
            r.unify(d, v, arg=0)
            changed = True
        elif d != v:
            break
    return changed


@relation("Reshape", default=_reshape_default)
def reshape_rel(r: Relation) -> bool:
    x = r.tensor(0)
    newshape = r.attrs["newshape"]
    if not known_rank(x.shape) or any(is_unknown(d) for d in x.shape):
        if all(v > 0 for v in newshape):
            out = r.tensor(-1)
            r.set_result(TensorType(tuple(newshape), x.dtype))
            del out
        return False
    shape = reshape_dims(r, x.shape, newshape, r.attrs["allowzero"])
    r.set_result(TensorType(shape, x.dtype))
    return True


class _KernelFailure:
    """`reshape_dims` in a kernel: a failure is a KernelError."""

    def fail(self, code: str, message: str, arg: int | None = None, notes: Notes = (), label: str = "") -> NoReturn:
        raise KernelError(codes.RUNTIME_ERROR, message)


@functools.lru_cache(maxsize=1024)
def _kernel_dims(shape: Shape, newshape: Shape, allowzero: bool) -> Dims:
    """`reshape_dims` of concrete shapes, remembered: a model reshapes the
    same shapes at every run (a failure is not remembered: it raises)."""
    return reshape_dims(_KernelFailure(), shape, newshape, allowzero)


@register(
    "reshape",
    inputs=1,
    relation=reshape_rel,
    attrs=(Attr("newshape", "ints"), Attr("allowzero", "bool", False)),
    doc="The same elements in a new shape (special values 0, -1, -2, -3, -4 as in TVM).",
)
def reshape(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    return np.reshape(x, _kernel_dims(x.shape, tuple(attrs["newshape"]), attrs["allowzero"]))


# ---------------------------------------------------------------- axes


def transpose_rel(r: Relation) -> bool:
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    rank = len(x.shape)
    axes = r.attrs["axes"]
    if axes is None:
        perm = list(range(rank - 1, -1, -1))
    else:
        if len(axes) != rank:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`transpose` of a tensor of rank {rank} needs {rank} axes, found {len(axes)}",
                notes=[f"the input shape is {shape_text(x.shape)}"],
            )
        perm = [normalize_axis(r, a, rank) for a in axes]
        if sorted(perm) != list(range(rank)):
            r.fail(codes.SHAPE_MISMATCH, f"`transpose` axes {list(axes)} are not a permutation of 0..{rank - 1}")
    r.set_result(TensorType(tuple(x.shape[p] for p in perm), x.dtype))
    return True


@register(
    "transpose",
    inputs=1,
    relation=transpose_rel,
    attrs=(Attr("axes", "opt_ints", None),),
    doc="Permute the axes (default: reverse them).",
)
def transpose(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    axes = attrs["axes"]
    return np.transpose(x, None if axes is None else [a % x.ndim for a in axes])


def squeeze_rel(r: Relation) -> bool:
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    axis = r.attrs["axis"]
    rank = len(x.shape)
    if axis is None:
        if any(is_unknown(d) for d in x.shape):
            return False
        shape = tuple(d for d in x.shape if d != 1)
    else:
        drop = set()
        for a in axis:
            n = normalize_axis(r, a, rank)
            if n in drop:
                r.fail(codes.TYPE_MISMATCH, f"`squeeze`: axis {a} is listed twice")
            d = x.shape[n]
            if is_unknown(d):
                return False
            if type(d) is int and d != 1:
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`squeeze` can only remove axes of size 1, but axis {a} has size {d}",
                    notes=[f"the input shape is {shape_text(x.shape)}"],
                )
            drop.add(n)
        shape = tuple(d for i, d in enumerate(x.shape) if i not in drop)
    r.set_result(TensorType(shape, x.dtype))
    return True


@register(
    "squeeze",
    inputs=1,
    relation=squeeze_rel,
    attrs=(Attr("axis", "opt_ints", None),),
    doc="Remove axes of size 1 (all of them by default).",
)
def squeeze(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    axis = attrs["axis"]
    if axis is None:
        return np.reshape(x, tuple(d for d in x.shape if d != 1))
    return np.squeeze(x, axis=tuple(a % x.ndim for a in axis))


def expand_dims_rel(r: Relation) -> bool:
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    rank = len(x.shape)
    axis = r.attrs["axis"]
    k = r.attrs["num_newaxis"]
    if k < 0:
        r.fail(codes.SHAPE_MISMATCH, f"`expand_dims`: num_newaxis must not be negative, found {k}")
    if not -rank - 1 <= axis <= rank:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`expand_dims`: axis {axis} is out of range for a tensor of rank {rank}",
            notes=[f"valid values are {-rank - 1} to {rank}"],
        )
    result_rank_within_limit(r, rank + k)
    pos = axis if axis >= 0 else rank + 1 + axis
    shape = x.shape[:pos] + (1,) * k + x.shape[pos:]
    r.set_result(TensorType(shape, x.dtype))
    return True


@register(
    "expand_dims",
    inputs=1,
    relation=expand_dims_rel,
    attrs=(Attr("axis", "int"), Attr("num_newaxis", "int", 1)),
    doc="Insert num_newaxis axes of size 1 at axis.",
)
def expand_dims(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    axis = attrs["axis"]
    pos = axis if axis >= 0 else x.ndim + 1 + axis
    return np.reshape(x, x.shape[:pos] + (1,) * attrs["num_newaxis"] + x.shape[pos:])


# ---------------------------------------------------------------- take and broadcast_to


def _take_default(r: Relation) -> bool:
    """A gather table that is a constant without metadata, whose type nothing
    else determines: a table of rank 2 (an embedding), whose gathered axis
    has an unknown size (`?`) and whose other axis is found from the uses."""
    a, idx = r.tensor(0), r.tensor(1)
    if known_rank(a.shape) or not known_rank(idx.shape) or not r.from_metadata(0):
        return False
    axis = r.attrs["axis"]
    if axis is None:
        r.refine(0, TensorType((AnyDim(),), a.dtype))
        return True
    if axis not in (0, 1, -1, -2):
        return False
    shape: list[Dim] = [r.fresh_dim(like=a.shape), r.fresh_dim(like=a.shape)]
    shape[axis % 2] = AnyDim()
    r.refine(0, TensorType(tuple(shape), a.dtype))
    return True


@relation("Take", default=_take_default)
def take_rel(r: Relation) -> bool:
    a = r.tensor(0)
    idx = r.tensor(1)
    if isinstance(idx.dtype, str) and not idx.dtype.startswith(("int", "uint")):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`take` needs integer indices, found `{idx.dtype}`",
            arg=1,
            label=f"this is `{idx.dtype}`",
        )
    mode = r.attrs["mode"]
    if mode not in ("clip", "wrap", "fast"):
        r.fail(codes.TYPE_MISMATCH, f'`take` mode must be "clip", "wrap" or "fast", found "{mode}"')
    if not (known_rank(a.shape) and known_rank(idx.shape)):
        return False
    axis = r.attrs["axis"]
    batch = r.attrs["batch_dims"]
    if axis is None:
        shape = idx.shape
    else:
        ax = normalize_axis(r, axis, len(a.shape))
        if batch < 0:
            batch += len(idx.shape)
        if not 0 <= batch <= min(len(idx.shape), ax):
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`take`: batch_dims={r.attrs['batch_dims']} is out of range for indices of rank {len(idx.shape)} and "
                f"axis {ax}",
                notes=[
                    "batch_dims counts leading axes shared by the data and the indices: at most the indices' rank, "
                    "and at most the axis"
                ],
            )
        for i in range(batch):
            same_dim(
                r,
                a.shape[i],
                idx.shape[i],
                1,
                f"`take`: batch axis {i} is {a.shape[i]} in the data but {idx.shape[i]} in the indices",
            )
        shape = a.shape[:ax] + idx.shape[batch:] + a.shape[ax + 1 :]
    r.set_result(TensorType(tuple(shape), a.dtype))
    return True


@register(
    "take",
    inputs=2,
    relation=take_rel,
    attrs=(Attr("axis", "opt_int", None), Attr("batch_dims", "int", 0), Attr("mode", "str", "clip")),
    doc="Gather elements (or slices along axis) at the given indices.",
)
def take(args: Args, attrs: Attrs) -> Value:
    a, idx = args
    mode = attrs["mode"]
    axis = attrs["axis"]
    how = "raise" if mode == "fast" else mode
    batch = attrs["batch_dims"]
    try:
        if axis is not None and batch:
            return wrap(_batched_take(a, np.asarray(idx), axis, batch, how), a.dtype)
        return wrap(np.take(a, idx, axis=axis, mode=how), a.dtype)
    except IndexError as exc:
        raise KernelError(codes.RUNTIME_ERROR, f"take: index out of range ({exc})") from None


def _batched_take(a: Any, idx: Any, axis: int, batch: int, mode: str) -> Any:
    """`take` whose first `batch` axes pair the data with the indices: each
    batch element takes from its own slice."""
    if batch < 0:
        batch += idx.ndim
    axis %= a.ndim
    lead = a.shape[:batch]
    shape = lead + a.shape[batch:axis] + idx.shape[batch:] + a.shape[axis + 1 :]
    count = int(np.prod(lead, dtype=np.int64))
    data = a.reshape((count, *a.shape[batch:]))
    index = idx.reshape((count, *idx.shape[batch:]))
    out = np.empty(shape, dtype=a.dtype).reshape((count, *shape[batch:]))
    for b in range(count):
        out[b] = np.take(data[b], index[b], axis=axis - batch, mode=mode)
    return out.reshape(shape)


def broadcast_to_rel(r: Relation) -> bool:
    x = r.tensor(0)
    target = tuple(r.attrs["shape"])
    if any(d < 0 for d in target):
        r.fail(codes.SHAPE_MISMATCH, f"`broadcast_to`: a shape cannot have negative sizes, found {list(target)}")
    if not known_rank(x.shape):
        r.set_result(TensorType(target, x.dtype))
        return False
    from ..relations import broadcast_dims

    shape = broadcast_dims(r, x.shape, target)
    if shape is None:
        return False
    if shape != target:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`broadcast_to` cannot broadcast {shape_text(x.shape)} to {shape_text(target)}",
            arg=0,
        )
    r.set_result(TensorType(target, x.dtype))
    return True


@register(
    "broadcast_to",
    inputs=1,
    relation=broadcast_to_rel,
    attrs=(Attr("shape", "ints"),),
    doc="Broadcast a tensor to a shape, as numpy.",
)
def broadcast_to(args: Args, attrs: Attrs) -> Value:
    return np.array(np.broadcast_to(args[0], tuple(attrs["shape"])))


__all__ = ["reshape_dims"]
