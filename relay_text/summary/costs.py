"""What an operator call costs: multiply-accumulates, from its types.

Counted are the operators whose work is multiplications summed into
outputs, the figure model cards quote ("4.1 G multiply-adds" for ResNet-50):

* convolutions (`nn.conv1d/2d/3d`, the `NCHWc` and depthwise `NCHWc` forms,
  `qnn.conv2d`, `nn.deformable_conv2d`): every output position (batch and
  spatial axes, not channels) multiplies the whole weight tensor once, as
  each output channel reads `in_channels / groups x kernel` weights; so
  MACs = output elements / output channels x weight elements, whatever the
  layouts and groups;
* transposed convolutions: every input position multiplies the whole
  weight once: input elements / input channels x weight elements;
* `nn.dense`, `nn.matmul`, `nn.batch_matmul` (and `qnn.` and packed forms):
  output elements x the reduced dimension.

Everything else counts nothing: elementwise steps, normalisations and
pooling are reported by operator in `relay summary`, not as MACs. A call
whose shapes are not all known (`?`, shape variables) costs None.
"""

from __future__ import annotations

import re
from typing import Any
from collections.abc import Callable, Mapping

from ..ir.ty import TensorType, TupleType, split_lanes

Attrs = Mapping[str, Any]
Cost = Callable[[list[Any], Any, Attrs], "int | None"]


def elements(ty: Any) -> int | None:
    """The element count of a tensor type with a known shape (tuples: the sum), else None."""
    if isinstance(ty, TensorType):
        shape = ty.shape
        if not isinstance(shape, tuple):
            return None
        count = 1
        for dim in shape:
            if type(dim) is not int:
                return None
            count *= dim
        return count
    if isinstance(ty, TupleType):
        total = 0
        for field in ty.fields:
            n = elements(field)
            if n is None:
                return None
            total += n
        return total
    return None


def dims(ty: Any) -> tuple[int, ...] | None:
    """The shape of a tensor type when every dimension is a known int."""
    if isinstance(ty, TensorType) and isinstance(ty.shape, tuple) and all(type(d) is int for d in ty.shape):
        return ty.shape
    return None


_BITS = re.compile(r"[a-z_]+?(\d+)$")


def dtype_bits(dtype: Any) -> int | None:
    """Bits one element of `dtype` takes in memory (`bool`: 8, `int32x4`: 128)."""
    if not isinstance(dtype, str):
        return None
    base, lanes = split_lanes(dtype)
    if base == "bool":
        return 8 * lanes
    m = _BITS.fullmatch(base)
    return int(m.group(1)) * lanes if m else None


def nbytes(ty: Any) -> int | None:
    """Bytes a value of tensor (or tuple) type takes, when its shape and dtype are known."""
    if isinstance(ty, TupleType):
        total = 0
        for field in ty.fields:
            n = nbytes(field)
            if n is None:
                return None
            total += n
        return total
    count = elements(ty)
    bits = dtype_bits(ty.dtype) if isinstance(ty, TensorType) else None
    if count is None or bits is None:
        return None
    return (count * bits + 7) // 8


_AXIS = re.compile(r"\d*[A-Za-z]")


def channels(shape: tuple[int, ...], layout: str) -> int | None:
    """The channel count of a tensor laid out as `layout` (`NCHW`, `NHWC`,
    `NCHW8c`: the product of its `C` and `c` axes)."""
    axes = _AXIS.findall(layout)
    if len(axes) != len(shape):
        return None
    count = 1
    found = False
    for axis, dim in zip(axes, shape, strict=False):
        if axis[-1] in "Cc":
            count *= dim
            found = True
    return count if found and count > 0 else None


def _conv(weight_arg: int) -> Cost:
    def cost(args: list[Any], out: Any, attrs: Attrs) -> int | None:
        shape, weight = dims(out), elements(args[weight_arg]) if len(args) > weight_arg else None
        if shape is None or weight is None:
            return None
        layout = attrs.get("out_layout") or attrs.get("data_layout") or ""
        outc = channels(shape, layout) if isinstance(layout, str) else None
        if outc is None:
            return None
        size = elements(out)
        return None if size is None else size // outc * weight

    return cost


def _conv_transpose(args: list[Any], out: Any, attrs: Attrs) -> int | None:
    data, weight = dims(args[0]), elements(args[1]) if len(args) > 1 else None
    layout = attrs.get("data_layout") or ""
    if data is None or weight is None or not isinstance(layout, str):
        return None
    inc = channels(data, layout)
    size = elements(args[0])
    return None if inc is None or size is None else size // inc * weight


def _reduced(transpose_key: str | None) -> Cost:
    """Output elements times the reduced dimension of the first argument."""

    def cost(args: list[Any], out: Any, attrs: Attrs) -> int | None:
        data, size = dims(args[0]), elements(out)
        if data is None or size is None or not data:
            return None
        transposed = bool(attrs.get(transpose_key)) if transpose_key else False
        if transposed and len(data) < 2:
            return None
        return size * (data[-2] if transposed else data[-1])

    return cost


COSTS: dict[str, Cost] = {
    "nn.conv1d": _conv(1),
    "nn.conv2d": _conv(1),
    "nn.conv3d": _conv(1),
    "nn.contrib_conv2d_NCHWc": _conv(1),
    "nn.contrib_depthwise_conv2d_NCHWc": _conv(1),
    "qnn.conv2d": _conv(1),
    "nn.deformable_conv2d": _conv(2),
    "nn.conv1d_transpose": _conv_transpose,
    "nn.conv2d_transpose": _conv_transpose,
    "nn.conv3d_transpose": _conv_transpose,
    "qnn.conv2d_transpose": _conv_transpose,
    "nn.dense": _reduced(None),
    "qnn.dense": _reduced(None),
    "nn.contrib_dense_pack": _reduced(None),
    "qnn.contrib_dense_pack": _reduced(None),
    "nn.matmul": _reduced("transpose_a"),
    "nn.batch_matmul": _reduced("transpose_a"),
    "qnn.batch_matmul": _reduced("transpose_a"),
}


def full_attrs(op: str, given: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    """A call's attributes with the operator's defaults filled in."""
    from ..ops import registry

    opdef = registry.get(op)
    if opdef is None:
        return dict(given)
    attrs, _ = opdef.normalize_attrs(given)
    return attrs


def macs(op: str, arg_types: list[Any], out_type: Any, given: tuple[tuple[str, Any], ...]) -> int | None:
    """Multiply-accumulates of one call of `op`: 0 for operators that are not
    counted, None when a counted operator's shapes are not all known."""
    cost = COSTS.get(op)
    if cost is None:
        return 0
    if any(t is None for t in arg_types) or out_type is None:
        return None
    try:
        return cost(arg_types, out_type, full_attrs(op, given))
    except (TypeError, ValueError, IndexError):  # attributes of an unexpected kind
        return None
