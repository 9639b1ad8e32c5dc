"""Reductions over axes: sum, mean, max, min, prod, all, any, argmax, argmin.

Attributes as in TVM: `axis` (None: every axis; negative values count from
the end), `keepdims` (keep reduced axes with size 1) and `exclude` (reduce
every axis *except* those listed).
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType
from .._np import is_int, np, wrap
from ..registry import Attr, register
from ..relations import OUT, Relation, known_rank, normalize_axis, relation
from ..types import Args, Attrs, Value

REDUCE_ATTRS = (Attr("axis", "opt_ints", None), Attr("keepdims", "bool", False), Attr("exclude", "bool", False))
ARG_ATTRS = (*REDUCE_ATTRS, Attr("select_last_index", "bool", False))


def reduced_axes(r: Relation, rank: int) -> list[int]:
    """The axes a reduction call reduces, validated."""
    axis = r.attrs["axis"]
    if axis is None:
        axes = list(range(rank))
    else:
        axes = []
        for a in axis:
            n = normalize_axis(r, a, rank)
            if n in axes:
                r.fail(codes.TYPE_MISMATCH, f"axis {a} is listed twice")
            axes.append(n)
    if r.attrs["exclude"]:
        axes = [i for i in range(rank) if i not in axes]
    return sorted(axes)


def _reduce(r: Relation, dtype: Any = None) -> bool:
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    axes = reduced_axes(r, len(x.shape))
    keep = r.attrs["keepdims"]
    shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape) if keep or i not in axes)
    r.set_result(TensorType(shape, dtype if dtype is not None else x.dtype))
    return True


@relation("Reduce")
def reduce_rel(r: Relation) -> bool:
    """The result drops (or, with keepdims, keeps as 1) the reduced axes."""
    return _reduce(r)


@relation("Reduce")
def bool_reduce_rel(r: Relation) -> bool:
    x = r.tensor(0)
    r.refine(0, TensorType(x.shape, "bool"))
    return _reduce(r, "bool")


@relation("ArgReduce")
def arg_reduce_rel(r: Relation) -> bool:
    """Like a reduction, but the result holds int32 indices."""
    return _reduce(r, "int32")


def axes_of(x: Any, attrs: Attrs) -> tuple[int, ...]:
    """The reduced axes for numpy."""
    rank = x.ndim
    axis = attrs["axis"]
    axes = list(range(rank)) if axis is None else sorted({a % rank if rank else 0 for a in axis})
    if attrs["exclude"]:
        axes = [i for i in range(rank) if i not in axes]
    return tuple(axes)


def _plain(name: str, doc: str) -> None:
    def kernel(args: Args, attrs: Attrs) -> Value:
        x = args[0]
        axes = axes_of(x, attrs)
        extra = {"dtype": x.dtype} if name in ("sum", "prod") else {}
        if x.size == 0 and name in ("max", "min"):
            extra = {"initial": _identity_of(name, x.dtype)}
        with np.errstate(over="ignore"):
            return wrap(getattr(np, name)(x, axis=axes, keepdims=attrs["keepdims"], **extra), x.dtype)

    kernel.__name__ = name
    register(name, inputs=1, relation=reduce_rel, attrs=REDUCE_ATTRS, doc=doc)(kernel)


def _identity_of(name: str, dtype: Any) -> Any:
    if is_int(dtype):
        info = np.iinfo(dtype)
        return info.min if name == "max" else info.max
    return -np.inf if name == "max" else np.inf


_plain("sum", "Sum over the given axes.")
_plain("prod", "Product over the given axes.")
_plain("max", "Maximum over the given axes.")
_plain("min", "Minimum over the given axes.")


@register(
    "mean", inputs=1, relation=reduce_rel, attrs=REDUCE_ATTRS, doc="Mean over the given axes (integer means truncate)."
)
def mean(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    axes = axes_of(x, attrs)
    count = 1
    for a in axes or ():
        count *= x.shape[a]
    if is_int(x.dtype):
        total = np.sum(x, axis=axes, keepdims=attrs["keepdims"], dtype=x.dtype)
        if count == 0:
            return wrap(np.zeros_like(total), x.dtype)
        return wrap(np.fix(total / count), x.dtype)
    return wrap(np.mean(x, axis=axes, keepdims=attrs["keepdims"], dtype=x.dtype), x.dtype)


@register(
    "all", inputs=1, relation=bool_reduce_rel, attrs=REDUCE_ATTRS, doc="True where every element over the axes is True."
)
def all_(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    return wrap(np.all(x, axis=axes_of(x, attrs), keepdims=attrs["keepdims"]), "bool")


@register(
    "any", inputs=1, relation=bool_reduce_rel, attrs=REDUCE_ATTRS, doc="True where some element over the axes is True."
)
def any_(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    return wrap(np.any(x, axis=axes_of(x, attrs), keepdims=attrs["keepdims"]), "bool")


def _arg(x: Any, attrs: Attrs, fn: Any) -> Any:
    axes = axes_of(x, attrs)
    keep = attrs["keepdims"]
    if not axes:
        return wrap(np.zeros(x.shape, dtype="int32"), "int32")
    # Move the reduced axes to the end and flatten them into one.
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(x, rest + list(axes))
    flat = moved.reshape([x.shape[i] for i in rest] + [-1])
    idx = flat.shape[-1] - 1 - fn(flat[..., ::-1], axis=-1) if attrs["select_last_index"] else fn(flat, axis=-1)
    if keep:
        idx = idx.reshape([1 if i in axes else x.shape[i] for i in range(x.ndim)])
    return wrap(idx, "int32")


@register(
    "argmax", inputs=1, relation=arg_reduce_rel, attrs=ARG_ATTRS, doc="Index (int32) of the maximum over the axes."
)
def argmax(args: Args, attrs: Attrs) -> Value:
    return _arg(args[0], attrs, np.argmax)


@register(
    "argmin", inputs=1, relation=arg_reduce_rel, attrs=ARG_ATTRS, doc="Index (int32) of the minimum over the axes."
)
def argmin(args: Args, attrs: Attrs) -> Value:
    return _arg(args[0], attrs, np.argmin)


__all__ = ["OUT", "reduced_axes"]
