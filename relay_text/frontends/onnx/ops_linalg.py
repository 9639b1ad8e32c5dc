"""Matrix products and friends: `Gemm`, `MatMul`, `FC`, `Einsum`, `Trilu`, `DFT`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...ir.expr import Expr
from ..builder import Builder, Unsupported
from ._common import known_dims, norm_axis, scalar
from .graph import Ctx
from .node import Node
from .table import Converted, converter

MICROSOFT = "com.microsoft"


def matmul(b: Builder, x: Expr, y: Expr, out_dtype: str = "") -> Expr:
    """numpy's matmul: 1-D operands become a row / a column; batch dimensions
    broadcast. A 2-D right operand multiplies every row of the left one
    (`nn.matmul` on the flattened rows); otherwise `nn.batch_matmul` on the
    broadcast operands folded to three dimensions."""
    rx, ry = b.rank(x), b.rank(y)
    if rx == 0 or ry == 0:
        raise Unsupported("`MatMul` needs operands of at least one dimension")
    squeeze = []
    if rx == 1:
        x = b.call("expand_dims", x, axis=0)
        squeeze.append(-2)
    if ry == 1:
        y = b.call("expand_dims", y, axis=1)
        squeeze.append(-1)
    xs, ys = b.shape(x), b.shape(y)
    extra = {"out_dtype": out_dtype} if out_dtype else {}
    if len(xs) == 2 and len(ys) == 2:
        out = b.call("nn.matmul", x, y, **extra)
    elif len(ys) == 2:
        k = xs[-1]
        flat = b.call("reshape", x, newshape=[-1, k if k is not None else -1])
        prod = b.call("nn.matmul", flat, y, **extra)
        batch = list(xs[:-1])
        if sum(d is None for d in batch) > 1:
            raise Unsupported("a product with more than one dimension of unknown size is not supported")
        out = b.call("reshape", prod, newshape=[-1 if d is None else d for d in batch] + [ys[1]])
    elif _same_batch(xs[:-2], ys[:-2]):
        # batch dimensions that match, one of them known at run time only
        batch = list(xs[:-2])
        x3 = b.call("reshape", x, newshape=[-1] + [d if d is not None else -1 for d in xs[-2:]])
        y3 = b.call("reshape", y, newshape=[-1] + [d if d is not None else -1 for d in ys[-2:]])
        prod = b.call("nn.batch_matmul", x3, y3, transpose_a=False, transpose_b=False, **extra)
        out_shape = b.shape(prod)
        out = b.call(
            "reshape",
            prod,
            newshape=[-1 if d is None else d for d in batch] + [-1 if d is None else d for d in out_shape[1:]],
        )
    else:
        batch_x, batch_y = known_dims(xs[:-2]), known_dims(ys[:-2])
        if batch_x is None or batch_y is None:
            raise Unsupported("batched products need the batch dimensions to be known")
        static = [int(d) for d in np.broadcast_shapes(tuple(batch_x), tuple(batch_y))]
        batch = list(static)
        if batch_x != batch:
            x = b.call("broadcast_to", x, shape=batch + list(xs[-2:]))
        if batch_y != batch:
            y = b.call("broadcast_to", y, shape=batch + list(ys[-2:]))
        count = int(np.prod(static, dtype=np.int64))
        x3 = b.call("reshape", x, newshape=[count, xs[-2] if xs[-2] is not None else -1, xs[-1]])
        y3 = b.call("reshape", y, newshape=[count, ys[-2], ys[-1] if ys[-1] is not None else -1])
        prod = b.call("nn.batch_matmul", x3, y3, transpose_a=False, transpose_b=False, **extra)
        out_shape = b.shape(prod)
        out = b.call("reshape", prod, newshape=batch + [-1 if d is None else d for d in out_shape[1:]])
    if squeeze:
        rank = b.rank(out)
        out = b.call("squeeze", out, axis=sorted(rank + a for a in squeeze))
    return out


def _same_batch(bx: Sequence[int | None], by: Sequence[int | None]) -> bool:
    """Equal batch dimensions with exactly one unknown, in the same place (a dynamic batch)."""
    unknown = [i for i, d in enumerate(bx) if d is None]
    return (
        len(bx) == len(by)
        and len(unknown) == 1
        and all((d is None) == (e is None) and (d is None or d == e) for d, e in zip(bx, by, strict=False))
    )


@converter("MatMul")
def matmul_node(cx: Ctx, n: Node) -> Converted:
    return matmul(cx.b, n.input(0), n.input(1))


@converter("Gemm")
def gemm(cx: Ctx, n: Node) -> Converted:
    """alpha * A' B' + beta * C, as `nn.dense` (whose weight is N x K: B
    itself when `transB`, else its transpose)."""
    b = cx.b
    n.ignore("broadcast")
    a, w, c = n.input(0), n.input(1), n.input(2)
    alpha, beta = float(n.attr("alpha", 1.0)), float(n.attr("beta", 1.0))
    if n.attr("transA", 0):
        a = b.call("transpose", a, axes=[1, 0])
    if not n.attr("transB", 0):
        w = b.call("transpose", w, axes=[1, 0])
    if b.rank(a) != 2:
        a = b.call("nn.batch_flatten", a)
    dt = b.dtype(a)
    if alpha != 1.0:
        a = b.call("multiply", a, scalar(b, alpha, dt))
    units = b.shape(w)[0]
    out = b.call("nn.dense", a, w, **({"units": units} if units is not None else {}))
    if c is not None:
        if beta != 1.0:
            c = b.call("multiply", scalar(b, beta, dt), c)
        out = b.call("add", out, c)
    return out


@converter("FC")
@converter("FC", domain=MICROSOFT)
def fully_connected(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    n.ignore("axis", "axis_w")
    out = b.call("nn.dense", n.input(0), n.input(1))
    if n.has(2):
        out = b.call("add", out, n.input(2))
    return out


@converter("Einsum", since=12)
def einsum(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    equation = "".join(str(n.require("equation")).split())
    return b.call("einsum", b.tuple([x for x in n.inputs if x is not None]), equation=equation)


@converter("Trilu", since=14)
def trilu(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x: Expr = n.input(0)
    k = n.input(1)
    if k is None:
        k = b.const(np.array(0, dtype=np.int64))
    else:
        kv = b.value(k)
        if kv is not None:
            clipped = int(np.clip(np.asarray(kv).reshape(()), -(2**31 - 1), 2**31 - 1))
            k = b.const(np.array(clipped, dtype=np.int64))
        elif b.rank(k) != 0:
            k = b.call("reshape", k, newshape=[])
    return b.call("trilu", x, k, upper=bool(n.attr("upper", 1)))


def _swap(b: Builder, x: Expr, a1: int, a2: int) -> Expr:
    perm = list(range(b.rank(x)))
    perm[a1], perm[a2] = perm[a2], perm[a1]
    return b.call("transpose", x, axes=perm)


def _crop_or_pad(b: Builder, x: Expr, axis: int, length: int) -> Expr:
    shape = b.static_shape(x)
    if shape[axis] == length:
        return x
    if shape[axis] > length:
        return b.call("strided_slice", x, begin=[0], end=[length], strides=[1], axes=[axis])
    pads = [[0, 0] for _ in shape]
    pads[axis][1] = length - shape[axis]
    return b.call("nn.pad", x, scalar(b, 0, b.dtype(x)), pad_width=pads)


def _dft(b: Builder, n: Node, x: Expr, axis: int, length: int | None, inverse: bool, onesided: bool) -> Expr:
    shape = b.static_shape(x)
    rank = len(shape)
    axis = norm_axis(axis, rank)
    if axis == rank - 1:
        raise Unsupported("`axis` cannot be the last axis (which holds real and imaginary parts)", attr="axis")
    if length is None:
        length = shape[axis]
    x = _crop_or_pad(b, x, axis, length)
    if shape[-1] == 1:
        re = b.call("squeeze", x, axis=[rank - 1])
        im = b.call("zeros_like", re)
    elif shape[-1] == 2:
        parts = b.call("split", x, indices_or_sections=2, axis=rank - 1)
        re = b.call("squeeze", b.item(parts, 0), axis=[rank - 1])
        im = b.call("squeeze", b.item(parts, 1), axis=[rank - 1])
    else:
        raise Unsupported(f"the last axis of the signal must be 1 (real) or 2 (complex), found {shape[-1]}")
    last = rank - 2
    re, im = _swap(b, re, axis, last), _swap(b, im, axis, last)
    out = b.call("dft", re, im, inverse=bool(inverse))
    re, im = _swap(b, b.item(out, 0), axis, last), _swap(b, b.item(out, 1), axis, last)
    if onesided:
        keep = length // 2 + 1
        re = b.call("strided_slice", re, begin=[0], end=[keep], strides=[1], axes=[axis])
        im = b.call("strided_slice", im, begin=[0], end=[keep], strides=[1], axes=[axis])
    return b.call("stack", b.tuple([re, im]), axis=rank - 1)


@converter("DFT", since=17)
def dft(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    inverse, onesided = n.attr("inverse", 0), n.attr("onesided", 0)
    if inverse and onesided:
        raise Unsupported("`onesided` with `inverse` is not supported", attr="onesided")
    length = b.int_list(n.input(1), "the DFT length")
    if n.opset >= 20:
        axes = b.int_list(n.input(2), "the DFT axis")
        axis = axes[0] if axes else -2
    else:
        axis = n.attr("axis", 1)
    return _dft(b, n, n.input(0), axis, length[0] if length else None, inverse, onesided)


converter("DFT", since=20)(dft)
