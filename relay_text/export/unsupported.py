"""Operators `relay export` does not convert, and why.

Every registered operator either has a converter (`convert/`) with an
export test (tests/export/test_operators*.py), is exported as the call it
makes (`lower.CALLING_OPERATORS`), or has an entry here; a test keeps the
three complete against the registry. `NO_ONNX_EQUIVALENT` holds operators
whose meaning ONNX cannot express; `NOT_CONVERTED` those it could, as a
composition of its operators, for which no converter is written yet. The
reason is part of the diagnostic a program using the operator gets.
"""

from __future__ import annotations

_VM = (
    "an instruction of TVM's virtual machine that allocates storage or writes into a tensor after creating it: "
    "ONNX values are tensors computed once, by the node that defines them, and have no storage to allocate or write"
)

NO_ONNX_EQUIVALENT: dict[str, str] = {
    "memory.alloc_storage": _VM,
    "memory.alloc_tensor": _VM,
    "memory.kill": _VM,
    "vm.invoke_tvm_op": _VM,
}

_SPARSE = (
    "not converted yet: the compressed matrix could be expanded in the graph (each entry's row found from indptr, "
    "written with ScatterND) and multiplied or added densely"
)
_RANDOM = (
    "not converted yet: TVM's Threefry generator is 64-bit additions, rotations and xors, which ONNX's uint64 Add, "
    "BitShift and BitwiseXor compute; ONNX's own random operators draw other numbers"
)
_NMS = (
    "not converted yet: TVM's greedy box selection could be a `Loop` over the boxes sorted by score; ONNX's "
    "NonMaxSuppression has other tie and threshold rules and another output layout"
)

NOT_CONVERTED: dict[str, str] = {
    "nn.sparse_add": _SPARSE,
    "nn.sparse_conv2d": _SPARSE,
    "nn.sparse_dense": _SPARSE,
    "nn.sparse_transpose": (
        "not converted yet: the transposed matrix's entries could be sorted by column (a stable TopK) and its row "
        "pointers counted"
    ),
    "nn.internal.sparse_dense_padded": _SPARSE,
    "random.multinomial": _RANDOM,
    "random.normal": _RANDOM,
    "random.uniform": _RANDOM,
    "random.threefry_generate": _RANDOM,
    "random.threefry_split": _RANDOM,
    "vision.non_max_suppression": _NMS,
    "vision.all_class_non_max_suppression": _NMS,
    "vision.regular_non_max_suppression": _NMS,
    "vision.proposal": (
        "not converted yet: Faster R-CNN's proposals decode anchors (expressible) and then select boxes greedily, "
        "as `vision.non_max_suppression` does"
    ),
    "nn.avg_pool2d_grad": (
        "not converted yet: each window's share of the gradient could be spread back with one padded slice per "
        "window position"
    ),
    "nn.max_pool2d_grad": (
        "not converted yet: each window's gradient could go to the first cell holding its maximum, found tap by tap"
    ),
    "nn.deformable_conv2d": (
        "not converted yet: the displaced taps could be sampled bilinearly with GatherElements before one matrix "
        "product per group; ONNX's DeformConv (opset 19) reads the offsets in another layout"
    ),
}

NOT_EXPORTED: dict[str, str] = {**NO_ONNX_EQUIVALENT, **NOT_CONVERTED}
