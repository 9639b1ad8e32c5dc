"""Every converted operator: exported (ONNX checker, full check), run on
onnxruntime and compared with the numpy engine on the same random
arguments; the table of operators not exported is complete against the
registry."""

from __future__ import annotations

import pytest

from .helpers import agree
from .test_operators_more import CASES as MORE_CASES
from .test_operators_more import COVERED_BY

from relay_text.export.convert import converters
from relay_text.export.lower import CALLING_OPERATORS
from relay_text.export.unsupported import NO_ONNX_EQUIVALENT, NOT_CONVERTED, NOT_EXPORTED
from relay_text.ops import registry


def T(shape: str, dtype: str = "float32") -> str:
    return f"Tensor[{shape}, {dtype}]"


def P(body: str, *types: str) -> str:
    """`def @main(%a: ..., %b: ...) { body }`."""
    params = ", ".join(f"%{chr(ord('a') + i)}: {t}" for i, t in enumerate(types))
    return f"def @main({params}) {{\n  {body}\n}}\n"


X = T("(2, 3, 4)")
INT = T("(2, 3, 4)", "int32")
IMG = T("(1, 3, 8, 8)")
NONZERO = "%z = where(equal(%b, 0), ones_like(%b), %b);\n  "

CASES: dict[str, str] = {}


def case(name: str, program: str) -> None:
    assert name not in CASES, name
    CASES[name] = program


for _op in (
    "add",
    "subtract",
    "multiply",
    "maximum",
    "minimum",
    "equal",
    "not_equal",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
):
    case(_op, P(f"{_op}(%a, %b)", X, T("(3, 4)")))
case("power", P("power(abs(%a), %b)", X, X))
case("divide", P(NONZERO + "(divide(%a, %z), divide(%c, %d))", INT, INT, X, X))
case("trunc_divide", P(NONZERO + "(trunc_divide(%a, %z), trunc_divide(%c, %d))", INT, INT, X, X))
case("floor_divide", P(NONZERO + "(floor_divide(%a, %z), floor_divide(%c, %d))", INT, INT, X, X))
case("mod", P(NONZERO + "(mod(%a, %z), mod(%c, %d))", INT, INT, X, X))
case("trunc_mod", P(NONZERO + "(trunc_mod(%a, %z), trunc_mod(%c, %d))", INT, INT, X, X))
case("floor_mod", P(NONZERO + "(floor_mod(%a, %z), floor_mod(%c, %d))", INT, INT, X, X))
for _op in ("logical_and", "logical_or", "logical_xor"):
    case(_op, P(f"{_op}(less(%a, 0f), greater(%b, 0f))", X, X))
case("logical_not", P("logical_not(less(%a, 0f))", X))
for _op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    case(_op, P(f"{_op}(%a, %b)", INT, INT))
case("bitwise_not", P("bitwise_not(%a)", INT))
case("left_shift", P('left_shift(%a, cast(floor_mod(%b, 8u8), "uint8"))', T("(5)", "uint8"), T("(5)", "uint8")))
case("right_shift", P("right_shift(%a, floor_mod(%b, 8u8))", T("(5)", "uint8"), T("(5)", "uint8")))
for _op in (
    "exp",
    "fast_exp",
    "log",
    "sqrt",
    "tanh",
    "fast_tanh",
    "sigmoid",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "fast_erf",
    "log2",
    "log10",
    "rsqrt",
    "floor",
    "ceil",
    "trunc",
    "round",
    "negative",
    "abs",
    "sign",
    "copy",
    "zeros_like",
    "ones_like",
    "isnan",
    "isinf",
    "isfinite",
    "nn.relu",
):
    case(_op, P(f"{_op}(%a)", X))
case("cast", P('(cast(%a, dtype="int32"), cast(%b, dtype="float16"))', X, INT))
case("cast_like", P("cast_like(%a, %b)", INT, X))
case("where", P("where(less(%a, 0f), %b, %c)", X, X, T("(4)")))
case("clip", P("(clip(%a, a_min=-0.5f, a_max=0.7f), clip(%b, a_min=-3.5f, a_max=4.2f))", X, INT))
for _op in (
    "annotation.stop_fusion",
    "annotation.checkpoint",
    "on_device",
    "device_copy",
    "annotation.compiler_begin",
    "annotation.compiler_end",
    "annotation.bitpack_start",
    "annotation.bitpack_end",
    "annotation.with_funcid",
):
    case(_op, P(f"{_op}(%a)", X))
case("annotation.cast_hint", P('annotation.cast_hint(%a, dtype="float16")', X))
# nn
case("nn.conv1d", P("nn.conv1d(%a, %b, strides=[2], padding=[1, 2], dilation=[1])", T("(1, 3, 10)"), T("(4, 3, 3)")))
case("nn.conv2d", P("nn.conv2d(%a, %b, padding=[1, 1], strides=[2, 2], groups=1)", IMG, T("(4, 3, 3, 3)")))
# element types onnxruntime's Conv lacks: windows and matrix products, accumulating as the kernels do
case(
    "nn.conv2d int8 float64 int16",
    P(
        '(nn.conv2d(%a, %b, padding=[1, 1], strides=[2, 2], out_dtype="int32"), nn.conv2d(%c, %d, groups=2, '
        'dilation=[2, 1], padding=[1, 2, 0, 1]), '
        'nn.conv2d(transpose(%a, axes=[0, 2, 3, 1]), transpose(%b, axes=[2, 3, 1, 0]), data_layout="NHWC", '
        'kernel_layout="HWIO", out_dtype="int16"))',
        T("(1, 3, 8, 8)", "int8"), T("(4, 3, 3, 3)", "int8"),
        T("(1, 4, 6, 6)", "float64"), T("(4, 2, 3, 3)", "float64"),
    ),
)  # fmt: skip
case("nn.conv1d int32", P("nn.conv1d(%a, %b, groups=6)", T("(1, 6, 5)", "int32"), T("(6, 1, 3)", "int32")))
case("nn.conv3d", P("nn.conv3d(%a, %b, padding=[1, 1, 1])", T("(1, 2, 4, 5, 5)"), T("(3, 2, 3, 3, 3)")))
case("nn.conv1d_transpose", P("nn.conv1d_transpose(%a, %b, strides=[2], padding=[1])", T("(1, 3, 6)"), T("(3, 2, 3)")))
case(
    "nn.conv2d_transpose",
    P(
        "nn.conv2d_transpose(%a, %b, strides=[2, 2], padding=[1, 1], output_padding=[1, 1])",
        T("(1, 3, 5, 5)"),
        T("(3, 2, 3, 3)"),
    ),
)
case(
    "nn.conv3d_transpose",
    P("nn.conv3d_transpose(%a, %b, strides=[2, 2, 2])", T("(1, 2, 3, 3, 3)"), T("(2, 2, 2, 2, 2)")),
)
case("nn.dense", P("nn.dense(%a, %b, units=5)", T("(2, 3, 4)"), T("(5, 4)")))
case("nn.matmul", P("nn.matmul(%a, %b, transpose_b=True)", T("(3, 4)"), T("(5, 4)")))
case("nn.batch_matmul", P("nn.batch_matmul(%a, %b, transpose_b=True)", T("(2, 3, 4)"), T("(2, 5, 4)")))
case("nn.bias_add", P("nn.bias_add(%a, %b)", IMG, T("(3)")))
case("nn.leaky_relu", P("nn.leaky_relu(%a, alpha=0.1f)", X))
case("nn.prelu", P("nn.prelu(%a, %b)", IMG, T("(3)")))
case("nn.softmax", P("nn.softmax(%a, axis=1)", X))
case("nn.fast_softmax", P("nn.fast_softmax(%a)", X))
case("nn.log_softmax", P("nn.log_softmax(%a)", X))
case("nn.batch_flatten", P("nn.batch_flatten(%a)", X))
case("nn.dropout", P("nn.dropout(%a, rate=0.3f)", X))
case(
    "nn.pad",
    P(
        "(nn.pad(%a, 1.5f, pad_width=[[0, 0], [1, 2], [2, 0]]), nn.pad(%a, 0f, pad_width=[[0, 0], [1, 1], [2, 1]], "
        'pad_mode="reflect"))',
        X,
    ),
)
case(
    "nn.mirror_pad",
    P(
        "(nn.mirror_pad(%a, pad_width=[[0, 0], [1, 2], [2, 1]]), nn.mirror_pad(%a, pad_width=[[0, 0], [1, 1], [2, "
        '1]], mode="REFLECT"))',
        X,
    ),
)
case(
    "nn.depth_to_space",
    P('(nn.depth_to_space(%a, block_size=2), nn.depth_to_space(%a, block_size=2, mode="CDR"))', T("(1, 8, 3, 3)")),
)
case("nn.space_to_depth", P("nn.space_to_depth(%a, block_size=2)", T("(1, 2, 4, 6)")))
case("nn.cross_entropy", P("nn.cross_entropy(nn.softmax(%a), nn.softmax(%b))", T("(3, 5)"), T("(3, 5)")))
case("nn.cross_entropy_with_logits", P("nn.cross_entropy_with_logits(%a, %b)", T("(3, 5)"), T("(3, 5)")))
case(
    "nn.nll_loss",
    P(
        'nn.nll_loss(nn.log_softmax(%a), floor_mod(%b, 5), abs(%c), reduction="mean", ignore_index=-1)',
        T("(3, 5)"),
        T("(3)", "int32"),
        T("(5)"),
    ),
)
# norms and pools
case(
    "nn.batch_norm",
    P("nn.batch_norm(%a, %b, %c, %d, abs(%e), epsilon=1e-3f)", IMG, T("(3)"), T("(3)"), T("(3)"), T("(3)")),
)
case("nn.layer_norm", P("nn.layer_norm(%a, %b, %c)", X, T("(4)"), T("(4)")))
case("nn.instance_norm", P("nn.instance_norm(%a, %b, %c)", IMG, T("(3)"), T("(3)")))
case("nn.group_norm", P("nn.group_norm(%a, %b, %c, num_groups=2)", T("(2, 4, 3, 3)"), T("(4)"), T("(4)")))
case("nn.l2_normalize", P("nn.l2_normalize(%a, eps=1e-6f, axis=[1])", X))
case("nn.lrn", P("nn.lrn(%a, size=3)", IMG))
case("nn.max_pool1d", P("nn.max_pool1d(%a, pool_size=[3], strides=[2], padding=[1])", T("(1, 3, 9)")))
case("nn.max_pool2d", P("nn.max_pool2d(%a, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])", IMG))
case("nn.max_pool3d", P("nn.max_pool3d(%a, pool_size=[2, 2, 2], strides=[2, 2, 2])", T("(1, 2, 4, 4, 4)")))
case(
    "nn.avg_pool1d",
    P("nn.avg_pool1d(%a, pool_size=[3], strides=[2], padding=[1], count_include_pad=True)", T("(1, 3, 9)")),
)
case("nn.avg_pool2d", P("nn.avg_pool2d(%a, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])", IMG))
case("nn.avg_pool3d", P("nn.avg_pool3d(%a, pool_size=[2, 2, 2], strides=[1, 1, 1])", T("(1, 2, 4, 4, 4)")))
case("nn.global_avg_pool2d", P("nn.global_avg_pool2d(%a)", IMG))
case("nn.global_max_pool2d", P("nn.global_max_pool2d(%a)", IMG))
case("nn.adaptive_avg_pool1d", P("nn.adaptive_avg_pool1d(%a, output_size=[3])", T("(1, 2, 9)")))
case("nn.adaptive_avg_pool2d", P("nn.adaptive_avg_pool2d(%a, output_size=[2, 4])", IMG))
case("nn.adaptive_avg_pool3d", P("nn.adaptive_avg_pool3d(%a, output_size=[1, 2, 2])", T("(1, 2, 4, 4, 4)")))
case("nn.adaptive_max_pool1d", P("nn.adaptive_max_pool1d(%a, output_size=[3])", T("(1, 2, 9)")))
case("nn.adaptive_max_pool2d", P("nn.adaptive_max_pool2d(%a, output_size=[1, 1])", IMG))
case("nn.adaptive_max_pool3d", P("nn.adaptive_max_pool3d(%a, output_size=[2, 2, 2])", T("(1, 2, 4, 4, 4)")))
# reductions
for _op in ("sum", "mean", "max", "min", "prod"):
    case(
        _op,
        P(
            f"({_op}(%a, axis=[1]), {_op}(%a, axis=[0, 2], keepdims=True), {_op}(%a), {_op}(%a, axis=[1], "
            "exclude=True))",
            X,
        ),
    )
case("all", P("(all(less(%a, 0.5f), axis=[1]), all(less(%a, 5f)))", X))
case("any", P("(any(less(%a, -0.5f), axis=[2], keepdims=True), any(less(%a, -5f)))", X))
case(
    "variance",
    P(
        "(variance(%a, mean(%a, axis=[1], keepdims=True), axis=[1]), variance(%a, mean(%a, axis=[2], "
        "keepdims=True), axis=[2], unbiased=True))",
        X,
    ),
)
case("argmax", P("(argmax(%a, axis=[1]), argmax(%a), argmax(%a, axis=[2], keepdims=True))", X))
case("argmin", P("(argmin(%a, axis=[1]), argmin(%a))", X))
case(
    "cumsum",
    P(
        "(cumsum(%a, axis=1), cumsum(%a), cumsum(%a, axis=2, exclusive=True), cumsum(less(%a, 0f), axis=1), "
        "cumsum(less(%a, 0f), exclusive=True))",
        X,
    ),
)
case("topk", P('(topk(%a, k=2), topk(%a, k=2, axis=1, ret_type="values", is_ascend=True))', X))
case("sort", P("sort(%a, axis=1)", X))
case("argsort", P("argsort(%a, is_ascend=False)", X))
# data movement
case("reshape", P("(reshape(%a, newshape=[6, -1]), reshape(%a, newshape=[0, -1]), reshape(%a, newshape=[-3, 4]))", X))
case("reshape_like", P("reshape_like(%a, %b)", X, T("(4, 6)")))
case("contrib_reverse_reshape", P("contrib_reverse_reshape(%a, newshape=[-1, 0])", X))
case("squeeze", P("(squeeze(%a), squeeze(%a, axis=[0]))", T("(1, 3, 1)")))
case("expand_dims", P("(expand_dims(%a, axis=1), expand_dims(%a, axis=-1, num_newaxis=2))", X))
case("transpose", P("(transpose(%a, axes=[1, 0, 2]), transpose(%a))", X))
case("concatenate", P("concatenate((%a, %b), axis=1)", X, T("(2, 2, 4)")))
case("stack", P("stack((%a, %b), axis=1)", X, X))
case("split", P("(split(%a, indices_or_sections=3, axis=1), split(%a, indices_or_sections=[1, 3], axis=2))", X))
case("take", P('(take(%a, %b, axis=1), take(%a, %b), take(%a, %b, axis=2, mode="wrap"))', X, T("(2, 2)", "int32")))
case("gather", P("gather(%a, floor_mod(%b, 3), axis=1)", X, T("(2, 2, 4)", "int32")))
case("gather_nd", P("gather_nd(%a, floor_mod(%b, 2))", X, T("(2, 3)", "int32")))
case(
    "strided_slice",
    P(
        "(strided_slice(%a, begin=[0, 1], end=[2, 3]), strided_slice(%a, begin=[1, 2, 3], end=[0, 0, -5], "
        'strides=[-1, -1, -2]), strided_slice(%a, begin=[1], end=[2], axes=[2], slice_mode="size"))',
        X,
    ),
)
case("slice_like", P("slice_like(%a, %b, axes=[1])", X, T("(2, 2, 4)")))
case("broadcast_to", P("broadcast_to(%a, shape=[2, 3, 4])", T("(3, 1)")))
case("broadcast_to_like", P("broadcast_to_like(%a, %b)", T("(3, 1)"), X))
case("collapse_sum_like", P("collapse_sum_like(%a, %b)", X, T("(3, 1)")))
case("collapse_sum_to", P("collapse_sum_to(%a, shape_of(%b), shape=[3, 1])", X, T("(3, 1)")))
case("full", P('full(%a, shape=[2, 3], dtype="float32")', T("()")))
case("zeros", P('zeros(shape=[2, 3], dtype="int32")'))
case("ones", P('ones(shape=[2, 3], dtype="float32")'))
case("full_like", P("full_like(%a, %b)", X, T("()")))
case("tile", P("(tile(%a, reps=[2, 1, 3]), tile(%a, reps=[2, 1, 1, 1]))", X))
case("repeat", P("repeat(%a, repeats=2, axis=1)", X))
case("reverse", P("reverse(%a, axis=1)", X))
case(
    "one_hot",
    P(
        "(one_hot(floor_mod(%a, 7) - 1, 1f, 0f, depth=5, axis=-1), one_hot(%a, 3, -1, depth=4, axis=1))",
        T("(2, 3)", "int32"),
    ),
)
case("arange", P('arange(0f, 5f, 0.5f, dtype="float32")'))
case("einsum", P('einsum((%a, %b), equation="ij,jk->ik")', T("(3, 4)"), T("(4, 5)")))
case("shape_of", P("shape_of(%a)", X))
case("vm.shape_of", P("vm.shape_of(%a)", X))
case("ndarray_size", P('ndarray_size(%a, dtype="int64")', X))
case(
    "scatter_elements",
    P(
        'scatter_elements(%a, floor_mod(%b, 3), %c, axis=1, reduction="add")',
        X,
        T("(2, 2, 4)", "int32"),
        T("(2, 2, 4)"),
    ),
)
case("scatter_nd", P("scatter_nd(%a, floor_mod(%b, 2), %c)", T("(2, 3)"), T("(1, 2)", "int32"), T("(2, 3)")))
case("trilu", P("(trilu(%a, 1, upper=False), trilu(%a, -1))", T("(4, 5)")))
case("meshgrid", P('(meshgrid((%a, %b)), meshgrid((%a, %b), indexing="xy"))', T("(3)"), T("(4)")))
case(
    "reverse_sequence",
    P("reverse_sequence(%a, %b, seq_axis=1, batch_axis=0)", X, T("(2)", "int32")).replace(
        "%b, seq", "add(floor_mod(%b, 3), 1), seq"
    ),
)
case(
    "sequence_mask", P("sequence_mask(%a, floor_mod(%b, 4), mask_value=-1f, axis=0)", T("(3, 2, 4)"), T("(2)", "int32"))
)
case("unravel_index", P("unravel_index(floor_mod(%a, 24), shape_of(%b))", T("(5)", "int32"), X))
# images
case(
    "image.resize1d",
    P(
        '(image.resize1d(%a, size=[7], method="linear", coordinate_transformation_mode="align_corners"), '
        'image.resize1d(%a, size=[6], roi=[0.1f, 1.2f], coordinate_transformation_mode="tf_crop_and_resize", '
        "extrapolation_value=-1f))",
        T("(1, 2, 5)"),
    ),
)
case(
    "image.resize2d",
    P(
        '(image.resize2d(%a, size=[12, 5]), image.resize2d(%a, size=[16, 16], method="nearest_neighbor", '
        'coordinate_transformation_mode="asymmetric", rounding_method="floor"), image.resize2d(%a, size=[5, 11], '
        'method="cubic"))',
        IMG,
    ),
)
case(
    "image.resize3d",
    P(
        '(image.resize3d(%a, size=[4, 6, 6], method="nearest_neighbor", '
        'coordinate_transformation_mode="asymmetric", rounding_method="floor"), image.resize3d(%a, size=[3, 6, 7], '
        'roi=[0f, 0.1f, -0.2f, 1f, 0.9f, 1.2f], coordinate_transformation_mode="tf_crop_and_resize", '
        "extrapolation_value=-1f))",
        T("(1, 2, 2, 3, 3)"),
    ),
)
case(
    "nn.upsampling",
    P(
        '(nn.upsampling(%a, scale_h=2f, scale_w=2f), nn.upsampling(%a, scale_h=2f, scale_w=3f, method="bilinear", '
        "align_corners=True))",
        IMG,
    ),
)
case("nn.upsampling3d", P("nn.upsampling3d(%a, scale_d=2f, scale_h=2f, scale_w=2f)", T("(1, 2, 2, 3, 3)")))
case("image.grid_sample", P("image.grid_sample(%a, divide(tanh(%b), 1.2f))", T("(1, 2, 5, 5)"), T("(1, 2, 4, 4)")))
case("dyn.reshape", P("dyn.reshape(%a, shape_of(%b))", X, T("(6, 4)")))


@pytest.mark.parametrize("name", sorted(CASES))
def test_operator_exports_and_agrees(name: str) -> None:
    assert name.split(" ")[0] in converters()
    agree(CASES[name])


def test_every_operator_is_tested_or_listed_as_not_exported() -> None:
    names = set(registry.names())
    table = converters()
    assert set(table) <= names, sorted(set(table) - names)
    assert set(NOT_EXPORTED) <= names, sorted(set(NOT_EXPORTED) - names)
    assert not set(NO_ONNX_EQUIVALENT) & set(NOT_CONVERTED)
    assert not set(table) & set(NOT_EXPORTED), sorted(set(table) & set(NOT_EXPORTED))
    assert not {name.split(" ")[0] for name in CASES} & set(MORE_CASES)
    tested = {name.split(" ")[0] for name in CASES} | set(MORE_CASES) | set(COVERED_BY)
    assert tested == set(table), (sorted(set(table) - tested), sorted(tested - set(table)))
    assert names >= CALLING_OPERATORS and not CALLING_OPERATORS & (set(table) | set(NOT_EXPORTED))
    assert names == set(table) | set(NOT_EXPORTED) | CALLING_OPERATORS, sorted(names - set(table) - set(NOT_EXPORTED))
