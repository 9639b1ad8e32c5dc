"""Operators `relay export` does not convert, and why.

Every registered operator either has a converter (`convert/`) with an
export test (tests/export/test_operators.py) or an entry here; a test
keeps the two complete against the registry. `NO_ONNX_EQUIVALENT` holds
operators ONNX cannot express with the same results; `NOT_CONVERTED`
those it could, for which no converter is written yet. The reason is part
of the diagnostic a program using the operator gets.
"""

from __future__ import annotations

_QNN = "TVM's quantized arithmetic requantizes with 32-bit fixed-point multipliers and its own rounding; ONNX's QLinear* operators use float scales and round halves to even"
_VM = "an instruction of TVM's virtual machine (memory planning, lowered calls), not a tensor operation"
_LAYOUT = "a weight or data layout of TVM's schedules (packed, blocked or Winograd-transformed tensors), with no ONNX operator"
_SPARSE = "ONNX has no sparse tensor operators"
_RANDOM = "TVM's random numbers come from its Threefry generator; ONNX's random operators draw other numbers (and cannot be seeded to match)"
_NMS = "TVM's box selection returns padded, count-prefixed results in its own layout; ONNX's NonMaxSuppression returns selected indices, with other tie and threshold rules"

NO_ONNX_EQUIVALENT: dict[str, str] = {
    "nn.sparse_add": _SPARSE,
    "nn.sparse_conv2d": _SPARSE,
    "nn.sparse_dense": _SPARSE,
    "nn.sparse_transpose": _SPARSE,
    "nn.internal.sparse_dense_padded": _SPARSE,
    "random.multinomial": _RANDOM,
    "random.normal": _RANDOM,
    "random.uniform": _RANDOM,
    "random.threefry_generate": _RANDOM,
    "random.threefry_split": _RANDOM,
    "vision.non_max_suppression": _NMS,
    "vision.all_class_non_max_suppression": _NMS,
    "vision.regular_non_max_suppression": _NMS,
    "vision.proposal": "Faster R-CNN region proposals: no ONNX operator",
    "memory.alloc_storage": _VM,
    "memory.alloc_tensor": _VM,
    "memory.kill": _VM,
    "vm.invoke_tvm_op": _VM,
    "call_lowered": _VM,
    "nn.bitpack": "bit-serial packing of TVM's low-bit kernels: ONNX has no bit-packed tensors",
    "nn.bitserial_conv2d": "bit-serial convolution over packed bits: ONNX has no bit-packed tensors",
    "nn.bitserial_dense": "bit-serial dense layer over packed bits: ONNX has no bit-packed tensors",
    "nn.avg_pool2d_grad": "a gradient of pooling: ONNX's inference operators have no pooling gradients",
    "nn.max_pool2d_grad": "a gradient of pooling: ONNX's inference operators have no pooling gradients",
    "nn.conv2d_backward_weight": "a gradient of convolution: ONNX's inference operators have no convolution gradients",
    "nn.deformable_conv2d": "ONNX's DeformConv (opset 19) takes offsets in another layout and has no deformable_groups with TVM's order",
    "fixed_point_multiply": _QNN,
    "fixed_point_multiply_per_axis": _QNN,
    "relay.op.annotation.simulated_quantize": _QNN,
    "qnn.simulated_quantize": _QNN,
    "qnn.simulated_dequantize": _QNN,
    "qnn.quantize": _QNN,
    "qnn.dequantize": _QNN,
    "qnn.requantize": _QNN,
    "qnn.add": _QNN,
    "qnn.subtract": _QNN,
    "qnn.mul": _QNN,
    "qnn.concatenate": _QNN,
    "qnn.conv2d": _QNN,
    "qnn.conv2d_transpose": _QNN,
    "qnn.dense": _QNN,
    "qnn.batch_matmul": _QNN,
    "qnn.contrib_dense_pack": _QNN,
    "qnn.avg_pool2d": _QNN,
    "qnn.abs": _QNN,
    "qnn.erf": _QNN,
    "qnn.exp": _QNN,
    "qnn.hardswish": _QNN,
    "qnn.leaky_relu": _QNN,
    "qnn.log": _QNN,
    "qnn.rsqrt": _QNN,
    "qnn.sigmoid": _QNN,
    "qnn.softmax": _QNN,
    "qnn.sqrt": _QNN,
    "qnn.tanh": _QNN,
}

NOT_CONVERTED: dict[str, str] = {}

NOT_EXPORTED: dict[str, str] = {**NO_ONNX_EQUIVALENT, **NOT_CONVERTED}
