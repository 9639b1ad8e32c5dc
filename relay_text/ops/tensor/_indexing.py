"""Helpers shared by the indexing operators (gather, scatter, one_hot, ...):
dtype checks for index tensors, dimension agreement, bounds checks in kernels.

Not a family module (its name starts with `_`): it registers nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType
from ..types import Dims
from .._np import np
from ..registry import KernelError
from ..relation import Notes
from ..relations import Relation, is_unknown, known_rank, shape_text


def is_int_dtype(dtype: Any, unsigned: bool = True) -> bool:
    """A known integer dtype (`int8` ... `int64`, and `uint*` when `unsigned`)."""
    if type(dtype) is not str:
        return False
    return dtype.startswith("int") or (unsigned and dtype.startswith("uint"))


def require_int(r: Relation, i: int, what: str, unsigned: bool = True) -> None:
    """Input i, once its dtype is known, is an integer tensor."""
    dtype = r.tensor(i).dtype
    if type(dtype) is str and not is_int_dtype(dtype, unsigned):
        kind = "integers" if unsigned else "signed integers"
        r.fail(
            codes.TYPE_MISMATCH, f"`{r.op}` takes {what} of {kind}, found `{dtype}`", arg=i, label=f"this is `{dtype}`"
        )


def require_rank(r: Relation, i: int, ranks: Sequence[int], what: str) -> None:
    """Input i, once its rank is known, has one of `ranks`."""
    t = r.tensor(i)
    if known_rank(t.shape) and len(t.shape) not in ranks:
        want = " or ".join(_rank_name(k) for k in ranks)
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` takes {what} as {want}, found a tensor of shape {shape_text(t.shape)}",
            arg=i,
        )


def assume(r: Relation, i: int, t: TensorType) -> bool:
    """For a relation's `default`: input i, when what is unknown of it comes
    from a constant without metadata, takes type `t` (the type TVM's Python
    API gives such a constant). Returns whether it did."""
    if not r.from_metadata(i):
        return False
    r.refine(i, t)
    return True


def settled(r: Relation, *inputs: int) -> bool:
    """Whether the rank and dtype of each of these inputs are known: a relation
    whose result is already set returns this, so that its `default` still runs
    for inputs that are unknown constants."""
    for i in inputs:
        t = r.tensor(i)
        if not known_rank(t.shape) or type(t.dtype) is not str:
            return False
    return True


def _rank_name(k: int) -> str:
    return {0: "a scalar", 1: "a vector"}.get(k, f"a tensor of rank {k}")


def same_dim(r: Relation, a: Any, b: Any, arg: int, message: str, notes: Notes = ()) -> None:
    """Dimensions `a` and `b` must agree: two different sizes fail with
    `message`; an unknown one is made equal to the other."""
    if type(a) is int and type(b) is int:
        if a != b:
            r.fail(codes.SHAPE_MISMATCH, message, arg=arg, notes=notes)
    elif is_unknown(a) or is_unknown(b):
        r.unify(a, b, arg=arg, message=message)


def expect_shape(r: Relation, i: int, expected: Dims, what: str) -> bool:
    """Input i must have shape `expected` (dimensions that are not ints are
    not compared). An input of unknown rank is refined to it. Returns False
    while the input's rank is unknown and cannot be refined."""
    t = r.tensor(i)
    if not known_rank(t.shape):
        r.refine(i, TensorType(tuple(d if type(d) is int else r.fresh_dim() for d in expected), t.dtype))
        return True
    if len(t.shape) != len(expected):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` expects {what} of shape {shape_text(expected)}, found {shape_text(t.shape)}",
            arg=i,
            notes=[f"the rank should be {len(expected)}, not {len(t.shape)}"],
        )
    for axis, (want, got) in enumerate(zip(expected, t.shape, strict=False)):
        same_dim(
            r,
            want,
            got,
            i,
            f"`{r.op}` expects {what} of shape {shape_text(expected)}, found {shape_text(t.shape)}",
            notes=[f"axis {axis} should have size {want}, not {got}"] if type(want) is int and type(got) is int else (),
        )
    return True


def check_bounds(op: str, index: Any, extent: int, axis: int, wrap_negative: bool = False) -> Any:
    """`index` (an array of indices into `axis`, of size `extent`) as int64,
    every value in [0, extent); with `wrap_negative`, values in [-extent, 0)
    count from the end first. Out-of-range values raise KernelError."""
    idx = np.asarray(index).astype(np.int64)
    if wrap_negative:
        idx = np.where(idx < 0, idx + extent, idx)
    if idx.size:
        lo, hi = int(idx.min()), int(idx.max())
        if lo < 0 or hi >= extent:
            bad = lo if lo < 0 else hi
            if wrap_negative and bad < 0:
                bad -= extent
            raise KernelError(
                codes.RUNTIME_ERROR, f"{op}: index {bad} is out of range for axis {axis} of size {extent}"
            )
    return idx


def last_wins(targets: Any) -> tuple[Any, Any]:
    """For flat target positions written in order, the distinct targets and,
    for each, the position of the last write to it."""
    rev = targets[::-1]
    uniq, first_in_rev = np.unique(rev, return_index=True)
    return uniq, len(targets) - 1 - first_in_rev


def occurrence_rank(targets: Any) -> Any:
    """For each write (in order), how many earlier writes went to the same target."""
    order = np.argsort(targets, kind="stable")
    sorted_t = targets[order]
    starts = np.r_[0, np.flatnonzero(sorted_t[1:] != sorted_t[:-1]) + 1] if len(targets) else np.zeros(0, np.int64)
    group_start = np.zeros(len(targets), dtype=np.int64)
    if len(targets):
        group_start[starts] = starts
        group_start = np.maximum.accumulate(group_start)
    rank = np.empty(len(targets), dtype=np.int64)
    rank[order] = np.arange(len(targets)) - group_start
    return rank
