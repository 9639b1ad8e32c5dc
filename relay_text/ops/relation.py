"""The interface between the type checker and an operator's type relation.

A relation is a function `relation(r: Relation) -> bool`. The type checker
calls it whenever something it depends on may have become known, until it
returns True. `r` describes one call of the operator:

    r.op            the operator's name (as written: `+` for an infix add)
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
    r.fail(code, message, arg=None, notes=(), label="")
                    report that the relation cannot hold (raises)
    r.fresh_shape(), r.fresh_dim(), r.fresh_dtype()
                    new unknowns
    r.adt(name)     the data type `name` as the program sees it (its own
                    definition, else the Prelude's), e.g. `Storage`
    r.from_metadata(i)
                    whether the unknown parts of input i all come from
                    `meta[relay.Constant][...]` without a metadata table

A relation returns True once it has said everything it can (normally: when
it has set the result), and False when it needs more information (an input
whose shape is still unknown); it is then run again when any unknown inside
its inputs or result is refined. Relations never see a type they cannot
handle silently: they `fail` with a diagnostic code (`type-mismatch`,
`shape-mismatch`) and a message naming the axis and the sizes involved.

`@relation("Name", inputs=n, default=fn)` gives a relation function what
the checker knows it by (see `relation`): it then is a `NamedRelation`,
still called as `rel(r)`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn, Protocol
from collections.abc import Callable

from .types import Attrs, Dims
from ..ir.ty import AnyDim, DimBinOp, IncompleteType, TensorType, Type, TypeCall

if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes, for less at import (see relay_text/record.py)
    from ..record import dataclass, field

OUT = -1  # `r.tensor(OUT)`: the call's result rather than an input

# What `r.unify` relates: whole types, shapes (tuples of dimensions or a
# shape variable), single dimensions, dtypes.
Unifiable = Type | Dims | int | str | AnyDim | DimBinOp
# The notes of a failure, shown under its message.
Notes = tuple[str, ...] | list[str]


class CanFail(Protocol):
    """The part of a `Relation` that reports a failure. A shape computation
    that a relation and a kernel share takes only this: the kernel passes an
    object whose `fail` raises a `KernelError` instead."""

    def fail(self, code: str, message: str, arg: int | None = None, notes: Notes = (), label: str = "") -> NoReturn: ...


class Relation(CanFail, Protocol):
    """What a relation is given: one call of its operator (see the module docstring)."""

    @property
    def op(self) -> str: ...
    @property
    def attrs(self) -> Attrs: ...
    @property
    def arity(self) -> int: ...

    def arg(self, i: int) -> Type: ...
    def result(self) -> Type: ...
    def tensor(self, i: int) -> TensorType: ...
    def tensor_of(self, t: Type, arg: int | None = None, what: str = "this value") -> TensorType: ...
    def unify(self, a: Unifiable, b: Unifiable, arg: int | None = None, message: str = "") -> None: ...
    def refine(self, i: int, t: Type) -> None: ...
    def set_result(self, t: Type) -> None: ...
    def unify_dtypes(self, i: int, j: int) -> None: ...
    def from_metadata(self, i: int) -> bool: ...
    def fresh_shape(self) -> IncompleteType: ...
    def fresh_dim(self, like: object = None) -> IncompleteType: ...
    def fresh_dtype(self) -> IncompleteType: ...
    def adt(self, name: str) -> TypeCall: ...


RelationFn = Callable[[Relation], bool]


@dataclass(frozen=True, slots=True)
class NamedRelation:
    """A relation function with its name, and maybe a fallback for when
    solving is stuck. Called like the function it holds.

    * `relation_name` - how types and `where` clauses name it (`Broadcast`);
      the checker takes the operator's name for a relation without one;
    * `default` - run only when solving is otherwise stuck: it may commit to
      a likely type for unknowns nothing else determines (a constant without
      metadata next to a known tensor) and returns True if it did.
    """

    fn: RelationFn
    relation_name: str
    default: RelationFn | None = None

    def __call__(self, r: Relation) -> bool:
        return self.fn(r)


@dataclass(frozen=True, slots=True)
class FixedArityRelation(NamedRelation):
    """A named relation over a fixed number of inputs: a `where` clause
    naming it must relate exactly `inputs` parameters. (A `NamedRelation`
    has no `inputs` at all: whatever number a `where` clause gives it is
    taken.)"""

    inputs: int = field(kw_only=True)


def relation(
    name: str, inputs: int | None = None, default: RelationFn | None = None
) -> Callable[[RelationFn], NamedRelation]:
    """Decorator naming a relation function: the `name` shown in types and
    `where` clauses (`Broadcast`), the number of inputs it relates when a
    `where` clause may name it, and a `default` run only when solving is
    otherwise stuck (see `NamedRelation`)."""

    def decorate(fn: RelationFn) -> NamedRelation:
        if inputs is None:
            return NamedRelation(fn, name, default)
        return FixedArityRelation(fn, name, default, inputs=inputs)

    return decorate


def relation_name(fn: RelationFn) -> str:
    """The name `fn` was given with `@relation`, or ""."""
    return fn.relation_name if isinstance(fn, NamedRelation) else ""
