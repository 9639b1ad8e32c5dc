"""Bit-serial operators: `nn.bitpack`, `nn.bitserial_conv2d` and
`nn.bitserial_dense`.

`nn.bitpack(data, bits, pack_axis, bit_axis, pack_type)` splits the low
`bits` bits of integer data into bit planes and packs each plane along
`pack_axis` into words of `pack_type` (uint8, uint16, uint32 or uint64,
w bits wide): that axis shrinks by w (its size must be a multiple of w),
and a new axis of size `bits` is inserted at `bit_axis` of the result
(0 to rank). Within a word the first of the w elements is the most
significant bit.

The bit-serial convolution and dense layer quantise their operands to
`activation_bits` / `data_bits` and `weight_bits` low bits and add up
popcounts of bit-plane products, each shifted by the sum of the two bit
positions. That sum is an integer product of the quantised values:

* `unipolar=False`: `sum(a * b)` with `a`, `b` the low-bit values;
* `unipolar=True`: each weight bit counts +1 when set and -1 when clear,
  so the weight value becomes `2 * b - (2^weight_bits - 1)`.

The kernels compute those products directly (a matrix product, or
`nn.conv2d`'s machinery), in `out_dtype`. Padding positions read 0.
`nn.bitserial_conv2d` takes NCHW data with an OIHW weight, or NHWC with
HWIO, both unpacked, and needs `channels`, `kernel_size` and `out_dtype`;
its output has the data's layout. `pack_dtype` (the word the planes are
packed into) does not change the result; when given it must be one of the
unsigned types above.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType
from ._conv_nd import int_values, pads, window_sizes
from .._np import np, wrap
from .conv import conv2d_nchw, pads_2d, pair_of
from ..registry import Attr, register
from ..relations import Relation, known_rank, relation, shape_text
from ..types import Args, Attrs, Value

_WORDS = {"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}


def _integer(r: Relation, i: int, what: str) -> None:
    t = r.tensor(i)
    if type(t.dtype) is str and not t.dtype.startswith(("int", "uint")):
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` packs the bits of integers, but the {what} is `{t.dtype}`", arg=i)


def _bits(r: Relation, name: str) -> int:
    b: int = r.attrs[name]
    if not 1 <= b <= 8:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` {name} must be 1 to 8, found {b}")
    return b


def _pack_type(r: Relation, name: str, optional: bool = False) -> str:
    t: str = r.attrs[name]
    if t not in _WORDS and not (optional and t == ""):
        r.fail(codes.TYPE_MISMATCH, f'`{r.op}` {name} must be "uint8", "uint16", "uint32" or "uint64", found "{t}"')
    return t


@relation("BitPack")
def bitpack_rel(r: Relation) -> bool:
    """pack_axis divided by the word width, a `bits` axis inserted at bit_axis, dtype pack_type."""
    bits = _bits(r, "bits")
    word = _WORDS[_pack_type(r, "pack_type")]
    x = r.tensor(0)
    _integer(r, 0, "data")
    if not known_rank(x.shape):
        return False
    rank = len(x.shape)
    pack_axis, bit_axis = r.attrs["pack_axis"], r.attrs["bit_axis"]
    if not 0 <= pack_axis < rank:
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` pack_axis {pack_axis} is out of range for data of rank {rank}",
            notes=[f"use 0 to {rank - 1}"],
        )
    if not 0 <= bit_axis <= rank:
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` bit_axis {bit_axis} is out of range for a result of rank {rank + 1}",
            notes=[f"use 0 to {rank}"],
        )
    d = x.shape[pack_axis]
    if type(d) is int and d % word:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}`: axis {pack_axis} has size {d}, not a multiple of the {word} bits of {r.attrs['pack_type']}",
            arg=0,
        )
    shape = list(x.shape)
    shape[pack_axis] = d // word if type(d) is int else d
    shape.insert(bit_axis, bits)
    r.set_result(TensorType(tuple(shape), r.attrs["pack_type"]))
    return True


def bit_planes(x: Any, bits: int) -> Any:
    """(bits, *x.shape) of 0/1: plane b holds bit b of each value."""
    v = x.astype(np.int64)
    return np.stack([(v >> b) & 1 for b in range(bits)])


@register(
    "nn.bitpack",
    inputs=1,
    relation=bitpack_rel,
    attrs=(
        Attr("bits", "int", 1),
        Attr("pack_axis", "int", 1),
        Attr("bit_axis", "int", -1),
        Attr("pack_type", "opt_dtype", ""),
        Attr("name", "str", "BitPack"),
    ),
    doc="Split the low bits of integers into bit planes and pack each along an axis into unsigned words.",
)
def bitpack(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    dtype = attrs["pack_type"]
    word = _WORDS[dtype]
    axis = attrs["pack_axis"]
    planes = np.moveaxis(bit_planes(x, attrs["bits"]), axis + 1, -1).astype(np.uint64)
    planes = planes.reshape(*planes.shape[:-1], planes.shape[-1] // word, word)
    weights = np.left_shift(np.uint64(1), np.arange(word - 1, -1, -1, dtype=np.uint64))
    words = (planes * weights).sum(axis=-1, dtype=np.uint64).astype(dtype)
    words = np.moveaxis(words, -1, axis + 1)  # (bits, *packed shape)
    return np.ascontiguousarray(np.moveaxis(words, 0, attrs["bit_axis"]))


def quantised(x: Any, bits: int) -> Any:
    """The value of the low `bits` bits, as int64."""
    return x.astype(np.int64) & ((1 << bits) - 1)


def weight_values(w: Any, bits: int, unipolar: bool) -> Any:
    q = quantised(w, bits)
    return 2 * q - ((1 << bits) - 1) if unipolar else q


_CONV_LAYOUTS = {"NCHW": "OIHW", "NHWC": "HWIO"}


@relation("BinaryConv2D")
def bitserial_conv2d_rel(r: Relation) -> bool:
    """data (N, C, H, W) (or NHWC), weight OIHW (or HWIO) -> (N, channels, OH, OW) in out_dtype."""
    dl, kl = r.attrs["data_layout"], r.attrs["kernel_layout"]
    if dl not in _CONV_LAYOUTS or _CONV_LAYOUTS[dl] != kl:
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}`: layouts "{dl}" / "{kl}" are not supported',
            notes=['use data_layout="NCHW" with kernel_layout="OIHW", or "NHWC" with "HWIO"'],
        )
    if r.attrs["channels"] is None:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` needs the attribute channels")
    if not r.attrs["out_dtype"]:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` needs the attribute out_dtype")
    _bits(r, "activation_bits")
    _bits(r, "weight_bits")
    _pack_type(r, "pack_dtype", optional=True)
    strides = int_values(r, "strides", 2)
    before, after = pads(r, 2)
    ks = int_values(r, "kernel_size", 2)
    data = r.tensor(0)
    _integer(r, 0, "data")
    _integer(r, 1, "weight")
    if not known_rank(data.shape):
        return False
    if len(data.shape) != 4:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs 4-D data ({dl}), found {shape_text(data.shape)}", arg=0)
    dims = dict(zip(dl, data.shape, strict=False))
    channels = r.attrs["channels"]
    weight = r.tensor(1)
    if known_rank(weight.shape):
        if len(weight.shape) != 4:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`{r.op}` takes an unpacked 4-D weight ({kl}), found {shape_text(weight.shape)}",
                arg=1,
            )
        wd = dict(zip(kl, weight.shape, strict=False))
        expected = {"O": channels, "I": dims["C"], "H": ks[0], "W": ks[1]}
        for letter, want in expected.items():
            if type(want) is int and type(wd[letter]) is int and wd[letter] != want:
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`{r.op}`: the weight should be {shape_text(tuple(expected[x] for x in kl))} ({kl}), found "
                    f"{shape_text(weight.shape)}",
                    arg=1,
                )
    oh, ow = window_sizes(r, (dims["H"], dims["W"]), ks, strides, (1, 1), before, after)
    out = {"N": dims["N"], "C": channels, "H": oh, "W": ow}
    r.set_result(TensorType(tuple(out[x] for x in dl), r.attrs["out_dtype"]))
    return True


@register(
    "nn.bitserial_conv2d",
    inputs=2,
    relation=bitserial_conv2d_rel,
    attrs=(
        Attr("strides", "ints", (1, 1)),
        Attr("padding", "ints", (0, 0)),
        Attr("kernel_size", "ints", (3, 3)),
        Attr("channels", "opt_int", None),
        Attr("activation_bits", "int", 1),
        Attr("weight_bits", "int", 1),
        Attr("data_layout", "str", "NCHW"),
        Attr("kernel_layout", "str", "OIHW"),
        Attr("pack_dtype", "opt_dtype", ""),
        Attr("out_dtype", "opt_dtype", ""),
        Attr("unipolar", "bool", True),
    ),
    doc="Convolution of low-bit integers by popcounts of bit planes (unipolar: weight bits count as +1/-1).",
)
def bitserial_conv2d(args: Args, attrs: Attrs) -> Value:
    x, w = args
    dl = attrs["data_layout"]
    dtype = np.dtype(attrs["out_dtype"])
    a = quantised(x, attrs["activation_bits"])
    b = weight_values(w, attrs["weight_bits"], attrs["unipolar"])
    if dl == "NHWC":
        a = a.transpose(0, 3, 1, 2)
        b = b.transpose(3, 2, 0, 1)
    out = conv2d_nchw(a, b, pair_of(attrs["strides"]), pads_2d(attrs["padding"]), (1, 1), 1, np.dtype(np.int64))
    if dl == "NHWC":
        out = out.transpose(0, 2, 3, 1)
    return wrap(out.astype(dtype), dtype)


@relation("BinaryDense")
def bitserial_dense_rel(r: Relation) -> bool:
    """data (..., K), weight (units, K) -> (..., units) in out_dtype (default: the data's)."""
    if r.attrs["units"] is None:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` needs the attribute units")
    _bits(r, "data_bits")
    _bits(r, "weight_bits")
    _pack_type(r, "pack_dtype", optional=True)
    data = r.tensor(0)
    _integer(r, 0, "data")
    _integer(r, 1, "weight")
    if not known_rank(data.shape):
        return False
    if not data.shape:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs data of rank 1 or more, found a scalar", arg=0)
    units = r.attrs["units"]
    weight = r.tensor(1)
    if known_rank(weight.shape):
        k = data.shape[-1]
        if len(weight.shape) != 2 or any(
            type(a) is int and type(b) is int and a != b for a, b in zip(weight.shape, (units, k), strict=False)
        ):
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`{r.op}`: the weight should be ({units}, {k}), found {shape_text(weight.shape)}",
                arg=1,
            )
    r.set_result(TensorType((*data.shape[:-1], units), r.attrs["out_dtype"] or data.dtype))
    return True


@register(
    "nn.bitserial_dense",
    inputs=2,
    relation=bitserial_dense_rel,
    attrs=(
        Attr("units", "opt_int", None),
        Attr("data_bits", "int", 1),
        Attr("weight_bits", "int", 1),
        Attr("pack_dtype", "opt_dtype", ""),
        Attr("out_dtype", "opt_dtype", ""),
        Attr("unipolar", "bool", True),
    ),
    doc="Dense layer of low-bit integers by popcounts of bit planes (unipolar: weight bits count as +1/-1).",
)
def bitserial_dense(args: Args, attrs: Attrs) -> Value:
    x, w = args
    dtype = np.dtype(attrs["out_dtype"] or x.dtype)
    a = quantised(x, attrs["data_bits"])
    b = weight_values(w, attrs["weight_bits"], attrs["unipolar"])
    return wrap(np.matmul(a, b.T).astype(dtype), dtype)
