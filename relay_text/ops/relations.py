"""Relations shared by many operators, and helpers for writing relations.

What a relation is given and how it is named: `relay_text.ops.relation`
(re-exported here, where the family modules import it from).

Shapes are tuples of dimensions: an int, `?` (AnyDim), a shape variable or
arithmetic on them, or an unknown dimension. `static(dim)` gives the int of
a dimension when it is one; `known_rank(shape)` tells a tuple of dimensions
from a shape still unknown (and lets the type checker see it as a tuple).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeGuard

from .types import Dims

from ..diagnostics import codes
from ..ir.ty import AnyDim, IncompleteType, Shape, TensorType
from .relation import OUT as OUT
from .relation import NamedRelation as NamedRelation
from .relation import Relation as Relation
from .relation import RelationFn as RelationFn
from .relation import relation as relation


def static(dim: Any) -> int | None:
    """The dimension as an int, or None when it is symbolic or unknown."""
    return dim if type(dim) is int else None


def static_shape(shape: Any) -> tuple[int, ...] | None:
    """The shape as ints, or None unless every dimension is an int."""
    if type(shape) is not tuple:
        return None
    for d in shape:
        if type(d) is not int:
            return None
    return shape


def known_rank(shape: object) -> TypeGuard[Dims]:
    """True for a tuple of dimensions, False for a shape variable or unknown."""
    return type(shape) is tuple


if TYPE_CHECKING:

    class RankedTensor(TensorType):
        """A TensorType whose shape is a tuple of dimensions (its rank is
        known): what `has_rank` tells, and what helpers that wait for a
        rank return. It exists for the type checker only."""

        shape: Dims

else:
    RankedTensor = TensorType


def has_rank(t: TensorType) -> TypeGuard[RankedTensor]:
    """True when the tensor type's shape is a tuple of dimensions."""
    return type(t.shape) is tuple


def is_unknown(x: Any) -> bool:
    """True for an unknown (a hole) in a shape, dimension or dtype position."""
    return isinstance(x, IncompleteType)


def shape_text(shape: Any) -> str:
    from ..text.type_text import shape_text as text

    return text(shape)


def normalize_axis(r: Relation, axis: int, rank: int, what: str = "axis") -> int:
    """`axis` in [0, rank), counting negative values from the end; fails otherwise."""
    if -rank <= axis < rank:
        return axis % rank if rank else 0
    r.fail(
        codes.SHAPE_MISMATCH,
        f"{what} {axis} is out of range for a tensor of rank {rank}",
        arg=0,
        notes=(f"valid values are {-rank} to {rank - 1}" if rank else "a scalar has no axes",),
    )


# ---------------------------------------------------------------- shared relations


@relation("Identity", inputs=1)
def identity(r: Relation) -> bool:
    """The result has the type of the one input, which is a tensor."""
    x = r.tensor(0)
    r.set_result(x)
    return True


@relation("Identity")
def same_types(r: Relation) -> bool:
    """Every type it relates (the inputs and the result) is one type, of any
    kind: tensors, tuples, functions, data types, unknowns. This is the
    `Identity` a `where` clause names (seed 001, "Type Relation":
    `Identity(I, I)`; TVM's IdentityRel assigns every type to the first)."""
    first = r.arg(0) if r.arity else r.result()
    for i in range(1, r.arity):
        r.unify(first, r.arg(i), arg=i, message=_SAME_TYPES)
    if r.arity:
        r.unify(first, r.result(), message=_SAME_TYPES)
    return True


_SAME_TYPES = "`Identity` relates types that must be one type: expected `{expected}`, found `{found}`"


def broadcast_dims(r: Relation, a: Dims, b: Dims) -> Dims | None:
    """numpy broadcasting of two shapes; None when a dimension is still unknown."""
    n = max(len(a), len(b))
    pa = (1,) * (n - len(a)) + a
    pb = (1,) * (n - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(pa, pb, strict=False)):
        if is_unknown(x) or is_unknown(y):
            if x == 1:
                out.append(y)
                continue
            if y == 1:
                out.append(x)
                continue
            if x is y:
                out.append(x)
                continue
            return None
        if x == y:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif isinstance(x, AnyDim):
            out.append(y)
        elif isinstance(y, AnyDim):
            out.append(x)
        else:
            ax = i - (n - len(a))
            bx = i - (n - len(b))
            r.fail(
                codes.SHAPE_MISMATCH,
                f"cannot broadcast shapes {shape_text(a)} and {shape_text(b)}",
                notes=(
                    f"axis {ax} of the first operand has size {_dim(x)}, axis {bx} of the second has size {_dim(y)}; "
                    "sizes must be equal or one of them 1",
                ),
            )
    return tuple(out)


def _dim(d: Any) -> str:
    from ..text.type_text import dim_text

    return dim_text(d)


def _broadcast(r: Relation, result_dtype: str | None, a: TensorType | None = None, b: TensorType | None = None) -> bool:
    """`a` and `b`: inputs 0 and 1 as `r.tensor` just gave them, when the caller has them."""
    a = r.tensor(0) if a is None else a
    b = r.tensor(1) if b is None else b
    if a.dtype != b.dtype or type(a.dtype) is not str:
        r.unify_dtypes(0, 1)
        a, b = r.tensor(0), r.tensor(1)
    dtype = result_dtype if result_dtype is not None else a.dtype
    shape: Shape | None = None
    if known_rank(a.shape) and known_rank(b.shape):
        shape = broadcast_dims(r, a.shape, b.shape)
    elif b.shape == () or a.shape is b.shape:
        shape = a.shape  # a scalar, or the very same (unknown or symbolic) shape
    elif a.shape == ():
        shape = b.shape
    if shape is None:
        out = r.tensor(OUT)
        r.set_result(TensorType(out.shape, dtype))
        return False
    r.set_result(TensorType(shape, dtype))
    return True


def _broadcast_default(r: Relation) -> bool:
    """A constant without metadata, combined with a known tensor, is taken to be
    a vector along that tensor's last axis (a bias, a per-feature scale: the
    common case, and always a valid choice since it broadcasts to the other
    operand's shape); combined with a scalar, a scalar."""
    a, b = r.tensor(0), r.tensor(1)
    for known, unknown in ((a, 1), (b, 0)):
        if known_rank(known.shape) and not known_rank(r.tensor(unknown).shape) and r.from_metadata(unknown):
            r.refine(unknown, TensorType(known.shape[-1:], known.dtype))
            return True
    return False


@relation("Broadcast", inputs=2, default=_broadcast_default)
def broadcast(r: Relation) -> bool:
    """Two tensors of one dtype; the result has their broadcast shape and that dtype."""
    return _broadcast(r, None)


def require_numeric(r: Relation, i: int) -> TensorType:
    """Input i is a number tensor (not bool); it, as `r.tensor(i)` gives it."""
    t = r.tensor(i)
    if t.dtype == "bool":
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` takes numbers, not bool",
            arg=i,
            label="this is `bool`",
            notes=['use `logical_and`, `logical_or`, `logical_not` on bools, or `cast(x, dtype="int32")` first'],
        )
    return t


@relation("Broadcast", inputs=2, default=_broadcast_default)
def arithmetic(r: Relation) -> bool:
    """`Broadcast` for arithmetic: two number tensors of one dtype."""
    a = require_numeric(r, 0)
    b = require_numeric(r, 1)
    return _broadcast(r, None, a, b)


@relation("Identity", inputs=1)
def numeric_identity(r: Relation) -> bool:
    """A number tensor; the result has its type."""
    require_numeric(r, 0)
    return identity(r)


@relation("BroadcastComp", inputs=2)
def broadcast_bool(r: Relation) -> bool:
    """Like `broadcast`, but the result is bool (comparisons)."""
    return _broadcast(r, "bool")


@relation("Broadcast", inputs=2)
def broadcast_logical(r: Relation) -> bool:
    """Two bool tensors; the result is their broadcast, bool."""
    for i in (0, 1):
        t = r.tensor(i)
        r.refine(i, TensorType(t.shape, "bool"))
    return _broadcast(r, "bool")


# Relations a `where` clause may name: they need no attributes.
NAMED: dict[str, RelationFn] = {
    "Identity": same_types,
    "Broadcast": broadcast,
    "BroadcastComp": broadcast_bool,
}
