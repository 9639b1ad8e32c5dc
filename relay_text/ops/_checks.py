"""Checks shared by the algorithm, signal and sparse families' relations:
the dtype class and the rank of an input, and arithmetic on dimensions that
gives `?` when a size is symbolic (None while it is still unknown)."""

from __future__ import annotations

from typing import Any

from ..diagnostics import codes
from ..limits import result_rank_problem
from ..ir.ty import AnyDim, DimBinOp
from .relations import RankedTensor, Relation, has_rank, is_unknown, shape_text

INT_PREFIXES = ("int", "uint")


def is_int_dtype(d: Any) -> bool:
    return type(d) is str and d.startswith(INT_PREFIXES)


def is_float_dtype(d: Any) -> bool:
    return type(d) is str and d.startswith(("float", "bfloat"))


def result_rank_within_limit(r: Relation, rank: int) -> None:
    """Fails before a result of `rank` dimensions is built, when the rank
    comes from an attribute (`num_newaxis=2147483647`) and passes the limit."""
    problem = result_rank_problem(r.op, rank)
    if problem is not None:
        r.fail(codes.RESOURCE_LIMIT, problem, label="too large")


def require_int(r: Relation, i: int, what: str) -> None:
    """Input i (described as `what`) holds integers, once its dtype is known."""
    d = r.tensor(i).dtype
    if type(d) is str and not is_int_dtype(d):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}`: {what} must have an integer dtype, found `{d}`",
            arg=i,
            label=f"this is `{d}`",
        )


def require_float(r: Relation, i: int, what: str) -> None:
    """Input i holds floating-point numbers, once its dtype is known."""
    d = r.tensor(i).dtype
    if type(d) is str and not is_float_dtype(d):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}`: {what} must have a floating-point dtype, found `{d}`",
            arg=i,
            label=f"this is `{d}`",
            notes=['convert it first: `cast(x, dtype="float32")`'],
        )


def require_number(r: Relation, i: int, what: str) -> None:
    """Input i holds numbers (not bool), once its dtype is known."""
    d = r.tensor(i).dtype
    if d == "bool":
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}`: {what} must hold numbers, found `bool`", arg=i, label="this is `bool`")


def ranked(r: Relation, i: int, ranks: tuple[int, ...], what: str) -> RankedTensor | None:
    """Input i as a tensor whose rank is one of `ranks`; None while its rank is unknown."""
    t = r.tensor(i)
    if not has_rank(t):
        return None
    if len(t.shape) not in ranks:
        want = " or ".join(str(k) for k in ranks)
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs {what} of rank {want}, found shape {shape_text(t.shape)}", arg=i)
    return t


def dim_plus(d: Any, k: int) -> Any:
    """`d + k` for a dimension: an int, arithmetic on a shape variable, `?` for
    `?`, None while `d` is unknown."""
    if is_unknown(d):
        return None
    if type(d) is int:
        return d + k
    if isinstance(d, DimBinOp) and d.op in "+-" and type(d.rhs) is int:  # (n + c) + k
        d, k = d.lhs, k + (d.rhs if d.op == "+" else -d.rhs)
    if isinstance(d, AnyDim) or k == 0:
        return d
    return DimBinOp("+", d, k) if k > 0 else DimBinOp("-", d, -k)


def dim_times(a: Any, b: Any) -> Any:
    """`a * b` for dimensions, like `dim_plus`."""
    if is_unknown(a) or is_unknown(b):
        return None
    if type(a) is int and type(b) is int:
        return a * b
    if a == 0 or b == 0:
        return 0
    if isinstance(a, AnyDim) or isinstance(b, AnyDim):
        return AnyDim()
    if a == 1:
        return b
    if b == 1:
        return a
    return DimBinOp("*", a, b)


def same_size(r: Relation, a: Any, b: Any, message: str, arg: int) -> None:
    """Two dimensions that must be equal, checked once both are ints."""
    if type(a) is int and type(b) is int and a != b:
        r.fail(codes.SHAPE_MISMATCH, message, arg=arg)


def check_index_dtype(r: Relation, key: str) -> str:
    """The attribute `key` names the dtype of indices: an integer or float type
    (TVM's unset `""` stands for int32)."""
    d = r.attrs[key] or "int32"
    if not (is_int_dtype(d) or is_float_dtype(d)):
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` returns indices: {key} must be an integer or float type, found `{d}`")
    return d
