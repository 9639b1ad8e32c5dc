"""image.crop_and_resize, image.affine_grid, image.grid_sample and
image.dilation2d: result types from TVM's tests (tests/python/relay/
test_op_level5.py), rejected calls, and the kernels against PyTorch
(affine_grid, grid_sample, an unfold-based dilation), a loop-based crop and
resize written here, and TVM's hand-computed dilation cases.

Shape rules: src/relay/op/image/{resize,grid_sample,dilation2d}.cc; numerics:
python/tvm/topi/image/{resize,grid_sample,dilation2d}.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from relay_text.ops import KernelError
from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family("image.crop_and_resize", "image.affine_grid", "image.grid_sample", "image.dilation2d")


def _torch():
    torch_reference()  # skips the test, with the reason, without PyTorch
    import torch

    return torch


# ---------------------------------------------------------------- types


@pytest.mark.parametrize(
    "call, types, expected",
    [
        # TestCropAndResize
        (
            'image.crop_and_resize(%a, %b, %c, crop_size=[20, 30], layout="NHWC")',
            [T("(10, 224, 224, 3)"), T("(2, 4)"), T("(2)", "int32")],
            T("(2, 20, 30, 3)"),
        ),
        (
            "image.crop_and_resize(%a, %b, %c, crop_size=[30, 30])",
            [T("(5, 3, 255, 255)"), T("(2, 4)"), T("(2)", "int32")],
            T("(2, 3, 30, 30)"),
        ),
        (
            'image.crop_and_resize(%a, %b, %c, crop_size=[3, 4], out_dtype="int8")',
            [T("(1, 2, 5, 5)"), T("(?, 4)"), T("(?)", "int64")],
            T("(?, 2, 3, 4)", "int8"),
        ),
        # test_affine_grid
        ("image.affine_grid(%a, target_shape=[16, 32])", [T("(4, 2, 3)")], T("(4, 2, 16, 32)")),
        # test_grid_sample
        ("image.grid_sample(%a, %b)", [T("(4, 4, 8, 8)"), T("(4, 2, 16, 16)")], T("(4, 4, 16, 16)")),
        (
            'image.grid_sample(%a, %b, layout="NCDHW", method="nearest")',
            [T("(4, 4, 4, 4, 4)"), T("(4, 3, 8, 8, 8)")],
            T("(4, 4, 8, 8, 8)"),
        ),
        # test_dilation2d_infer_type: TVM's relation reads the first two strides and dilations
        (
            "image.dilation2d(%a, %b, strides=[1, 1, 1, 1], dilations=[1, 1, 1, 1], padding=[0, 0, 0, 0])",
            [T("(?, 10, 224, 224)"), T("(10, 8, 8)")],
            T("(?, 10, 217, 217)"),
        ),
        (
            (
                'image.dilation2d(%a, %b, data_layout="NHWC", kernel_layout="HWI", strides=[1, 2], padding=[1, '
                "1], dilations=[2, 2])"
            ),
            [T("(1, 3, 3, 1)"), T("(2, 2, 1)")],
            T("(1, 3, 2, 1)"),
        ),
        (
            'image.dilation2d(%a, %b, out_dtype="int32")',
            [T("(1, 2, 5, 5)", "int8"), T("(2, 2, 3)", "int8")],
            T("(1, 2, 4, 3)", "int32"),
        ),
    ],
)
def test_result_type(call: str, types: list[str], expected: str) -> None:
    """Shapes as CropAndResizeRel, AffineGridRel, GridSampleRel and Dilation2DRel compute them."""
    assert FAMILY.result_type(call, types) == expected


@pytest.mark.parametrize(
    "call, types, code, message, at",
    [
        (
            "image.crop_and_resize(%a, %b, %c, crop_size=[2, 2])",
            [T("(1, 2, 5, 5)"), T("(3, 5)"), T("(3)", "int32")],
            "shape-mismatch",
            "`image.crop_and_resize` takes boxes of shape (num_boxes, 4), found (3, 5)",
            "%b",
        ),
        (
            "image.crop_and_resize(%a, %b, %c, crop_size=[2, 2])",
            [T("(1, 2, 5, 5)"), T("(3, 4)"), T("(2)", "int32")],
            "shape-mismatch",
            "`image.crop_and_resize` has 3 boxes but 2 box indices",
            "%c",
        ),
        (
            "image.crop_and_resize(%a, %b, %c, crop_size=[2, 2])",
            [T("(1, 2, 5, 5)"), T("(3, 4)"), T("(3)")],
            "type-mismatch",
            "`image.crop_and_resize` takes the box indices as integers, not `float32`",
            "%c",
        ),
        (
            'image.crop_and_resize(%a, %b, %c, crop_size=[2, 2], method="bicubic")',
            [T("(1, 2, 5, 5)"), T("(3, 4)"), T("(3)", "int32")],
            "type-mismatch",
            '`image.crop_and_resize` method "bicubic" is not supported',
            'image.crop_and_resize(%a, %b, %c, crop_size=[2, 2], method="bicubic")',
        ),
        (
            "image.affine_grid(%a, target_shape=[1, 8])",
            [T("(1, 2, 3)")],
            "type-mismatch",
            "`image.affine_grid` target_shape takes 2 sizes greater than 1 (height, width), found [1, 8]",
            "image.affine_grid(%a, target_shape=[1, 8])",
        ),
        (
            "image.affine_grid(%a, target_shape=[4, 4])",
            [T("(1, 3, 3)")],
            "shape-mismatch",
            "`image.affine_grid` takes affine matrices of shape (batch, 2, 3), found (1, 3, 3)",
            "%a",
        ),
        (
            "image.grid_sample(%a, %b)",
            [T("(1, 2, 4, 4)"), T("(1, 3, 4, 4)")],
            "shape-mismatch",
            "`image.grid_sample` takes a grid of shape (batch, 2, height, width) for 4-D data, found (1, 3, 4, 4)",
            "%b",
        ),
        (
            "image.grid_sample(%a, %b)",
            [T("(1, 2, 4, 4, 4)"), T("(1, 3, 4, 4, 4)")],
            "type-mismatch",
            '`image.grid_sample`: layout "NCHW" is not supported for 5-D data',
            "image.grid_sample(%a, %b)",
        ),
        (
            'image.grid_sample(%a, %b, method="bicubic", layout="NCDHW")',
            [T("(1, 2, 4, 4, 4)"), T("(1, 3, 4, 4, 4)")],
            "type-mismatch",
            '`image.grid_sample` method "bicubic" is not supported for 5-D data',
            'image.grid_sample(%a, %b, method="bicubic", layout="NCDHW")',
        ),
        (
            "image.grid_sample(%a, %b)",
            [T("(1, 2, 4, 4)", "int32"), T("(1, 2, 4, 4)")],
            "type-mismatch",
            '`image.grid_sample` with method "bilinear" takes float data, not `int32`',
            "%a",
        ),
        (
            "image.dilation2d(%a, %b)",
            [T("(1, 3, 5, 5)"), T("(2, 2, 2)")],
            "shape-mismatch",
            "`image.dilation2d`: the data has 3 channels but the weight 2",
            "%b",
        ),
        (
            "image.dilation2d(%a, %b, dilations=[3, 3])",
            [T("(1, 1, 5, 5)"), T("(1, 3, 3)")],
            "shape-mismatch",
            "`image.dilation2d`: the dilated 3-wide window does not fit the padded H axis of 5",
            "%a",
        ),
    ],
)
def test_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


# ---------------------------------------------------------------- crop_and_resize


def crop_reference(
    image: np.ndarray, boxes: np.ndarray, box_indices: np.ndarray, crop: tuple, method: str, fill: float
) -> np.ndarray:
    """TensorFlow's crop_and_resize pixel by pixel (NCHW, float64)."""
    _, channels, height, width = image.shape
    ch, cw = crop
    out = np.zeros((len(boxes), channels, ch, cw))
    for n, (y1, x1, y2, x2) in enumerate(boxes.astype(np.float64)):
        img = image[box_indices[n]].astype(np.float64)
        for i in range(ch):
            y = (
                y1 * (height - 1) + i * (y2 - y1) * (height - 1) / (ch - 1)
                if ch > 1
                else 0.5 * (y1 + y2) * (height - 1)
            )
            for j in range(cw):
                x = (
                    x1 * (width - 1) + j * (x2 - x1) * (width - 1) / (cw - 1)
                    if cw > 1
                    else 0.5 * (x1 + x2) * (width - 1)
                )
                if not (0 <= y <= height - 1 and 0 <= x <= width - 1):
                    out[n, :, i, j] = fill
                elif method == "nearest_neighbor":
                    out[n, :, i, j] = img[:, math.floor(y + 0.5), math.floor(x + 0.5)]
                else:
                    top, left = math.floor(y), math.floor(x)
                    bottom, right = min(top + 1, height - 1), min(left + 1, width - 1)
                    fy, fx = y - top, x - left
                    upper = img[:, top, left] * (1 - fx) + img[:, top, right] * fx
                    lower = img[:, bottom, left] * (1 - fx) + img[:, bottom, right] * fx
                    out[n, :, i, j] = upper * (1 - fy) + lower * fy
    return out


@pytest.mark.parametrize("method", ["bilinear", "nearest_neighbor"])
@pytest.mark.parametrize("crop", [(3, 4), (1, 5), (6, 1)])
def test_crop_and_resize_against_loops(method: str, crop: tuple) -> None:
    g = np.random.default_rng(sum(crop))
    image = g.standard_normal((3, 2, 7, 6)).astype(np.float32)
    boxes = g.uniform(-0.3, 1.3, (4, 4)).astype(np.float32)  # some corners fall outside the image
    indices = np.array([2, 0, 1, 2], dtype=np.int32)
    expected = crop_reference(image, boxes, indices, crop, method, 0.5).astype(np.float32)
    got = FAMILY.run(
        "image.crop_and_resize", image, boxes, indices, crop_size=list(crop), method=method, extrapolation_value=0.5
    )
    same(got, expected, rtol=1e-5, atol=1e-5)
    nhwc = FAMILY.run(
        "image.crop_and_resize",
        image.transpose(0, 2, 3, 1).copy(),
        boxes,
        indices,
        crop_size=list(crop),
        method=method,
        extrapolation_value=0.5,
        layout="NHWC",
    )
    same(nhwc, expected.transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-5)


def test_crop_and_resize_integers() -> None:
    """Integer images: nearest picks pixels exactly; blends truncate toward zero."""
    image = np.arange(16, dtype=np.int32).reshape(1, 1, 4, 4) * 10
    boxes = np.array([[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.5, 0.5]], dtype=np.float32)
    idx = np.array([0, 0], dtype=np.int32)
    near = FAMILY.run("image.crop_and_resize", image, boxes, idx, crop_size=[2, 2], method="nearest_neighbor")
    # box 1: rows and columns 0 and 1.5, which rounds to 2
    same(near, np.array([[[[0, 30], [120, 150]]], [[[0, 20], [80, 100]]]], dtype=np.int32))
    blend = FAMILY.run("image.crop_and_resize", image, boxes, idx, crop_size=[2, 2])
    same(blend, np.array([[[[0, 30], [120, 150]]], [[[0, 15], [60, 75]]]], dtype=np.int32))


def test_crop_and_resize_checks_box_indices() -> None:
    with pytest.raises(KernelError) as err:
        FAMILY.run(
            "image.crop_and_resize",
            np.zeros((2, 1, 3, 3), np.float32),
            np.zeros((1, 4), np.float32),
            np.array([2], np.int32),
            crop_size=[2, 2],
        )
    assert err.value.message == "`image.crop_and_resize`: box 0 names image 2, but there are 2"


# ---------------------------------------------------------------- affine_grid and grid_sample


def test_affine_grid_against_torch() -> None:
    """TOPI steps by (2 - 1e-7) / (size - 1) from -1 (grid_sample.py): PyTorch's
    align_corners=True grid to within that 1e-7."""
    torch = _torch()
    theta = np.random.default_rng(5).standard_normal((3, 2, 3)).astype(np.float32)
    expected = torch.nn.functional.affine_grid(torch.from_numpy(theta), [3, 1, 5, 7], align_corners=True).numpy()
    same(
        FAMILY.run("image.affine_grid", theta, target_shape=[5, 7]),
        expected.transpose(0, 3, 1, 2),
        rtol=1e-5,
        atol=2e-6,
    )


def test_affine_grid_by_hand() -> None:
    theta = np.array([[[1.0, 0.0, 0.0], [0.0, 2.0, 1.0]]], dtype=np.float64)
    step = (2.0 - 1e-7) / 2
    x = np.array([-1.0, -1.0 + step, -1.0 + 2 * step])
    grid = FAMILY.run("image.affine_grid", theta, target_shape=[2, 3])
    same(
        grid,
        np.stack([np.broadcast_to(x, (2, 3)), np.broadcast_to(2 * np.array([[-1.0], [1.0 - 1e-7]]) + 1, (2, 3))])[None],
        rtol=1e-12,
        atol=1e-12,
    )


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [True, False])
def test_grid_sample_2d_against_torch(method: str, padding: str, align: bool) -> None:
    torch = _torch()
    g = np.random.default_rng(7)
    data = g.standard_normal((2, 3, 5, 6)).astype(np.float32)
    grid = g.uniform(-1.7, 1.7, (2, 2, 4, 7)).astype(np.float32)
    expected = torch.nn.functional.grid_sample(
        torch.from_numpy(data),
        torch.from_numpy(grid.transpose(0, 2, 3, 1).copy()),
        mode=method,
        padding_mode=padding,
        align_corners=align,
    ).numpy()
    got = FAMILY.run("image.grid_sample", data, grid, method=method, padding_mode=padding, align_corners=align)
    same(got, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [True, False])
def test_grid_sample_3d_against_torch(method: str, padding: str, align: bool) -> None:
    torch = _torch()
    g = np.random.default_rng(8)
    data = g.standard_normal((2, 2, 3, 4, 5)).astype(np.float32)
    grid = g.uniform(-1.5, 1.5, (2, 3, 2, 3, 4)).astype(np.float32)
    expected = torch.nn.functional.grid_sample(
        torch.from_numpy(data),
        torch.from_numpy(grid.transpose(0, 2, 3, 4, 1).copy()),
        mode=method,
        padding_mode=padding,
        align_corners=align,
    ).numpy()
    got = FAMILY.run(
        "image.grid_sample", data, grid, method=method, padding_mode=padding, align_corners=align, layout="NCDHW"
    )
    same(got, expected, rtol=1e-4, atol=1e-5)


def test_grid_sample_nearest_integers_by_hand() -> None:
    """Integer data with "nearest": exact pixels, 0 outside with zeros padding.
    With align_corners, x = -1, 0, 1, 1.6 map to columns 0, 1, 2, 2.4 -> 2 (and
    x = 0.5 to column 1.5, which rounds to even: 2)."""
    data = np.array([[[[1, 2, 3], [4, 5, 6]]]], dtype=np.int32)
    xs = np.array([-1.0, 0.0, 0.5, 1.0, 2.0], dtype=np.float32)
    grid = np.stack([np.broadcast_to(xs, (1, 5)), np.full((1, 5), 1.0, np.float32)])[None].astype(np.float32)
    got = FAMILY.run("image.grid_sample", data, grid, method="nearest")
    same(got, np.array([[[[4, 5, 6, 6, 0]]]], dtype=np.int32))
    got = FAMILY.run("image.grid_sample", data, grid, method="nearest", padding_mode="border")
    same(got, np.array([[[[4, 5, 6, 6, 6]]]], dtype=np.int32))


# ---------------------------------------------------------------- dilation2d


def dilation_reference(
    data: np.ndarray, weight: np.ndarray, strides: tuple, pads: tuple, dilations: tuple
) -> np.ndarray:
    """max over the window of (patch + weight), through PyTorch's unfold (NCHW, IHW)."""
    torch = _torch()
    top, left, bottom, right = pads
    x = torch.nn.functional.pad(torch.from_numpy(data).double(), (left, right, top, bottom))
    n, c, h, w = x.shape
    _, kh, kw = weight.shape
    cols = torch.nn.functional.unfold(x, (kh, kw), dilation=dilations, stride=strides)  # (n, c*kh*kw, L)
    oh = (h - (kh - 1) * dilations[0] - 1) // strides[0] + 1
    ow = (w - (kw - 1) * dilations[1] - 1) // strides[1] + 1
    cols = cols.reshape(n, c, kh * kw, oh, ow) + torch.from_numpy(weight).double().reshape(1, c, kh * kw, 1, 1)
    return cols.max(dim=2).values.numpy()


@pytest.mark.parametrize(
    "strides, padding, pads, dilations",
    [
        ([1, 1], [0, 0], (0, 0, 0, 0), [1, 1]),
        ([2, 1], [1], (1, 1, 1, 1), [1, 2]),
        ([1, 2], [0, 1, 2, 0], (0, 1, 2, 0), [2, 1]),
    ],
)
def test_dilation2d_against_torch(strides: list, padding: list, pads: tuple, dilations: list) -> None:
    g = np.random.default_rng(9)
    data = g.standard_normal((2, 3, 7, 6)).astype(np.float32)
    weight = g.standard_normal((3, 2, 3)).astype(np.float32)
    expected = dilation_reference(data, weight, tuple(strides), pads, tuple(dilations)).astype(np.float32)
    got = FAMILY.run("image.dilation2d", data, weight, strides=strides, padding=padding, dilations=dilations)
    same(got, expected, rtol=1e-6, atol=1e-6)
    nhwc = FAMILY.run(
        "image.dilation2d",
        data.transpose(0, 2, 3, 1).copy(),
        weight.transpose(1, 2, 0).copy(),
        strides=strides,
        padding=padding,
        dilations=dilations,
        data_layout="NHWC",
        kernel_layout="HWI",
    )
    same(nhwc, expected.transpose(0, 2, 3, 1), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "image, kernel, out, attrs",
    [
        # TestDilation2DRun's cases (NHWC data, HWI kernels)
        (
            [[[[0.1], [0.2]], [[0.3], [0.4]]]],
            [[[0.4], [0.3]], [[0.1], [0.0]]],
            [[[[0.5], [0.6]], [[0.7], [0.8]]]],
            {"padding": [0, 0, 1, 1]},
        ),
        (
            [[[[0.1], [0.2], [0.3]], [[0.4], [0.5], [0.6]], [[0.7], [0.8], [0.9]]]],
            [[[0.4], [0.3]], [[0.1], [0.2]]],
            [[[[0.7], [0.8], [0.6]], [[1.0], [1.1], [0.9]], [[0.8], [0.9], [0.9]]]],
            {"padding": [1, 1], "dilations": [2, 2]},
        ),
        (
            [[[[0.1], [0.2], [0.3], [0.4]], [[0.5], [0.6], [0.7], [0.8]], [[0.9], [1.0], [1.1], [1.2]]]],
            [[[0.4], [0.3]], [[0.1], [0.2]]],
            [[[[0.8], [1.0]], [[1.2], [1.4]]]],
            {"strides": [1, 2]},
        ),
    ],
)
def test_dilation2d_tvm_cases(image: list, kernel: list, out: list, attrs: dict) -> None:
    """Expected values from tests/python/relay/test_op_level5.py (TestDilation2DRun)."""
    got = FAMILY.run(
        "image.dilation2d",
        np.array(image, np.float32),
        np.array(kernel, np.float32),
        data_layout="NHWC",
        kernel_layout="HWI",
        **attrs,
    )
    same(got, np.array(out, np.float32), rtol=1e-6)


def test_dilation2d_integers_wrap() -> None:
    """Both operands are cast to out_dtype, then added: int8 100 + 100 wraps to -56;
    with out_dtype int32 it is 200. Padding counts as 0."""
    data = np.array([[[[100, -100]]]], dtype=np.int8)
    weight = np.array([[[100]]], dtype=np.int8)
    same(FAMILY.run("image.dilation2d", data, weight), np.array([[[[-56, 0]]]], dtype=np.int8))
    same(FAMILY.run("image.dilation2d", data, weight, out_dtype="int32"), np.array([[[[200, 0]]]], dtype=np.int32))
    padded = FAMILY.run(
        "image.dilation2d", np.array([[[[-5]]]], np.int32), np.array([[[1, 1]]], np.int32), padding=[0, 1]
    )
    same(padded, np.array([[[[1, 1]]]], dtype=np.int32))


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
