"""The types kernels and relations are written with, defined once.

A kernel is `kernel(args: Args, attrs: Attrs) -> Value` (see `registry` for
the contract); a relation is `relation(r: Relation) -> bool` (`RelationFn`,
next to the `Relation` interface in `relation`).

* `Value` - a runtime value: a numpy array, or, for an input or result of
  tuple type, a Python tuple of values. Which of the two, its dtype and
  its rank are fixed per operator by the type relation the checker ran,
  not by anything Python's type system can see; and numpy itself is
  imported lazily (`_np`) and seen as `Any`. So a value is `Any`, named.
* `Args` - the positional inputs of one call.
* `AttrValue`, `Attrs` - an attribute's value in normal form and the
  attributes of one call (see `registry.Attr.convert`): the Python type of
  a value is the one its `Attr.kind` gives (an int for "int", a tuple of
  ints for "ints", None for an unset "opt_*"), fixed by the operator's
  schema rather than by the type of the mapping, hence `Any`.
* `Shape` - a concrete shape, as kernels compute with it; `Dims` - the
  dimensions of a checked tensor type of known rank, as relations see them.
* `Kernel`, `ScalarKernel` - the callables a registration holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

# Any: the kind of value (array or tuple) is the type relation's to know (see above).
Value: TypeAlias = Any
Args: TypeAlias = tuple[Value, ...]
# Any: the Python type of an attribute is fixed by its kind in the schema (see above).
AttrValue: TypeAlias = Any
Attrs: TypeAlias = dict[str, AttrValue]
Shape: TypeAlias = tuple[int, ...]
# Any: the dimensions of a checked type of known rank - ints, or unknowns
# (`ir.ty.Dim`); relations test each (`static`, `is_unknown`) before they
# compute with it, which the type system does not follow.
Dims: TypeAlias = tuple[Any, ...]

Kernel: TypeAlias = Callable[[Args, Attrs], Value]
# The scalar fast path: numpy scalars in, a numpy scalar out (see `registry`).
ScalarKernel: TypeAlias = Callable[..., Value]
