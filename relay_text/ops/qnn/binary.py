"""Quantized tensors combined: `qnn.add`, `qnn.subtract`, `qnn.mul` and
`qnn.concatenate`.

The binary operators take eight inputs: `lhs, rhs, lhs_scale,
lhs_zero_point, rhs_scale, rhs_zero_point, output_scale,
output_zero_point`, and attributes `lhs_axis=-1`, `rhs_axis=-1` (the
channel axis of per-channel operand parameters). The operands share one
integer dtype (at most 32 bits), their shapes broadcast, and the result has
the broadcast shape and their dtype. The output parameters are scalars.

As TVM lowers them (src/relay/qnn/op/add.cc, subtract.cc, mul.cc):

* add: both operands are requantized to int32 with the output parameters
  (see `_common`: UPWARD rounding, int64 fixed point), summed in int32, the
  output zero point subtracted once, and the sum saturated to the dtype;
  subtract: the difference, with the zero point added back;
* mul: `(lhs - z_l) * (rhs - z_r)` in int32 (wrapping), then requantized
  from the scale `s_l * s_r` (float32 product; per channel when a scale is
  a vector, which TVM supports only with lhs_axis equal to rhs_axis, and
  where a scalar scale here serves every channel) and zero point 0 to the
  output parameters and dtype.

`qnn.concatenate(data, input_scales, input_zero_points, output_scale,
output_zero_point, axis=0)` takes tuples of tensors, scales and zero points
(one scalar each per tensor); every tensor whose parameters differ from the
output's is requantized to them (keeping its dtype) before joining.

TVM's relations accept any dtype for these operands, but their lowering
clips to the dtype's range and fails beyond 32-bit integers; such dtypes
are rejected here already.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType, TupleType
from .._np import np
from ._common import (
    QUANTIZED,
    channel_param,
    check_axis,
    known_tensor,
    norm_axis,
    params_default,
    requantize,
    require_dtype,
    saturate,
    scalar_param,
)
from ..registry import Attr, KernelError, register
from ..relations import (
    Relation,
    broadcast_dims,
    is_unknown,
    known_rank,
    relation,
    shape_text,
)
from ..tensor.joining import concatenate_rel
from ..types import Args, Attrs, Value

# ---------------------------------------------------------------- add, subtract, mul

_BINARY_PARAMS = {2: "float32", 3: "int32", 4: "float32", 5: "int32", 6: "float32", 7: "int32"}


@relation("QnnBroadcast", default=params_default(_BINARY_PARAMS))
def qnn_broadcast_rel(r: Relation) -> bool:
    """Two integer operands of one dtype; per-tensor or per-channel operand
    parameters; scalar output parameters; the result broadcasts the operands."""
    lhs, rhs = known_tensor(r, 0), known_tensor(r, 1)
    if lhs is None or rhs is None:
        return False
    require_dtype(r, 0, lhs, QUANTIZED, "quantized operands")
    require_dtype(r, 1, rhs, QUANTIZED, "quantized operands")
    done = True
    for side, t, first in (("lhs", lhs, 2), ("rhs", rhs, 4)):
        scale, zp = known_tensor(r, first), known_tensor(r, first + 1)
        if scale is None or zp is None:
            done = False
            continue
        rank = len(t.shape)
        axis = r.attrs[f"{side}_axis"]
        if scale.shape == () and zp.shape == ():
            continue
        ax = 0 if rank <= 1 else check_axis(r, f"{side}_axis", axis, rank, arg=first)
        size = t.shape[ax] if rank else 1
        where = f"axis {ax} of the {side}"
        channel_param(r, first, f"{side} scale", size, where)
        channel_param(r, first + 1, f"{side} zero point", size, where)
    done = scalar_param(r, 6, "output scale") and done
    done = scalar_param(r, 7, "output zero point") and done
    if not done:
        return False
    r.unify_dtypes(0, 1)
    shape = broadcast_dims(r, lhs.shape, rhs.shape)
    if shape is None:
        return False
    r.set_result(TensorType(shape, lhs.dtype))
    return True


_BINARY_ATTRS = (Attr("lhs_axis", "int", -1), Attr("rhs_axis", "int", -1))


def channel_axis(rank: int, axis: int) -> int:
    """The channel axis of an operand as QnnBroadcastRel reads it: 0 up to rank 1."""
    return 0 if rank <= 1 else axis % rank


def _to_output(x: Any, scale: Any, zp: Any, s_out: Any, z_out: Any, axis: int) -> Any:
    """An operand requantized to int32 with the output parameters (TVM's RequantizeOrUpcast)."""
    return requantize(x, scale, zp, s_out, z_out, "int32", axis)


def _wide(x: Any) -> Any:
    """At least one axis, so that integer arithmetic stays on arrays (wrapping silently)."""
    return x.reshape(1) if x.ndim == 0 else x


def _add_sub(args: Args, attrs: Attrs, sign: int) -> Value:
    lhs, rhs, s_l, z_l, s_r, z_r, s_out, z_out = args
    shape = np.broadcast_shapes(lhs.shape, rhs.shape)
    a = _wide(_to_output(lhs, s_l, z_l, s_out, z_out, channel_axis(lhs.ndim, attrs["lhs_axis"])))
    b = _wide(_to_output(rhs, s_r, z_r, s_out, z_out, channel_axis(rhs.ndim, attrs["rhs_axis"])))
    z = np.int32(np.asarray(z_out))
    out = (a + b - z) if sign > 0 else (a - b + z)
    return saturate(out, str(lhs.dtype)).reshape(shape)


@register(
    "qnn.add",
    inputs=8,
    relation=qnn_broadcast_rel,
    attrs=_BINARY_ATTRS,
    doc="Sum of two quantized tensors, in the output's scale and zero point.",
)
def qnn_add(args: Args, attrs: Attrs) -> Value:
    return _add_sub(args, attrs, +1)


@register(
    "qnn.subtract",
    inputs=8,
    relation=qnn_broadcast_rel,
    attrs=_BINARY_ATTRS,
    doc="Difference of two quantized tensors, in the output's scale and zero point.",
)
def qnn_subtract(args: Args, attrs: Attrs) -> Value:
    return _add_sub(args, attrs, -1)


def _centered(x: Any, zp: Any, axis: int) -> Any:
    """int32(x) - zero point (a scalar, or a vector along axis), wrapping."""
    z = np.asarray(zp, dtype=np.int32)
    if z.ndim:
        shape = [1] * max(x.ndim, 1)
        shape[norm_axis(axis, x.ndim) if x.ndim else 0] = z.size
        z = z.reshape(shape)
    return _wide(x).astype(np.int32) - z


@register(
    "qnn.mul",
    inputs=8,
    relation=qnn_broadcast_rel,
    attrs=_BINARY_ATTRS,
    doc="Product of two quantized tensors, in the output's scale and zero point.",
)
def qnn_mul(args: Args, attrs: Attrs) -> Value:
    lhs, rhs, s_l, z_l, s_r, z_r, s_out, z_out = args
    dtype = str(lhs.dtype)
    shape = np.broadcast_shapes(lhs.shape, rhs.shape)
    s_l, s_r = np.asarray(s_l, dtype=np.float32), np.asarray(s_r, dtype=np.float32)
    la, ra = attrs["lhs_axis"], attrs["rhs_axis"]
    if s_l.ndim == 0 and s_r.ndim == 0:
        prod = _centered(lhs, z_l, channel_axis(lhs.ndim, la)) * _centered(rhs, z_r, channel_axis(rhs.ndim, ra))
        out = requantize(prod, s_l * s_r, 0, s_out, z_out, dtype)
        return out.reshape(shape)
    if la != ra:
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"`qnn.mul` with per-channel scales needs lhs_axis equal to rhs_axis, found {la} and {ra}",
        )
    n = max(s_l.size, s_r.size)
    prod = _centered(lhs, z_l, channel_axis(lhs.ndim, la)) * _centered(rhs, z_r, channel_axis(rhs.ndim, ra))
    # TVM requantizes along lhs_axis of the lhs: the matching axis of the product
    rank = max(lhs.ndim, 1)
    axis = channel_axis(lhs.ndim, la) + (prod.ndim - rank)
    if 1 < s_l.size != s_r.size > 1 or (n > 1 and prod.shape[axis] != n):
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"`qnn.mul`: per-channel scales of {s_l.size} and {s_r.size} values do not fit axis {axis} of the product "
            f"{prod.shape}",
        )
    scales = (
        np.broadcast_to(s_l.reshape(-1), (n,)).astype(np.float64) * np.broadcast_to(s_r.reshape(-1), (n,))
    ).astype(np.float32)
    out = requantize(prod, scales, 0, s_out, z_out, dtype, axis)
    return out.reshape(shape)


# ---------------------------------------------------------------- concatenate


def _param_tuple(r: Relation, i: int, count: int, what: str) -> bool:
    """Input i is a tuple of `count` scalar parameters; False while unknown."""
    t = r.arg(i)
    if is_unknown(t):
        return False
    if not isinstance(t, TupleType):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`qnn.concatenate` takes the input {what}s as a tuple, one per tensor",
            arg=i,
            label="not a tuple",
        )
    if len(t.fields) != count:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`qnn.concatenate` joins {count} tensors but has {len(t.fields)} input {what}s",
            arg=i,
        )
    dtype = "float32" if what == "scale" else "int32"
    for k, f in enumerate(t.fields):
        if is_unknown(f):
            return False
        ft = r.tensor_of(f, i, f"input {what} {k}")
        if not known_rank(ft.shape) or not isinstance(ft.dtype, str):
            return False
        if ft.dtype != dtype:
            r.fail(
                codes.TYPE_MISMATCH,
                f"`qnn.concatenate` takes each input {what} as `{dtype}`, found `{ft.dtype}` in field {k}",
                arg=i,
            )
        if ft.shape != ():
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`qnn.concatenate` takes each input {what} as a scalar, found shape {shape_text(ft.shape)} in field "
                f"{k}",
                arg=i,
            )
    return True


_OUTPUT_DEFAULT = params_default({3: "float32", 4: "int32"})


def _concatenate_default(r: Relation) -> bool:
    """Constants without metadata in the parameter tuples (and the output
    parameters) are taken to be scalars."""
    done = _OUTPUT_DEFAULT(r)
    for i, dtype in ((1, "float32"), (2, "int32")):
        t = r.arg(i)
        if isinstance(t, TupleType) and r.from_metadata(i):
            for f in t.fields:
                if is_unknown(f):
                    r.unify(TensorType((), dtype), f, arg=i)
                    done = True
    return done


@relation("QnnConcatenate", default=_concatenate_default)
def qnn_concatenate_rel(r: Relation) -> bool:
    """`concatenate`'s rule for the tensors; one scalar scale and zero point per tensor."""
    data = r.arg(0)
    if is_unknown(data):
        return False
    if isinstance(data, TupleType):
        for k, f in enumerate(data.fields):
            ft = r.tensor_of(f, 0, f"field {k} of its tuple")
            if isinstance(ft.dtype, str):
                require_dtype(r, 0, ft, QUANTIZED, "quantized tensors")
    count = len(data.fields) if isinstance(data, TupleType) else 0
    done = True
    if count:
        done = _param_tuple(r, 1, count, "scale") and done
        done = _param_tuple(r, 2, count, "zero point") and done
    done = scalar_param(r, 3, "output scale") and done
    done = scalar_param(r, 4, "output zero point") and done
    if not concatenate_rel(r):
        return False
    return done


@register(
    "qnn.concatenate",
    inputs=5,
    relation=qnn_concatenate_rel,
    attrs=(Attr("axis", "int", 0),),
    doc="Join quantized tensors along an axis, requantizing each to the output's parameters.",
)
def qnn_concatenate(args: Args, attrs: Attrs) -> Value:
    data, scales, zps, s_out, z_out = args
    parts = []
    for x, s, z in zip(data, scales, zps, strict=False):
        same = np.asarray(s, dtype=np.float32).tobytes() == np.asarray(s_out, dtype=np.float32).tobytes() and int(
            z
        ) == int(z_out)
        parts.append(x if same else requantize(x, s, z, s_out, z_out, str(x.dtype)))
    return np.concatenate(parts, axis=attrs["axis"])
