"""What passes and the evaluator may assume about each operator.

Every registered operator has one row here (tests/ops/test_properties.py
fails for an operator without one, and for a row naming no operator). The
registry attaches the row to the operator's unit (`OpDef.properties`) when
it is registered; nothing else keeps lists of operator names.

The values follow TVM's operator registrations (commit 21095b98), where
TVM has the fact:

* `pattern` - TVM's `TOpPattern`, the shape of the computation that
  operator fusion reads: `ELEMWISE` (each output element from the input
  element at the same index), `BROADCAST` (elementwise after numpy
  broadcasting), `INJECTIVE` (each output element from one computed index
  of the input: reshapes, slices, transposes), `COMM_REDUCE` (a reduction),
  `OUT_ELEMWISE_FUSABLE` (a complex operator such as a convolution whose
  output elementwise steps may join), `OPAQUE` (nothing is fused with it).
  An operator TVM gives no pattern is `OPAQUE`, as TVM's fusion treats it.
* `stateful` - TVM's `TOpIsStateful`: calls may differ for the same
  arguments, or act on the world (`nn.dropout`, `memory.kill`,
  `vm.invoke_tvm_op`); such calls are never folded, merged or dropped.
* `computational` - False where TVM sets `TNonComputational`: allocation,
  device placement and VM bookkeeping, and the quantized operators, which
  TVM computes only after lowering them to plain arithmetic.
* `lowers` - TVM registers a lowering of the (quantized) operator into plain
  operators (`FTVMQnnCanonicalize`), so it may be computed once at compile
  time all the same (`FoldConstant` with `fold_qnn`).
* `shape_dependent` - TVM's `TShapeDataDependent`: the shape of the result
  depends on the values of an input, not only on the input shapes.
* `reshape` - TVM's `TReshapeOp`: the operator only reshapes (the data,
  in order, is unchanged); a fused function of such calls alone is marked
  `ReshapeOnly`.

and two facts about this project's kernels:

* `inplace` - the kernel always returns a new array that owns its memory
  (never a view of an argument, never a shared constant), so a later
  elementwise step may write its result into that array (`eval/inplace.py`).
* `keeps_low_precision` - on float16 and bfloat16 tensors the kernel runs
  as it is: it only moves or converts values, or reads shapes or bits, so
  the evaluator does not compute it in float32 (`eval/ops.py`, `widen`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enum import IntEnum

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, for less at import
    from ..record import dataclass


class Pattern(IntEnum):
    """TVM's operator patterns, with TVM's numbering (lower fuses more freely)."""

    ELEMWISE = 0
    BROADCAST = 1
    INJECTIVE = 2
    COMM_REDUCE = 3
    OUT_ELEMWISE_FUSABLE = 4
    TUPLE = 7
    OPAQUE = 8


ELEMWISE, BROADCAST, INJECTIVE = Pattern.ELEMWISE, Pattern.BROADCAST, Pattern.INJECTIVE
COMM_REDUCE, OUT_ELEMWISE_FUSABLE, OPAQUE = Pattern.COMM_REDUCE, Pattern.OUT_ELEMWISE_FUSABLE, Pattern.OPAQUE


@dataclass(frozen=True, slots=True)
class Properties:
    """One operator's row (see the module docstring); the defaults are TVM's."""

    pattern: Pattern
    stateful: bool = False
    computational: bool = True
    lowers: bool = False
    shape_dependent: bool = False
    reshape: bool = False
    inplace: bool = False
    keeps_low_precision: bool = False

    @property
    def pure(self) -> bool:
        """Whether two calls with the same arguments give the same value and
        nothing else happens (TVM's passes test `TOpIsStateful` alone)."""
        return not self.stateful

    def foldable(self, fold_qnn: bool = False) -> bool:
        """Whether a call whose arguments are all constants may be computed
        once at compile time: TVM's `FoldConstant` rule (a stateful operator
        never; a non-computational one only when it lowers and `fold_qnn`)."""
        if self.stateful:
            return False
        return self.computational or (fold_qnn and self.lowers)


P = Properties

PROPERTIES: dict[str, Properties] = {
    "abs": P(ELEMWISE),
    "acos": P(ELEMWISE),
    "acosh": P(ELEMWISE),
    "add": P(BROADCAST, inplace=True),
    "adv_index": P(INJECTIVE, keeps_low_precision=True),
    "all": P(COMM_REDUCE),
    "annotation.bitpack_end": P(OPAQUE, keeps_low_precision=True),
    "annotation.bitpack_start": P(OPAQUE, keeps_low_precision=True),
    "annotation.cast_hint": P(OPAQUE, keeps_low_precision=True),
    "annotation.checkpoint": P(OPAQUE, keeps_low_precision=True),
    "annotation.compiler_begin": P(OPAQUE, keeps_low_precision=True),
    "annotation.compiler_end": P(OPAQUE, keeps_low_precision=True),
    "annotation.stop_fusion": P(OPAQUE, keeps_low_precision=True),
    "annotation.with_funcid": P(OPAQUE, keeps_low_precision=True),  # TVM registers no pattern: opaque
    "any": P(COMM_REDUCE),
    "arange": P(OPAQUE, shape_dependent=True),
    "argmax": P(COMM_REDUCE),
    "argmin": P(COMM_REDUCE),
    "argsort": P(OPAQUE),
    "argwhere": P(OPAQUE, shape_dependent=True, keeps_low_precision=True),
    "asin": P(ELEMWISE),
    "asinh": P(ELEMWISE),
    "atan": P(ELEMWISE),
    "atanh": P(ELEMWISE),
    "auto_scheduler_layout_transform": P(INJECTIVE, keeps_low_precision=True),
    "bitwise_and": P(BROADCAST),
    "bitwise_not": P(ELEMWISE),
    "bitwise_or": P(BROADCAST),
    "bitwise_xor": P(BROADCAST),
    "broadcast_to": P(BROADCAST, shape_dependent=True, keeps_low_precision=True),
    "broadcast_to_like": P(BROADCAST, keeps_low_precision=True),
    "call_lowered": P(OPAQUE, computational=False),
    "cast": P(ELEMWISE, keeps_low_precision=True),
    "cast_like": P(ELEMWISE, keeps_low_precision=True),
    "ceil": P(ELEMWISE),
    "clip": P(ELEMWISE),
    "collapse_sum_like": P(COMM_REDUCE),
    "collapse_sum_to": P(COMM_REDUCE),
    "concatenate": P(INJECTIVE, inplace=True, keeps_low_precision=True),
    "contrib_reverse_reshape": P(INJECTIVE, reshape=True, keeps_low_precision=True),
    "copy": P(ELEMWISE, keeps_low_precision=True),
    "cos": P(ELEMWISE),
    "cosh": P(ELEMWISE),
    "cumprod": P(OPAQUE),
    "cumsum": P(OPAQUE),
    "debug": P(OPAQUE, keeps_low_precision=True),
    "device_copy": P(OPAQUE, keeps_low_precision=True),
    "dft": P(OPAQUE),
    "divide": P(BROADCAST, inplace=True),
    "dyn.broadcast_to": P(BROADCAST, shape_dependent=True, keeps_low_precision=True),
    "dyn.expand_dims": P(INJECTIVE, shape_dependent=True, keeps_low_precision=True),
    "dyn.full": P(ELEMWISE, shape_dependent=True),
    "dyn.image.resize2d": P(INJECTIVE, shape_dependent=True),
    "dyn.image.resize": P(INJECTIVE, shape_dependent=True),  # the older name of dyn.image.resize2d
    "dyn.nn.pad": P(INJECTIVE, shape_dependent=True, keeps_low_precision=True),
    "dyn.nn.upsampling": P(INJECTIVE, shape_dependent=True),
    "dyn.nn.upsampling3d": P(INJECTIVE, shape_dependent=True),
    "dyn.one_hot": P(OUT_ELEMWISE_FUSABLE, shape_dependent=True, keeps_low_precision=True),
    "dyn.ones": P(ELEMWISE, shape_dependent=True),
    "dyn.reshape": P(INJECTIVE, reshape=True, shape_dependent=True, keeps_low_precision=True),
    "dyn.sparse_to_dense": P(OPAQUE, shape_dependent=True),
    "dyn.squeeze": P(INJECTIVE, reshape=True, shape_dependent=True, keeps_low_precision=True),
    "dyn.strided_slice": P(INJECTIVE, shape_dependent=True, keeps_low_precision=True),
    "dyn.tile": P(INJECTIVE, shape_dependent=True, keeps_low_precision=True),
    "dyn.topk": P(OPAQUE, shape_dependent=True),
    "dyn.zeros": P(ELEMWISE, shape_dependent=True),
    "einsum": P(INJECTIVE),
    "equal": P(BROADCAST),
    "erf": P(ELEMWISE),
    "exp": P(ELEMWISE, inplace=True),
    "expand_dims": P(BROADCAST, reshape=True, keeps_low_precision=True),
    "fast_erf": P(ELEMWISE),
    "fast_exp": P(ELEMWISE),
    "fast_tanh": P(ELEMWISE),
    "fixed_point_multiply": P(ELEMWISE),
    "fixed_point_multiply_per_axis": P(BROADCAST),
    "floor": P(ELEMWISE),
    "floor_divide": P(BROADCAST),
    "floor_mod": P(BROADCAST),
    "full": P(ELEMWISE),
    "full_like": P(ELEMWISE),
    "gather": P(INJECTIVE, keeps_low_precision=True),
    "gather_nd": P(INJECTIVE, keeps_low_precision=True),
    "greater": P(BROADCAST),
    "greater_equal": P(BROADCAST),
    "image.affine_grid": P(INJECTIVE),
    "image.crop_and_resize": P(INJECTIVE),
    "image.dilation2d": P(OUT_ELEMWISE_FUSABLE),
    "image.grid_sample": P(INJECTIVE),
    "image.resize": P(INJECTIVE),  # the older name of image.resize2d
    "image.resize1d": P(INJECTIVE),
    "image.resize2d": P(INJECTIVE),
    "image.resize3d": P(INJECTIVE),
    "invert_permutation": P(INJECTIVE),
    "isfinite": P(ELEMWISE),
    "isinf": P(ELEMWISE),
    "isnan": P(ELEMWISE),
    "layout_transform": P(INJECTIVE, keeps_low_precision=True),
    "left_shift": P(BROADCAST),
    "less": P(BROADCAST),
    "less_equal": P(BROADCAST),
    "log": P(ELEMWISE),
    "log10": P(ELEMWISE),
    "log2": P(ELEMWISE),
    "logical_and": P(BROADCAST),
    "logical_not": P(ELEMWISE),
    "logical_or": P(BROADCAST),
    "logical_xor": P(BROADCAST),
    "matrix_set_diag": P(INJECTIVE, keeps_low_precision=True),
    "max": P(COMM_REDUCE),
    "maximum": P(BROADCAST, inplace=True),
    "mean": P(COMM_REDUCE),
    "memory.alloc_storage": P(OPAQUE, computational=False, keeps_low_precision=True),
    "memory.alloc_tensor": P(OPAQUE, computational=False, keeps_low_precision=True),
    "memory.kill": P(OPAQUE, stateful=True, computational=False, keeps_low_precision=True),
    "meshgrid": P(INJECTIVE),
    "meta_schedule_layout_transform": P(INJECTIVE, keeps_low_precision=True),
    "min": P(COMM_REDUCE),
    "minimum": P(BROADCAST, inplace=True),
    "mod": P(BROADCAST),
    "multiply": P(BROADCAST, inplace=True),
    "ndarray_size": P(INJECTIVE, keeps_low_precision=True),
    "negative": P(ELEMWISE, inplace=True),
    "nn.adaptive_avg_pool1d": P(OUT_ELEMWISE_FUSABLE),
    "nn.adaptive_avg_pool2d": P(OUT_ELEMWISE_FUSABLE),
    "nn.adaptive_avg_pool3d": P(OUT_ELEMWISE_FUSABLE),
    "nn.adaptive_max_pool1d": P(OUT_ELEMWISE_FUSABLE),
    "nn.adaptive_max_pool2d": P(OUT_ELEMWISE_FUSABLE),
    "nn.adaptive_max_pool3d": P(OUT_ELEMWISE_FUSABLE),
    "nn.avg_pool1d": P(OUT_ELEMWISE_FUSABLE),
    "nn.avg_pool2d": P(OUT_ELEMWISE_FUSABLE, inplace=True),
    "nn.avg_pool2d_grad": P(OUT_ELEMWISE_FUSABLE),
    "nn.avg_pool3d": P(OUT_ELEMWISE_FUSABLE),
    "nn.batch_flatten": P(INJECTIVE, reshape=True, keeps_low_precision=True),
    "nn.batch_matmul": P(OUT_ELEMWISE_FUSABLE, inplace=True),
    "nn.batch_norm": P(OUT_ELEMWISE_FUSABLE),
    "nn.batch_to_space_nd": P(INJECTIVE, keeps_low_precision=True),
    "nn.bias_add": P(BROADCAST, inplace=True),
    "nn.bitpack": P(INJECTIVE),
    "nn.bitserial_conv2d": P(OUT_ELEMWISE_FUSABLE),
    "nn.bitserial_dense": P(OUT_ELEMWISE_FUSABLE),
    "nn.contrib_conv2d_NCHWc": P(OUT_ELEMWISE_FUSABLE),
    "nn.contrib_conv2d_gemm_weight_transform": P(OUT_ELEMWISE_FUSABLE),
    "nn.contrib_conv2d_gemm_without_weight_transform": P(OUT_ELEMWISE_FUSABLE),
    "nn.contrib_conv2d_winograd_nnpack_weight_transform": P(OPAQUE),
    "nn.contrib_conv2d_winograd_weight_transform": P(OUT_ELEMWISE_FUSABLE),
    "nn.contrib_conv2d_winograd_without_weight_transform": P(OUT_ELEMWISE_FUSABLE),
    "nn.contrib_conv3d_winograd_weight_transform": P(OUT_ELEMWISE_FUSABLE),
    "nn.contrib_conv3d_winograd_without_weight_transform": P(OUT_ELEMWISE_FUSABLE),
    "nn.contrib_dense_pack": P(OUT_ELEMWISE_FUSABLE),
    "nn.contrib_depthwise_conv2d_NCHWc": P(OUT_ELEMWISE_FUSABLE),
    "nn.conv1d": P(OUT_ELEMWISE_FUSABLE),
    "nn.conv1d_transpose": P(OUT_ELEMWISE_FUSABLE),
    "nn.conv2d": P(OUT_ELEMWISE_FUSABLE, inplace=True),
    "nn.conv2d_backward_weight": P(OUT_ELEMWISE_FUSABLE),
    "nn.conv2d_transpose": P(OUT_ELEMWISE_FUSABLE),
    "nn.conv3d": P(OUT_ELEMWISE_FUSABLE),
    "nn.conv3d_transpose": P(OUT_ELEMWISE_FUSABLE),
    "nn.correlation": P(OUT_ELEMWISE_FUSABLE),
    "nn.cross_entropy": P(OPAQUE),
    "nn.cross_entropy_with_logits": P(OPAQUE),
    "nn.deformable_conv2d": P(OUT_ELEMWISE_FUSABLE),
    "nn.dense": P(OUT_ELEMWISE_FUSABLE, inplace=True),
    "nn.depth_to_space": P(INJECTIVE, keeps_low_precision=True),
    "nn.dilate": P(INJECTIVE),
    "nn.dropout": P(OPAQUE, stateful=True),
    "nn.fast_softmax": P(OUT_ELEMWISE_FUSABLE),
    "nn.fifo_buffer": P(OPAQUE),
    "nn.global_avg_pool2d": P(OUT_ELEMWISE_FUSABLE),
    "nn.global_max_pool2d": P(OUT_ELEMWISE_FUSABLE),
    "nn.group_norm": P(OPAQUE),  # TVM registers no pattern: opaque
    "nn.instance_norm": P(OPAQUE),  # TVM registers no pattern: opaque
    "nn.internal.sparse_dense_padded": P(OUT_ELEMWISE_FUSABLE),
    "nn.l2_normalize": P(OPAQUE),  # TVM registers no pattern: opaque
    "nn.layer_norm": P(OPAQUE),  # TVM registers no pattern: opaque
    "nn.leaky_relu": P(ELEMWISE),
    "nn.log_softmax": P(OUT_ELEMWISE_FUSABLE, inplace=True),
    "nn.lrn": P(OPAQUE),
    "nn.matmul": P(OUT_ELEMWISE_FUSABLE),
    "nn.max_pool1d": P(OUT_ELEMWISE_FUSABLE),
    "nn.max_pool2d": P(OUT_ELEMWISE_FUSABLE, inplace=True),
    "nn.max_pool2d_grad": P(OUT_ELEMWISE_FUSABLE),
    "nn.max_pool3d": P(OUT_ELEMWISE_FUSABLE),
    "nn.mirror_pad": P(INJECTIVE, keeps_low_precision=True),
    "nn.nll_loss": P(OUT_ELEMWISE_FUSABLE),
    "nn.pad": P(INJECTIVE, keeps_low_precision=True),
    "nn.prelu": P(BROADCAST),
    "nn.relu": P(ELEMWISE, inplace=True),
    "nn.softmax": P(OUT_ELEMWISE_FUSABLE, inplace=True),
    "nn.space_to_batch_nd": P(INJECTIVE, keeps_low_precision=True),
    "nn.space_to_depth": P(INJECTIVE, keeps_low_precision=True),
    "nn.sparse_add": P(OPAQUE),
    "nn.sparse_conv2d": P(OUT_ELEMWISE_FUSABLE),
    "nn.sparse_dense": P(OUT_ELEMWISE_FUSABLE),
    "nn.sparse_transpose": P(OUT_ELEMWISE_FUSABLE),
    "nn.upsampling": P(INJECTIVE),
    "nn.upsampling3d": P(INJECTIVE),
    "not_equal": P(BROADCAST),
    "on_device": P(OPAQUE, computational=False, keeps_low_precision=True),
    "one_hot": P(OUT_ELEMWISE_FUSABLE, keeps_low_precision=True),
    "ones": P(ELEMWISE),
    "ones_like": P(ELEMWISE, keeps_low_precision=True),
    "power": P(BROADCAST, inplace=True),
    "prod": P(COMM_REDUCE),
    "qnn.abs": P(OPAQUE, computational=False, lowers=True),  # TVM registers no pattern: opaque
    "qnn.add": P(BROADCAST, computational=False, lowers=True),
    "qnn.avg_pool2d": P(OUT_ELEMWISE_FUSABLE, lowers=True),
    "qnn.batch_matmul": P(OUT_ELEMWISE_FUSABLE, computational=False, lowers=True),
    "qnn.concatenate": P(INJECTIVE, computational=False, lowers=True),
    "qnn.contrib_dense_pack": P(OUT_ELEMWISE_FUSABLE, computational=False, lowers=True),
    "qnn.conv2d": P(OUT_ELEMWISE_FUSABLE, computational=False, lowers=True),
    "qnn.conv2d_transpose": P(OPAQUE, computational=False),  # TVM registers no pattern: opaque
    "qnn.dense": P(OUT_ELEMWISE_FUSABLE, computational=False, lowers=True),
    "qnn.dequantize": P(ELEMWISE, computational=False, lowers=True),
    "qnn.erf": P(OPAQUE, computational=False, lowers=True),  # TVM registers no pattern: opaque
    "qnn.exp": P(OPAQUE, computational=False, lowers=True),  # TVM registers no pattern: opaque
    "qnn.hardswish": P(OPAQUE, computational=False, lowers=True),  # TVM registers no pattern: opaque
    "qnn.leaky_relu": P(OPAQUE, computational=False, lowers=True),  # TVM registers no pattern: opaque
    "qnn.log": P(OPAQUE, computational=False, lowers=True),  # TVM registers no pattern: opaque
    "qnn.mul": P(BROADCAST, computational=False, lowers=True),
    "qnn.quantize": P(ELEMWISE, computational=False, lowers=True),
    "qnn.requantize": P(ELEMWISE, computational=False, lowers=True),
    "qnn.rsqrt": P(OPAQUE, computational=False, lowers=True),  # TVM registers no pattern: opaque
    "qnn.sigmoid": P(OPAQUE, computational=False, lowers=True),  # TVM registers no pattern: opaque
    "qnn.simulated_dequantize": P(ELEMWISE),
    "qnn.simulated_quantize": P(ELEMWISE),
    "qnn.softmax": P(OPAQUE, computational=False, lowers=True),  # TVM registers no pattern: opaque
    "qnn.sqrt": P(OPAQUE, computational=False, lowers=True),  # TVM registers no pattern: opaque
    "qnn.subtract": P(BROADCAST, computational=False, lowers=True),
    "qnn.tanh": P(ELEMWISE, computational=False, lowers=True),
    "random.multinomial": P(OPAQUE),
    "random.normal": P(OPAQUE),
    "random.threefry_generate": P(OPAQUE),
    "random.threefry_split": P(OPAQUE),
    "random.uniform": P(OPAQUE),
    "reinterpret": P(ELEMWISE, keeps_low_precision=True),
    "relay.op.annotation.simulated_quantize": P(ELEMWISE),
    "repeat": P(BROADCAST, keeps_low_precision=True),
    "reshape": P(INJECTIVE, reshape=True, keeps_low_precision=True),
    "reshape_like": P(INJECTIVE, keeps_low_precision=True),
    "reverse": P(INJECTIVE, keeps_low_precision=True),
    "reverse_sequence": P(INJECTIVE, keeps_low_precision=True),
    "right_shift": P(BROADCAST),
    "round": P(ELEMWISE),
    "rsqrt": P(ELEMWISE),
    "scatter": P(OPAQUE),  # the older name of scatter_elements
    "scatter_add": P(OPAQUE),  # the older name of scatter_elements
    "scatter_elements": P(OPAQUE),
    "scatter_nd": P(OPAQUE),
    "searchsorted": P(OPAQUE),
    "sequence_mask": P(INJECTIVE, keeps_low_precision=True),
    "shape_of": P(OPAQUE, keeps_low_precision=True),
    "sigmoid": P(ELEMWISE, inplace=True),
    "sign": P(ELEMWISE),
    "sin": P(ELEMWISE),
    "sinh": P(ELEMWISE),
    "slice_like": P(INJECTIVE, keeps_low_precision=True),
    "sliding_window": P(OPAQUE, keeps_low_precision=True),
    "sort": P(OPAQUE),
    "sparse_fill_empty_rows": P(OPAQUE, shape_dependent=True),
    "sparse_reshape": P(INJECTIVE),
    "sparse_to_dense": P(OPAQUE),
    "split": P(INJECTIVE, keeps_low_precision=True),
    "sqrt": P(ELEMWISE, inplace=True),
    "squeeze": P(INJECTIVE, reshape=True, keeps_low_precision=True),
    "stack": P(INJECTIVE, keeps_low_precision=True),
    "stft": P(OPAQUE, shape_dependent=True),
    "strided_set": P(INJECTIVE, keeps_low_precision=True),
    "strided_slice": P(INJECTIVE, keeps_low_precision=True),
    "subtract": P(BROADCAST, inplace=True),
    "sum": P(COMM_REDUCE),
    "take": P(INJECTIVE, keeps_low_precision=True),
    "tan": P(ELEMWISE),
    "tanh": P(ELEMWISE, inplace=True),
    "tile": P(BROADCAST, keeps_low_precision=True),
    "topk": P(OPAQUE),
    "transpose": P(INJECTIVE, keeps_low_precision=True),
    "trilu": P(ELEMWISE, keeps_low_precision=True),
    "trunc": P(ELEMWISE),
    "trunc_divide": P(BROADCAST),
    "trunc_mod": P(BROADCAST),
    "unique": P(OPAQUE),
    "unravel_index": P(INJECTIVE),
    "variance": P(COMM_REDUCE),
    "vision.all_class_non_max_suppression": P(OPAQUE),
    "vision.get_valid_counts": P(OPAQUE),
    "vision.multibox_prior": P(OPAQUE),
    "vision.multibox_transform_loc": P(OPAQUE),
    "vision.non_max_suppression": P(OPAQUE),
    "vision.proposal": P(OPAQUE),
    "vision.regular_non_max_suppression": P(OPAQUE),
    "vision.roi_align": P(OUT_ELEMWISE_FUSABLE),
    "vision.roi_pool": P(OUT_ELEMWISE_FUSABLE),
    "vision.yolo_reorg": P(INJECTIVE),
    "vm.invoke_tvm_op": P(OPAQUE, stateful=True, computational=False),
    "vm.reshape_tensor": P(OPAQUE, computational=False, keeps_low_precision=True),
    "vm.shape_of": P(OPAQUE, computational=False, keeps_low_precision=True),
    "where": P(BROADCAST, keeps_low_precision=True),
    "zeros": P(ELEMWISE),
    "zeros_like": P(ELEMWISE, keeps_low_precision=True),
}
