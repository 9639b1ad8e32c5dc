"""Type relations: what an operator's `relation` is given, and shared ones.

A relation is a function `relation(r) -> bool`. The type checker calls it
whenever something it depends on may have become known, until it returns
True. `r` describes one call of the operator:

    r.op            the operator's name
    r.attrs         the call's attributes, validated, defaults filled in
    r.arity         the number of positional inputs
    r.arg(i)        the type of input i, with everything known substituted
    r.result()      the type of the call's result, likewise
    r.tensor(i)     input i as a TensorType; an input whose type is still
                    unknown becomes `Tensor[_, _]` (a tensor of unknown shape
                    and dtype), anything else is a type error.
                    `r.tensor(OUT)` does the same for the result.
    r.tensor_of(t, arg, what)
                    the same for a type nested in input `arg` (a tuple field)
    r.unify_dtypes(i, j)
                    inputs i and j must have one dtype
    r.unify(a, b)   make two types (or shapes, dims, dtypes) equal
    r.refine(i, t)  make input i equal to t (errors point at that input);
                    this is how a relation infers an input from attributes
                    or from the result (backward inference)
    r.set_result(t) make the result equal to t
    r.fail(code, message, arg=None, notes=())
                    report that the relation cannot hold (raises)
    r.fresh_shape(), r.fresh_dim(), r.fresh_dtype()
                    new unknowns
    r.adt(name)     the data type `name` as the program sees it (its own
                    definition, else the Prelude's), e.g. `Storage`
    r.from_metadata(i)
                    whether the unknown parts of input i all come from
                    `meta[relay.Constant][...]` without a metadata table

A relation may also carry a `default(r)` attribute: a function run only
when solving is otherwise stuck, which may commit to a likely type for
unknowns nothing else determines (and returns True if it did).

A relation returns True once it has said everything it can (normally: when
it has set the result), and False when it needs more information (an input
whose shape is still unknown); it is then run again when any unknown inside
its inputs or result is refined. Relations never see a type they cannot
handle silently: they `fail` with a diagnostic code (`type-mismatch`,
`shape-mismatch`) and a message naming the axis and the sizes involved.

Shapes are tuples of dimensions: an int, `?` (AnyDim), a shape variable or
arithmetic on them, or an unknown dimension. `static(dim)` gives the int of
a dimension when it is one.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence

from ..diagnostics import codes
from ..ir.ty import AnyDim, IncompleteType, TensorType, Type

OUT = -1


class RelationCall(Protocol):
    """What a relation is given: one call of its operator (see above)."""

    op: str
    attrs: dict[str, Any]
    arity: int

    def arg(self, i: int) -> Any: ...
    def result(self) -> Any: ...
    def tensor(self, i: int) -> TensorType: ...
    def tensor_of(self, t: Any, arg: int | None = None, what: str = "this value") -> TensorType: ...
    def unify(self, a: Any, b: Any, arg: int | None = None, message: str = "") -> None: ...
    def refine(self, i: int, t: Any) -> None: ...
    def set_result(self, t: Any) -> None: ...
    def unify_dtypes(self, i: int, j: int) -> None: ...
    def from_metadata(self, i: int) -> bool: ...
    def fail(self, code: str, message: str, arg: int | None = None, notes: Sequence[str] = (), label: str = "") -> None: ...
    def fresh_shape(self) -> Any: ...
    def fresh_dim(self, like: Any = None) -> Any: ...
    def fresh_dtype(self) -> Any: ...
    def fresh(self) -> Type: ...
    def adt(self, name: str) -> Type: ...


RelationFn = Callable[[RelationCall], bool]


def relation(
    name: str, inputs: int | None = None, default: RelationFn | None = None
) -> Callable[[RelationFn], RelationFn]:
    """Decorator giving a relation function its metadata: the `name` shown in
    types and `where` clauses (`Broadcast`), the number of inputs it relates
    when a `where` clause may name it, and a `default` run only when solving
    is otherwise stuck (see above)."""

    def decorate(fn: RelationFn) -> RelationFn:
        fn.relation_name = name  # type: ignore[attr-defined]  # read back by the registry and the checker
        if inputs is not None:
            fn.inputs = inputs  # type: ignore[attr-defined]
        if default is not None:
            fn.default = default  # type: ignore[attr-defined]
        return fn

    return decorate


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


def known_rank(shape: Any) -> bool:
    return type(shape) is tuple


def is_unknown(x: Any) -> bool:
    """True for an unknown (a hole) in a shape, dimension or dtype position."""
    return isinstance(x, IncompleteType)


def shape_text(shape: Any) -> str:
    from ..text.type_text import shape_text as text

    return text(shape)


def normalize_axis(r: RelationCall, axis: int, rank: int, what: str = "axis") -> int:
    """`axis` in [0, rank), counting negative values from the end; fails otherwise."""
    if -rank <= axis < rank:
        return axis % rank if rank else 0
    r.fail(codes.SHAPE_MISMATCH, f"{what} {axis} is out of range for a tensor of rank {rank}", arg=0,
           notes=(f"valid values are {-rank} to {rank - 1}" if rank else "a scalar has no axes",))
    raise AssertionError  # fail raises


# ---------------------------------------------------------------- shared relations


@relation("Identity", inputs=1)
def identity(r: RelationCall) -> bool:
    """The result has the type of the one input, which is a tensor."""
    x = r.tensor(0)
    r.set_result(x)
    return True


@relation("Identity")
def same_types(r: RelationCall) -> bool:
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


def broadcast_dims(r: RelationCall, a: tuple, b: tuple) -> tuple | None:
    """numpy broadcasting of two shapes; None when a dimension is still unknown."""
    n = max(len(a), len(b))
    pa = (1,) * (n - len(a)) + a
    pb = (1,) * (n - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(pa, pb)):
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


def _broadcast(r: RelationCall, result_dtype: str | None) -> bool:
    a = r.tensor(0)
    b = r.tensor(1)
    if a.dtype != b.dtype or type(a.dtype) is not str:
        r.unify_dtypes(0, 1)
        a, b = r.tensor(0), r.tensor(1)
    dtype = result_dtype if result_dtype is not None else a.dtype
    shape = None
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


def _broadcast_default(r: RelationCall) -> bool:
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
def broadcast(r: RelationCall) -> bool:
    """Two tensors of one dtype; the result has their broadcast shape and that dtype."""
    return _broadcast(r, None)


def require_numeric(r: RelationCall, i: int) -> None:
    """Input i is a number tensor (not bool)."""
    t = r.tensor(i)
    if t.dtype == "bool":
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` takes numbers, not bool",
            arg=i,
            label="this is `bool`",
            notes=['use `logical_and`, `logical_or`, `logical_not` on bools, or `cast(x, dtype="int32")` first'],
        )


@relation("Broadcast", inputs=2, default=_broadcast_default)
def arithmetic(r: RelationCall) -> bool:
    """`Broadcast` for arithmetic: two number tensors of one dtype."""
    require_numeric(r, 0)
    require_numeric(r, 1)
    return _broadcast(r, None)


@relation("Identity", inputs=1)
def numeric_identity(r: RelationCall) -> bool:
    """A number tensor; the result has its type."""
    require_numeric(r, 0)
    return identity(r)


@relation("BroadcastComp", inputs=2)
def broadcast_bool(r: RelationCall) -> bool:
    """Like `broadcast`, but the result is bool (comparisons)."""
    return _broadcast(r, "bool")


@relation("Broadcast", inputs=2)
def broadcast_logical(r: RelationCall) -> bool:
    """Two bool tensors; the result is their broadcast, bool."""
    for i in (0, 1):
        t = r.tensor(i)
        r.refine(i, TensorType(t.shape, "bool"))
    return _broadcast(r, "bool")


# Relations a `where` clause may name: they need no attributes.
NAMED: dict[str, Any] = {
    "Identity": same_types,
    "Broadcast": broadcast,
    "BroadcastComp": broadcast_bool,
}
