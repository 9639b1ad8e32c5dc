"""Normalizations and activations: `nn.group_norm`, `nn.instance_norm`,
`nn.l2_normalize`, `nn.prelu`, `nn.fast_softmax`. Result types (with the
vectors inferred from the data), rejected calls, kernels against PyTorch
and against the lowering TVM applies (src/relay/transforms/simplify_inference.cc)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family("nn.group_norm", "nn.instance_norm", "nn.l2_normalize", "nn.prelu", "nn.fast_softmax")


def torch():
    torch_reference()  # skips without PyTorch
    import torch as t

    return t


HOLE = "Tensor[_, _]"

RESULTS = [
    # tests/python/topi/test_topi_group_norm.py / test_topi_instance_norm.py shapes
    ("nn.group_norm(%a, %b, %c, num_groups=2)", [T("(2, 4, 16)"), T("(4)"), T("(4)")], T("(2, 4, 16)")),
    (
        "nn.instance_norm(%a, %b, %c)",
        [T("(2, 4, 4, 16)", "float64"), T("(4)", "float64"), T("(4)", "float64")],
        T("(2, 4, 4, 16)", "float64"),
    ),
    # tests/python/relay/test_op_level2.py test_l2_normalize
    ("nn.l2_normalize(%a, eps=0.001f, axis=[1])", [T("(1, 5, 10, 10)")], T("(1, 5, 10, 10)")),
    ("nn.l2_normalize(%a, eps=0.001f, axis=[])", [T("(?, 3)", "float16")], T("(?, 3)", "float16")),
    # tests/python/relay/test_op_level3.py TestInferTypePrelu
    ("nn.prelu(%a, %b)", [T("(1, 3, 2, 2)"), T("(3)")], T("(1, 3, 2, 2)")),
    ("nn.prelu(%a, %b, axis=3)", [T("(1, 2, 2, 3)"), T("(3)")], T("(1, 2, 2, 3)")),
    ("nn.prelu(%a, %b, axis=-1)", [T("(4, 5)", "int32"), T("(5)", "int32")], T("(4, 5)", "int32")),
    ("nn.fast_softmax(%a)", [T("(2, 5)")], T("(2, 5)")),
    ("nn.fast_softmax(%a, axis=0)", [T("(2, 5)", "float64")], T("(2, 5)", "float64")),
]


@pytest.mark.parametrize("call, types, expected", RESULTS, ids=[c[0] for c in RESULTS])
def test_result_types(call: str, types: list[str], expected: str) -> None:
    """GroupNormRel, InstanceNormRel, PReluRel, SoftmaxRel, IdentityRel (src/relay/op/nn/nn.cc)."""
    assert FAMILY.result_type(call, types) == expected


@pytest.mark.parametrize(
    "call, types, index, expected",
    [
        ("nn.prelu(%a, %b, axis=3)", [T("(1, 2, 2, 3)"), HOLE], 1, T("(3)")),
        (
            "nn.group_norm(%a, %b, %c, num_groups=3, axis=-1)",
            [T("(2, 5, 6)", "float16"), HOLE, HOLE],
            2,
            T("(6)", "float16"),
        ),
        ("nn.instance_norm(%a, %b, %c, axis=2)", [T("(2, 5, 7, 3)"), HOLE, HOLE], 1, T("(7)")),
    ],
)
def test_vectors_inferred_from_the_data(call: str, types: list[str], index: int, expected: str) -> None:
    """PReluRel assigns alpha (data.shape[axis],); the norm relations assign gamma and beta likewise."""
    assert FAMILY.param_type(call, types, index) == expected


ERRORS = [
    (
        "nn.group_norm(%a, %b, %c)",
        [T("(1, 4, 3)"), HOLE, HOLE],
        "type-mismatch",
        "`nn.group_norm` num_groups must be positive, found 0",
        None,
    ),
    (
        "nn.group_norm(%a, %b, %c, num_groups=4)",
        [T("(1, 6, 3)"), HOLE, HOLE],
        "shape-mismatch",
        "`nn.group_norm`: 6 channels cannot be split into num_groups=4 groups",
        "%a",
    ),
    (
        "nn.group_norm(%a, %b, %c, num_groups=2)",
        [T("(1, 4, 3)"), T("(3)"), HOLE],
        "type-mismatch",
        "`nn.group_norm` expects `Tensor[(4), float32]` here, found `Tensor[(3), float32]`",
        "%b",
    ),
    (
        "nn.instance_norm(%a, %b, %c)",
        [T("(4, 3)"), HOLE, HOLE],
        "shape-mismatch",
        "`nn.instance_norm` needs data of rank 3 or more (batch, channels, ...), found (4, 3)",
        "%a",
    ),
    (
        "nn.instance_norm(%a, %b, %c)",
        [T("(4, 3, 2)", "int32"), HOLE, HOLE],
        "type-mismatch",
        "`nn.instance_norm` takes a floating-point tensor, found `int32`",
        "%a",
    ),
    (
        "nn.l2_normalize(%a, eps=1f, axis=[4])",
        [T("(1, 2, 3, 4)")],
        "shape-mismatch",
        "axis 4 is out of range for a tensor of rank 4",
        "%a",
    ),
    (
        "nn.l2_normalize(%a, eps=1f, axis=[1, -3])",
        [T("(1, 2, 3, 4)")],
        "type-mismatch",
        "`nn.l2_normalize`: axis -3 is listed twice",
        None,
    ),
    (
        "nn.prelu(%a, %b)",
        [T("(1, 3, 2)"), T("(4)")],
        "type-mismatch",
        "`nn.prelu` expects `Tensor[(3), float32]` here, found `Tensor[(4), float32]`",
        "%b",
    ),
    ("nn.prelu(%a, %b)", [T("(1, 3, 2)", "bool"), HOLE], "type-mismatch", "`nn.prelu` takes numbers, not bool", "%a"),
    (
        "nn.prelu(%a, %b, axis=2)",
        [T("(1, 3)"), HOLE],
        "shape-mismatch",
        "axis 2 is out of range for a tensor of rank 2",
        "%a",
    ),
    (
        "nn.fast_softmax(%a)",
        [T("(2, 5)", "int32")],
        "type-mismatch",
        "`nn.fast_softmax` takes a floating-point tensor, found `int32`",
        "%a",
    ),
    (
        "nn.fast_softmax(%a, axis=2)",
        [T("(2, 5)")],
        "shape-mismatch",
        "axis 2 is out of range for a tensor of rank 2",
        "%a",
    ),
]


@pytest.mark.parametrize("call, types, code, message, at", ERRORS, ids=[e[0] for e in ERRORS])
def test_rejections(call: str, types: list[str], code: str, message: str, at: str | None) -> None:
    """num_groups defaults to 0 in GroupNormAttrs (include/tvm/relay/attrs/nn.h), which no call can
    run with; instance_norm needs rank > 2 (InstanceNormRel)."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    assert d.span.text == (at or call)


def test_l2_normalize_has_required_attributes() -> None:
    """L2NormalizeAttrs gives eps and axis no default."""
    d = FAMILY.only_error("nn.l2_normalize(%a, axis=[1])", [T("(2, 3)")])
    assert (d.code, d.message) == ("missing-attribute", "`nn.l2_normalize` needs the attribute `eps`")


# ---------------------------------------------------------------- group and instance norm


def test_group_norm_against_torch() -> None:
    t = torch()
    g = np.random.default_rng(0)
    x = g.standard_normal((2, 6, 4, 5)).astype(np.float32)
    gamma, beta = g.standard_normal(6).astype(np.float32), g.standard_normal(6).astype(np.float32)
    ref = t.nn.functional.group_norm(t.from_numpy(x), 3, t.from_numpy(gamma), t.from_numpy(beta), eps=1e-3).numpy()
    same(FAMILY.run("nn.group_norm", x, gamma, beta, num_groups=3, epsilon=1e-3), ref, rtol=1e-5, atol=1e-5)
    bare = t.nn.functional.group_norm(t.from_numpy(x), 2).numpy()
    same(
        FAMILY.run("nn.group_norm", x, gamma, beta, num_groups=2, center=False, scale=False), bare, rtol=1e-5, atol=1e-5
    )


def test_group_norm_with_channels_last_normalizes_within_the_group() -> None:
    """GroupNormToInferUnpack reduces the group's channels and the axes after the channel axis only:
    with the channels last, each pixel's groups are normalized separately."""
    g = np.random.default_rng(1)
    x = g.standard_normal((2, 3, 4, 6)).astype(np.float64)
    gamma, beta = g.standard_normal(6), g.standard_normal(6)
    groups = x.reshape(2, 3, 4, 2, 3)
    mean = groups.mean(axis=4, keepdims=True)
    var = groups.var(axis=4, keepdims=True)
    ref = ((groups - mean) / np.sqrt(var + 1e-5)).reshape(x.shape) * gamma + beta
    same(FAMILY.run("nn.group_norm", x, gamma, beta, num_groups=2, axis=-1), ref, rtol=1e-12, atol=1e-12)


def test_instance_norm_against_torch() -> None:
    t = torch()
    g = np.random.default_rng(2)
    x = g.standard_normal((2, 3, 5, 4)).astype(np.float32)
    gamma, beta = g.standard_normal(3).astype(np.float32), g.standard_normal(3).astype(np.float32)
    ref = t.nn.functional.instance_norm(
        t.from_numpy(x), weight=t.from_numpy(gamma), bias=t.from_numpy(beta), eps=1e-4
    ).numpy()
    same(FAMILY.run("nn.instance_norm", x, gamma, beta, epsilon=1e-4), ref, rtol=1e-5, atol=1e-5)
    # channels last: statistics over every axis but the batch and the channels
    nhwc = x.transpose(0, 2, 3, 1)
    same(
        FAMILY.run("nn.instance_norm", nhwc, gamma, beta, axis=3, epsilon=1e-4),
        ref.transpose(0, 2, 3, 1),
        rtol=1e-5,
        atol=1e-5,
    )
    shifted = FAMILY.run(
        "nn.instance_norm", x.astype(np.float16), gamma.astype(np.float16), beta.astype(np.float16), scale=False
    )
    ref = t.nn.functional.instance_norm(t.from_numpy(x).double(), bias=t.from_numpy(beta).double()).numpy()
    same(shifted, ref.astype(np.float16), dtype="float16", rtol=2e-3, atol=2e-3)


# ---------------------------------------------------------------- l2 normalize


def test_l2_normalize_against_torch() -> None:
    """x / sqrt(max(sum(x ** 2), eps)): L2NormToInferUnpack; an empty axis list reduces every axis."""
    t = torch()
    x = np.random.default_rng(3).standard_normal((2, 5, 3, 3)).astype(np.float32)
    xt = t.from_numpy(x)

    def ref(dims, eps):
        return (xt / t.sqrt(t.clamp((xt * xt).sum(dim=dims, keepdim=True), min=eps))).numpy()

    same(FAMILY.run("nn.l2_normalize", x, eps=1e-3, axis=[1]), ref((1,), 1e-3))
    same(FAMILY.run("nn.l2_normalize", x, eps=1e-3, axis=[-1, 2]), ref((2, 3), 1e-3))
    same(FAMILY.run("nn.l2_normalize", x, eps=1e-3, axis=[]), ref((0, 1, 2, 3), 1e-3))
    # eps dominates small norms
    small = np.array([[3e-3, 4e-3]], dtype=np.float32)
    same(FAMILY.run("nn.l2_normalize", small, eps=1.0, axis=[1]), small)


# ---------------------------------------------------------------- prelu


def test_prelu_against_torch() -> None:
    t = torch()
    g = np.random.default_rng(4)
    x = g.standard_normal((2, 3, 4, 4)).astype(np.float32)
    alpha = g.standard_normal(3).astype(np.float32)
    ref = t.nn.functional.prelu(t.from_numpy(x), t.from_numpy(alpha)).numpy()
    same(FAMILY.run("nn.prelu", x, alpha), ref)
    same(FAMILY.run("nn.prelu", x.transpose(0, 2, 3, 1), alpha, axis=3), ref.transpose(0, 2, 3, 1))


def test_prelu_on_integers_by_hand() -> None:
    x = np.array([[-3, 0, 5], [100, -100, -1]], dtype=np.int8)
    alpha = np.array([2, 3, -1], dtype=np.int8)
    # -100 * 3 wraps around in int8: -300 + 256 = -44
    same(FAMILY.run("nn.prelu", x, alpha, axis=1), np.array([[-6, 0, 5], [100, -44, 1]], np.int8))


# ---------------------------------------------------------------- fast softmax


def topi_fast_exp(v: float) -> np.float32:
    """fast_exp_float32 (include/tvm/topi/elemwise.h), one float32 scalar at a time."""
    f32 = np.float32
    x = f32(min(max(f32(v), f32(-88.3762626647949)), f32(88.3762626647950)))
    n = np.floor(x * f32(1.44269504088896341) + f32(0.5))
    f = x - n * f32(0.6931471805599453)
    coefficients = [
        1.9875691500e-4,
        1.3981999507e-3,
        8.3334519073e-3,
        4.1665795894e-2,
        1.6666665459e-1,
        5.0000001201e-1,
    ]
    p = f32(coefficients[0])
    for c in coefficients[1:]:
        p = f32(p * f + f32(c))
    y = f32(p * f * f + f + f32(1))
    scale = struct.unpack("<f", struct.pack("<i", (int(n) + 127) << 23 & 0xFFFFFFFF))[0]
    return f32(max(f32(scale) * y, f32(v)))


def test_fast_softmax_uses_topis_fast_exp() -> None:
    """softmax_common(use_fast_exp=True), python/tvm/topi/nn/softmax.py: exp(x - max) by fast_exp."""
    x = np.random.default_rng(5).standard_normal((3, 7)).astype(np.float32) * 4
    shifted = x - x.max(axis=1, keepdims=True)
    e = np.vectorize(topi_fast_exp, otypes=[np.float32])(shifted)
    expected = e / e.sum(axis=1, keepdims=True, dtype=np.float32)
    got = FAMILY.run("nn.fast_softmax", x)
    same(got, expected, rtol=2e-7, atol=0)
    assert not np.array_equal(e, np.exp(shifted)), "the approximation is not the exact exponential"


def test_fast_softmax_against_torch() -> None:
    t = torch()
    x = np.random.default_rng(6).standard_normal((4, 5, 6)).astype(np.float32) * 10
    same(FAMILY.run("nn.fast_softmax", x, axis=1), t.softmax(t.from_numpy(x), dim=1).numpy(), rtol=1e-5, atol=1e-7)
    x64 = x.astype(np.float64)
    same(
        FAMILY.run("nn.fast_softmax", x64, axis=-1),
        t.softmax(t.from_numpy(x64), dim=-1).numpy(),
        rtol=1e-12,
        atol=1e-15,
    )


def test_fast_softmax_underflows_to_zero() -> None:
    """Below about -87.3 the fast exponential gives 0 (no subnormals)."""
    x = np.array([0.0, -87.0, -90.0, -1000.0], dtype=np.float32)
    got = FAMILY.run("nn.fast_softmax", x)
    assert got[2] == 0 and got[3] == 0 and 0 < got[1] < 1e-37
    assert got[0] == 1


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
