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
ROIS = '%rois = concatenate((reshape(cast(floor_mod(%c, 2), "float32"), newshape=[4, 1]), abs(%b) * 6f - 1f), axis=1);\n  '

CASES: dict[str, str] = {}


def case(name: str, program: str) -> None:
    assert name not in CASES, name
    CASES[name] = program


# ---- dyn.* --------------------------------------------------------------------
case("dyn.broadcast_to", P("dyn.broadcast_to(%a, shape_of(%b))", T("(3, 1)"), T("(2, 3, 4)")))
case("dyn.full", P('(dyn.full(%a, shape_of(%b), dtype="int32"), dyn.full(%a, cast(shape_of(%b), "float32")))', T("()"), T("(2, 3)")))
case("dyn.zeros", P('dyn.zeros(shape_of(%a), dtype="int32")', T("(2, 3)")))
case("dyn.ones", P('dyn.ones(cast(shape_of(%a), "float32"), dtype="float32")', T("(2, 3)")))
case("dyn.tile", P("(dyn.tile(%a, shape_of(%b)), dyn.tile(%b, shape_of(%c)))", T("(2, 3)"), T("(2, 1, 3)"), T("(3)")))
case("dyn.expand_dims", P("(dyn.expand_dims(%a, -2, num_newaxis=2), dyn.expand_dims(%a, 0), dyn.expand_dims(%a, 2), dyn.expand_dims(%a, 1, num_newaxis=0))", T("(2, 3)")))
case("dyn.squeeze", P(f"(dyn.squeeze(%a, {V(0, 2)}), dyn.squeeze(%a, {V(-2)}))", T("(1, 3, 1, 2)")))
case("dyn.one_hot", P("(dyn.one_hot(floor_mod(%a, 7) - 1, 1f, 0f, 5, axis=-1), dyn.one_hot(%a, 3, -1, 4, axis=0))", T("(2, 3)", "int32")))
case("dyn.topk", P(f'(dyn.topk(%a, 2), dyn.topk(%a, 0, axis=1, ret_type="values", is_ascend=True), dyn.topk(%a, {V(3)}, ret_type="indices"))', T("(2, 3, 4)")))
WIDTHS = "reshape({}, newshape=[3, 2])"
case(
    "dyn.nn.pad",
    P(
        f"%w = {WIDTHS.format(V(0, 0, 1, 2, 2, 0))};\n  %v = {WIDTHS.format(V(0, 0, -1, 1, 1, -2))};\n  "
        '(dyn.nn.pad(%a, %w, 1.5f), dyn.nn.pad(%a, %w, 0f, pad_mode="edge"), dyn.nn.pad(%a, %w, 0f, pad_mode="reflect"), '
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
case("dyn.nn.upsampling", P('(dyn.nn.upsampling(%a, 2f, 1.5f), dyn.nn.upsampling(%a, 2f, 3f, method="bilinear", align_corners=True), dyn.nn.upsampling(%a, 1.7f, 0.9f, layout="NHWC"))', T("(1, 2, 4, 5)")))
case("dyn.nn.upsampling3d", P('(dyn.nn.upsampling3d(%a, 2f, 1.5f, 2f), dyn.nn.upsampling3d(%a, 2f, 2f, 1.7f, method="trilinear", coordinate_transformation_mode="align_corners"))', T("(1, 2, 2, 3, 3)")))
case(
    "dyn.image.resize2d",
    P(
        f"%r = {V('0f', '0f', '0f', '0f')};\n  "
        f"(dyn.image.resize2d(%a, {V(12, 5)}, %r), "
        f'dyn.image.resize2d(%a, {V(16, 16)}, %r, method="nearest_neighbor", coordinate_transformation_mode="asymmetric", rounding_method="floor"), '
        f'dyn.image.resize2d(%a, {V(5, 11)}, %r, method="cubic"), '
        f'dyn.image.resize2d(%a, {V(6, 7)}, {V("0.1f", "0.2f", "0.9f", "1.2f")}, coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-1f))',
        T("(1, 3, 8, 8)"),
    ),
)
# ---- indexing and rearranging ---------------------------------------------------
case("adv_index", P("(adv_index((%a, floor_mod(%b, 4), floor_mod(%c, 5))), adv_index((%a, floor_mod(%c, 4))))", T("(4, 5, 3)"), T("(2, 1)", "int32"), T("(3)", "int32")))
case("invert_permutation", P("invert_permutation(argsort(%a))", T("(6)")))
case("sliding_window", P("(sliding_window(%a, axis=1, window_shape=[3, 2], strides=[2, 3]), sliding_window(%a, axis=0, window_shape=[1, 4, 4], strides=[1, 1, 2]))", T("(2, 7, 8)")))
# repeated indices: the last update wins, as in the numpy kernel (and onnxruntime)
case("scatter", P("scatter(%a, floor_mod(%b, 4), %c, axis=0)", T("(4, 5)"), T("(3, 5)", "int32"), T("(3, 5)")))
case("scatter_add", P("scatter_add(%a, floor_mod(%b, 4), %c, axis=1)", T("(4, 5)"), T("(4, 3)", "int32"), T("(4, 3)")))
case("nn.space_to_batch_nd", P("(nn.space_to_batch_nd(%a, block_shape=[2, 3], paddings=[[1, 0], [0, 0]], pad_value=1.5f), nn.space_to_batch_nd(%b, block_shape=[2], paddings=[[1, 1]], pad_value=7.9f))", T("(2, 5, 6, 3)"), T("(2, 4, 4)", "int32")))
case("nn.batch_to_space_nd", P("(nn.batch_to_space_nd(%a, block_shape=[2, 3], crops=[[1, 0], [0, 2]]), nn.batch_to_space_nd(%a, block_shape=[2], crops=[[0, 0]]))", T("(12, 3, 2, 3)")))
case("debug", P("debug(%a)", T("(2, 3)")))
case("image.resize", P('(image.resize(%a, size=[12, 5]), image.resize(%a, size=[5, 11], method="bicubic"), image.resize(%a, size=[4, 6], layout="NHWC", method="nearest_neighbor"))', T("(1, 3, 8, 8)")))
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


@pytest.mark.parametrize("name", sorted(CASES))
def test_operator_exports_and_agrees(name: str) -> None:
    assert name in converters()
    agree(CASES[name])
