"""Converting between real and quantized tensors: `qnn.quantize`,
`qnn.dequantize`, `qnn.requantize`, their simulated forms, and the
`relay.op.annotation.simulated_quantize` of TVM's automatic quantization.

* `qnn.quantize(data, output_scale, output_zero_point, axis=-1, out_dtype)`:
  float32 data to int8, uint8, int16, uint16 or int32 (see `_common`);
* `qnn.dequantize(data, input_scale, input_zero_point, axis=-1, out_dtype)`:
  int8, uint8, int16, uint16 or int32 data to float32 or float16;
* `qnn.requantize(data, input_scale, input_zero_point, output_scale,
  output_zero_point, axis=-1, rounding="None", compute_dtype="None",
  out_dtype="")`: int8, uint8, int16, int32 or int64 data to int8, uint8,
  int16 or int32 with new parameters (the output dtype must be given);
  rounding "UPWARD" or "TONEAREST", compute_dtype "int64", "float32" or
  "float64"; "None" picks TVM's defaults, "UPWARD" and "int64".

Scales and zero points are scalars, or vectors with one value per channel
along `axis` (requantize: only its input parameters). `out_dtype` of
quantize and dequantize has no default in TVM.

The simulated forms keep the data's floating-point dtype and take the
target dtype as a runtime code (an int32 tensor: 1 int8, 2 uint8, 3 int32;
any other value passes the data through unchanged):

* `qnn.simulated_quantize(data, out_dtype, output_scale,
  output_zero_point, axis=-1)`: `clip(round(x / s) + z)` to the code's range;
* `qnn.simulated_dequantize(data, in_dtype, input_scale, input_zero_point,
  axis=-1, out_dtype)`: `(x - z) * s` for the integer codes.

Their scales and zero points are read as flat vectors: element `i` along
`axis` uses entry `i mod length` (a single value serves every channel).

`relay.op.annotation.simulated_quantize(data, dom_scale, clip_min,
clip_max, kind, sign=True, rounding="round")` rounds `data / dom_scale`
(halves away from zero) after clipping it to [clip_min, clip_max], and
multiplies back; kind 0 (IDENTITY) passes the data through. TVM computes it
only with sign=True and rounding="round".

Where TVM's type relation would accept a dtype that its lowering cannot
compute (integer data for the simulated forms), the relation here rejects
it already.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType
from .._np import np
from ._common import (
    COMPUTE_DTYPES,
    ROUNDINGS,
    channel_param,
    check_axis,
    dequantize,
    known_tensor,
    names,
    params_default,
    qrange,
    quantize,
    requantize,
    require_dtype,
    round_half_away,
    scalar_param,
    select_clip,
)
from ..registry import Attr, KernelError, register
from ..relations import RankedTensor, Relation, is_unknown, relation, static
from ..types import Args, Attrs, Value

FLOATS = ("float16", "float32", "float64")

# ---------------------------------------------------------------- quantize and dequantize


def _channel_params(r: Relation, data: RankedTensor, axis: int, first: int, role: str, force_axis: bool) -> bool:
    """Inputs `first` (scale) and `first + 1` (zero point), scalars or vectors along `axis`.

    With `force_axis`, the axis is checked even when both are scalars."""
    scale, zp = known_tensor(r, first), known_tensor(r, first + 1)
    if scale is None or zp is None:
        return False
    rank = len(data.shape)
    if force_axis or scale.shape != () or zp.shape != ():
        ax = check_axis(r, "axis", axis, rank)
        size = data.shape[ax] if rank else 1
    else:
        size = 1
    where = f"axis {axis} of the data" if rank else "a scalar"
    channel_param(r, first, f"{role} scale", size, where)
    channel_param(r, first + 1, f"{role} zero point", size, where)
    return True


@relation("Quantize", default=params_default({1: "float32", 2: "int32"}))
def quantize_rel(r: Relation) -> bool:
    """float32 data; scale and zero point per tensor or along `axis`; the result has the data's shape."""
    data = known_tensor(r, 0)
    if data is None:
        return False
    require_dtype(r, 0, data, ("float32",), "data")
    out = r.attrs["out_dtype"]
    allowed = ("int8", "uint8", "int16", "uint16", "int32")
    if out not in allowed:
        r.fail(codes.TYPE_MISMATCH, f"`qnn.quantize` produces {names(allowed)}, not `{out}`")
    if not _channel_params(r, data, r.attrs["axis"], 1, "output", False):
        return False
    r.set_result(TensorType(data.shape, out))
    return True


@register(
    "qnn.quantize",
    inputs=3,
    relation=quantize_rel,
    attrs=(Attr("out_dtype", "dtype"), Attr("axis", "int", -1)),
    doc="float32 to integers: round(x / scale) + zero_point, saturated to out_dtype.",
)
def qnn_quantize(args: Args, attrs: Attrs) -> Value:
    x, scale, zp = args
    return quantize(x, scale, zp, attrs["axis"], attrs["out_dtype"])


def _is_scalar_like(t: RankedTensor) -> bool:
    """A scalar, or a tensor of one element (TVM's dequantize treats both as per-tensor)."""
    return all(static(d) == 1 for d in t.shape)


@relation("Dequantize", default=params_default({1: "float32", 2: "int32"}))
def dequantize_rel(r: Relation) -> bool:
    """Integer data; scale and zero point per tensor (one element) or along `axis`; float32 or float16 result."""
    data = known_tensor(r, 0)
    if data is None:
        return False
    require_dtype(r, 0, data, ("int8", "uint8", "int16", "uint16", "int32"), "data")
    out = r.attrs["out_dtype"]
    if out not in ("float16", "float32"):
        r.fail(codes.TYPE_MISMATCH, f"`qnn.dequantize` produces `float16` or `float32`, not `{out}`")
    scale, zp = known_tensor(r, 1), known_tensor(r, 2)
    if scale is None or zp is None:
        return False
    rank = len(data.shape)
    if _is_scalar_like(scale) and _is_scalar_like(zp):
        size: Any = 1
        where = "a per-tensor parameter"
    else:
        ax = check_axis(r, "axis", r.attrs["axis"], rank)
        size = data.shape[ax] if rank else 1
        where = f"axis {r.attrs['axis']} of the data"
    channel_param(r, 1, "input scale", size, where)
    channel_param(r, 2, "input zero point", size, where)
    r.set_result(TensorType(data.shape, out))
    return True


@register(
    "qnn.dequantize",
    inputs=3,
    relation=dequantize_rel,
    attrs=(Attr("out_dtype", "dtype"), Attr("axis", "int", -1)),
    doc="Integers to floats: (x - zero_point) * scale.",
)
def qnn_dequantize(args: Args, attrs: Attrs) -> Value:
    q, scale, zp = args
    s, z = np.asarray(scale), np.asarray(zp)
    if s.size == 1 and z.size == 1:
        s, z = s.reshape(()), z.reshape(())
    return dequantize(q, s, z, attrs["axis"], attrs["out_dtype"])


# ---------------------------------------------------------------- requantize


@relation("Requantize", default=params_default({1: "float32", 2: "int32", 3: "float32", 4: "int32"}))
def requantize_rel(r: Relation) -> bool:
    """Integer data; input parameters per tensor or along `axis`, output parameters scalars."""
    data = known_tensor(r, 0)
    if data is None:
        return False
    require_dtype(r, 0, data, ("int8", "uint8", "int16", "int32", "int64"), "data")
    for key, allowed in (("rounding", ROUNDINGS), ("compute_dtype", COMPUTE_DTYPES)):
        if r.attrs[key] not in allowed:
            choices = ", ".join(f'"{a}"' for a in allowed)
            r.fail(codes.TYPE_MISMATCH, f'`qnn.requantize` {key} must be one of {choices}, found "{r.attrs[key]}"')
    out = r.attrs["out_dtype"]
    allowed = ("int8", "uint8", "int16", "int32")
    if out not in allowed:
        shown = f"`{out}`" if out else "no out_dtype"
        r.fail(
            codes.TYPE_MISMATCH,
            f"`qnn.requantize` produces {names(allowed)}, given {shown}",
            notes=['name the output type: `out_dtype="int8"`'],
        )
    rank = len(data.shape)
    ax = check_axis(r, "axis", r.attrs["axis"], rank)
    size = data.shape[ax] if rank else 1
    where = f"axis {r.attrs['axis']} of the data" if rank else "a scalar"
    done = channel_param(r, 1, "input scale", size, where)
    done = channel_param(r, 2, "input zero point", size, where) and done
    done = scalar_param(r, 3, "output scale") and done
    done = scalar_param(r, 4, "output zero point") and done
    if not done:
        return False
    r.set_result(TensorType(data.shape, out))
    return True


@register(
    "qnn.requantize",
    inputs=5,
    relation=requantize_rel,
    attrs=(
        Attr("axis", "int", -1),
        Attr("rounding", "str", "None"),
        Attr("compute_dtype", "str", "None"),
        Attr("out_dtype", "opt_dtype", ""),
    ),
    doc="Integers from one scale and zero point to another, with TVM's fixed-point rounding.",
)
def qnn_requantize(args: Args, attrs: Attrs) -> Value:
    x, s_in, z_in, s_out, z_out = args
    return requantize(
        x, s_in, z_in, s_out, z_out, attrs["out_dtype"], attrs["axis"], attrs["rounding"], attrs["compute_dtype"]
    )


# ---------------------------------------------------------------- simulated quantize and dequantize

# The runtime codes of the simulated operators' dtype input (tvm.topi.nn.qnn).
SIM_CODES = {1: "int8", 2: "uint8", 3: "int32"}


def _simulated_rel(r: Relation) -> bool:
    """Floating-point data and a dtype-code tensor; the result has the data's type."""
    data = known_tensor(r, 0)
    if data is None:
        return False
    require_dtype(r, 0, data, FLOATS, "data")
    r.set_result(data)
    pending = False
    for i in (1, 2, 3):
        if is_unknown(r.arg(i)):
            pending = True  # a constant without metadata may still become a scalar
        else:
            r.tensor(i)
    return not pending


_SIM_PARAMS = params_default({1: "int32", 2: "float32", 3: "int32"})


@relation("QNNSimulatedQuantize", default=_SIM_PARAMS)
def simulated_quantize_rel(r: Relation) -> bool:
    return _simulated_rel(r)


@relation("QNNSimulatedDequantize", default=_SIM_PARAMS)
def simulated_dequantize_rel(r: Relation) -> bool:
    return _simulated_rel(r)


def _sim_setup(x: Any, code: Any, scale: Any, zp: Any, axis: int, op: str) -> tuple[Any, Any, Any]:
    """(code as int, scale and zero point laid along the axis) for the simulated kernels."""
    code = np.asarray(code)
    if code.size != 1:
        raise KernelError(codes.RUNTIME_ERROR, f"`{op}`: the dtype code must be one value, found {code.size}")
    if not -x.ndim <= axis < x.ndim:
        raise KernelError(codes.RUNTIME_ERROR, f"`{op}`: axis {axis} is out of range for data of rank {x.ndim}")
    s, z = np.asarray(scale).reshape(-1), np.asarray(zp).reshape(-1)
    if s.size == 0 or z.size == 0:
        raise KernelError(codes.RUNTIME_ERROR, f"`{op}`: the scale and zero point need at least one value")
    n = x.shape[axis]
    ax = axis % x.ndim
    shape = [1] * x.ndim
    shape[ax] = n
    pick = np.arange(n)
    s = s[pick % s.size].astype(x.dtype).reshape(shape)
    z = z[pick % z.size].astype(x.dtype).reshape(shape)
    return int(code.reshape(-1)[0]), s, z


@register(
    "qnn.simulated_quantize",
    inputs=4,
    relation=simulated_quantize_rel,
    attrs=(Attr("axis", "int", -1),),
    doc="qnn.quantize with the result kept in floating point; the target dtype is a runtime code.",
)
def simulated_quantize(args: Args, attrs: Attrs) -> Value:
    x, code, scale, zp = args
    code, s, z = _sim_setup(x, code, scale, zp, attrs["axis"], "qnn.simulated_quantize")
    dtype = SIM_CODES.get(code)
    if dtype is None:
        return x.copy()
    lo, hi = qrange(dtype)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        v = round_half_away(np.asarray(x / s, dtype=x.dtype)) + z
        return np.asarray(select_clip(v, x.dtype.type(lo), x.dtype.type(hi)), dtype=x.dtype)


@register(
    "qnn.simulated_dequantize",
    inputs=4,
    relation=simulated_dequantize_rel,
    attrs=(Attr("out_dtype", "dtype"), Attr("axis", "int", -1)),
    doc="qnn.dequantize on floating-point data; the source dtype is a runtime code.",
)
def simulated_dequantize(args: Args, attrs: Attrs) -> Value:
    x, code, scale, zp = args
    code, s, z = _sim_setup(x, code, scale, zp, attrs["axis"], "qnn.simulated_dequantize")
    if code not in SIM_CODES:
        return x.copy()
    with np.errstate(invalid="ignore", over="ignore"):
        return np.asarray((x - z) * s, dtype=x.dtype)


# ---------------------------------------------------------------- relay.op.annotation.simulated_quantize


@relation("SimulatedQuantize", default=params_default({1: "float32", 2: "float32", 3: "float32"}))
def annotation_simulated_quantize_rel(r: Relation) -> bool:
    """Floating-point data of rank at least 1; dom_scale, clip_min and clip_max are float32 scalars."""
    data = known_tensor(r, 0)
    if data is None:
        return False
    if not data.shape:
        r.fail(
            codes.SHAPE_MISMATCH,
            "`relay.op.annotation.simulated_quantize` needs data of rank at least 1, found a scalar",
            arg=0,
        )
    require_dtype(r, 0, data, FLOATS, "data")
    for i in (1, 2, 3):
        r.refine(i, TensorType((), "float32"))
    r.set_result(data)
    return True


@register(
    "relay.op.annotation.simulated_quantize",
    inputs=4,
    relation=annotation_simulated_quantize_rel,
    attrs=(Attr("kind", "int"), Attr("sign", "bool", True), Attr("rounding", "str", "round")),
    doc="Round data / dom_scale after clipping it to [clip_min, clip_max], then scale back.",
)
def annotation_simulated_quantize(args: Args, attrs: Attrs) -> Value:
    x, scale, lo, hi = args
    if not attrs["sign"] or attrs["rounding"] != "round":
        raise KernelError(
            codes.RUNTIME_ERROR,
            '`relay.op.annotation.simulated_quantize` is computed only with sign=True and rounding="round"',
        )
    if attrs["kind"] == 0:
        return x.copy()
    t = x.dtype.type
    s = t(scale)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        v = np.asarray(x / s, dtype=x.dtype)
        v = np.where(v < t(hi), v, t(hi))  # TVM's minimum, then maximum: selects
        v = np.where(v > t(lo), v, t(lo))
        return np.asarray(round_half_away(np.asarray(v, dtype=x.dtype)) * s, dtype=x.dtype)
