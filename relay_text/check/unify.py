"""Unification: making two types equal, by union-find over holes.

`Unifier.unify(expected, found)` works through a list of pairs rather than
by recursion, so types of any depth unify without exhausting the stack:

* two holes are merged (union-find; the lower generalization level, the
  better origin and both trigger lists are kept);
* a hole and anything else: the occurs check rejects solving `?a` to a type
  containing `?a`; otherwise the hole is solved, holes inside the solution
  inherit its trigger list and level, and its relations are woken;
* tensors unify shape with shape (same rank, dimension by dimension) and
  dtype with dtype; tuples, functions and type calls part by part; type
  calls only when they call the same ADT (ADTs are nominal);
* dimensions are decided by `dims.solve` (linear equations with one
  unknown are solved; `?` fits any dimension); an equation that cannot be
  decided yet is handed to the solver to retry later.

A failure raises `UnifyError` carrying the innermost pair that differs and
why, so a diagnostic can say "the dtypes differ" rather than only that two
large types do.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from ..ir.ty import AnyDim, DimBinOp, FuncType, TensorType, TupleType, TypeCall, TypeVar
from . import dims
from .types import ERROR, Hole, RefType, find, substitute, tensor_parts, walk

_DIM_CLASSES = (int, AnyDim, DimBinOp)


class UnifyError(Exception):
    """Two types cannot be made equal.

    `expected`/`found` are the innermost parts that differ; `reason` is one
    of "mismatch", "rank" (shapes of different length), "arity" (tuples or
    functions of different length), "dim", "dtype", "occurs".
    """

    def __init__(self, expected: Any, found: Any, reason: str = "mismatch", index: int | None = None) -> None:
        super().__init__(reason)
        self.expected = expected
        self.found = found
        self.reason = reason
        self.index = index  # the axis, field or parameter where the parts differ


def _origin_rank(origin: Any) -> int:
    return getattr(origin, "rank", 0) if origin is not None else -1


class Unifier:
    def __init__(self, wake: Callable[[list[Any]], None], defer: Callable[[Any, Any], None]) -> None:
        self.wake = wake
        self.defer = defer
        # A polymorphic function found where a monomorphic one is expected is
        # an instance of it (fresh unknowns for its type parameters): the checker
        # sets this, so that the instance also carries its `where` relations.
        self.instantiate: Callable[[FuncType], FuncType] | None = None

    # ---- holes -------------------------------------------------------------

    def bind(self, hole: Hole, value: Any) -> None:
        """Solve `hole` to `value` (which is not a hole)."""
        triggers = hole.triggers
        if value is not ERROR and not _plain_tensor(value):
            level = hole.level
            parts = tensor_parts(value) if type(value) is TensorType else None
            for node in walk(value) if parts is None else parts:
                if type(node) is Hole:
                    if node is hole:
                        raise UnifyError(hole, value, "occurs")
                    if node.level > level:
                        node.level = level
                    if triggers:
                        if node.triggers is None:
                            node.triggers = list(triggers)
                        else:
                            node.triggers.extend(triggers)
        hole.link = value
        if triggers:
            hole.triggers = None
            self.wake(triggers)

    def merge(self, a: Hole, b: Hole) -> None:
        """Make two unsolved holes one (the root keeps the more telling origin)."""
        if _origin_rank(b.origin) > _origin_rank(a.origin):
            a, b = b, a
        b.link = a
        if b.level < a.level:
            a.level = b.level
        ta, tb = a.triggers, b.triggers
        if tb:
            b.triggers = None
            if ta:
                ta.extend(tb)
                # Constraints on both sides now share an unknown: both may progress.
                self.wake(ta)
            else:
                a.triggers = tb

    # ---- unification -------------------------------------------------------

    def unify(self, expected: Any, found: Any) -> None:
        # (the common case first: an unknown meets a type, as a relation's result does)
        if type(expected) is Hole and type(found) is not Hole:
            hole = find(expected)
            if type(hole) is Hole:
                self.bind(hole, found)
                return
        elif type(found) is Hole and type(expected) is not Hole:
            hole = find(found)
            if type(hole) is Hole:
                self.bind(hole, expected)
                return
        work: list[tuple[Any, Any, int | None]] = [(expected, found, None)]
        # Compound pairs already taken apart: types that share parts (a tuple
        # of the same tuple, forty deep) unify in time linear in their parts.
        done: set[tuple[int, int]] = set()
        while work:
            x, y, index = work.pop()
            if x is y:
                continue
            if type(x) is Hole:
                x = find(x)
            if type(y) is Hole:
                y = find(y)
            if x is y:
                continue
            tx, ty = type(x), type(y)
            if tx is Hole:
                if ty is Hole:
                    self.merge(x, y)
                else:
                    self.bind(x, y)
                continue
            if ty is Hole:
                self.bind(y, x)
                continue
            if x is ERROR or y is ERROR:
                continue
            if tx is TensorType and ty is TensorType:
                if x == y:
                    continue
                work.append((x.dtype, y.dtype, None))
                work.append((x.shape, y.shape, None))
            elif tx is tuple and ty is tuple:
                if len(x) != len(y):
                    raise UnifyError(x, y, "rank")
                for i in range(len(x) - 1, -1, -1):
                    work.append((x[i], y[i], i))
            elif tx in _DIM_CLASSES or ty in _DIM_CLASSES:
                if tx is int and ty is int:
                    if x != y:
                        raise UnifyError(x, y, "dim", index)
                    continue
                status, hole, value = dims.solve(x, y)
                if status == dims.FAILED:
                    raise UnifyError(x, y, "dim", index)
                if status == dims.WAIT:
                    self.defer(x, y)
                elif hole is not None:
                    self.bind(hole, value)
            elif tx is str and ty is str:
                if x != y:
                    raise UnifyError(x, y, "dtype")
            elif (tx is TupleType or tx is FuncType or tx is TypeCall) and (id(x), id(y)) in done:
                continue
            elif tx is TupleType and ty is TupleType:
                done.add((id(x), id(y)))
                if len(x.fields) != len(y.fields):
                    raise UnifyError(x, y, "arity")
                for i in range(len(x.fields) - 1, -1, -1):
                    work.append((x.fields[i], y.fields[i], i))
            elif tx is FuncType and ty is FuncType:
                done.add((id(x), id(y)))
                if len(x.arg_types) != len(y.arg_types):
                    raise UnifyError(x, y, "arity")
                if y.type_params and not x.type_params and self.instantiate is not None:
                    y = self.instantiate(y)
                if x.type_params or y.type_params:
                    x, y = self._skolemize(x, y)
                work.append((x.ret_type, y.ret_type, None))
                for i in range(len(x.arg_types) - 1, -1, -1):
                    work.append((x.arg_types[i], y.arg_types[i], i))
            elif tx is TypeCall and ty is TypeCall:
                done.add((id(x), id(y)))
                if x.func is not y.func or len(x.args) != len(y.args):
                    raise UnifyError(x, y)
                for i in range(len(x.args) - 1, -1, -1):
                    work.append((x.args[i], y.args[i], i))
            elif tx is RefType and ty is RefType:
                work.append((x.value, y.value, None))
            else:
                raise UnifyError(x, y)

    def _skolemize(self, x: FuncType, y: FuncType) -> tuple[FuncType, FuncType]:
        """Two polymorphic function types: the same type parameters, renamed alike."""
        if len(x.type_params) != len(y.type_params) or any(
            a.kind != b.kind for a, b in zip(x.type_params, y.type_params, strict=False)
        ):
            raise UnifyError(x, y)
        rigid = [TypeVar(p.name, p.kind) for p in x.type_params]
        fx = substitute(FuncType(x.arg_types, x.ret_type), dict(zip(x.type_params, rigid, strict=False)))
        fy = substitute(FuncType(y.arg_types, y.ret_type), dict(zip(y.type_params, rigid, strict=False)))
        return fx, fy


def _plain_tensor(t: Any) -> bool:
    """A tensor type with a static shape and dtype: nothing inside to visit."""
    if type(t) is not TensorType or type(t.dtype) is not str or type(t.shape) is not tuple:
        return False
    return all(type(d) is int for d in t.shape)
