"""More converted operators, as in test_operators.py: those whose shapes,
axes, bounds, scales or `k` are tensors (`dyn.*`), indexing and
rearranging, vision operators, and those ONNX expresses by a composition
of its operators. Each program is exported (ONNX checker, full check), run
on onnxruntime and compared with the numpy engine on the same random
arguments; the programs pick arguments that reach the edge cases (negative
and out-of-range indices, regions outside the image, bins on rounding
boundaries)."""

from __future__ import annotations

import pytest

from relay_text.export.convert import converters

from .helpers import agree


def T(shape: str, dtype: str = "float32") -> str:
    return f"Tensor[{shape}, {dtype}]"


def P(body: str, *types: str) -> str:
    """`def @main(%a: ..., %b: ...) { body }`."""
    params = ", ".join(f"%{chr(ord('a') + i)}: {t}" for i, t in enumerate(types))
    return f"def @main({params}) {{\n  {body}\n}}\n"


def V(*values: object) -> str:
    """A vector built from scalars (`stack((1, 2), axis=0)`)."""
    return "stack((" + ", ".join(str(v) for v in values) + ",), axis=0)"


IMG = T("(2, 3, 9, 11)")
NHWC = "transpose(%a, axes=[0, 2, 3, 1])"
# regions: a batch index from %c, corners from %b (some outside the 9 x 11 image)
ROIS = (
    '%rois = concatenate((reshape(cast(floor_mod(%c, 2), "float32"), newshape=[4, 1]), abs(%b) * 6f - 1f), axis=1);\n  '
)

CASES: dict[str, str] = {}


def case(name: str, program: str) -> None:
    assert name not in CASES, name
    CASES[name] = program


# ---- dyn.* --------------------------------------------------------------------
case("dyn.broadcast_to", P("dyn.broadcast_to(%a, shape_of(%b))", T("(3, 1)"), T("(2, 3, 4)")))
case(
    "dyn.full",
    P('(dyn.full(%a, shape_of(%b), dtype="int32"), dyn.full(%a, cast(shape_of(%b), "float32")))', T("()"), T("(2, 3)")),
)
case("dyn.zeros", P('dyn.zeros(shape_of(%a), dtype="int32")', T("(2, 3)")))
case("dyn.ones", P('dyn.ones(cast(shape_of(%a), "float32"), dtype="float32")', T("(2, 3)")))
case("dyn.tile", P("(dyn.tile(%a, shape_of(%b)), dyn.tile(%b, shape_of(%c)))", T("(2, 3)"), T("(2, 1, 3)"), T("(3)")))
case(
    "dyn.expand_dims",
    P(
        "(dyn.expand_dims(%a, -2, num_newaxis=2), dyn.expand_dims(%a, 0), dyn.expand_dims(%a, 2), "
        "dyn.expand_dims(%a, 1, num_newaxis=0))",
        T("(2, 3)"),
    ),
)
case("dyn.squeeze", P(f"(dyn.squeeze(%a, {V(0, 2)}), dyn.squeeze(%a, {V(-2)}))", T("(1, 3, 1, 2)")))
case(
    "dyn.one_hot",
    P(
        "(dyn.one_hot(floor_mod(%a, 7) - 1, 1f, 0f, 5, axis=-1), dyn.one_hot(%a, 3, -1, 4, axis=0))",
        T("(2, 3)", "int32"),
    ),
)
case(
    "dyn.topk",
    P(
        f'(dyn.topk(%a, 2), dyn.topk(%a, 0, axis=1, ret_type="values", is_ascend=True), dyn.topk(%a, {V(3)}, '
        'ret_type="indices"))',
        T("(2, 3, 4)"),
    ),
)
WIDTHS = "reshape({}, newshape=[3, 2])"
case(
    "dyn.nn.pad",
    P(
        f"%w = {WIDTHS.format(V(0, 0, 1, 2, 2, 0))};\n  %v = {WIDTHS.format(V(0, 0, -1, 1, 1, -2))};\n  "
        '(dyn.nn.pad(%a, %w, 1.5f), dyn.nn.pad(%a, %w, 0f, pad_mode="edge"), dyn.nn.pad(%a, %w, 0f, '
        'pad_mode="reflect"), '
        'dyn.nn.pad(%a, %v, 2f), dyn.nn.pad(%a, %v, 2f, pad_mode="edge"), dyn.nn.pad(%a, %v, 2f, pad_mode="reflect"))',
        T("(2, 3, 4)"),
    ),
)
case(
    "dyn.strided_slice",
    P(
        f"(dyn.strided_slice(%a, {V(0, 1)}, {V(2, 3)}, {V(1, 1)}), "
        f"dyn.strided_slice(%a, {V(1, 2, 3)}, {V(0, 0, -5)}, {V(-1, -1, -2)}), "
        f"dyn.strided_slice(%a, {V(-9, 7)}, {V(9, -9)}, {V(2, -1)}), "  # clamped past both ends
        f"dyn.strided_slice(%a, {V(-9)}, {V(0)}, {V(-1)}), "  # begins before the first element: empty
        f'dyn.strided_slice(%a, {V(1, -2)}, {V(2, 5)}, {V(1, 1)}, slice_mode="size"), '
        f'dyn.strided_slice(%a, {V(-1, 0)}, {V(-1, 3)}, {V(1, 1)}, slice_mode="size"))',
        T("(4, 5, 6)"),
    ),
)
case(
    "dyn.nn.upsampling",
    P(
        '(dyn.nn.upsampling(%a, 2f, 1.5f), dyn.nn.upsampling(%a, 2f, 3f, method="bilinear", align_corners=True), '
        'dyn.nn.upsampling(%a, 1.7f, 0.9f, layout="NHWC"))',
        T("(1, 2, 4, 5)"),
    ),
)
case(
    "dyn.nn.upsampling3d",
    P(
        '(dyn.nn.upsampling3d(%a, 2f, 1.5f, 2f), dyn.nn.upsampling3d(%a, 2f, 2f, 1.7f, method="trilinear", '
        'coordinate_transformation_mode="align_corners"))',
        T("(1, 2, 2, 3, 3)"),
    ),
)
case(
    "dyn.image.resize2d",
    P(
        f"%r = {V('0f', '0f', '0f', '0f')};\n  "
        f"(dyn.image.resize2d(%a, {V(12, 5)}, %r), "
        f'dyn.image.resize2d(%a, {V(16, 16)}, %r, method="nearest_neighbor", '
        'coordinate_transformation_mode="asymmetric", rounding_method="floor"), '
        f'dyn.image.resize2d(%a, {V(5, 11)}, %r, method="cubic"), '
        f"dyn.image.resize2d(%a, {V(6, 7)}, {V('0.1f', '0.2f', '0.9f', '1.2f')}, "
        'coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-1f))',
        T("(1, 3, 8, 8)"),
    ),
)
# TVM 0.7's name: no roi, the older method names
case(
    "dyn.image.resize",
    P(f'(dyn.image.resize(%a, {V(12, 5)}), dyn.image.resize(%a, {V(5, 11)}, method="bicubic"))', T("(1, 3, 8, 8)")),
)
# ---- indexing and rearranging ---------------------------------------------------
case(
    "adv_index",
    P(
        "(adv_index((%a, floor_mod(%b, 4), floor_mod(%c, 5))), adv_index((%a, floor_mod(%c, 4))))",
        T("(4, 5, 3)"),
        T("(2, 1)", "int32"),
        T("(3)", "int32"),
    ),
)
case("invert_permutation", P("invert_permutation(argsort(%a))", T("(6)")))
case(
    "sliding_window",
    P(
        "(sliding_window(%a, axis=1, window_shape=[3, 2], strides=[2, 3]), sliding_window(%a, axis=0, "
        "window_shape=[1, 4, 4], strides=[1, 1, 2]))",
        T("(2, 7, 8)"),
    ),
)
# repeated indices: the last update wins, as in the numpy kernel (and onnxruntime)
case("scatter", P("scatter(%a, floor_mod(%b, 4), %c, axis=0)", T("(4, 5)"), T("(3, 5)", "int32"), T("(3, 5)")))
case("scatter_add", P("scatter_add(%a, floor_mod(%b, 4), %c, axis=1)", T("(4, 5)"), T("(4, 3)", "int32"), T("(4, 3)")))
case(
    "nn.space_to_batch_nd",
    P(
        "(nn.space_to_batch_nd(%a, block_shape=[2, 3], paddings=[[1, 0], [0, 0]], pad_value=1.5f), "
        "nn.space_to_batch_nd(%b, block_shape=[2], paddings=[[1, 1]], pad_value=7.9f))",
        T("(2, 5, 6, 3)"),
        T("(2, 4, 4)", "int32"),
    ),
)
case(
    "nn.batch_to_space_nd",
    P(
        "(nn.batch_to_space_nd(%a, block_shape=[2, 3], crops=[[1, 0], [0, 2]]), nn.batch_to_space_nd(%a, "
        "block_shape=[2], crops=[[0, 0]]))",
        T("(12, 3, 2, 3)"),
    ),
)
case("debug", P("debug(%a)", T("(2, 3)")))
case(
    "image.resize",
    P(
        '(image.resize(%a, size=[12, 5]), image.resize(%a, size=[5, 11], method="bicubic"), image.resize(%a, '
        'size=[4, 6], layout="NHWC", method="nearest_neighbor"))',
        T("(1, 3, 8, 8)"),
    ),
)
# ---- vision -------------------------------------------------------------------
case("image.affine_grid", P("image.affine_grid(%a, target_shape=[4, 5])", T("(2, 2, 3)")))
case(
    "image.crop_and_resize",
    P(
        "%k = floor_mod(%c, 2);\n  %x = %b * 0.7f + 0.3f;\n  "  # boxes partly outside [0, 1]
        "(image.crop_and_resize(%a, %x, %k, crop_size=[5, 6]), "
        'image.crop_and_resize(%a, %x, %k, crop_size=[1, 4], method="nearest_neighbor", extrapolation_value=-2f), '
        f'image.crop_and_resize({NHWC}, %x, %k, crop_size=[3, 3], layout="NHWC", out_dtype="int32"))',
        IMG, T("(4, 4)"), T("(4)", "int32"),
    ),
)  # fmt: skip
case(
    "vision.roi_align",
    P(
        ROIS + "(vision.roi_align(%a, %rois, pooled_size=[3, 4], spatial_scale=0.7f, sample_ratio=2), "
        "vision.roi_align(%a, %rois, pooled_size=[2, 2], spatial_scale=1f), "
        f'vision.roi_align({NHWC}, %rois, pooled_size=[2, 3], spatial_scale=0.5f, layout="NHWC"), '
        'vision.roi_align(%a, %rois, pooled_size=[3, 4], spatial_scale=0.7f, sample_ratio=2, mode="max"), '
        'vision.roi_align(%a, %rois, pooled_size=[2, 2], spatial_scale=1f, mode="max"), '
        f'vision.roi_align({NHWC}, %rois, pooled_size=[2, 3], spatial_scale=0.5f, layout="NHWC", mode="max"))',
        IMG, T("(4, 4)"), T("(4)", "int32"),
    ),
)  # fmt: skip
case(
    "vision.roi_pool",
    P(
        # a region 29 rows high in 11 bins: a bin edge that TOPI's 1e-5 slack moves
        ROIS + f"%edge = reshape({V('0f', '0f', '0f', '5f', '28f')}, newshape=[1, 5]);\n  "
        "(vision.roi_pool(%a, %rois, pooled_size=[3, 4], spatial_scale=0.7f), "
        f'vision.roi_pool({NHWC}, %rois, pooled_size=[2, 2], spatial_scale=1f, layout="NHWC"), '
        "vision.roi_pool(%d, %edge, pooled_size=[11, 3], spatial_scale=1f))",
        IMG, T("(4, 4)"), T("(4)", "int32"), T("(1, 2, 40, 12)", "int32"),
    ),
)  # fmt: skip

# ---- values that decide the shape, searches, scans -------------------------------
case(
    "argwhere",
    P(
        "(argwhere(greater(%a, 0f)), argwhere(%a), argwhere(%b), argwhere(floor_mod(%b, 1)))",
        T("(3, 4)"),
        T("()", "int32"),
    ),
)
case(
    "unique",
    P(
        '%x = floor_mod(%a, 5);\n  (unique(%x), unique(%x, sorted=False, return_counts=True), unique(round(%b)), '
        'unique(cast(%x, "uint8"), return_counts=True))',
        T("(12)", "int32"), T("(9)"),
    ),
)  # fmt: skip
case(
    "searchsorted",
    P(
        # sorted and unsorted sequences: an unsorted one gets the bisection's answer
        '%s = sort(%a);\n  (searchsorted(%s, %b), searchsorted(%s, %b, right=True, dtype="int64"), '
        'searchsorted(sort(%c), %d), '
        "searchsorted(%c, %d, right=True), searchsorted(%a, %b), searchsorted(sort(round(%a)), round(%b), right=True))",
        T("(7)"), T("(2, 5)"), T("(2, 6)", "int32"), T("(2, 4)", "int32"),
    ),
)  # fmt: skip
case(
    "cumprod",
    P(
        '(cumprod(%a, axis=1), cumprod(%a), cumprod(%a, axis=2, exclusive=True), cumprod(floor_mod(%b, 7) - 3, '
        'axis=1, dtype="int64"), '
        "cumprod(%c, exclusive=True))",
        T("(2, 3, 4)"), T("(2, 5)", "int32"), T("(6)", "bool"),
    ),
)  # fmt: skip
case(
    "reinterpret",
    P(
        '(reinterpret(%a, dtype="int32"), reinterpret(%b, dtype="uint8"), reinterpret(%c, dtype="float64"))',
        T("(2, 3)"),
        T("(4)", "int8"),
        T("(3)", "int64"),
    ),
)
# ---- Fourier transforms -----------------------------------------------------------
case(
    "dft",
    P(
        "(dft(%a, %b), dft(%a, %b, inverse=True), dft(%c, %d))",
        T("(2, 3, 8)"),
        T("(2, 3, 8)"),
        T("(5)", "float64"),
        T("(5)", "float64"),
    ),
)
case(
    "stft",
    P(
        "(stft(%a, %b, n_fft=16, hop_length=4, win_length=16), stft(%a, %b, n_fft=16, hop_length=5, win_length=12, "
        "normalized=True, onesided=False), "
        "stft(reshape(%a, newshape=[80]), %c, n_fft=32, hop_length=8, win_length=30))",
        T("(2, 40)"), T("(16)"), T("(33)", "float64"),
    ),
)  # fmt: skip
# ---- sparse coordinates -----------------------------------------------------------
case(
    "sparse_to_dense",
    P(
        # coordinates outside the output (ignored) and repeated ones (the last wins)
        "(sparse_to_dense(floor_mod(%a, 5) - 1, %b, %c, output_shape=[3, 4]), "
        'sparse_to_dense(floor_mod(%d, 5), take(%b, arange(0, 4, 1, dtype="int32")), %c, output_shape=[4, 2]), '
        "sparse_to_dense(floor_mod(%a, 3), 2f, %c, output_shape=[3, 3, 2]), sparse_to_dense(2, %c, 0f, "
        "output_shape=[4]))",
        T("(6, 2)", "int32"), T("(6)"), T("()"), T("(4)", "int32"),
    ),
)  # fmt: skip
case(
    "dyn.sparse_to_dense",
    P(
        "dyn.sparse_to_dense(floor_mod(%a, 5) - 1, %b, %c, shape_of(%d))",
        T("(6, 2)", "int32"),
        T("(6)"),
        T("()"),
        T("(3, 4)"),
    ),
)
case(
    "sparse_reshape",
    P(
        '%i = floor_mod(%a, 2i64);\n  %p = cast(shape_of(%b), "int64");\n  '
        '(sparse_reshape(%i, %p, cast(shape_of(%c), "int64")), sparse_reshape(%i, %p, stack((4i64, -1i64), axis=0)), '
        # an unchanged shape keeps even coordinates outside it
        "sparse_reshape(%i, %p, %p), sparse_reshape(%a, %p, %p))",
        T("(5, 3)", "int64"), T("(2, 3, 4)"), T("(6, 4)"),
    ),
)  # fmt: skip
case(
    "sparse_fill_empty_rows",
    P(
        "%i = reshape(stack((0i64, 1i64, 0i64, 3i64, 2i64, 0i64, 2i64, 2i64), axis=0), newshape=[4, 2]);\n  "
        "sparse_fill_empty_rows(%i, %a, stack((5i64, 6i64), axis=0), stack((7i64,), axis=0))",
        T("(4)", "int64"),
    ),
)  # fmt: skip
# ---- writing into tensors -----------------------------------------------------------
case(
    "nn.dilate",
    P(
        "(nn.dilate(%a, strides=[1, 2, 3], dilation_value=1.5f), nn.dilate(%b, strides=[3, 1], "
        "dilation_value=-2.7f), nn.dilate(%b, strides=[1, 1]))",
        T("(2, 3, 4)"),
        T("(3, 2)", "int32"),
    ),
)
case(
    "nn.fifo_buffer",
    P(
        "(nn.fifo_buffer(%a, %b, axis=1), nn.fifo_buffer(reshape(%a, newshape=[3, 2]), reshape(%b, newshape=[5, "
        "2]), axis=-2))",
        T("(2, 3)"),
        T("(2, 5)"),
    ),
)
case(
    "matrix_set_diag",
    P(
        "(matrix_set_diag(%a, %b), matrix_set_diag(%a, %c, k1=-1, k2=1), "
        "matrix_set_diag(%a, %c, k1=-1, k2=1, super_diag_right_align=False, sub_diag_right_align=True), "
        "matrix_set_diag(%a, %d, k1=-1, k2=-1))",
        T("(2, 4, 5)"), T("(2, 4)"), T("(2, 3, 4)"), T("(2, 3)"),
    ),
)  # fmt: skip
case(
    "strided_set",
    P(
        f"(strided_set(%a, %b, {V(1, 0)}, {V(4, 6)}, {V(2, 2)}), strided_set(%a, %b, {V(4, -1)}, {V(1, 0)}, "
        f"{V(-2, -2)}), "
        f"strided_set(%a, %c, {V(-4)}, {V(4)}, {V(1)}))",
        T("(5, 6)"), T("(2, 3)"), T("(3, 6)"),
    ),
)  # fmt: skip

# ---- detection --------------------------------------------------------------------
case(
    "vision.multibox_prior",
    P(
        "(vision.multibox_prior(%a), vision.multibox_prior(%a, sizes=[0.3f, 0.5f], ratios=[1f, 2f, 0.5f], "
        "steps=[0.2f, 0.25f], offsets=[0.4f, 0.6f], clip=True))",
        T("(1, 3, 4, 5)"),
    ),
)
case("vision.yolo_reorg", P("vision.yolo_reorg(%a, stride=2)", T("(2, 8, 4, 6)")))
case(
    "vision.get_valid_counts",
    P(
        "(vision.get_valid_counts(%a, %b), vision.get_valid_counts(%a, 0f, score_threshold=0.2f, id_index=-1, "
        "score_index=3))",
        T("(2, 7, 6)"),
        T("()"),
    ),
)
case(
    "vision.multibox_transform_loc",
    P(
        "%p = nn.softmax(%a, axis=1);\n  (vision.multibox_transform_loc(%p, %b, %c), "
        "vision.multibox_transform_loc(%p, %b, %c, clip=False, threshold=0.3f, keep_background=True), "
        "vision.multibox_transform_loc(%p, %b, %c, threshold=0.35f))",
        T("(2, 4, 6)"), T("(2, 24)"), T("(1, 6, 4)"),
    ),
)  # fmt: skip
# ---- windows ------------------------------------------------------------------------
case(
    "image.dilation2d",
    P(
        '(image.dilation2d(%a, %b), image.dilation2d(%a, %b, strides=[2, 1], padding=[1, 2], dilations=[1, 2]), '
        'image.dilation2d(%c, %d, data_layout="NHWC", padding=[1, 0, 0, 1]))',
        T("(1, 2, 7, 8)"), T("(2, 3, 2)"), T("(1, 6, 5, 2)", "int32"), T("(2, 2, 2)", "int32"),
    ),
)  # fmt: skip
case(
    "nn.correlation",
    P(
        "(nn.correlation(%a, %b, kernel_size=1, max_displacement=2, stride1=1, stride2=1, padding=[2, 2], "
        "is_multiply=True), "
        "nn.correlation(%a, %b, kernel_size=3, max_displacement=4, stride1=2, stride2=2, padding=[5], "
        "is_multiply=False))",
        T("(1, 3, 9, 10)"), T("(1, 3, 9, 10)"),
    ),
)  # fmt: skip
# ---- schedule layouts, packed and transformed weights ---------------------------------
case(
    "layout_transform",
    P(
        '(layout_transform(%a, src_layout="NCHW", dst_layout="NHWC"), layout_transform(%a, src_layout="NCHW", '
        'dst_layout="NCHW4c"), '
        'layout_transform(%b, src_layout="NCHW4c", dst_layout="NHWC"), layout_transform(%b, src_layout="NCHW4c", '
        'dst_layout="NCHW2c"))',
        T("(1, 8, 4, 5)"), T("(1, 2, 4, 5, 4)"),
    ),
)  # fmt: skip
case(
    "auto_scheduler_layout_transform",
    P(
        '(auto_scheduler_layout_transform(%a, src_layout="1N32C4H4W", dst_layout="1N2C4H4W16C"), '
        'auto_scheduler_layout_transform(%b, src_layout="64n3h3w32c", dst_layout="4c3h16n3w8c4n"))',
        T("(1, 32, 4, 4)"), T("(64, 3, 3, 32)"),
    ),
)  # fmt: skip
case(
    "meta_schedule_layout_transform",
    P(
        '(meta_schedule_layout_transform(%a, index_map="lambda i, j: (i // 4, j // 16, i % 4, j % 16)"), '
        'meta_schedule_layout_transform(%b, index_map="lambda n, c, w: (c, n * 4 + w)"))',
        T("(32, 64)"), T("(2, 3, 4)", "int32"),
    ),
)  # fmt: skip
case("vm.reshape_tensor", P("vm.reshape_tensor(%a, shape_of(%b), newshape=[6, 4])", T("(2, 3, 4)"), T("(6, 4)")))
case(
    "nn.contrib_conv2d_NCHWc",
    P(
        '(nn.contrib_conv2d_NCHWc(%a, %b, padding=[1, 1], channels=8, kernel_size=[3, 3], data_layout="NCHW4c", '
        'kernel_layout="OIHW4i4o", out_layout="NCHW4c"), '
        'nn.contrib_conv2d_NCHWc(%a, %c, channels=8, kernel_size=[1, 1], data_layout="NCHW4c", '
        'kernel_layout="OIHW4i2o", out_layout="NCHW2c"))',
        T("(1, 2, 6, 6, 4)"), T("(2, 2, 3, 3, 4, 4)"), T("(4, 2, 1, 1, 4, 2)"),
    ),
)  # fmt: skip
case(
    "nn.contrib_depthwise_conv2d_NCHWc",
    P(
        'nn.contrib_depthwise_conv2d_NCHWc(%a, %b, padding=[1, 1], groups=8, channels=8, kernel_size=[3, 3], '
        'data_layout="NCHW4c", kernel_layout="OIHW1i4o")',
        T("(1, 2, 6, 6, 4)"), T("(2, 1, 3, 3, 1, 4)"),
    ),
)  # fmt: skip
case(
    "nn.contrib_conv2d_gemm_weight_transform",
    P(
        "(nn.contrib_conv2d_gemm_weight_transform(%a, tile_N=4, tile_K=2), "
        "nn.contrib_conv2d_gemm_weight_transform(%b, tile_N=4, tile_K=2))",
        T("(3, 3, 5, 6)"),
        T("(3, 3, 5, 6)", "int8"),
    ),
)
GEMM = (
    "nn.contrib_conv2d_gemm_without_weight_transform({}, "
    "nn.contrib_conv2d_gemm_weight_transform({}, tile_N=4, tile_K=2), channels=6, "
    'kernel_size=[3, 3], padding=[1, 1], data_layout="NHWC", kernel_layout="HWIO"{})'
)
case(
    "nn.contrib_conv2d_gemm_without_weight_transform",
    P(
        "(" + GEMM.format("%a", "%b", "") + ", " + GEMM.format("%c", "%d", ', out_dtype="int32"') + ")",
        T("(1, 7, 7, 5)"),
        T("(3, 3, 5, 6)"),
        T("(1, 7, 7, 5)", "int8"),
        T("(3, 3, 5, 6)", "int8"),
    ),
)
case(
    "nn.contrib_dense_pack",
    P(
        "(nn.contrib_dense_pack(%a, %b), nn.contrib_dense_pack(%a, %c), nn.contrib_dense_pack(%d, %e, "
        'out_dtype="int32"))',
        T("(3, 16)"),
        T("(4, 16, 8)"),
        T("(2, 4, 16, 4)"),
        T("(3, 16)", "uint8"),
        T("(2, 4, 16, 4)", "int8"),
    ),
)
case(
    "nn.contrib_conv2d_winograd_weight_transform",
    P("nn.contrib_conv2d_winograd_weight_transform(%a, tile_size=4)", T("(8, 4, 3, 3)")),
)
case(
    "nn.contrib_conv3d_winograd_weight_transform",
    P(
        "(nn.contrib_conv3d_winograd_weight_transform(%a, tile_size=2), "
        "nn.contrib_conv3d_winograd_weight_transform(%b, tile_size=4))",
        T("(8, 4, 3, 3, 3)"),
        T("(8, 4, 1, 3, 3)"),
    ),
)
case(
    "nn.contrib_conv2d_winograd_nnpack_weight_transform",
    P(
        "(nn.contrib_conv2d_winograd_nnpack_weight_transform(%a, convolution_algorithm=0), "
        'nn.contrib_conv2d_winograd_nnpack_weight_transform(%a, convolution_algorithm=0, out_dtype="float64"))',
        T("(8, 4, 3, 3)"),
    ),
)
case(
    "nn.contrib_conv2d_winograd_without_weight_transform",
    P(
        "(nn.contrib_conv2d_winograd_without_weight_transform(%a, %b, tile_size=4, channels=8, kernel_size=[3, 3], "
        "padding=[1, 1]), "
        'nn.contrib_conv2d_winograd_without_weight_transform(%c, %d, tile_size=2, channels=8, kernel_size=[3, 3], '
        'data_layout="NHWC", out_dtype="float64"))',
        T("(1, 4, 14, 14)"), T("(6, 6, 8, 4)"), T("(1, 14, 14, 4)"), T("(4, 4, 8, 4)"),
    ),
)  # fmt: skip
case(
    "nn.contrib_conv3d_winograd_without_weight_transform",
    P(
        "nn.contrib_conv3d_winograd_without_weight_transform(%a, %b, tile_size=2, channels=8, kernel_size=[3, 3, 3])",
        T("(1, 4, 6, 6, 6)"),
        T("(4, 4, 4, 8, 4)"),
    ),
)


# ---- quantized arithmetic, as TVM lowers it (exact: integers compared as they are) -------------
case(
    "qnn.quantize",
    (
        "def @main(%a: Tensor[(2, 3, 4), float32], %s: Tensor[(3), float32], %z: Tensor[(3), "
        'int32], %b: Tensor[(), float32]) { (qnn.quantize(%a * 40f, 0.37f, 3, out_dtype="int8"), '
        'qnn.quantize(%a, abs(%s) + 0.01f, floor_mod(%z, 9), axis=1, out_dtype="uint8"), '
        'qnn.quantize(%b * 1000f, 0.1f, -2, out_dtype="int16"), qnn.quantize(%a, 0.001f, 0, '
        'out_dtype="int32")) }'
    )
    + "\n",
)
case(
    "qnn.dequantize",
    (
        "def @main(%a: Tensor[(2, 3, 4), int8], %s: Tensor[(4), float32], %z: Tensor[(4), "
        'int32]) { (qnn.dequantize(%a, 0.37f, 3, out_dtype="float32"), qnn.dequantize(%a, '
        'abs(%s), %z, axis=-1, out_dtype="float16")) }'
    )
    + "\n",
)
case(
    "qnn.requantize",
    (
        "def @main(%a: Tensor[(2, 3, 4), int32], %s: Tensor[(3), float32], %z: Tensor[(3), "
        "int32]) { %x = floor_mod(%a, 100000) - 50000; (qnn.requantize(%x, 0.37f, 3, 0.11f, -2, "
        'out_dtype="int8"), qnn.requantize(%x, 0.5f, 3, 0.25f, -2, out_dtype="int16"), '
        'qnn.requantize(%x, 0.25f, 3, 2f, 1, out_dtype="int32"), qnn.requantize(%x, 0.37f, 3, '
        '0.11f, -2, rounding="TONEAREST", out_dtype="int32"), qnn.requantize(%x, abs(%s) + '
        '0.01f, %z, 0.07f, 5, axis=1, out_dtype="uint8"), qnn.requantize(%x, 0.37f, 3, 0.11f, '
        '-2, compute_dtype="float32", out_dtype="int8"), qnn.requantize(%x, 0.37f, 3, 0.11f, -2, '
        'compute_dtype="float64", rounding="TONEAREST", out_dtype="int32"), qnn.requantize(%x, '
        '0.2f, 0, 0.2f, 0, out_dtype="int16")) }'
    )
    + "\n",
)
case(
    "fixed_point_multiply",
    (
        "def @main(%a: Tensor[(2, 5), int32]) { (fixed_point_multiply(%a, multiplier=1395864371, "
        "shift=-3), fixed_point_multiply(%a, multiplier=1073741824, shift=3), "
        "fixed_point_multiply(%a, multiplier=1073741824, shift=-4), fixed_point_multiply(%a, "
        "multiplier=1395864371, shift=2)) }"
    )
    + "\n",
)
case(
    "fixed_point_multiply_per_axis",
    (
        "def @main(%a: Tensor[(2, 3), int32], %m: Tensor[(3), int32], %l: Tensor[(3), int32], "
        "%r: Tensor[(3), int32]) { fixed_point_multiply_per_axis(%a, abs(%m), floor_mod(%l, 4), "
        "floor_mod(%r, 8), is_lshift_required=True, axes=[1]) }"
    )
    + "\n",
)
case(
    "qnn.simulated_quantize",
    (
        "def @main(%a: Tensor[(2, 3, 4), float32], %s: Tensor[(2), float32], %z: Tensor[(4), "
        "int32]) { (qnn.simulated_quantize(%a * 50f, 1, abs(%s) + 0.1f, %z, axis=-1), "
        "qnn.simulated_quantize(%a * 50f, 2, 0.3f, 3), qnn.simulated_quantize(%a, 7, 0.3f, 3)) }"
    )
    + "\n",
)
case(
    "qnn.simulated_dequantize",
    (
        "def @main(%a: Tensor[(2, 3, 4), float32], %s: Tensor[(3), float32]) { "
        '(qnn.simulated_dequantize(%a, 1, %s, 2, axis=1, out_dtype="float32"), '
        'qnn.simulated_dequantize(%a, 0, 0.3f, 3, out_dtype="float32")) }'
    )
    + "\n",
)
case(
    "relay.op.annotation.simulated_quantize",
    (
        "def @main(%a: Tensor[(2, 3, 4), float32]) { (relay.op.annotation.simulated_quantize(%a, "
        "0.05f, -1f, 1.5f, kind=1), relay.op.annotation.simulated_quantize(%a, 0.05f, -1f, 1.5f, "
        "kind=0)) }"
    )
    + "\n",
)
case(
    "qnn.abs",
    (
        "def @main(%a: Tensor[(4, 6), int8], %b: Tensor[(3, 5), uint8]) { (qnn.abs(%a, 0.1f, 2, "
        "0.05f, -3), qnn.erf(%a, 0.02f, 0, 0.008f, 1), qnn.exp(%a, 0.02f, 1, 0.05f, -128), "
        "qnn.hardswish(%a, 0.05f, 0, 0.03f, 0), qnn.log(%b, 0.1f, 0, 0.04f, 10), qnn.rsqrt(%b, "
        "0.1f, 0, 0.02f, 0), qnn.sigmoid(%a, 0.06f, 0, 0.004f, -128), qnn.sqrt(%b, 0.3f, 0, "
        "0.03f, 0), qnn.tanh(%a, 0.03f, 0, 0.008f, 0)) }"
    )
    + "\n",
)
case(
    "qnn.leaky_relu",
    (
        "def @main(%a: Tensor[(4, 6), int8], %b: Tensor[(3, 5), uint8]) { (qnn.leaky_relu(%a, "
        "0.1f, 2, 0.05f, -3), qnn.leaky_relu(%a, 0.1f, 2, 0.07f, 1, alpha=0.3f), "
        "qnn.leaky_relu(%b, 0.1f, 128, 0.1f, 120, alpha=0.5f)) }"
    )
    + "\n",
)
case(
    "qnn.add",
    (
        "def @main(%a: Tensor[(2, 3, 4), int8], %b: Tensor[(3, 4), int8], %s: Tensor[(3), "
        "float32], %z: Tensor[(3), int32]) { (qnn.add(%a, %b, 0.1f, 2, 0.05f, -3, 0.08f, 1), "
        "qnn.subtract(%a, %b, 0.1f, 2, 0.05f, -3, 0.08f, 1), qnn.add(%a, %b, abs(%s) + 0.01f, "
        "floor_mod(%z, 5), 0.05f, -3, 0.2f, 0, lhs_axis=1)) }"
    )
    + "\n",
)
case(
    "qnn.mul",
    (
        "def @main(%a: Tensor[(2, 3, 4), int8], %b: Tensor[(3, 4), int8], %c: Tensor[(4), "
        "uint8]) { (qnn.mul(%a, %b, 0.1f, 2, 0.05f, -3, 0.08f, 1), qnn.mul(%c, %c, 0.02f, 128, "
        "0.03f, 120, 0.01f, 100)) }"
    )
    + "\n",
)
case(
    "qnn.concatenate",
    (
        "def @main(%a: Tensor[(2, 3), int8], %b: Tensor[(2, 4), int8]) { (qnn.concatenate((%a, "
        "%b), (0.1f, 0.05f), (2, -3), 0.1f, 2, axis=1), qnn.concatenate((%a, %a), (0.1f, 0.2f), "
        "(2, 2), 0.1f, 2, axis=0)) }"
    )
    + "\n",
)
case(
    "qnn.dense",
    (
        "def @main(%a: Tensor[(3, 8), int8], %w: Tensor[(5, 8), int8], %z: Tensor[(5), int32], "
        "%s: Tensor[(5), float32]) { (qnn.dense(%a, %w, 3, -2, 0.1f, 0.05f, units=5, "
        'out_dtype="int32"), qnn.dense(%a, %w, 3, floor_mod(%z, 7), 0.1f, abs(%s), units=5, '
        'out_dtype="int64")) }'
    )
    + "\n",
)
case(
    "qnn.batch_matmul",
    (
        "def @main(%a: Tensor[(2, 3, 8), uint8], %b: Tensor[(2, 5, 8), int8]) { "
        'qnn.batch_matmul(%a, %b, 128, -1, 0.1f, 0.05f, out_dtype="int32", transpose_b=True) }'
    )
    + "\n",
)
case(
    "qnn.conv2d",
    (
        "def @main(%a: Tensor[(1, 3, 7, 7), int8], %w: Tensor[(4, 3, 3, 3), int8], %z: "
        "Tensor[(4), int32], %d: Tensor[(1, 4, 6, 6), uint8], %v: Tensor[(4, 1, 3, 3), uint8]) { "
        "(qnn.conv2d(%a, %w, 3, -2, 0.1f, 0.05f, padding=[1, 1], strides=[2, 2], channels=4, "
        'kernel_size=[3, 3], out_dtype="int32"), qnn.conv2d(%a, %w, 0, floor_mod(%z, 5), 0.1f, '
        '0.05f, channels=4, kernel_size=[3, 3], out_dtype="int16"), qnn.conv2d(%d, %v, 128, 120, '
        "0.1f, 0.05f, padding=[1, 1], groups=4, channels=4, kernel_size=[3, 3], "
        'out_dtype="int32"), qnn.conv2d(transpose(%a, axes=[0, 2, 3, 1]), transpose(%w, axes=[2, '
        '3, 1, 0]), 1, 0, 0.1f, 0.05f, data_layout="NHWC", kernel_layout="HWIO", channels=4, '
        'kernel_size=[3, 3], out_dtype="int32")) }'
    )
    + "\n",
)
case(
    "qnn.conv2d_transpose",
    (
        "def @main(%a: Tensor[(1, 4, 5, 5), int8], %w: Tensor[(4, 3, 3, 3), int8], %d: "
        "Tensor[(1, 4, 4, 4), uint8], %v: Tensor[(4, 2, 2, 2), uint8]) { "
        "(qnn.conv2d_transpose(%a, %w, 3, -2, 0.1f, 0.05f, strides=[2, 2], padding=[1, 1], "
        'output_padding=[1, 1], channels=3, kernel_size=[3, 3], out_dtype="int32"), '
        "qnn.conv2d_transpose(%d, %v, 128, 120, 0.1f, 0.05f, groups=2, channels=4, "
        'kernel_size=[2, 2], dilation=[2, 1], out_dtype="int32")) }'
    )
    + "\n",
)
case(
    "qnn.contrib_dense_pack",
    (
        "def @main(%a: Tensor[(3, 14), int8], %w: Tensor[(2, 4, 4, 4), int8]) { "
        'qnn.contrib_dense_pack(%a, %w, 3, -2, 0.1f, 0.05f, units=8, out_dtype="int32") }'
    )
    + "\n",
)
case(
    "qnn.avg_pool2d",
    (
        "def @main(%a: Tensor[(1, 3, 7, 8), int8], %b: Tensor[(1, 6, 5, 2), uint8]) { "
        "(qnn.avg_pool2d(%a, 0.1f, 2, 0.08f, -1, pool_size=[3, 3], strides=[2, 2], padding=[1, "
        "1]), qnn.avg_pool2d(%a, 0.1f, 2, 0.08f, -1, pool_size=[2, 3], strides=[2, 2], "
        "padding=[1, 0], ceil_mode=True, count_include_pad=True), qnn.avg_pool2d(%b, 0.1f, 128, "
        '0.1f, 128, pool_size=[2, 2], layout="NHWC")) }'
    )
    + "\n",
)
case(
    "qnn.softmax",
    (
        "def @main(%a: Tensor[(3, 6), int8]) { (qnn.softmax(%a, 0.05f, 2, 0.004f, -128), "
        "qnn.softmax(%a, 0.3f, 0, 0.0039f, -128, axis=0)) }"
    )
    + "\n",
)
# ---- bit-serial operators, and a call through call_lowered ----------------------------------
case(
    "nn.bitpack",
    (
        "def @main(%a: Tensor[(2, 16, 3), int32], %b: Tensor[(64, 2), int8]) { (nn.bitpack(%a, "
        'bits=3, pack_axis=1, bit_axis=0, pack_type="uint8"), nn.bitpack(%a, bits=2, '
        'pack_axis=1, bit_axis=3, pack_type="uint16"), nn.bitpack(%b, bits=1, pack_axis=0, '
        'bit_axis=1, pack_type="uint64"), nn.bitpack(%b, bits=4, pack_axis=0, bit_axis=2, '
        'pack_type="uint32")) }'
    )
    + "\n",
)
case(
    "nn.bitserial_conv2d",
    (
        "def @main(%a: Tensor[(1, 3, 6, 6), int32], %w: Tensor[(4, 3, 3, 3), int32], %b: "
        "Tensor[(1, 6, 6, 3), uint8], %v: Tensor[(3, 3, 3, 4), uint8]) { "
        "(nn.bitserial_conv2d(%a, %w, padding=[1, 1], channels=4, kernel_size=[3, 3], "
        'activation_bits=2, weight_bits=1, out_dtype="int32"), nn.bitserial_conv2d(%b, %v, '
        "strides=[2, 2], channels=4, kernel_size=[3, 3], activation_bits=3, weight_bits=2, "
        'data_layout="NHWC", kernel_layout="HWIO", unipolar=False, out_dtype="int16")) }'
    )
    + "\n",
)
case(
    "nn.bitserial_dense",
    (
        "def @main(%a: Tensor[(3, 8), int32], %w: Tensor[(5, 8), uint8]) { "
        '(nn.bitserial_dense(%a, %w, units=5, data_bits=2, weight_bits=1, out_dtype="int32"), '
        "nn.bitserial_dense(%a, %w, units=5, data_bits=3, weight_bits=2, unipolar=False)) }"
    )
    + "\n",
)
case(
    "nn.conv2d_backward_weight",
    (
        "def @main(%g: Tensor[(2, 3, 6, 6), float32], %x: Tensor[(2, 3, 6, 6), float32], %h: "
        "Tensor[(1, 4, 3, 3), float32], %y: Tensor[(1, 6, 7, 7), float32], %n: Tensor[(1, 3, 3, "
        "4), float32], %z: Tensor[(1, 4, 5, 2), float32]) { (nn.conv2d_backward_weight(%g, %x, "
        'padding=[1, 1, 1, 1], channels=3, kernel_size=[3, 3], kernel_layout="NCHW", '
        'out_layout="OIHW"), nn.conv2d_backward_weight(%g, %x, padding=[1, 1, 1, 1], groups=3, '
        'channels=3, kernel_size=[3, 3], kernel_layout="NCHW", out_layout="OIHW"), '
        "nn.conv2d_backward_weight(%h, %y, strides=[2, 2], dilation=[1, 2], groups=2, "
        'kernel_size=[2, 3], kernel_layout="NCHW", out_layout="OIHW"), '
        'nn.conv2d_backward_weight(%n, %z, kernel_size=[3, 2], data_layout="NHWC", '
        'kernel_layout="NHWC", out_layout="HWIO", out_dtype="float64")) }'
    )
    + "\n",
)
# operators whose test is another operator's program (which calls them too)
COVERED_BY = {
    name: "qnn.abs"
    for name in ("qnn.erf", "qnn.exp", "qnn.hardswish", "qnn.log", "qnn.rsqrt", "qnn.sigmoid", "qnn.sqrt", "qnn.tanh")
}
COVERED_BY["qnn.subtract"] = "qnn.add"


@pytest.mark.parametrize("name", sorted(CASES))
def test_operator_exports_and_agrees(name: str) -> None:
    assert name in converters()
    agree(CASES[name])


def test_covered_operators_are_called_by_the_program_covering_them() -> None:
    for name, by in COVERED_BY.items():
        assert name in converters() and name not in CASES
        assert f"{name}(" in CASES[by], (name, by)
