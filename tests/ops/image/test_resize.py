"""image.resize1d, image.resize3d and dyn.image.resize2d: result types as in
TVM's tests (tests/python/relay/test_op_level5.py), rejected calls, and the
kernels against PyTorch's interpolate and hand-computed values.

Shape rules: src/relay/op/image/resize.cc and src/relay/op/dyn/image/resize.cc;
attributes: include/tvm/relay/attrs/image.h; numerics: python/tvm/topi/image/resize.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.ops import KernelError, get
from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family("image.resize1d", "image.resize3d", "dyn.image.resize2d")


def _torch():
    torch_reference()  # skips the test, with the reason, without PyTorch
    import torch

    return torch


# ---------------------------------------------------------------- types


@pytest.mark.parametrize(
    "call, types, expected",
    [
        # test_resize1d_infer_type
        ("image.resize1d(%a, size=[200])", [T("(2, 3, 10)", "int8")], T("(2, 3, 200)", "int8")),
        (
            'image.resize1d(%a, size=[200], coordinate_transformation_mode="align_corners")',
            [T("(2, 3, 10)", "int8")],
            T("(2, 3, 200)", "int8"),
        ),
        (
            'image.resize1d(%a, size=[7], layout="NWC", out_dtype="float64")',
            [T("(1, 4, 3)")],
            T("(1, 7, 3)", "float64"),
        ),
        # test_resize3d_infer_type
        ("image.resize3d(%a, size=[10, 10, 20])", [T("(2, 3, 4, 5, 6)", "int8")], T("(2, 3, 10, 10, 20)", "int8")),
        ('image.resize3d(%a, size=[2, 3, 4], layout="NDHWC")', [T("(1, 5, 6, 7, 8)")], T("(1, 2, 3, 4, 8)")),
        # the dynamic operator: the spatial sizes are known at run time only
        ("dyn.image.resize2d(%a, %b, %c)", [T("(1, 3, 4, 5)"), T("(2)", "int64"), T("(4)")], T("(1, 3, ?, ?)")),
        (
            'dyn.image.resize2d(%a, %b, %c, layout="NHWC", out_dtype="int32")',
            [T("(1, 4, 5, 3)"), T("(2)", "int32"), T("(4)")],
            T("(1, ?, ?, 3)", "int32"),
        ),
    ],
)
def test_result_type(call: str, types: list[str], expected: str) -> None:
    """The output takes `size` on the spatial axes of the layout and `out_dtype`
    (resize.cc: Resize1DRel, Resize3DRel; dyn/image/resize.cc sets them to Any)."""
    assert FAMILY.result_type(call, types) == expected


@pytest.mark.parametrize(
    "call, types, code, message, at",
    [
        (
            "image.resize1d(%a, size=[2])",
            [T("(1, 2, 3, 4)")],
            "shape-mismatch",
            "`image.resize1d` needs 3-D data (NCW), found (1, 2, 3, 4)",
            "%a",
        ),
        (
            "image.resize1d(%a, size=[2, 3])",
            [T("(1, 2, 3)")],
            "type-mismatch",
            "`image.resize1d` size takes 1 positive value (W), found [2, 3]",
            "image.resize1d(%a, size=[2, 3])",
        ),
        (
            "image.resize1d(%a, size=[4], roi=[0f, 1f, 1f, 1f])",
            [T("(1, 2, 3)")],
            "type-mismatch",
            "`image.resize1d` roi takes 2 values (every start, then every end), found 4",
            "image.resize1d(%a, size=[4], roi=[0f, 1f, 1f, 1f])",
        ),
        (
            'image.resize3d(%a, size=[1, 2, 3], layout="NHWC")',
            [T("(1, 2, 3, 4, 5)")],
            "type-mismatch",
            '`image.resize3d`: layout "NHWC" is not supported',
            'image.resize3d(%a, size=[1, 2, 3], layout="NHWC")',
        ),
        (
            'image.resize3d(%a, size=[1, 2, 3], method="area")',
            [T("(1, 2, 3, 4, 5)")],
            "type-mismatch",
            '`image.resize3d` method "area" is not supported',
            'image.resize3d(%a, size=[1, 2, 3], method="area")',
        ),
        (
            "dyn.image.resize2d(%a, %b, %c)",
            [T("(1, 2, 3, 4)"), T("(3)", "int64"), T("(4)")],
            "shape-mismatch",
            "`dyn.image.resize2d` takes the size (height, width) as a vector of 2 values, found (3)",
            "%b",
        ),
        (
            "dyn.image.resize2d(%a, %b, %c)",
            [T("(1, 2, 3, 4)"), T("(2)"), T("(4)")],
            "type-mismatch",
            "`dyn.image.resize2d` takes the size (height, width) as int or uint values, not `float32`",
            "%b",
        ),
        (
            "dyn.image.resize2d(%a, %b, %c)",
            [T("(1, 2, 3, 4)"), T("(2)", "int32"), T("(2, 2)")],
            "shape-mismatch",
            "`dyn.image.resize2d` takes the roi as a vector of 4 values, found (2, 2)",
            "%c",
        ),
    ],
)
def test_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


def test_defaults_are_tvms() -> None:
    """include/tvm/relay/attrs/image.h: rounding "round", half_pixel, linear, alpha -0.5."""
    full, _ = get("image.resize3d").normalize_attrs([("size", (1, 1, 1))])
    assert full == {
        "size": (1, 1, 1),
        "roi": (0.0,) * 6,
        "layout": "NCDHW",
        "method": "linear",
        "coordinate_transformation_mode": "half_pixel",
        "rounding_method": "round",
        "cubic_alpha": -0.5,
        "cubic_exclude": 0,
        "extrapolation_value": 0.0,
        "out_dtype": "",
    }
    assert get("image.resize1d").normalize_attrs([("size", (1,))])[0]["layout"] == "NCW"
    assert get("dyn.image.resize2d").normalize_attrs([])[0]["size"] == ()


# ---------------------------------------------------------------- kernels against PyTorch


@pytest.mark.parametrize(
    "attrs, torch_mode, align",
    [
        ({"method": "linear"}, "linear", False),
        ({"method": "linear", "coordinate_transformation_mode": "align_corners"}, "linear", True),
        (
            {"method": "nearest_neighbor", "coordinate_transformation_mode": "asymmetric", "rounding_method": "floor"},
            "nearest",
            None,
        ),
        (
            {
                "method": "nearest_neighbor",
                "coordinate_transformation_mode": "tf_half_pixel_for_nn",
                "rounding_method": "floor",
            },
            "nearest-exact",
            None,
        ),
    ],
)
@pytest.mark.parametrize("size", [3, 7, 11])
def test_resize1d_against_torch(attrs: dict, torch_mode: str, align: bool | None, size: int) -> None:
    torch = _torch()
    x = np.random.default_rng(size).standard_normal((2, 3, 5)).astype(np.float32)
    expected = torch.nn.functional.interpolate(
        torch.from_numpy(x), size=size, mode=torch_mode, align_corners=align
    ).numpy()
    same(FAMILY.run("image.resize1d", x, size=[size], **attrs), expected, rtol=1e-5, atol=1e-6)
    nwc = FAMILY.run("image.resize1d", x.transpose(0, 2, 1).copy(), size=[size], layout="NWC", **attrs)
    same(nwc, expected.transpose(0, 2, 1), rtol=1e-5, atol=1e-6)


def test_resize1d_cubic_against_torch_bicubic() -> None:
    """A 1-high bicubic resize in PyTorch (a = -0.75, half-pixel, taps clamped)
    is a 1-D cubic resize along the width."""
    torch = _torch()
    x = np.random.default_rng(0).standard_normal((1, 2, 6)).astype(np.float32)
    expected = torch.nn.functional.interpolate(
        torch.from_numpy(x[:, :, None, :]), size=(1, 9), mode="bicubic", align_corners=False
    )
    got = FAMILY.run("image.resize1d", x, size=[9], method="cubic", cubic_alpha=-0.75)
    same(got, expected.numpy()[:, :, 0, :], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("align", [False, True])
def test_resize3d_against_torch_trilinear(align: bool) -> None:
    torch = _torch()
    x = np.random.default_rng(1).standard_normal((1, 2, 3, 4, 5)).astype(np.float32)
    mode = "align_corners" if align else "half_pixel"
    expected = torch.nn.functional.interpolate(
        torch.from_numpy(x), size=(5, 3, 7), mode="trilinear", align_corners=align
    ).numpy()
    same(
        FAMILY.run("image.resize3d", x, size=[5, 3, 7], coordinate_transformation_mode=mode),
        expected,
        rtol=1e-5,
        atol=1e-6,
    )
    ndhwc = FAMILY.run(
        "image.resize3d",
        np.moveaxis(x, 1, -1).copy(),
        size=[5, 3, 7],
        layout="NDHWC",
        coordinate_transformation_mode=mode,
    )
    same(ndhwc, np.moveaxis(expected, 1, -1), rtol=1e-5, atol=1e-6)


def test_resize3d_nearest_against_torch() -> None:
    torch = _torch()
    x = np.random.default_rng(2).standard_normal((1, 1, 2, 3, 4)).astype(np.float32)
    expected = torch.nn.functional.interpolate(torch.from_numpy(x), size=(4, 6, 2), mode="nearest").numpy()
    got = FAMILY.run(
        "image.resize3d",
        x,
        size=[4, 6, 2],
        method="nearest_neighbor",
        coordinate_transformation_mode="asymmetric",
        rounding_method="floor",
    )
    same(got, expected)


def test_dyn_resize2d_against_torch() -> None:
    torch = _torch()
    x = np.random.default_rng(3).standard_normal((1, 2, 4, 5)).astype(np.float32)
    expected = torch.nn.functional.interpolate(
        torch.from_numpy(x), size=(6, 3), mode="bilinear", align_corners=False
    ).numpy()
    size, roi = np.array([6, 3], dtype=np.int64), np.zeros(4, dtype=np.float32)
    same(FAMILY.run("dyn.image.resize2d", x, size, roi), expected, rtol=1e-5, atol=1e-6)
    nhwc = FAMILY.run("dyn.image.resize2d", x.transpose(0, 2, 3, 1).copy(), size, roi, layout="NHWC")
    same(nhwc, expected.transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- kernels by hand


def test_nearest_rounds_halves_away_from_zero_by_default() -> None:
    """rounding_method defaults to "round" (image.h), and TOPI's round is
    LLVM's round: half_pixel sources of 2 -> 4 are -0.25, 0.25, 0.75, 1.25."""
    x = np.array([[[10, 20]]], dtype=np.int32)
    same(
        FAMILY.run("image.resize1d", x, size=[4], method="nearest_neighbor"),
        np.array([[[10, 10, 20, 20]]], dtype=np.int32),
    )
    # asymmetric sources 0, 0.5, 1, 1.5: halves go up
    same(
        FAMILY.run(
            "image.resize1d", x, size=[4], method="nearest_neighbor", coordinate_transformation_mode="asymmetric"
        ),
        np.array([[[10, 20, 20, 20]]], dtype=np.int32),
    )
    # "" picks floor unless align_corners
    same(
        FAMILY.run(
            "image.resize1d",
            x,
            size=[4],
            method="nearest_neighbor",
            coordinate_transformation_mode="asymmetric",
            rounding_method="",
        ),
        np.array([[[10, 10, 20, 20]]], dtype=np.int32),
    )


def test_integer_results_truncate() -> None:
    """TOPI interpolates in float and casts: linear 4 -> 3 reads 1/6, 3/2 and 17/6."""
    x = np.array([[[0, 10, 20, 30]]], dtype=np.int32)
    same(FAMILY.run("image.resize1d", x, size=[3]), np.array([[[1, 15, 28]]], dtype=np.int32))
    same(
        FAMILY.run("image.resize1d", x, size=[3], out_dtype="float32"),
        np.array([[[10 / 6, 15, 170 / 6]]], dtype=np.float32),
    )
    neg = np.array([[[0, -10, -20, -30]]], dtype=np.int8)
    same(FAMILY.run("image.resize1d", neg, size=[3]), np.array([[[-1, -15, -28]]], dtype=np.int8))


def test_bool_data_resizes_by_nearest_neighbour() -> None:
    x = np.array([[[True, False, True]]])
    # asymmetric sources 0, 0.5, 1, 1.5, 2, 2.5 round to 0, 1, 1, 2, 2, 3 (clamped to 2)
    same(
        FAMILY.run(
            "image.resize1d", x, size=[6], method="nearest_neighbor", coordinate_transformation_mode="asymmetric"
        ),
        np.array([[[True, False, False, True, True, True]]]),
    )
    same(
        FAMILY.run(
            "image.resize1d",
            x,
            size=[6],
            method="nearest_neighbor",
            coordinate_transformation_mode="asymmetric",
            rounding_method="floor",
        ),
        np.array([[[True, True, False, False, True, True]]]),
    )


def test_tf_crop_and_resize_reads_the_region_and_extrapolates() -> None:
    """Output o of S reads start * (L - 1) + o * (end - start) * (L - 1) / (S - 1)
    (resize.py: get_inx); outside [0, L - 1] it is extrapolation_value."""
    x = np.array([[[0.0, 10.0, 20.0, 30.0, 40.0]]], dtype=np.float32)
    # region 0.25 .. 1.25 of 4 pixel steps: sources 1, 2, 3, 4, 5 (the last is outside)
    got = FAMILY.run(
        "image.resize1d",
        x,
        size=[5],
        roi=[0.25, 1.25],
        coordinate_transformation_mode="tf_crop_and_resize",
        extrapolation_value=-7.0,
    )
    same(got, [[[10, 20, 30, 40, -7]]])
    # a single output reads the middle of the region: 0.5 * (0.25 + 0.75) * 4 = 2
    got = FAMILY.run(
        "image.resize1d", x, size=[1], roi=[0.25, 0.75], coordinate_transformation_mode="tf_crop_and_resize"
    )
    same(got, [[[20]]])
    # 3-D: roi lists the starts (d, h, w), then the ends; depth sources 0 and 2 (outside,
    # extrapolated), height the middle of [0, 0], width the middle of [1, 1]: v[d, 0, 1]
    v = np.arange(8, dtype=np.float32).reshape(1, 1, 2, 2, 2)
    got = FAMILY.run(
        "image.resize3d",
        v,
        size=[2, 1, 1],
        roi=[0.0, 0.0, 1.0, 2.0, 0.0, 1.0],
        coordinate_transformation_mode="tf_crop_and_resize",
        extrapolation_value=9.0,
    )
    same(got, np.array([1.0, 9.0], dtype=np.float32).reshape(1, 1, 2, 1, 1))
    # the dynamic operator takes the roi as a tensor [start_h, start_w, end_h, end_w]
    img = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
    got = FAMILY.run(
        "dyn.image.resize2d",
        img,
        np.array([2, 2], np.int32),
        np.array([0.5, 0.0, 1.0, 0.5], np.float32),
        coordinate_transformation_mode="tf_crop_and_resize",
    )
    same(got, [[[[3, 4], [6, 7]]]])


def test_cubic_exclude_renormalizes_the_taps_inside() -> None:
    """With cubic_exclude=1 the taps outside the image weigh nothing and the rest are
    rescaled to sum to 1, so a constant image stays constant even at the border."""
    x = np.full((1, 1, 4), 5.0, dtype=np.float32)
    same(
        FAMILY.run("image.resize1d", x, size=[7], method="cubic", cubic_exclude=1),
        np.full((1, 1, 7), 5.0, dtype=np.float32),
        rtol=1e-6,
    )
    ramp = np.array([[[0.0, 1.0, 2.0, 3.0]]], dtype=np.float32)
    # source -0.25: taps -2..1 with weights of t = 0.75; only taps 0 and 1 remain
    t = 0.75
    a = -0.5
    w = [((a + 2) * (1 - t) - (a + 3)) * (1 - t) ** 2 + 1, ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a]
    got = FAMILY.run("image.resize1d", ramp, size=[8], method="cubic", cubic_exclude=1)
    assert got[0, 0, 0] == pytest.approx((0 * w[0] + 1 * w[1]) / (w[0] + w[1]), rel=1e-6)


def test_dyn_resize2d_checks_the_size_at_run_time() -> None:
    x = np.zeros((1, 1, 2, 2), dtype=np.float32)
    with pytest.raises(KernelError) as err:
        FAMILY.run("dyn.image.resize2d", x, np.array([0, 3], np.int64), np.zeros(4, np.float32))
    assert (err.value.code, err.value.message) == (
        "runtime-error",
        "`dyn.image.resize2d` needs 2 positive sizes, found [0, 3]",
    )


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
