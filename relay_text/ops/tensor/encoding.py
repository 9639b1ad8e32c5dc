"""Indices in other encodings: `one_hot`, `dyn.one_hot`, `unravel_index`,
`invert_permutation`.

`one_hot(indices, on_value, off_value, depth=1, axis=-1, dtype)` adds an
axis of length `depth` at position `axis` (-1: last, else 0 ... rank of
the indices; TVM accepts no other negative value): along it, the element
at position `d` is `on_value` where the index equals `d`, `off_value`
elsewhere, both scalars converted to `dtype` (when `dtype` is not given,
the dtype of `on_value`). Indices outside [0, depth), negative ones
included, give a row of `off_value`. `dyn.one_hot` takes `depth` as a
fourth input, a scalar integer tensor, so the new axis has the size `?`.

`unravel_index(indices, shape)` turns flat indices into coordinates in a
tensor of the given shape (a vector of integers given as a tensor): for a
vector of n indices and a shape of k sizes, a (k, n) tensor whose column
`j` holds the coordinates of `indices[j]`; for a scalar index, a vector of
k coordinates. Each coordinate is the index divided by the product of the
sizes after it, modulo its size (flooring division), so an index past the
end wraps around; the result has the dtype of the indices.

`invert_permutation(p)` of a vector holding a permutation of 0 ... n-1 is
the vector `q` with `q[p[i]] = i`. A vector that is not a permutation
stops the evaluator with a `runtime-error` (TVM leaves such results
partly undefined).
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from ._indexing import assume, require_int, require_rank, settled
from .._np import np
from ..registry import Attr, KernelError, register
from ..relations import Relation, known_rank, relation
from ..types import Args, Attrs, Value

# ---------------------------------------------------------------- one_hot


def _one_hot_type(r: Relation, depth: Any) -> bool:
    require_rank(r, 1, (0,), "on_value")
    require_rank(r, 2, (0,), "off_value")
    for i in (1, 2):
        t = r.tensor(i)
        if not known_rank(t.shape):
            r.refine(i, TensorType((), t.dtype))
    indices = r.tensor(0)
    on = r.tensor(1)
    dtype = r.attrs["dtype"] or on.dtype
    if not known_rank(indices.shape):
        return False
    rank = len(indices.shape)
    axis = r.attrs["axis"]
    if not -1 <= axis <= rank:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}`: axis {axis} is out of range for indices of rank {rank}",
            arg=0,
            notes=[f"the new axis goes at a position 0 to {rank}, or -1 for the last"],
        )
    pos = rank if axis == -1 else axis
    r.set_result(TensorType((*tuple(indices.shape[:pos]), depth, *tuple(indices.shape[pos:])), dtype))
    return settled(r, *range(1, r.arity))


def _one_hot_default(r: Relation) -> bool:
    """On and off values from constants without metadata take the dtype attribute."""
    dtype = r.attrs["dtype"]
    done = False
    if dtype:
        for i in (1, 2):
            done = assume(r, i, TensorType((), dtype)) or done
    return done


def _dyn_one_hot_default(r: Relation) -> bool:
    """As `one_hot`'s, and a depth from a constant without metadata is an int32 scalar."""
    done = _one_hot_default(r)
    return assume(r, 3, TensorType((), "int32")) or done


@relation("OneHot", inputs=3, default=_one_hot_default)
def one_hot_rel(r: Relation) -> bool:
    depth = r.attrs["depth"]
    if depth <= 0:
        r.fail(codes.TYPE_MISMATCH, f"`one_hot` depth must be positive, found {depth}")
    return _one_hot_type(r, depth)


@relation("DynOneHot", inputs=4, default=_dyn_one_hot_default)
def dyn_one_hot_rel(r: Relation) -> bool:
    require_rank(r, 3, (0,), "depth")
    require_int(r, 3, "depth")
    return _one_hot_type(r, AnyDim())


def _one_hot(indices: Any, on: Any, off: Any, depth: int, axis: int, dtype: str) -> Any:
    pos = indices.ndim if axis == -1 else axis
    shape = [1] * (indices.ndim + 1)
    shape[pos] = depth
    hit = np.expand_dims(indices, pos) == np.arange(depth).reshape(shape)
    return np.where(hit, np.asarray(on).astype(dtype), np.asarray(off).astype(dtype))


_ONE_HOT_ATTRS = (Attr("depth", "int", 1), Attr("axis", "int", -1), Attr("dtype", "opt_dtype", ""))


@register(
    "one_hot",
    inputs=3,
    relation=one_hot_rel,
    attrs=_ONE_HOT_ATTRS,
    doc="A new axis of length depth holding on_value where the index equals the position, off_value elsewhere.",
)
def one_hot(args: Args, attrs: Attrs) -> Value:
    indices, on, off = args
    return _one_hot(indices, on, off, attrs["depth"], attrs["axis"], attrs["dtype"] or on.dtype)


@register(
    "dyn.one_hot",
    inputs=4,
    relation=dyn_one_hot_rel,
    attrs=_ONE_HOT_ATTRS,
    doc="`one_hot` with the depth given as a scalar tensor (the new axis has size ?).",
)
def dyn_one_hot(args: Args, attrs: Attrs) -> Value:
    indices, on, off, depth = args
    n = int(depth)
    if n < 0:
        raise KernelError(codes.RUNTIME_ERROR, f"dyn.one_hot: depth {n} is negative")
    return _one_hot(indices, on, off, n, attrs["axis"], attrs["dtype"] or on.dtype)


# ---------------------------------------------------------------- unravel_index


@relation("UnRavelIndexRel", inputs=2)
def unravel_index_rel(r: Relation) -> bool:
    require_int(r, 0, "indices")
    require_int(r, 1, "a shape")
    require_rank(r, 0, (0, 1), "indices")
    require_rank(r, 1, (1,), "the shape")
    indices, shape = r.tensor(0), r.tensor(1)
    if not (known_rank(indices.shape) and known_rank(shape.shape)):
        return False
    r.set_result(TensorType(tuple(shape.shape) + tuple(indices.shape), indices.dtype))
    return True


@register(
    "unravel_index",
    inputs=2,
    relation=unravel_index_rel,
    doc="The coordinates of flat indices in a tensor of the given shape, one row per axis.",
)
def unravel_index(args: Args, attrs: Attrs) -> Value:
    indices, shape = args
    sizes = [int(s) for s in shape.astype(np.int64)]
    if 0 in sizes:
        raise KernelError(codes.DIVISION_BY_ZERO, f"unravel_index: the shape {sizes} has a size 0")
    rest = indices.astype(np.int64)
    coords = [rest] * len(sizes)
    for k in range(len(sizes) - 1, -1, -1):
        coords[k] = rest % sizes[k]
        rest = rest // sizes[k]
    return np.stack(coords).astype(indices.dtype) if coords else np.zeros((0, *indices.shape), indices.dtype)


# ---------------------------------------------------------------- invert_permutation


@relation("Identity", inputs=1)
def invert_permutation_rel(r: Relation) -> bool:
    require_int(r, 0, "a permutation")
    require_rank(r, 0, (1,), "a permutation")
    r.set_result(r.tensor(0))
    return True


@register(
    "invert_permutation",
    inputs=1,
    relation=invert_permutation_rel,
    doc="The inverse of a permutation of 0 ... n-1 given as a vector.",
)
def invert_permutation(args: Args, attrs: Attrs) -> Value:
    p = args[0]
    n = p.shape[0]
    values = p.astype(np.int64)
    if not np.array_equal(np.sort(values), np.arange(n)):
        raise KernelError(codes.RUNTIME_ERROR, f"invert_permutation: the vector is not a permutation of 0 ... {n - 1}")
    out = np.empty(n, dtype=p.dtype)
    out[values] = np.arange(n).astype(p.dtype)
    return out
