"""Bit-serial operators: `nn.bitpack` packs bit planes into words with
shifts and sums of uint64; the bit-serial convolution and dense layer are,
as the numpy kernels compute them, exact integer products of the operands'
low bits (in int64, then `out_dtype`)."""

from __future__ import annotations

from . import OpContext, converter, matrix_product, np
from .nn import conv_by_matmul, spatial, spatial_pads

_WORDS = {"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}


def _low_bits(cx: OpContext, x: str, bits: int) -> str:
    return cx.node("BitwiseAnd", [cx.cast(x, "int64"), cx.scalar((1 << bits) - 1, "int64")])


def _weights(cx: OpContext, w: str, bits: int, unipolar: bool) -> str:
    q = _low_bits(cx, w, bits)
    if not unipolar:
        return q
    return cx.node("Sub", [cx.node("Mul", [q, cx.scalar(2, "int64")]), cx.scalar((1 << bits) - 1, "int64")])


@converter("nn.bitpack")
def bitpack(cx: OpContext, x: str) -> str:
    a = cx.attrs
    dtype = a["pack_type"]
    word = _WORDS[dtype]
    axis, bit_axis, bits = int(a["pack_axis"]), int(a["bit_axis"]), int(a["bits"])
    shape = list(cx.shape(0))
    v = cx.cast(x, "int64")
    # (bits, *shape) planes of 0 and 1: plane b holds bit b
    bits64 = cx.cast(v, "uint64")  # the same bits
    planes = [
        cx.node(
            "BitwiseAnd",
            [cx.node("BitShift", [bits64, cx.scalar(b, "uint64")], direction="RIGHT"), cx.scalar(1, "uint64")],
        )
        for b in range(bits)
    ]
    stacked = cx.cast(cx.node("Concat", [cx.unsqueeze(p, [0]) for p in planes], axis=0), "int64")
    rank = len(shape) + 1
    moved_perm = [i for i in range(rank) if i != axis + 1] + [axis + 1]
    moved = cx.node("Transpose", [stacked], perm=moved_perm)  # pack axis last
    lead = [bits] + [shape[i] for i in range(len(shape)) if i != axis]
    blocks = cx.reshape(moved, [*lead, shape[axis] // word, word])
    # the first element is the most significant bit; 32 bits at a time (sums
    # below 2**32 are exact whatever onnxruntime sums int64 through)
    halves = []
    for start in range(0, word, 32):
        width = min(32, word - start)
        part = cx.node("Slice", [blocks, cx.ints([start]), cx.ints([start + width]), cx.ints([len(lead) + 1])])
        weights = cx.const(np.left_shift(np.int64(1), np.arange(width - 1, -1, -1, dtype=np.int64)))
        halves.append(
            cx.cast(cx.reduce("ReduceSum", cx.node("Mul", [part, weights]), [len(lead) + 1], False), "uint64")
        )
    summed = halves[0]
    if len(halves) == 2:
        summed = cx.node(
            "BitwiseOr", [cx.node("BitShift", [halves[0], cx.scalar(32, "uint64")], direction="LEFT"), halves[1]]
        )
    words = cx.cast(summed, dtype)  # (bits, ..., packed)
    # the packed axis back in place, then the bits axis to bit_axis
    back = [*list(range(1, len(lead))), len(lead)]
    order = [0, *back[:axis], len(lead), *back[axis:-1]]
    words = cx.node("Transpose", [words], perm=order)  # (bits, *packed shape)
    final = list(range(1, rank))
    final.insert(bit_axis, 0)
    return cx.node("Transpose", [words], perm=final)


@converter("nn.bitserial_conv2d")
def bitserial_conv2d(cx: OpContext, x: str, w: str) -> str:
    a = cx.attrs
    dl = a["data_layout"]
    data = _low_bits(cx, x, int(a["activation_bits"]))
    weight = _weights(cx, w, int(a["weight_bits"]), bool(a["unipolar"]))
    xshape, wshape = cx.shape(0), cx.shape(1)
    if dl == "NHWC":
        data = cx.node("Transpose", [data], perm=[0, 3, 1, 2])
        weight = cx.node("Transpose", [weight], perm=[3, 2, 0, 1])
        xshape = (xshape[0], xshape[3], xshape[1], xshape[2])
        wshape = (wshape[3], wshape[2], wshape[0], wshape[1])
    y = conv_by_matmul(
        cx, data, weight, xshape, wshape, spatial(a["strides"], 2), spatial_pads(a["padding"], 2), [1, 1], 1, "int64"
    )
    if dl == "NHWC":
        y = cx.node("Transpose", [y], perm=[0, 2, 3, 1])
    return cx.cast(y, a["out_dtype"])


@converter("nn.bitserial_dense")
def bitserial_dense(cx: OpContext, x: str, w: str) -> str:
    a = cx.attrs
    data = _low_bits(cx, x, int(a["data_bits"]))
    weight = _weights(cx, w, int(a["weight_bits"]), bool(a["unipolar"]))
    y = matrix_product(cx, data, cx.node("Transpose", [weight], perm=[1, 0]), "int64")
    return cx.cast(y, a["out_dtype"] or cx.dtype(0))
