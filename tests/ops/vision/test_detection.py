"""vision.roi_align, vision.roi_pool, vision.multibox_prior,
vision.multibox_transform_loc, vision.proposal and vision.yolo_reorg: result
types from TVM's tests (tests/python/relay/test_op_level5.py), rejected
calls, and the kernels against loop references written here (torchvision's
RoIAlign without `aligned`, Fast R-CNN's RoIPool, darknet's reorg, SSD's
priors) and TVM's expected values.

Types: src/relay/op/vision/{rcnn_op,multibox_op,yolo}.cc; numerics:
python/tvm/topi/vision/{rcnn,ssd}/ and include/tvm/topi/vision/reorg.h.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from relay_text.ops import KernelError
from tests.ops.family import Family, T, same

FAMILY = Family(
    "vision.roi_align",
    "vision.roi_pool",
    "vision.multibox_prior",
    "vision.multibox_transform_loc",
    "vision.proposal",
    "vision.yolo_reorg",
)


def f32(v: object) -> np.ndarray:
    return np.array(v, dtype=np.float32)


# ---------------------------------------------------------------- types


@pytest.mark.parametrize(
    "call, types, expected",
    [
        # test_roi_align / test_roi_pool
        (
            "vision.roi_align(%a, %b, pooled_size=[7, 7], spatial_scale=1f)",
            [T("(1, 4, 16, 16)"), T("(32, 5)")],
            T("(32, 4, 7, 7)"),
        ),
        (
            (
                'vision.roi_align(%a, %b, pooled_size=[7, 7], spatial_scale=0.5f, sample_ratio=2, mode="max", '
                'layout="NHWC")'
            ),
            [T("(4, 16, 16, 4)"), T("(32, 5)")],
            T("(32, 7, 7, 4)"),
        ),
        (
            "vision.roi_pool(%a, %b, pooled_size=[7, 7], spatial_scale=0.5f)",
            [T("(4, 4, 16, 16)"), T("(32, 5)")],
            T("(32, 4, 7, 7)"),
        ),
        (
            "vision.roi_pool(%a, %b, pooled_size=[2, 3], spatial_scale=1f)",
            [T("(1, 4, 16, 16)", "int8"), T("(?, 5)")],
            T("(?, 4, 2, 3)", "int8"),
        ),
        # test_multibox_prior: (1, H * W * (sizes + ratios - 1), 4)
        (
            (
                "vision.multibox_prior(%a, sizes=[0.3, 1.5, 0.7], ratios=[1.3, 2.4], steps=[2f, 1.5f], "
                "offsets=[0.2f, 0.3f], clip=True)"
            ),
            [T("(1, 3, 56, 56)")],
            T("(1, 12544, 4)"),
        ),
        ("vision.multibox_prior(%a)", [T("(1, 24, 32, 32)")], T("(1, 1024, 4)")),
        ("vision.multibox_prior(%a)", [T("(?, 24, ?, 32)")], T("(1, ?, 4)")),
        # test_multibox_transform_loc
        (
            "vision.multibox_transform_loc(%a, %b, %c)",
            [T("(1, 3, 3)"), T("(1, 12)"), T("(1, 3, 4)")],
            f"({T('(1, 3, 6)')}, {T('(1)', 'int32')})",
        ),
        (
            "vision.multibox_transform_loc(%a, %b, %c, threshold=0.02f, variances=[0.2f, 0.2f, 0.3f, 0.3f])",
            [T("(?, 5, 5)"), T("(?, 20)"), T("(1, 5, 4)")],
            f"({T('(?, 5, 6)')}, {T('(?)', 'int32')})",
        ),
        # test_proposal: (batch * rpn_post_nms_top_n, 5)
        (
            "vision.proposal(%a, %b, %c, scales=[0.5f], ratios=[0.5f], rpn_pre_nms_top_n=200, rpn_post_nms_top_n=4)",
            [T("(1, 2, 3, 3)"), T("(1, 4, 3, 3)"), T("(1, 3)")],
            T("(4, 5)"),
        ),
        ("vision.proposal(%a, %b, %c)", [T("(2, 24, 5, 5)"), T("(2, 48, 5, 5)"), T("(2, 3)")], T("(600, 5)")),
        # test_yolo_reorg_infer_shape / test_yolo_reorg
        ("vision.yolo_reorg(%a, stride=10)", [T("(?, ?, 20, 20)")], T("(?, ?, 2, 2)")),
        ("vision.yolo_reorg(%a, stride=2)", [T("(1, 4, 6, 6)")], T("(1, 16, 3, 3)")),
        ("vision.yolo_reorg(%a)", [T("(1, 3, 5, 5)", "bool")], T("(1, 3, 5, 5)", "bool")),
    ],
)
def test_result_type(call: str, types: list[str], expected: str) -> None:
    """ROIAlignRel, ROIPoolRel, MultiboxPriorRel, MultiBoxTransformLocRel,
    ProposalRel and YoloReorgRel."""
    assert FAMILY.result_type(call, types) == expected


@pytest.mark.parametrize(
    "variables, params, call, expected",
    [
        # test_yolo_reorg_infer_shape: (n, c, 20, 20) with stride 10 (h / 2 has no symbolic form here: ?)
        (
            "n : ShapeVar, c : ShapeVar",
            "%x: Tensor[(n, c, 20, 20), float32]",
            "vision.yolo_reorg(%x, stride=10)",
            T("(n, c * 100, 2, 2)"),
        ),
        (
            "n : ShapeVar, h : ShapeVar",
            "%x: Tensor[(n, 4, h, 6), float32]",
            "vision.yolo_reorg(%x, stride=2)",
            T("(n, 16, ?, 3)"),
        ),
        # test_multibox_transform_loc's test_threshold: a symbolic batch
        (
            "n : ShapeVar",
            "%a: Tensor[(n, 5, 5), float32], %b: Tensor[(n, 20), float32], %c: Tensor[(1, 5, 4), float32]",
            "vision.multibox_transform_loc(%a, %b, %c, threshold=0.02f, variances=[0.2f, 0.2f, 0.3f, 0.3f])",
            f"({T('(n, 5, 6)')}, {T('(n)', 'int32')})",
        ),
        (
            "h : ShapeVar",
            "%x: Tensor[(1, 3, h, 5), float32]",
            "vision.multibox_prior(%x, sizes=[1f, 2f])",
            T("(1, h * 10, 4)"),
        ),
        (
            "n : ShapeVar",
            "%a: Tensor[(n, 24, 5, 5), float32], %b: Tensor[(n, 48, 5, 5), float32], %c: Tensor[(n, 3), float32]",
            "vision.proposal(%a, %b, %c)",
            T("(n * 300, 5)"),
        ),
    ],
)
def test_sizes_follow_shape_variables(variables: str, params: str, call: str, expected: str) -> None:
    """Products of dimensions stay symbolic, as TVM's IndexExpr arithmetic keeps them."""
    from relay_text.ir.span import Source
    from relay_text.pipeline import check_source
    from relay_text.text.type_text import type_text

    checked = check_source(Source("t.rly", f"def @main<{variables}>({params}) {{\n  {call}\n}}\n"))
    assert [str(d) for d in checked.diagnostics] == []
    assert type_text(checked.result.global_type("main").ret_type) == expected


@pytest.mark.parametrize(
    "call, types, code, message, at",
    [
        (
            "vision.roi_align(%a, %b, pooled_size=[7, 7], spatial_scale=1f)",
            [T("(1, 4, 16, 16)"), T("(32, 4)")],
            "shape-mismatch",
            "`vision.roi_align` takes regions as rows of 5 values (batch index, x1, y1, x2, y2), found rows of 4",
            "%b",
        ),
        (
            'vision.roi_align(%a, %b, pooled_size=[7, 7], spatial_scale=1f, mode="sum")',
            [T("(1, 4, 16, 16)"), T("(32, 5)")],
            "type-mismatch",
            '`vision.roi_align` mode "sum" is not supported',
            'vision.roi_align(%a, %b, pooled_size=[7, 7], spatial_scale=1f, mode="sum")',
        ),
        (
            "vision.roi_align(%a, %b, pooled_size=[7, 7], spatial_scale=1f)",
            [T("(1, 4, 16, 16)", "int32"), T("(32, 5)")],
            "type-mismatch",
            "`vision.roi_align` takes data as floats, not `int32`",
            "%a",
        ),
        (
            'vision.roi_pool(%a, %b, pooled_size=[7, 7], spatial_scale=1f, layout="HWCN")',
            [T("(1, 4, 16, 16)"), T("(32, 5)")],
            "type-mismatch",
            '`vision.roi_pool`: layout "HWCN" is not supported',
            'vision.roi_pool(%a, %b, pooled_size=[7, 7], spatial_scale=1f, layout="HWCN")',
        ),
        (
            "vision.roi_pool(%a, %b, pooled_size=[7, 7], spatial_scale=1f)",
            [T("(4, 16, 16)"), T("(32, 5)")],
            "shape-mismatch",
            "`vision.roi_pool` takes 4-D data (NCHW), found (4, 16, 16)",
            "%a",
        ),
        (
            "vision.multibox_prior(%a, steps=[1f])",
            [T("(1, 3, 4, 4)")],
            "type-mismatch",
            "`vision.multibox_prior` steps takes 2 values, found 1",
            "vision.multibox_prior(%a, steps=[1f])",
        ),
        (
            "vision.multibox_transform_loc(%a, %b, %c)",
            [T("(1, 3, 3)"), T("(1, 8)"), T("(1, 3, 4)")],
            "shape-mismatch",
            "`vision.multibox_transform_loc`: the anchors need 12 location values, found 8",
            "%b",
        ),
        (
            "vision.multibox_transform_loc(%a, %b, %c)",
            [T("(1, 3, 3)"), T("(1, 12)"), T("(1, 4, 4)")],
            "shape-mismatch",
            "`vision.multibox_transform_loc`: the class probabilities cover 3 anchors, the anchor tensor 4",
            "%c",
        ),
        (
            "vision.proposal(%a, %b, %c, scales=[1f, 2f], ratios=[1f])",
            [T("(1, 2, 3, 3)"), T("(1, 8, 3, 3)"), T("(1, 3)")],
            "shape-mismatch",
            "`vision.proposal`: the class probabilities have 2 channels, but 2 anchors need 4",
            "%a",
        ),
        (
            "vision.proposal(%a, %b, %c)",
            [T("(1, 24, 3, 3)"), T("(1, 48, 3, 3)"), T("(1, 4)")],
            "shape-mismatch",
            "`vision.proposal` takes image information as rows of 3 values, found 4",
            "%c",
        ),
        (
            "vision.yolo_reorg(%a, stride=2)",
            [T("(1, 6, 4, 4)")],
            "shape-mismatch",
            "`vision.yolo_reorg` with stride 2 needs channels divisible by 4, found 6",
            "%a",
        ),
    ],
)
def test_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


# ---------------------------------------------------------------- roi_align


def roi_align_reference(
    data: np.ndarray, rois: np.ndarray, pooled: tuple, scale: float, ratio: int, mode: str
) -> np.ndarray:
    """torchvision's RoIAlign (aligned=False), point by point, with a max mode (NCHW)."""
    _, channels, height, width = data.shape
    ph, pw = pooled
    out = np.zeros((len(rois), channels, ph, pw))

    def bilinear(img: np.ndarray, y: float, x: float) -> np.ndarray:
        if y < -1.0 or y > height or x < -1.0 or x > width:
            return np.zeros(channels)
        y, x = max(y, 0.0), max(x, 0.0)
        y0, x0 = int(y), int(x)
        if y0 >= height - 1:
            y0 = y1 = height - 1
            y = float(y0)
        else:
            y1 = y0 + 1
        if x0 >= width - 1:
            x0 = x1 = width - 1
            x = float(x0)
        else:
            x1 = x0 + 1
        ly, lx = y - y0, x - x0
        return (
            (1 - ly) * (1 - lx) * img[:, y0, x0]
            + (1 - ly) * lx * img[:, y0, x1]
            + ly * (1 - lx) * img[:, y1, x0]
            + ly * lx * img[:, y1, x1]
        )

    for k, (b, x1, y1, x2, y2) in enumerate(rois.astype(np.float64)):
        img = data[int(b)].astype(np.float64)
        x1, y1, x2, y2 = x1 * scale, y1 * scale, x2 * scale, y2 * scale
        rh, rw = max(y2 - y1, 1.0), max(x2 - x1, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = ratio if ratio > 0 else math.ceil(rh / ph)
        gw = ratio if ratio > 0 else math.ceil(rw / pw)
        for i in range(ph):
            for j in range(pw):
                samples = [
                    bilinear(img, y1 + i * bh + (a + 0.5) * bh / gh, x1 + j * bw + (c + 0.5) * bw / gw)
                    for a in range(gh)
                    for c in range(gw)
                ]
                out[k, :, i, j] = np.mean(samples, axis=0) if mode == "avg" else np.max(samples, axis=0)
    return out


@pytest.mark.parametrize("scale, ratio", [(1.0, -1), (0.5, 2), (0.25, 0)])
@pytest.mark.parametrize("mode", ["avg", "max"])
def test_roi_align_against_loops(scale: float, ratio: int, mode: str) -> None:
    """test_roi_align's settings, smaller: regions spread over (and past) the image."""
    g = np.random.default_rng(int(scale * 8) + ratio)
    data = g.uniform(size=(3, 2, 9, 10)).astype(np.float32)
    rois = (g.uniform(-0.2, 1.2, (6, 5)) * 10 / scale).astype(np.float32)
    rois[:, 0] = g.integers(0, 3, 6)
    expected = roi_align_reference(data, rois, (3, 4), scale, ratio, mode).astype(np.float32)
    got = FAMILY.run(
        "vision.roi_align", data, rois, pooled_size=[3, 4], spatial_scale=scale, sample_ratio=ratio, mode=mode
    )
    same(got, expected, rtol=1e-4, atol=1e-5)
    nhwc = FAMILY.run(
        "vision.roi_align",
        data.transpose(0, 2, 3, 1).copy(),
        rois,
        pooled_size=[3, 4],
        spatial_scale=scale,
        sample_ratio=ratio,
        mode=mode,
        layout="NHWC",
    )
    same(nhwc, expected.transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-5)


def test_roi_align_by_hand() -> None:
    """One bin over x 0..2, y 0..2 of a ramp, two samples per axis at 0.5 and 1.5:
    the mean of the ramp there; a region past the image by more than a pixel reads 0."""
    data = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    got = FAMILY.run("vision.roi_align", data, f32([[0, 0, 0, 2, 2]]), pooled_size=[1, 1], spatial_scale=1.0)
    same(got, f32([[[[np.mean([4 * y + x for y in (0.5, 1.5) for x in (0.5, 1.5)])]]]]))
    got = FAMILY.run(
        "vision.roi_align", data, f32([[0, 6, 6, 8, 8]]), pooled_size=[1, 1], spatial_scale=1.0, sample_ratio=1
    )
    same(got, f32([[[[0.0]]]]))


# ---------------------------------------------------------------- roi_pool


def roi_pool_reference(data: np.ndarray, rois: np.ndarray, pooled: tuple, scale: float) -> np.ndarray:
    """Fast R-CNN's RoIPool as Caffe writes it, bin by bin (NCHW)."""
    _, channels, height, width = data.shape
    ph, pw = pooled
    out = np.zeros((len(rois), channels, ph, pw), dtype=data.dtype)
    for k, (b, x1, y1, x2, y2) in enumerate(rois):
        sx, sy, ex, ey = (int(math.floor(abs(v * scale) + 0.5) * (1 if v >= 0 else -1)) for v in (x1, y1, x2, y2))
        h, w = max(ey - sy + 1, 1), max(ex - sx + 1, 1)
        for i in range(ph):
            for j in range(pw):
                top = min(max(math.floor(i * h / ph + 1e-5) + sy, 0), height)
                bottom = min(max(math.ceil((i + 1) * h / ph - 1e-5) + sy, 0), height)
                left = min(max(math.floor(j * w / pw + 1e-5) + sx, 0), width)
                right = min(max(math.ceil((j + 1) * w / pw - 1e-5) + sx, 0), width)
                if top < bottom and left < right:
                    out[k, :, i, j] = data[int(b), :, top:bottom, left:right].max(axis=(1, 2))
    return out


@pytest.mark.parametrize("scale", [1.0, 0.5])
def test_roi_pool_against_loops(scale: float) -> None:
    g = np.random.default_rng(int(scale * 4))
    data = g.uniform(size=(2, 3, 12, 11)).astype(np.float32)
    rois = (g.uniform(-0.1, 1.1, (8, 5)) * 12 / scale).astype(np.float32)
    rois[:, 0] = g.integers(0, 2, 8)
    expected = roi_pool_reference(data, rois, (3, 2), scale)
    same(FAMILY.run("vision.roi_pool", data, rois, pooled_size=[3, 2], spatial_scale=scale), expected)
    nhwc = FAMILY.run(
        "vision.roi_pool",
        data.transpose(0, 2, 3, 1).copy(),
        rois,
        pooled_size=[3, 2],
        spatial_scale=scale,
        layout="NHWC",
    )
    same(nhwc, expected.transpose(0, 2, 3, 1))


def test_roi_pool_integers_and_empty_bins() -> None:
    """Integer data pools exactly; a bin entirely outside the image gives 0."""
    data = np.arange(16, dtype=np.int32).reshape(1, 1, 4, 4) - 20
    got = FAMILY.run(
        "vision.roi_pool", data, f32([[0, 0, 0, 3, 3], [0, 3, 3, 6, 6]]), pooled_size=[2, 2], spatial_scale=1.0
    )
    # region 2: x and y 3..6 are 4 pixels, bins of 2: only the first bin touches the image
    same(got, np.array([[[[-15, -13], [-7, -5]]], [[[-5, 0], [0, 0]]]], dtype=np.int32))


def test_roi_checks_batch_indices() -> None:
    with pytest.raises(KernelError) as err:
        FAMILY.run(
            "vision.roi_pool",
            np.zeros((1, 1, 4, 4), np.float32),
            f32([[1, 0, 0, 1, 1]]),
            pooled_size=[1, 1],
            spatial_scale=1.0,
        )
    assert err.value.message == "`vision.roi_pool`: region 0 names image 1, but there are 1"


# ---------------------------------------------------------------- multibox


def prior_reference(
    h: int, w: int, sizes: tuple, ratios: tuple, steps: tuple, offsets: tuple, clip: bool
) -> np.ndarray:
    rows = []
    step_h = steps[0] if steps[0] > 0 else 1.0 / h
    step_w = steps[1] if steps[1] > 0 else 1.0 / w
    for i in range(h):
        for j in range(w):
            cy, cx = (i + offsets[0]) * step_h, (j + offsets[1]) * step_w
            shapes = [(s * h / w / 2, s / 2) for s in sizes] + [
                (sizes[0] * h / w * math.sqrt(r) / 2, sizes[0] / math.sqrt(r) / 2) for r in ratios[1:]
            ]
            rows += [[cx - hw, cy - hh, cx + hw, cy + hh] for hw, hh in shapes]
    out = np.array([rows])
    return np.clip(out, 0, 1) if clip else out


@pytest.mark.parametrize(
    "shape, sizes, ratios, steps, offsets, clip",
    [
        ((1, 3, 5, 7), (0.3, 1.5, 0.7), (1.3, 2.4), (2.0, 1.5), (0.2, 0.3), True),
        ((1, 24, 4, 4), (1.0,), (1.0,), (-1.0, -1.0), (0.5, 0.5), False),
        ((1, 3, 6, 3), (0.5, 0.25, 0.1), (1.0, 2.0, 0.5), (-1.0, -1.0), (0.5, 0.5), False),
    ],
)
def test_multibox_prior_against_loops(
    shape: tuple, sizes: tuple, ratios: tuple, steps: tuple, offsets: tuple, clip: bool
) -> None:
    """test_multibox_prior's settings (test_op_level5.py, test_topi_vision.py), on smaller maps."""
    got = FAMILY.run(
        "vision.multibox_prior",
        np.zeros(shape, np.float32),
        sizes=list(sizes),
        ratios=list(ratios),
        steps=list(steps),
        offsets=list(offsets),
        clip=clip,
    )
    same(
        got,
        prior_reference(shape[2], shape[3], sizes, ratios, steps, offsets, clip).astype(np.float32),
        rtol=1e-6,
        atol=1e-7,
    )


CLS = f32([[[0.2, 0.5, 0.3], [0.25, 0.3, 0.45], [0.7, 0.1, 0.2]]])
LOC = f32([[0.1, -0.2, 0.3, 0.2, 0.2, 0.4, 0.5, -0.3, 0.7, -0.2, -0.4, -0.8]])
ANCHORS = f32([[[-0.1, -0.1, 0.1, 0.1], [-0.2, -0.2, 0.2, 0.2], [1.2, 1.2, 1.5, 1.5]]])
BOX0 = [0, 0, 0.10818365, 0.10008108]
BOX1 = [0, 0, 0.22903419, 0.20435292]


@pytest.mark.parametrize(
    "keep, decoded, count",
    [
        # anchors 0, 2 and 1 take classes 2, 1 and 2 (counted from class 1); anchor 1's best, 0.3, beats 0.25
        (False, [[1, 0.7, *BOX0], [0, 0.3, *BOX1], [0, 0.45, 1, 1, 1, 1]], 3),
        (True, [[2, 0.7, *BOX0], [0, 0.5, *BOX1], [1, 0.45, 1, 1, 1, 1]], 3),
    ],
)
def test_multibox_transform_loc_tvm_case(keep: bool, decoded: list, count: int) -> None:
    """test_multibox_transform_loc's data; after non_max_suppression (iou 0.5) the
    rows are TVM's expected output, sorted by score."""
    out, valid = FAMILY.run("vision.multibox_transform_loc", CLS, LOC, ANCHORS, keep_background=keep)
    same(out, f32([decoded]), rtol=1e-5)
    same(valid, np.array([count], np.int32))
    nms = get_kernel("vision.non_max_suppression")
    final = nms(
        (out, valid, out, np.array(-1, np.int32), f32(0.5)),
        {
            "force_suppress": False,
            "top_k": -1,
            "coord_start": 2,
            "score_index": 1,
            "id_index": 0,
            "return_indices": False,
            "invalid_to_bottom": False,
        },
    )
    expected = sorted(decoded, key=lambda r: -r[1])
    same(final, f32([expected]), rtol=1e-5)


def get_kernel(name: str):
    from relay_text.ops import get

    op = get(name)
    assert op is not None
    return op.kernel


def test_multibox_transform_loc_threshold_and_padding() -> None:
    """A best class scoring below threshold becomes background and the anchor is
    dropped; rows below the valid ones are -1. Without clip the boxes may leave [0, 1]."""
    cls = f32(
        [[[0.1, 0.9], [0.6, 0.05], [0.3, 0.05]]]
    )  # anchor 0: class 1 (0.6); anchor 1: class 1 (0.05, the tie keeps the lower class) < 0.1
    loc = np.zeros((1, 8), np.float32)
    anchors = f32([[[-0.5, 0.0, 0.5, 1.0], [0.2, 0.2, 0.4, 0.4]]])
    out, valid = FAMILY.run("vision.multibox_transform_loc", cls, loc, anchors, threshold=0.1, clip=False)
    same(valid, np.array([1], np.int32))
    same(out, f32([[[0, 0.6, -0.5, 0.0, 0.5, 1.0], [-1] * 6]]))


# ---------------------------------------------------------------- proposal

PROPOSAL_ATTRS = {
    "scales": [0.5],
    "ratios": [0.5],
    "feature_stride": 16,
    "rpn_min_size": 16,
    "threshold": 0.7,
    "rpn_pre_nms_top_n": 200,
    "rpn_post_nms_top_n": 4,
}
CLS_PROB = f32(
    [[[[0.3, 0.6, 0.2], [0.4, 0.7, 0.5], [0.1, 0.4, 0.3]], [[0.7, 0.5, 0.3], [0.6, 0.4, 0.8], [0.9, 0.2, 0.5]]]]
)
BBOX_PRED = f32(
    [
        [
            [[0.5, 1.0, 0.6], [0.8, 1.2, 2.0], [0.9, 1.0, 0.8]],
            [[0.5, 1.0, 0.7], [0.8, 1.2, 1.6], [2.1, 1.5, 0.7]],
            [[1.0, 0.5, 0.7], [1.5, 0.9, 1.6], [1.4, 1.5, 0.8]],
            [[1.0, 0.5, 0.6], [1.5, 0.9, 2.0], [1.8, 1.0, 0.9]],
        ]
    ]
)
IM_INFO = f32([[48.0, 48.0, 1.0]])


@pytest.mark.parametrize(
    "iou_loss, expected",
    [
        (
            False,
            [
                [0.0, 0.0, 2.8451548, 28.38012, 18.154846],
                [0.0, 0.0, 15.354933, 41.96971, 41.245064],
                [0.0, 18.019852, 1.0538368, 51.98015, 25.946163],
                [0.0, 27.320923, -1.266357, 55.0, 24.666357],
            ],
        ),
        (
            True,
            [
                [0.0, -5.25, -2.5, 21.75, 19.0],
                [0.0, 11.25, -2.0, 37.25, 18.5],
                [0.0, 26.849998, -2.3000002, 53.45, 18.6],
                [0.0, -4.95, 13.799999, 22.25, 35.5],
            ],
        ),
    ],
)
def test_proposal_tvm_case(iou_loss: bool, expected: list) -> None:
    """test_proposal's data and expected rows (test_op_level5.py)."""
    got = FAMILY.run("vision.proposal", CLS_PROB, BBOX_PRED, IM_INFO, iou_loss=iou_loss, **PROPOSAL_ATTRS)
    same(got, f32(expected), rtol=1e-4, atol=1e-5)


def test_proposal_repeats_survivors_to_fill_the_output() -> None:
    """With more rows than surviving boxes, the survivors repeat in order; a
    second batch gets its own rows, with its index in column 0."""
    one = FAMILY.run("vision.proposal", CLS_PROB, BBOX_PRED, IM_INFO, **{**PROPOSAL_ATTRS, "rpn_post_nms_top_n": 12})
    assert one.shape == (12, 5)
    kept = len({tuple(r) for r in one.tolist()})
    same(one, np.resize(one[:kept], (12, 5)))
    two = FAMILY.run(
        "vision.proposal",
        np.concatenate([CLS_PROB] * 2),
        np.concatenate([BBOX_PRED] * 2),
        np.concatenate([IM_INFO] * 2),
        **PROPOSAL_ATTRS,
    )
    same(two[:4], two[4:] - f32([1, 0, 0, 0, 0]))


# ---------------------------------------------------------------- yolo_reorg


def reorg_reference(x: np.ndarray, stride: int) -> np.ndarray:
    """darknet's reorg_cpu (forward=0), element by element."""
    batch, channels, height, width = x.shape
    flat = x.reshape(-1)
    out_c = channels // (stride * stride)
    out = []
    for b in range(batch):
        for k in range(channels):
            for j in range(height):
                for i in range(width):
                    c2, offset = k % out_c, k // out_c
                    w2, h2 = i * stride + offset % stride, j * stride + offset // stride
                    out.append(flat[w2 + width * stride * (h2 + height * stride * (c2 + out_c * b))])
    return np.array(out, dtype=x.dtype).reshape(batch, channels * stride * stride, height // stride, width // stride)


@pytest.mark.parametrize(
    "shape, stride, dtype",
    [((2, 8, 4, 6), 2, "float32"), ((1, 9, 6, 3), 3, "int32"), ((2, 4, 2, 2), 2, "bool"), ((1, 3, 2, 2), 1, "int8")],
)
def test_yolo_reorg_against_loops(shape: tuple, stride: int, dtype: str) -> None:
    x = (np.random.default_rng(1).standard_normal(shape) * 5).astype(dtype)
    same(FAMILY.run("vision.yolo_reorg", x, stride=stride), reorg_reference(x, stride))


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
