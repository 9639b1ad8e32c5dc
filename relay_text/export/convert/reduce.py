"""Reductions, arg-reductions, cumulative sums, sorting."""

from __future__ import annotations

from typing import Any

from ..graph import onnx_dtype
from . import OpContext, Unsupported, converter, norm_axis


def reduce_axes(cx: OpContext) -> list[int]:
    """The axes reduced: `axis` (None: all), or every other one with `exclude`."""
    rank = cx.rank(0)
    axis = cx.attrs.get("axis")
    axes = list(range(rank)) if axis is None else sorted({norm_axis(int(a), rank) for a in axis})
    if cx.attrs.get("exclude"):
        axes = [a for a in range(rank) if a not in axes]
    return axes


REDUCE = {"sum": "ReduceSum", "mean": "ReduceMean", "max": "ReduceMax", "min": "ReduceMin", "prod": "ReduceProd"}


@converter(*REDUCE)
def reduction(cx: OpContext, x: str) -> str:
    axes = reduce_axes(cx)
    if not axes:
        return cx.node("Identity", [x])
    if cx.name in ("max", "min") and cx.dtype(0) == "bool":  # ReduceMax/Min take bool only from opset 20
        r = cx.reduce(REDUCE[cx.name], cx.cast(x, "int32"), axes, cx.attrs["keepdims"])
        return cx.cast(r, "bool")
    return cx.reduce(REDUCE[cx.name], x, axes, cx.attrs["keepdims"])


@converter("all", "any")
def logical_reduction(cx: OpContext, x: str) -> str:
    axes = reduce_axes(cx)
    if not axes:
        return cx.node("Identity", [x])
    as_int = cx.cast(x, "int32")
    r = cx.reduce("ReduceMin" if cx.name == "all" else "ReduceMax", as_int, axes, cx.attrs["keepdims"])
    return cx.cast(r, "bool")


@converter("variance")
def variance(cx: OpContext, x: str, mean: str) -> str:
    axes = reduce_axes(cx)
    d = cx.node("Sub", [x, mean])
    sq = cx.node("Mul", [d, d])
    if not cx.attrs["unbiased"]:
        return cx.reduce("ReduceMean", sq, axes, cx.attrs["keepdims"])
    shape = cx.shape(0)
    count = 1
    for a in axes:
        count *= shape[a]
    total = cx.reduce("ReduceSum", sq, axes, cx.attrs["keepdims"])
    return cx.node("Div", [total, cx.like(count - 1)])


@converter("argmax", "argmin")
def arg_reduction(cx: OpContext, x: str) -> str:
    axes = reduce_axes(cx)
    keep = int(bool(cx.attrs["keepdims"]))
    op = "ArgMax" if cx.name == "argmax" else "ArgMin"
    last = int(bool(cx.attrs["select_last_index"]))
    rank = cx.rank(0)
    if len(axes) == 1:
        r = cx.node(op, [x], axis=axes[0], keepdims=keep, select_last_index=last)
    elif axes == list(range(rank)):
        flat = cx.reshape(x, [-1])
        r = cx.node(op, [flat], axis=0, keepdims=0, select_last_index=last)
        r = cx.reshape(r, [1] * rank if keep else [])
    else:
        raise Unsupported(f"ONNX's {op} reduces one axis or all of them, not {axes}")
    return cx.cast(r, cx.out_dtype)


@converter("cumsum")
def cumsum(cx: OpContext, x: str) -> str:
    return _scan(cx, x, "CumSum")


@converter("cumprod", opset=26)
def cumprod(cx: OpContext, x: str) -> str:
    """ONNX's CumProd (opset 26) multiplies in order along the axis, as numpy does."""
    return _scan(cx, x, "CumProd")


def _scan(cx: OpContext, x: str, op: str) -> str:
    axis = cx.attrs["axis"]
    dtype = cx.attrs["dtype"] or cx.dtype(0)
    if dtype != cx.dtype(0):
        x = cx.cast(x, dtype)
    if axis is None:
        x = cx.reshape(x, [-1])
        axis = 0
    if dtype == "bool":  # running logical xor (sum) or and (product): through int32
        y = _scan_bool(cx, x, int(axis), op)
        return y
    return cx.node(op, [x, cx.scalar(int(axis), "int64")], exclusive=int(bool(cx.attrs["exclusive"])))


def _scan_bool(cx: OpContext, x: str, axis: int, op: str) -> str:
    as_int = cx.cast(x, "int32")
    if op == "CumSum":  # xor: the parity of the running count
        y = cx.node(op, [as_int, cx.scalar(axis, "int64")], exclusive=int(bool(cx.attrs["exclusive"])))
        return cx.cast(cx.node("Mod", [y, cx.scalar(2, "int32")]), "bool")
    y = cx.node(op, [as_int, cx.scalar(axis, "int64")], exclusive=int(bool(cx.attrs["exclusive"])))
    return cx.cast(y, "bool")


def _topk(cx: OpContext, x: str, k: int | str, axis: int, largest: bool) -> list[str]:
    """`TopK` (equal values keep their order, lower positions first); `k` a number or an int64 vector of one."""
    k_name = cx.ints([k]) if isinstance(k, int) else k
    return cx.multi_node("TopK", [x, k_name], 2, axis=axis, largest=int(largest), sorted=1)


@converter("topk")
def topk(cx: OpContext, x: str) -> Any:
    shape = cx.shape(0)
    axis = norm_axis(int(cx.attrs["axis"]), len(shape))
    k = int(cx.attrs["k"])
    if k < 1:
        k = shape[axis]
    return topk_of(cx, x, k, axis)


def topk_of(cx: OpContext, x: str, k: int | str, axis: int) -> Any:
    """`topk`'s result (by `ret_type`) for `k` entries along `axis`."""
    values, indices = _topk(cx, x, k, axis, not cx.attrs["is_ascend"])
    indices = cx.node("Cast", [indices], to=onnx_dtype(cx.attrs["dtype"]))
    ret = cx.attrs["ret_type"]
    if ret == "values":
        return values
    if ret == "indices":
        return indices
    return values, indices


@converter("sort", "argsort")
def sort(cx: OpContext, x: str) -> str:
    shape = cx.shape(0)
    axis = norm_axis(int(cx.attrs["axis"]), len(shape))
    values, indices = _topk(cx, x, shape[axis], axis, not cx.attrs["is_ascend"])
    if cx.name == "sort":
        return values
    return cx.node("Cast", [indices], to=onnx_dtype(cx.out_dtype))
