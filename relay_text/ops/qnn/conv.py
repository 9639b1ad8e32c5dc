"""Quantized convolutions: `qnn.conv2d` and `qnn.conv2d_transpose`.

Both take `(data, weight, input_zero_point, weight_zero_point,
input_scale, weight_scale)` and the attributes of `nn.conv2d` /
`nn.conv2d_transpose` (TVM's Conv2DAttrs and Conv2DTransposeAttrs, whose
`out_dtype` has no default: it must be int16, int32 or int64 here). The
scales only type-check: the result is in the scale `input_scale *
weight_scale` with zero point 0, and `qnn.requantize` brings it back.

* `qnn.conv2d`: int8, uint8 or int16 data and weight (they may differ);
  the result is the convolution of `data - input_zero_point` with `weight -
  weight_zero_point`, the padding counting as the input zero point (so as 0
  after the shift), exact and then wrapped to out_dtype (as TVM's
  decomposition into four int32 terms, src/relay/qnn/op/convolution.cc,
  gives modulo 2**32). The input zero point and scale are scalars; the
  weight zero point is a scalar or one value per output channel; the weight
  scale a scalar or a vector of as many values as output channels.
* `qnn.conv2d_transpose`: int8, uint8, int16 or uint16 data with int8 or
  uint8 weights; as TVM legalizes it (python/tvm/relay/qnn/op/
  legalizations.py), both are shifted by their zero points in int16
  (wrapping) before the transposed convolution in out_dtype. The input zero
  point and scale are scalars or one-element vectors; a vector weight zero
  point runs along axis 1 of the weight as laid out.

Layouts are any order of the letters (data NCHW, weight OIHW or IOHW).
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from .._np import np
from ._common import (
    channel_param,
    known_tensor,
    names,
    params_default,
    require_dtype,
    scalar_param,
)
from ..nn._attrs import CONV2D_ATTRS, CONV2D_TRANSPOSE_ATTRS
from ..nn.conv import conv2d_nchw, conv2d_transpose_nchw, pads_2d, pair_of
from ..nn.nn import padding4, pair, window_out
from ..registry import register
from ..relations import RankedTensor, Relation, is_unknown, relation, shape_text, static
from ..relation import RelationFn
from ..types import Args, Attrs, Value

OUT_DTYPES = ("int16", "int32", "int64")


def _layout(r: Relation, name: str, letters: str) -> str:
    layout: str = r.attrs[name]
    if sorted(layout) != sorted(letters):
        r.fail(
            codes.TYPE_MISMATCH, f'`{r.op}`: {name} "{layout}" is not supported; use an order of the letters {letters}'
        )
    return layout


def _out_dtype(r: Relation) -> str:
    out: str = r.attrs["out_dtype"]
    if out not in OUT_DTYPES:
        shown = f"`{out}`" if out else "no out_dtype"
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` produces {names(OUT_DTYPES)}, given {shown}",
            notes=['name the accumulator type: `out_dtype="int32"`'],
        )
    return out


def _operands(
    r: Relation, data_types: tuple[str, ...], weight_types: tuple[str, ...]
) -> tuple[RankedTensor, RankedTensor] | None:
    data, weight = known_tensor(r, 0), known_tensor(r, 1)
    if data is None or weight is None:
        return None
    require_dtype(r, 0, data, data_types, "data")
    require_dtype(r, 1, weight, weight_types, "weights")
    for i, t, what in ((0, data, "data"), (1, weight, "weight")):
        if len(t.shape) != 4:
            r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs a 4-D {what}, found {shape_text(t.shape)}", arg=i)
    return data, weight


def _weight_zero_point(r: Relation, i: int, size: Any, where: str) -> bool:
    """A scalar, or a vector of `size` values (one per output channel)."""
    return channel_param(r, i, "weight zero point", size, where)


# ---------------------------------------------------------------- conv2d


_PARAMS = params_default({2: "int32", 3: "int32", 4: "float32", 5: "float32"})


def _weight_default() -> RelationFn:
    """A relation default: the parameters' constants become scalars, and a weight
    constant without metadata takes the shape Conv2DRel / Conv2DTransposeRel
    derive from channels and kernel_size (groups 1), in the data's dtype."""

    def default(r: Relation) -> bool:
        done = _PARAMS(r)
        data = known_tensor(r, 0)
        channels, kernel_size = r.attrs["channels"], r.attrs["kernel_size"]
        if data is None or channels is None or kernel_size is None or r.attrs["groups"] != 1:
            return done
        if not (is_unknown(r.arg(1)) and r.from_metadata(1)) or len(data.shape) != 4 or len(kernel_size) not in (1, 2):
            return done
        dl = r.attrs["data_layout"]
        kl = r.attrs["kernel_layout"]
        if sorted(dl) != sorted("NCHW") or sorted(kl) != sorted("OIHW"):
            return done
        kh, kw = pair_of(kernel_size)
        c = data.shape[dl.index("C")]
        dims = {"O": channels, "I": c, "H": kh, "W": kw}
        r.refine(1, TensorType(tuple(dims[x] for x in kl), data.dtype))
        return True

    return default


@relation("QnnConv2D", default=_weight_default())
def qnn_conv2d_rel(r: Relation) -> bool:
    """Quantized data and weight, Conv2D's shape rule, scalar input parameters."""
    operands = _operands(r, ("int8", "uint8", "int16"), ("int8", "uint8", "int16"))
    if operands is None:
        return False
    data, weight = operands
    out = _out_dtype(r)
    dl = _layout(r, "data_layout", "NCHW")
    kl = _layout(r, "kernel_layout", "OIHW")
    ol = _layout(r, "out_layout", "NCHW") if r.attrs["out_layout"] else dl
    n, c, h, w = (data.shape[dl.index(x)] for x in "NCHW")
    o, i, kh, kw = (weight.shape[kl.index(x)] for x in "OIHW")
    groups, channels = r.attrs["groups"], r.attrs["channels"]
    done = scalar_param(r, 2, "input zero point")
    done = scalar_param(r, 4, "input scale") and done
    done = _weight_zero_point(r, 3, o, "the weight's output channels") and done
    if groups == 1:
        size, where = o, "the weight's output channels"
    elif channels is not None and groups == static(c) and channels == static(i):
        size, where = (i * o if static(i) is not None and static(o) is not None else AnyDim()), "the weight's I * O"
    else:
        size, where = (channels if channels is not None else o), "channels"
    done = channel_param(r, 5, "weight scale", size, where) and done
    if not done:
        return False
    if groups < 1:
        r.fail(codes.TYPE_MISMATCH, f"`qnn.conv2d` groups must be positive, found {groups}")
    kernel_size = pair(r, "kernel_size") if r.attrs["kernel_size"] is not None else None
    if kernel_size is not None and channels is not None:
        # Conv2DRel derives the weight from channels and kernel_size; a depthwise weight
        # (groups equal to the data's and the weight's O channels) is (C, channels / C, KH, KW)
        if is_depthwise(groups, c, o):
            if channels % groups:
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`qnn.conv2d`: depthwise channels={channels} is not a multiple of the {c} input channels",
                    arg=1,
                )
            want = {"O": c, "I": channels // groups, "H": kernel_size[0], "W": kernel_size[1]}
        else:
            want = {
                "O": channels,
                "I": c // groups if static(c) is not None else i,
                "H": kernel_size[0],
                "W": kernel_size[1],
            }
        expected = tuple(want[x] for x in kl)
        if any(
            static(a) is not None and static(b) is not None and a != b
            for a, b in zip(weight.shape, expected, strict=False)
        ):
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`qnn.conv2d`: channels={channels} and kernel_size={list(kernel_size)} give a weight of shape "
                f"{shape_text(expected)} ({kl}), found {shape_text(weight.shape)}",
                arg=1,
            )
        out_channels: Any = channels
    else:
        if channels is not None and static(o) is not None and o != channels:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`qnn.conv2d` has channels={channels}, but the weight has {o} output channels",
                arg=1,
            )
        if static(c) is not None and static(i) is not None and c != i * groups:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`qnn.conv2d`: the data has {c} channels, but the weight expects {i * groups} (groups={groups})",
                arg=1,
                notes=[f"data {shape_text(data.shape)} ({dl}), weight {shape_text(weight.shape)} ({kl})"],
            )
        if static(o) is not None and o % groups:
            r.fail(
                codes.SHAPE_MISMATCH, f"`qnn.conv2d`: {o} output channels cannot be divided into groups={groups}", arg=1
            )
        if kernel_size is not None and static(kh) is not None and static(kw) is not None and (kh, kw) != kernel_size:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`qnn.conv2d` has kernel_size={list(kernel_size)}, but the weight's window is ({kh}, {kw})",
                arg=1,
            )
        out_channels = o
    sh, sw = pair(r, "strides")
    dh, dw = pair(r, "dilation")
    pt, pl, pb, pr = padding4(r, r.attrs["padding"])
    if static(kh) is None or static(kw) is None:
        oh: Any = AnyDim()
        ow: Any = AnyDim()
    else:
        oh = window_out(h, kh, sh, dh, pt + pb)
        ow = window_out(w, kw, sw, dw, pl + pr)
        for name, v, extent in (("height", oh, h), ("width", ow, w)):
            if static(v) is not None and v <= 0:
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`qnn.conv2d`: the window does not fit: the input {name} is {extent}, the output would be {v}",
                    arg=0,
                )
    dims = {"N": n, "C": out_channels, "H": oh, "W": ow}
    r.set_result(TensorType(tuple(dims[x] for x in ol), out))
    return True


def is_depthwise(groups: int, c: Any, o: Any) -> bool:
    """TVM's Conv2DRel: groups above 1 equal to the data's channels and the weight's O axis."""
    return groups > 1 and groups == static(c) and groups == static(o)


def _shifted(x: Any, zp: Any, dtype: Any) -> Any:
    return x.astype(dtype) - np.asarray(zp).astype(dtype)


@register(
    "qnn.conv2d",
    inputs=6,
    relation=qnn_conv2d_rel,
    attrs=CONV2D_ATTRS,
    doc="2-D convolution of quantized data and weights, with their zero points, accumulated in out_dtype.",
)
def qnn_conv2d(args: Args, attrs: Attrs) -> Value:
    data, weight, z_in, z_w = args[:4]
    dl, kl = attrs["data_layout"], attrs["kernel_layout"]
    ol = attrs["out_layout"] or dl
    x = _shifted(np.transpose(data, [dl.index(a) for a in "NCHW"]), z_in, np.int64)
    w = np.transpose(weight, [kl.index(a) for a in "OIHW"]).astype(np.int64)
    zw = np.asarray(z_w, dtype=np.int64)
    w = w - (zw.reshape(-1, 1, 1, 1) if zw.ndim else zw)
    if is_depthwise(attrs["groups"], x.shape[1], w.shape[0]):
        # TVM's depthwise weight (C, multiplier, KH, KW): output channel c * m + j reads channel c
        w = w.reshape(-1, 1, w.shape[2], w.shape[3])
    out = conv2d_nchw(
        x,
        w,
        pair_of(attrs["strides"]),
        pads_2d(attrs["padding"]),
        pair_of(attrs["dilation"]),
        attrs["groups"],
        np.int64,
    )
    return np.transpose(out, ["NCHW".index(a) for a in ol]).astype(attrs["out_dtype"])


# ---------------------------------------------------------------- conv2d_transpose


@relation("QnnConv2DTranspose", default=_weight_default())
def qnn_conv2d_transpose_rel(r: Relation) -> bool:
    """Quantized data and weight, Conv2DTranspose's shape rule, one-value input parameters."""
    operands = _operands(r, ("int8", "uint8", "int16", "uint16"), ("int8", "uint8"))
    if operands is None:
        return False
    data, weight = operands
    out = _out_dtype(r)
    dl = _layout(r, "data_layout", "NCHW")
    kl = _layout(r, "kernel_layout", "IOHW")
    ol = _layout(r, "out_layout", "NCHW") if r.attrs["out_layout"] else dl
    n, c, h, w = (data.shape[dl.index(x)] for x in "NCHW")
    i, opg, kh, kw = (weight.shape[kl.index(x)] for x in "IOHW")
    groups = r.attrs["groups"]
    done = channel_param(r, 2, "input zero point", 1, "a per-tensor parameter")
    done = channel_param(r, 4, "input scale", 1, "a per-tensor parameter") and done
    done = channel_param(r, 3, "weight zero point", weight.shape[1], "axis 1 of the weight") and done
    if groups == 1:
        size: Any = weight.shape[kl.index("O")]
    else:
        size = i * opg if static(i) is not None and static(opg) is not None else AnyDim()
    done = (
        channel_param(
            r, 5, "weight scale", size, "the weight's output channels" if groups == 1 else "the weight's I * O"
        )
        and done
    )
    if not done:
        return False
    if groups < 1:
        r.fail(codes.TYPE_MISMATCH, f"`qnn.conv2d_transpose` groups must be positive, found {groups}")
    sh, sw = pair(r, "strides")
    dh, dw = pair(r, "dilation")
    op_pad = r.attrs["output_padding"]
    if len(op_pad) not in (1, 2):
        r.fail(codes.TYPE_MISMATCH, f"`qnn.conv2d_transpose` output_padding takes 1 or 2 values, found {len(op_pad)}")
    oph, opw = pair_of(op_pad)
    pt, pl, pb, pr = padding4(r, r.attrs["padding"])
    if not (0 <= oph < max(sh, dh) and 0 <= opw < max(sw, dw)):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`qnn.conv2d_transpose` output_padding {[oph, opw]} must be smaller than the strides {[sh, sw]}",
        )
    if static(c) is not None and static(i) is not None and c != i:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`qnn.conv2d_transpose`: the data has {c} channels, but the weight's input-channel axis has {i}",
            arg=1,
            notes=[f"data {shape_text(data.shape)} ({dl}), weight {shape_text(weight.shape)} ({kl})"],
        )
    if static(c) is not None and c % groups:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`qnn.conv2d_transpose`: {c} input channels cannot be divided into groups={groups}",
            arg=0,
        )
    o: Any = opg * groups if static(opg) is not None else AnyDim()
    channels = r.attrs["channels"]
    if channels is not None and static(o) is not None and o != channels:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`qnn.conv2d_transpose` has channels={channels}, but the weight gives {o} output channels",
            arg=1,
        )

    def size_of(d: Any, k: Any, s: int, dil: int, before: int, after: int, extra: int, name: str) -> Any:
        if static(d) is None or static(k) is None:
            return AnyDim()
        v = (d - 1) * s - before - after + dil * (k - 1) + extra + 1
        if v <= 0:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`qnn.conv2d_transpose`: the padding removes the whole output {name} ({v})",
                arg=0,
            )
        return v

    dims = {
        "N": n,
        "C": o,
        "H": size_of(h, kh, sh, dh, pt, pb, oph, "height"),
        "W": size_of(w, kw, sw, dw, pl, pr, opw, "width"),
    }
    r.set_result(TensorType(tuple(dims[x] for x in ol), out))
    return True


def _shift16(x: Any, zp: Any) -> Any:
    """x - zp in int16 (wrapping); a vector zero point runs along axis 1."""
    z = np.asarray(zp).astype(np.int16)
    if z.ndim and z.size > 1:
        z = z.reshape((1, -1) + (1,) * (x.ndim - 2))
    elif z.ndim:
        z = z.reshape(())
    return x.astype(np.int16) - z


@register(
    "qnn.conv2d_transpose",
    inputs=6,
    relation=qnn_conv2d_transpose_rel,
    attrs=CONV2D_TRANSPOSE_ATTRS,
    doc="Transposed 2-D convolution of quantized data and weights, with their zero points.",
)
def qnn_conv2d_transpose(args: Args, attrs: Attrs) -> Value:
    data, weight, z_in, z_w = args[:4]
    dl, kl = attrs["data_layout"], attrs["kernel_layout"]
    ol = attrs["out_layout"] or dl
    x = np.transpose(_shift16(data, z_in), [dl.index(a) for a in "NCHW"]).astype(np.int64)
    w = np.transpose(_shift16(weight, z_w), [kl.index(a) for a in "IOHW"]).astype(np.int64)
    out = conv2d_transpose_nchw(
        x,
        w,
        pair_of(attrs["strides"]),
        pads_2d(attrs["padding"]),
        pair_of(attrs["output_padding"]),
        pair_of(attrs["dilation"]),
        attrs["groups"],
        np.int64,
    )
    return np.transpose(out, ["NCHW".index(a) for a in ol]).astype(attrs["out_dtype"])
