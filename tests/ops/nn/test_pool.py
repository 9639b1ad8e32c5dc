"""Pooling in 1-D and 3-D, adaptive pooling in 1-D and 3-D, and the
gradients of 2-D pooling: result types (from TVM's tests), rejected calls
(codes, messages, locations), kernels against PyTorch and against plain
loops written from TVM's definitions (include/tvm/topi/nn/pooling.h)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family(
    "nn.max_pool1d",
    "nn.avg_pool1d",
    "nn.max_pool3d",
    "nn.avg_pool3d",
    "nn.adaptive_avg_pool1d",
    "nn.adaptive_max_pool1d",
    "nn.adaptive_avg_pool3d",
    "nn.adaptive_max_pool3d",
    "nn.max_pool2d_grad",
    "nn.avg_pool2d_grad",
)


def torch():
    torch_reference()  # skips without PyTorch
    import torch as t

    return t


def trunc_div(a: int, b: int) -> int:
    q = abs(a) // b
    return q if a >= 0 else -q


def lowest(dtype) -> object:
    dtype = np.dtype(dtype)
    return False if dtype.kind == "b" else np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def loop_pool(x, k, s, d, before, after, ceil, kind, include=False):
    """Windowed pooling of (N, C, *spatial) data, one output cell at a time."""
    spatial = x.shape[2:]
    outs = [
        (L + b + a - dd * (kk - 1) - 1 + (ss - 1 if ceil else 0)) // ss + 1
        for L, kk, ss, dd, b, a in zip(spatial, k, s, d, before, after, strict=False)
    ]
    out = np.zeros(x.shape[:2] + tuple(outs), dtype=x.dtype)
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for o in itertools.product(*(range(v) for v in outs)):
            best, total, count = None, 0, 0
            for tap in itertools.product(*(range(v) for v in k)):
                pos = [oi * si + ti * di - bi for oi, si, ti, di, bi in zip(o, s, tap, d, before, strict=False)]
                inside = all(0 <= p < L for p, L in zip(pos, spatial, strict=False))
                padded = all(-b <= p < L + a for p, L, b, a in zip(pos, spatial, before, after, strict=False))
                v = x[(n, c, *tuple(pos))] if inside else lowest(x.dtype)
                best = v if best is None or v > best else best
                if inside:
                    total += v.item()
                count += inside or (include and padded)
            if kind == "max":
                out[(n, c, *o)] = best
            elif x.dtype.kind == "f":
                out[(n, c, *o)] = total / max(count, 1)
            else:
                out[(n, c, *o)] = trunc_div(int(total), max(count, 1))
    return out


# ---------------------------------------------------------------- windowed pooling: types

RESULTS = [
    # tests/python/relay/test_op_level2.py test_pool1d / test_pool3d (n written as `?`)
    ("nn.max_pool1d(%a, pool_size=[1])", [T("(?, 10, 224)")], T("(?, 10, 224)")),
    ("nn.avg_pool1d(%a, pool_size=[1])", [T("(?, 10, 224)")], T("(?, 10, 224)")),
    ("nn.max_pool1d(%a, pool_size=[2], strides=[2])", [T("(1, 3, 32)")], T("(1, 3, 16)")),
    (
        "nn.avg_pool1d(%a, pool_size=[2], strides=[2], dilation=[2])",
        [T("(1, 3, 32)", "int64")],
        T("(1, 3, 15)", "int64"),
    ),
    ("nn.max_pool3d(%a, pool_size=[1, 1, 1])", [T("(?, 10, 5, 224, 224)")], T("(?, 10, 5, 224, 224)")),
    ("nn.avg_pool3d(%a, pool_size=[1, 1, 1])", [T("(?, 10, 5, 224, 224)")], T("(?, 10, 5, 224, 224)")),
    (
        "nn.max_pool3d(%a, pool_size=[2, 2, 2], strides=[2, 2, 2], padding=[2, 0, 0, 2, 0, 0])",
        [T("(1, 3, 32, 32, 32)")],
        T("(1, 3, 18, 16, 16)"),
    ),
    (
        "nn.avg_pool3d(%a, pool_size=[2], strides=[2], dilation=[2], padding=[0, 0, 4, 0, 0, 4])",
        [T("(1, 3, 32, 32, 32)")],
        T("(1, 3, 15, 15, 19)"),
    ),
    # ceil_mode adds the partial window; NWC / NDHWC keep the channels last
    ("nn.max_pool1d(%a, pool_size=[3], strides=[2], ceil_mode=True)", [T("(1, 3, 10)")], T("(1, 3, 5)")),
    (
        'nn.max_pool1d(%a, pool_size=[3], strides=[2], padding=[1, 0], layout="NWC")',
        [T("(2, 10, 3)", "int8")],
        T("(2, 5, 3)", "int8"),
    ),
    ('nn.avg_pool3d(%a, pool_size=[2, 3, 1], layout="NDHWC")', [T("(1, 4, 5, 6, 2)")], T("(1, 3, 3, 6, 2)")),
    ('nn.max_pool1d(%a, pool_size=[2], out_layout="NWC")', [T("(1, 3, 10)", "bool")], T("(1, 9, 3)", "bool")),
]


@pytest.mark.parametrize("call, types, expected", RESULTS, ids=[c[0] for c in RESULTS])
def test_windowed_pool_types(call: str, types: list[str], expected: str) -> None:
    """Output length (L + pad - dilation * (k - 1) - 1) / stride + 1: calculate_pool_dimension,
    src/relay/op/nn/pooling_common.h; padding per Pool1DRel / Pool3DRel, src/relay/op/nn/pooling.cc."""
    assert FAMILY.result_type(call, types) == expected


ERRORS = [
    (
        "nn.max_pool1d(%a, pool_size=[2, 2])",
        [T("(1, 3, 10)")],
        "type-mismatch",
        "`nn.max_pool1d` pool_size takes 1 value (width), found 2",
        None,
    ),
    (
        "nn.avg_pool3d(%a, pool_size=[2], padding=[1, 1])",
        [T("(1, 3, 4, 4, 4)")],
        "type-mismatch",
        "`nn.avg_pool3d` padding takes 1, 3 or 6 values (front, top, left, back, bottom, right), found 2",
        None,
    ),
    (
        "nn.avg_pool1d(%a, pool_size=[2], padding=[1, 2, 3])",
        [T("(1, 3, 10)")],
        "type-mismatch",
        "`nn.avg_pool1d` padding takes 1 or 2 values (left, right), found 3",
        None,
    ),
    (
        "nn.max_pool3d(%a, pool_size=[3])",
        [T("(1, 2, 2, 4, 4)")],
        "shape-mismatch",
        "`nn.max_pool3d`: the window does not fit: the input depth is 2",
        "%a",
    ),
    (
        "nn.max_pool1d(%a, pool_size=[2])",
        [T("(1, 3, 4, 4)")],
        "shape-mismatch",
        "`nn.max_pool1d` needs 3-D data (NCW), found (1, 3, 4, 4)",
        "%a",
    ),
    (
        "nn.avg_pool1d(%a, pool_size=[2])",
        [T("(1, 3, 4)", "bool")],
        "type-mismatch",
        "`nn.avg_pool1d` takes numbers, not bool",
        "%a",
    ),
    (
        'nn.max_pool1d(%a, pool_size=[2], layout="NCHW")',
        [T("(1, 3, 4)")],
        "type-mismatch",
        '`nn.max_pool1d`: layout "NCHW" is not supported; use an order of the letters NCW',
        None,
    ),
    (
        "nn.max_pool3d(%a, pool_size=[2], strides=[0])",
        [T("(1, 3, 4, 4, 4)")],
        "type-mismatch",
        "`nn.max_pool3d` strides must be positive, found [0]",
        None,
    ),
]


@pytest.mark.parametrize("call, types, code, message, at", ERRORS, ids=[e[0] for e in ERRORS])
def test_windowed_pool_rejections(call: str, types: list[str], code: str, message: str, at: str | None) -> None:
    """Attribute errors point at the call, shape errors at the data."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    assert d.span.text == (at or call)


# ---------------------------------------------------------------- windowed pooling: kernels


@pytest.mark.parametrize(
    "attrs",
    [
        {"pool_size": [3], "strides": [2], "padding": [1]},
        {"pool_size": [2], "dilation": [3]},
        {"pool_size": [3], "strides": [1], "padding": [1], "ceil_mode": True},
    ],
)
def test_max_pool1d_against_torch(attrs: dict) -> None:
    t = torch()
    x = np.random.default_rng(0).standard_normal((2, 3, 11)).astype(np.float32)
    ref = t.nn.functional.max_pool1d(
        t.from_numpy(x),
        attrs["pool_size"][0],
        stride=attrs.get("strides", [1])[0],
        padding=attrs.get("padding", [0])[0],
        dilation=attrs.get("dilation", [1])[0],
        ceil_mode=attrs.get("ceil_mode", False),
    ).numpy()
    same(FAMILY.run("nn.max_pool1d", x, **attrs), ref)


@pytest.mark.parametrize("include", [False, True])
def test_avg_pool_against_torch(include: bool) -> None:
    t = torch()
    F = t.nn.functional
    g = np.random.default_rng(1)
    x1 = g.standard_normal((2, 3, 9)).astype(np.float32)
    ref = F.avg_pool1d(t.from_numpy(x1), 3, stride=2, padding=1, count_include_pad=include).numpy()
    same(FAMILY.run("nn.avg_pool1d", x1, pool_size=[3], strides=[2], padding=[1], count_include_pad=include), ref)
    x3 = g.standard_normal((1, 2, 5, 6, 7)).astype(np.float32)
    ref = F.avg_pool3d(
        t.from_numpy(x3), (2, 3, 3), stride=(1, 2, 2), padding=(1, 1, 0), count_include_pad=include
    ).numpy()
    got = FAMILY.run(
        "nn.avg_pool3d", x3, pool_size=[2, 3, 3], strides=[1, 2, 2], padding=[1, 1, 0], count_include_pad=include
    )
    same(got, ref)


def test_max_pool3d_against_torch() -> None:
    t = torch()
    x = np.random.default_rng(2).standard_normal((1, 2, 6, 7, 5)).astype(np.float32)
    ref = t.nn.functional.max_pool3d(
        t.from_numpy(x), (3, 2, 2), stride=(2, 1, 2), padding=(1, 0, 1), dilation=(1, 2, 1)
    ).numpy()
    got = FAMILY.run("nn.max_pool3d", x, pool_size=[3, 2, 2], strides=[2, 1, 2], padding=[1, 0, 1], dilation=[1, 2, 1])
    same(got, ref)


@pytest.mark.parametrize(
    "attrs",
    [
        {"pool_size": [3], "strides": [2], "padding": [0, 2], "ceil_mode": True},
        {"pool_size": [3], "strides": [2], "padding": [2, 1], "ceil_mode": True, "count_include_pad": True},
        {"pool_size": [2], "strides": [3], "dilation": [2], "padding": [1, 0]},
    ],
)
def test_pool1d_asymmetric_and_ceil_against_loops(attrs: dict) -> None:
    """Asymmetric padding and ceil-mode windows (which PyTorch shapes differently):
    the extra cells of ceil_mode never count, pool_impl_nd in pooling.h."""
    x = np.random.default_rng(3).standard_normal((1, 2, 10)).astype(np.float32)
    before, after = attrs["padding"][:1], attrs["padding"][1:]
    args = (
        [attrs["pool_size"][0]],
        attrs.get("strides", [1]),
        attrs.get("dilation", [1]),
        before,
        after,
        attrs.get("ceil_mode", False),
    )
    avg_attrs = dict(attrs)
    max_attrs = {k: v for k, v in attrs.items() if k != "count_include_pad"}
    same(FAMILY.run("nn.max_pool1d", x, **max_attrs), loop_pool(x, *args, "max"))
    same(FAMILY.run("nn.avg_pool1d", x, **avg_attrs), loop_pool(x, *args, "avg", attrs.get("count_include_pad", False)))


def test_pool3d_six_paddings_ceil_and_layout_against_loops() -> None:
    x = np.random.default_rng(4).standard_normal((1, 2, 4, 5, 6)).astype(np.float32)
    attrs = {"pool_size": [2, 3, 2], "strides": [2, 2, 3], "padding": [1, 0, 2, 0, 1, 1], "ceil_mode": True}
    ref_args = ([2, 3, 2], [2, 2, 3], [1, 1, 1], [1, 0, 2], [0, 1, 1], True)
    same(FAMILY.run("nn.avg_pool3d", x, **attrs), loop_pool(x, *ref_args, "avg"))
    same(FAMILY.run("nn.avg_pool3d", x, count_include_pad=True, **attrs), loop_pool(x, *ref_args, "avg", True))
    ndhwc = np.transpose(x, (0, 2, 3, 4, 1))
    got = FAMILY.run("nn.max_pool3d", ndhwc, layout="NDHWC", **attrs)
    same(got, np.transpose(loop_pool(x, *ref_args, "max"), (0, 2, 3, 4, 1)))


def test_integer_and_bool_pooling() -> None:
    """Integer means truncate toward zero (the sum divided in the dtype); max pads with the dtype's lowest value."""
    g = np.random.default_rng(5)
    x = g.integers(-50, 50, (1, 2, 9)).astype(np.int32)
    attrs = {"pool_size": [3], "strides": [2], "padding": [1]}
    same(FAMILY.run("nn.avg_pool1d", x, **attrs), loop_pool(x, [3], [2], [1], [1], [1], False, "avg"))
    same(
        FAMILY.run("nn.max_pool1d", x.astype(np.int8), **attrs),
        loop_pool(x.astype(np.int8), [3], [2], [1], [1], [1], False, "max"),
    )
    x3 = g.integers(-9, 9, (1, 1, 3, 4, 4)).astype(np.int64)
    same(
        FAMILY.run("nn.avg_pool3d", x3, pool_size=[2], padding=[1]),
        loop_pool(x3, [2] * 3, [1] * 3, [1] * 3, [1] * 3, [1] * 3, False, "avg"),
    )
    same(
        FAMILY.run("nn.avg_pool1d", np.array([[[-1, -2, 3]]], np.int32), pool_size=[2]), np.array([[[-1, 0]]], np.int32)
    )
    b = np.array([[[False, True, False, False, False]]])
    same(FAMILY.run("nn.max_pool1d", b, pool_size=[2], strides=[2], padding=[1]), np.array([[[False, True, False]]]))
    same(
        FAMILY.run("nn.max_pool3d", b.reshape(1, 1, 1, 1, 5), pool_size=[1, 1, 5]),
        np.array([True]).reshape(1, 1, 1, 1, 1),
    )


def test_out_layout_orders_the_result() -> None:
    x = np.arange(12, dtype=np.float32).reshape(1, 2, 6)
    same(FAMILY.run("nn.max_pool1d", x, pool_size=[2], strides=[2], out_layout="NWC"), [[[1, 7], [3, 9], [5, 11]]])


# ---------------------------------------------------------------- adaptive pooling

ADAPTIVE_RESULTS = [
    # tests/python/relay/test_op_level10.py test_adaptive_pool
    ("nn.adaptive_max_pool1d(%a, output_size=[1])", [T("(1, 9, 224)")], T("(1, 9, 1)")),
    ("nn.adaptive_avg_pool1d(%a, output_size=[3])", [T("(1, 3, 224)", "int32")], T("(1, 3, 3)", "int32")),
    ('nn.adaptive_max_pool1d(%a, output_size=[1], layout="NWC")', [T("(1, 224, 3)")], T("(1, 1, 3)")),
    ("nn.adaptive_avg_pool1d(%a)", [T("(1, 5, 97)")], T("(1, 5, 97)")),
    ("nn.adaptive_avg_pool3d(%a, output_size=[1, 1, 1])", [T("(1, 16, 32, 32, 32)")], T("(1, 16, 1, 1, 1)")),
    (
        'nn.adaptive_max_pool3d(%a, output_size=[2, 4, 4], layout="NDHWC")',
        [T("(1, 16, 32, 32, 32)")],
        T("(1, 2, 4, 4, 32)"),
    ),
    ("nn.adaptive_max_pool3d(%a, output_size=[2])", [T("(1, 3, 5, 6, 7)", "bool")], T("(1, 3, 2, 2, 2)", "bool")),
]


@pytest.mark.parametrize("call, types, expected", ADAPTIVE_RESULTS, ids=[c[0] for c in ADAPTIVE_RESULTS])
def test_adaptive_types(call: str, types: list[str], expected: str) -> None:
    """AdaptivePool1DRel / AdaptivePool3DRel, src/relay/op/nn/pooling.cc: no output_size keeps the input's."""
    assert FAMILY.result_type(call, types) == expected


ADAPTIVE_ERRORS = [
    (
        "nn.adaptive_avg_pool1d(%a, output_size=[2, 2])",
        [T("(1, 3, 9)")],
        "type-mismatch",
        "`nn.adaptive_avg_pool1d` output_size takes at most 1 value (width), found 2",
        None,
    ),
    (
        "nn.adaptive_max_pool3d(%a, output_size=[2, 2])",
        [T("(1, 3, 9, 9, 9)")],
        "type-mismatch",
        "`nn.adaptive_max_pool3d` output_size takes 0, 1 or 3 values (depth, height, width), found 2",
        None,
    ),
    (
        "nn.adaptive_avg_pool3d(%a, output_size=[0])",
        [T("(1, 3, 9, 9, 9)")],
        "type-mismatch",
        "`nn.adaptive_avg_pool3d` output_size must be positive, found [0]",
        None,
    ),
    (
        "nn.adaptive_max_pool1d(%a)",
        [T("(3, 9)")],
        "shape-mismatch",
        "`nn.adaptive_max_pool1d` needs 3-D data (NCW), found (3, 9)",
        "%a",
    ),
    (
        'nn.adaptive_avg_pool3d(%a, layout="NCHW")',
        [T("(1, 3, 9, 9)")],
        "type-mismatch",
        '`nn.adaptive_avg_pool3d`: layout "NCHW" is not supported',
        None,
    ),
    (
        "nn.adaptive_avg_pool1d(%a)",
        [T("(1, 3, 9)", "bool")],
        "type-mismatch",
        "`nn.adaptive_avg_pool1d` takes numbers, not bool",
        "%a",
    ),
]


@pytest.mark.parametrize("call, types, code, message, at", ADAPTIVE_ERRORS, ids=[e[0] for e in ADAPTIVE_ERRORS])
def test_adaptive_rejections(call: str, types: list[str], code: str, message: str, at: str | None) -> None:
    """A 3-D output_size of 2 values is read past its end by AdaptivePool3DRel; it is refused here."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    assert d.span.text == (at or call)


def loop_adaptive(x, sizes, kind):
    """Adaptive pooling of (N, C, *spatial), cell by cell (start_index / end_index, pooling.h)."""
    spatial = x.shape[2:]
    out = np.zeros(x.shape[:2] + tuple(sizes), dtype=x.dtype)
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for o in itertools.product(*(range(s) for s in sizes)):
            region = tuple(slice(i * L // S, -(-(i + 1) * L // S)) for i, L, S in zip(o, spatial, sizes, strict=False))
            block = x[(n, c, *region)]
            if kind == "max":
                out[(n, c, *o)] = block.max()
            elif x.dtype.kind == "f":
                out[(n, c, *o)] = block.astype(np.float64).mean()
            else:
                out[(n, c, *o)] = trunc_div(int(block.astype(np.int64).sum()), block.size)
    return out


def test_adaptive_against_torch() -> None:
    t = torch()
    F = t.nn.functional
    g = np.random.default_rng(6)
    x1 = g.standard_normal((2, 3, 14)).astype(np.float32)
    same(FAMILY.run("nn.adaptive_avg_pool1d", x1, output_size=[5]), F.adaptive_avg_pool1d(t.from_numpy(x1), 5).numpy())
    same(
        FAMILY.run("nn.adaptive_max_pool1d", x1, output_size=[13]), F.adaptive_max_pool1d(t.from_numpy(x1), 13).numpy()
    )
    x3 = g.standard_normal((1, 2, 7, 8, 5)).astype(np.float32)
    same(
        FAMILY.run("nn.adaptive_avg_pool3d", x3, output_size=[3, 4, 2]),
        F.adaptive_avg_pool3d(t.from_numpy(x3), (3, 4, 2)).numpy(),
    )
    same(FAMILY.run("nn.adaptive_max_pool3d", x3, output_size=[3]), F.adaptive_max_pool3d(t.from_numpy(x3), 3).numpy())
    ndhwc = np.transpose(x3, (0, 2, 3, 4, 1))
    got = FAMILY.run("nn.adaptive_avg_pool3d", ndhwc, output_size=[2, 3, 4], layout="NDHWC")
    same(got, np.transpose(F.adaptive_avg_pool3d(t.from_numpy(x3), (2, 3, 4)).numpy(), (0, 2, 3, 4, 1)))


def test_adaptive_integers_bools_and_layout_against_loops() -> None:
    """Integer means divide the region's sum by its size, truncating (adaptive_pool_impl, pooling.h)."""
    g = np.random.default_rng(7)
    x = g.integers(-100, 100, (1, 3, 11)).astype(np.int32)
    same(FAMILY.run("nn.adaptive_avg_pool1d", x, output_size=[4]), loop_adaptive(x, [4], "avg"))
    nwc = np.transpose(x, (0, 2, 1))
    same(
        FAMILY.run("nn.adaptive_max_pool1d", nwc, output_size=[3], layout="NWC"),
        np.transpose(loop_adaptive(x, [3], "max"), (0, 2, 1)),
    )
    x3 = g.integers(-7, 7, (1, 2, 5, 3, 4)).astype(np.int8)
    same(FAMILY.run("nn.adaptive_avg_pool3d", x3, output_size=[2, 2, 3]), loop_adaptive(x3, [2, 2, 3], "avg"))
    b = g.random((1, 2, 4, 4, 6)) < 0.2
    same(FAMILY.run("nn.adaptive_max_pool3d", b, output_size=[2, 3, 4]), loop_adaptive(b, [2, 3, 4], "max"))
    same(FAMILY.run("nn.adaptive_max_pool3d", b), b)


# ---------------------------------------------------------------- gradients of 2-D pooling

GRAD_RESULTS = [
    # tests/python/relay/test_op_grad_level2.py: out_grad has the pooled shape, the result the data's
    (
        "nn.max_pool2d_grad(%a, %b, pool_size=[2, 2], strides=[2, 2])",
        [T("(1, 4, 8, 8)"), T("(1, 4, 16, 16)")],
        T("(1, 4, 16, 16)"),
    ),
    (
        "nn.avg_pool2d_grad(%a, %b, pool_size=[2, 2], strides=[2, 2], count_include_pad=True)",
        [T("(1, 4, 8, 8)"), T("(1, 4, 16, 16)")],
        T("(1, 4, 16, 16)"),
    ),
    (
        'nn.avg_pool2d_grad(%a, %b, pool_size=[3, 3], strides=[2, 2], padding=[1], layout="NHWC")',
        [T("(1, 4, 4, 2)", "int32"), T("(1, 7, 8, 2)", "int32")],
        T("(1, 7, 8, 2)", "int32"),
    ),
]


@pytest.mark.parametrize("call, types, expected", GRAD_RESULTS, ids=[c[0] for c in GRAD_RESULTS])
def test_pool_grad_types(call: str, types: list[str], expected: str) -> None:
    """Pool2DGradRel, src/relay/op/nn/pooling.cc: the result has the data's type."""
    assert FAMILY.result_type(call, types) == expected


def test_pool_grad_infers_out_grad() -> None:
    """A gradient whose type is unknown takes the pooled shape (ceil_mode: pool_grad_impl, pooling.h)."""
    call = "nn.max_pool2d_grad(%a, %b, pool_size=[3, 3], strides=[2, 2], ceil_mode=True)"
    assert FAMILY.param_type(call, ["Tensor[_, _]", T("(1, 2, 6, 7)", "float64")], 0) == T("(1, 2, 3, 3)", "float64")


GRAD_ERRORS = [
    (
        "nn.max_pool2d_grad(%a, %b, pool_size=[2, 2], strides=[2, 2])",
        [T("(1, 4, 8, 7)"), T("(1, 4, 16, 16)")],
        "shape-mismatch",
        "`nn.max_pool2d_grad`: out_grad has size 7 on axis 3 (W), but the pooling gives 8",
        "%a",
    ),
    (
        "nn.avg_pool2d_grad(%a, %b, pool_size=[2, 2])",
        [T("(1, 4, 3)"), T("(4, 4, 4)")],
        "shape-mismatch",
        "`nn.avg_pool2d_grad` needs 4-D data (NCHW), found (4, 4, 4)",
        "%b",
    ),
    (
        "nn.avg_pool2d_grad(%a, %b, pool_size=[2, 2])",
        [T("(1, 1, 3, 3)", "float64"), T("(1, 1, 4, 4)")],
        "type-mismatch",
        "`nn.avg_pool2d_grad` needs operands of one dtype, found `float64` and `float32`",
        "%b",
    ),
    (
        "nn.max_pool2d_grad(%a, %b, pool_size=[5, 5])",
        [T("(1, 1, 1, 1)"), T("(1, 1, 4, 4)")],
        "shape-mismatch",
        "`nn.max_pool2d_grad`: the window does not fit: the input height is 4",
        "%b",
    ),
]


@pytest.mark.parametrize("call, types, code, message, at", GRAD_ERRORS, ids=[e[0] for e in GRAD_ERRORS])
def test_pool_grad_rejections(call: str, types: list[str], code: str, message: str, at: str) -> None:
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    assert d.span.text == at


@pytest.mark.parametrize("padding", [[0, 0], [1, 1], [1, 0, 0, 1]])
def test_max_pool2d_grad_against_torch(padding: list[int]) -> None:
    t = torch()
    g = np.random.default_rng(8)
    x = g.standard_normal((2, 3, 7, 6)).astype(np.float32)
    pt, pl, pb, pr = (padding * 2)[:4] if len(padding) == 2 else padding
    xt = t.from_numpy(x).requires_grad_()
    y = t.nn.functional.max_pool2d(t.nn.functional.pad(xt, (pl, pr, pt, pb), value=-np.inf), 3, stride=2)
    og = g.standard_normal(tuple(y.shape)).astype(np.float32)
    y.backward(t.from_numpy(og))
    got = FAMILY.run("nn.max_pool2d_grad", og, x, pool_size=[3, 3], strides=[2, 2], padding=padding)
    same(got, xt.grad.numpy())


@pytest.mark.parametrize("include", [False, True])
def test_avg_pool2d_grad_against_torch(include: bool) -> None:
    t = torch()
    g = np.random.default_rng(9)
    x = g.standard_normal((1, 2, 7, 8)).astype(np.float32)
    xt = t.from_numpy(x).requires_grad_()
    y = t.nn.functional.avg_pool2d(xt, (3, 2), stride=(2, 2), padding=(1, 1), count_include_pad=include)
    og = g.standard_normal(tuple(y.shape)).astype(np.float32)
    y.backward(t.from_numpy(og))
    got = FAMILY.run(
        "nn.avg_pool2d_grad", og, x, pool_size=[3, 2], strides=[2, 2], padding=[1, 1], count_include_pad=include
    )
    same(got, xt.grad.numpy())


def loop_pool_grad(og, x, k, s, pads, ceil, kind, include=False):
    """pool_grad_impl (pooling.h), window by window: max hands out_grad to the first maximum,
    mean spreads out_grad / n (n = kh * kw with count_include_pad, else the cells inside)."""
    pt, pl, pb, pr = pads
    if ceil:
        pb, pr = pb + s[0] - 1, pr + s[1] - 1
    n_, c_, h, w = x.shape
    grad = np.zeros(x.shape, dtype=x.dtype)
    for n, c, i, j in itertools.product(range(n_), range(c_), range(og.shape[2]), range(og.shape[3])):
        cells = [(i * s[0] + a - pt, j * s[1] + b - pl) for a in range(k[0]) for b in range(k[1])]
        if kind == "max":
            values = [x[n, c, y, z] if 0 <= y < h and 0 <= z < w else lowest(x.dtype) for y, z in cells]
            y, z = cells[int(np.argmax(values))]
            if 0 <= y < h and 0 <= z < w:
                grad[n, c, y, z] += og[n, c, i, j]
            continue
        rows = min(i * s[0] - pt + k[0], h) - max(i * s[0] - pt, 0)
        cols = min(j * s[1] - pl + k[1], w) - max(j * s[1] - pl, 0)
        count = k[0] * k[1] if include else max(rows * cols, 1)
        share = og[n, c, i, j] / count if x.dtype.kind == "f" else trunc_div(int(og[n, c, i, j]), count)
        for y, z in cells:
            if 0 <= y < h and 0 <= z < w:
                grad[n, c, y, z] += share
    return grad


def test_pool2d_grads_in_ceil_mode_and_nhwc_against_loops() -> None:
    g = np.random.default_rng(10)
    x = g.standard_normal((1, 2, 6, 7)).astype(np.float32)
    attrs = {"pool_size": [3, 2], "strides": [2, 3], "padding": [1, 0, 0, 1], "ceil_mode": True}
    og = g.standard_normal((1, 2, 3, 3)).astype(np.float32)
    ref = loop_pool_grad(og, x, (3, 2), (2, 3), (1, 0, 0, 1), True, "max")
    same(FAMILY.run("nn.max_pool2d_grad", og, x, **attrs), ref)
    for include in (False, True):
        ref = loop_pool_grad(og, x, (3, 2), (2, 3), (1, 0, 0, 1), True, "avg", include)
        same(FAMILY.run("nn.avg_pool2d_grad", og, x, count_include_pad=include, **attrs), ref)
    nhwc = (0, 2, 3, 1)
    got = FAMILY.run("nn.max_pool2d_grad", og.transpose(nhwc), x.transpose(nhwc), layout="NHWC", **attrs)
    same(got, loop_pool_grad(og, x, (3, 2), (2, 3), (1, 0, 0, 1), True, "max").transpose(nhwc))


def test_pool2d_grads_of_integers_and_ties() -> None:
    """Integer shares truncate per window before they are added; a tie goes to the first cell."""
    x = np.zeros((1, 1, 3, 3), dtype=np.int32)
    og = np.array([[[[7, -7], [5, 1]]]], dtype=np.int32)
    got = FAMILY.run("nn.avg_pool2d_grad", og, x, pool_size=[2, 2])
    same(got, loop_pool_grad(og, x, (2, 2), (1, 1), (0, 0, 0, 0), False, "avg"))
    # 7 / 4 -> 1 and -7 / 4 -> -1: the middle of the top row gets 1 - 1 = 0
    same(got[0, 0, 0], np.array([1, 0, -1], np.int32))
    ones = np.ones((1, 1, 2, 3), dtype=np.float32)
    same(
        FAMILY.run("nn.max_pool2d_grad", np.array([[[[5.0, 6.0]]]], np.float32), ones, pool_size=[2, 2]),
        [[[[5, 6, 0], [0, 0, 0]]]],
    )


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
