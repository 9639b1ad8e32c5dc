"""Moving elements between axes and padding by mirror images or run-time
widths: `nn.depth_to_space`, `nn.space_to_depth`, `nn.space_to_batch_nd`,
`nn.batch_to_space_nd`, `nn.mirror_pad`, `dyn.nn.pad`. Result types from
TVM's tests, rejected calls, kernels against PyTorch (`pixel_shuffle`,
`F.pad`) and against loops written from TOPI's index formulas."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from relay_text.ir.span import Source
from relay_text.ops import KernelError
from relay_text.pipeline import check_source
from relay_text.text.type_text import type_text
from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family(
    "nn.depth_to_space",
    "nn.space_to_depth",
    "nn.space_to_batch_nd",
    "nn.batch_to_space_nd",
    "nn.mirror_pad",
    "dyn.nn.pad",
)


def torch():
    torch_reference()  # skips without PyTorch
    import torch as t

    return t


RESULTS = [
    # tests/python/relay/test_op_level5.py test_depth_to_space / test_space_to_depth
    ('nn.depth_to_space(%a, block_size=2, layout="NCHW", mode="DCR")', [T("(1, 4, 4, 4)")], T("(1, 1, 8, 8)")),
    ('nn.depth_to_space(%a, block_size=2, layout="NHWC", mode="CDR")', [T("(1, 4, 4, 4)")], T("(1, 8, 8, 1)")),
    ("nn.space_to_depth(%a, block_size=2)", [T("(1, 4, 4, 4)")], T("(1, 16, 2, 2)")),
    ('nn.space_to_depth(%a, block_size=2, layout="NHWC")', [T("(1, 4, 4, 4)", "int8")], T("(1, 2, 2, 16)", "int8")),
    # the channel count and the spatial sizes are divided rounding down (truncdiv in TOPI)
    ("nn.depth_to_space(%a, block_size=2)", [T("(1, 7, 2, 3)")], T("(1, 1, 4, 6)")),
    ("nn.space_to_depth(%a, block_size=3)", [T("(2, 1, 7, 5)", "bool")], T("(2, 9, 2, 1)", "bool")),
    ("nn.depth_to_space(%a)", [T("(?, 3, ?, 5)")], T("(?, 3, ?, 5)")),
    ("nn.depth_to_space(%a, block_size=2)", [T("(?, 8, ?, 5)")], T("(?, 2, ?, 10)")),
    # test_space_to_batch_nd / test_batch_to_space_nd
    ("nn.space_to_batch_nd(%a, block_shape=[3], paddings=[[0, 0]])", [T("(3, 3, 2, 1)")], T("(9, 1, 2, 1)")),
    ("nn.space_to_batch_nd(%a, block_shape=[2, 2], paddings=[[0, 0], [2, 0]])", [T("(2, 2, 4, 1)")], T("(8, 1, 3, 1)")),
    ("nn.batch_to_space_nd(%a, block_shape=[2, 2], crops=[[0, 0], [0, 0]])", [T("(4, 1, 1, 3)")], T("(1, 2, 2, 3)")),
    (
        "nn.batch_to_space_nd(%a, block_shape=[2, 2], crops=[[0, 0], [2, 0]])",
        [T("(8, 1, 3, 1)", "int32")],
        T("(2, 2, 4, 1)", "int32"),
    ),
    # tests/python/relay/test_any.py test_any_mirror_pad
    (
        "nn.mirror_pad(%a, pad_width=[[0, 0], [0, 0], [1, 1], [1, 1]])",
        [T("(1, 256, 232, 232)")],
        T("(1, 256, 234, 234)"),
    ),
    ('nn.mirror_pad(%a, mode="REFLECT", pad_width=[[2, 0], [0, 1]])', [T("(3, ?)", "int8")], T("(5, ?)", "int8")),
    # tests/python/relay/dyn/test_dynamic_op_level2.py test_dyn_pad: every size is known at run time only
    ("dyn.nn.pad(%a, %b, %c)", [T("(4, 10, 7, 7)"), T("(4, 2)", "int64"), T("()")], T("(?, ?, ?, ?)")),
    ('dyn.nn.pad(%a, %b, 0, pad_mode="edge")', [T("(2, 3)", "int32"), T("(2, 2)", "int32")], T("(?, ?)", "int32")),
]


@pytest.mark.parametrize("call, types, expected", RESULTS, ids=[c[0] for c in RESULTS])
def test_result_types(call: str, types: list[str], expected: str) -> None:
    """DepthToSpaceRel, SpaceToDepthRel, SpaceToBatchNDRel, BatchToSpaceNDRel (src/relay/op/nn/nn.cc),
    MirrorPadRel (src/relay/op/nn/pad.cc), dyn PadRel (src/relay/op/dyn/nn/pad.cc)."""
    assert FAMILY.result_type(call, types) == expected


@pytest.mark.parametrize(
    "variables, params, call, expected",
    [
        (
            "n : ShapeVar, h : ShapeVar",
            "%a: Tensor[(n, 8, h, 3), float32]",
            "nn.depth_to_space(%a, block_size=2)",
            T("(n, 2, h * 2, 6)"),
        ),
        (
            "c : ShapeVar, h : ShapeVar",
            "%a: Tensor[(1, c, h, 4), float32]",
            "nn.space_to_depth(%a, block_size=2)",
            T("(1, c * 4, ?, 2)"),
        ),
        (
            "n : ShapeVar",
            "%a: Tensor[(n, 4, 4, 1), float32]",
            "nn.space_to_batch_nd(%a, block_shape=[2, 2], paddings=[[0, 0], [0, 0]])",
            T("(n * 4, 2, 2, 1)"),
        ),
        (
            "w : ShapeVar",
            "%a: Tensor[(4, 1, w, 3), float32]",
            "nn.batch_to_space_nd(%a, block_shape=[2, 2], crops=[[0, 0], [1, 0]])",
            T("(1, 2, w * 2 - 1, 3)"),
        ),
        (
            "h : ShapeVar",
            "%a: Tensor[(h, 3), int8]",
            "nn.mirror_pad(%a, pad_width=[[1, 2], [0, 0]])",
            T("(h + 3, 3)", "int8"),
        ),
    ],
)
def test_sizes_follow_shape_variables(variables: str, params: str, call: str, expected: str) -> None:
    """Products and sums of dimensions stay symbolic, as TVM's IndexExpr arithmetic keeps them
    (divisions become `?`)."""
    checked = check_source(Source("t.rly", f"def @main<{variables}>({params}) {{\n  {call}\n}}\n"))
    assert [str(d) for d in checked.diagnostics] == []
    assert type_text(checked.result.global_type("main").ret_type) == expected


ERRORS = [
    (
        'nn.depth_to_space(%a, block_size=2, layout="NCWH")',
        [T("(1, 4, 4, 4)")],
        "type-mismatch",
        '`nn.depth_to_space`: layout "NCWH" is not supported',
        None,
    ),
    (
        'nn.depth_to_space(%a, block_size=2, mode="CRD")',
        [T("(1, 4, 4, 4)")],
        "type-mismatch",
        '`nn.depth_to_space` mode must be "DCR" or "CDR", found "CRD"',
        None,
    ),
    (
        "nn.space_to_depth(%a, block_size=0)",
        [T("(1, 4, 4, 4)")],
        "type-mismatch",
        "`nn.space_to_depth` block_size must be positive, found 0",
        None,
    ),
    (
        "nn.space_to_depth(%a, block_size=2)",
        [T("(4, 4, 4)")],
        "shape-mismatch",
        "`nn.space_to_depth` needs 4-D data (NCHW), found (4, 4, 4)",
        "%a",
    ),
    (
        "nn.space_to_batch_nd(%a, block_shape=[2, 2], paddings=[[0, 0], [1, 0]])",
        [T("(1, 4, 4, 1)")],
        "shape-mismatch",
        "`nn.space_to_batch_nd`: axis 2 has size 5 after padding, which is not a multiple of its block size 2",
        "%a",
    ),
    (
        "nn.space_to_batch_nd(%a, block_shape=[2, 2], paddings=[[0, 0]])",
        [T("(1, 4, 4, 1)")],
        "type-mismatch",
        (
            "`nn.space_to_batch_nd` needs one [before, after] pair of paddings per block axis: block_shape has "
            "2 values, paddings 1 pairs"
        ),
        None,
    ),
    (
        "nn.batch_to_space_nd(%a, block_shape=[2, 2], crops=[[0, 0], [0, 0]])",
        [T("(6, 1, 1, 3)")],
        "shape-mismatch",
        "`nn.batch_to_space_nd`: the batch of 6 is not a multiple of 4, the product of block_shape [2, 2]",
        "%a",
    ),
    (
        "nn.batch_to_space_nd(%a, block_shape=[2], crops=[[1, 1]])",
        [T("(4, 1, 3)")],
        "shape-mismatch",
        "`nn.batch_to_space_nd`: crops [1, 1] leave nothing of axis 1, which has size 1 * 2 = 2",
        "%a",
    ),
    (
        "nn.batch_to_space_nd(%a, block_shape=[2, 2], crops=[[0, 0], [0, 0]])",
        [T("(4, 3)")],
        "shape-mismatch",
        "`nn.batch_to_space_nd` needs data of rank at least 3 (the batch and 2 block axes), found (4, 3)",
        "%a",
    ),
    (
        "nn.mirror_pad(%a, pad_width=[[0, 4], [0, 0]])",
        [T("(3, 2)")],
        "shape-mismatch",
        '`nn.mirror_pad` with mode="SYMMETRIC" needs widths at most 3 on axis 0, found [0, 4]',
        "%a",
    ),
    (
        'nn.mirror_pad(%a, mode="REFLECT", pad_width=[[0, 0], [2, 0]])',
        [T("(3, 2)")],
        "shape-mismatch",
        '`nn.mirror_pad` with mode="REFLECT" needs widths smaller than 2 on axis 1, found [2, 0]',
        "%a",
    ),
    (
        "nn.mirror_pad(%a, pad_width=[[1, -1]])",
        [T("(3)")],
        "type-mismatch",
        "`nn.mirror_pad` widths cannot be negative, found [[1, -1]]",
        None,
    ),
    (
        'nn.mirror_pad(%a, mode="EDGE", pad_width=[[1, 1]])',
        [T("(3)")],
        "type-mismatch",
        '`nn.mirror_pad` mode must be "SYMMETRIC" or "REFLECT", found "EDGE"',
        None,
    ),
    (
        "nn.mirror_pad(%a, pad_width=[[1, 1]])",
        [T("(3, 3)")],
        "shape-mismatch",
        "`nn.mirror_pad` needs one [before, after] pair per axis: the data has rank 2, pad_width has 1 pairs",
        "%a",
    ),
    (
        "dyn.nn.pad(%a, %b, 0f)",
        [T("(2, 3)"), T("(3, 2)", "int64")],
        "shape-mismatch",
        "`dyn.nn.pad` takes pad widths of shape (2, 2), one [before, after] row per axis of the data; found (3, 2)",
        "%b",
    ),
    (
        "dyn.nn.pad(%a, %b, 0f)",
        [T("(2, 3)"), T("(2, 2)", "float32")],
        "type-mismatch",
        "`dyn.nn.pad` takes integer pad widths, found `float32`",
        "%b",
    ),
    (
        "dyn.nn.pad(%a, %b, %c)",
        [T("(2, 3)"), T("(2, 2)", "int64"), T("(1)")],
        "shape-mismatch",
        "`dyn.nn.pad` takes a scalar pad value, found a tensor of shape (1)",
        "%c",
    ),
    (
        'dyn.nn.pad(%a, %b, 0f, pad_mode="wrap")',
        [T("(2, 3)"), T("(2, 2)", "int64")],
        "type-mismatch",
        '`dyn.nn.pad` pad_mode must be "constant", "edge" or "reflect", found "wrap"',
        None,
    ),
]


@pytest.mark.parametrize("call, types, code, message, at", ERRORS, ids=[e[0] for e in ERRORS])
def test_rejections(call: str, types: list[str], code: str, message: str, at: str | None) -> None:
    """TOPI's checks turned into type errors: a padded size must be a multiple of its block
    (space_to_batch_nd) and crops must leave an element (batch_to_space_nd), include/tvm/topi/nn.h;
    mirror widths within one reflection, python/tvm/topi/nn/pad.py."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    assert d.span.text == (at or call)


# ---------------------------------------------------------------- depth <-> space


def loop_depth_to_space(x, b, mode):
    """python/tvm/topi/nn/depth_to_space.py, NCHW, pixel by pixel."""
    n_, c_, h_, w_ = x.shape
    cf = c_ // (b * b)
    out = np.zeros((n_, cf, h_ * b, w_ * b), dtype=x.dtype)
    for n, c, y, z in itertools.product(range(n_), range(cf), range(h_ * b), range(w_ * b)):
        i, j = y % b, z % b
        k = cf * (b * i + j) + c if mode == "DCR" else c * b * b + b * i + j
        out[n, c, y, z] = x[n, k, y // b, z // b]
    return out


def loop_space_to_depth(x, b):
    """python/tvm/topi/nn/space_to_depth.py, NCHW."""
    n_, c_, h_, w_ = x.shape
    out = np.zeros((n_, c_ * b * b, h_ // b, w_ // b), dtype=x.dtype)
    for n, k, y, z in itertools.product(range(n_), range(c_ * b * b), range(h_ // b), range(w_ // b)):
        offset, c = divmod(k, c_)
        out[n, k, y, z] = x[n, c, y * b + offset // b, z * b + offset % b]
    return out


def test_depth_to_space_cdr_is_pixel_shuffle() -> None:
    t = torch()
    x = np.random.default_rng(0).standard_normal((2, 18, 3, 4)).astype(np.float32)
    same(
        FAMILY.run("nn.depth_to_space", x, block_size=3, mode="CDR"),
        t.nn.functional.pixel_shuffle(t.from_numpy(x), 3).numpy(),
    )


@pytest.mark.parametrize("mode", ["DCR", "CDR"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
def test_depth_to_space_against_loops(mode: str, dtype: str) -> None:
    """Channels past the last whole group of block_size**2 are dropped (truncdiv of C)."""
    x = np.random.default_rng(1).integers(0, 9, (2, 9, 2, 3)).astype(dtype)
    same(FAMILY.run("nn.depth_to_space", x, block_size=2, mode=mode), loop_depth_to_space(x, 2, mode))
    nhwc = x.transpose(0, 2, 3, 1)
    got = FAMILY.run("nn.depth_to_space", nhwc, block_size=2, mode=mode, layout="NHWC")
    same(got, loop_depth_to_space(x, 2, mode).transpose(0, 2, 3, 1))


@pytest.mark.parametrize("dtype", ["float32", "uint8", "bool"])
def test_space_to_depth_against_loops(dtype: str) -> None:
    x = np.random.default_rng(2).integers(0, 9, (1, 3, 5, 7)).astype(dtype)
    same(FAMILY.run("nn.space_to_depth", x, block_size=2), loop_space_to_depth(x, 2))
    nhwc = x.transpose(0, 2, 3, 1)
    same(
        FAMILY.run("nn.space_to_depth", nhwc, block_size=2, layout="NHWC"),
        loop_space_to_depth(x, 2).transpose(0, 2, 3, 1),
    )


def test_space_to_depth_inverts_dcr_depth_to_space() -> None:
    x = np.arange(2 * 4 * 3 * 3, dtype=np.float32).reshape(2, 4, 3, 3)
    same(FAMILY.run("nn.space_to_depth", FAMILY.run("nn.depth_to_space", x, block_size=2), block_size=2), x)


# ---------------------------------------------------------------- space <-> batch


def loop_space_to_batch(x, block, pads, value):
    """include/tvm/topi/nn.h space_to_batch_nd: output batch = offset * B + b, offsets row-major."""
    m = len(block)
    padded = np.pad(x, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (x.ndim - m - 1), constant_values=value)
    spatial = [padded.shape[i + 1] // b for i, b in enumerate(block)]
    out = np.zeros((x.shape[0] * int(np.prod(block)), *tuple(spatial), *x.shape[m + 1 :]), dtype=x.dtype)
    for offset_index, offsets in enumerate(itertools.product(*(range(b) for b in block))):
        for b in range(x.shape[0]):
            for cell in itertools.product(*(range(s) for s in spatial)):
                src = (b, *tuple(c * bs + o for c, bs, o in zip(cell, block, offsets, strict=False)))
                out[(offset_index * x.shape[0] + b, *cell)] = padded[src]
    return out


def test_space_and_batch_by_hand() -> None:
    """The examples of nn.space_to_batch_nd and nn.batch_to_space_nd in src/relay/op/nn/nn.cc."""
    x = np.array([[[[1], [2]], [[3], [4]]]], dtype=np.float32)
    batched = FAMILY.run("nn.space_to_batch_nd", x, block_shape=[2, 2], paddings=[[0, 0], [0, 0]])
    same(batched, np.array([[[[1]]], [[[2]]], [[[3]]], [[[4]]]], dtype=np.float32))
    same(FAMILY.run("nn.batch_to_space_nd", batched, block_shape=[2, 2], crops=[[0, 0], [0, 0]]), x)


@pytest.mark.parametrize("dtype", ["float32", "int16", "bool"])
def test_space_to_batch_against_loops(dtype: str) -> None:
    """pad_value is converted to the data's dtype (make_const in SpaceToBatchNDCompute)."""
    x = np.random.default_rng(3).integers(0, 5, (2, 3, 4, 2)).astype(dtype)
    attrs = {"block_shape": [2, 3], "paddings": [[1, 0], [0, 2]], "pad_value": 7.5}
    got = FAMILY.run("nn.space_to_batch_nd", x, **attrs)
    same(got, loop_space_to_batch(x, [2, 3], [[1, 0], [0, 2]], np.asarray(7.5).astype(dtype)))
    back = FAMILY.run("nn.batch_to_space_nd", got, block_shape=[2, 3], crops=[[1, 0], [0, 2]])
    same(back, x)


def test_batch_to_space_with_crops_against_loops() -> None:
    g = np.random.default_rng(4)
    x = g.standard_normal((8, 1, 3, 2)).astype(np.float32)
    full = np.zeros((2, 2, 6, 2), dtype=np.float32)
    for k, (i, j) in enumerate(itertools.product(range(2), range(2))):
        for b in range(2):
            full[b, i::2, j::2] = x[k * 2 + b]  # batch k * B + b holds block offset (i, j)
    same(FAMILY.run("nn.batch_to_space_nd", x, block_shape=[2, 2], crops=[[0, 0], [2, 0]]), full[:, :, 2:])


# ---------------------------------------------------------------- mirror_pad


def loop_mirror_pad(x, widths, mode):
    """python/tvm/topi/nn/pad.py mirror_pad: one reflection, with (SYMMETRIC) or without the edge."""
    extra = 1 if mode == "SYMMETRIC" else 0
    out = np.zeros(tuple(d + b + a for d, (b, a) in zip(x.shape, widths, strict=False)), dtype=x.dtype)
    for index in itertools.product(*(range(n) for n in out.shape)):
        src = []
        for i, (b, _), d in zip(index, widths, x.shape, strict=False):
            k = i - b
            if k < 0:
                k = -k - extra
            elif k >= d:
                k = 2 * (d - 1) - k + extra
            src.append(k)
        out[index] = x[tuple(src)]
    return out


def test_mirror_pad_reflect_against_torch() -> None:
    t = torch()
    x = np.random.default_rng(5).standard_normal((2, 3, 5, 6)).astype(np.float32)
    ref = t.nn.functional.pad(t.from_numpy(x), (2, 5, 4, 1), mode="reflect").numpy()
    same(FAMILY.run("nn.mirror_pad", x, mode="REFLECT", pad_width=[[0, 0], [0, 0], [4, 1], [2, 5]]), ref)


@pytest.mark.parametrize("mode", ["SYMMETRIC", "REFLECT"])
@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_mirror_pad_against_loops(mode: str, dtype: str) -> None:
    x = np.random.default_rng(6).integers(0, 9, (3, 4)).astype(dtype)
    widths = [[2, 3], [3, 0]] if mode == "SYMMETRIC" else [[2, 1], [0, 3]]
    same(FAMILY.run("nn.mirror_pad", x, mode=mode, pad_width=widths), loop_mirror_pad(x, widths, mode))


def test_mirror_pad_by_hand() -> None:
    x = np.array([1, 2, 3], dtype=np.int8)
    same(FAMILY.run("nn.mirror_pad", x, pad_width=[[2, 3]]), np.array([2, 1, 1, 2, 3, 3, 2, 1], np.int8))
    same(FAMILY.run("nn.mirror_pad", x, mode="REFLECT", pad_width=[[2, 2]]), np.array([3, 2, 1, 2, 3, 2, 1], np.int8))


# ---------------------------------------------------------------- dyn.nn.pad


def test_dyn_pad_against_torch() -> None:
    """Widths read from the tensor; negative ones crop, as nn.pad's do."""
    t = torch()
    F = t.nn.functional
    x = np.random.default_rng(7).standard_normal((2, 3, 4)).astype(np.float32)
    widths = np.array([[0, 0], [1, -1], [2, 3]], dtype=np.int64)
    value = np.array(1.5, dtype=np.float32)
    same(FAMILY.run("dyn.nn.pad", x, widths, value), F.pad(t.from_numpy(x), (2, 3, 1, -1), value=1.5).numpy())
    reflect = np.array([[0, 0], [2, 1], [3, 1]], dtype=np.int32)
    ref = F.pad(t.from_numpy(x)[None], (3, 1, 2, 1), mode="reflect").numpy()[0]
    same(FAMILY.run("dyn.nn.pad", x, reflect, value, pad_mode="reflect"), ref)
    ref = F.pad(t.from_numpy(x)[None], (3, 1, 2, 1), mode="replicate").numpy()[0]
    same(FAMILY.run("dyn.nn.pad", x, reflect, value, pad_mode="edge"), ref)


def test_dyn_pad_integers_and_run_time_errors() -> None:
    """The pad value is converted to the data's dtype (topi::cast in the dyn PadCompute)."""
    x = np.array([[1, 2], [3, 4]], dtype=np.int32)
    got = FAMILY.run("dyn.nn.pad", x, np.array([[1, 0], [0, 1]], np.int64), np.array(-2.7, np.float32))
    same(got, np.array([[-2, -2, -2], [1, 2, -2], [3, 4, -2]], np.int32))
    # widths that cut more than an axis holds still give an all-padding row: out[i] = x[i - before]
    same(
        FAMILY.run("dyn.nn.pad", x, np.array([[-3, 2], [0, 0]], np.int64), np.array(9, np.int32)),
        np.array([[9, 9]], np.int32),
    )
    with pytest.raises(KernelError, match=r"removes more than axis 0 holds: size 2 with widths \[-3, 0\]"):
        FAMILY.run("dyn.nn.pad", x, np.array([[-3, 0], [0, 0]], np.int64), np.array(0, np.int32))
    with pytest.raises(KernelError, match='pad_mode="reflect" needs widths smaller than the axis: axis 1 has size 2'):
        FAMILY.run("dyn.nn.pad", x, np.array([[0, 0], [2, 0]], np.int64), np.array(0, np.int32), pad_mode="reflect")
    with pytest.raises(KernelError, match='pad_mode="edge" cannot extend the empty axis 0'):
        FAMILY.run("dyn.nn.pad", x, np.array([[-2, 1], [0, 0]], np.int64), np.array(0, np.int32), pad_mode="edge")


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
