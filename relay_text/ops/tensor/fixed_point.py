"""Fixed-point multiplication, as quantized models requantize int32 accumulators.

A real factor is written `multiplier * 2 ** (shift - 31)`, with `multiplier`
an int32 holding a fraction of 31 bits (as `frexp` gives it: 0.5 is
`1 << 30`). `fixed_point_multiply(x, multiplier=m, shift=s)` multiplies
every int32 element by that factor and rounds half up, as TVM lowers it
(src/target/intrin_rule.cc, `q_multiply_shift`):

* in general, in int64: x is shifted left by `max(s, 0)`, multiplied by m
  (both wrapping around at 64 bits), 1 << (t - 1) is added and the sum
  shifted right (arithmetic) by t = 31 + max(-s, 0); the result is
  truncated to int32;
* when m is `1 << 30` (an exact power of two), in int32: x << (s - 1) when
  s > 1; otherwise (x + (1 << (e - 1))) >> e with e = 1 - s, the addition
  wrapping around. TVM cannot compile s = 1 there (it would shift by -1) nor
  shifts of 32 or more; here s = 1 gives x unchanged and wider shifts give
  what the arithmetic means (0, or the rounded quotient).

`fixed_point_multiply_per_axis(x, m, lshift, rshift, is_lshift_required,
is_rshift_required, axes)` does the general case with a multiplier and
shifts per position along `axes` of x: m, lshift and rshift are int32
tensors of shape `[x.shape[a] for a in axes]`; x is shifted left by lshift
only when `is_lshift_required`, and always right by 31 + rshift (TVM's
lowering ignores `is_rshift_required`). The result is int32, as TVM's
lowering produces; so x must be int32 (TVM's relation would accept any
dtype and then disagree with its own kernel).
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType
from .._np import np, wrap
from ..registry import Attr, KernelError, register
from ..relations import Relation, identity, relation, shape_text
from ..types import Args, Attrs, Shape, Value

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def _require_int32(r: Relation, i: int, what: str) -> TensorType:
    t = r.tensor(i)
    if isinstance(t.dtype, str) and t.dtype != "int32":
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` takes {what} of dtype int32, found `{t.dtype}`",
            arg=i,
            label=f"this is `{t.dtype}`",
            notes=["TVM's fixed-point lowering multiplies int32 values in int64 and gives int32"],
        )
    return t


@relation("Identity", inputs=1)
def fixed_point_rel(r: Relation) -> bool:
    _require_int32(r, 0, "data")
    for key in ("multiplier", "shift"):
        v = r.attrs[key]
        if not INT32_MIN <= v <= INT32_MAX:
            r.fail(codes.TYPE_MISMATCH, f"`fixed_point_multiply` {key} must fit in int32, found {v}")
    return identity(r)


def _shr_rounded(v: Any, t: int) -> Any:
    """(v + (1 << (t - 1))) >> t on int64 values, t >= 1, the addition wrapping
    around; for t of 64 or more (which TVM leaves undefined) 0, the exact value."""
    if t >= 64:
        return np.zeros_like(v)
    with np.errstate(over="ignore"):
        return np.right_shift(v + (np.int64(1) << np.int64(t - 1)), np.int64(t))


@register(
    "fixed_point_multiply",
    inputs=1,
    relation=fixed_point_rel,
    attrs=(Attr("multiplier", "int"), Attr("shift", "int")),
    doc="Multiply int32 values by multiplier * 2 ** (shift - 31), rounding half up.",
)
def fixed_point_multiply(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    m, s = attrs["multiplier"], attrs["shift"]
    if m == 1 << 30:  # a power of two, in int32
        if s > 1:
            return wrap(np.left_shift(x, np.int32(s - 1)), np.int32) if s - 1 < 32 else np.zeros_like(x)
        e = 1 - s
        if e == 0:
            return np.array(x, copy=True)
        if e >= 32:  # (x + 2 ** (e - 1)) >> e is 0 for every int32 x
            return np.zeros_like(x)
        with np.errstate(over="ignore"):
            return wrap(np.right_shift(x + np.int32(1 << (e - 1)), np.int32(e)), np.int32)
    v = x.astype(np.int64)
    if s > 0:
        v = np.left_shift(v, np.int64(s)) if s < 64 else np.zeros_like(v)
    with np.errstate(over="ignore"):
        v = v * np.int64(m)
    return wrap(_shr_rounded(v, 31 + max(-s, 0)), np.int64).astype(np.int32)


# ---------------------------------------------------------------- per axis


@relation("FixedPointMultiplyPerAxis", inputs=4)
def per_axis_rel(r: Relation) -> bool:
    x = _require_int32(r, 0, "data")
    for i, what in ((1, "multipliers"), (2, "left shifts"), (3, "right shifts")):
        _require_int32(r, i, what)
    if type(x.shape) is not tuple:
        return False
    rank = len(x.shape)
    axes = r.attrs["axes"]
    for a in axes:
        if not 0 <= a < rank:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`{r.op}`: axis {a} is out of range for data of rank {rank}",
                arg=0,
                notes=[f"valid values are 0 to {rank - 1}"],
            )
    if len(set(axes)) != len(axes):
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}`: axes {list(axes)} name an axis twice")
    want = tuple(x.shape[a] for a in axes)
    for i, what in ((1, "multipliers"), (2, "left shifts"), (3, "right shifts")):
        t = r.tensor(i)
        if type(t.shape) is not tuple:
            continue
        if len(t.shape) != len(want) or any(
            type(d) is int and type(w) is int and d != w for d, w in zip(t.shape, want, strict=False)
        ):
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`{r.op}` needs {what} of shape {shape_text(want)}, the data's sizes along axes {list(axes)}, found "
                f"{shape_text(t.shape)}",
                arg=i,
            )
    r.set_result(x)
    return True


def _along(p: Any, axes: Shape, shape: Shape) -> Any:
    """p, indexed by the positions along `axes`, as a tensor broadcasting over `shape`."""
    order = sorted(range(len(axes)), key=lambda k: axes[k])
    view = [1] * len(shape)
    for a in axes:
        view[a] = shape[a]
    return np.transpose(p, order).reshape(view)


@register(
    "fixed_point_multiply_per_axis",
    inputs=4,
    relation=per_axis_rel,
    attrs=(Attr("is_lshift_required", "bool", False), Attr("is_rshift_required", "bool", False), Attr("axes", "ints")),
    doc="fixed_point_multiply with a multiplier and shifts per position along some axes.",
)
def fixed_point_multiply_per_axis(args: Args, attrs: Attrs) -> Value:
    x, m, ls, rs = args
    axes = tuple(attrs["axes"])
    m, ls, rs = (_along(p, axes, x.shape).astype(np.int64) for p in (m, ls, rs))
    v = x.astype(np.int64)
    total = rs + 31
    if attrs["is_lshift_required"]:
        if np.any((ls < 0) | (ls >= 64)):
            raise KernelError(
                codes.RUNTIME_ERROR,
                "`fixed_point_multiply_per_axis`: a left shift must be at least 0 and less than 64, found "
                f"{int(ls[(ls < 0) | (ls >= 64)].flat[0])}",
            )
        v = np.left_shift(v, ls)
    if np.any((total < 1) | (total >= 64)):
        bad = rs[(total < 1) | (total >= 64)].flat[0]
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"`fixed_point_multiply_per_axis`: a right shift must be at least -30 and at most 32, found {int(bad)}",
        )
    with np.errstate(over="ignore"):
        v = v * m + np.left_shift(np.int64(1), total - 1)
    return wrap(np.right_shift(v, total), np.int64).astype(np.int32)
