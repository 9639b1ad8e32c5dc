"""Every operator's kernel against the PyTorch reference (tests/reference).

Each case gives inputs (made from a seeded generator) and attributes; the
kernel's result must have the reference's dtype and shape exactly, equal
values for integers and bools, and values within float32 (or float64)
rounding for floats. Skipped, with the reason, when PyTorch is absent.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

import numpy as np
import pytest

from relay_text.ops import get, names
from tests.reference import torch_reference

Make = Callable[[np.random.Generator], tuple]


def f32(*shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda g: g.standard_normal(shape).astype(np.float32)


def pos32(*shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda g: (g.random(shape) + 0.1).astype(np.float32)


def i32(*shape: int, lo: int = -20, hi: int = 20) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda g: g.integers(lo, hi, shape).astype(np.int32)


def nz32(*shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    """int32 without zeros (divisors)."""
    return lambda g: (g.integers(1, 9, shape) * g.choice([-1, 1], shape)).astype(np.int32)


def b(*shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda g: g.random(shape) < 0.5


def const(value: Any, dtype: str) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda g: np.array(value, dtype=dtype)


def tup(*makers: Callable) -> Callable[[np.random.Generator], tuple]:
    return lambda g: tuple(m(g) for m in makers)


# (operator, input makers, attributes)
CASES: list[tuple[str, tuple, dict]] = []


def case(op: str, *inputs: Callable, **attrs: Any) -> None:
    CASES.append((op, inputs, attrs))


# elementwise binary, with broadcasting, floats and integers
for _op in ("add", "subtract", "multiply", "maximum", "minimum"):
    case(_op, f32(2, 3, 4), f32(3, 1))
    case(_op, i32(4, 3), i32(3))
case("divide", f32(3, 4), pos32(4))
case("divide", i32(5, 4), nz32(4))
case("floor_divide", i32(5, 4), nz32(4))
case("floor_divide", f32(3, 4), pos32(4))
case("mod", i32(5, 4), nz32(4))
case("floor_mod", i32(5, 4), nz32(4))
case("mod", f32(5, 4), pos32(4))
case("power", pos32(3, 4), f32(4))
case("power", i32(3, 4, lo=-3, hi=4), i32(4, lo=0, hi=4))
for _op in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
    case(_op, i32(4, 3, lo=-2, hi=2), i32(3, lo=-2, hi=2))
    case(_op, f32(2, 3), f32(2, 1))
for _op in ("logical_and", "logical_or", "logical_xor"):
    case(_op, b(3, 4), b(4))
case("logical_not", b(3, 4))
# unary
for _op in (
    "negative",
    "abs",
    "sign",
    "copy",
    "zeros_like",
    "ones_like",
    "exp",
    "sin",
    "cos",
    "tan",
    "tanh",
    "sigmoid",
    "floor",
    "ceil",
    "trunc",
    "erf",
    "nn.relu",
):
    case(_op, f32(3, 5))
case("negative", i32(6))
case("abs", i32(6))
case("erf", lambda g: np.linspace(-4, 4, 101).astype(np.float32))
case("erf", lambda g: np.linspace(-4, 4, 101))
case("round", lambda g: np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997, 3.7, -3.7], dtype=np.float32))
for _op in ("log", "log2", "log10", "sqrt", "rsqrt"):
    case(_op, pos32(4, 3))
case("clip", f32(4, 5), a_min=-0.5, a_max=0.7)
case("clip", i32(4, 5), a_min=-3.5, a_max=7.2)
case("cast", f32(4, 5), dtype="int32")
case("cast", i32(4, 5), dtype="float64")
case("cast", f32(4), dtype="bool")
case("cast_like", f32(4), i32(2))
case("where", b(3, 1), f32(3, 4), f32(4))
# creation
case("zeros", shape=[2, 3], dtype="int32")
case("ones", shape=[4], dtype="float32")
case("full", const(2.5, "float32"), shape=[2, 3])
case("full", const(7, "int32"), shape=[3], dtype="float64")
case("full_like", i32(2, 3), const(4, "int32"))
case("arange", const(1.0, "float32"), const(4.0, "float32"), const(0.5, "float32"))
case("arange", const(10, "int32"), const(0, "int32"), const(-3, "int32"), dtype="int32")
# shapes
case("reshape", f32(2, 3, 4), newshape=[-1, 4])
case("reshape", f32(2, 3, 4), newshape=[0, -3])
case("reshape", f32(2, 3, 4), newshape=[-4, 1, 2, -2])
case("reshape", f32(2, 3, 4), newshape=[2, -1, 2])
case("transpose", f32(2, 3, 4))
case("transpose", f32(2, 3, 4), axes=[1, -1, 0])
case("squeeze", f32(1, 3, 1, 2))
case("squeeze", f32(1, 3, 1, 2), axis=[-2])
case("expand_dims", f32(2, 3), axis=1, num_newaxis=2)
case("expand_dims", f32(2, 3), axis=-1)
case("concatenate", tup(f32(2, 3), f32(4, 3)), axis=0)
case("concatenate", tup(f32(2, 3), f32(2, 1), f32(2, 2)), axis=-1)
case("stack", tup(f32(2, 3), f32(2, 3), f32(2, 3)), axis=1)
case("split", f32(6, 4), indices_or_sections=3)
case("split", f32(4, 7), indices_or_sections=[2, 5], axis=1)
case("take", f32(5, 4), i32(3, 2, lo=-7, hi=9), axis=0)
case("take", f32(5, 4), i32(3, lo=-7, hi=9), axis=1, mode="wrap")
case("take", f32(5, 4), i32(6, lo=0, hi=20))
case("take", f32(5, 4), i32(2, 2, lo=-4, hi=4), axis=0, mode="fast")
case("strided_slice", f32(6, 5, 4), begin=[1, 0], end=[5, 5], strides=[2, 1])
case("strided_slice", f32(6, 5), begin=[-1, 4], end=[-7, 0], strides=[-2, -1])
case("strided_slice", f32(6, 5), begin=[2], end=[100], axes=[1])
case("strided_slice", f32(6, 5), begin=[1, -3], end=[2, -1], slice_mode="size")
case("broadcast_to", f32(3, 1), shape=[2, 3, 4])
case("broadcast_to_like", f32(1, 4), i32(3, 4))
case("tile", f32(2, 3), reps=[2, 1, 2])
case("tile", f32(2, 3, 2), reps=[3])
case("repeat", f32(2, 3), repeats=3, axis=1)
case("layout_transform", f32(1, 3, 4, 5), src_layout="NCHW", dst_layout="NHWC")
case("layout_transform", f32(1, 4, 5, 3), src_layout="NHWC", dst_layout="NCHW")
# reductions
for _op in ("sum", "max", "min", "prod"):
    case(_op, f32(3, 4, 5), axis=[1])
    case(_op, f32(3, 4, 5), axis=[0, 2], keepdims=True)
    case(_op, f32(3, 4, 5), axis=[1], exclude=True)
case("sum", i32(3, 4))
case("mean", f32(3, 4, 5), axis=[-1], keepdims=True)
case("mean", i32(3, 4), axis=[1])
case("all", b(3, 4), axis=[1])
case("any", b(3, 4), axis=[0], keepdims=True)
case("variance", f32(3, 4, 5), lambda g: g.standard_normal((3, 1, 5)).astype(np.float32), axis=[1], keepdims=True)
case("variance", f32(3, 4), f32(3, 1), axis=[1], unbiased=True)
case("argmax", f32(3, 4, 5), axis=[1])
case("argmin", f32(3, 4, 5), axis=[0, 2], keepdims=True)
case("argmax", lambda g: np.array([[1, 3, 3], [2, 2, 0]], dtype=np.int32), axis=[1], select_last_index=True)
# neural networks
case("nn.conv2d", f32(2, 3, 9, 8), f32(4, 3, 3, 3), padding=[1, 2, 0, 1], strides=[2, 1])
case("nn.conv2d", f32(1, 4, 9, 9), f32(6, 2, 3, 3), groups=2, dilation=[2, 2], padding=[2])
case("nn.conv2d", f32(1, 4, 8, 8), f32(8, 1, 3, 3), groups=4, padding=[1, 1], strides=[2, 2])
case("nn.conv2d", f32(1, 5, 6, 6), f32(5, 1, 3, 3), groups=5, padding=[1, 1])
case("nn.conv2d", f32(1, 8, 7, 7), f32(16, 8, 1, 1), strides=[2, 2])
case("nn.conv2d", f32(1, 7, 6, 3), f32(3, 3, 3, 4), data_layout="NHWC", kernel_layout="HWIO", padding=[1, 1])
case("nn.conv1d", f32(2, 3, 11), f32(4, 3, 3), strides=[2], padding=[1, 2], dilation=[2])
case("nn.conv1d", f32(1, 4, 9), f32(4, 2, 3), groups=2)
case("nn.conv2d_transpose", f32(1, 4, 5, 5), f32(4, 3, 3, 3), strides=[2, 2], padding=[1, 1], output_padding=[1, 1])
case("nn.conv2d_transpose", f32(2, 4, 4, 3), f32(4, 2, 2, 3), groups=2, strides=[1, 2], dilation=[2, 1])
case("nn.dense", f32(3, 5), f32(4, 5))
case("nn.dense", f32(2, 3, 5), f32(4, 5), units=4)
case("nn.matmul", f32(2, 3, 5), f32(5, 4))
case("nn.matmul", f32(5, 3), f32(4, 5), transpose_a=True, transpose_b=True)
case("nn.batch_matmul", f32(2, 3, 5), f32(2, 4, 5), transpose_b=True)
case("nn.batch_matmul", f32(1, 5, 3), f32(2, 5, 4), transpose_a=True, transpose_b=False)
case("nn.bias_add", f32(2, 3, 4), f32(3))
case("nn.bias_add", f32(2, 3, 4), f32(4), axis=-1)
case("nn.leaky_relu", f32(3, 4), alpha=0.1)
case("nn.softmax", f32(3, 4, 5), axis=1)
case("nn.log_softmax", f32(3, 4))
case("nn.batch_norm", f32(2, 3, 4, 4), f32(3), f32(3), f32(3), pos32(3))
case("nn.batch_norm", f32(2, 4, 3), f32(3), f32(3), f32(3), pos32(3), axis=-1, epsilon=1e-3, center=False)
case("nn.layer_norm", f32(2, 3, 5), f32(5), f32(5))
case("nn.layer_norm", f32(2, 3, 5), f32(3), f32(3), axis=1, scale=False)
case("nn.dropout", f32(3, 4), rate=0.3)
case("nn.max_pool2d", f32(1, 2, 7, 7), pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])
case("nn.max_pool2d", f32(1, 2, 6, 7), pool_size=[2, 3], strides=[2, 2], padding=[0, 1, 1, 0], ceil_mode=True)
case("nn.max_pool2d", f32(1, 6, 6, 2), pool_size=[2, 2], dilation=[2, 2], layout="NHWC")
case("nn.avg_pool2d", f32(1, 2, 7, 7), pool_size=[3, 3], strides=[2, 2], padding=[1, 1])
case("nn.avg_pool2d", f32(1, 2, 7, 7), pool_size=[3, 3], strides=[2, 2], padding=[1, 1], count_include_pad=True)
case(
    "nn.avg_pool2d",
    f32(1, 2, 6, 7),
    pool_size=[3, 2],
    strides=[2, 3],
    padding=[1, 0, 0, 1],
    ceil_mode=True,
    count_include_pad=True,
)
case("nn.avg_pool2d", f32(1, 2, 6, 7), pool_size=[3, 2], strides=[2, 3], padding=[1, 0, 2, 1], ceil_mode=True)
case("nn.global_avg_pool2d", f32(2, 3, 5, 4))
case("nn.global_max_pool2d", f32(2, 5, 4, 3), layout="NHWC")
case("nn.adaptive_avg_pool2d", f32(2, 3, 7, 10), output_size=[3, 4])
case("nn.adaptive_avg_pool2d", f32(1, 3, 8, 8), output_size=[4])
case("nn.adaptive_max_pool2d", f32(2, 3, 7, 10), output_size=[3, 4])
case("nn.batch_flatten", f32(2, 3, 4))
case("nn.pad", f32(2, 3), const(1.5, "float32"), pad_width=[[1, 0], [2, 3]])
case("nn.pad", f32(2, 3, 4), const(0, "float32"), pad_width=[[0, 0], [1, 1], [2, 1]], pad_mode="edge")
case("nn.pad", f32(2, 3, 4), const(0, "float32"), pad_width=[[1, 1], [2, 0], [0, 3]], pad_mode="reflect")
case("nn.lrn", f32(1, 7, 3, 3), size=3, alpha=0.01, beta=0.5, bias=1.0)
case("nn.lrn", f32(2, 3, 6), size=5, axis=2)
case("image.resize2d", f32(1, 2, 4, 5), size=[7, 3])
case(
    "image.resize2d",
    f32(1, 2, 4, 5),
    size=[8, 10],
    method="nearest_neighbor",
    coordinate_transformation_mode="asymmetric",
)
case("image.resize2d", f32(1, 2, 4, 5), size=[7, 9], method="linear", coordinate_transformation_mode="align_corners")
case(
    "image.resize2d",
    f32(1, 2, 4, 5),
    size=[7, 9],
    method="nearest_neighbor",
    coordinate_transformation_mode="align_corners",
)
case("image.resize2d", f32(1, 5, 4, 2), size=[3, 3], layout="NHWC", coordinate_transformation_mode="pytorch_half_pixel")
case("nn.upsampling", f32(1, 2, 3, 4), scale_h=2.0, scale_w=3.0)
case("nn.upsampling", f32(1, 2, 3, 4), scale_h=2.0, scale_w=2.0, method="bilinear", align_corners=True)
case("nn.upsampling", f32(1, 2, 3, 4), scale_h=2.0, scale_w=2.0, method="bilinear")


def _ids() -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for op, _, _ in CASES:
        seen[op] = seen.get(op, 0) + 1
        out.append(f"{op}-{seen[op]}")
    return out


def _compare(ours: Any, theirs: Any, where: str) -> None:
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), where
        for i, (o, t) in enumerate(zip(ours, theirs, strict=False)):
            _compare(o, t, f"{where}[{i}]")
        return
    assert isinstance(ours, np.ndarray), (where, type(ours))
    assert ours.dtype == theirs.dtype, (where, ours.dtype, theirs.dtype)
    assert ours.shape == theirs.shape, (where, ours.shape, theirs.shape)
    if ours.dtype.kind in "biu":
        np.testing.assert_array_equal(ours, theirs, err_msg=where)
    elif ours.dtype == np.float64:
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12, err_msg=where)
    else:
        np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=2e-6, err_msg=where)


@pytest.mark.parametrize("op_name, inputs, attrs", CASES, ids=_ids())
def test_kernel_matches_torch(op_name: str, inputs: tuple, attrs: dict) -> None:
    ref = torch_reference()
    g = np.random.default_rng(1234)
    args = tuple(make(g) for make in inputs)
    op = get(op_name)
    assert op is not None
    full, problems = op.normalize_attrs(attrs.items())
    assert not problems, [p.message for p in problems]
    ours = op.kernel(args, full)
    theirs = ref.REFERENCE[op_name](args, dict(full))
    _compare(ours, theirs, op_name)


def test_every_operator_of_the_table_has_a_torch_reference() -> None:
    ref = torch_reference()
    assert sorted({op for op, _, _ in CASES} - set(ref.REFERENCE)) == []
    assert sorted({op for op, _, _ in CASES} - set(names())) == []
