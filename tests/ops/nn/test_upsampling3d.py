"""Upsampling in 3-D and by scales given as tensors: `nn.upsampling3d`,
`dyn.nn.upsampling`, `dyn.nn.upsampling3d`. Result types from TVM's tests,
rejected calls, kernels against PyTorch's `interpolate` and against loops
written from TOPI's resize (python/tvm/topi/image/resize.py)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from relay_text.ops import KernelError
from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family("nn.upsampling3d", "dyn.nn.upsampling", "dyn.nn.upsampling3d")


def torch():
    torch_reference()  # skips without PyTorch
    import torch as t

    return t


def scalar(v: float, dtype: str = "float32") -> np.ndarray:
    return np.array(v, dtype=dtype)


RESULTS = [
    # tests/python/relay/test_op_level2.py test_upsampling3d_infer_type (n, c written as `?`)
    (
        'nn.upsampling3d(%a, scale_d=2f, scale_h=2f, scale_w=2f, method="trilinear")',
        [T("(?, ?, 100, 100, 200)")],
        T("(?, ?, 200, 200, 400)"),
    ),
    ("nn.upsampling3d(%a, scale_d=2f, scale_h=2f, scale_w=2f)", [T("(?, 3, ?, 4, 4)")], T("(?, 3, ?, 8, 8)")),
    (
        'nn.upsampling3d(%a, scale_d=1.5f, scale_h=0.5f, scale_w=3f, layout="NDHWC")',
        [T("(1, 3, 5, 7, 2)", "int8")],
        T("(1, 5, 3, 21, 2)", "int8"),
    ),
    # tests/python/relay/dyn/test_dynamic_op_level2.py: the resized axes are known at run time only
    ("dyn.nn.upsampling(%a, 2f, %b)", [T("(?, 3, 4, 4)", "int8"), T("()")], T("(?, 3, ?, ?)", "int8")),
    (
        'dyn.nn.upsampling(%a, %b, %c, layout="NHWC")',
        [T("(1, 4, 4, 3)"), T("()", "float64"), T("()", "float64")],
        T("(1, ?, ?, 3)"),
    ),
    (
        'dyn.nn.upsampling3d(%a, %b, 2f, %c, method="trilinear")',
        [T("(2, 3, 4, 4, 4)", "int8"), T("()"), T("()")],
        T("(2, 3, ?, ?, ?)", "int8"),
    ),
]


@pytest.mark.parametrize("call, types, expected", RESULTS, ids=[c[0] for c in RESULTS])
def test_result_types(call: str, types: list[str], expected: str) -> None:
    """UpSampling3DRel (src/relay/op/nn/upsampling.cc): round(size * scale); the dyn relations
    (src/relay/op/dyn/nn/upsampling.cc) make the resized axes Any."""
    assert FAMILY.result_type(call, types) == expected


ERRORS = [
    (
        "nn.upsampling3d(%a, scale_d=2f, scale_h=2f, scale_w=0f)",
        [T("(1, 3, 2, 2, 2)")],
        "type-mismatch",
        "`nn.upsampling3d` scale_w must be positive, found 0.0",
        None,
    ),
    (
        'nn.upsampling3d(%a, scale_d=2f, scale_h=2f, scale_w=2f, method="bilinear")',
        [T("(1, 3, 2, 2, 2)")],
        "type-mismatch",
        '`nn.upsampling3d` method "bilinear" is not supported',
        None,
    ),
    (
        'nn.upsampling3d(%a, scale_d=2f, scale_h=2f, scale_w=2f, coordinate_transformation_mode="tf_crop_and_resize")',
        [T("(1, 3, 2, 2, 2)")],
        "type-mismatch",
        '`nn.upsampling3d` coordinate_transformation_mode "tf_crop_and_resize" is not supported',
        None,
    ),
    (
        'nn.upsampling3d(%a, scale_d=2f, scale_h=2f, scale_w=2f, layout="NCHW")',
        [T("(1, 3, 2, 2)")],
        "type-mismatch",
        '`nn.upsampling3d`: layout "NCHW" is not supported',
        None,
    ),
    (
        "nn.upsampling3d(%a, scale_d=2f, scale_h=2f, scale_w=2f)",
        [T("(1, 3, 2, 2)")],
        "shape-mismatch",
        "`nn.upsampling3d` needs 5-D data (NCDHW), found (1, 3, 2, 2)",
        "%a",
    ),
    (
        "nn.upsampling3d(%a, scale_d=0.1f, scale_h=2f, scale_w=2f)",
        [T("(1, 3, 2, 2, 2)")],
        "shape-mismatch",
        "`nn.upsampling3d`: scale_d=0.1 leaves axis D empty",
        "%a",
    ),
    (
        "dyn.nn.upsampling(%a, %b, 2f)",
        [T("(1, 3, 2, 2)"), T("(2)")],
        "shape-mismatch",
        "`dyn.nn.upsampling` takes a scalar scale, found a tensor of shape (2)",
        "%b",
    ),
    (
        'dyn.nn.upsampling(%a, 2f, 2f, method="trilinear")',
        [T("(1, 3, 2, 2)")],
        "type-mismatch",
        '`dyn.nn.upsampling` method "trilinear" is not supported',
        None,
    ),
    (
        "dyn.nn.upsampling3d(%a, %b, 2f, 2f)",
        [T("(1, 3, 2, 2, 2)"), T("()", "bool")],
        "type-mismatch",
        "`dyn.nn.upsampling3d` takes numbers, not bool",
        "%b",
    ),
    (
        "dyn.nn.upsampling3d(%a, 2f, 2f, 2f)",
        [T("(1, 3, 2, 2)")],
        "shape-mismatch",
        "`dyn.nn.upsampling3d` needs 5-D data (NCDHW), found (1, 3, 2, 2)",
        "%a",
    ),
]


@pytest.mark.parametrize("call, types, code, message, at", ERRORS, ids=[e[0] for e in ERRORS])
def test_rejections(call: str, types: list[str], code: str, message: str, at: str | None) -> None:
    """Methods and coordinate modes as topi.nn.upsampling3d / topi.image.resize3d take them; the dyn
    scales are scalars (ICHECK_EQ on their rank in the dyn UpSamplingRel)."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    assert d.span.text == (at or call)


def test_upsampling3d_scales_are_required() -> None:
    """UpSampling3DAttrs gives the scales no default."""
    d = FAMILY.only_error("nn.upsampling3d(%a, scale_d=2f, scale_h=2f)", [T("(1, 3, 2, 2, 2)")])
    assert (d.code, d.message) == ("missing-attribute", "`nn.upsampling3d` needs the attribute `scale_w`")


# ---------------------------------------------------------------- nn.upsampling3d


def sizes_of(shape: tuple, scales: tuple) -> tuple:
    return tuple(math.floor(n * s + 0.5) for n, s in zip(shape, scales, strict=False))


@pytest.mark.parametrize("align", [False, True])
def test_trilinear_against_torch(align: bool) -> None:
    t = torch()
    x = np.random.default_rng(0).standard_normal((1, 2, 3, 4, 5)).astype(np.float32)
    scales = (2.0, 1.5, 0.6)
    size = sizes_of(x.shape[2:], scales)
    ref = t.nn.functional.interpolate(t.from_numpy(x), size=size, mode="trilinear", align_corners=align).numpy()
    mode = "align_corners" if align else "half_pixel"
    got = FAMILY.run(
        "nn.upsampling3d",
        x,
        scale_d=2.0,
        scale_h=1.5,
        scale_w=0.6,
        method="trilinear",
        coordinate_transformation_mode=mode,
    )
    same(got, ref, rtol=1e-5, atol=1e-6)
    got = FAMILY.run(
        "nn.upsampling3d",
        x.transpose(0, 2, 3, 4, 1),
        scale_d=2.0,
        scale_h=1.5,
        scale_w=0.6,
        layout="NDHWC",
        method="trilinear",
        coordinate_transformation_mode=mode,
    )
    same(got, ref.transpose(0, 2, 3, 4, 1), rtol=1e-5, atol=1e-6)


def test_nearest_asymmetric_against_torch() -> None:
    """PyTorch's "nearest" takes floor(o * in / out): TVM's asymmetric mapping, rounded down."""
    t = torch()
    x = np.random.default_rng(1).standard_normal((2, 1, 3, 2, 4)).astype(np.float32)
    ref = t.nn.functional.interpolate(t.from_numpy(x), size=(6, 5, 3), mode="nearest").numpy()
    got = FAMILY.run(
        "nn.upsampling3d", x, scale_d=2.0, scale_h=2.5, scale_w=0.75, coordinate_transformation_mode="asymmetric"
    )
    same(got, ref)


def loop_nearest(x, sizes, mode):
    """_resize_3d nearest_neighbor: get_inx, then floor (or round with align_corners), clamped."""
    out = np.zeros(x.shape[:2] + sizes, dtype=x.dtype)
    for o in itertools.product(*(range(s) for s in sizes)):
        src = []
        for i, n, s in zip(o, x.shape[2:], sizes, strict=False):
            if mode == "half_pixel":
                v = (i + 0.5) * n / s - 0.5
                k = math.floor(v + 1e-5)
            elif mode == "align_corners":
                v = i * (n - 1) / (s - 1) if s > 1 else 0.0
                k = int(math.copysign(math.floor(abs(v) + 0.5), v))
            else:
                k = math.floor(i * n / s + 1e-5)
            src.append(min(max(k, 0), n - 1))
        out[(slice(None), slice(None), *o)] = x[(slice(None), slice(None), *tuple(src))]
    return out


@pytest.mark.parametrize("mode", ["half_pixel", "align_corners", "asymmetric"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_nearest_against_loops(mode: str, dtype: str) -> None:
    """Nearest neighbour copies pixels: bools, and integers float64 holds exactly, come through unchanged."""
    x = np.random.default_rng(2).integers(-(2**40), 2**40, (1, 2, 3, 4, 2)).astype(dtype)
    got = FAMILY.run("nn.upsampling3d", x, scale_d=1.7, scale_h=0.5, scale_w=2.0, coordinate_transformation_mode=mode)
    same(got, loop_nearest(x, sizes_of((3, 4, 2), (1.7, 0.5, 2.0)), mode))


def test_trilinear_on_integers_truncates() -> None:
    """_cast_output: an integer result of the float interpolation is truncated (toward zero)."""
    x = np.array([0, -3], dtype=np.int32).reshape(1, 1, 1, 1, 2)
    got = FAMILY.run(
        "nn.upsampling3d",
        x,
        scale_d=1.0,
        scale_h=1.0,
        scale_w=2.0,
        method="trilinear",
        coordinate_transformation_mode="align_corners",
    )
    # sources 0, 1/3, 2/3, 1: values 0, -1, -2, -3
    same(got.reshape(4), np.array([0, -1, -2, -3], np.int32))
    got = FAMILY.run(
        "nn.upsampling3d",
        x,
        scale_d=1.0,
        scale_h=1.0,
        scale_w=1.5,
        method="trilinear",
        coordinate_transformation_mode="asymmetric",
    )
    # sources 0, 2/3, 4/3 (clamped): 0, -2, -3
    same(got.reshape(3), np.array([0, -2, -3], np.int32))


# ---------------------------------------------------------------- scales as tensors


def test_dyn_upsampling_against_torch() -> None:
    t = torch()
    F = t.nn.functional
    x = np.random.default_rng(3).standard_normal((1, 2, 3, 4)).astype(np.float32)
    got = FAMILY.run("dyn.nn.upsampling", x, scalar(2.0), scalar(1.5, "float64"))
    same(got, F.interpolate(t.from_numpy(x), size=(6, 6), mode="nearest").numpy())
    got = FAMILY.run("dyn.nn.upsampling", x, scalar(2.5), scalar(2.0), method="bilinear", align_corners=True)
    same(
        got,
        F.interpolate(t.from_numpy(x), size=(8, 8), mode="bilinear", align_corners=True).numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
    nhwc = x.transpose(0, 2, 3, 1)
    got = FAMILY.run("dyn.nn.upsampling", nhwc, scalar(2.0), scalar(1.0), layout="NHWC")
    same(got, F.interpolate(t.from_numpy(x), size=(6, 4), mode="nearest").numpy().transpose(0, 2, 3, 1))


def test_dyn_upsampling3d_against_torch() -> None:
    t = torch()
    x = np.random.default_rng(4).standard_normal((1, 2, 2, 3, 4)).astype(np.float32)
    got = FAMILY.run(
        "dyn.nn.upsampling3d",
        x,
        scalar(2.0),
        scalar(1.0),
        scalar(0.5),
        method="trilinear",
        coordinate_transformation_mode="align_corners",
    )
    ref = t.nn.functional.interpolate(t.from_numpy(x), size=(4, 3, 2), mode="trilinear", align_corners=True).numpy()
    same(got, ref, rtol=1e-5, atol=1e-6)
    ints = np.arange(8, dtype=np.int8).reshape(1, 1, 2, 2, 2)
    got = FAMILY.run(
        "dyn.nn.upsampling3d",
        ints,
        scalar(1.0),
        scalar(2, "int32"),
        scalar(1.0),
        coordinate_transformation_mode="asymmetric",
    )
    same(got, np.repeat(ints, 2, axis=3))


def test_dyn_scales_that_empty_an_axis_fail_at_run_time() -> None:
    x = np.zeros((1, 1, 2, 2), dtype=np.float32)
    with pytest.raises(KernelError, match=r"scale 0\.1 turns axis H of size 2 into 0 elements"):
        FAMILY.run("dyn.nn.upsampling", x, scalar(0.1), scalar(1.0))
    with pytest.raises(KernelError, match="scale nan for axis W is not a finite number"):
        FAMILY.run("dyn.nn.upsampling3d", x.reshape(1, 1, 1, 2, 2), scalar(1.0), scalar(1.0), scalar(np.nan))


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
